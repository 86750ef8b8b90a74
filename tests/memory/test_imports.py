"""``@path`` imports: relative and ``~``, five hops at most, cycles, code left alone."""

from __future__ import annotations

from nb_agent.memory.imports import MAX_IMPORT_DEPTH, import_paths

from .conftest import reasons, texts


def test_import_syntax_follows_claude_code() -> None:
    text = """See @docs/style.md and @./notes.md, @~/.claude/mine.md, @/abs/x.md.
email me at a@b.c, `@in/code.md`, @file\\ with\\ space.md @docs/style.md#section

```
@fenced.md
```

    @indented.md
- in a list @list.md
"""
    assert import_paths(text) == [
        "docs/style.md",
        "./notes.md",
        "~/.claude/mine.md",
        "/abs/x.md",
        "file with space.md",
        "list.md",
    ]


def test_relative_and_home_imports_are_read_after_the_importer(world) -> None:
    world.write(".claude/CLAUDE.md", "user: @prefs.md and @~/shared/team.md", base=world.home)
    world.write(".claude/prefs.md", "user prefs", base=world.home)
    world.write("shared/team.md", "team notes", base=world.home)
    world.write("CLAUDE.md", "repo: see @docs/style.md")
    world.write("docs/style.md", "style: @../README.md")
    world.write("README.md", "the readme")
    load = world.load()
    assert texts(load) == [
        "user: @prefs.md and @~/shared/team.md",
        "user prefs",
        "team notes",
        "repo: see @docs/style.md",
        "style: @../README.md",
        "the readme",
    ]
    imported = {f.text: f.imported_by for f in load.files}
    assert imported["the readme"] == world.project / "docs" / "style.md"
    assert not load.skipped


def test_five_hops_are_followed_and_the_sixth_is_not(world) -> None:
    world.write("CLAUDE.md", "top @hop1.md")
    for hop in range(1, MAX_IMPORT_DEPTH + 2):
        world.write(f"hop{hop}.md", f"hop {hop} @hop{hop + 1}.md")
    load = world.load()
    assert texts(load) == ["top @hop1.md", *(f"hop {h} @hop{h + 1}.md" for h in range(1, MAX_IMPORT_DEPTH + 1))]
    assert reasons(load) == {f"hop{MAX_IMPORT_DEPTH + 1}.md": f"more than {MAX_IMPORT_DEPTH} imports deep"}


def test_a_cycle_is_detected_and_each_file_is_included_once(world) -> None:
    world.write("CLAUDE.md", "top @a.md @b.md")
    world.write("a.md", "a imports @b.md")
    world.write("b.md", "b imports @a.md")
    load = world.load()
    assert texts(load) == ["top @a.md @b.md", "a imports @b.md", "b imports @a.md"]
    skipped = {(s.path.name, s.imported_by.name): s.reason for s in load.skipped}
    assert skipped[("a.md", "b.md")].startswith("an import cycle: CLAUDE.md → a.md → b.md → a.md")
    assert skipped[("b.md", "CLAUDE.md")] == "already included above"


def test_a_missing_import_is_listed_not_sent(world) -> None:
    world.write("CLAUDE.md", "see @docs/nowhere.md")
    load = world.load()
    assert texts(load) == ["see @docs/nowhere.md"]
    assert reasons(load) == {"nowhere.md": "not found"}
