"""Audit defect 7: a hook entry in the older flat form (``{"command": ..., "blocking":
true}`` with no ``hooks`` list, as seed 001 §2.9 shows it) is not dropped silently."""

from __future__ import annotations

from nb_agent.hooks import Hooks


def test_a_flat_entry_is_reported_with_the_file_that_holds_it() -> None:
    section = {
        "Stop": [{"command": "npm run lint --quiet", "blocking": True}],
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}],
    }
    hooks, warnings = Hooks.from_settings(section, source="project", path="/repo/.claude/settings.json")
    assert [h.event for h in hooks.describe()] == ["PreToolUse"], "the flat entry is not run: its meaning is not Claude Code's"
    assert warnings == [
        "/repo/.claude/settings.json: hooks.Stop: an entry has no 'hooks' list (the older flat form "
        '{"command": "npm run lint --quiet"}); write it as {"hooks": [{"type": "command", "command": ...}]}; ignored'
    ]
