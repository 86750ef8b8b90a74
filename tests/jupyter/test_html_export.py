"""The HTML export of a notebook (nbconvert, which JupyterLab's File > Save and Export as
HTML runs) shows a ``%%agent`` cell's prompt as plain text: IPython's lexer (``ipython3``,
what the kernel names in the notebook's language_info) gives an unknown cell magic's body
no highlighting, so an apostrophe opens no string and ``and``/``with``/``as`` are not
keywords. No code of nb_agent does this: the test keeps it true (the README says it), and
a Python cell in the same export shows that highlighting would be seen."""

from __future__ import annotations

import html
import re

import nbformat
from nbconvert import HTMLExporter

PROMPT = "What's in sales.csv? Clean it with pandas and plot it as a chart, and with a table as well."
PYTHON = "with open('sales.csv') as f:\n    text = f.read() and 'x'"


def _highlighted_blocks(notebook: nbformat.NotebookNode) -> list[str]:
    body, _ = HTMLExporter().from_notebook_node(notebook)
    return re.findall(r'<div class="highlight hl-ipython3"><pre>(.*?)</pre>', body, re.S)


def test_the_html_export_shows_an_agent_prompt_as_plain_text():
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    notebook.metadata["language_info"] = {"name": "python", "pygments_lexer": "ipython3", "codemirror_mode": {"name": "ipython", "version": 3}}
    notebook.cells = [nbformat.v4.new_code_cell(f"%%agent\n{PROMPT}"), nbformat.v4.new_code_cell(PYTHON)]
    agent, python = _highlighted_blocks(notebook)
    prompt_html = agent.split("\n", 1)[1]
    assert html.unescape(prompt_html).strip() == PROMPT and "<span" not in prompt_html, agent  # the prompt, with no token of any kind
    assert "<span class=\"s1\">'sales.csv'</span>" in python and '<span class="k">with</span>' in python, python
    assert '<span class="ow">and</span>' in python and '<span class="k">as</span>' in python, python
