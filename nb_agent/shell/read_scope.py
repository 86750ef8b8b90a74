"""Which files a read-only Bash command reads, and where it runs git (issue 11, 4 and 7).

The classifier (:mod:`nb_agent.shell.read_only`) decides that ``cat x`` cannot
change anything; this module lists what it would *read*, so the permission engine can
hold it to the scope of the Read tool (:mod:`nb_agent.permissions.read_plan`). Paths are
resolved in the directory the command runs in (the session's cwd, moved by ``cd`` inside
the command), with ``~`` and globs expanded. Anything that cannot be resolved before the
command runs (``cat "$f"`` for an unknown ``f``, ``cd "$d"``, ``xargs cat``) makes the
plan unknown, which asks.
"""

from __future__ import annotations

import glob as globbing
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from nb_agent.shell.command_parts import CommandAnalysis, CommandPart
from nb_agent.shell.git_repo import discover_repository, git_run_problem
from nb_agent.shell.options import may_give
from nb_agent.shell.parse import Loop, Redirect
from nb_agent.shell.parse_words import Word
from nb_agent.shell.programs import ProgramSpec, program_spec
from nb_agent.shell.read_plan import PathRead, ReadKind, ReadPlan

__all__ = ["bash_read_plan"]

# Long options whose values are never paths (git log --since="$since").
_NON_PATH_LONG = frozenset(
    "since until after before author committer grep format pretty date max-count "
    "regexp glob iglob type sort color colors".split()
)
_MAX_GLOB_MATCHES = 2000
_WRITE_OPERATORS = frozenset({">", ">>", "&>", "&>>", ">|", ">&", "<>"})
_HOME_PATH = re.compile(r'"?\$(?:HOME|\{HOME\})(/[^$`"\'\\*?\[\]{}~]*)?"?')
# Anything that may give HOME another value in the line (`HOME=/x`, `export HOME`, `read HOME`),
# or split it differently (`IFS=/`).
_HOME_NAMED = re.compile(r"(?<![$\w{])HOME\b|IFS")
_SIMPLE_VARIABLE = re.compile(r'"?\$(?:\{)?([A-Za-z_][A-Za-z0-9_]*)(?:\})?"?')


class _Unknown(Exception):
    """The reads cannot be listed statically; the message says why."""


@dataclass
class _Scope:
    cwds: set[Path]
    cwd_known: bool
    home: Path
    env: Mapping[str, str]
    loops: dict[str, Loop]
    home_reassigned: bool = False
    reads: list[PathRead] = field(default_factory=list)
    writes: list[PathRead] = field(default_factory=list)


def bash_read_plan(
    analysis: CommandAnalysis,
    *,
    cwd: Path,
    project_dir: Path,
    home: Path,
    env: Mapping[str, str] | None = None,
    parts: Sequence[CommandPart] | None = None,
    with_writes: bool = False,
    git_allowed: bool = True,
) -> ReadPlan:
    """The reads of ``parts`` (default: every part) of a read-only command line.

    ``cwd`` is where the command starts; ``project_dir`` the session's starting directory
    (git is judged against its repository). ``with_writes`` also lists the literal
    targets of output redirections (``> x``, ``>> x``, ``&> x``) as ``writes``.
    ``git_allowed=False`` (an untrusted folder): any git command asks.
    """
    env = os.environ if env is None else env
    selected = {id(part) for part in (analysis.parts if parts is None else parts)}
    scope = _Scope(cwds={cwd}, cwd_known=True, home=home, env=env,
                   loops={loop.name: loop for loop in analysis.parsed.loops},
                   home_reassigned=bool(_HOME_NAMED.search(analysis.source)))
    try:
        for part in analysis.parts:
            argv = _command_argv(part)
            spec = program_spec(argv[0].value) if argv and argv[0].is_literal else None
            if spec is not None and spec.changes_directory is not None:
                _change_directory(scope, spec, argv[1:])
            if id(part) not in selected or spec is None:
                continue
            name = argv[0].value
            if spec.uses_repository:
                if not git_allowed:
                    raise _Unknown(f"{name} reads the repository's configuration, and this folder is not trusted")
                if problem := git_run_problem(scope.cwds, project_dir=project_dir, env=env):
                    raise _Unknown(problem)
                if spec.reads_repository is not None and spec.reads_repository(argv[1:]):
                    _add_work_trees(scope)
            if spec.wrapper == "input" or any(program_spec(wrapper).wrapper == "input" for wrapper in part.unwrapped.wrappers):
                raise _Unknown("xargs passes paths it reads from its input")
            if any(word.is_literal and _reads_names_from_file(spec, word.value) for word in argv[1:]):
                raise _Unknown(f"{name} reads the names of the files it reads from a file")
            _command_reads(scope, spec, argv[1:])
            _add_redirects(scope, part.simple.redirects, with_writes=with_writes)
        _add_redirects(scope, analysis.parsed.redirects, with_writes=with_writes)  # `{ ...; } < file` too
    except _Unknown as unknown:
        return ReadPlan(unknown=str(unknown))
    writes = tuple(dict.fromkeys(write.path for write in scope.writes))
    return ReadPlan(reads=tuple(dict.fromkeys(scope.reads)), writes=writes)


