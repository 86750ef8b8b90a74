"""Imports are held to the folder's rules: a project's memory file reaches the model in
every folder, trusted or not, so an import must not carry another file in with it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from .conftest import SECRET, reasons, texts

OUTSIDE_SPELLINGS = {
    "relative, up and out": lambda w: "../../home/.ssh/id_rsa",
    "home": lambda w: "~/.ssh/id_rsa",
    "absolute": lambda w: str(w.home / ".ssh" / "id_rsa"),
}


@pytest.mark.parametrize("spelling", OUTSIDE_SPELLINGS)
def test_an_untrusted_folders_import_from_outside_is_not_read(world, spelling: str) -> None:
    world.write("CLAUDE.md", f"context: @{OUTSIDE_SPELLINGS[spelling](world)}")
    load = world.load(trusted=False)
    assert SECRET not in "".join(texts(load))
    assert reasons(load)["id_rsa"].startswith(f"outside {world.project}: a project file's imports from outside its folder are read once you trust the folder")


@pytest.mark.parametrize("spelling", OUTSIDE_SPELLINGS)
def test_a_trusted_folders_import_from_outside_is_read(world, spelling: str) -> None:
    world.write("CLAUDE.md", f"context: @{OUTSIDE_SPELLINGS[spelling](world)}")
    load = world.load(trusted=True)
    assert SECRET in texts(load), "trusting the folder is the approval Claude Code asks for"


LINKS = {
    "a link to a file outside": lambda w: w.home / ".ssh" / "id_rsa",
    "a relative link up and out": lambda w: Path("../../home/.ssh/id_rsa"),
    "a link to a folder outside": None,
}


@pytest.mark.parametrize("case", LINKS)
@pytest.mark.parametrize("trusted", [False, True])
def test_an_import_through_a_link_out_of_the_folder_is_never_read(world, case: str, trusted: bool) -> None:
    if LINKS[case] is None:
        (world.project / "keys").symlink_to(world.home / ".ssh")
        world.write("CLAUDE.md", "context: @keys/id_rsa")
    else:
        (world.project / "notes.md").symlink_to(LINKS[case](world))
        world.write("CLAUDE.md", "context: @notes.md")
    load = world.load(trusted=trusted)
    assert SECRET not in "".join(texts(load))
    [skipped] = load.skipped
    assert skipped.reason == f"a link to a file outside {world.project}"


def test_an_import_of_an_import_is_held_to_the_first_files_folder(world) -> None:
    world.write("CLAUDE.md", "@docs/a.md")
    world.write("docs/a.md", "a: @../../../home/.ssh/id_rsa")
    load = world.load()
    assert SECRET not in "".join(texts(load)) and "id_rsa" in reasons(load)


def test_a_read_deny_rule_covers_imports(world) -> None:
    world.write("CLAUDE.md", "see @.env and @docs/ok.md")
    world.write(".env", "API_KEY=sk-live-123")
    world.write("docs/ok.md", "fine")
    denied = {str(world.project / ".env"): "Read(.env)"}
    load = world.load(trusted=True, read_denied=lambda p: denied.get(str(p)))
    assert texts(load) == ["see @.env and @docs/ok.md", "fine"]
    assert reasons(load) == {".env": "the rule Read(.env) covers it"}


def test_a_fifo_or_a_device_link_never_blocks_the_session(world) -> None:
    os.mkfifo(world.project / "fifo.md")
    (world.project / "zero.md").symlink_to("/dev/zero")
    world.write("CLAUDE.md", "@fifo.md @zero.md @binary.md")
    (world.project / "binary.md").write_bytes(b"\x00\x01\x02ELF")
    load = world.load(trusted=True)  # /dev/zero is outside the folder: trust it so the reader is what refuses
    assert texts(load) == ["@fifo.md @zero.md @binary.md"]
    skipped = reasons(load)
    assert skipped["fifo.md"] == "not a regular file"
    assert skipped["zero.md"] == f"a link to a file outside {world.project}"
    assert skipped["binary.md"] == "not a text file"


def test_the_users_own_file_may_import_anything(world) -> None:
    world.write(".claude/CLAUDE.md", "@~/.ssh/id_rsa", base=world.home)
    assert SECRET in texts(world.load(trusted=False)), "the user's own choice"


def test_a_project_file_that_links_out_is_not_read_at_all(world) -> None:
    (world.project / ".claude").mkdir()
    (world.project / ".claude" / "CLAUDE.md").symlink_to(world.home / ".ssh" / "id_rsa")
    (world.project / ".claude" / "rules").symlink_to(world.home / ".ssh")
    load = world.load(trusted=True)
    assert SECRET not in "".join(texts(load))
    assert set(reasons(load)) == {"CLAUDE.md", "rules"}
