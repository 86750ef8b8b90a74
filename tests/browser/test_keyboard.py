"""The keyboard path to an approval: when Allow appears after the user ran the %%agent cell
with Shift+Enter, the focus is on it and Enter allows; Escape on the next ask denies; and an
ask that appears while the user types in another cell leaves the focus (and the typing) there.
(Before, the focus stayed in the notebook and Enter did nothing there.)"""

from __future__ import annotations

import threading

import pytest

from nb_agent.jupyter.view.approval import REJECT_MESSAGE
from nb_agent.testing import Reply, text, tool_use

from .conftest import NotebookPage

pytestmark = pytest.mark.timeout(600)  # JupyterLab and chromium start in the first test of a module

ACTIVE_TEXT = "() => document.activeElement ? document.activeElement.textContent.trim() : null"


def _results(lab) -> list[dict]:
    """The tool_result blocks of the last request the model got."""
    last = lab.server.script.requests[-1]["messages"][-1]["content"]
    return [block for block in last if isinstance(block, dict) and block.get("type") == "tool_result"]


def _result_text(block: dict) -> str:
    content = block.get("content")
    return content if isinstance(content, str) else " ".join(part.get("text", "") for part in content or [])


def test_allow_takes_the_focus_enter_allows_and_escape_denies(lab, new_page):
    lab.notebook("keys.ipynb", ["%load_ext nb_agent", "%%agent\ntidy the folder", "print('after')"])
    nb = NotebookPage(new_page(), lab, "keys.ipynb").open()
    nb.run(0)
    nb.wait_executed(0)
    lab.server.script.add(
        Reply(content=[tool_use("Bash", {"command": "touch made_by_agent.txt", "description": "Make a file"})]),
        Reply(content=[tool_use("Bash", {"command": "touch made_again.txt", "description": "Make another file"})]),
        Reply(content=[text("Understood, I stop here.")]),
    )
    nb.run(1)  # Shift+Enter: the next cell is selected, in command mode
    nb.wait_js("return live.keyboard.focused.length === 1;")
    assert nb.page.evaluate(ACTIVE_TEXT) == "Allow"
    nb.page.keyboard.press("Enter")
    nb.wait_js("return live.keyboard.focused.length === 2;")  # the second ask took the focus in turn
    (allowed,) = _results(lab)
    assert not allowed.get("is_error")
    assert nb.page.evaluate(ACTIVE_TEXT) == "Allow"
    nb.page.keyboard.press("Escape")
    nb.wait_executed(1)
    (denied,) = _results(lab)
    assert denied.get("is_error") and REJECT_MESSAGE in _result_text(denied)
    assert "Understood, I stop here." in nb.cell(1).locator(".jp-OutputArea").inner_text()


def test_an_ask_leaves_the_focus_in_the_cell_the_user_types_in(lab, new_page):
    lab.notebook("typing.ipynb", ["%load_ext nb_agent", "%%agent\ntidy the folder", ""])
    nb = NotebookPage(new_page(), lab, "typing.ipynb").open()
    nb.run(0)
    nb.wait_executed(0)
    asked = threading.Event()

    def ask_once_the_user_types(_request: dict) -> Reply:
        asked.wait(timeout=300)  # released by the test below, once the user is typing
        return Reply(content=[tool_use("Bash", {"command": "touch made_by_agent.txt", "description": "Make a file"})])

    lab.server.script.add(ask_once_the_user_types, Reply(content=[text("Made it.")]))
    nb.run(1)
    nb.type_into(2, "total = 1")
    asked.set()
    allow = nb.page.get_by_role("button", name="Allow", exact=True)
    allow.wait_for(timeout=120_000)
    nb.page.keyboard.type(" + 2")
    assert nb.js("return [...live.keyboard.focused];") == []
    assert nb.sources()[2] == "total = 1 + 2"  # every key went on into the cell
    allow.click()
    nb.wait_executed(1)
    assert "Made it." in nb.cell(1).locator(".jp-OutputArea").inner_text()
