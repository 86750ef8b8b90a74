"""Run the read-only classifier over the test corpus and print how it does.

Usage: python bench/classifier_corpus.py
Prints the corpus size, benign commands allowed, dangerous commands refused and the mean
time to classify one command (after one warm-up pass, which builds the parser).
"""

from __future__ import annotations

import importlib.util
import time
from pathlib import Path
from types import ModuleType

from nb_agent.tools.bash import is_read_only_command

ROOT = Path(__file__).resolve().parents[1]
CORPUS_PATH = ROOT / "tests" / "tools" / "bash" / "read_only_corpus.py"
ROUNDS = 20


def load_corpus() -> ModuleType:
    """Import the corpus module by path (the tests directory is not a package)."""
    spec = importlib.util.spec_from_file_location("bash_read_only_corpus", CORPUS_PATH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> None:
    corpus = load_corpus()
    benign = [case.command for case in corpus.BENIGN]
    dangerous = [case.command for case in corpus.DANGEROUS]
    commands = benign + dangerous
    for command in commands:  # warm-up: lazy parser creation, imports
        is_read_only_command(command)
    started = time.perf_counter()
    for _ in range(ROUNDS):
        for command in commands:
            is_read_only_command(command)
    elapsed = time.perf_counter() - started
    allowed = sum(is_read_only_command(command) for command in benign)
    refused = sum(not is_read_only_command(command) for command in dangerous)
    print(f"total commands:     {len(commands)}")
    print(f"benign allowed:     {allowed} / {len(benign)}")
    print(f"dangerous refused:  {refused} / {len(dangerous)}")
    print(f"mean time/command:  {elapsed / (ROUNDS * len(commands)) * 1e6:.1f} µs")
    missed = [case for case in corpus.DANGEROUS if is_read_only_command(case.command)]
    refused_benign = [case for case in corpus.BENIGN if not is_read_only_command(case.command)]
    for case in missed:
        print(f"  ALLOWED DANGEROUS [{case.family}] {case.command!r}")
    for case in refused_benign:
        print(f"  refused benign    [{case.family}] {case.command!r}")


if __name__ == "__main__":
    main()
