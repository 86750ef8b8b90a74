"""A page that opens while a run waits for an approval (a reload, a tab opened again) is sent
the running cell's live view on its comm, and the run's result when it ends; a page that opens
later still gets the result of the last runs."""

from __future__ import annotations

from nb_agent.jupyter.live.run_views import WIDGET_VIEW_MIME
from nb_agent.testing import Reply, text, tool_use


def _run_views(page):
    return [m for m in page.received if m.get("type") == "run_view"]


def test_a_page_opened_during_an_approval_gets_the_view_then_the_result(live_case):
    case, kernel = live_case, live_case.kernel
    runner = case.page(frontend="the page that ran the cell")
    kernel.server.script.add(
        Reply(content=[text("First the raw export."), tool_use("Bash", {"command": "rm raw_export.csv"})]),
        Reply(content=[text("Removed it.")]),
    )
    run = case.start_agent(runner, "clean up", options="")
    kernel.wait_for(run, lambda: kernel.button("Allow") is not None, timeout=60)
    (shown,) = run.of_type("display_data")
    model_id = shown["content"]["data"][WIDGET_VIEW_MIME]["model_id"]
    reloaded = case.page(frontend="the same page, reloaded")
    kernel.wait_for(run, lambda: bool(_run_views(reloaded)), timeout=30)
    (live,) = _run_views(reloaded)
    assert (live["phase"], live["cell_id"], live["model_id"]) == ("live", case.agent_id, model_id)
    assert live["outputs"] == [{"output_type": "display_data", "data": shown["content"]["data"], "metadata": {}}]
    kernel.click(kernel.button("Allow"))
    kernel.wait(run, timeout=60)
    assert run.status == "ok", run.errors
    ended = _run_views(reloaded)[-1]
    assert (ended["phase"], ended["cell_id"], ended["model_id"]) == ("ended", case.agent_id, model_id)
    (result,) = ended["outputs"]
    assert result["data"] == run.final_bundle and "Removed it." in result["data"]["text/plain"]
    assert _run_views(runner) == []  # the page that ran the cell has it from its own request
    later = case.page(frontend="opened after the run")
    kernel.wait_for(run, lambda: bool(_run_views(later)), timeout=30)
    assert [m["phase"] for m in _run_views(later)] == ["ended"]  # replaces a live view autosave kept



def test_a_page_opened_during_a_run_that_is_stopped_gets_the_cells_error_line(live_case):
    # the stop is said by the cell's error line alone (not by the static rendering): a page
    # that did not send the cell's execute request gets that line with the rest
    case, kernel = live_case, live_case.kernel
    runner = case.page(frontend="the page that ran the cell")
    kernel.server.script.add(Reply(content=[tool_use("Bash", {"command": "rm raw_export.csv"})]), Reply(content=[text("unused")]))
    run = case.start_agent(runner, "clean up", options="")
    kernel.wait_for(run, lambda: kernel.button("Allow") is not None, timeout=60)
    reloaded = case.page(frontend="the same page, reloaded")
    kernel.wait_for(run, lambda: bool(_run_views(reloaded)), timeout=30)
    kernel.interrupt()
    kernel.wait(run, timeout=60)
    (error,) = run.errors
    kernel.wait_for(run, lambda: _run_views(reloaded)[-1]["phase"] == "ended", timeout=30)
    outputs = _run_views(reloaded)[-1]["outputs"]
    assert outputs[0]["data"] == run.final_bundle
    assert outputs[-1] == {"output_type": "error", "ename": "AgentInterrupted", "evalue": error["evalue"], "traceback": error["traceback"]}
    kernel.server.script._turns.clear()  # the unused reply
