"""While a tool runs, its card shows the newest lines of its output: the live output box
(at most 24em high) used to stay at its top, showing the oldest lines of the tail while the
newest ran on below, out of sight."""

from __future__ import annotations

import pytest

from nb_agent.testing import Reply, text, tool_use

from .conftest import NotebookPage

pytestmark = pytest.mark.timeout(600)  # JupyterLab and chromium start in the first test of a module

# 120 lines, then one line per 0.3 s (each reported to the card: reports are 0.2 s apart at
# most) until the test creates the file "go".
CODE = """
import pathlib, time
for i in range(120):
    print(f"line {i}")
while not pathlib.Path("go").exists():
    print("still waiting for go")
    time.sleep(0.3)
"""

# The live output box of cell `arg` (the output's: the code's box has no 'line 119'), and whether its last character is inside the box's
# visible part.
NEWEST_JS = """
const area = live.panel.content.widgets[arg].node.querySelector('.jp-OutputArea');
const box = area && [...area.querySelectorAll('pre')].find(p => p.textContent.includes('line 119'));
if (!box) return null;
const walker = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
let last = null;
for (let n = walker.nextNode(); n; n = walker.nextNode()) if (n.textContent.trim()) last = n;
const end = last.textContent.trimEnd().length;
const range = document.createRange(); range.setStart(last, end - 1); range.setEnd(last, end);
const [shown, newest] = [box.getBoundingClientRect(), range.getBoundingClientRect()];
return { overflows: box.scrollHeight > box.clientHeight, newestShown: newest.top >= shown.top - 1 && newest.bottom <= shown.bottom + 1 };
"""


def test_live_tool_output_shows_its_newest_lines(lab, new_page):
    name = "live_output.ipynb"
    lab.notebook(name, ["%load_ext nb_agent", "%%agent --permission-mode bypassPermissions\nRun the long job."])
    nb = NotebookPage(new_page(), lab, name).open()
    nb.run(0)
    nb.wait_executed(0)
    lab.server.script.add(
        Reply(content=[tool_use("ExecuteCode", {"code": CODE, "description": "Run the long job"})]),
        Reply(content=[text("Done.")]),
    )
    nb.run(1)
    try:
        nb.wait_js(f"return (() => {{ {NEWEST_JS} }})() !== null;", 1)
        shown = nb.js(NEWEST_JS, 1)
        assert shown == {"overflows": True, "newestShown": True}, shown
    finally:
        (lab.root / "go").touch()
    nb.wait_executed(1)
