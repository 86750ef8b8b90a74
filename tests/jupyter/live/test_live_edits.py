"""NotebookEdit and Read on the live notebook, through a fake page over real comm messages."""

from __future__ import annotations

from nb_agent.testing import Reply, held_at_end, text, tool_use

from ..conftest import last_user_text
from .conftest import UNSAVED, tool_results


def test_read_shows_unsaved_text_and_edits_apply_live_without_writing_the_file(live_case, requests_since):
    case, kernel = live_case, live_case.kernel
    page = case.page()
    b = case.cells[1]["id"]
    kernel.server.script.add(
        Reply(content=[tool_use("Read", {"file_path": str(case.path)})]),
        Reply(content=[tool_use("NotebookEdit", {"notebook_path": str(case.path), "cell_id": b, "new_source": "x = 42"})]),
        Reply(content=[tool_use("NotebookEdit", {"notebook_path": str(case.path), "cell_id": b, "new_source": "# Notes", "cell_type": "markdown", "edit_mode": "insert"})]),
        Reply(content=[tool_use("NotebookEdit", {"notebook_path": str(case.path), "cell_id": case.cells[0]["id"], "edit_mode": "delete"})]),
        Reply(content=[text("Done.")]),
    )
    run = case.run_agent(page, "tidy the cell above")
    assert run.status == "ok", run.errors
    requests = requests_since()
    (read_result,) = tool_results(requests[1])
    assert UNSAVED in read_result and "live notebook open in the user's browser" in read_result
    assert f"The %%agent cell running now is {case.agent_id}" in read_result
    assert "Applied live" in tool_results(requests[2])[0]
    # the page has the agent's edits, each applied once, and the file was not written
    assert [c["source"] for c in page.cells] == ["x = 42", "# Notes", "%%agent --permission-mode acceptEdits\ntidy the cell above"]
    assert page.cells[1]["cell_type"] == "markdown"
    assert len(page.applied) == 3 and not page.refused
    assert case.path.read_bytes() == case.saved
    status = kernel.run("%agent status").stdout
    assert "live       live" in status and "fake page" in status


def test_edit_of_a_cell_the_user_changed_after_the_read_is_refused(live_case, requests_since):
    case, kernel = live_case, live_case.kernel
    page = case.page()
    b = case.cells[1]["id"]
    edit = held_at_end(Reply(content=[tool_use("NotebookEdit", {"notebook_path": str(case.path), "cell_id": b, "new_source": "x = 0"})]))
    kernel.server.script.add(
        Reply(content=[tool_use("Read", {"file_path": str(case.path)})]),
        edit,  # held while the user types
        Reply(content=[text("I'll read again.")]),
    )
    start = len(kernel.server.requests)
    run = case.start_agent(page, "change x")
    case.when_model_called(run, 2, start)
    page.user_edits(b, "x = 'the user again'")
    case.when_kernel_heard(run, page)
    edit.release.set()
    kernel.wait(run)
    assert run.status == "ok", run.errors
    (result,) = tool_results(requests_since()[2])
    assert "changed since you last read the notebook" in result and "Read the notebook again" in result
    assert page.find(b)["source"] == "x = 'the user again'"


def test_the_page_refuses_when_the_kernel_did_not_hear_of_the_change(live_case, requests_since):
    """The user's change never reached the kernel (no change snapshot): the page's own check refuses."""
    case, kernel = live_case, live_case.kernel
    page = case.page()
    b = case.cells[1]["id"]
    edit = held_at_end(Reply(content=[tool_use("NotebookEdit", {"notebook_path": str(case.path), "cell_id": b, "new_source": "x = 0"})]))
    kernel.server.script.add(
        Reply(content=[tool_use("Read", {"file_path": str(case.path)})]),
        edit,
        Reply(content=[text("ok")]),
    )
    start = len(kernel.server.requests)
    run = case.start_agent(page, "change x")
    case.when_model_called(run, 2, start)
    page.find(b)["source"] = "x = 'typed silently'"  # no snapshot sent
    edit.release.set()
    kernel.wait(run)
    (result,) = tool_results(requests_since()[2])
    assert "changed since you last read" in result
    assert page.refused and page.refused[0]["code"] == "changed"
    assert page.find(b)["source"] == "x = 'typed silently'"


