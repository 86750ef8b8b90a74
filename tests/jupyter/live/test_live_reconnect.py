"""Messages lost when a websocket closes (a JupyterHub proxy's idle timeout, a gateway
reconnecting): the kernel numbers what it sends and sends it again, the page handles each
message once and in order (``labextension/PROTOCOL.md``, "Reconnects")."""

from __future__ import annotations

from nb_agent.testing import Reply, text, tool_use

from .conftest import tool_results


def _edit(case, cell_id, source, **reply):
    return Reply(content=[tool_use("NotebookEdit", {"notebook_path": str(case.path), "cell_id": cell_id, "new_source": source})], **reply)


def _read(case):
    return Reply(content=[tool_use("Read", {"file_path": str(case.path)})])


def _edits_received(page):
    return [m["edit_id"] for m in page.received if m.get("type") == "edit"]


def test_an_edit_lost_in_flight_is_sent_again_and_applied_once(live_case, requests_since):
    """The last message before a quiet spell: no later message shows the page a gap, so the
    kernel sends it again when its acknowledgement does not come."""
    case, kernel = live_case, live_case.kernel
    page = case.page()
    b = case.cells[1]["id"]
    kernel.server.script.add(_read(case), _edit(case, b, "x = 'once'"), Reply(content=[text("ok")]))
    page.lose = ["edit"]  # the run's only edit, after the Read
    run = case.start_agent(page, "edit")
    kernel.wait(run, timeout=30)
    assert run.status == "ok", run.errors
    assert [m["type"] for m in page.lost] == ["edit"]
    assert page.find(b)["source"] == "x = 'once'" and len(page.applied) == 1
    assert _edits_received(page) == [page.lost[0]["edit_id"]]  # the same edit, the second time
    card = [m for m in run.of_type("display_data") if "application/vnd.nb-agent.edits+json" in m["content"]["data"]]
    assert card and card[-1]["content"]["data"]["application/vnd.nb-agent.edits+json"]["edits"][0]["status"] == "applied"


def test_after_a_gap_the_page_gets_every_message_again_in_order(live_case, requests_since):
    """The run's start and the Read's request for a snapshot are lost; the next message (an
    edit) shows the gap: the page asks to resume and gets all three again, in order."""
    case, kernel = live_case, live_case.kernel
    page = case.page()
    a = case.cells[0]["id"]
    page.lose = ["run", "request_snapshot"]  # the run's start, then the Read's request
    kernel.server.script.add(
        _read(case),
        Reply(content=[tool_use("NotebookEdit", {"notebook_path": str(case.path), "cell_id": a, "new_source": "## Plan", "cell_type": "markdown", "edit_mode": "insert"})]),
        _edit(case, a, "import statistics"),
        Reply(content=[text("ok")]),
    )
    run = case.run_agent(page, "plan", timeout=40)
    assert run.status == "ok", run.errors
    assert [m["type"] for m in page.lost] == ["run", "request_snapshot"] and page.gaps >= 1
    types = [m["type"] for m in page.received if m["type"] not in ("run_view", "welcome", "resumed")]  # (earlier runs' views, sent to a new page)
    assert types[:4] == ["run", "request_snapshot", "edit", "edit"], types  # again, in order, once
    assert [c["source"] for c in page.cells][:2] == ["import statistics", "## Plan"]
    assert len(page.applied) == 2 and len(set(page.applied)) == 2
    results = [r for request in requests_since() for r in tool_results(request)]
    assert not any("refused" in r for r in results), results


def test_a_page_whose_websocket_came_back_gets_what_it_lacks(live_case, requests_since):
    """The extension resumes after a reconnect even when nothing shows it a gap: the edits
    the kernel sent meanwhile reach the page once, and its acknowledgements reach the run."""
    case, kernel = live_case, live_case.kernel
    page = case.page(defer_acks=True)  # and its acknowledgements never arrive by themselves
    a, b = case.cells[0]["id"], case.cells[1]["id"]
    kernel.server.script.add(_read(case), _edit(case, b, "x = 1"), _edit(case, a, "import os"), Reply(content=[text("ok")]))
    page.lose = ["edit", "edit"]  # the run's two edits (sent without waiting: no reply came for the Read's request)
    run = case.start_agent(page, "two edits")
    kernel.wait(run, timeout=40)
    assert [m["type"] for m in page.lost] == ["edit", "edit"]
    page.defer_acks = False
    page.resume()  # the websocket is back
    kernel.server.script.add(Reply(content=[text("noted")]))
    run = case.run_agent(page, "anything else?")
    assert run.status == "ok", run.errors
    assert page.find(b)["source"] == "x = 1" and page.find(a)["source"] == "import os" and len(page.applied) == 2
    notes = "\n".join(b.get("text", "") for b in requests_since()[-1]["messages"][-1]["content"] if isinstance(b, dict))
    assert "refused these edits" not in notes


def test_the_kernel_welcomes_each_page_first_and_answers_each_resume(live_case, requests_since):
    """A page counts on its comm only once the kernel's ``welcome`` came (an open lost on the
    way leaves a comm the kernel never saw), and sends a ``resume`` again until its
    ``resumed`` comes (a resume can be lost the same way): both are answered, in order."""
    case, kernel = live_case, live_case.kernel
    page = case.page()
    kernel.wait_for(kernel.start("pass"), lambda: any(m.get("type") == "welcome" for m in page.received), timeout=30)
    assert page.received[0]["type"] == "welcome" and page.received[0]["seq"] == 1
    b = case.cells[1]["id"]
    kernel.server.script.add(_read(case), _edit(case, b, "x = 'kept'"), Reply(content=[text("ok")]))
    run = case.run_agent(page, "edit", timeout=40)
    assert run.status == "ok", run.errors
    handled = page.last_seq
    page.last_seq = 1  # the page lost everything after the welcome
    page.resume()
    kernel.wait_for(kernel.start("pass"), lambda: any(m.get("type") == "resumed" for m in page.received), timeout=30)
    resumed = [m for m in page.received if m.get("type") == "resumed"]
    assert len(resumed) == 1 and resumed[0]["last_seq"] == 1 and resumed[0]["seq"] == handled + 1
    page.resume()  # a resume sent again (its answer was late): answered again, nothing applied twice
    kernel.wait_for(kernel.start("pass"), lambda: len([m for m in page.received if m.get("type") == "resumed"]) == 2, timeout=30)
    assert page.applied == [page.applied[0]] and page.find(b)["source"] == "x = 'kept'"
