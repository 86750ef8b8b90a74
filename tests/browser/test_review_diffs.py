"""Review in a real JupyterLab and chromium: the approval card shows the change before the
user answers (NotebookEdit: the cell before → after; Edit: a unified diff of the file)."""

from __future__ import annotations

import json

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


def _card_output(path, mime="application/vnd.nb-agent.edits+json"):
    """The edits card's output as saved in the notebook file."""
    saved = json.loads(path.read_text())
    found = [o["data"] for c in saved["cells"] for o in c.get("outputs", []) if mime in o.get("data", {})]
    assert len(found) == 1, found
    return found[0]


@pytest.mark.parametrize("which", ["lab", "lab_without_subshells"])
def test_each_edit_of_a_run_is_undone_or_kept_on_its_own_and_the_card_stays_true(which, request, new_page):
    lab = request.getfixturevalue(which)
    name = f"review_card_{which}.ipynb"
    nb = _open(lab, new_page, name, ["x = 1", "y = 2", "%%agent --permission-mode acceptEdits\ntidy up"])
    path = lab.root / name
    ids = nb.ids()

    def edit(**args):
        return Reply(content=[tool_use("NotebookEdit", {"notebook_path": str(path), **args})])

    lab.server.script.add(
        Reply(content=[tool_use("Read", {"file_path": str(path)})]),
        edit(cell_id=ids[1], new_source="x = 10"),
        edit(cell_id=ids[1], new_source="## About x", cell_type="markdown", edit_mode="insert"),
        edit(cell_id=ids[2], new_source="y = x * 2"),
        Reply(content=[text("Done.")]),
    )
    nb.run(3)
    nb.wait_executed(4)  # the agent cell, one further down
    nb.page.locator(f"#{nb.panel_id()} .nb-agent-edits:has(.nb-agent-undo)").wait_for(timeout=60_000)
    card = nb.page.locator(f"#{nb.panel_id()} .nb-agent-edits")
    items = card.locator("li")
    assert items.count() == 3
    for index in range(3):  # the page applied all three: none is "sent, not confirmed"
        shown = items.nth(index).locator(".nb-agent-edit-line").inner_text()
        assert shown.endswith("— applied") and items.nth(index).get_attribute("data-status") == "applied", shown
    diff = items.nth(0).locator(".nb-agent-diff").inner_text()
    assert "-x = 1" in diff and "+x = 10" in diff
    assert "+## About x" in items.nth(1).locator(".nb-agent-diff").inner_text()

    items.nth(1).locator(".nb-agent-undo").click()  # undo the insert only
    nb.wait_js("return !live.panel.model.sharedModel.cells.some(c => c.getSource() === '## About x');")
    assert nb.sources()[1:3] == ["x = 10", "y = x * 2"]  # the other edits stay
    items.nth(0).locator(".nb-agent-keep").click()
    nb.wait_js("return document.querySelector(`[data-edit-id='${arg}']`)?.dataset.status === 'kept';", card.locator("li").nth(0).get_attribute("data-edit-id"))
    assert card.locator("li").nth(0).locator(".nb-agent-undo").count() == 0

    nb.type_into(2, "  # mine")  # the user changes the agent's y cell: its Undo leaves it
    nb.command_mode()
    card.locator("li").nth(2).locator(".nb-agent-undo").click()
    said = card.locator(".nb-agent-revert-outcome")
    said.wait_for(timeout=30_000)
    assert "Not undone" in said.inner_text() and "was changed after the agent's edit" in said.inner_text(), said.inner_text()
    assert nb.sources()[2] == "y = x * 2  # mine"
    assert [card.locator("li").nth(i).get_attribute("data-status") for i in range(3)] == ["kept", "undone", "changed"]

    nb.save()
    saved = _card_output(path)
    statuses = [e["status"] for e in saved["application/vnd.nb-agent.edits+json"]["edits"]]
    assert statuses == ["kept", "undone", "applied"]  # stored: what was done to each
    plain = "".join(saved["text/plain"])
    assert "— kept" in plain and "— undone" in plain and "not confirmed" not in plain
    assert "undone" in "".join(saved["text/html"]) and "+x = 10" in "".join(saved["text/html"])


