"""Matcher semantics (Claude Code's): exact name, alternation, ``*``/empty, regular expression
searched in the match query (tool name, SessionStart source, PreCompact trigger, ...)."""

from __future__ import annotations

import pytest

from nb_agent.hooks import HookInput, Hooks
from nb_agent.hooks.registry import matcher_matches


@pytest.mark.parametrize(
    ("matcher", "tool", "expected"),
    [
        ("Bash", "Bash", True),
        ("Bash", "BashOutput", False),
        ("Edit|Write", "Write", True),
        ("Edit|Write", "Edit", True),
        ("Edit|Write", "MultiEdit", False),
        ("*", "Anything", True),
        ("", "Anything", True),
        (None, "Anything", True),
        ("Notebook.*", "NotebookEdit", True),
        ("Notebook.*", "Read", False),
        ("mcp__github__.*", "mcp__github__create_issue", True),
        ("mcp__github__.*", "mcp__slack__post", False),
        (".*Edit", "NotebookEdit", True),
        ("Edit|Write", "Edit|Write", False),
        ("Edit | Write", "Write", False),  # a space makes it a regex: "Edit " or " Write"
        ("Write", "NotebookWrite", False),  # a plain name is exact, never a substring
        ("Edit.*", "NotebookEdit", True),  # a regex is searched, as Claude Code's RegExp.test
        ("^Edit$", "NotebookEdit", False),
        ("mcp__memory__.*", "mcp__memory__create_entities", True),
        ("mcp__.*__write.*", "mcp__fs__write_file", True),
        ("mcp__.*__write.*", "mcp__fs__read_file", False),
        ("mcp__my-server__query", "mcp__my-server__query", True),
        ("startup|resume", "resume", True),
        ("startup|resume", "compact", False),
        ("manual", "auto", False),
        ("permission_prompt", "permission_prompt", True),
        ("[unclosed", "[unclosed", False),  # an invalid regex matches nothing (and is reported)
        ("[unclosed", "other", False),
    ],
)
def test_matcher(matcher, tool, expected):
    assert matcher_matches(matcher, tool) is expected


def test_events_without_a_match_query_ignore_the_matcher():
    assert matcher_matches("Bash", None)
    assert HookInput(hook_event_name="UserPromptSubmit", prompt="x").match_query is None
    assert HookInput(hook_event_name="Stop").match_query is None


@pytest.mark.parametrize(
    ("hook_input", "query"),
    [
        (HookInput(hook_event_name="PreToolUse", tool_name="Bash"), "Bash"),
        (HookInput(hook_event_name="PostToolUseFailure", tool_name="Edit"), "Edit"),
        (HookInput(hook_event_name="SessionStart", source="compact"), "compact"),
        (HookInput(hook_event_name="SessionEnd", reason="clear"), "clear"),
        (HookInput(hook_event_name="PreCompact", trigger="auto"), "auto"),
        (HookInput(hook_event_name="Notification", notification_type="idle_prompt"), "idle_prompt"),
        (HookInput(hook_event_name="SubagentStop", agent_type="Explore"), "Explore"),
    ],
)
def test_match_query_per_event(hook_input, query):
    assert hook_input.match_query == query


def test_an_invalid_regex_matcher_is_reported_once_by_name():
    section = {"PreToolUse": [{"matcher": "[bad", "hooks": [{"type": "command", "command": "true"}]}] * 3}
    _, warnings = Hooks.from_settings(section, path="/p/.claude/settings.json")
    assert len(warnings) == 1 and "[bad" in warnings[0] and "/p/.claude/settings.json" in warnings[0]


async def test_session_start_matcher_selects_by_source():
    ran = []

    async def hook(hook_input):
        ran.append(hook_input.source)

    hooks = Hooks()
    hooks.add("SessionStart", hook, matcher="startup|clear")
    for source in ("startup", "resume", "clear", "compact"):
        await hooks.run("SessionStart", HookInput(hook_event_name="SessionStart", source=source))
    assert ran == ["startup", "clear"]


async def test_only_matching_hooks_run():
    ran = []

    def hook(name):
        async def run(hook_input):
            ran.append(name)

        return run

    hooks = Hooks()
    hooks.add("PreToolUse", hook("bash"), matcher="Bash")
    hooks.add("PreToolUse", hook("edits"), matcher="Edit|Write")
    hooks.add("PreToolUse", hook("all"), matcher="*")
    hooks.add("PreToolUse", hook("regex"), matcher="Wr.*")
    await hooks.run("PreToolUse", HookInput(hook_event_name="PreToolUse", tool_name="Write"))
    assert sorted(ran) == ["all", "edits", "regex"]
    ran.clear()
    await hooks.run("PreToolUse", HookInput(hook_event_name="PreToolUse", tool_name="Bash"))
    assert sorted(ran) == ["all", "bash"]
