"""Memory the agent's reads bring: a subfolder's CLAUDE.md, rules about certain paths."""

from __future__ import annotations

import pytest

from nb_agent.memory.loader import MemoryScope
from nb_agent.memory.nested import nested_memory_for
from nb_agent.memory.rules import expand_braces

from .conftest import SECRET, texts


def _nested(world, load, relative: str, **scope_kw):
    scope = MemoryScope(cwd=world.project, home=world.home, managed_file=None, **scope_kw)
    return [f.text for f in nested_memory_for(load, scope, world.project / relative)]


def test_a_subfolders_claude_md_comes_with_the_first_read_there_once(world) -> None:
    world.write("CLAUDE.md", "top")
    world.write("pkg/CLAUDE.md", "pkg conventions @pkg-notes.md")
    world.write("pkg/pkg-notes.md", "pkg notes")
    world.write("pkg/sub/.claude/CLAUDE.md", "sub conventions")
    world.write("pkg/sub/x.py", "x = 1")
    load = world.load()
    assert texts(load) == ["top"], "not read at the start"
    assert _nested(world, load, "pkg/sub/x.py") == ["pkg conventions @pkg-notes.md", "pkg notes", "sub conventions"]
    assert _nested(world, load, "pkg/sub/x.py") == [], "once"
    assert _nested(world, load, "pkg/other.py") == [], "pkg's was read already"
    assert _nested(world, load, "../elsewhere/x.py") == [], "outside the working directory: nothing"


@pytest.mark.parametrize("trusted", [False, True])
def test_a_subfolder_linking_out_of_the_project_brings_nothing(world, trusted: bool) -> None:
    outside = world.root / "outside"
    world.write("CLAUDE.md", f"@{SECRET}", base=outside)
    (world.project / "vendor").symlink_to(outside)
    load = world.load(trusted=trusted)
    assert _nested(world, load, "vendor/lib.py", trusted=trusted) == []


def test_a_rule_with_paths_comes_with_the_first_matching_read(world) -> None:
    world.write(".claude/rules/api.md", '---\npaths:\n  - "src/api/**/*.{ts,tsx}"\n---\nAPI rules @../../docs/api.md')
    world.write("docs/api.md", "the API notes")
    world.write(".claude/rules/docs.md", "---\npaths: docs/never.md\n---\nnot this one")
    world.write(".claude/rules/py.md", "---\npaths: '*.py'\n---\nPython rules")
    load = world.load()
    assert texts(load) == [] and len(load.conditional) == 3
    assert _nested(world, load, "src/web/page.ts") == []
    assert _nested(world, load, "src/api/v1/users.tsx") == ["API rules @../../docs/api.md", "the API notes"]
    assert _nested(world, load, "src/api/v1/orders.ts") == [], "once"
    assert _nested(world, load, "tools/deep/run.py") == ["Python rules"], "a name-only glob matches at any depth"


def test_brace_expansion() -> None:
    assert expand_braces("src/**/*.{ts,tsx}") == ["src/**/*.ts", "src/**/*.tsx"]
    assert expand_braces("{a,b{c,d}}/x") == ["a/x", "bc/x", "bd/x"]
    assert expand_braces("no{brace") == ["no{brace"]
    assert len(expand_braces("{a,b}" * 12)) == 64, "bounded"
