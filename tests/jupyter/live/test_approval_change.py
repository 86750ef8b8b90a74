"""A NotebookEdit that asks shows the change on its card: the cell before → after, an
inserted cell with its neighbours, a deleted cell's source; the saved rendering keeps it."""

from __future__ import annotations

from nb_agent.testing import Reply, text, tool_use


def _rendering(run) -> dict:
    """The run's static rendering (the bundle that replaced the live view)."""
    bundles = [m["content"]["data"] for m in run.of_type("update_display_data", "display_data") if "text/markdown" in m["content"]["data"]]
    assert bundles, "no static rendering"
    return bundles[-1]


def test_the_approval_card_shows_each_cell_change_and_the_saved_rendering_keeps_it(live_case):
    case, kernel = live_case, live_case.kernel
    page = case.page()
    a, b = case.cells[0]["id"], case.cells[1]["id"]
    path = str(case.path)
    kernel.server.script.add(
        Reply(content=[tool_use("Read", {"file_path": path})]),
        Reply(content=[tool_use("NotebookEdit", {"notebook_path": path, "cell_id": b, "new_source": "x = 'cleaned'\ny = x.upper()"})]),
        Reply(content=[tool_use("NotebookEdit", {"notebook_path": path, "cell_id": a, "new_source": "## Notes", "cell_type": "markdown", "edit_mode": "insert"})]),
        Reply(content=[tool_use("NotebookEdit", {"notebook_path": path, "cell_id": a, "edit_mode": "delete"})]),
        Reply(content=[text("Done.")]),
    )
    run = case.run_agent(page, "tidy", options="--permission-mode default --answer allow --answer allow --answer deny")
    assert run.status == "ok", run.errors
    bundle = _rendering(run)
    html, markdown, plain = bundle["text/html"], bundle["text/markdown"], bundle["text/plain"]
    # replace: the user's unsaved source (what the page shows) before, the agent's after
    for shown in (markdown, plain):
        assert "-x = 'typed by the user, not saved'" in shown and "+x = 'cleaned'" in shown and "+y = x.upper()" in shown
    assert f"cell {b} (code): before → after (+2 −1" in html
    # insert: the new cell between its neighbours (the first cell above, the replaced one below)
    assert "inserts a markdown cell:" in html and "## Notes" in html
    assert f"above: code cell {a}" in html and f"below: code cell {b}" in html
    # delete (denied): what would have gone
    assert f"deletes code cell {a}:" in html and "import math" in html
    assert a in page.ids()  # the denied delete did not happen
    [card] = [m["content"]["data"]["application/vnd.nb-agent.edits+json"] for m in run.of_type("display_data") if "application/vnd.nb-agent.edits+json" in m["content"]["data"]]
    assert [e["review"] for e in card["edits"]] == [False, False]  # the user saw and allowed each one: nothing to mark
    assert page.find(b)["source"] == "x = 'cleaned'\ny = x.upper()"
