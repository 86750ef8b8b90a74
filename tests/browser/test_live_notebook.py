"""The agent reads and edits the open notebook live, in a real JupyterLab and chromium."""

from __future__ import annotations

import json
import time

import pytest

from nb_agent.testing import Reply, held_at_end, text, tool_use

from .conftest import NotebookPage

pytestmark = pytest.mark.timeout(600)  # JupyterLab and chromium start in the first test of a module


def _tool_results(request):
    texts = []
    for block in request["messages"][-1]["content"]:
        if isinstance(block, dict) and block.get("type") == "tool_result":
            inner = block.get("content")
            texts.append(inner if isinstance(inner, str) else "\n".join(b.get("text", "") for b in inner or [] if b.get("type") == "text"))
    return texts


def _wait_for_requests(nb, lab, count):
    """Until the model has been called ``count`` times in all (the page keeps running)."""
    deadline = time.monotonic() + 120
    while len(lab.server.requests) < count:
        assert time.monotonic() < deadline, f"the model was called {len(lab.server.requests)} times, not {count}"
        nb.page.wait_for_timeout(100)


def _start(lab, new_page, name):
    lab.notebook(name, ["%load_ext nb_agent", "x = 1", "y = 2", "%%agent\nUse x from the cell above."])
    nb = NotebookPage(new_page(), lab, name).open()
    nb.run(0)
    nb.wait_executed(0)
    return nb


@pytest.mark.parametrize("which", ["lab", "lab_without_subshells"])
def test_unsaved_text_reaches_the_model_edits_appear_and_saving_keeps_both(which, request, new_page):
    lab = request.getfixturevalue(which)
    name = f"main_{which}.ipynb"
    nb = _start(lab, new_page, name)
    path = lab.root / name
    on_disk = path.read_bytes()
    nb.type_into(1, "  # typed, unsaved: x is 41")
    ids = nb.ids()
    start = len(lab.server.requests)
    lab.server.script.add(
        Reply(content=[tool_use("Read", {"file_path": str(path)})]),
        Reply(content=[tool_use("NotebookEdit", {"notebook_path": str(path), "cell_id": ids[2], "new_source": "y = x + 1"})]),
        Reply(content=[tool_use("NotebookEdit", {"notebook_path": str(path), "cell_id": ids[1], "new_source": "## x comes first", "cell_type": "markdown", "edit_mode": "insert"})]),
        Reply(content=[text("Done.")]),
    )
    nb.run(3)
    nb.wait_executed(4)  # the agent cell, now one further down
    requests = lab.server.requests[start:]
    assert "# typed, unsaved: x is 41" in _tool_results(requests[1])[0]
    # visible without reload, the typed text kept, the file untouched, no dialog
    shown = nb.shown_sources()
    assert shown[1].endswith("# typed, unsaved: x is 41") and "x comes first" in shown[2] and shown[3] == "y = x + 1", shown
    assert nb.cell_types()[:5] == ["code", "code", "markdown", "code", "code"]  # (Shift+Enter on the last cell added one)
    assert path.read_bytes() == on_disk
    assert len(nb.applied()) == 2
    nb.command_mode()
    nb.save()
    assert nb.dialogs() == []
    saved = json.loads(path.read_text())
    sources = ["".join(c["source"]) for c in saved["cells"]]
    assert sources[1].endswith("# typed, unsaved: x is 41") and sources[2] == "## x comes first" and sources[3] == "y = x + 1"


