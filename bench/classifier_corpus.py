"""Run the read-only classifier over the test corpus and print how it does.

Usage: python bench/classifier_corpus.py
Prints the corpus size, benign commands allowed, dangerous commands refused and the mean
time to classify one command (after one warm-up pass, which builds the parser; the
parse cache is cleared before each command, so every call parses). Then the same corpus
through the permission policy in a scratch project (a git repository, HOME elsewhere):
how many benign commands still run without asking once their reads are held to Read's
scope, the dangerous ones that would run, and the mean time of a whole decision.
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
import subprocess
import tempfile
import time
from pathlib import Path
from types import ModuleType

from nb_agent.abort import AbortController
from nb_agent.permissions import RuleBasedPolicy
from nb_agent.permissions.types import PermissionAllow
from nb_agent.shell.command_parts import analyse_command
from nb_agent.shell.read_only import is_read_only_command
from nb_agent.tools.base import ToolSession, ToolUseContext
from nb_agent.tools.bash import BashTool

ROOT = Path(__file__).resolve().parents[1]
CORPUS_PATH = ROOT / "tests" / "shell" / "read_only_corpus.py"
ROUNDS = 20


def load_corpus() -> ModuleType:
    """Import the corpus module by path (the tests directory is not a package)."""
    spec = importlib.util.spec_from_file_location("bash_read_only_corpus", CORPUS_PATH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def classify_uncached(command: str) -> bool:
    analyse_command.cache_clear()
    return is_read_only_command(command)


def syntactic(corpus: ModuleType) -> None:
    benign = [case.command for case in corpus.BENIGN]
    dangerous = [case.command for case in corpus.DANGEROUS]
    commands = benign + dangerous
    for command in commands:  # warm-up: lazy parser creation, imports
        classify_uncached(command)
    started = time.perf_counter()
    for _ in range(ROUNDS):
        for command in commands:
            classify_uncached(command)
    elapsed = time.perf_counter() - started
    allowed = sum(classify_uncached(command) for command in benign)
    refused = sum(not classify_uncached(command) for command in dangerous)
    print(f"total commands:     {len(commands)}")
    print(f"benign allowed:     {allowed} / {len(benign)}")
    print(f"dangerous refused:  {refused} / {len(dangerous)}")
    print(f"mean time/command:  {elapsed / (ROUNDS * len(commands)) * 1e6:.1f} µs")
    for case in corpus.DANGEROUS:
        if classify_uncached(case.command):
            print(f"  ALLOWED DANGEROUS [{case.family}] {case.command!r}")
    for case in corpus.BENIGN:
        if not classify_uncached(case.command):
            print(f"  refused benign    [{case.family}] {case.command!r}")


def in_a_project(corpus: ModuleType) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        project, home = Path(scratch) / "project", Path(scratch) / "home"
        project.mkdir()
        home.mkdir()
        env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
        subprocess.run(["git", "init", "-q"], cwd=project, check=True, env=env)
        saved = dict(os.environ)
        os.environ.clear()
        os.environ.update({**env, "HOME": str(home)})
        try:
            bash = BashTool()
            policy = RuleBasedPolicy(project_dir=project, home=home)

            async def decide_all(cases: list) -> tuple[dict, float]:
                started = time.perf_counter()
                outcomes = {}
                for case in cases:
                    ctx = ToolUseContext(abort_controller=AbortController(), session=ToolSession(cwd=project))
                    outcomes[case] = await policy.decide(bash, bash.parse_input({"command": case.command}), ctx)
                return outcomes, time.perf_counter() - started

            benign = [case for case in corpus.BENIGN if case.command.strip()]
            dangerous = [case for case in corpus.DANGEROUS if case.command.strip()]
            outcomes, elapsed = asyncio.run(decide_all([*benign, *dangerous]))
        finally:
            os.environ.clear()
            os.environ.update(saved)
    allowed = [case for case in benign if isinstance(outcomes[case], PermissionAllow)]
    ran = [case for case in dangerous if isinstance(outcomes[case], PermissionAllow)]
    print()
    print("in a scratch project (policy, read scope, git repository checks):")
    print(f"benign allowed:     {len(allowed)} / {len(benign)}")
    print(f"dangerous allowed:  {len(ran)} / {len(dangerous)}")
    print(f"mean time/decision: {elapsed / len(outcomes) * 1e6:.1f} µs")
    for case in benign:
        if case not in allowed:
            print(f"  asks for benign   [{case.family}] {case.command!r}: {getattr(outcomes[case], 'message', '')}")
    for case in ran:
        print(f"  ALLOWED DANGEROUS [{case.family}] {case.command!r}")


def main() -> None:
    corpus = load_corpus()
    syntactic(corpus)
    in_a_project(corpus)


if __name__ == "__main__":
    main()
