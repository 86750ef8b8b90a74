"""What the kernel really ran, beside the notebook as the page shows it: execution order,
cells changed since they ran, cells never run, counts from an earlier kernel, and variables
whose defining code is no longer in the notebook (hidden state). Told to the agent with the
live notebook (at a run's start and between turns), bounded; see :mod:`.report`."""

from nb_agent.jupyter.provenance.ledger import CellLedger
from nb_agent.jupyter.provenance.report import KernelHistory, Provenance, provenance

__all__ = ["CellLedger", "KernelHistory", "Provenance", "provenance"]
