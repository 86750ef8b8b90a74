"""The run card's "Rewind this run", in a real JupyterLab and chromium: the click asks the
kernel what would change, the confirmation lists it, "Rewind" undoes the run (the page
reverts the notebook edits, the kernel the variables, files and conversation)."""

from __future__ import annotations

import pytest

from nb_agent.testing import Reply, text, tool_use

from .conftest import NotebookPage

pytestmark = pytest.mark.timeout(600)  # JupyterLab and chromium start in the first test of a module


def test_rewind_this_run_previews_confirms_and_undoes_the_run(lab, new_page):
    name = "rewind_button.ipynb"
    lab.notebook(name, [
        "%load_ext nb_agent", "x = 1", "%%agent --permission-mode bypassPermissions\nAdd a heading and make a variable.",
        "print('made_by_agent' in globals(), open('agent_notes.txt').read() if __import__('os').path.exists('agent_notes.txt') else 'no file')",
    ])  # fmt: skip
    path = lab.root / name
    nb = NotebookPage(new_page(), lab, name).open()
    nb.run(0)
    nb.wait_executed(0)
    ids, sources = nb.ids(), nb.sources()
    lab.server.script.add(
        Reply(content=[tool_use("Read", {"file_path": str(path)})]),
        Reply(content=[tool_use("NotebookEdit", {"notebook_path": str(path), "cell_id": ids[1], "new_source": "## About x", "cell_type": "markdown", "edit_mode": "insert"})]),
        Reply(content=[tool_use("ExecuteCode", {"code": "made_by_agent = 5\nopen('agent_notes.txt', 'w').write('notes')"})]),
        Reply(content=[text("Done.")]),
    )
    nb.run(2)
    card = nb.page.locator(f"#{nb.panel_id()} .nb-agent-rewind:has(.nb-agent-rewind-run)")
    card.wait_for(timeout=120_000)
    assert "This run changed files: 1" in card.inner_text() and "variables: made_by_agent" in card.inner_text()
    assert (lab.root / "agent_notes.txt").exists() and "## About x" in nb.sources()
    card.locator(".nb-agent-rewind-run").click()
    confirm = card.locator(".nb-agent-rewind-confirm")
    confirm.locator(".nb-agent-rewind-yes").wait_for(timeout=60_000)
    listed = confirm.inner_text()
    assert "agent_notes.txt: removed (the agent created it)" in listed and "made_by_agent: removed (the agent created it)" in listed, listed
    assert "notebook: revert inserted markdown cell" in listed, listed
    confirm.locator(".nb-agent-rewind-yes").click()
    outcome = card.locator(".nb-agent-rewind-outcome")
    nb.page.wait_for_function("el => el.innerText.startsWith('Rewound to before run')", arg=outcome.element_handle(), timeout=60_000)
    assert "files: agent_notes.txt removed" in outcome.inner_text()
    nb.wait_js("return !live.panel.model.sharedModel.cells.some(c => c.getSource() === '## About x');")
    assert nb.ids()[:4] == ids[:4] and nb.sources()[:2] == sources[:2], (nb.ids(), nb.sources())
    assert not (lab.root / "agent_notes.txt").exists()
    check = nb.ids().index(ids[3])
    nb.run(check)
    nb.wait_executed(check)
    shown = nb.cell(check).locator(".jp-OutputArea-output").inner_text()
    assert "False no file" in shown, shown