def _add_redirects(scope: _Scope, redirects: Iterable[Redirect], *, with_writes: bool) -> None:
    for redirect in redirects:
        target = redirect.target
        if target is None:
            continue
        if redirect.operator in ("<", "<>"):
            _add_word(scope, target, "file")
        if with_writes and redirect.operator in _WRITE_OPERATORS and not target.value.isdigit():
            _add_word(scope, target, "file", into=scope.writes)


def _command_argv(part: CommandPart) -> tuple[Word, ...]:
    """The argv past every wrapper peeled (``sudo cat x`` reads ``x``; a wrapper whose
    options were not understood stays, and its words are all taken as paths)."""
    return part.unwrapped.layers[-1]


def _reads_names_from_file(spec: ProgramSpec, option: str) -> bool:
    """``--files0-from=LIST`` (sort, wc, du; GNU accepts any unambiguous abbreviation such
    as ``--files0`` or ``wc --f``), ``--files-from``: the paths come from a file's contents.
    (``rg --files`` and ``grep --file`` are other options.)"""
    name = option.partition("=")[0]
    if name.startswith(("--files0", "--files-f")):
        return True
    return len(name) >= 3 and any(known.startswith(name) for known in spec.names_from_file)


def _change_directory(scope: _Scope, spec: ProgramSpec, args: Sequence[Word]) -> None:
    operands = [arg for arg in args if not (arg.is_literal and arg.value.startswith("-") and arg.value != "-")]
    if spec.changes_directory == "popd" or (operands and operands[0].is_literal and operands[0].value == "-"):
        scope.cwd_known = False
        return
    if not operands:
        targets = {scope.home} if spec.changes_directory == "cd" else set()
    else:
        word = operands[0]
        if not word.is_literal and not _is_plain_tilde(word):
            scope.cwd_known = False
            return
        text = word.value
        if "CDPATH" in scope.env and not text.startswith(("/", "./", "../", "~")) and text not in (".", ".."):
            scope.cwd_known = False  # bash may find it under a CDPATH entry
            return
        targets = {_resolve(text, cwd, scope.home) for cwd in scope.cwds}
    # The cd may fail, or run in a subshell: later commands may run in either directory.
    scope.cwds |= targets


def _command_reads(scope: _Scope, spec: ProgramSpec, args: Sequence[Word]) -> None:
    if spec.access == "none":
        return
    kind: ReadKind = "names" if spec.access == "names" else "file"
    skip = _program_operand(spec, args)
    operands = 0
    previous: Word | None = None
    for index, word in enumerate(args):
        text_value = previous is not None and previous.is_literal and previous.value in spec.text_options
        previous = word
        if index == skip or text_value:
            continue
        if not word.value.startswith("-"):
            operands += 1
        _add_word(scope, word, kind)
    if spec.lists_working_directory:
        _add_cwds(scope, "names")
    if (spec.always_recursive or may_give(args, spec.recursive)) and operands == 0:
        _add_cwds(scope, "tree")


def _program_operand(spec: ProgramSpec, args: Sequence[Word]) -> int | None:
    """Index of the program/pattern operand (``grep PATTERN``, ``awk PROGRAM``), if any."""
    if spec.operands != "pattern_then_paths" or spec.options is None:
        return None
    given = spec.pattern_options
    if any(arg.is_literal and (arg.value in given or arg.value.partition("=")[0] in given) for arg in args):
        return None  # the program came from an option; every operand is a path
    valued = {name[1] for name in spec.options.valued if len(name) == 2}
    index = 0
    while index < len(args):
        text = args[index].value
        if text == "--":
            return index + 1
        if not text.startswith("-") or text == "-":
            return index
        if len(text) == 2 and text[1] in valued:
            index += 1  # the option's value is the next word
        index += 1
    return None


def _add_work_trees(scope: _Scope) -> None:
    """The whole work tree of the repository git uses (it may lie above the cwd)."""
    _add_cwds(scope, "tree")
    for cwd in scope.cwds:
        found = discover_repository(Path(os.path.realpath(cwd)))
        if found is not None and found.work_tree is not None:
            scope.reads.append(PathRead(path=found.work_tree, kind="tree"))


