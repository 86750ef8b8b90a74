"""Which memory files a session reads at its start, and in which order (Claude Code's)."""

from __future__ import annotations

from nb_agent.session_context import project_instructions_reminder

from .conftest import texts


def test_managed_user_then_root_down_to_the_working_directory(world) -> None:
    managed = world.write("managed/CLAUDE.md", "managed says", base=world.root)
    world.write(".claude/CLAUDE.md", "user says", base=world.home)
    world.write(".claude/rules/style.md", "user rule", base=world.home)
    world.write("CLAUDE.md", "work folder says", base=world.root / "work")
    world.write("CLAUDE.md", "repo says")
    world.write("AGENTS.md", "agents says")
    world.write(".claude/CLAUDE.md", "repo .claude says")
    world.write(".claude/rules/b.md", "rule b")
    world.write(".claude/rules/a/z.md", "rule a/z")
    world.write("CLAUDE.local.md", "local says")
    load = world.load(managed_file=managed)
    assert texts(load) == [
        "managed says",
        "user says",
        "user rule",
        "work folder says",
        "repo says",
        "agents says",
        "repo .claude says",
        "rule a/z",
        "rule b",
        "local says",
    ]
    owners = {f.text: f.owner for f in load.files}
    assert owners["managed says"] == "managed" and owners["user rule"] == "user"
    assert owners["repo says"] == "project" and owners["local says"] == "local"
    assert not load.skipped


def test_the_reminder_names_each_file_and_whose_it_is(world) -> None:
    world.write(".claude/CLAUDE.md", "answer briefly", base=world.home)
    world.write("CLAUDE.md", "use tabs")
    world.write("CLAUDE.local.md", "my sandbox is at :8080")
    text = project_instructions_reminder(world.project, home=world.home, memory=world.load())
    assert f"Contents of {world.home / '.claude' / 'CLAUDE.md'} (user's private global instructions):\n\nanswer briefly" in text
    assert f"Contents of {world.project / 'CLAUDE.md'} (project instructions):\n\nuse tabs" in text
    assert "(user's private project instructions, not checked in):\n\nmy sandbox is at :8080" in text
    assert text.index("answer briefly") < text.index("use tabs") < text.index("my sandbox")


def test_a_session_started_in_the_home_folder_reads_the_users_files_once_as_the_users(world) -> None:
    world.write(".claude/CLAUDE.md", "user says", base=world.home)
    world.write(".claude/rules/r.md", "user rule", base=world.home)
    load = world.load(cwd=world.home)
    assert texts(load) == ["user says", "user rule"]
    assert {f.owner for f in load.files} == {"user"}


def test_rule_frontmatter_is_not_sent_and_a_broken_rule_is_skipped_with_why(world) -> None:
    world.write(".claude/rules/ok.md", "---\ndescription: style\n---\nuse snake_case")
    world.write(".claude/rules/broken.md", "---\npaths: [unclosed\n---\nbody")
    load = world.load()
    assert texts(load) == ["use snake_case"]
    [skipped] = load.skipped
    assert skipped.path.name == "broken.md" and "invalid YAML" in skipped.reason
