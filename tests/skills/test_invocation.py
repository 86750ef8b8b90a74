"""``/name args``: the user invokes a skill or command; its model runs it and its
``allowed-tools`` only ever add asks (never skip one)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nb_agent.agent import create_engine
from nb_agent.engine import EngineConfig, EngineOptions
from nb_agent.model.retry import NO_RETRIES
from nb_agent.skills.invocation import parse_invocation
from nb_agent.testing import Reply, ScriptedTransport, text, tool_use
from nb_agent.testing.collect import collect, tool_results_sent


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def _engine(tmp_path: Path, turns, **kw):
    home, project = tmp_path / "home", tmp_path / "project"
    _write(home / ".claude/commands/review.md", "---\ndescription: Review a file\nmodel: claude-opus-4-6\nallowed-tools: Read, Grep\n---\nReview $0 for $1.\n")
    _write(home / ".claude/commands/anything.md", "---\ndescription: No list\n---\nDo $ARGUMENTS.\n")
    _write(home / ".claude/skills/tidy/SKILL.md", "---\ndescription: Tidy a notebook\nallowed-tools: Read NotebookEdit\n---\nTidy it.\n")
    _write(home / ".claude/skills/shell-ok/SKILL.md", "---\ndescription: May use Bash\nallowed-tools: Bash\n---\nUse the shell.\n")
    _write(project / "notes.txt", "hello\n")
    transport = ScriptedTransport(turns)
    config = EngineConfig(cwd=project, model="claude-sonnet-4-6", options=EngineOptions(retry_policy=NO_RETRIES))
    engine, _ = create_engine(config=config, transport=transport, home=home, agents=False, mcp=False, **kw)
    return engine, transport, project


def _first_prompt(transport) -> str:
    return json.dumps(transport.requests[0]["messages"][-1]["content"])


@pytest.mark.parametrize(
    ("text", "parsed"),
    [("/review a.py 'the login flow'", ("review", "a.py 'the login flow'")), ("/data/sales.csv what is in it?", None), ("review", None), ("/x", ("x", ""))],
)
def test_what_is_an_invocation(text, parsed) -> None:
    assert parse_invocation(text) == parsed


async def test_a_command_becomes_the_prompt_with_its_model(tmp_path) -> None:
    engine, transport, _ = _engine(tmp_path, [Reply(content=[text("ok")])])
    out = await collect(engine, "/review app.py 'the login flow'")
    assert out.result.subtype == "success"
    assert "Review app.py for the login flow." in _first_prompt(transport)
    assert transport.requests[0]["model"] == "claude-opus-4-6"


async def test_text_that_starts_with_a_path_is_sent_as_it_is(tmp_path) -> None:
    engine, transport, _ = _engine(tmp_path, [Reply(content=[text("ok")])])
    await collect(engine, "/review.md is a file name, not a command")
    assert "/review.md is a file name" in _first_prompt(transport)
    assert transport.requests[0]["model"] == "claude-sonnet-4-6"


async def test_allowed_tools_add_asks_for_what_they_do_not_list(tmp_path) -> None:
    turns = [
        Reply(content=[tool_use("Read", {"file_path": str(tmp_path / "project" / "notes.txt")}, id="t_read")]),
        Reply(content=[tool_use("Bash", {"command": "ls"}, id="t_ls")]),
        Reply(content=[text("done")]),
    ]
    engine, transport, _ = _engine(tmp_path, turns)
    await collect(engine, "/review notes.txt typos")
    sent = tool_results_sent(transport.requests)
    assert not sent["t_read"].get("is_error"), "a listed tool runs as the rules say"
    assert sent["t_ls"].get("is_error") and "/review lists only Read, Grep in allowed-tools" in sent["t_ls"]["text"]


async def test_allowed_tools_never_skip_an_ask(tmp_path) -> None:
    turns = [Reply(content=[tool_use("Bash", {"command": "touch made.txt"}, id="t1")]), Reply(content=[text("done")])]
    engine, transport, project = _engine(tmp_path, turns)
    await collect(engine, "/shell-ok")
    assert not (project / "made.txt").exists(), "allowed-tools: Bash does not answer Bash's ask"
    assert "no approver" in tool_results_sent(transport.requests)["t1"]["text"]


async def test_without_allowed_tools_nothing_is_narrowed(tmp_path) -> None:
    turns = [Reply(content=[tool_use("Bash", {"command": "ls"}, id="t1")]), Reply(content=[text("done")])]
    engine, transport, _ = _engine(tmp_path, turns)
    await collect(engine, "/anything list the files")
    assert not tool_results_sent(transport.requests)["t1"].get("is_error")


async def test_a_skill_the_model_loads_narrows_the_rest_of_the_run(tmp_path) -> None:
    turns = [
        Reply(content=[tool_use("Bash", {"command": "ls"}, id="t_before")]),
        Reply(content=[tool_use("Skill", {"skill": "tidy"}, id="t_skill")]),
        Reply(content=[tool_use("Bash", {"command": "ls"}, id="t_after")]),
        Reply(content=[text("done")]),
    ]
    engine, transport, _ = _engine(tmp_path, turns)
    await collect(engine, "tidy this notebook")
    sent = tool_results_sent(transport.requests)
    assert not sent["t_before"].get("is_error") and not sent["t_skill"].get("is_error")
    assert sent["t_after"].get("is_error") and "/tidy lists only Read, NotebookEdit" in sent["t_after"]["text"]
