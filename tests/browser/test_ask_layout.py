"""The buttons of an ask show their whole label, and "adds <rule>" stays on one line, in a
real JupyterLab at 800 and 1280 px wide. ipywidgets gives a button a fixed short width and
cuts what does not fit ("Approve, accept …" at every width), and the rule's text was
squeezed into two lines next to Deny at 800 px."""

from __future__ import annotations

import pytest

from nb_agent.testing import Reply, text, tool_use

from .conftest import NotebookPage

pytestmark = pytest.mark.timeout(600)  # JupyterLab and chromium start in the first test of a module

# For the ask in cell `arg`: each button's label and whether it is cut (its text wider than
# the button), and whether the "adds <rule>" text wraps (a line box below its first).
LAYOUT_JS = """
const area = live.panel.content.widgets[arg].node.querySelector('.jp-OutputArea');
const ask = area && [...area.querySelectorAll('.nb-agent-ask')].pop();
if (!ask) return null;
const buttons = [...ask.querySelectorAll('button')].filter(b => b.getClientRects().length).map(b => [b.textContent.trim(), b.scrollWidth > b.clientWidth]);
const rule = [...ask.querySelectorAll('.widget-html span')].find(s => s.textContent.startsWith('adds '));
let ruleWraps = null;
if (rule) {
  const r = document.createRange(); r.selectNodeContents(rule);
  const boxes = [...r.getClientRects()];
  ruleWraps = boxes.some(b => b.top >= boxes[0].bottom - 1);  // a box below the first line
}
return { buttons, ruleWraps };
"""


def _layout(nb: NotebookPage, cell: int, width: int):
    nb.page.set_viewport_size({"width": width, "height": 900})
    nb.page.wait_for_function("w => window.innerWidth === w", arg=width)
    return nb.js(LAYOUT_JS, cell)


@pytest.mark.parametrize("width", [800, 1280])
def test_ask_buttons_show_their_whole_label_and_the_rule_one_line(lab, new_page, width):
    name = f"layout_{width}.ipynb"
    lab.notebook(name, ["%load_ext nb_agent", "%%agent --permission-mode default\nCount the rows.", "%%agent --permission-mode plan\nPlan the report."])
    nb = NotebookPage(new_page(), lab, name).open()
    nb.page.set_viewport_size({"width": width, "height": 900})
    nb.run(0)
    nb.wait_executed(0)
    lab.server.script.add(
        Reply(content=[tool_use("ExecuteCode", {"code": "rows = 1204", "description": "Count the rows"})]),
        Reply(content=[text("1,204 rows.")]),
        Reply(content=[tool_use("ExitPlanMode", {"plan": "1. Load\n2. Report"})]),
        Reply(content=[text("Planned.")]),
    )
    nb.run(1)
    nb.page.get_by_role("button", name="Always allow", exact=True).wait_for(timeout=120_000)
    approval = nb.js(LAYOUT_JS, 1)
    assert [label for label, _ in approval["buttons"]] == ["Allow", "Always allow", "Deny"], approval
    assert approval == {"buttons": [["Allow", False], ["Always allow", False], ["Deny", False]], "ruleWraps": False}
    nb.page.get_by_role("button", name="Deny", exact=True).click()
    nb.wait_executed(1)
    nb.run(2)
    nb.page.get_by_role("button", name="Keep planning", exact=True).wait_for(timeout=120_000)
    plan = nb.js(LAYOUT_JS, 2)
    assert plan == {"buttons": [["Approve", False], ["Approve, accept edits", False], ["Keep planning", False]], "ruleWraps": None}
    nb.page.get_by_role("button", name="Approve", exact=True).click()
    nb.wait_executed(2)
