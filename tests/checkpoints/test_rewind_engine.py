"""Rewinding a run of the engine, against the fake Messages API over HTTP: the files Bash and
Write wrote, deleted and appended to come back; the conversation is cut (the next request
no longer carries the rewound prompt; a resumed session is the rewound one); the user's
later changes are kept; a redo; the model is told when only one side was rewound."""

from __future__ import annotations

from pathlib import Path

import pytest

from nb_agent.agent import create_engine
from nb_agent.checkpoints.rewinding import apply_redo, apply_rewind, choose, plan_rewind
from nb_agent.checkpoints.store import CheckpointSettings, CheckpointStore
from nb_agent.engine import QueryEngine
from nb_agent.errors import CheckpointError
from nb_agent.model.transport import AnthropicTransport
from nb_agent.testing import FakeAnthropicServer, Reply, text, tool_use
from nb_agent.testing.collect import collect

FIRST = "tidy the data folder"


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    work = tmp_path / "project"
    work.mkdir()
    (work / "sales.csv").write_text("month,revenue\n1,10\n")
    (work / "old.txt").write_text("old notes\n")
    (work / "keep.txt").write_text("mine\n")
    return work


@pytest.fixture
async def server():
    async with FakeAnthropicServer([]) as fake:
        yield fake


def _engine(workdir: Path, server, tmp_path: Path, **kwargs) -> QueryEngine:
    store = CheckpointStore(settings=CheckpointSettings(root=lambda: tmp_path / "checkpoints"))
    engine, _ = create_engine(cwd=workdir, transport=AnthropicTransport(client=server.client()), permission_mode="bypassPermissions", mcp=False, agents=False, checkpoints=store, **kwargs)
    return engine


def _first_run_script(server, workdir: Path) -> None:
    server.script.add(
        Reply(content=[tool_use("Bash", {"command": "echo '2,20' >> sales.csv && rm old.txt && echo done"})]),
        Reply(content=[tool_use("Write", {"file_path": str(workdir / "report.md"), "content": "# Report\n"})]),
        Reply(content=[text("Tidied.")]),
    )


async def test_a_run_is_rewound_files_and_conversation(workdir, server, tmp_path):
    engine = _engine(workdir, server, tmp_path)
    server.script.add(Reply(content=[text("Hello.")]))
    await collect(engine, "hello")
    _first_run_script(server, workdir)
    out = await collect(engine, FIRST)
    assert out.result.subtype == "success"
    assert (workdir / "report.md").exists() and not (workdir / "old.txt").exists()
    store = engine.checkpoints
    assert [c.id for c in store.checkpoints()] == ["1", "2", "2.2", "2.3"]
    plan = await plan_rewind(store, engine, choose(store, None, code=True, conversation=True), code=True, conversation=True)
    assert sorted(plan.files.changes) == ["old.txt: brought back (the agent deleted it)", "report.md: removed (the agent created it)", "sales.csv: back to its earlier version"]
    assert plan.messages > 0
    report = await apply_rewind(store, engine, plan)
    assert (workdir / "sales.csv").read_text() == "month,revenue\n1,10\n"
    assert (workdir / "old.txt").read_text() == "old notes\n" and not (workdir / "report.md").exists()
    assert "files: old.txt brought back; sales.csv back to its earlier version; report.md removed" in report.lines()
    server.script.add(Reply(content=[text("What next?")]))
    before = len(server.requests)
    await collect(engine, "something else")
    sent = str(server.requests[before]["messages"])
    assert FIRST not in sent and "hello" in sent and "something else" in sent
    resumed, _ = QueryEngine.resume(engine.transcript_path)
    texts = [str(m.content) for m in resumed.messages if m.type == "user"]
    assert not any(FIRST in t for t in texts) and any("something else" in t for t in texts)


async def test_what_the_user_changed_after_the_run_is_kept(workdir, server, tmp_path):
    engine = _engine(workdir, server, tmp_path)
    _first_run_script(server, workdir)
    await collect(engine, FIRST)
    (workdir / "sales.csv").write_text("month,revenue\n1,10\n2,20\n3,30\n")  # the user goes on
    store = engine.checkpoints
    report = await apply_rewind(store, engine, await plan_rewind(store, engine, choose(store, None, code=True, conversation=True), code=True, conversation=True))
    assert "kept: sales.csv — you changed it after the run" in report.lines()
    assert (workdir / "sales.csv").read_text().endswith("3,30\n")
    assert (workdir / "old.txt").exists() and not (workdir / "report.md").exists()


