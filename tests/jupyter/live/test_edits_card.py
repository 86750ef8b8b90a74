"""The run's card of notebook edits: listed below the run, with the data to go to each cell
and to revert the run's edits (applied by the page, here the fake one)."""

from __future__ import annotations

import copy

from nb_agent.jupyter.live.edits_card import EDITS_MIME
from nb_agent.testing import Reply, text, tool_use


def _card(run):
    cards = [m["content"]["data"] for m in run.of_type("display_data") if EDITS_MIME in m["content"]["data"]]
    assert len(cards) == 1, [m["content"]["data"].keys() for m in run.of_type("display_data")]
    return cards[0]


def _insert_replace_delete(case, kernel, page):
    a, b = case.cells[0]["id"], case.cells[1]["id"]
    kernel.server.script.add(
        Reply(content=[tool_use("Read", {"file_path": str(case.path)})]),
        Reply(content=[tool_use("NotebookEdit", {"notebook_path": str(case.path), "cell_id": a, "new_source": "# Setup", "cell_type": "markdown", "edit_mode": "insert"})]),
        Reply(content=[tool_use("NotebookEdit", {"notebook_path": str(case.path), "cell_id": b, "new_source": "x = 42"})]),
        Reply(content=[tool_use("NotebookEdit", {"notebook_path": str(case.path), "cell_id": a, "edit_mode": "delete"})]),
        Reply(content=[text("Done.")]),
    )
    run = case.run_agent(page, "tidy up")
    assert run.status == "ok", run.errors
    return run


def test_the_card_lists_each_edit_and_reverting_restores_the_users_notebook(live_case):
    case, kernel = live_case, live_case.kernel
    page = case.page()
    before = copy.deepcopy(page.cells)
    run = _insert_replace_delete(case, kernel, page)
    bundle = _card(run)
    card = bundle[EDITS_MIME]
    assert [e["op"] for e in card["edits"]] == ["insert", "replace", "delete"]
    inserted = card["edits"][0]["cell_id"]
    assert [e["cell_id"] for e in card["edits"]] == [inserted, case.cells[1]["id"], case.cells[0]["id"]]
    assert [e["preview"] for e in card["edits"]] == ["# Setup", "x = 42", "import math"]
    assert all(e["status"] == "applied" for e in card["edits"])
    # without the extension (or from an untrusted file) the list is plain HTML / text
    assert "Notebook edits of this run (3)" in bundle["text/plain"] and "replaced cell" in bundle["text/html"]
    assert page.ids()[0] == inserted and case.cells[0]["id"] not in page.ids()

    reverted, refused = page.revert(card)
    assert refused == [] and len(reverted) == 3
    agent_cell = page.find(case.agent_id)
    agent_cell["source"] = before[2]["source"]  # the %%agent cell's prompt was typed by the user
    assert [(c["id"], c["cell_type"], c["source"]) for c in page.cells] == [(c["id"], c["cell_type"], c["source"]) for c in before]
    # a second click reverts nothing more
    assert page.revert(card)[0] == []


def test_a_cell_the_user_changed_after_the_agents_edit_is_left_as_it_is(live_case):
    case, kernel = live_case, live_case.kernel
    page = case.page()
    run = _insert_replace_delete(case, kernel, page)
    card = _card(run)[EDITS_MIME]
    b = case.cells[1]["id"]
    page.find(b)["source"] = "x = 43  # the user fixed the agent's value"
    reverted, refused = page.revert(card)
    assert [r["code"] for r in refused] == ["changed"] and refused[0]["cell_id"] == b
    assert len(reverted) == 2  # the deleted cell is back, the inserted one gone
    assert page.ids()[0] == case.cells[0]["id"] and page.find(b)["source"].startswith("x = 43")


def test_no_card_when_the_run_did_not_edit_the_notebook(live_case):
    case, kernel = live_case, live_case.kernel
    page = case.page()
    kernel.server.script.add(Reply(content=[text("Nothing to change.")]))
    run = case.run_agent(page, "look only")
    assert run.status == "ok", run.errors
    assert not [m for m in run.of_type("display_data") if EDITS_MIME in m["content"]["data"]]
