"""``%agent remember``'s engine side: a line into the file the user picks, nothing else."""

from __future__ import annotations

import os

import pytest

from nb_agent.errors import ConfigurationError
from nb_agent.memory.remember import remember

from .conftest import SECRET, texts


def test_each_target_gets_a_list_item_and_the_next_load_reads_it(world) -> None:
    world.write("CLAUDE.md", "# Project\nuse tabs")  # no final newline
    project = remember("Plots use  the\ncompany palette", "project", cwd=world.project, home=world.home)
    local = remember("my sandbox is :8080", "local", cwd=world.project, home=world.home)
    user = remember("answer briefly", "user", cwd=world.project, home=world.home)
    assert project.read_text() == "# Project\nuse tabs\n- Plots use the company palette\n"
    assert local.read_text() == "- my sandbox is :8080\n" and local.name == "CLAUDE.local.md"
    assert user == world.home / ".claude" / "CLAUDE.md" and user.read_text() == "- answer briefly\n"
    assert "- Plots use the company palette" in "".join(texts(world.load()))


@pytest.mark.parametrize("name", ["CLAUDE.md", "CLAUDE.local.md"])
def test_a_project_file_linking_out_is_not_written_through(world, name: str) -> None:
    (world.project / name).symlink_to(world.home / ".ssh" / "id_rsa")
    target = "project" if name == "CLAUDE.md" else "local"
    with pytest.raises(ConfigurationError, match="link to a file outside"):
        remember("x", target, cwd=world.project, home=world.home)
    assert (world.home / ".ssh" / "id_rsa").read_text() == SECRET


def test_a_fifo_is_not_written_and_nothing_blocks(world) -> None:
    os.mkfifo(world.project / "CLAUDE.md")
    with pytest.raises(ConfigurationError, match="not a regular file"):
        remember("x", "project", cwd=world.project, home=world.home)


def test_empty_text_and_unknown_targets_are_refused(world) -> None:
    with pytest.raises(ConfigurationError, match="nothing to remember"):
        remember("   ", "project", cwd=world.project, home=world.home)
    with pytest.raises(ConfigurationError, match="unknown memory file"):
        remember("x", "team", cwd=world.project, home=world.home)  # type: ignore[arg-type]
    assert not (world.project / "CLAUDE.md").exists()
