"""The symbols a run shows in the page, in the saved notebook and in plain-text outputs.

Each is a character Debian's default fonts (DejaVu, Liberation) have: ⏹ ⏺ ⎿ ⏵⏵ ⏸ are in
none of them, and chromium drew them as empty boxes. tests/browser/test_glyphs.py checks
every one in a real page.
"""

from __future__ import annotations

STOP = "■"
"""A run stopped (by the user, a restart)."""
TOOL_CALL = "●"
"""A tool call, in plain text (Claude Code's terminal draws ⏺)."""
TOOL_RESULT = "└"
"""Its result, on the next line (Claude Code's terminal draws ⎿)."""

STATUS_ICONS = {
    "done": "✓",
    "error": "✗",
    "denied": "⊘",
    "interrupted": STOP,
    "queued": "…",
    "running": "…",
    "waiting for approval": "?",
}
"""A tool call's status, before its name."""

ALL = (STOP, TOOL_CALL, TOOL_RESULT, *STATUS_ICONS.values())
