"""How a run looks in a real JupyterLab: every text of the live view (status line, cards,
the rule Always allow adds, the question chip) reads at WCAG's 4.5:1 or better against what
is behind it, in the light and the dark theme; the keyboard reaches the approval buttons.

With ``NB_AGENT_SCREENSHOT=PATH`` the light-theme page is also saved there (the README's
picture: ``NB_AGENT_SCREENSHOT=docs/screenshot.png python -m pytest tests/browser/test_look.py``).
"""

from __future__ import annotations

import os

import pytest

from nb_agent.testing import Reply, text, tool_use

from .conftest import NotebookPage

pytestmark = pytest.mark.timeout(600)  # JupyterLab and chromium start in the first test of a module

QUESTION = {
    "question": "Which average should the report use?",
    "header": "Average",
    "multiSelect": False,
    "options": [{"label": "Mean", "description": "the arithmetic mean"}, {"label": "Median", "description": "robust to outliers"}],
}

# Each text node of the run's output, its colour and the first opaque background behind it,
# as WCAG contrast ratios (colours read back from a canvas, so any CSS colour syntax works).
CONTRASTS_JS = """
(root) => {
  const canvas = document.createElement('canvas'); canvas.width = canvas.height = 1;
  const g = canvas.getContext('2d', { willReadFrequently: true });
  const rgba = css => { g.clearRect(0, 0, 1, 1); g.fillStyle = '#000'; g.fillStyle = css; g.fillRect(0, 0, 1, 1); return [...g.getImageData(0, 0, 1, 1).data]; };
  const opaqueBg = el => {
    for (let e = el; e; e = e.parentElement) {
      const c = rgba(getComputedStyle(e).backgroundColor);
      if (getComputedStyle(e).backgroundColor !== 'rgba(0, 0, 0, 0)' && c[3] > 0) return c;
    }
    return rgba(getComputedStyle(document.body).backgroundColor);
  };
  const lum = ([r, g2, b]) => { const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; }; return 0.2126 * f(r) + 0.7152 * f(g2) + 0.0722 * f(b); };
  const out = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const t = n.textContent.trim(); const el = n.parentElement;
    if (!t || !el || el.closest('button, input') || !el.getClientRects().length) continue;
    const style = getComputedStyle(el);
    const bg = opaqueBg(el); const fg = rgba(style.color);
    const a = (parseFloat(style.opacity) || 1) * fg[3] / 255;
    const mixed = fg.slice(0, 3).map((v, i) => v * a + bg[i] * (1 - a));
    const [l1, l2] = [lum(mixed), lum(bg)].sort((x, y) => y - x);
    out.push([t.slice(0, 40), (l1 + 0.05) / (l2 + 0.05)]);
  }
  return out;
}
"""


def _set_theme(nb: NotebookPage, theme: str) -> None:
    """Settings > Theme > ``theme``, through the menu bar as a user would."""
    nb.page.locator(".lm-MenuBar-itemLabel", has_text="Settings").click()
    nb.page.locator(".lm-Menu-itemLabel", has_text="Theme").first.hover()
    nb.page.locator(".lm-Menu-itemLabel", has_text=theme).first.click()


def _low_contrast(nb: NotebookPage, cell: int) -> list[tuple[str, float]]:
    area = nb.cell(cell).locator(".jp-OutputArea")
    pairs = area.evaluate(CONTRASTS_JS)
    assert len(pairs) > 10, pairs  # the run's texts were found
    return [(t, round(r, 2)) for t, r in pairs if r < 4.5]


def test_every_text_reads_in_both_themes_and_the_keyboard_reaches_allow(lab, new_page):
    lab.notebook("look.ipynb", ["%load_ext nb_agent", "%%agent\nLook at the sales export and clean it."])
    nb = NotebookPage(new_page(), lab, "look.ipynb").open()
    nb.run(0)
    nb.wait_executed(0)
    lab.server.script.add(
        Reply(content=[text("I'll look at the export first.\n\n- 1,204 rows\n- **3** columns with gaps"), tool_use("Bash", {"command": "ls -la", "description": "List the folder"})]),
        Reply(content=[tool_use("AskUserQuestion", {"questions": [QUESTION]})]),
        Reply(content=[tool_use("Bash", {"command": "mv raw_export.csv archive/", "description": "Archive the raw export"})]),
        Reply(content=[text("Done.")]),
    )
    nb.run(1)
    nb.page.get_by_role("button", name="Median", exact=True).wait_for(timeout=120_000)
    nb.page.get_by_role("button", name="Median", exact=True).click()
    nb.page.get_by_role("button", name="Submit answers", exact=True).click()
    allow = nb.page.get_by_role("button", name="Allow", exact=True)
    allow.wait_for(timeout=120_000)
    nb.page.wait_for_timeout(600)  # the status line's next tick (it shows the ask's phase)
    if path := os.environ.get("NB_AGENT_SCREENSHOT"):
        nb.cell(1).screenshot(path=path)
    light = _low_contrast(nb, 1)
    _set_theme(nb, "JupyterLab Dark")
    nb.page.wait_for_function("() => document.body.dataset.jpThemeLight === 'false'", timeout=30_000)
    dark = _low_contrast(nb, 1)
    assert (light, dark) == ([], [])
    # the keyboard: Tab from the feedback box reaches the buttons, and Enter on Allow answers
    nb.page.get_by_placeholder("Feedback for the model if you deny (optional)").focus()
    nb.page.keyboard.press("Shift+Tab")
    for _ in range(4):
        if nb.page.evaluate("() => document.activeElement && document.activeElement.textContent.trim()") == "Allow":
            break
        nb.page.keyboard.press("Shift+Tab")
    assert nb.page.evaluate("() => document.activeElement.textContent.trim()") == "Allow"
    nb.page.keyboard.press("Enter")
    nb.wait_executed(1)
    assert "mv raw_export.csv archive/" in nb.cell(1).locator(".jp-OutputArea").inner_text()
