"""The program registry: every program answers every question, and no other table exists."""

from __future__ import annotations

import ast
import typing
from pathlib import Path

import pytest

import nb_agent
from nb_agent.shell.parse_words import literal_word
from nb_agent.shell.programs import PROGRAMS, ProgramSpec, program_spec
from nb_agent.shell.programs.spec import Access, Operands, ReadOnly, RuleWords, WrapperKind

PACKAGE = Path(nb_agent.__file__).parent
SAMPLES = ([], ["--version"], ["-n", "5", "notes.txt"], ["-r", "x", "."], ["-c", "echo hi"], ["5", "cat", "x"])


def _words(values: list[str]) -> list:
    return [literal_word(value) for value in values]


def _answers(spec: ProgramSpec) -> dict[str, object]:
    """Every question a consumer asks of a spec, answered for sample arguments."""
    answers: dict[str, object] = {
        "access": spec.access,
        "operands": spec.operands,
        "read_only": spec.read_only,
        "rule_words": spec.rule_words,
        "wrapper": spec.wrapper,
        "benign_exit_1": spec.benign_exit_1,
        "tree_copier": spec.tree_copier,
        "opens_operands": spec.opens_operands,
        "runs_argv_tail": spec.runs_argv_tail,
        "changes_directory": spec.changes_directory,
        "uses_repository": spec.uses_repository,
    }
    for index, sample in enumerate(SAMPLES):
        args = _words(sample)
        answers[f"read_only_arguments {index}"] = spec.read_only_arguments(args)
        answers[f"has_denied_option {index}"] = spec.has_denied_option(args)
        if spec.peel is not None:
            peeled = spec.peel(spec, args)
            answers[f"peel {index}"] = peeled is None or all(hasattr(word, "value") for word in peeled)
        if spec.reads_repository is not None:
            answers[f"reads_repository {index}"] = spec.reads_repository(args)
        if spec.configures is not None:
            answers[f"configures {index}"] = spec.configures(args)
    return answers


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_every_program_answers_every_question(name: str) -> None:
    spec = PROGRAMS[name]
    assert spec.name == name and program_spec(name) is spec
    answers = _answers(spec)
    choices: dict[str, object] = {
        "access": Access, "operands": Operands, "read_only": ReadOnly, "rule_words": RuleWords,
    }
    for question, literal in choices.items():
        assert answers[question] in typing.get_args(literal), question
    assert spec.wrapper is None or spec.wrapper in typing.get_args(WrapperKind)
    for question, answer in answers.items():
        if question.startswith(("read_only_arguments", "has_denied_option", "peel", "reads_repository")):
            assert isinstance(answer, bool), (question, answer)
        if question.startswith("configures"):
            assert answer is None or isinstance(answer, str)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_every_spec_is_consistent(name: str) -> None:
    spec = PROGRAMS[name]
    grammar = spec.options
    if spec.read_only == "options":
        assert grammar is not None, "read_only='options' needs a grammar"
        assert (spec.writes | spec.runs) <= grammar.names, "denied options must be in the grammar to be seen"
    assert (spec.read_only == "check") == (spec.check is not None)
    if spec.operands == "pattern_then_paths":
        assert grammar is not None and spec.pattern_options, "a pattern-first program needs its grammar"
    if grammar is not None:
        assert spec.pattern_options <= grammar.names
        assert spec.text_options <= grammar.valued | grammar.optional | grammar.pairs
    if spec.wrapper is not None:
        assert grammar is not None, "a wrapper needs a grammar to find what it runs"
    else:
        assert spec.peel is None
    if spec.access == "none":
        assert spec.operands == "none"
    assert all(option.startswith("-") for option in spec.names_from_file)
    if spec.command_string is not None and spec.command_string.kind == "option":
        assert spec.command_string.options


def test_unknown_programs_get_the_cautious_defaults() -> None:
    spec = program_spec("some-tool-nobody-described")
    assert spec.read_only == "never" and spec.access == "content" and spec.operands == "paths"
    assert not spec.read_only_arguments(_words(["--version"]))
    assert program_spec("/usr/bin/grep") is PROGRAMS["grep"]
    assert program_spec("python3.12").read_only_arguments(_words(["--version"]))


# --- one registry ---------------------------------------------------------------------

# Words that are program names but also ordinary words in unrelated tables.
_ORDINARY = frozenset({"test", "time", "true", "false", ":", "[", "[[", ".", "R", "read", "type", "command", "file",
                       "date", "sort", "find", "env", "exec", "script", "source", "which", "id", "join", "sum", "go"})


_NOT_ABOUT_PROGRAMS = frozenset({"search_index.py"})
"""Files whose tables name programs as words (ToolSearch expands `kubectl` to kubernetes)."""


def _string_collections(tree: ast.AST) -> list[tuple[int, list[str]]]:
    found: list[tuple[int, list[str]]] = []
    for node in ast.walk(tree):
        strings: list[str] = []
        if isinstance(node, (ast.Set, ast.List, ast.Tuple)):
            strings = [elt.value for elt in node.elts if isinstance(elt, ast.Constant) and isinstance(elt.value, str)]
        elif isinstance(node, ast.Dict):
            strings = [key.value for key in node.keys if isinstance(key, ast.Constant) and isinstance(key.value, str)]
        elif (
            isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "split"
            and isinstance(node.func.value, ast.Constant) and isinstance(node.func.value.value, str)
        ):
            strings = node.func.value.value.split()
        if strings:
            found.append((getattr(node, "lineno", 0), strings))
    return found


def test_no_table_of_programs_lives_outside_the_registry() -> None:
    programs = set(PROGRAMS) - _ORDINARY
    registry = PACKAGE / "shell" / "programs"
    offending: list[str] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if registry in path.parents:
            continue
        for line, strings in _string_collections(ast.parse(path.read_text(encoding="utf-8"))):
            named = sorted(programs.intersection(strings))
            if len(named) >= 3 and path.name not in _NOT_ABOUT_PROGRAMS:
                offending.append(f"{path.relative_to(PACKAGE)}:{line}: {named[:6]}")
    assert offending == [], "program facts belong in nb_agent/shell/programs:\n" + "\n".join(offending)
