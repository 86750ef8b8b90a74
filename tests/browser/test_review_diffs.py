"""Review in a real JupyterLab and chromium: the approval card shows the change before the
user answers (NotebookEdit: the cell before → after; Edit: a unified diff of the file)."""

from __future__ import annotations

import pytest

from nb_agent.testing import Reply, text, tool_use

from .conftest import NotebookPage

pytestmark = pytest.mark.timeout(600)  # JupyterLab and chromium start in the first test of a module


def _open(lab, new_page, name: str, cells: list[str]) -> NotebookPage:
    lab.notebook(name, ["%load_ext nb_agent", *cells])
    nb = NotebookPage(new_page(), lab, name).open()
    nb.run(0)
    nb.wait_executed(0)
    return nb


def _change_shown(nb: NotebookPage, index: int) -> str:
    """The text of the change on the card waiting for an answer (once the Allow button is there)."""
    nb.page.get_by_role("button", name="Allow", exact=True).wait_for(state="visible", timeout=120_000)
    change = nb.cell(index).locator(".nb-agent-change").last
    change.wait_for(state="visible", timeout=30_000)
    return change.inner_text()


def test_a_notebook_edit_shows_the_cell_before_and_after_until_allowed(lab, new_page):
    name = "review_cell.ipynb"
    nb = _open(lab, new_page, name, ["total = sum(values)\nprint(total)", "%%agent --permission-mode default\nuse the mean"])
    path = lab.root / name
    ids = nb.ids()
    lab.server.script.add(
        Reply(content=[tool_use("Read", {"file_path": str(path)})]),
        Reply(content=[tool_use("NotebookEdit", {"notebook_path": str(path), "cell_id": ids[1], "new_source": "total = sum(values) / len(values)\nprint(total)"})]),
        Reply(content=[text("Done.")]),
    )
    nb.run(2)
    shown = _change_shown(nb, 2)
    assert f"cell {ids[1]} (code): before → after (+1 −1" in shown, shown
    assert "-total = sum(values)\n" in shown + "\n" and "+total = sum(values) / len(values)" in shown and " print(total)" in shown
    assert nb.sources()[1] == "total = sum(values)\nprint(total)"  # nothing changed while it asks
    nb.page.get_by_role("button", name="Allow", exact=True).click()
    nb.wait_executed(2)
    assert nb.sources()[1] == "total = sum(values) / len(values)\nprint(total)"
    saved_view = nb.cell(2).locator(".jp-OutputArea").inner_text()  # the static rendering keeps it
    assert "+total = sum(values) / len(values)" in saved_view


def test_an_edit_shows_a_unified_diff_with_context_and_deny_writes_nothing(lab, new_page):
    name = "review_file.ipynb"
    target = lab.root / "settings.py"
    original = "".join(f"option_{n} = {n}\n" for n in range(1, 21))
    target.write_text(original)
    nb = _open(lab, new_page, name, ["%%agent --permission-mode default\nraise option 10"])
    lab.server.script.add(
        Reply(content=[tool_use("Read", {"file_path": str(target)})]),
        Reply(content=[tool_use("Edit", {"file_path": str(target), "old_string": "option_10 = 10\n", "new_string": "option_10 = 100\n"})]),
        Reply(content=[text("Left as it is.")]),
    )
    nb.run(1)
    shown = _change_shown(nb, 1)
    lines = shown.splitlines()
    assert f"diff of {target} (+1 −1" in lines[0], shown
    assert "@@ -7,7 +7,7 @@" in lines
    assert lines[lines.index("-option_10 = 10") - 3 : lines.index("-option_10 = 10")] == [" option_7 = 7", " option_8 = 8", " option_9 = 9"]
    assert "+option_10 = 100" in lines and " option_13 = 13" in lines and " option_14 = 14" not in lines
    nb.page.get_by_role("button", name="Deny", exact=True).click()
    nb.wait_executed(1)
    assert target.read_text() == original
