"""A ``%%agent`` cell holds a prompt, not Python: the page shows it as plain text that wraps
at the cell's edge, and shows it as Python again when the user deletes the ``%%agent`` line
(and as a prompt when they type it back). Before, the apostrophe of "What's" opened a red
Python string, ``and``/``with``/``as`` were keywords, and the prompt ran off the right edge.
Nothing here needs the kernel's agent: it is the page's own doing (labextension/src/agentCells.ts)."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import NotebookPage

pytestmark = pytest.mark.timeout(600)  # JupyterLab and chromium start in the first test of a module

PROMPT = "%%agent\nWhat's in sales.csv? Clean it with pandas and plot it as a chart, " + "and with a table as well " * 12
PYTHON = "import pandas as pd\nwith open('sales.csv') as f: text = f.read()"

# How the editor of cell `arg` shows its text: highlighted tokens are spans inside the lines
# (plain text has none), soft wrap is CodeMirror's cm-lineWrapping class, and a line running
# off the right edge makes the scroller wider than its box.
EDITOR = """
const cell = live.panel.content.widgets[arg];
const content = cell.node.querySelector('.cm-content');
const scroller = cell.node.querySelector('.cm-scroller');
const shown = !!content && {
  mime: cell.model.mimeType,
  tokens: content.querySelectorAll('.cm-line span').length,
  wraps: content.classList.contains('cm-lineWrapping'),
  overflows: scroller.scrollWidth > scroller.clientWidth + 1,
};
"""

AS_PROMPT = EDITOR + "return shown && shown.mime === 'text/plain' && shown.tokens === 0 && shown.wraps && !shown.overflows;"
AS_PYTHON = EDITOR + "return shown && shown.mime === 'text/x-ipython' && shown.tokens > 0 && !shown.wraps;"


EDITOR_CONFIG = "const c = live.panel.content.widgets[arg]; return [live.panel.content.editorConfig.code, c.editorConfig, c.editor && c.editor.getOption('lineWrap')];"


def _shown(nb: NotebookPage, index: int) -> Any:
    return nb.js(EDITOR + "return shown;", index)


def _wait_shown(nb: NotebookPage, index: int, condition: str) -> None:
    """Wait until cell ``index`` is shown as ``condition`` says; on a timeout, say how it is shown."""
    try:
        nb.wait_js(condition, index)
    except Exception as error:
        raise AssertionError(f"cell {index} shown as {_shown(nb, index)}, source {nb.sources()[index]!r} editor config {nb.js(EDITOR_CONFIG, index)}") from error


def _retype_first_line(nb: NotebookPage, index: int, text: str) -> None:
    """Select the first line of cell ``index`` with the keyboard and type ``text`` over it."""
    nb.cell(index).locator(".cm-content").click()
    nb.page.keyboard.press("Control+Home")
    nb.page.keyboard.press("Shift+End")
    if text:
        nb.page.keyboard.type(text)
    else:
        nb.page.keyboard.press("Backspace")


def test_an_agent_cell_is_plain_wrapped_text_and_python_again_without_its_magic(lab, new_page):
    lab.notebook("prompts.ipynb", [PROMPT, PYTHON])
    nb = NotebookPage(new_page(), lab, "prompts.ipynb").open()
    # the kernel's language reached the page (so the notebook set every code cell's mode)
    _wait_shown(nb, 1, AS_PYTHON)
    _wait_shown(nb, 0, AS_PROMPT)
    python = _shown(nb, 1)
    assert python["tokens"] > 0 and python["mime"] == "text/x-ipython", python

    _retype_first_line(nb, 0, "")  # the user deletes "%%agent": the cell is Python again
    _wait_shown(nb, 0, AS_PYTHON)
    assert nb.sources()[0] == PROMPT.removeprefix("%%agent")
    assert _shown(nb, 0)["overflows"], "the long line shown as Python runs off the edge (nothing wraps it)"

    nb.page.keyboard.press("Control+Home")
    nb.page.keyboard.type("%%agent")  # and types it back: a prompt again
    _wait_shown(nb, 0, AS_PROMPT)
    assert nb.sources()[0] == PROMPT

    _retype_first_line(nb, 1, "%%agent")  # a Python cell that becomes a prompt
    _wait_shown(nb, 1, AS_PROMPT)
    assert nb.sources()[1].startswith("%%agent\nwith open(")


def _line_numbers(nb: NotebookPage) -> bool:
    return nb.js("return !!live.panel.content.editorConfig.code.lineNumbers;")


def test_an_agent_cell_stays_a_prompt_when_the_settings_change(lab, new_page):
    """View > Show Line Numbers changes the notebook's settings, and JupyterLab then gives
    every code cell the notebook's editor configuration again (its lineWrap included): an
    agent cell stays wrapped, before its next edit, and a Python cell gets the change."""
    lab.notebook("settings.ipynb", [PROMPT, PYTHON])
    nb = NotebookPage(new_page(), lab, "settings.ipynb").open()
    _wait_shown(nb, 1, AS_PYTHON)
    _wait_shown(nb, 0, AS_PROMPT)
    numbered = _line_numbers(nb)
    nb.cell(1).locator(".jp-InputPrompt").click()
    nb.page.locator(".lm-MenuBar-itemLabel", has_text="View").click()
    nb.page.locator(".lm-Menu-itemLabel", has_text="Show Line Numbers").first.click()
    nb.wait_js("return !!live.panel.content.editorConfig.code.lineNumbers === arg;", not numbered)
    # the notebook reconfigures its cells synchronously when its configuration is set
    assert nb.js("return live.panel.content.widgets.map(c => !!c.editor.getOption('lineNumbers'));") == [not numbered] * 2
    assert nb.js(AS_PROMPT, 0), f"the agent cell is shown as {_shown(nb, 0)} after the settings change"
    assert nb.js(AS_PYTHON, 1), _shown(nb, 1)