def test_the_cell_being_edited_and_the_running_cell_are_refused(live_case, requests_since):
    case, kernel = live_case, live_case.kernel
    page = case.page()
    a, b = case.cells[0]["id"], case.cells[1]["id"]
    page.editing_cell_id = a
    kernel.server.script.add(
        Reply(content=[tool_use("Read", {"file_path": str(case.path)})]),
        Reply(content=[tool_use("NotebookEdit", {"notebook_path": str(case.path), "cell_id": a, "new_source": "import os"})]),
        Reply(content=[tool_use("NotebookEdit", {"notebook_path": str(case.path), "cell_id": case.agent_id, "new_source": "oops"})]),
        Reply(content=[tool_use("NotebookEdit", {"notebook_path": str(case.path), "cell_id": b, "edit_mode": "delete"})]),
        Reply(content=[text("ok")]),
    )
    run = case.run_agent(page, "edit things")
    assert run.status == "ok", run.errors
    requests = requests_since()
    assert "is editing cell" in tool_results(requests[2])[0]
    assert "running you" in tool_results(requests[3])[0]
    assert "Deleted cell" in tool_results(requests[4])[0]
    assert page.find(a)["source"] == "import math" and b not in page.ids()


def test_edit_before_read_asks_for_a_read(live_case, requests_since):
    case, kernel = live_case, live_case.kernel
    page = case.page()
    kernel.server.script.add(
        Reply(content=[tool_use("NotebookEdit", {"notebook_path": str(case.path), "cell_id": case.cells[0]["id"], "new_source": "y"})]),
        Reply(content=[text("ok")]),
    )
    run = case.run_agent(page, "edit without reading")
    assert run.status == "ok", run.errors
    assert "Read the notebook" in tool_results(requests_since()[1])[0]
    assert page.cells[0]["source"] == "import math" and not page.applied


def test_what_the_user_changed_mid_run_reaches_the_next_turn_once(live_case, requests_since):
    case, kernel = live_case, live_case.kernel
    page = case.page()
    a, b = case.cells[0]["id"], case.cells[1]["id"]
    edit = held_at_end(Reply(content=[tool_use("NotebookEdit", {"notebook_path": str(case.path), "cell_id": a, "new_source": "import math, os"})]))
    kernel.server.script.add(
        Reply(content=[tool_use("Read", {"file_path": str(case.path)})]),
        edit,  # held while the user types; the agent's own edit is not news to it
        Reply(content=[text("ok")]),
    )
    start = len(kernel.server.requests)
    run = case.start_agent(page, "tidy")
    case.when_model_called(run, 2, start)
    page.user_edits(b, "x = 'typed while the agent worked'")
    case.when_kernel_heard(run, page)
    edit.release.set()
    kernel.wait(run)
    assert run.status == "ok", run.errors
    requests = requests_since()
    last = last_user_text(requests[2])
    assert "While you were working, the user changed the notebook:" in last
    assert f"{b}: now x = 'typed while the agent worked'" in last and a not in last.split("While you were working")[1]
    # the next run does not say it again (the provenance note may list the cell as never run)
    kernel.server.script.add(Reply(content=[text("fine")]))
    case.run_agent(page, "and now?")
    assert "now x = 'typed while the agent worked'" not in last_user_text(requests_since()[-1])


def test_move_keeps_the_id_and_refuses_the_running_and_the_agent_cell(live_case, requests_since):
    case, kernel = live_case, live_case.kernel
    page = case.page()
    a, b = case.cells[0]["id"], case.cells[1]["id"]
    page.find(a)["running"] = True
    edit = {"notebook_path": str(case.path), "edit_mode": "move"}
    kernel.server.script.add(
        Reply(content=[tool_use("Read", {"file_path": str(case.path)})]),
        Reply(content=[tool_use("NotebookEdit", {**edit, "cell_id": b, "before_cell_id": a})]),
        Reply(content=[tool_use("NotebookEdit", {**edit, "cell_id": a, "after_cell_id": case.agent_id})]),
        Reply(content=[tool_use("NotebookEdit", {**edit, "cell_id": case.agent_id, "before_cell_id": b})]),
        Reply(content=[text("Done.")]),
    )
    run = case.run_agent(page, "put b first")
    assert run.status == "ok", run.errors
    requests = requests_since()
    assert f"Moved cell {b} before cell {a}" in tool_results(requests[2])[0]
    assert "is running" in tool_results(requests[3])[0]
    assert "running you" in tool_results(requests[4])[0]
    assert page.ids() == [b, a, case.agent_id] and page.find(b)["source"] == UNSAVED and len(page.applied) == 1
