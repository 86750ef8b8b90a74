"""The open notebook is addressed by the page, not by a file: a kernel on another machine than
the Jupyter server (Kernel Gateway, Enterprise Gateway, JupyterHub) has no such file, or a
different one, and still reads and edits the notebook the user has open."""

from __future__ import annotations

import json

from nb_agent.testing import Reply, text, tool_use
from nb_agent.testing.live_page import FakeLivePage, cell

from .conftest import tool_results

SERVER_ROOT = "/srv/jupyter-server-elsewhere"
"""The server's root on its own machine: no such folder on the kernel's."""
NOTEBOOK = "work/remote.ipynb"
SERVER_PATH = f"{SERVER_ROOT}/{NOTEBOOK}"
UNSAVED = "x = 'typed in the browser, never saved'"


def _remote_page(kernel, name):
    cells = [cell("import math", id=f"{name}-a"), cell(UNSAVED, id=f"{name}-b"), cell("%%agent\nplaceholder", id=f"{name}-agent")]
    page = FakeLivePage(kernel.kc, notebook_path=NOTEBOOK, cells=cells, server_root=SERVER_ROOT)
    kernel.observers.append(page.feed)
    page.open()
    return page


def _run(kernel, page, name, prompt, options="--permission-mode acceptEdits", timeout=30):
    agent_id = f"{name}-agent"
    source = f"%%agent {options}\n{prompt}"
    page.find(agent_id)["source"] = source
    page.before_agent_cell(agent_id)
    return kernel.wait(kernel.start(source, metadata={"cellId": agent_id}), timeout=timeout)


def _close(kernel, page):
    kernel.observers.remove(page.feed)
    page._send("comm_close", {"comm_id": page.comm_id, "data": {}})


def _edit(path, cell_id, source, **more):
    return Reply(content=[tool_use("NotebookEdit", {"notebook_path": path, "cell_id": cell_id, "new_source": source, **more})])


def test_read_and_edit_by_every_spelling_when_the_file_is_not_on_the_kernels_machine(kernel, requests_since):
    name = "remote1"
    page = _remote_page(kernel, name)
    a, b = f"{name}-a", f"{name}-b"
    kernel.server.script.add(
        Reply(content=[tool_use("Read", {"file_path": SERVER_PATH})]),
        _edit(SERVER_PATH, b, "x = 1"),  # the path the model was told: the server-side one
        _edit("remote.ipynb", a, "import statistics"),  # the name
        _edit(NOTEBOOK, a, "## Notes", cell_type="markdown", edit_mode="insert"),  # relative to the server's root
        Reply(content=[tool_use("Read", {"file_path": "remote.ipynb"})]),
        Reply(content=[text("done")]),
    )
    try:
        run = _run(kernel, page, name, "edit it")  # acceptEdits: nothing may ask (no one clicks here)
        assert run.status == "ok", run.errors
        requests = requests_since()
        prompt = json.dumps(requests[0]["system"])
        assert f"The user's notebook: {SERVER_PATH} on the Jupyter server" in prompt, prompt[-2000:]
        first_read = tool_results(requests[1])[0]
        assert UNSAVED in first_read and "live notebook open in the user's browser" in first_read
        results = [tool_results(r)[0] for r in requests[2:5]]
        assert all("Applied live" in r for r in results), results
        assert page.find(b)["source"] == "x = 1" and page.find(a)["source"] == "import statistics"
        assert [c["source"] for c in page.cells][1] == "## Notes"
        assert "## Notes" in tool_results(requests[5])[0]
        assert not kernel.widgets.ever(lambda s: "waiting for approval" in str(s.get("value", "")))
        status = kernel.run("%agent status").stdout
        assert "files      the kernel's machine" in status and f"working directory {kernel.cwd}" in status, status
        assert f"the notebook is on the Jupyter server ({SERVER_PATH}), not here" in status, status
        assert f"sessions   {kernel.cwd}/.nb_agent/sessions (on the kernel's machine)" in status, status
    finally:
        _close(kernel, page)


