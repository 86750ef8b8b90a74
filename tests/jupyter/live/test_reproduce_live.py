"""The reproducibility check with the live notebook: it runs the cells the page shows
(unsaved edits included), not the file, and leaves the file and the page as they were."""

from __future__ import annotations

from nb_agent.testing import Reply, text, tool_use
from nb_agent.testing.live_page import cell

from .conftest import tool_results

CELLS = ("rp_base = 2", "print(rp_base * rp_factor)")
"""On the page: the second cell uses a variable no cell defines (the file has other cells)."""


def page_with(case, *extra):
    case.cells = [cell(source, id=f"rp{index}") for index, source in enumerate(CELLS, start=1)]
    case.cells += [*extra, cell("%%agent\nplaceholder", id=case.agent_id)]
    return case.page()


def test_the_models_check_runs_the_pages_cells(live_case, requests_since):
    case = live_case
    page = page_with(case)
    case.kernel.server.script.add(Reply(content=[tool_use("ReproduceNotebook", {})]), Reply(content=[text("rp_factor is missing.")]))
    run = case.run_agent(page, "does it run from scratch?", timeout=300, options="--permission-mode bypassPermissions")  # generous: a fresh kernel
    assert run.status == "ok", run.errors
    (report,) = tool_results(requests_since()[1])
    assert "cell rp2 (#2): NameError: name 'rp_factor' is not defined" in report
    assert "cell rp2 (#2) uses rp_factor, which no cell defines" in report
    assert case.path.read_bytes() == case.saved
    assert not [m for m in page.received if m.get("type") == "edit"]  # the page was not edited


def test_agent_reproduce_in_a_cell_of_the_page_checks_what_the_page_shows(live_case):
    case = live_case
    page = page_with(case, cell("%agent reproduce", id="rp-check"))
    run = case.kernel.wait(case.kernel.start("%agent reproduce", metadata={"cellId": "rp-check"}), timeout=300)  # generous: a fresh kernel
    assert run.status == "ok", run.errors
    assert f"Checking {case.path} as the page shows it" in run.stdout
    assert "cell rp2 (#2): NameError: name 'rp_factor' is not defined" in run.stdout
    assert "rp-check" not in run.stdout  # its own cell is not run
    assert case.path.read_bytes() == case.saved
    assert any(m.get("type") == "request_snapshot" for m in page.received)  # a fresh snapshot was asked for
