"""Development tools, package managers, file movers and the programs that remove files.

Interpreters, compilers and package managers only read when asked for their version
(``pip list``, ``conda info`` and ``nvidia-smi`` queries too); their rules name a
subcommand (``npm run:*``). File movers and network clients read or send every file
under a directory they are given; ``rm``, ``chmod`` and the like name files without
reading them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from nb_agent.shell.options import Options, parse_options
from nb_agent.shell.parse_words import Word
from nb_agent.shell.programs.builtins import literal_values
from nb_agent.shell.programs.spec import ProgramSpec, specs

__all__ = ["PIP", "PYTHON", "TOOLS", "VERSIONED_NAMES"]


def _python(args: Sequence[Word]) -> bool:
    values = literal_values(args)
    return values is not None and len(values) == 1 and values[0] in ("--version", "-V", "-VV")


_PIP_COMMON = "-v --verbose -q --quiet --isolated --disable-pip-version-check --no-color " \
    "--no-input --require-virtualenv --no-cache-dir --help -h"
_PIP_SUBCOMMANDS = {
    "list": Options.of(
        flags=_PIP_COMMON + " -o --outdated -u --uptodate -e --editable -l --local --user "
        "--pre --not-required --exclude-editable --include-editable",
        valued="--format --path --exclude",
    ),
    "show": Options.of(flags=_PIP_COMMON + " -f --files"),
    "freeze": Options.of(
        flags=_PIP_COMMON + " -l --local --user --all --exclude-editable",
        valued="--path --exclude -r --requirement",
    ),
}  # no --log (writes), no --python (runs another interpreter)
_PIP_GLOBAL = frozenset(_PIP_COMMON.split())


def _pip(args: Sequence[Word]) -> bool:
    values = literal_values(args)
    if values is None:
        return False
    if values == ["--version"] or values == ["-V"]:
        return True
    for index, value in enumerate(values):
        if value in _PIP_SUBCOMMANDS:
            return parse_options(args[index + 1 :], _PIP_SUBCOMMANDS[value]) is not None
        if value not in _PIP_GLOBAL:
            return False
    return False


_CONDA_LIST = Options.of(
    flags="--json --export -e --explicit --full-name -f --revisions -r --show-channel-urls "
    "--md5 -c --canonical --no-pip",
    valued="-n --name -p --prefix",
)
_CONDA_INFO = Options.of(flags="--envs -e --json -a --all --base -s --system")


def _conda(args: Sequence[Word]) -> bool:
    values = literal_values(args)
    if values is None or not values:
        return False
    if values == ["--version"] or values == ["-V"]:
        return True
    if values[0] == "list":
        parsed = parse_options(args[1:], _CONDA_LIST)
        return parsed is not None and len(parsed.positionals) <= 1
    if values[0] == "info":
        parsed = parse_options(args[1:], _CONDA_INFO)
        return parsed is not None and not parsed.positionals
    return values[:2] == ["env", "list"] and all(value == "--json" for value in values[2:])


_NVIDIA_SMI = Options.of(
    flags="-L --list-gpus -q --query -x --xml-format -h --help",
    valued="-i --id -d --display --query-gpu --query-compute-apps --format",
)  # no -f/--filename (writes), no settings (-pm, -r, -c, ...), no --loop


def _nvidia_smi(args: Sequence[Word]) -> bool:
    parsed = parse_options(args, _NVIDIA_SMI)
    return parsed is not None and not parsed.positionals


PYTHON = ProgramSpec(name="python", read_only="check", check=_python, rule_words="subcommand")
"""Also every ``python3.12``-like name (see :data:`VERSIONED_NAMES`)."""
PIP = ProgramSpec(name="pip", read_only="check", check=_pip, rule_words="subcommand")

VERSIONED_NAMES: tuple[tuple[re.Pattern[str], ProgramSpec], ...] = (
    (re.compile(r"python[0-9.]*"), ProgramSpec(name="python3", read_only="check", check=_python)),
    (re.compile(r"pip[0-9.]*"), ProgramSpec(name="pip3", read_only="check", check=_pip)),
)
"""Names with a version (``python3.12``, ``pip3.11``): the program's spec under that name."""

TOOLS: tuple[ProgramSpec, ...] = (
    PYTHON,
    ProgramSpec(name="python3", read_only="check", check=_python, rule_words="subcommand"),
    PIP,
    ProgramSpec(name="pip3", read_only="check", check=_pip, rule_words="subcommand"),
    ProgramSpec(name="conda", read_only="check", check=_conda, rule_words="subcommand"),
    ProgramSpec(
        name="nvidia-smi", options=_NVIDIA_SMI, read_only="check", check=_nvidia_smi, operands="none", access="none"
    ),
    # `--version` is all we allow. Not `cargo` / `rustc`: usually rustup's proxies, which
    # run the toolchain a folder's `rust-toolchain.toml` names, `path = "..."` included (a
    # binary the folder ships).
    *specs("java javac gcc g++ clang cmake ruby perl R Rscript nvcc julia", read_only="version"),
    *specs("node npm make jupyter uv", read_only="version", rule_words="subcommand"),
    ProgramSpec(name="docker", read_only="version", rule_words="subcommand", tree_copier=True),
    *specs(
        "pnpm yarn npx cargo poetry mamba go gh brew apt apt-get dotnet gradle mvn helm terraform",
        rule_words="subcommand",
    ),
    ProgramSpec(name="kubectl", rule_words="subcommand", tree_copier=True),
    # Read or send every file under a directory they are given (and, some, what every
    # link in it points to).
    *specs("podman buildah curl wget nc ncat socat sftp", tree_copier=True),
    # cp overwrites its target as mv does: Always allow adds the exact command, never Bash(cp:*)
    ProgramSpec(
        name="cp", tree_copier=True, follows_links=frozenset({"-L", "--dereference"}), rule_words="exact", changes_operands=True
    ),
    ProgramSpec(
        name="tar", tree_copier=True, follows_links=frozenset({"-h", "--dereference"}),
        names_from_file=frozenset({"-T", "--files-from", "-X", "--exclude-from"}), changes_operands=True,
    ),
    ProgramSpec(
        name="rsync", tree_copier=True, changes_operands=True,
        follows_links=frozenset({"-L", "--copy-links", "-k", "--copy-dirlinks", "--copy-unsafe-links"}),
        names_from_file=frozenset({"--files-from", "--exclude-from", "--include-from"}),
    ),
    ProgramSpec(name="rclone", tree_copier=True, follows_links=frozenset({"-L", "--copy-links"})),
    ProgramSpec(name="zip", tree_copier=True, always_follows_links=True, names_from_file=frozenset({"-@", "--names-stdin"})),
    *specs("7z rar scp gsutil aws az", tree_copier=True, always_follows_links=True),
    ProgramSpec(name="cpio", tree_copier=True, names_from_file=frozenset({"-o", "--create", "-p", "--pass-through"})),
    # They name files without reading what is in them.
    ProgramSpec(name="rm", opens_operands=False, rule_words="exact", changes_operands=True),
    # mv replaces its target as rm deletes: Always allow adds the exact command, never Bash(mv:*)
    ProgramSpec(name="mv", rule_words="exact", changes_operands=True),
    ProgramSpec(name="ln", changes_operands=True),
    *specs("rmdir mkdir touch chmod chown chgrp unlink", opens_operands=False, changes_operands=True),
)
"""Development tools, package managers, file movers, removers."""
