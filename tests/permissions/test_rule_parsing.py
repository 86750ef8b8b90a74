"""Parsing rules written in Claude Code syntax."""

from pathlib import Path

import pytest

from nb_agent.errors import ConfigurationError
from nb_agent.permissions.rules import parse_rule


@pytest.mark.parametrize(
    ("text", "tool_name", "content"),
    [
        ("Bash", "Bash", None),
        ("Bash(git status:*)", "Bash", "git status:*"),
        ("Bash(npm run test)", "Bash", "npm run test"),
        ("Bash(*)", "Bash", None),
        ("Bash()", "Bash", None),
        ("Read(**/*.csv)", "Read", "**/*.csv"),
        ("Edit(src/**)", "Edit", "src/**"),
        ("Edit(//etc/**)", "Edit", "//etc/**"),
        ("Read(~/.ssh/**)", "Read", "~/.ssh/**"),
        ("WebFetch(domain:example.com)", "WebFetch", "domain:example.com"),
        ("mcp__github", "mcp__github", None),
        ("mcp__github__create_issue", "mcp__github__create_issue", None),
        ("mcp__github__*", "mcp__github__*", None),
        ("mcp__my-server__do_thing", "mcp__my-server__do_thing", None),
        ("  Bash( ls -la )  ", "Bash", "ls -la"),
        ("Bash(echo (hi))", "Bash", "echo (hi)"),
    ],
)
def test_parses_tool_and_content(text: str, tool_name: str, content: str | None) -> None:
    rule = parse_rule(text)
    assert (rule.tool_name, rule.content) == (tool_name, content)


def test_keeps_behavior_source_and_root() -> None:
    rule = parse_rule("Edit(/src/**)", behavior="deny", source="project", root=Path("/p"))
    assert (rule.behavior, rule.source, rule.root) == ("deny", "project", Path("/p"))


def test_defaults_to_a_session_allow_rule() -> None:
    rule = parse_rule("Bash(ls:*)")
    assert (rule.behavior, rule.source, rule.root) == ("allow", "session", None)


@pytest.mark.parametrize("text", ["Bash", "Bash(git status:*)", "WebFetch(domain:a.io)", "mcp__s__*"])
def test_text_round_trips(text: str) -> None:
    assert parse_rule(text).text == text
    assert str(parse_rule(text)) == text


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("Bash(git status", "parentheses"),
        ("Bash)", "parentheses"),
        ("Bash(ls)extra", "parentheses"),
        ("(ls)", "not a tool name"),
        ("Ba sh", "not a tool name"),
        ("Bash!", "not a tool name"),
        ("WebFetch(https://example.com)", "domain:"),
        ("WebFetch(domain:)", "no domain"),
        ("mcp__github__create_issue(x)", "takes no content"),
        ("mcp__", "MCP"),
        ("Bash(:*)", "empty prefix"),
    ],
)
def test_malformed_rules_raise_a_clear_configuration_error(text: str, fragment: str) -> None:
    with pytest.raises(ConfigurationError) as info:
        parse_rule(text)
    assert fragment in str(info.value)
    if text.strip():
        assert repr(text) in str(info.value) or text.strip() in str(info.value)


def test_non_string_rule_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match="must be a string"):
        parse_rule(42)  # type: ignore[arg-type]
