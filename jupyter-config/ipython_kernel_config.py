# Load nb_agent in every IPython kernel of a profile (an alternative to the
# "Python 3 (nb_agent)" kernelspec of `python -m nb_agent.jupyter.kernelspec install`).
#
# Copy this file to $(ipython locate profile)/ipython_kernel_config.py, or append the
# line below to the one you have. Kernels started from then on run %load_ext nb_agent.
c.InteractiveShellApp.extensions.append("nb_agent")  # noqa: F821 - `c` is IPython's config object
