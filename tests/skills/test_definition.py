"""Skill and command files: Claude Code's frontmatter and argument substitution."""

from __future__ import annotations

from pathlib import Path

import pytest

from nb_agent.errors import ConfigurationError
from nb_agent.skills.definition import parse_skill_text


def _skill(text: str, *, kind="skill", name="tidy"):
    path = Path("/skills") / name / "SKILL.md" if kind == "skill" else Path("/commands") / f"{name}.md"
    return parse_skill_text(text, name=name, kind=kind, source="user", path=path)


def test_frontmatter_fields() -> None:
    skill = _skill(
        "---\nname: tidy-report\ndescription: Tidy a notebook into a report.\nargument-hint: [focus]\n"
        "allowed-tools: Read NotebookEdit Bash(jupyter nbconvert:*)\nmodel: haiku\n"
        "disable-model-invocation: true\nuser-invocable: true\n---\n# Steps\nDo it."
    )
    assert skill.name == "tidy-report" and skill.description == "Tidy a notebook into a report."
    assert skill.argument_hint == "[focus]" and skill.model == "haiku"
    assert skill.allowed_tools == ("Read", "NotebookEdit", "Bash(jupyter nbconvert:*)")
    assert not skill.model_invocable and skill.user_invocable
    assert skill.directory == Path("/skills/tidy")


def test_defaults_a_command_without_frontmatter() -> None:
    command = _skill("# Review the diff\nLook at $ARGUMENTS.", kind="command", name="review")
    assert command.name == "review" and command.description == "Review the diff"
    assert command.allowed_tools is None and command.model is None and command.directory is None
    assert command.model_invocable and command.user_invocable


def test_a_commands_name_is_its_files_not_the_frontmatters() -> None:
    assert _skill("---\nname: other\n---\nx", kind="command", name="review").name == "review"


ARGS = 'src/app.py "the login flow" --fast'


@pytest.mark.parametrize(
    ("body", "rendered"),
    [
        ("Review $ARGUMENTS now.", f"Review {ARGS} now."),
        ("File $0, focus on $1 ($ARGUMENTS[2]); $5 stays.", "File src/app.py, focus on the login flow (--fast); $5 stays."),
        ("No placeholders.", f"No placeholders.\n\nARGUMENTS: {ARGS}"),
        ("In ${CLAUDE_SKILL_DIR} for ${CLAUDE_SESSION_ID}.", f"In /skills/tidy for s-1.\n\nARGUMENTS: {ARGS}"),
    ],
)
def test_arguments_and_variables(body: str, rendered: str) -> None:
    assert _skill(body).render(ARGS, session_id="s-1") == rendered


def test_no_arguments_adds_nothing() -> None:
    assert _skill("Just do it.").render("") == "Just do it."


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("---\nname: a b\n---\nx", "is not usable"),
        ("---\ndescription: x\n---\n", "body is empty"),
        ("---\ndisable-model-invocation: yes please\n---\nx", "must be true or false"),
        ("---\nallowed-tools: {a: 1}\n---\nx", "allowed-tools must be"),
        ("---\nname: [unclosed\n---\nx", "invalid YAML"),
    ],
)
def test_unusable_files_say_why(text: str, message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        _skill(text)
