"""The model's side of permissions_and_hooks.ipynb (see _common.py and record.py)."""

from _common import text, tool_use, turn

MEAN_RETURN = "    return sum(values) / len(values)\n"
FIRST_MEDIAN = '''\
    return sum(values) / len(values)


def median(values):
    """The middle value of a non-empty list of numbers."""
    ordered = sorted(values)
    return ordered[len(ordered) // 2]
'''
BUGGY_LINE = "    return ordered[len(ordered) // 2]\n"
FIXED_LINES = """\
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2
"""


def turns() -> list:
    return [
        # A deny rule: Read(.env)
        turn(lambda cwd: [tool_use("Read", {"file_path": f"{cwd}/.env"}, id="toolu_ph_01")]),
        turn(lambda cwd: [text(
            "I can't show it: reading `.env` is denied by a rule in this project's `.claude/settings.json` "
            "(`Read(.env)`), which usually means it holds secrets. If you need a value from it, open the file yourself."
        )]),
        # The Stop hook: a first median() that fails the checks, then the fix
        turn(lambda cwd: [tool_use("Read", {"file_path": f"{cwd}/stats.py"}, id="toolu_ph_02")]),
        turn(lambda cwd: [tool_use(
            "Edit", {"file_path": f"{cwd}/stats.py", "old_string": MEAN_RETURN, "new_string": FIRST_MEDIAN}, id="toolu_ph_03"
        )]),
        turn(lambda cwd: [text("Added `median()` to `stats.py`: it sorts the values and returns the middle one.")]),
        turn(lambda cwd: [
            text("The check caught a bug: for an even number of values the median is the mean of the two middle ones."),
            tool_use(
                "Edit", {"file_path": f"{cwd}/stats.py", "old_string": BUGGY_LINE, "new_string": FIXED_LINES}, id="toolu_ph_04"
            ),
        ]),
        turn(lambda cwd: [tool_use(
            "Bash", {"command": "python3 check.py", "description": "Run the project's checks"}, id="toolu_ph_05"
        )]),
        turn(lambda cwd: [text(
            "Fixed. `median()` now averages the two middle values when the list has an even length, "
            "and all three checks pass."
        )]),
        # The PreToolUse hook and the session deny rule
        turn(lambda cwd: [tool_use(
            "Bash", {"command": "pip install numpy", "description": "Install numpy"}, id="toolu_ph_06"
        )]),
        turn(lambda cwd: [
            text("The project blocks package installs, so I'll keep the standard-library `median()`, which already "
                 "passes the checks and has its docstring, as the project's conventions ask. Now the cache folder:"),
            tool_use("Bash", {"command": "rm -rf __pycache__", "description": "Delete the bytecode cache"}, id="toolu_ph_07"),
        ]),
        turn(lambda cwd: [text(
            "I did neither:\n\n"
            "- **numpy** was not installed: the project's PreToolUse hook blocks package installs (its dependencies "
            "are pinned by the maintainers). `median()` stays in plain Python; it is correct and tested.\n"
            "- **`__pycache__`** was not deleted: `rm` is denied by a rule of this session (`Bash(rm:*)`). "
            "It only holds bytecode Python regenerates, so it is harmless to leave, or to delete yourself."
        )]),
    ]
