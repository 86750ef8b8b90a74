"""The Skill tool: the model loads a skill's body and learns its files."""

from __future__ import annotations

import json
from pathlib import Path

from nb_agent.agent import create_engine
from nb_agent.engine import EngineConfig, EngineOptions
from nb_agent.model.retry import NO_RETRIES
from nb_agent.testing import Reply, ScriptedTransport, text, tool_use
from nb_agent.testing.collect import collect, tool_results_sent


def _engine(tmp_path: Path, turns):
    home, project = tmp_path / "home", tmp_path / "project"
    skill = home / ".claude" / "skills" / "tidy-report"
    (skill / "templates").mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\ndescription: Tidy a notebook into a report.\n---\nTidy ${CLAUDE_SKILL_DIR}, focusing on $ARGUMENTS.\nSee templates/report.md."
    )
    (skill / "templates" / "report.md").write_text("# Report")
    manual = home / ".claude" / "skills" / "publish"
    manual.mkdir()
    (manual / "SKILL.md").write_text("---\ndescription: Publish.\ndisable-model-invocation: true\n---\nPublish it.")
    project.mkdir()
    transport = ScriptedTransport(turns)
    config = EngineConfig(cwd=project, model="claude-sonnet-4-6", options=EngineOptions(retry_policy=NO_RETRIES))
    engine, _ = create_engine(config=config, transport=transport, home=home, agents=False, mcp=False)
    return engine, transport, skill


async def test_the_model_loads_a_skill_with_its_arguments_and_files(tmp_path) -> None:
    turns = [
        Reply(content=[tool_use("Skill", {"skill": "tidy-report", "args": "the charts"}, id="t1")]),
        Reply(content=[tool_use("Skill", {"skill": "publish"}, id="t2")]),
        Reply(content=[tool_use("Skill", {"skill": "nope"}, id="t3")]),
        Reply(content=[text("done")]),
    ]
    engine, transport, skill = _engine(tmp_path, turns)
    out = await collect(engine, "tidy this notebook")
    assert out.result.subtype == "success"
    results = _sent(transport)
    loaded = results["t1"]["text"]
    assert not results["t1"].get("is_error")
    assert loaded.startswith(f"Base directory for this skill: {skill}\n\nTidy {skill}, focusing on the charts.")
    assert f"- {skill / 'templates' / 'report.md'}" in loaded and "SKILL.md" not in loaded.split("Files in")[1]
    assert results["t2"].get("is_error") and "can only be invoked by the user" in results["t2"]["text"]
    assert results["t3"].get("is_error") and "Skill 'nope' not found. Available skills: tidy-report" in results["t3"]["text"]
    listing = json.dumps(transport.requests[0]["messages"][:2])
    assert "- tidy-report: Tidy a notebook into a report." in listing and "publish" not in listing


def _sent(transport) -> dict[str, dict]:
    return tool_results_sent(transport.requests)
