"""After a kernel restart the agent is told that earlier variables are gone: through the
notebook's counts of the old kernel, and when a conversation is resumed in the new one."""

from __future__ import annotations

from nb_agent.testing import Reply, text

from ..conftest import last_user_text
from .test_provenance import notebook, provenance_note, run_cell

RESTART = "The kernel restarted since this conversation's last turn"


def test_a_resumed_conversation_is_told_its_variables_are_gone_and_the_cells_show_old_counts(live_case, requests_since):
    case, kernel = live_case, live_case.kernel
    case.cells = notebook(case, "rs_frame = [1, 2, 3]", "rs_total = sum(rs_frame)")
    page = case.page()
    counts = [run_cell(kernel, page, cell_id) for cell_id in ("p1", "p2")]
    kernel.server.script.add(Reply(content=[text("Summed.")]))
    assert case.run_agent(page, "sum it").status == "ok"
    assert RESTART not in last_user_text(requests_since()[0])

    kernel.restart()
    page.open()  # the page opens its channel again when the new kernel says hello
    resumed = kernel.run("%agent resume")
    assert resumed.status == "ok", resumed.errors
    kernel.server.script.add(Reply(content=[text("ok")]), Reply(content=[text("again")]))
    assert case.run_agent(page, "where were we?").status == "ok"
    request = requests_since()[-1]
    said = last_user_text(request)
    assert RESTART in said and "gone now: rs_frame, rs_total" in said
    note = provenance_note(request)
    assert "Counts from an earlier kernel" in note
    assert f"cell p1 (#1) [{counts[0]}]: rs_frame = [1, 2, 3]" in note and f"cell p2 (#2) [{counts[1]}]" in note
    # said once
    assert case.run_agent(page, "and now?").status == "ok"
    assert RESTART not in last_user_text(requests_since()[-1])


def test_a_resume_in_the_same_kernel_says_nothing_of_a_restart(live_case, requests_since):
    case, kernel = live_case, live_case.kernel
    page = case.page()
    kernel.server.script.add(Reply(content=[text("one")]))
    assert case.run_agent(page, "first").status == "ok"
    kernel.run("%agent new")
    kernel.server.script.add(Reply(content=[text("two")]))
    assert case.run_agent(page, "second").status == "ok"
    assert kernel.run("%agent resume").status == "ok"
    kernel.server.script.add(Reply(content=[text("three")]))
    assert case.run_agent(page, "third").status == "ok"
    assert RESTART not in last_user_text(requests_since()[-1])
