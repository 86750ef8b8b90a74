"""Which page gets the edits, replies that come late, the fallback without a page, and
what the model is told about the user's changes between runs."""

from __future__ import annotations

from nb_agent.testing import Reply, held_at_end, text, tool_use

from .conftest import ON_DISK, tool_results


def _edit(case, cell_id, source, **reply):
    return Reply(content=[tool_use("NotebookEdit", {"notebook_path": str(case.path), "cell_id": cell_id, "new_source": source})], **reply)


def _read(case):
    return Reply(content=[tool_use("Read", {"file_path": str(case.path)})])


def test_two_pages_on_one_notebook_the_edit_is_applied_once_by_the_running_page(live_case):
    case, kernel = live_case, live_case.kernel
    other = case.page(frontend="second window")
    runner = case.page(frontend="first window")
    b = case.cells[1]["id"]
    kernel.server.script.add(_read(case), _edit(case, b, "x = 1"), Reply(content=[text("ok")]))
    run = case.run_agent(runner, "set x")
    assert run.status == "ok", run.errors
    assert len(runner.applied) == 1 and runner.find(b)["source"] == "x = 1"
    assert other.applied == [] and not any(m.get("type") == "edit" for m in other.received)


def test_the_page_that_ran_the_cell_gets_the_edits_after_the_user_switched_notebooks(live_case, kernel):
    """Two notebooks on one kernel (a console or a second notebook): the edit goes to the one
    whose page sent the snapshot for this cell, whatever the user looks at meanwhile."""
    case = live_case
    runner = case.page()
    elsewhere = type(runner)(kernel.kc, notebook_path="other.ipynb", cells=[dict(c) for c in runner.cells])
    kernel.observers.append(elsewhere.feed)
    elsewhere.open()
    case.pages.append(elsewhere)
    b = case.cells[1]["id"]
    kernel.server.script.add(_read(case), _edit(case, b, "x = 2"), Reply(content=[text("ok")]))
    start = len(kernel.server.requests)
    run = case.start_agent(runner, "set x")
    case.when_model_called(run, 1, start)
    elsewhere.send(elsewhere.snapshot("change"))  # the user works in the other notebook now
    kernel.wait(run)
    assert runner.find(b)["source"] == "x = 2" and elsewhere.applied == []


def test_acks_that_arrive_after_the_cell_are_reconciled(live_case, requests_since):
    """As with a kernel that handles browser messages only once the cell ends."""
    case, kernel = live_case, live_case.kernel
    page = case.page(defer_acks=True)
    a, b = case.cells[0]["id"], case.cells[1]["id"]
    page.editing_cell_id = None
    held_edit = held_at_end(_edit(case, b, "x = 3"))
    kernel.server.script.add(_read(case), held_edit, _edit(case, a, "import os"), Reply(content=[text("ok")]))
    start = len(kernel.server.requests)
    run = case.start_agent(page, "two edits")
    case.when_model_called(run, 2, start)
    page.find(b)["source"] = "x = 'typed'"  # after the Read, never reported: the page refuses the edit
    held_edit.release.set()
    kernel.wait(run, timeout=40)
    assert run.status == "ok", run.errors
    requests = requests_since()
    assert "not confirmed it yet" in tool_results(requests[2])[0]
    assert "not confirmed it yet" in tool_results(requests[3])[0]
    page.flush_acks()  # the replies come in after the cell
    kernel.server.script.add(Reply(content=[text("noted")]))
    page.defer_acks = False
    run = case.run_agent(page, "anything else?")
    assert run.status == "ok", run.errors
    attachment = "\n".join(b["text"] for b in requests_since()[-1]["messages"][-1]["content"] if b.get("type") == "text")
    assert "refused these edits of your previous turn" in attachment and f"replaced cell {b}" in attachment
    assert page.find(a)["source"] == "import os"


def test_between_runs_the_model_hears_what_the_user_did(live_case, requests_since):
    case, kernel = live_case, live_case.kernel
    page = case.page()
    a, b = case.cells[0]["id"], case.cells[1]["id"]
    kernel.server.script.add(_read(case), Reply(content=[text("read it")]))
    case.run_agent(page, "look")
    page.find(a)["source"] = "import statistics"
    page.find(b).update(execution_count=7, outputs=[{"output_type": "error", "ename": "NameError", "evalue": "name 'y' is not defined", "traceback": []}])
    page.cells.insert(0, {"id": "new-cell", "cell_type": "markdown", "source": "# Plan", "execution_count": None, "outputs": [], "metadata": {}, "running": False})
    kernel.server.script.add(Reply(content=[text("I see")]))
    case.run_agent(page, "what changed?")
    first_user = requests_since()[-1]["messages"][-1]["content"]
    attachment = "\n".join(b["text"] for b in first_user if b.get("type") == "text")
    assert "Since your last turn the user changed the notebook" in attachment
    assert "new-cell (markdown): # Plan" in attachment
    assert f"{a}: now import statistics" in attachment
    assert f"{b}: NameError: name 'y' is not defined" in attachment


def test_without_a_page_the_notebook_is_edited_as_a_file_as_before(live_case, requests_since):
    """No extension (nbclient, VS Code): the file is edited, with the reload note."""
    case, kernel = live_case, live_case.kernel
    kernel.run(f"%agent notebook {case.path}")
    b = case.cells[1]["id"]
    kernel.server.script.add(_read(case), _edit(case, b, "x = 'from the agent'"), Reply(content=[text("ok")]))
    run = kernel.run("%%agent --permission-mode acceptEdits\nedit the file")  # no cellId, no page
    assert run.status == "ok", run.errors
    requests = requests_since()
    assert ON_DISK in tool_results(requests[1])[0]
    assert "reload it from disk" in tool_results(requests[2])[0]
    assert "x = 'from the agent'" in case.path.read_text()
    status = kernel.run("%agent status").stdout
    assert "live       file — the execute request carries no cellId" in status


def test_the_agents_code_becomes_marked_cells_below_the_agent_cell(live_case):
    case, kernel = live_case, live_case.kernel
    page = case.page()
    kernel.server.script.add(
        Reply(content=[tool_use("ExecuteCode", {"code": "live_a = 20"})]),
        Reply(content=[tool_use("ExecuteCode", {"code": "live_b = live_a + 1"})]),
        Reply(content=[text("live_b is 21")]),
    )
    run = case.run_agent(page, "compute", options="--permission-mode bypassPermissions")
    assert run.status == "ok", run.errors
    kernel.wait_for(run, lambda: len(page.cells) == 5)
    index = page.ids().index(case.agent_id)
    added = page.cells[index + 1 : index + 3]
    assert [c["source"].splitlines()[-1] for c in added] == ["live_a = 20", "live_b = live_a + 1"]
    assert all(c["metadata"]["nb_agent"]["agent_made"] for c in added)
    assert not any(p.get("source") == "set_next_input" for p in run.payload)


def test_a_console_cell_or_a_lab_without_the_extension_works_on_the_file(live_case):
    """JupyterLab's console sends a cellId too; it is in no page's notebook, so the run does
    not wait for a snapshot (the reason says so); with no page at all, neither."""
    case, kernel = live_case, live_case.kernel
    for page_connected, reason in ((False, "no nb-agent-live extension answered"), (True, "in no open notebook page (a console")):
        if page_connected:
            case.page()
        kernel.server.script.add(Reply(content=[text("ok")]))
        run = kernel.wait(kernel.start("%%agent\nhello from a console", metadata={"cellId": "console-cell-1"}))
        assert run.status == "ok", run.errors
        assert "live       file — " in (status := kernel.run("%agent status").stdout) and reason in status, status
