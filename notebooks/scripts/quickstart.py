"""The model's side of quickstart.ipynb (see _common.py and record.py)."""

from _common import text, tool_use, turn

NEXT_STEPS = """\
# Next steps for v0.3

- [ ] Run the benchmarks on the new CI runner
- [ ] Write the upgrade notes
- [ ] Announce the release on the mailing list
"""


def turns() -> list:
    return [
        # 1. What's in this folder, and what is left to do?
        turn(lambda cwd: [
            text("I'll list the folder and read the checklist."),
            tool_use("Bash", {"command": "ls", "description": "List the files"}, id="toolu_qs_01"),
            tool_use("Read", {"file_path": f"{cwd}/todo.txt"}, id="toolu_qs_02"),
        ]),
        turn(lambda cwd: [text(
            "The folder holds three files: `README.md`, `notes_old.txt` and `todo.txt`, the release checklist "
            "for **v0.3**.\n\n"
            "Two items are done (the changelog and the release-candidate tag). **Three are left:**\n\n"
            "1. Run the benchmarks on the new CI runner\n"
            "2. Write the upgrade notes\n"
            "3. Announce the release on the mailing list"
        )]),
        # 2. Write next_steps.md (asks; pre-answered "allow")
        turn(lambda cwd: [
            tool_use("Write", {"file_path": f"{cwd}/next_steps.md", "content": NEXT_STEPS}, id="toolu_qs_03"),
        ]),
        turn(lambda cwd: [text("Created `next_steps.md` with the three open items as a checklist.")]),
        # 3. Delete notes_old.txt (denied with feedback), then archive it (allowed)
        turn(lambda cwd: [
            text("I'll delete it."),
            tool_use("Bash", {"command": "rm notes_old.txt", "description": "Delete the obsolete notes"}, id="toolu_qs_04"),
        ]),
        turn(lambda cwd: [
            text("Understood, I'll archive it instead of deleting it."),
            tool_use(
                "Bash",
                {"command": "mkdir -p archive && mv notes_old.txt archive/", "description": "Move the old notes into archive/"},
                id="toolu_qs_05",
            ),
        ]),
        turn(lambda cwd: [text("Moved `notes_old.txt` into `archive/`. Nothing was deleted.")]),
        # 4. Plan mode: the read runs, the edit is refused
        turn(lambda cwd: [tool_use("Read", {"file_path": f"{cwd}/next_steps.md"}, id="toolu_qs_06")]),
        turn(lambda cwd: [
            tool_use(
                "Edit",
                {
                    "file_path": f"{cwd}/next_steps.md",
                    "old_string": "- [ ] Write the upgrade notes",
                    "new_string": "- [x] Write the upgrade notes",
                },
                id="toolu_qs_07",
            ),
        ]),
        turn(lambda cwd: [text(
            "I'm in plan mode, so the edit was not made. The plan:\n\n"
            "1. In `next_steps.md`, change `- [ ] Write the upgrade notes` to `- [x] Write the upgrade notes`.\n\n"
            "That is the only change. Switch back with `%agent mode default` and ask again to apply it."
        )]),
    ]
