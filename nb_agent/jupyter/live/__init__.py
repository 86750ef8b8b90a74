"""The live notebook: the agent reads and edits the notebook open in JupyterLab / Notebook 7
through the ``nb-agent-live`` frontend extension, over a kernel comm
(``labextension/PROTOCOL.md``). Without the extension everything works on the file as before.
"""

from nb_agent.jupyter.live.notebook import LiveNotebook

__all__ = ["LiveNotebook"]
