"""A streamed answer in JupyterLab with the extension's widgets: the kernel sends it as
appends (nb_agent/jupyter/view/page_widgets.py), and the page shows it whole and formatted
while it streams, after it ended, and after a reload in the middle of the run (the reloaded
page's widget manager asks the kernel for the widget's state: the whole answer so far),
where the next answer then streams in by appends too."""

from __future__ import annotations

import pytest

from nb_agent.testing import Reply, held_at_end, text, tool_use

from .conftest import NotebookPage

pytestmark = pytest.mark.timeout(600)  # JupyterLab and chromium start in the first test of a module

PARAGRAPH = "Part {i} has **bold** words, `inline code` and a literal <b>tag</b> & sign. "
FIRST = "\n\n".join(
    [
        *((PARAGRAPH.format(i=i) * 4).strip() for i in range(4)),
        "- first item\n- second item",
        "```python\nprint('fenced')\n```",
        *((PARAGRAPH.format(i=i) * 4).strip() for i in range(4, 8)),
    ]
)
SECOND = "\n\n".join((f"Then {i}: the second answer, **also** streamed. " * 4).strip() for i in range(6))


def _stream(nb: NotebookPage, cell: int) -> object:
    """The cell's live answer widgets (the extension's StreamText views)."""
    return nb.cell(cell).locator(".nb-agent-stream")


def _check_first_answer(nb: NotebookPage) -> None:
    """The first answer, whole, formatted, in one live widget (not stock HTML pages)."""
    answer = _stream(nb, 1).first
    shown = answer.inner_text()
    for i in range(8):
        assert f"Part {i} has bold words" in shown, shown
    assert "a literal <b>tag</b> & sign" in shown  # the model's markup is text
    assert answer.locator("b").count() == 0 and answer.locator("script").count() == 0
    assert answer.locator("strong").count() == 32 and answer.locator("code").count() == 33
    assert answer.locator("li").all_inner_texts() == ["first item", "second item"]
    assert answer.locator("pre code").inner_text().strip() == "print('fenced')"
    assert answer.locator(".jp-RenderedHTMLCommon").count() >= 2  # chunks, each rendered by JupyterLab's HTML renderer


def test_a_streamed_answer_shows_whole_while_streaming_after_a_reload_and_at_the_end(lab, new_page):
    name = "streamed_answer.ipynb"
    lab.notebook(name, ["%load_ext nb_agent", "%%agent\nexplain at length"])
    nb = NotebookPage(new_page(), lab, name).open()
    assert nb.page.evaluate("() => window.nbAgentLive.widgets") == 1  # registered with the page's widget manager
    nb.run(0)
    nb.wait_executed(0)
    lab.server.script.add(
        Reply(
            content=[text(FIRST), tool_use("Bash", {"command": "rm old_export.csv", "description": "Remove the old export"})],
            chunk_size=5,
            stream_duration=6,
        ),
        second := held_at_end(Reply(content=[text(SECOND)], chunk_size=5)),  # held until the page shows it streaming
    )
    nb.run(1)
    # while it streams: the first part shows, formatted, in the live widget
    _stream(nb, 1).get_by_text("Part 0 has bold words", exact=False).first.wait_for(timeout=120_000)
    assert _stream(nb, 1).first.locator("strong").count() >= 1
    nb.page.get_by_role("button", name="Allow", exact=True).wait_for(timeout=120_000)
    # the answer ended (the run waits for the approval): all of it (JupyterLab renders each
    # chunk asynchronously, so the last one is waited for, not assumed)
    _stream(nb, 1).get_by_text("Part 7 has bold words", exact=False).first.wait_for(timeout=120_000)
    _check_first_answer(nb)
    assert nb.cell(1).locator(".widget-html .nb-agent-clock").count() == 1  # the page's clock

    nb.page.reload()
    nb.wait_js("return !!live.panel.model && live.panel.model.cells.length > 0;")
    allow = nb.page.get_by_role("button", name="Allow", exact=True)
    allow.wait_for(timeout=120_000)  # the run's view is back, from the kernel's widget state
    _stream(nb, 1).get_by_text("Part 7 has bold words", exact=False).first.wait_for(timeout=120_000)
    _check_first_answer(nb)
    allow.click()
    # the next answer streams into the reloaded page by appends
    _stream(nb, 1).get_by_text("Then 0: the second answer", exact=False).first.wait_for(timeout=120_000)
    second.release.set()
    # the end: the static rendering replaces the live view, with both answers whole
    nb.wait_js("return live.runViews.includes('ended');")  # this page did not run the cell: the kernel says it ended
    output = nb.cell(1).locator(".jp-OutputArea")
    output.locator(".nb-agent-stream").first.wait_for(state="detached", timeout=120_000)
    shown = output.inner_text()
    assert "Part 7 has bold words" in shown and "Then 5: the second answer, also streamed." in shown
    assert "a literal <b>tag</b> & sign" in shown