async def test_a_redo_puts_back_what_the_rewind_replaced(workdir, server, tmp_path):
    engine = _engine(workdir, server, tmp_path)
    _first_run_script(server, workdir)
    await collect(engine, FIRST)
    store = engine.checkpoints
    messages = len(engine.messages)
    await apply_rewind(store, engine, await plan_rewind(store, engine, choose(store, None, code=True, conversation=True), code=True, conversation=True))
    report = await apply_redo(store, engine)
    assert (workdir / "report.md").read_text() == "# Report\n" and not (workdir / "old.txt").exists()
    assert len(engine.messages) == messages and report.conversation
    with pytest.raises(CheckpointError, match="Nothing to redo"):
        await apply_redo(store, engine)


async def test_code_only_tells_the_model_and_keeps_the_conversation(workdir, server, tmp_path):
    engine = _engine(workdir, server, tmp_path)
    _first_run_script(server, workdir)
    await collect(engine, FIRST)
    store = engine.checkpoints
    await apply_rewind(store, engine, await plan_rewind(store, engine, choose(store, None, code=True, conversation=False), code=True, conversation=False))
    assert not (workdir / "report.md").exists()
    server.script.add(Reply(content=[text("ok")]))
    before = len(server.requests)
    await collect(engine, "go on")
    sent = str(server.requests[before]["messages"])
    assert FIRST in sent and "the files and the notebook to before run 1" in sent


async def test_a_turn_checkpoint_goes_back_to_the_middle_of_a_run(workdir, server, tmp_path):
    engine = _engine(workdir, server, tmp_path)
    _first_run_script(server, workdir)
    await collect(engine, FIRST)
    store = engine.checkpoints
    plan = await plan_rewind(store, engine, choose(store, "1.2", code=True, conversation=True), code=True, conversation=True)
    assert plan.files.changes == ["report.md: removed (the agent created it)"]  # Bash's changes came in turn 1
    await apply_rewind(store, engine, plan)
    assert not (workdir / "report.md").exists() and not (workdir / "old.txt").exists()
    assert engine.messages[-1].type == "user"  # the tool results of turn 1 end the conversation


async def test_nothing_to_rewind_and_unknown_ids_say_so(workdir, server, tmp_path):
    engine = _engine(workdir, server, tmp_path)
    store = engine.checkpoints
    with pytest.raises(CheckpointError, match="Nothing to rewind"):
        choose(store, None, code=True, conversation=True)
    server.script.add(Reply(content=[text("hi")]))
    await collect(engine, "hello")
    with pytest.raises(CheckpointError, match="No checkpoint '7'.*\\(1\\)"):
        choose(store, "7", code=True, conversation=True)


async def test_a_resumed_session_can_rewind_files_and_conversation(workdir, server, tmp_path):
    engine = _engine(workdir, server, tmp_path)
    _first_run_script(server, workdir)
    await collect(engine, FIRST)
    engine.close()
    store = CheckpointStore(settings=CheckpointSettings(root=lambda: tmp_path / "checkpoints"))
    resumed, _ = QueryEngine.resume(engine.transcript_path, config=engine.config, checkpoints=store, transport=AnthropicTransport(client=server.client()))
    assert [c.id for c in store.checkpoints()] == ["1", "1.2", "1.3"]
    plan = await plan_rewind(store, resumed, choose(store, None, code=True, conversation=True), code=True, conversation=True)
    report = await apply_rewind(store, resumed, plan)
    assert not (workdir / "report.md").exists() and (workdir / "old.txt").exists()
    assert resumed.messages == [] and report.conversation


async def test_file_checkpoints_that_cannot_be_stored_are_turned_off_with_a_warning(workdir, server, tmp_path):
    blocked = tmp_path / "not-a-directory"
    blocked.write_text("a file where the checkpoints would go")
    store = CheckpointStore(settings=CheckpointSettings(root=lambda: blocked))
    engine, _ = create_engine(cwd=workdir, transport=AnthropicTransport(client=server.client()), permission_mode="bypassPermissions", mcp=False, agents=False, checkpoints=store)
    _first_run_script(server, workdir)
    out = await collect(engine, FIRST)
    assert out.result.subtype == "success"
    warnings = [e.content for e in out.events if getattr(e, "type", None) == "system" and e.level == "warning"]
    assert len(warnings) == 1 and "file checkpoints of" in warnings[0] and "Nothing of yours was changed" in warnings[0]
    assert (workdir / "report.md").exists() and blocked.read_text().startswith("a file")
    plan = await plan_rewind(store, engine, choose(store, None, code=True, conversation=True), code=True, conversation=True)
    assert plan.files.not_restorable and "file checkpoints of" in plan.files.not_restorable[0]
    await apply_rewind(store, engine, plan)
    assert (workdir / "report.md").exists()  # not restorable: left as it is, and said
