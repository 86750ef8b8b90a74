"""What a person types into a card's text box reaches the model whole: deny feedback, Keep
planning's text and a question's "Other" answer, typed key by key in a real JupyterLab page
while the agent's cell runs, then a click or Enter. (ipykernel 7.4 sent no idle status for
comm messages handled during a running cell, so the page held every keystroke after the
first: the model got "K".)"""

from __future__ import annotations

import json

import pytest

from nb_agent.jupyter.view.approval import FEEDBACK_PLACEHOLDER
from nb_agent.jupyter.view.plan_form import FEEDBACK_PLACEHOLDER as PLAN_PLACEHOLDER
from nb_agent.jupyter.view.question_form import OTHER_PLACEHOLDER
from nb_agent.testing import Reply, text, tool_use

from .conftest import NotebookPage

pytestmark = pytest.mark.timeout(600)  # JupyterLab and chromium start in the first test of a module

FEEDBACK = "Keep the raw export untouched; write sales_clean.csv instead"
QUESTION = {
    "question": "Which average should the report use?",
    "header": "Average",
    "multiSelect": False,
    "options": [{"label": "Mean", "description": "the arithmetic mean"}, {"label": "Median", "description": "the middle value"}],
}


def _open(lab, new_page, name: str, prompt: str, magic: str = "%%agent") -> NotebookPage:
    lab.notebook(name, ["%load_ext nb_agent", f"{magic}\n{prompt}"])
    nb = NotebookPage(new_page(), lab, name).open()
    nb.run(0)
    nb.wait_executed(0)
    return nb


def _type(nb: NotebookPage, placeholder: str, typed: str) -> None:
    box = nb.page.get_by_placeholder(placeholder)
    box.wait_for(state="visible", timeout=120_000)
    box.click()
    nb.page.keyboard.type(typed)  # one key event after another, as fast as the page takes them


def _last_tool_result(lab) -> str:
    for block in lab.server.requests[-1]["messages"][-1]["content"]:
        if block.get("type") == "tool_result":
            inner = block["content"]
            return inner if isinstance(inner, str) else json.dumps(inner)
    raise AssertionError("no tool_result in the last request")


@pytest.mark.parametrize("submit", ["click", "enter"])
def test_deny_feedback_typed_key_by_key_arrives_whole(lab, new_page, submit):
    nb = _open(lab, new_page, f"deny_{submit}.ipynb", "clean the export")
    lab.server.script.add(Reply(content=[tool_use("Bash", {"command": "rm raw_export.csv"})]), Reply(content=[text("Understood.")]))
    nb.run(1)
    _type(nb, FEEDBACK_PLACEHOLDER, FEEDBACK)
    if submit == "click":
        nb.page.get_by_role("button", name="Deny", exact=True).click()
    else:
        nb.page.keyboard.press("Enter")
    nb.wait_executed(1)
    assert "the user said:\n" + FEEDBACK + "</tool_use_error>" in _last_tool_result(lab)
    output = nb.cell(1).locator(".jp-OutputArea").inner_text()
    assert FEEDBACK in output


def test_keep_planning_text_typed_key_by_key_arrives_whole(lab, new_page):
    nb = _open(lab, new_page, "keep_planning.ipynb", "plan the cleanup", magic="%%agent --permission-mode plan")
    lab.server.script.add(Reply(content=[tool_use("ExitPlanMode", {"plan": "1. Drop rows\n2. Save"})]), Reply(content=[text("Revising.")]))
    nb.run(1)
    _type(nb, PLAN_PLACEHOLDER, FEEDBACK)
    nb.page.get_by_role("button", name="Keep planning", exact=True).click()
    nb.wait_executed(1)
    assert FEEDBACK in _last_tool_result(lab)


def test_other_answer_typed_key_by_key_arrives_whole_and_enter_submits(lab, new_page):
    nb = _open(lab, new_page, "other.ipynb", "make the report")
    lab.server.script.add(Reply(content=[tool_use("AskUserQuestion", {"questions": [QUESTION]})]), Reply(content=[text("Using your choice.")]))
    nb.run(1)
    _type(nb, OTHER_PLACEHOLDER, FEEDBACK)
    nb.page.keyboard.press("Enter")
    nb.wait_executed(1)
    assert FEEDBACK in _last_tool_result(lab)
