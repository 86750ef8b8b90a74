"""The reproducibility check: the notebook run top to bottom in a fresh scratch kernel
(:mod:`.runner`, in a process of its own), compared with what the notebook shows
(:mod:`.check`), and the names it uses before defining them (:mod:`.order`)."""
