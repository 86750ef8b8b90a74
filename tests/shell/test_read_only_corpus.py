"""The read-only classifier against a corpus of real commands and their dangerous look-alikes."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

from nb_agent.shell.read_only import is_read_only_command


def _load_corpus() -> ModuleType:
    # Loaded by path: the test suite runs with --import-mode=importlib (no sibling imports).
    path = Path(__file__).with_name("read_only_corpus.py")
    spec = importlib.util.spec_from_file_location("bash_read_only_corpus", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_CORPUS = _load_corpus()
BENIGN = _CORPUS.BENIGN
DANGEROUS = _CORPUS.DANGEROUS
Case = _CORPUS.Case


def _case_id(case: Case) -> str:
    command = case.command.replace("\n", "\\n").replace("\r", "\\r").replace("\x00", "\\0")
    return f"{case.family}: {command or '<empty>'}"


@pytest.mark.parametrize("case", BENIGN, ids=_case_id)
def test_benign_command_is_read_only(case: Case) -> None:
    assert is_read_only_command(case.command)


@pytest.mark.parametrize("case", DANGEROUS, ids=_case_id)
def test_dangerous_command_is_refused(case: Case) -> None:
    assert not is_read_only_command(case.command)


def test_corpus_is_large_and_covers_every_family() -> None:
    assert len(BENIGN) >= 70
    assert len(BENIGN) + len(DANGEROUS) >= 150
    assert {case.family for case in DANGEROUS} >= {
        "redirect", "substitution", "wrapper", "xargs", "env-assignment", "find", "sed",
        "awk", "git", "cd-git", "sort", "writes", "interpreter", "compound", "parser-divergence",
        "malformed",
    }
    commands = [case.command for case in (*BENIGN, *DANGEROUS)]
    assert len(commands) == len(set(commands)), "duplicate commands in the corpus"