def test_undo_reverts_the_agents_edit_and_keeps_the_users_typing(lab, new_page):
    name = "undo.ipynb"
    nb = _start(lab, new_page, name)
    path = lab.root / name
    nb.type_into(2, "  # mine")
    ids = nb.ids()
    lab.server.script.add(
        Reply(content=[tool_use("Read", {"file_path": str(path)})]),
        Reply(content=[tool_use("NotebookEdit", {"notebook_path": str(path), "cell_id": ids[1], "new_source": "# added by the agent", "cell_type": "markdown", "edit_mode": "insert"})]),
        Reply(content=[text("Done.")]),
    )
    nb.run(3)
    nb.wait_executed(4)
    assert nb.sources()[2] == "# added by the agent"
    nb.cell(0).locator(".jp-InputPrompt").click()  # command mode, on a cell the agent did not touch
    nb.page.keyboard.press("z")  # the notebook's own undo (Edit > Undo)
    nb.wait_js("return !live.panel.model.sharedModel.cells.some(c => c.getSource() === '# added by the agent');")
    sources = nb.sources()
    assert "# added by the agent" not in sources and sources[2].endswith("# mine"), sources


def test_an_edit_of_the_cell_the_user_is_typing_in_is_refused(lab, new_page):
    name = "conflict.ipynb"
    nb = _start(lab, new_page, name)
    path = lab.root / name
    ids = nb.ids()
    edit = held_at_end(Reply(content=[tool_use("NotebookEdit", {"notebook_path": str(path), "cell_id": ids[1], "new_source": "x = 'agent'"})]))
    lab.server.script.add(
        Reply(content=[tool_use("Read", {"file_path": str(path)})]),
        edit,  # held while the user types
        Reply(content=[text("I will leave that cell to you.")]),
    )
    start = len(lab.server.requests)
    nb.run(3)
    _wait_for_requests(nb, lab, start + 2)  # the model has the Read result and is answering
    nb.type_into(1, "  # the user types here")
    nb.wait_kernel_heard()
    edit.release.set()
    nb.wait_executed(3)
    result = _tool_results(lab.server.requests[start + 2])[0]
    assert "is editing cell" in result or "changed since you last read" in result, result
    assert nb.sources()[1] == "x = 1  # the user types here"


def test_two_pages_on_one_notebook_apply_the_edit_once(lab, two_users):
    name = "two_pages.ipynb"
    lab.notebook(name, ["%load_ext nb_agent", "x = 1", "%%agent\nchange x"])
    first, second = two_users(lab, name)
    path = lab.root / name
    ids = first.ids()
    lab.server.script.add(
        Reply(content=[tool_use("Read", {"file_path": str(path)})]),
        Reply(content=[tool_use("NotebookEdit", {"notebook_path": str(path), "cell_id": ids[1], "new_source": "x = 2"})]),
        Reply(content=[text("Done.")]),
    )
    start = len(lab.server.requests)
    first.run(2)
    first.wait_executed(2)
    results = [r for request in lab.server.requests[start:] for r in _tool_results(request)]
    assert len(first.applied()) == 1 and first.sources()[1] == "x = 2", results
    assert second.applied() == [] and second.sources()[1] == "x = 1"
    assert second.js("return live.isOpen;"), "the second page has its own channel too"


def test_the_edit_lands_in_the_running_notebook_after_the_user_switched_tabs(lab, new_page):
    name, other = "tabs.ipynb", "tabs_other.ipynb"
    lab.notebook(other, ["z = 0"])
    nb = _start(lab, new_page, name)
    path = lab.root / name
    ids = nb.ids()
    edit = held_at_end(Reply(content=[tool_use("NotebookEdit", {"notebook_path": str(path), "cell_id": ids[1], "new_source": "x = 'edited while away'"})]))
    lab.server.script.add(
        Reply(content=[tool_use("Read", {"file_path": str(path)})]),
        edit,  # held until the user is on the other tab
        Reply(content=[text("Done.")]),
    )
    start = len(lab.server.requests)
    nb.run(3)
    _wait_for_requests(nb, lab, start + 2)
    nb.page.locator(".jp-DirListing-itemText", has_text=other).first.dblclick()
    elsewhere = NotebookPage(nb.page, lab, other)
    elsewhere.wait_js("return !!live.panel.model && live.panel.isVisible;")
    edit.release.set()
    nb.wait_executed(3)
    results = [r for request in lab.server.requests[start:] for r in _tool_results(request)]
    assert nb.sources()[1] == "x = 'edited while away'", (results, nb.sources())
    assert elsewhere.sources() == ["z = 0"] and elsewhere.applied() == []
    assert nb.js("return live.panel.isVisible;") is False  # the user was elsewhere all along