def _add_cwds(scope: _Scope, kind: ReadKind) -> None:
    if not scope.cwd_known:
        raise _Unknown("the command changes to a directory that is not known before it runs")
    scope.reads.extend(PathRead(path=cwd, kind=kind) for cwd in scope.cwds)


def _add_word(scope: _Scope, word: Word, kind: ReadKind, *, into: list[PathRead] | None = None) -> None:
    for text in _path_texts(scope, word):
        for candidate in _spellings(text):
            _add_path(scope, candidate, kind, into=scope.reads if into is None else into)


def _path_texts(scope: _Scope, word: Word) -> list[str]:
    """The texts a word may stand for as a path (globs and ``~`` expanded)."""
    if word.is_literal:
        return [word.value]
    if word.has_expansion:
        return _expansion_texts(scope, word)
    if word.has_brace:
        raise _Unknown(f"{word.raw} is a brace expansion")
    text = word.value
    if text.startswith("~"):
        if not _is_plain_tilde(word):
            raise _Unknown(f"{word.raw} names another user's home")
        text = str(scope.home) + text[1:]
    if word.has_glob:
        return _glob_texts(scope, text, word)
    return [text]


def _expansion_texts(scope: _Scope, word: Word) -> list[str]:
    option, equals, value = word.value.partition("=")
    if equals and option.startswith("--") and option[2:] in _NON_PATH_LONG:
        return []
    if (home := _HOME_PATH.fullmatch(word.raw)) and scope.env.get("HOME") and not scope.home_reassigned:
        return [scope.env["HOME"] + (home.group(1) or "")]  # `$HOME/.bashrc`: the home bash will use
    match = _SIMPLE_VARIABLE.fullmatch(word.raw)
    loop = scope.loops.get(match.group(1)) if match else None
    if loop is None or loop.words is None:
        raise _Unknown(f"{word.raw} is a path computed when the command runs")
    texts: list[str] = []
    for value_word in loop.words:
        if value_word.has_expansion:
            raise _Unknown(f"{word.raw} takes values computed when the command runs")
        texts.extend(_path_texts(scope, value_word))
    return texts


def _glob_texts(scope: _Scope, pattern: str, word: Word) -> list[str]:
    if not scope.cwd_known and not pattern.startswith("/"):
        raise _Unknown(f"{word.raw} is matched in a directory not known before the command runs")
    found = [pattern]
    for cwd in scope.cwds:
        matches = globbing.glob(pattern, root_dir=cwd) if not pattern.startswith("/") else globbing.glob(pattern)
        if len(matches) > _MAX_GLOB_MATCHES:
            raise _Unknown(f"{word.raw} matches more than {_MAX_GLOB_MATCHES} files")
        found.extend(matches)
    return found


def _is_plain_tilde(word: Word) -> bool:
    return not word.has_expansion and (word.value == "~" or word.value.startswith("~/"))


def _spellings(text: str) -> Iterable[str]:
    """The word, and the parts of it an option may carry a path in: after ``=``
    (``--file=x``, ``of=x``), after a short option letter (``-fx``), after ``:``
    (``HEAD:path``); and each without a leading ``@`` or ``<`` (curl's ``-d @file``,
    ``-F f=@file``, ``-F f=<file`` read the file)."""
    found = [text]
    if "=" in text:
        found.append(text.partition("=")[2])  # `--file=x`, and `dd of=x`
    if text.startswith("-") and not text.startswith("--") and len(text) > 2:
        found.append(text[2:])
    if ":" in text:
        found.append(text.partition(":")[2])
    for spelling in list(found):
        if spelling[:1] in ("@", "<"):
            found.append(spelling[1:])
    yield from dict.fromkeys(found)


def _add_path(scope: _Scope, text: str, kind: ReadKind, *, into: list[PathRead]) -> None:
    if not text or text == "-":
        return
    if text.startswith("~"):
        text = str(scope.home) + text[1:] if text == "~" or text.startswith("~/") else text
    if not text.startswith("/") and not scope.cwd_known:
        raise _Unknown(f"{text} is read in a directory not known before the command runs")
    for cwd in scope.cwds:
        path = _resolve(text, cwd, scope.home)
        read_kind: ReadKind = kind
        if kind == "file" and _maybe_directory(path):
            read_kind = "tree"  # a content reader given a directory may read all of it
        into.append(PathRead(path=path, kind=read_kind))


def _maybe_directory(path: Path) -> bool:
    """A directory, or a path that cannot be looked at (``/proc/1/root/...``: EACCES)."""
    try:
        return path.is_dir()
    except OSError:
        return True


def _resolve(text: str, cwd: Path, home: Path) -> Path:
    if text == "~" or text.startswith("~/"):
        return home / text[2:]
    path = Path(text)
    return path if path.is_absolute() else cwd / path
