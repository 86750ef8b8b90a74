"""The run's file edits card in file mode (no live page: the kernel driven through
jupyter_client, as nbclient or VS Code do): each file the run's Edit, Write and NotebookEdit
calls changed, with its diff, Undo and Keep as widgets; Undo restores that file only, a file
changed since the run is left as it is and said; the card's saved HTML follows the clicks."""

from __future__ import annotations

import nbformat

from nb_agent.testing import Reply, text, tool_use

AGENT = "%%agent --permission-mode bypassPermissions\n"


def _notebook(path) -> None:
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell("fe_n = 1", id="fe-cell")]
    nbformat.write(notebook, path)


def _run(kernel, *steps) -> object:
    kernel.server.script.add(*[Reply(content=[step]) for step in steps], Reply(content=[text("Done.")]))
    run = kernel.run(AGENT + "tidy the project")
    assert run.status == "ok", run.errors
    return run


def _card(run) -> dict:
    shown = [m["content"] for m in run.of_type("display_data") if "transient" in m["content"] and "Files this run" in m["content"]["data"].get("text/plain", "")]
    assert len(shown) == 1, [m["content"]["data"].get("text/plain", "")[:80] for m in run.of_type("display_data")]
    return shown[0]


def _button(kernel, description: str, path: str) -> str:
    found = [cid for cid in kernel.widgets.find(_model_name="ButtonModel", description=description) if path in kernel.widgets.states[cid].get("tooltip", "") or description == "Keep"]
    assert found, f"no {description} button for {path}"
    return found[0]


def _click_and_wait(kernel, run, comm_id: str, updates: list) -> dict:
    seen = len(updates)
    kernel.click(comm_id)
    kernel.wait_for(run, lambda: kernel.widgets.states[comm_id].get("disabled") is True and len(updates) > seen)
    return updates[-1]


def test_each_file_is_undone_or_kept_on_its_own(kernel):
    cwd = kernel.cwd
    (cwd / "fe_a.txt").write_text("x = 1\ny = 2\n")
    (cwd / "fe_b.txt").write_text("old b\n")
    (cwd / "fe_log.txt").write_text("log\n")
    _notebook(cwd / "fe_nb.ipynb")
    run = _run(
        kernel,
        tool_use("Read", {"file_path": str(cwd / "fe_a.txt")}),
        tool_use("Edit", {"file_path": str(cwd / "fe_a.txt"), "old_string": "y = 2", "new_string": "y = 3"}),
        tool_use("Write", {"file_path": str(cwd / "fe_new.txt"), "content": "brand new\n"}),
        tool_use("Read", {"file_path": str(cwd / "fe_b.txt")}),
        tool_use("Write", {"file_path": str(cwd / "fe_b.txt"), "content": "new b\n"}),
        tool_use("Read", {"file_path": str(cwd / "fe_nb.ipynb")}),
        tool_use("NotebookEdit", {"notebook_path": str(cwd / "fe_nb.ipynb"), "cell_id": "fe-cell", "new_source": "fe_n = 2"}),
        tool_use("Bash", {"command": "echo more >> fe_log.txt"}),
    )
    assert not [c for c in kernel.server.requests[-1]["messages"][-2]["content"] if c.get("is_error")], "a tool call failed"
    card = _card(run)
    plain = card["data"]["text/plain"]
    assert plain.startswith("Files this run's edits changed (4):"), plain
    for line in ("- fe_a.txt: +1 −1", "- fe_b.txt: +1 −1", "- fe_new.txt: new file, 1 lines", "- fe_nb.ipynb: +"):
        assert line in plain, plain
    assert "fe_log.txt" not in plain  # Bash's changes are the run card's (rewind), not this card's
    assert "-y = 2" in plain and "+y = 3" in plain and "-fe_n = 1" in plain and "+fe_n = 2" in plain
    assert '"source"' not in plain  # a notebook's diff is of its cells, not its JSON and "application/vnd.jupyter.widget-view+json" in card["data"]
    display_id = card["transient"]["display_id"]
    updates: list[dict] = []
    kernel.observers.append(lambda m: updates.append(m["content"]) if m["msg_type"] == "update_display_data" and m["content"].get("transient", {}).get("display_id") == display_id else None)

    (cwd / "fe_b.txt").write_text("the user's b\n")  # the user goes on after the run
    _click_and_wait(kernel, run, _button(kernel, "Undo", "fe_a.txt"), updates)
    assert (cwd / "fe_a.txt").read_text() == "x = 1\ny = 2\n"
    assert (cwd / "fe_new.txt").exists() and (cwd / "fe_log.txt").read_text() == "log\nmore\n"  # the others stay

    _click_and_wait(kernel, run, _button(kernel, "Undo", "fe_new.txt"), updates)
    assert not (cwd / "fe_new.txt").exists()
    _click_and_wait(kernel, run, _button(kernel, "Undo", "fe_b.txt"), updates)
    assert (cwd / "fe_b.txt").read_text() == "the user's b\n"
    last = _click_and_wait(kernel, run, _button(kernel, "Undo", "fe_nb.ipynb"), updates)
    assert nbformat.read(cwd / "fe_nb.ipynb", as_version=4).cells[0].source == "fe_n = 1"

    saved = last["data"]["text/plain"]
    assert "- fe_a.txt: +1 −1, 6 lines — undone: back to before the run" in saved, saved
    assert "- fe_new.txt: new file, 1 lines — undone: removed (the run created it)" in saved, saved
    assert "- fe_nb.ipynb: +1 −1, 6 lines — undone: back to before the run" in saved, saved
    assert "- fe_b.txt: +1 −1, 5 lines — changed since the run: left as it is" in saved, saved
    assert "undone: back to before the run" in last["data"]["text/html"]


def test_keep_leaves_the_file_and_ends_the_choice(kernel):
    cwd = kernel.cwd
    (cwd / "fk_a.txt").write_text("a = 1\n")
    run = _run(
        kernel,
        tool_use("Read", {"file_path": str(cwd / "fk_a.txt")}),
        tool_use("Edit", {"file_path": str(cwd / "fk_a.txt"), "old_string": "a = 1", "new_string": "a = 2"}),
    )
    display_id = _card(run)["transient"]["display_id"]
    updates: list[dict] = []
    kernel.observers.append(lambda m: updates.append(m["content"]) if m["msg_type"] == "update_display_data" and m["content"].get("transient", {}).get("display_id") == display_id else None)
    keep = kernel.widgets.find(_model_name="ButtonModel", description="Keep", disabled=False)[-1]
    last = _click_and_wait(kernel, run, keep, updates)
    assert "- fk_a.txt: +1 −1, 5 lines — kept" in last["data"]["text/plain"]
    undo = next(cid for cid in kernel.widgets.find(_model_name="ButtonModel", description="Undo") if "fk_a.txt" in kernel.widgets.states[cid].get("tooltip", ""))
    assert kernel.widgets.states[undo]["disabled"] is True
    assert (cwd / "fk_a.txt").read_text() == "a = 2\n"


def test_a_run_that_edits_no_file_has_no_card(kernel):
    run = _run(kernel, tool_use("Bash", {"command": "echo hi > fn_out.txt"}))
    assert not [m for m in run.of_type("display_data") if "Files this run" in m["content"]["data"].get("text/plain", "")]