SENT_CARD = """\
from IPython.display import display
from nb_agent.jupyter.live.edits_card import records_bundle
from nb_agent.jupyter.live.protocol import ReplaceOp
from nb_agent.jupyter.live.run import EditRecord
cell = {cell!r}
op = ReplaceOp(cell_id=cell, source="x = 10", cell_type="code", expected_source="x = 1")
back = ReplaceOp(cell_id=cell, source="x = 1", cell_type="code", expected_source="x = 10")
gone = ReplaceOp(cell_id="not-a-cell", source="z", cell_type="code", expected_source="z = 0")
records = [
    EditRecord(edit_id="e1", summary="replaced cell " + cell, cell_id=cell, ops=[op], inverse=[back], kind="replace", preview="x = 10", status="sent"),
    EditRecord(edit_id="e2", summary="replaced cell not-a-cell", cell_id="not-a-cell", ops=[], inverse=[gone], kind="replace", preview="z", status="sent"),
]
display(records_bundle(records, run_id="r", notebook_path={name!r}), raw=True)
"""


def test_an_edit_the_kernel_could_only_send_is_shown_and_saved_as_applied_once_it_is_there(lab, new_page):
    """A run whose acknowledgements came after it ended leaves "sent" edits on its card: the
    page, which applied them, says "applied", and writes that into the saved notebook."""
    name = "review_sent.ipynb"
    nb = _open(lab, new_page, name, ["x = 10", "# the card"])
    path = lab.root / name
    ids = nb.ids()
    nb.type_into(2, "")
    nb.page.keyboard.press("Control+a")
    nb.page.keyboard.type(SENT_CARD.format(cell=ids[1], name=name))
    nb.run(2)
    nb.wait_executed(2)
    card = nb.page.locator(f"#{nb.panel_id()} .nb-agent-edits")
    card.locator("li[data-status='applied']").wait_for(timeout=60_000)
    assert card.locator("li").nth(1).get_attribute("data-status") == "sent"  # not in the notebook: not claimed
    nb.command_mode()
    nb.save()
    saved = _card_output(path)
    assert [e["status"] for e in saved["application/vnd.nb-agent.edits+json"]["edits"]] == ["applied", "sent"]
    assert f"replaced cell {ids[1]}: x = 10 — applied" in "".join(saved["text/plain"])


def _marked(nb: NotebookPage) -> list[str]:
    """The ids of the cells marked pending review in the page."""
    return nb.js("return live.panel.content.widgets.filter(w => w.hasClass('nb-agent-review')).map(w => w.model.id);")


def test_edits_made_without_asking_are_marked_for_review_until_kept_or_undone_and_never_saved(lab, new_page):
    name = "review_marks.ipynb"
    nb = _open(lab, new_page, name, ["x = 1", "y = 2", "%%agent --permission-mode acceptEdits\ntidy up"])
    path = lab.root / name
    ids = nb.ids()
    lab.server.script.add(
        Reply(content=[tool_use("Read", {"file_path": str(path)})]),
        Reply(content=[tool_use("NotebookEdit", {"notebook_path": str(path), "cell_id": ids[1], "new_source": "x = 10"})]),
        Reply(content=[tool_use("NotebookEdit", {"notebook_path": str(path), "cell_id": ids[2], "new_source": "## Results", "cell_type": "markdown", "edit_mode": "insert"})]),
        Reply(content=[text("Done.")]),
    )
    nb.run(3)
    nb.wait_executed(4)
    inserted = nb.ids()[3]
    nb.wait_js("return live.panel.content.widgets.filter(w => w.hasClass('nb-agent-review')).length === 2;")
    assert sorted(_marked(nb)) == sorted([ids[1], inserted])
    label = nb.js("return getComputedStyle(live.panel.content.widgets.find(w => w.model.id === arg).node, '::before').content;", ids[1])
    assert "pending review" in label
    nb.command_mode()
    nb.save()
    for cell in json.loads(path.read_text())["cells"]:  # the mark is the page's only
        if cell["id"] in (ids[1], inserted):
            assert "review" not in json.dumps(cell["metadata"]) and "review" not in "".join(cell["source"]), cell

    again = NotebookPage(new_page(), lab, name).open()  # the notebook opened again: the card marks them again
    again.wait_js("return live.panel.content.widgets.filter(w => w.hasClass('nb-agent-review')).length === 2;")
    card = again.page.locator(f"#{again.panel_id()} .nb-agent-edits")
    card.locator("li").nth(0).locator(".nb-agent-keep").click()
    again.wait_js("return live.panel.content.widgets.filter(w => w.hasClass('nb-agent-review')).length === 1;")
    assert _marked(again) == [inserted]
    card.locator("li").nth(1).locator(".nb-agent-undo").click()
    again.wait_js("return !live.panel.content.widgets.some(w => w.hasClass('nb-agent-review'));")
    assert inserted not in again.ids() and again.sources()[1] == "x = 10"


