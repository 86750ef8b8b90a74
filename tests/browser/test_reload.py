"""A page reloaded (or a tab closed and opened again) while a run waits for an approval: the
running cell's live view comes back with its Allow, answering it there finishes the run, the
run's result replaces the view in that page, and the next cell runs. (JupyterLab shows a
cell's outputs only in the page that ran it: the reloaded page showed nothing, and later
cells queued behind an ask nobody could see.)"""

from __future__ import annotations

import pytest

from nb_agent.testing import Reply, text, tool_use

from .conftest import NotebookPage

pytestmark = pytest.mark.timeout(600)  # JupyterLab and chromium start in the first test of a module


def _reload(nb: NotebookPage) -> None:
    nb.page.reload()
    nb.wait_js("return !!live.panel.model && live.panel.model.cells.length > 0;")


@pytest.mark.parametrize("saved", [False, True], ids=["unsaved", "autosaved"])
def test_reload_during_an_approval_brings_the_ask_back_and_the_run_finishes_there(lab, new_page, saved):
    name = f"reload_{'saved' if saved else 'unsaved'}.ipynb"
    lab.notebook(name, ["%load_ext nb_agent", "%%agent\nclean up the export", "print('next cell ran')"])
    nb = NotebookPage(new_page(), lab, name).open()
    nb.run(0)
    nb.wait_executed(0)
    lab.server.script.add(
        Reply(content=[text("First the raw export."), tool_use("Bash", {"command": "rm raw_export.csv", "description": "Remove the raw export"})]),
        Reply(content=[text("Removed it; the clean copy stays.")]),
    )
    nb.run(1)
    nb.page.get_by_role("button", name="Allow", exact=True).wait_for(timeout=120_000)
    if saved:  # what autosave does during a long wait: the file holds the live view
        nb.save()
    _reload(nb)
    allow = nb.page.get_by_role("button", name="Allow", exact=True)
    allow.wait_for(timeout=120_000)  # the view is back, with the pending ask
    output = nb.cell(1).locator(".jp-OutputArea")
    assert "First the raw export." in output.inner_text()
    assert nb.js("return [...live.runViews];") == ([] if saved else ["live"])
    allow.click()
    nb.page.get_by_text("Removed it; the clean copy stays.").wait_for(timeout=120_000)
    nb.wait_js("return live.runViews.includes('ended');")
    assert "Removed it; the clean copy stays." in output.inner_text()
    assert "Bash" in output.inner_text()
    assert nb.page.locator(f"#{nb.panel_id()} .jp-Cell").nth(1).locator(".jupyter-widgets").count() == 0  # no dead view left
    nb.run(2)
    nb.page.get_by_text("next cell ran", exact=True).wait_for(timeout=120_000)
