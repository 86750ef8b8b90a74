"""The run's card of notebook edits: listed below the run, with the data to go to each cell
and to revert the run's edits (applied by the page, here the fake one)."""

from __future__ import annotations

import copy

from nb_agent.jupyter.live.edits_card import EDITS_MIME
from nb_agent.testing import Reply, held_at_end, text, tool_use


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
    assert all(e["review"] for e in card["edits"])  # acceptEdits: made without asking, marked for review
    # each edit's diff: the inserted cell, the cell before → after, the deleted cell
    assert card["edits"][0]["diff"].splitlines()[1:-1] == ["+# Setup"]
    assert "-x = 'typed by the user, not saved'\n+x = 42" in card["edits"][1]["diff"]
    assert card["edits"][2]["diff"].splitlines() == [f"deletes cell {case.cells[0]['id']}", "-import math"]
    assert "+x = 42</div>" in bundle["text/html"] and "deletes code cell" in bundle["text/html"]
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


def _next_run_notes(case, kernel, page, requests_since):
    kernel.server.script.add(Reply(content=[text("I see")]))
    run = case.run_agent(page, "what changed?")
    assert run.status == "ok", run.errors
    return "\n".join(b["text"] for b in requests_since()[-1]["messages"][-1]["content"] if b.get("type") == "text")


def test_a_revert_the_page_reports_is_not_the_users_change_at_the_next_run(live_case, requests_since):
    case, kernel = live_case, live_case.kernel
    page = case.page()
    card = _card(_insert_replace_delete(case, kernel, page))[EDITS_MIME]
    reverted, refused = page.revert(card)
    assert len(reverted) == 3 and refused == []
    page.cells.append({"id": "users-own", "cell_type": "code", "source": "print('the user, after the revert')", "execution_count": None, "outputs": [], "metadata": {}, "running": False})
    notes = _next_run_notes(case, kernel, page, requests_since)
    assert "The user reverted these edits of yours" in notes
    assert "  - inserted markdown cell" in notes and f"  - replaced cell {case.cells[1]['id']}" in notes and f"  - deleted cell {case.cells[0]['id']}" in notes
    assert notes.index("inserted markdown cell") < notes.index("replaced cell") < notes.index("deleted cell")  # the agent's order
    user_changes = notes.split("Since your last turn the user changed the notebook:", 1)[1].split("The user reverted")[0]
    assert "users-own (code): print('the user, after the revert')" in user_changes  # the user's own change is still reported
    for cell in case.cells[:2]:  # the reverted cells are not the user's changes
        assert cell["id"] not in user_changes, user_changes


def test_a_revert_the_kernel_is_not_told_about_reads_as_the_users_change(live_case, requests_since):
    """An older page (no ``reverted`` message): the reverted cells are the user's changes."""
    case, kernel = live_case, live_case.kernel
    page = case.page()
    card = _card(_insert_replace_delete(case, kernel, page))[EDITS_MIME]
    page.revert(card, tell_kernel=False)
    notes = _next_run_notes(case, kernel, page, requests_since)
    assert "The user reverted" not in notes
    assert "Cells added" in notes and case.cells[0]["id"] in notes and f"{case.cells[1]['id']}: now" in notes


def test_a_revert_during_the_next_run_is_told_at_its_next_turn_not_as_the_users_change(live_case, requests_since):
    case, kernel = live_case, live_case.kernel
    page = case.page()
    card = _card(_insert_replace_delete(case, kernel, page))[EDITS_MIME]
    read = held_at_end(Reply(content=[tool_use("Read", {"file_path": str(case.path)})]))
    kernel.server.script.add(read, Reply(content=[text("ok")]))  # held while the user reverts
    start = len(kernel.server.requests)
    run = case.start_agent(page, "carry on")
    case.when_model_called(run, 1, start)
    assert len(page.revert(card)[0]) == 3
    page.send(page.snapshot("change"))  # what the page sends after the revert changed the notebook
    case.when_kernel_heard(run, page)
    read.release.set()
    kernel.wait(run)
    assert run.status == "ok", run.errors
    last = "\n".join(b["text"] for b in requests_since()[-1]["messages"][-1]["content"] if b.get("type") == "text")
    assert "The user reverted these edits of yours" in last and f"replaced cell {case.cells[1]['id']}" in last, last
    assert "While you were working, the user changed the notebook" not in last, last


def test_the_agents_code_cells_are_previewed_by_their_code_not_their_header(live_case):
    case, kernel = live_case, live_case.kernel
    page = case.page()
    kernel.server.script.add(
        Reply(content=[tool_use("ExecuteCode", {"code": "total = 6 * 7"})]),
        Reply(content=[tool_use("ExecuteCode", {"code": "print(total)"})]),
        Reply(content=[text("42")]),
    )
    run = case.run_agent(page, "compute", options="--permission-mode bypassPermissions")
    assert run.status == "ok", run.errors
    [entry] = _card(run)[EDITS_MIME]["edits"]
    assert entry["op"] == "code cells" and entry["preview"] == "total = 6 * 7"
    assert "+total = 6 * 7" in entry["diff"] and "+print(total)" in entry["diff"]