def test_edits_the_user_allowed_one_by_one_are_not_marked(lab, new_page):
    name = "review_asked.ipynb"
    nb = _open(lab, new_page, name, ["x = 1", "%%agent --permission-mode default --answer allow\nchange x"])
    path = lab.root / name
    ids = nb.ids()
    lab.server.script.add(
        Reply(content=[tool_use("Read", {"file_path": str(path)})]),
        Reply(content=[tool_use("NotebookEdit", {"notebook_path": str(path), "cell_id": ids[1], "new_source": "x = 2"})]),
        Reply(content=[text("Done.")]),
    )
    nb.run(2)
    nb.wait_executed(2)
    nb.page.locator(f"#{nb.panel_id()} .nb-agent-edits li").first.wait_for(timeout=60_000)
    assert nb.sources()[1] == "x = 2" and _marked(nb) == []


def test_edits_a_rewind_undid_and_a_redo_applied_again_show_as_applied(lab, new_page):
    """``%agent rewind`` reverts the run's edit in the page (the card says undone); ``%agent
    rewind --redo`` applies it again as a new edit of the page: the card says applied again,
    with its Undo, and so does the saved notebook."""
    name = "review_redo.ipynb"
    nb = _open(lab, new_page, name, ["x = 1", "%%agent --permission-mode acceptEdits\nchange x", "%agent rewind", "%agent rewind --redo"])
    path = lab.root / name
    lab.server.script.add(
        Reply(content=[tool_use("Read", {"file_path": str(path)})]),
        Reply(content=[tool_use("NotebookEdit", {"notebook_path": str(path), "cell_id": nb.ids()[1], "new_source": "x = 10"})]),
        Reply(content=[text("Done.")]),
    )
    nb.run(2)
    nb.wait_executed(2)
    nb.page.locator(f"#{nb.panel_id()} .nb-agent-edits:has(.nb-agent-undo)").wait_for(timeout=60_000)
    edit_id = nb.page.locator(f"#{nb.panel_id()} .nb-agent-edits li").first.get_attribute("data-edit-id")
    status = "return document.querySelector(`[data-edit-id='${arg[0]}']`)?.dataset.status === arg[1];"
    nb.run(3)
    nb.wait_executed(3)
    nb.wait_js(status, [edit_id, "undone"])
    assert nb.sources()[1] == "x = 1"
    nb.run(4)
    nb.wait_executed(4)
    nb.wait_js(status, [edit_id, "applied"])
    assert nb.sources()[1] == "x = 10"
    item = nb.page.locator(f"#{nb.panel_id()} .nb-agent-edits li").first
    assert item.locator(".nb-agent-edit-line").inner_text().endswith("— applied") and item.locator(".nb-agent-undo").count() == 1
    nb.save()
    saved = _card_output(path)
    assert [e["status"] for e in saved["application/vnd.nb-agent.edits+json"]["edits"]] == ["applied"]
