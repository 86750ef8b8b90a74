"""JupyterLab's own Restart Kernel in the middle of a run (here: while an approval waits).

JupyterLab forgets the running cell's display id and disposes the page's comms before it asks
the server to restart, so the going kernel's last update of the cell ("Stopped by a kernel
restart", with what the run had shown) was dropped in the page: the cell kept the live view
with dead buttons, and the saved notebook a view no one could bring back. The kernel also
sends the run's end on the page's live-notebook comm, and the page takes it from the
connection's message stream even though JupyterLab disposed the comm."""

from __future__ import annotations

import json

import pytest

from nb_agent.testing import Reply, text, tool_use

from .conftest import NotebookPage

pytestmark = pytest.mark.timeout(600)  # JupyterLab and chromium start in the first test of a module

WIDGET_VIEW_MIME = "application/vnd.jupyter.widget-view+json"


def test_restart_from_the_page_during_an_approval_leaves_what_the_run_showed_and_how_to_go_on(lab, new_page):
    name = "restart_from_page.ipynb"
    lab.notebook(name, ["%load_ext nb_agent", "%%agent\nclean up the export"])
    nb = NotebookPage(new_page(), lab, name).open()
    nb.run(0)
    nb.wait_executed(0)
    lab.server.script.add(
        Reply(content=[text("First the raw export."), tool_use("Bash", {"command": "rm raw_export.csv", "description": "Remove the raw export"})]),
    )
    nb.run(1)
    nb.page.get_by_role("button", name="Allow", exact=True).wait_for(timeout=120_000)
    nb.js("live.panel.sessionContext.session.kernel.restart();")  # what Kernel > Restart Kernel does
    output = nb.cell(1).locator(".jp-OutputArea")
    output.get_by_text("Stopped by a kernel restart", exact=False).wait_for(timeout=120_000)
    assert "First the raw export." in output.inner_text()  # the partial answer stays
    assert "%agent resume" in output.inner_text()
    assert nb.js("return [...live.runViews];") == ["ended after a restart"]
    assert output.locator(".jupyter-widgets").count() == 0  # no dead buttons left
    nb.save()
    saved = json.loads((lab.root / name).read_text())["cells"][1]["outputs"]
    assert not any(WIDGET_VIEW_MIME in o.get("data", {}) for o in saved), saved
    assert "Stopped by a kernel restart" in json.dumps(saved)