def _run_agent(nb, lab, path, replies):
    """Run the notebook's ``%%agent`` cell (index 3) with ``replies`` and wait for it."""
    lab.server.script.add(Reply(content=[tool_use("Read", {"file_path": str(path)})]), *replies, Reply(content=[text("Done.")]))
    nb.run(3)


def _four_edits(path, ids):
    """The agent inserts a markdown cell after cell 1, replaces cell 2, deletes cell 0 and
    moves cell 2 before cell 1: afterwards ``["y = x + 1", <cell 1>, "## About x", ...]``."""
    def edit(**args):
        return Reply(content=[tool_use("NotebookEdit", {"notebook_path": str(path), **args})])

    return [
        edit(cell_id=ids[1], new_source="## About x", cell_type="markdown", edit_mode="insert"),
        edit(cell_id=ids[2], new_source="y = x + 1"),
        edit(cell_id=ids[0], edit_mode="delete"),
        edit(cell_id=ids[2], edit_mode="move", before_cell_id=ids[1]),
    ]


@pytest.mark.parametrize("mode", ["replace", "delete"])
def test_undo_reverts_an_agents_replace_or_delete(mode, lab, new_page):
    name = f"undo_{mode}.ipynb"
    nb = _start(lab, new_page, name)
    path = lab.root / name
    ids, sources = nb.ids(), nb.sources()
    edit = {"notebook_path": str(path), "cell_id": ids[2], "new_source": "y = 'agent'"}
    if mode == "delete":
        edit = {"notebook_path": str(path), "cell_id": ids[2], "edit_mode": "delete"}
    _run_agent(nb, lab, path, [Reply(content=[tool_use("NotebookEdit", edit)])])
    agent_index = 3 if mode == "replace" else 2
    nb.wait_executed(agent_index)
    assert (nb.sources()[2] == "y = 'agent'") if mode == "replace" else (ids[2] not in nb.ids())
    nb.cell(0).locator(".jp-InputPrompt").click()
    nb.page.keyboard.press("z")
    nb.wait_js("return live.panel.model.sharedModel.cells.some(c => c.getSource() === 'y = 2');")
    assert nb.sources()[:4] == sources[:4]
    if mode == "delete":
        assert nb.ids()[:4] == ids[:4]  # the deleted cell is back with its id


def test_the_runs_card_goes_to_each_cell_and_reverts_all_of_the_runs_edits(lab, new_page):
    name = "revert.ipynb"
    nb = _start(lab, new_page, name)
    path = lab.root / name
    ids, sources = nb.ids(), nb.sources()
    _run_agent(nb, lab, path, _four_edits(path, ids))
    nb.wait_executed(3)  # the agent cell: one inserted above it, one deleted
    assert ids[0] not in nb.ids() and nb.sources()[:3] == ["y = x + 1", "x = 1", "## About x"]
    assert nb.ids()[:2] == [ids[2], ids[1]]  # moved, with its id
    nb.page.locator(f"#{nb.panel_id()} .nb-agent-edits:has(.nb-agent-revert)").wait_for(timeout=60_000)
    card = nb.page.locator(f"#{nb.panel_id()} .nb-agent-edits")  # (the button goes once nothing is left to revert)
    items = card.locator("li")
    assert items.count() == 4 and "replaced cell" in items.nth(1).inner_text()
    items.nth(1).locator(".nb-agent-goto").click()  # "Go to cell" of the replace
    nb.wait_js("return live.panel.content.activeCell?.model.id === arg;", ids[2])
    card.locator(".nb-agent-revert").click()
    nb.wait_js("return live.panel.model.sharedModel.cells.length > 0 && live.panel.model.sharedModel.cells[0].getId() === arg;", ids[0])
    assert nb.ids()[:4] == ids[:4] and nb.sources()[:4] == sources[:4], (nb.ids(), nb.sources())
    assert "Reverted 4 of 4 edits" in card.locator(".nb-agent-revert-outcome").inner_text()
    # the whole revert is one undo step: undo brings the agent's edits back
    nb.cell(0).locator(".jp-InputPrompt").click()
    nb.page.keyboard.press("z")
    nb.wait_js("return live.panel.model.sharedModel.cells.some(c => c.getSource() === 'y = x + 1');")
    assert ids[0] not in nb.ids() and nb.sources()[:3] == ["y = x + 1", "x = 1", "## About x"]


