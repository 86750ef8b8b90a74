"""Custom agents from ``.claude/agents/*.md``: good files, broken files, precedence, trust."""

from __future__ import annotations

from pathlib import Path

import pytest

from nb_agent.agents import load_agent_catalog, parse_agent_text
from nb_agent.errors import AgentDefinitionError

GOOD = """---
name: csv-checker
description: Checks CSV files for missing dates
tools: Read, Grep, Glob, Agent(explore, plan)
disallowedTools: [Bash]
model: haiku
permissionMode: acceptEdits
maxTurns: 7
mcpServers: [db]
---
You check CSV files.

Report each file with its missing dates.
"""


def write_agent(directory: Path, name: str, text: str) -> Path:
    path = directory / ".claude" / "agents" / f"{name}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_a_complete_file_is_parsed():
    agent = parse_agent_text(GOOD, source="project")
    assert agent.name == "csv-checker"
    assert agent.description == "Checks CSV files for missing dates"
    assert agent.tools == ("Read", "Grep", "Glob", "Agent(explore, plan)")
    assert agent.disallowed_tools == ("Bash",)
    assert agent.model == "haiku" and agent.permission_mode == "acceptEdits" and agent.max_turns == 7
    assert agent.mcp_servers == ("db",)
    assert agent.prompt == "You check CSV files.\n\nReport each file with its missing dates."


def test_star_and_missing_tools_mean_all_tools():
    minimal = "---\nname: a\ndescription: b\n---\nbody"
    assert parse_agent_text(minimal, source="user").tools is None
    assert parse_agent_text(minimal.replace("description: b", "description: b\ntools: '*'"), source="user").tools is None


def test_model_inherit_means_the_parents_model():
    agent = parse_agent_text("---\nname: a\ndescription: b\nmodel: inherit\n---\nbody", source="user")
    assert agent.resolved_model("claude-opus-4-6") == "claude-opus-4-6"
    assert agent.resolved_model("claude-opus-4-6", "claude-haiku-4-5") == "claude-haiku-4-5"


BROKEN = {
    "no_frontmatter": ("just text", "frontmatter"),
    "unclosed": ("---\nname: a\ndescription: b\nbody", "closing"),
    "bad_yaml": ("---\nname: [a\ndescription: b\n---\nbody", "invalid YAML"),
    "not_mapping": ("---\n- a\n- b\n---\nbody", "mapping"),
    "no_name": ("---\ndescription: b\n---\nbody", "'name'"),
    "empty_description": ("---\nname: a\ndescription: ''\n---\nbody", "'description'"),
    "bad_mode": ("---\nname: a\ndescription: b\npermissionMode: yolo\n---\nbody", "permissionMode"),
    "bad_turns": ("---\nname: a\ndescription: b\nmaxTurns: -2\n---\nbody", "maxTurns"),
    "bool_turns": ("---\nname: a\ndescription: b\nmaxTurns: true\n---\nbody", "maxTurns"),
    "bad_tools": ("---\nname: a\ndescription: b\ntools: 3\n---\nbody", "tools"),
    "bad_mcp": ("---\nname: a\ndescription: b\nmcpServers: 5\n---\nbody", "mcpServers"),
    "empty_body": ("---\nname: a\ndescription: b\n---\n  \n", "body"),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_broken_texts_raise_a_clear_error(case):
    text, expected = BROKEN[case]
    with pytest.raises(AgentDefinitionError, match=expected):
        parse_agent_text(text, source="project")


def test_a_broken_file_is_reported_with_its_path_and_skipped(project, home):
    good = write_agent(project, "good", GOOD)
    broken = write_agent(project, "broken", BROKEN["bad_yaml"][0])
    binary = project / ".claude" / "agents" / "binary.md"
    binary.write_bytes(b"---\xff\xfe\n")
    catalog = load_agent_catalog(cwd=project, home=home)
    assert catalog.find("csv-checker") is not None and catalog.find("csv-checker").path == good
    assert len(catalog.issues) == 2
    assert any(str(broken) in issue and "invalid YAML" in issue for issue in catalog.issues)
    assert any(str(binary) in issue and "UTF-8" in issue for issue in catalog.issues)
    assert {"general-purpose", "Explore", "Plan"} <= set(catalog.names)


def test_project_overrides_user_overrides_built_in(project, home):
    write_agent(home, "explore", "---\nname: Explore\ndescription: user explore\n---\nmine")
    write_agent(home, "helper", "---\nname: helper\ndescription: user helper\n---\nuser")
    write_agent(project, "helper", "---\nname: helper\ndescription: project helper\n---\nproject")
    catalog = load_agent_catalog(cwd=project, home=home)
    assert catalog.find("Explore").description == "user explore" and catalog.find("Explore").source == "user"
    assert catalog.find("helper").prompt == "project" and catalog.find("helper").source == "project"
    assert catalog.find("explore") is catalog.find("Explore"), "names are found case-insensitively"


def test_untrusted_project_agents_are_not_loaded(project, home):
    write_agent(project, "helper", "---\nname: helper\ndescription: project helper\n---\nproject")
    write_agent(home, "mine", "---\nname: mine\ndescription: user agent\n---\nuser")
    catalog = load_agent_catalog(cwd=project, home=home, include_project=False)
    assert catalog.find("helper") is None and catalog.find("mine") is not None
    assert any("not trusted" in issue for issue in catalog.issues)


def test_create_engine_reports_broken_agent_files(project, home):
    from nb_agent.agent import create_engine

    broken = write_agent(project, "broken", BROKEN["no_name"][0])
    write_agent(project, "good", GOOD)
    engine, warnings = create_engine(cwd=project, home=home, mcp=False, trust=True)
    assert any(str(broken) in w for w in warnings)
    agent_tool = next(t for t in engine.tools if t.name == "Agent")
    assert "- csv-checker: Checks CSV files for missing dates" in agent_tool.prompt()
