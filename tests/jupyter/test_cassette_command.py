"""``%agent cassette PATH``: a notebook records its model traffic and replays it from
another directory, through new engines (resume) too, with no model server involved."""

from __future__ import annotations

import re
import shutil

from nb_agent.testing import Reply, text, tool_use

CELLS = [
    "%agent notebook {notebook}",
    "%agent cassette cassettes/demo.json",
    "%%agent\nwhat does notes.txt say?",
    "%reload_ext nb_agent\n%agent notebook {notebook}",  # a fresh agent, as after a restart
    "%agent resume",
    "%%agent\nand in one word?",
    "%agent cassette",
]


def _play(kernel, notebook, *, mode: str) -> list:
    (kernel.cwd / "notes.txt").write_text("the answer is 42\n")
    assert kernel.run(f"%env NB_AGENT_CASSETTE_MODE={mode}").status == "ok"
    runs = [kernel.run(cell.format(notebook=notebook)) for cell in CELLS]
    assert [r.status for r in runs] == ["ok"] * len(CELLS), [r.errors for r in runs]
    assert "Resumed session" in runs[4].stdout, runs[4].stdout
    return runs


def test_record_then_replay_from_another_directory(make_kernel, model_server) -> None:
    recorder = make_kernel("recording")
    assert recorder.run("%load_ext nb_agent").status == "ok"
    notebook = recorder.cwd / "nb" / "demo.ipynb"
    notebook.parent.mkdir()
    model_server.script.add(
        lambda request: Reply(content=[tool_use("Read", {"file_path": str(recorder.cwd / "notes.txt")})]),
        Reply(content=[text("It says the answer is 42.")]),
        Reply(content=[text("Fortytwo.")]),
    )
    recorded = _play(recorder, notebook, mode="record")
    cassette = notebook.parent / "cassettes" / "demo.json"  # relative to the notebook, not the kernel's cwd
    assert cassette.exists() and str(recorder.cwd) not in cassette.read_text()
    assert "Recording the model's traffic to cassettes/demo.json" in recorded[1].stdout
    assert "recorded 3 requests" in recorded[-1].stdout

    replayer = make_kernel("replaying")
    assert replayer.run("%load_ext nb_agent").status == "ok"
    copy = replayer.cwd / "elsewhere" / "demo.ipynb"
    (copy.parent / "cassettes").mkdir(parents=True)
    shutil.copy(cassette, copy.parent / "cassettes" / "demo.json")
    requests_before = len(model_server.requests)
    replayed = _play(replayer, copy, mode="replay")
    assert len(model_server.requests) == requests_before  # nothing reached the model server
    assert "Replaying the model's side of this notebook from cassettes/demo.json (3 recorded requests" in replayed[1].stdout
    for index in (2, 5):  # the same rendering but for how long the run took (its summary line's end)
        assert "<time>*" in _untimed(replayed[index].final_bundle["text/markdown"])
        assert _untimed(replayed[index].final_bundle["text/markdown"]) == _untimed(
            recorded[index].final_bundle["text/markdown"].replace(str(recorder.cwd), str(replayer.cwd))
        )
    assert "done" in replayed[2].final_bundle["text/markdown"]  # the Read found the replaying kernel's notes.txt
    assert "replayed 3 of 3 recorded requests" in replayed[-1].stdout


def _untimed(markdown: str) -> str:
    """``markdown`` without the run's time (the summary line ends ``· $0.0009 · 1.5s*``)."""
    return re.sub(r"( · \\\$\d+\.\d{4} · )(\d+\.\ds|\d+m\d\ds)\*$", r"\1<time>*", markdown)


def test_a_missing_cassette_or_a_late_choice_is_explained(kernel) -> None:
    kernel.run("%env NB_AGENT_CASSETTE_MODE=replay")
    try:
        missing = kernel.run("%agent cassette nowhere/none.json")
        assert "Cannot use the cassette: no cassette to replay at" in missing.stdout
        kernel.server.script.add(Reply(content=[text("hello")]))
        kernel.run("%env NB_AGENT_CASSETTE_MODE=auto")
        assert kernel.run("%%agent\nhi").status == "ok"  # the engine exists now
        late = kernel.run("%agent cassette other.json")
        assert "before the first %%agent cell" in late.stdout
    finally:
        kernel.run("%env NB_AGENT_CASSETTE_MODE=auto")