def test_the_agents_code_becomes_cells_below_the_agent_cell_in_order(lab, new_page):
    name = "code_cells.ipynb"
    lab.notebook(name, ["%load_ext nb_agent", "x = 1", "y = 2", "%%agent --permission-mode bypassPermissions\nCompute."])
    nb = NotebookPage(new_page(), lab, name).open()
    nb.run(0)
    nb.wait_executed(0)
    ids = nb.ids()
    lab.server.script.add(
        Reply(content=[tool_use("ExecuteCode", {"code": "first = 1"})]),
        Reply(content=[tool_use("ExecuteCode", {"code": "second = first + 1"})]),
        Reply(content=[text("Done.")]),
    )
    nb.run(3)
    nb.wait_js("return live.panel.model.sharedModel.cells.some(c => c.getSource().endsWith('second = first + 1'));")
    sources = nb.sources()
    assert nb.ids()[:4] == ids[:4], (nb.ids(), sources)
    assert sources[4].endswith("first = 1") and sources[5].endswith("second = first + 1"), sources


@pytest.mark.parametrize("which", ["lab", "lab_without_subshells"])
def test_what_the_user_types_during_the_run_reaches_the_agents_next_turn(which, request, new_page):
    lab = request.getfixturevalue(which)
    name = f"mid_run_{which}.ipynb"
    nb = _start(lab, new_page, name)
    path = lab.root / name
    read = held_at_end(Reply(content=[tool_use("Read", {"file_path": str(path)})]))
    lab.server.script.add(read, Reply(content=[text("Noted.")]))
    start = len(lab.server.requests)
    nb.run(3)
    _wait_for_requests(nb, lab, start + 1)  # the model is answering, held while the user types
    nb.type_into(2, "  # changed while the agent worked")
    nb.command_mode()
    nb.wait_kernel_heard()
    read.release.set()
    nb.wait_executed(3)
    last = json.dumps(lab.server.requests[start + 1]["messages"][-1])
    assert "While you were working, the user changed the notebook" in last and "changed while the agent worked" in last, last[-1500:]


def _wait_for_file(path, predicate, page):
    """Until the saved notebook satisfies ``predicate`` (the RTC server saves a second after a change)."""
    deadline = time.monotonic() + 60
    while True:
        try:
            saved = json.loads(path.read_text())
        except json.JSONDecodeError:  # read while the server was writing it: read it again
            saved = {"cells": []}
        if predicate(saved):
            return saved
        assert time.monotonic() < deadline, [("".join(c["source"]), c.get("id")) for c in saved["cells"]]
        page.wait_for_timeout(200)


