"""Matcher semantics (Claude Code's): exact name, alternation, ``*``/empty, regular expression."""

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
        ("[unclosed", "[unclosed", True),
        ("[unclosed", "other", False),
    ],
)
def test_matcher(matcher, tool, expected):
    assert matcher_matches(matcher, tool) is expected


def test_events_without_a_tool_ignore_the_matcher():
    assert matcher_matches("Bash", None)


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
