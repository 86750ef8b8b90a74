"""Messages of the page's comm lost on the way, with no error on either side, as through a
Kernel Gateway (Jupyter Server opens the gateway's socket twice when a page connects and the
gateway keeps one): the page does not count on a comm until the kernel's ``welcome`` came, and
sends a ``resume`` again until its ``resumed`` came (labextension/PROTOCOL.md, "Lost opens").
The loss is made in the page, below the extension: the kernel connection drops the message."""

from __future__ import annotations

import pytest

from nb_agent.testing import Reply, text, tool_use

from .conftest import NotebookPage

pytestmark = pytest.mark.timeout(600)  # JupyterLab and chromium start in the first test of a module

UNSAVED = "  # typed in the browser, not saved"

DROP = """
const kernel = live.panel.sessionContext.session.kernel;
window.__dropped = [];
window.__drop = arg;  // [msg_type, what identifies it, how many]
const send = kernel._sendMessage.bind(kernel);
kernel._sendMessage = (msg, queue) => {
  const [type, what] = window.__drop;
  const content = msg.content || {};
  const matches = msg.header.msg_type === type
    && (content.target_name === what || (content.data && content.data.type === what));
  if (matches && window.__drop[2] > 0) {
    window.__drop[2] -= 1;
    window.__dropped.push(what);
    return;
  }
  return send(msg, queue);
};
"""

RECORD = """
window.__received = [];
const handle = live.onMessage.bind(live);
live.onMessage = data => { window.__received.push(data.type); handle(data); };
"""


def test_a_lost_open_is_made_again_and_the_run_sees_the_live_notebook(lab, new_page):
    """The comm the page opens when nb_agent loads never reaches the kernel: before, the page
    took it for open, sent its snapshots into nothing, and the run read the saved file."""
    name = "lost_open.ipynb"
    lab.notebook(name, ["%load_ext nb_agent", "x = 1", "%%agent --permission-mode acceptEdits\nRead the notebook."])
    nb = NotebookPage(new_page(), lab, name).open()
    nb.js(DROP, ["comm_open", "nb_agent.live", 1])
    nb.run(0)
    nb.wait_executed(0)
    nb.wait_js("return window.__dropped.length === 1;")  # the open that nb_agent's hello asked for
    nb.type_into(1, UNSAVED)
    nb.command_mode()
    lab.server.script.add(Reply(content=[tool_use("Read", {"file_path": name})]), Reply(content=[text("Read it.")]))
    start = len(lab.server.requests)
    nb.run(2)
    nb.wait_executed(2)
    read = lab.server.requests[start + 1]["messages"][-1]["content"][0]["content"]
    read = read if isinstance(read, str) else "".join(b.get("text", "") for b in read)
    assert UNSAVED.strip() in read and "live notebook open in the user's browser" in read, read


def test_a_lost_resume_is_sent_again_until_the_kernel_answers(lab, new_page):
    """After the kernel websocket comes back the page's ``resume`` is lost: it goes again,
    and the kernel's ``resumed`` ends the tries."""
    name = "lost_resume.ipynb"
    lab.notebook(name, ["%load_ext nb_agent"])
    nb = NotebookPage(new_page(), lab, name).open()
    nb.js(RECORD)
    nb.run(0)
    nb.wait_executed(0)
    nb.wait_js("return window.__received.includes('welcome');")
    nb.js(DROP, ["comm_msg", "resume", 1])
    nb.js("live.panel.sessionContext.session.kernel.reconnect();")
    nb.wait_js("return window.__received.includes('resumed');")
    assert nb.js("return window.__dropped;") == ["resume"]
    assert nb.js("return window.__received.filter(t => t === 'resumed').length;") == 1