def test_with_real_time_collaboration_each_edit_and_the_revert_happen_once(lab_rtc, two_users):
    """Two users (two browser contexts) on one notebook with RTC on: the agent's insert, replace,
    delete and move each appear once in both pages and in the saved file; user B's unsaved
    typing survives; reverting from the card restores the user's cells once."""
    lab, name = lab_rtc, "rtc.ipynb"
    lab.notebook(name, ["%load_ext nb_agent", "x = 1", "y = 2", "%%agent\nUse x from the cell above."])
    path = lab.root / name
    a, b = two_users(lab, name)
    b.focus()
    b.type_into(1, "  # B's note")  # B is typing, unsaved, while A runs the agent
    a.wait_js("return live.panel.model.sharedModel.cells[1].getSource().endsWith(\"# B's note\");")
    ids, sources = a.ids(), a.sources()
    a.focus()
    _run_agent(a, lab, path, _four_edits(path, ids))
    a.wait_executed(3)
    expected = ["y = x + 1", "x = 1  # B's note", "## About x", sources[3]]
    for page in (a, b):
        page.wait_js("return JSON.stringify(live.panel.model.sharedModel.cells.slice(0, 4).map(c => c.getSource())) === JSON.stringify(arg);", expected)
        page_ids = page.ids()
        assert page.sources()[:4] == expected, page.sources()
        assert page_ids[:2] == [ids[2], ids[1]] and ids[0] not in page_ids and len(set(page_ids)) == len(page_ids), page_ids
        assert page.sources().count("## About x") == 1
    assert len(a.applied()) == 4 and b.applied() == []
    inserted = a.ids()[2]
    saved = _wait_for_file(path, lambda nb: ["".join(c["source"]) for c in nb["cells"]][:4] == expected, a.page)
    saved_ids = [c["id"] for c in saved["cells"]]
    assert saved_ids[:4] == [ids[2], ids[1], inserted, ids[3]] and len(set(saved_ids)) == len(saved_ids) and ids[0] not in saved_ids
    # the card: in A's page (whose run it is) with its buttons; in B's page, where a
    # collaborator's outputs are untrusted, with them once the kernel vouched for the card
    b.page.locator(f"#{b.panel_id()} .nb-agent-edits:has(.nb-agent-revert)").wait_for(timeout=60_000)
    a.page.locator(f"#{a.panel_id()} .nb-agent-edits:has(.nb-agent-revert)").wait_for(timeout=60_000)
    card = a.page.locator(f"#{a.panel_id()} .nb-agent-edits")
    card.locator(".nb-agent-revert").click()
    assert "Reverted 4 of 4 edits" in card.locator(".nb-agent-revert-outcome").inner_text()
    for page in (a, b):  # reverted once, in both pages and in the file; B's note kept
        # (B gets the revert's operations one update each: wait for the last one)
        page.wait_js("return JSON.stringify(live.panel.model.sharedModel.cells.slice(0, 4).map(c => c.getId())) === JSON.stringify(arg);", ids[:4])
        assert page.ids()[:4] == ids[:4] and page.sources()[:4] == sources[:4], (page.ids(), page.sources())
        assert len(set(page.ids())) == len(page.ids()) and inserted not in page.ids()
    _wait_for_file(path, lambda nb: [c["id"] for c in nb["cells"]][:4] == ids[:4] and ["".join(c["source"]) for c in nb["cells"]][:4] == sources[:4], a.page)
    assert card.locator(".nb-agent-revert").count() == 0  # no second revert from this card
    assert card.locator("li[data-status='undone']").count() == 4
    b.page.locator(f"#{b.panel_id()} .nb-agent-edits li[data-status='undone']").nth(3).wait_for(timeout=60_000)  # B's card says so too
    # the page told the kernel: the next run hears of the revert, not of "the user's changes"
    lab.server.script.add(Reply(content=[text("I see.")]))
    start = len(lab.server.requests)
    a.run(3)
    _wait_for_requests(a, lab, start + 1)
    notes = json.dumps(lab.server.requests[start]["messages"][-1])
    assert "The user reverted these edits of yours" in notes and f"deleted cell {ids[0]}" in notes, notes[-1500:]
    assert "Since your last turn the user changed the notebook" not in notes, notes[-1500:]
