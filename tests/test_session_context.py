"""Project instructions (CLAUDE.md / AGENTS.md) reach the model without anyone being asked,
trusted folder or not: a planted link must not carry another file into the conversation."""

from __future__ import annotations

from pathlib import Path

import pytest

from nb_agent.memory.loader import MemoryScope, load_memory
from nb_agent.session_context import MAX_INSTRUCTION_FILE_CHARS, project_instructions_reminder

SECRET = "-----BEGIN OPENSSH PRIVATE KEY----- planted-link-secret"


@pytest.fixture
def world(tmp_path: Path) -> dict[str, Path]:
    home, folder = tmp_path / "home", tmp_path / "downloads" / "repo"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text(SECRET)
    (home / ".claude").mkdir()
    folder.mkdir(parents=True)
    return {"home": home, "folder": folder, "tmp": tmp_path}


LINKS = {
    "CLAUDE.md to a key": ("CLAUDE.md", lambda w: w["home"] / ".ssh" / "id_rsa"),
    "AGENTS.md to a key": ("AGENTS.md", lambda w: w["home"] / ".ssh" / "id_rsa"),
    "relative link up and out": ("CLAUDE.md", lambda w: Path("../../home/.ssh/id_rsa")),
    "link to a folder-local link out": ("CLAUDE.md", lambda w: w["folder"] / "inner.md"),
}


@pytest.mark.parametrize("case", LINKS)
def test_a_link_out_of_the_folder_is_not_read(world: dict[str, Path], case: str) -> None:
    name, target = LINKS[case]
    (world["folder"] / "inner.md").symlink_to(world["home"] / ".ssh" / "id_rsa")
    (world["folder"] / name).symlink_to(target(world))
    assert SECRET in (world["folder"] / name).read_text(), "the link really leads to the key"
    load = load_memory(MemoryScope(cwd=world["folder"], home=world["home"]))
    text = project_instructions_reminder(world["folder"], home=world["home"], memory=load)
    assert SECRET not in text
    assert [s.reason for s in load.skipped if s.path.name == name] == [f"a link to a file outside {world['folder']}"]


def test_links_within_the_folder_and_the_users_own_file_are_read(world: dict[str, Path]) -> None:
    (world["folder"] / "AGENTS.md").write_text("use tabs")
    (world["folder"] / "CLAUDE.md").symlink_to("AGENTS.md")  # a common layout
    (world["tmp"] / "mine.md").write_text("answer briefly")
    (world["home"] / ".claude" / "CLAUDE.md").symlink_to(world["tmp"] / "mine.md")  # the user's own: any link
    load = load_memory(MemoryScope(cwd=world["folder"], home=world["home"]))
    text = project_instructions_reminder(world["folder"], home=world["home"], memory=load)
    assert "answer briefly" in text and not load.skipped
    assert text.count("use tabs") == 1, "the link and its target are one file: included once"
    assert f"Contents of {world['folder'] / 'CLAUDE.md'} (project instructions)" in text


def test_a_huge_instruction_file_is_read_only_up_to_the_limit(world: dict[str, Path]) -> None:
    with (world["folder"] / "CLAUDE.md").open("w") as f:
        f.write("x" * (MAX_INSTRUCTION_FILE_CHARS + 10))
    text = project_instructions_reminder(world["folder"], home=world["home"])
    assert "…(truncated)" in text and "x" * (MAX_INSTRUCTION_FILE_CHARS + 1) not in text
