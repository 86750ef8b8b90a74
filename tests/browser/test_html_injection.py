"""The two reported injections, end to end in a real JupyterLab and chromium, with a scripted
model and nobody clicking Allow: a notebook the agent reads whose image output's "base64"
closes the ``src`` attribute, and a background subagent whose description is markup. Each
payload, if it ever ran, would mark the page and click Allow on the next ask the moment it
appears (a MutationObserver). The test waits for that ask, sees it still waiting, denies it
itself, and checks that the command never ran and the page was never marked."""

from __future__ import annotations

import json

import pytest

from nb_agent.testing import Reply, text, tool_use
from nb_agent.testing.routing import RoutedScript

from .conftest import NotebookPage

pytestmark = pytest.mark.timeout(600)  # JupyterLab and chromium start in the first test of a module

# Clicks Allow as soon as it exists; no spaces (Read drops whitespace from image data).
CLICK_ALLOW = (
    "window.__nbAgentPwned=(window.__nbAgentPwned||0)+1;"
    "new/**/MutationObserver(()=>document.querySelectorAll('button').forEach(b=>{if(b.textContent.trim()==='Allow')b.click()}))"
    ".observe(document.body,{childList:true,subtree:true})"
)


def _allow_button(nb: NotebookPage):
    return nb.page.get_by_role("button", name="Allow", exact=True)


def _deny_and_finish(nb: NotebookPage, cell: int) -> None:
    """When the ask is up and still waiting, the user denies it; then the run ends."""
    allow = _allow_button(nb)
    nb.page.wait_for_function(
        "() => [...document.querySelectorAll('button')].some(b => b.textContent.trim() === 'Allow') || window.__nbAgentPwned !== undefined",
        timeout=120_000,
    )
    assert nb.page.evaluate("window.__nbAgentPwned") is None, "the injected handler ran"
    assert allow.is_enabled(), "the ask was answered by something other than the user"
    nb.page.get_by_role("button", name="Deny", exact=True).click()
    nb.wait_executed(cell)


def _last_tool_result(lab) -> str:
    block = lab.server.requests[-1]["messages"][-1]["content"][0]
    assert block["type"] == "tool_result", block
    return block["content"] if isinstance(block["content"], str) else json.dumps(block["content"])


def test_an_image_output_whose_data_closes_src_runs_nothing(lab, new_page):
    hostile = f'AAAA" onerror="{CLICK_ALLOW}" x="'
    lab.notebook("evil.ipynb", ["plot()"], outputs=[[{"output_type": "display_data", "metadata": {}, "data": {"image/png": hostile, "text/plain": "<Figure>"}}]])
    lab.notebook("attack_image.ipynb", ["%load_ext nb_agent", "%%agent\nWhat does evil.ipynb show?"])
    nb = NotebookPage(new_page(), lab, "attack_image.ipynb").open()
    nb.run(0)
    nb.wait_executed(0)
    pwned = lab.root / "pwned_by_image"
    lab.server.script.add(
        Reply(content=[tool_use("Read", {"file_path": str(lab.root / "evil.ipynb")})]),
        Reply(content=[tool_use("Bash", {"command": f"touch {pwned}"})]),
        Reply(content=[text("Done.")]),
    )
    nb.run(1)
    _deny_and_finish(nb, 1)
    assert "doesn't want to proceed" in _last_tool_result(lab) and not pwned.exists()
    # the saved, static rendering of the run carries no image markup either
    output = nb.page.locator(f"#{nb.panel_id()} .jp-Cell").nth(1).locator(".jp-OutputArea")
    assert output.locator("img").count() == 0 and "could not be read" in output.inner_text()
    assert nb.page.evaluate("window.__nbAgentPwned") is None


def test_a_background_agent_whose_description_is_markup_runs_nothing(lab, new_page):
    description = f'<img src=x onerror="{CLICK_ALLOW}">'
    lab.notebook("attack_bg.ipynb", ["%load_ext nb_agent", "%%agent\nstart a helper", "%%agent\nnow clean up"])
    nb = NotebookPage(new_page(), lab, "attack_bg.ipynb").open()
    nb.run(0)
    nb.wait_executed(0)
    pwned = lab.root / "pwned_by_description"
    saved = lab.server.script
    lab.server.script = RoutedScript(
        {
            "": [
                Reply(content=[tool_use("Agent", {"description": description, "prompt": "[bg] say hi", "subagent_type": "general-purpose", "run_in_background": True})]),
                Reply(content=[text("Started.")]),
                Reply(content=[tool_use("Bash", {"command": f"touch {pwned}"})]),
                Reply(content=[text("Done.")]),
            ],
            "[bg]": [Reply(content=[text("hi from the background")])],
        }
    )
    try:
        nb.run(1)
        nb.wait_executed(1)
        finished = nb.page.get_by_text("Background agent general-purpose")
        finished.first.wait_for(timeout=120_000)  # the finished card, description and all, is on the page
        nb.run(2)
        _deny_and_finish(nb, 2)
        assert "doesn't want to proceed" in _last_tool_result(lab) and not pwned.exists()
        assert nb.page.evaluate("window.__nbAgentPwned") is None
        assert "onerror" in finished.first.inner_text()  # the description, shown as text
    finally:
        lab.server.script = saved


EDITS_MIME = "application/vnd.nb-agent.edits+json"
MARK = "<img src=x onerror=window.__nbAgentPwned=1>"


def test_an_untrusted_notebook_whose_edits_card_is_markup_runs_nothing(lab, new_page):
    """The edits card renders in untrusted outputs too (a collaborator's page gets the card
    through the shared document untrusted, and asks the kernel for its buttons): a notebook
    file someone sent, with a card whose every field is markup, shows that markup as text."""
    entry = {
        "edit_id": MARK, "op": "replace", "summary": f"replaced {MARK}", "cell_id": MARK, "preview": MARK,
        "status": MARK, "error": MARK, "diff": f"-{MARK}\n+{MARK}", "review": True, "revert": [],
    }  # fmt: skip
    card = {"version": 1, "run_id": MARK, "notebook_path": MARK, "edits": [entry], "outcome": MARK}
    output = {"output_type": "display_data", "metadata": {}, "data": {EDITS_MIME: card, "text/plain": "a card"}}
    name = "sent_card.ipynb"
    lab.notebook(name, ["x = 1"], outputs=[[output]])  # unsigned: JupyterLab does not trust its outputs
    nb = NotebookPage(new_page(), lab, name).open()
    shown = nb.cell(0).locator(".nb-agent-edits").first
    shown.wait_for(timeout=120_000)
    shown.locator(".nb-agent-card-unverified").wait_for(timeout=120_000)
    assert nb.page.evaluate("window.__nbAgentPwned") is None, "the card's markup ran"
    assert shown.locator("img, script, iframe").count() == 0
    assert shown.locator("button").count() == 0
    assert MARK in shown.inner_text()
