"""The agent reads and edits the open notebook live, in a real JupyterLab and chromium."""

from __future__ import annotations

import json

import pytest

from nb_agent.testing import Reply, text, tool_use

from .conftest import NotebookPage

AGENT_PROMPT = "%%agent\\nUse x from the cell above."


def _tool_results(request):
    texts = []
    for block in request["messages"][-1]["content"]:
        if isinstance(block, dict) and block.get("type") == "tool_result":
            inner = block.get("content")
            texts.append(inner if isinstance(inner, str) else "\n".join(b.get("text", "") for b in inner or [] if b.get("type") == "text"))
    return texts


def _start(lab, new_page, name):
    lab.notebook(name, ["%load_ext nb_agent", "x = 1", "y = 2", "%%agent\nUse x from the cell above."])
    nb = NotebookPage(new_page(), lab, name).open()
    nb.run(0)
    nb.wait_executed(0)
    return nb


@pytest.mark.parametrize("which", ["lab", "lab_without_subshells"])
def test_unsaved_text_reaches_the_model_edits_appear_and_saving_keeps_both(which, request, new_page):
    lab = request.getfixturevalue(which)
    name = f"main_{which}.ipynb"
    nb = _start(lab, new_page, name)
    path = lab.root / name
    on_disk = path.read_bytes()
    nb.type_into(1, "  # typed, unsaved: x is 41")
    ids = nb.ids()
    start = len(lab.server.requests)
    lab.server.script.add(
        Reply(content=[tool_use("Read", {"file_path": str(path)})]),
        Reply(content=[tool_use("NotebookEdit", {"notebook_path": str(path), "cell_id": ids[2], "new_source": "y = x + 1"})]),
        Reply(content=[tool_use("NotebookEdit", {"notebook_path": str(path), "cell_id": ids[1], "new_source": "## x comes first", "cell_type": "markdown", "edit_mode": "insert"})]),
        Reply(content=[text("Done.")]),
    )
    nb.run(3)
    nb.wait_executed(4)  # the agent cell, now one further down
    requests = lab.server.requests[start:]
    assert "# typed, unsaved: x is 41" in _tool_results(requests[1])[0]
    # visible without reload, the typed text kept, the file untouched, no dialog
    shown = nb.shown_sources()
    assert shown[1].endswith("# typed, unsaved: x is 41") and "x comes first" in shown[2] and shown[3] == "y = x + 1", shown
    assert nb.cell_types()[:5] == ["code", "code", "markdown", "code", "code"]  # (Shift+Enter on the last cell added one)
    assert path.read_bytes() == on_disk
    assert len(nb.applied()) == 2
    nb.command_mode()
    nb.save()
    assert nb.dialogs() == []
    saved = json.loads(path.read_text())
    sources = ["".join(c["source"]) for c in saved["cells"]]
    assert sources[1].endswith("# typed, unsaved: x is 41") and sources[2] == "## x comes first" and sources[3] == "y = x + 1"
