"""What the kernel really ran, told to the agent: out-of-order runs, cells changed since they
ran, cells never run, hidden state, counts of an earlier kernel (a real kernel, cells run as
JupyterLab runs them, a fake page)."""

from __future__ import annotations

from typing import Any

from nb_agent.testing import Reply, held_at_end, text, tool_use
from nb_agent.testing.live_page import FakeLivePage, cell

from ..conftest import last_user_text


def run_cell(kernel: Any, page: FakeLivePage, cell_id: str) -> int:
    """Run the page's cell as JupyterLab does (its id in the request); the page shows its count."""
    found = page.find(cell_id)
    execution = kernel.wait(kernel.start(found["source"], metadata={"cellId": cell_id}))
    assert execution.status == "ok", execution.errors
    found["execution_count"] = execution.reply["content"]["execution_count"]
    return found["execution_count"]


def provenance_note(request: dict[str, Any], heading: str = "What the kernel ran, beside the notebook") -> str:
    """The provenance note among the request's last user message ('' when there is none)."""
    for part in last_user_text(request).split("<system-reminder>"):
        if heading in part:
            return part.split("</system-reminder>")[0]
    return ""


def notebook(case: Any, *sources: str) -> list[dict[str, Any]]:
    """The case's page with these code cells, then its %%agent cell."""
    cells = [cell(source, id=f"p{index}") for index, source in enumerate(sources, start=1)]
    return cells + [cell("%%agent\nplaceholder", id=case.agent_id)]


def test_out_of_order_stale_never_run_and_hidden_state_are_told(live_case, requests_since):
    case, kernel = live_case, live_case.kernel
    case.cells = notebook(case, "import math\npv_x = 1", "pv_y = pv_x + 1", "pv_z = pv_y * 2", "pv_w = 5", "print('not yet')")
    page = case.page()
    counts = {cell_id: run_cell(kernel, page, cell_id) for cell_id in ("p1", "p2", "p3", "p4")}
    counts["p1"] = run_cell(kernel, page, "p1")  # again, after the cells below it
    page.user_edits("p2", "pv_y = pv_x + 100")  # changed since it ran
    page.cells = [c for c in page.cells if c["id"] != "p4"]  # deleted: pv_w stays in the kernel
    kernel.server.script.add(Reply(content=[text("ok")]))
    run = case.run_agent(page, "what is going on?")
    assert run.status == "ok", run.errors
    note = provenance_note(requests_since()[0])
    assert f"cell p1 (#1) [{counts['p1']}] ran after #2 [{counts['p2']}], #3 [{counts['p3']}]" in note
    assert f"cell p2 (#2) [{counts['p2']}]: ran `pv_y = pv_x + 1`, now `pv_y = pv_x + 100`" in note
    assert "Never run:\n  - cell p5 (#4): print('not yet')" in note
    assert f"pv_w: set by [{counts['p4']}] `pv_w = 5`, which is no longer in the notebook" in note
    assert "pv_z:" not in note and "pv_x:" not in note  # their code is there as it ran


def test_a_cell_that_no_longer_sets_a_variable_and_an_in_place_change_of_a_deleted_cell(live_case, requests_since):
    case, kernel = live_case, live_case.kernel
    case.cells = notebook(case, "pv_items = [1, 2]", "pv_items.append(3)\npv_items[0] = 0", "pv_rate = 0.5")
    page = case.page()
    counts = {cell_id: run_cell(kernel, page, cell_id) for cell_id in ("p1", "p2", "p3")}
    page.cells = [c for c in page.cells if c["id"] != "p2"]
    page.user_edits("p3", "# the rate comes from the config now")
    kernel.server.script.add(Reply(content=[text("ok")]))
    case.run_agent(page, "check")
    note = provenance_note(requests_since()[0])
    assert f"pv_items: changed in place by [{counts['p2']}] `pv_items.append(3)`, which is no longer in the notebook" in note
    assert f"pv_rate: set by [{counts['p3']}] `pv_rate = 0.5` in cell p3 (#2), which no longer does" in note


def test_the_cells_and_variables_of_a_notebook_run_top_to_bottom_are_not_flagged(live_case, requests_since):
    case, kernel = live_case, live_case.kernel
    case.cells = notebook(case, "pv_clean = 1", "pv_clean2 = pv_clean + 1")
    page = case.page()
    for cell_id in ("p1", "p2"):
        run_cell(kernel, page, cell_id)
    kernel.server.script.add(Reply(content=[text("ok")]))
    case.run_agent(page, "fine?")
    request = requests_since()[0]
    assert "pv_clean2" in last_user_text(request)  # the variables summary, as before
    assert "pv_clean" not in provenance_note(request)


def test_what_the_user_changes_mid_run_is_told_between_turns_without_the_agents_own_edits(live_case, requests_since):
    case, kernel = live_case, live_case.kernel
    case.cells = notebook(case, "pv_m = 1", "pv_n = 2")
    page = case.page()
    for cell_id in ("p1", "p2"):
        run_cell(kernel, page, cell_id)
    edit = held_at_end(Reply(content=[tool_use("NotebookEdit", {"notebook_path": str(case.path), "cell_id": "p1", "new_source": "pv_m = 10"})]))
    kernel.server.script.add(
        Reply(content=[tool_use("Read", {"file_path": str(case.path)})]),
        edit,  # held while the user types
        Reply(content=[text("ok")]),
    )
    start = len(kernel.server.requests)
    run = case.start_agent(page, "tidy")
    case.when_model_called(run, 2, start)
    page.user_edits("p2", "pv_n = 20")
    case.when_kernel_heard(run, page)
    edit.release.set()
    kernel.wait(run)
    assert run.status == "ok", run.errors
    note = provenance_note(requests_since()[2], "Since your last turn, what the kernel ran no longer matches the notebook here:")
    assert "cell p2 (#2)" in note and "ran `pv_n = 2`, now `pv_n = 20`" in note
    assert "cell p1" not in note  # the agent's own edit is not news to it