def test_a_same_named_file_on_the_kernels_machine_is_never_read_or_written_in_its_place(kernel, requests_since):
    """A stale copy in the kernel's folder (an image that ships the notebook): the name still
    means the open notebook; the copy stays as it was."""
    name = "remote2"
    stale = kernel.cwd / "remote.ipynb"
    stale.write_text(json.dumps({"cells": [{"cell_type": "code", "id": "stale", "source": "STALE COPY", "metadata": {}, "outputs": [], "execution_count": None}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    before = stale.read_bytes()
    page = _remote_page(kernel, name)
    kernel.server.script.add(
        Reply(content=[tool_use("Read", {"file_path": "remote.ipynb"})]),
        _edit(str(stale), f"{name}-b", "x = 2"),  # the kernel-side path of the name: the told spelling is the server's
        _edit("remote.ipynb", f"{name}-b", "x = 3"),
        Reply(content=[text("done")]),
    )
    try:
        run = _run(kernel, page, name, "edit it")
        assert run.status == "ok", run.errors
        requests = requests_since()
        read = tool_results(requests[1])[0]
        assert UNSAVED in read and "STALE COPY" not in read
        assert "Applied live" in tool_results(requests[3])[0] and page.find(f"{name}-b")["source"] == "x = 3"
        assert stale.read_bytes() == before
        # the kernel-side path is the stale file: edited as a file would be, after a Read of it
        assert "File has not been read yet" in tool_results(requests[2])[0]
    finally:
        _close(kernel, page)
        stale.unlink()


def _start(kernel, page, name, prompt, options):
    agent_id = f"{name}-agent"
    source = f"%%agent {options}\n{prompt}"
    page.find(agent_id)["source"] = source
    page.before_agent_cell(agent_id)
    return kernel.start(source, metadata={"cellId": agent_id})


def _ask_message(kernel, run):
    """The message of the approval on screen (its card waits), once its buttons are there."""
    def waiting():
        values = [str(s.get("value", "")) for s in kernel.widgets.states.values()]
        return [v for v in values if "nb-agent-card" in v and "waiting for approval" in v]

    kernel.wait_for(run, lambda: kernel.button("Deny") is not None and waiting())
    return "\n".join(waiting())


def test_the_live_notebook_asks_as_a_notebook_edit_not_as_a_write_outside_the_working_directories(kernel, requests_since):
    name = "remote3"
    page = _remote_page(kernel, name)
    kernel.server.script.add(
        Reply(content=[tool_use("Read", {"file_path": SERVER_PATH})]),
        _edit(SERVER_PATH, f"{name}-b", "x = 4"),
        Reply(content=[text("done")]),
    )
    try:
        run = _start(kernel, page, name, "edit it", "--permission-mode default")
        asked = _ask_message(kernel, run)
        assert "wants to use NotebookEdit" in asked and "outside the working directories" not in asked, asked
        kernel.click(kernel.button("Deny"))
        kernel.wait(run, timeout=30)
        assert run.status == "ok", run.errors
        assert page.find(f"{name}-b")["source"] == UNSAVED
    finally:
        _close(kernel, page)


def test_a_path_that_resembles_the_notebooks_is_a_file_like_any_other(kernel, requests_since, tmp_path):
    """Same name in another folder: no notebook-edit pass (acceptEdits still asks about a
    write outside the working directories), and the page is not touched."""
    name = "remote4"
    other = tmp_path / "work" / "remote.ipynb"
    other.parent.mkdir()
    other.write_text(json.dumps({"cells": [{"cell_type": "code", "id": f"{name}-b", "source": "y = 0", "metadata": {}, "outputs": [], "execution_count": None}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    before = other.read_bytes()
    page = _remote_page(kernel, name)
    kernel.server.script.add(
        Reply(content=[tool_use("Read", {"file_path": str(other)})]),
        _edit(str(other), f"{name}-b", "y = 1"),
        Reply(content=[text("done")]),
    )
    try:
        run = _start(kernel, page, name, "edit it", "--permission-mode acceptEdits")
        asked = _ask_message(kernel, run)  # the Read of a file outside the working directories
        assert f"Read wants to read {other}, outside the working directories" in asked, asked
        kernel.click(kernel.button("Allow"))
        kernel.wait_for(run, lambda: "NotebookEdit wants to write" in _ask_message(kernel, run))
        asked = _ask_message(kernel, run)
        assert f"NotebookEdit wants to write {other}, outside the working directories" in asked, asked
        kernel.click(kernel.button("Deny"))
        kernel.wait(run, timeout=30)
        assert run.status == "ok", run.errors
        assert "y = 0" in tool_results(requests_since()[1])[0]  # the file was read, not the page
        assert other.read_bytes() == before and page.find(f"{name}-b")["source"] == UNSAVED and page.applied == []
    finally:
        _close(kernel, page)


def test_without_a_page_the_model_hears_where_the_notebook_is(kernel, requests_since):
    """After the page went away (and with no file on the kernel's machine): a clear message."""
    name = "remote5"
    page = _remote_page(kernel, name)
    kernel.server.script.add(Reply(content=[text("hello")]))
    try:
        assert _run(kernel, page, name, "hi").status == "ok"
    finally:
        _close(kernel, page)
    kernel.server.script.add(_edit(SERVER_PATH, f"{name}-b", "x = 5"), Reply(content=[tool_use("Read", {"file_path": "remote.ipynb"})]), Reply(content=[text("ok")]))
    run = kernel.run("%%agent --permission-mode acceptEdits\nedit again", timeout=30)
    assert run.status == "ok", run.errors
    requests = requests_since()
    for request in requests[-2:]:
        result = tool_results(request)[0]
        assert "the notebook lives on the Jupyter server; open it in JupyterLab for live edits" in result, result
