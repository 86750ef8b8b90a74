"""Finding skills and commands, precedence, and the list the model sees."""

from __future__ import annotations

from pathlib import Path

import pytest

from nb_agent.skills.listing import BUDGET_ENV, listing_budget, skill_listing
from nb_agent.skills.loader import load_skill_catalog


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    return home, project


def test_user_and_project_skills_and_commands(dirs) -> None:
    home, project = dirs
    _write(home / ".claude/skills/tidy/SKILL.md", "---\ndescription: user tidy\n---\nbody")
    _write(project / ".claude/skills/tidy/SKILL.md", "---\ndescription: project tidy\n---\nbody")
    _write(project / ".claude/skills/chart/SKILL.md", "---\ndescription: charts\n---\nbody")
    _write(project / ".claude/commands/review.md", "Review it")
    _write(project / ".claude/commands/frontend/component.md", "Make a component")
    _write(project / ".claude/commands/chart.md", "a command named like a skill")
    _write(project / ".claude/skills/broken/SKILL.md", "---\nname: [x\n---\nbody")
    _write(project / ".claude/skills/empty/notes.md", "no SKILL.md here")
    catalog = load_skill_catalog(cwd=project, home=home, include_project=True)
    found = {d.name: (d.kind, d.source, d.description) for d in catalog.definitions}
    assert found == {
        "chart": ("skill", "project", "charts"),
        "frontend:component": ("command", "project", "Make a component"),
        "review": ("command", "project", "Review it"),
        "tidy": ("skill", "user", "user tidy"),
    }
    issues = "\n".join(catalog.issues)
    assert "broken/SKILL.md: invalid YAML" in issues
    assert "tidy/SKILL.md: /tidy is also" in issues and "commands/chart.md: /chart is also" in issues
    assert catalog.find("/Review").name == "review"


def test_an_untrusted_folder_gives_nothing_and_says_so(dirs) -> None:
    home, project = dirs
    _write(project / ".claude/skills/tidy/SKILL.md", "x")
    _write(project / ".claude/commands/review.md", "x")
    catalog = load_skill_catalog(cwd=project, home=home, include_project=False)
    assert catalog.definitions == []
    assert catalog.issues == [
        f"{project / '.claude/skills'}: not loaded (the folder is not trusted)",
        f"{project / '.claude/commands'}: not loaded (the folder is not trusted)",
    ]


def test_the_listing_is_bounded(dirs, monkeypatch) -> None:
    home, project = dirs
    for i in range(30):
        _write(home / f".claude/skills/skill-{i:02}/SKILL.md", f"---\ndescription: {'word ' * 40}\n---\nbody")
    _write(home / ".claude/skills/hidden/SKILL.md", "---\ndescription: user only\ndisable-model-invocation: true\n---\nx")
    catalog = load_skill_catalog(cwd=project, home=home, include_project=True)
    skills = catalog.model_invocable
    assert "hidden" not in [s.name for s in skills]
    whole = skill_listing(skills, budget=100_000)
    assert whole.count("word") == 30 * 40
    small = skill_listing(skills, budget=2_000)
    lines = small.splitlines()
    assert len(small) <= 2_000
    assert lines[2].startswith("- skill-00: word") and "- skill-09" in lines, "names only once descriptions do not fit"
    assert lines[-1].startswith("(and ") and lines[-1].endswith("more skills not listed for lack of room: load one by its exact name when the user names it)")
    assert listing_budget(200_000) == 8_000
    monkeypatch.setenv(BUDGET_ENV, "123")
    assert listing_budget(200_000) == 123
