"""Which files a Bash command reads, and where it runs git (issue 11, 4 and 7; issue 21 §3).

The classifier (:mod:`nb_agent.shell.read_only`) decides that ``cat x`` cannot
change anything; this module lists what it would *read*, so the permission engine can
hold it to the scope of the Read tool (:mod:`nb_agent.permissions.read_plan`), and the
shell guard can hold every command to Read's deny rules. Paths are resolved in the
directory the command runs in (the session's cwd, moved by ``cd`` inside the command),
with ``~`` and globs expanded as bash expands them (:mod:`nb_agent.shell.read_words`).

What a program reads is decided by its spec (:mod:`nb_agent.shell.programs`): with an
option grammar, its words are parsed the way the program parses them (attached values,
``=`` forms, abbreviations, clusters), so the pattern of ``grep -e. FILE`` is ``.`` and
``FILE`` is read; without one, or when the words do not parse, every word and every
part of a word that may be a path counts as read. Recursion over a directory is a read
of the whole tree; when the program follows symbolic links, of every link's target too.
Anything that cannot be resolved before the command runs (``cat "$f"`` for an unknown
``f``, ``cd "$d"``, ``xargs cat``, ``--files-from``) makes the plan unknown, which asks.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from nb_agent.shell.command_parts import CommandAnalysis, CommandPart
from nb_agent.shell.git_repo import discover_repository, git_run_problem
from nb_agent.shell.links import link_targets
from nb_agent.shell.options import ParsedArgs, may_give, parse_options
from nb_agent.shell.parse import Redirect
from nb_agent.shell.parse_words import Word
from nb_agent.shell.programs import ProgramSpec, program_spec
from nb_agent.shell.read_plan import PathRead, ReadKind, ReadPlan
from nb_agent.shell.read_words import (
    Unknown,
    WordScope,
    add_cwds,
    add_word,
    expand_words,
    is_plain_tilde,
    resolve,
    word_texts,
)

__all__ = ["bash_read_plan"]

_WRITE_OPERATORS = frozenset({">", ">>", "&>", "&>>", ">|", ">&", "<>"})
# Anything that may give HOME another value in the line (`HOME=/x`, `export HOME`, `read HOME`),
# or split it differently (`IFS=/`).
_HOME_NAMED = re.compile(r"(?<![$\w{])HOME\b|IFS")
# Shell state that changes what a glob matches: GLOBIGNORE (which turns dotglob on) and
# options handed down in the environment; `shopt` and `set` in the line are found by name.
_GLOB_VARIABLES = ("GLOBIGNORE", "BASHOPTS", "SHELLOPTS", "BASH_ENV")
_GLOB_BUILTINS = frozenset({"shopt", "set"})
_UNKNOWN_PROGRAM = ProgramSpec(name="<computed>")


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
    scope = WordScope(cwds={cwd}, cwd_known=True, home=home, env=env,
                      loops={loop.name: loop for loop in analysis.parsed.loops},
                      home_reassigned=bool(_HOME_NAMED.search(analysis.source)),
                      glob_state_changed=_glob_state_changed(analysis, env))
    posix_order = "POSIXLY_CORRECT" in env or "POSIXLY_CORRECT" in analysis.source
    try:
        for part in analysis.parts:
            argv = _command_argv(part)
            if not argv:
                continue
            # A computed program name (`$c .env`) still reads its literal operands.
            spec = program_spec(argv[0].value) if argv[0].is_literal else _UNKNOWN_PROGRAM
            if spec.changes_directory is not None:
                _change_directory(scope, spec, argv[1:])
            if id(part) not in selected:
                continue
            name = argv[0].value
            if spec.uses_repository:
                if not git_allowed:
                    raise Unknown(f"{name} reads the repository's configuration, and this folder is not trusted")
                if problem := git_run_problem(scope.cwds, project_dir=project_dir, env=env):
                    raise Unknown(problem)
                if spec.reads_repository is not None and spec.reads_repository(argv[1:]):
                    _add_work_trees(scope)
            if spec.wrapper == "input" or any(program_spec(wrapper).wrapper == "input" for wrapper in part.unwrapped.wrappers):
                _partly_unknown(scope, "xargs passes paths it reads from its input")
            if any(word.is_literal and _files_from_option(word.value) for word in argv[1:]):
                _partly_unknown(scope, f"{name} reads the names of the files it reads from a file")
            _command_reads(scope, spec, argv[1:], posix_order=posix_order)
            _add_redirects(scope, part.simple.redirects, with_writes=with_writes)
        _add_redirects(scope, analysis.parsed.redirects, with_writes=with_writes)  # `{ ...; } < file` too
    except Unknown as unknown:
        return ReadPlan(unknown=str(unknown))
    writes = tuple(dict.fromkeys(write.path for write in scope.writes))
    return ReadPlan(reads=tuple(dict.fromkeys(scope.reads)), writes=writes, unknown=scope.partly_unknown)


def _partly_unknown(scope: WordScope, reason: str) -> None:
    """Some reads come from a list only known when the command runs; the rest are still
    listed (the shell guard holds them to Read's deny rules)."""
    scope.partly_unknown = scope.partly_unknown or reason


def _add_redirects(scope: WordScope, redirects: Iterable[Redirect], *, with_writes: bool) -> None:
    for redirect in redirects:
        target = redirect.target
        if target is None:
            continue
        if redirect.operator in ("<", "<>"):
            add_word(scope, target, "file")
        if with_writes and redirect.operator in _WRITE_OPERATORS and not target.value.isdigit():
            add_word(scope, target, "file", into=scope.writes)


def _command_argv(part: CommandPart) -> tuple[Word, ...]:
    """The argv past every wrapper peeled (``sudo cat x`` reads ``x``; a wrapper whose
    options were not understood stays, and its words are all taken as paths)."""
    return part.unwrapped.layers[-1]


def _files_from_option(option: str) -> bool:
    """``--files0-from=LIST``, ``--files-from``, in any program, abbreviated or not: the
    paths come from a file's contents. (Each program's own such options are in its spec;
    ``rg --files`` and ``grep --file`` are other options.)"""
    return option.partition("=")[0].startswith(("--files0", "--files-f"))


def _change_directory(scope: WordScope, spec: ProgramSpec, args: Sequence[Word]) -> None:
    operands = [arg for arg in args if not (arg.is_literal and arg.value.startswith("-") and arg.value != "-")]
    if spec.changes_directory == "popd" or (operands and operands[0].is_literal and operands[0].value == "-"):
        scope.cwd_known = False
        return
    if not operands:
        targets = {scope.home} if spec.changes_directory == "cd" else set()
    else:
        word = operands[0]
        if not word.is_literal and not is_plain_tilde(word):
            scope.cwd_known = False
            return
        text = word.value
        if "CDPATH" in scope.env and not text.startswith(("/", "./", "../", "~")) and text not in (".", ".."):
            scope.cwd_known = False  # bash may find it under a CDPATH entry
            return
        targets = {resolve(text, cwd, scope.home) for cwd in scope.cwds}
    # The cd may fail, or run in a subshell: later commands may run in either directory.
    scope.cwds |= targets


def _glob_state_changed(analysis: CommandAnalysis, env: Mapping[str, str]) -> bool:
    """May the line or its environment change how bash matches globs?"""
    if any(name in env for name in _GLOB_VARIABLES):
        return True
    if any(name in analysis.source for name in _GLOB_VARIABLES):
        return True
    return any(
        layer and layer[0].is_literal and layer[0].value in _GLOB_BUILTINS
        for part in analysis.parts for layer in part.unwrapped.layers
    )


@dataclass(frozen=True, kw_only=True)
class _Reading:
    """How one command reads, as its words say."""

    kind: ReadKind
    """What it reads of a path operand: ``file`` (contents; a directory: all of it) or ``names``."""
    recursive: bool
    follows_links: bool
    has_path_operand: bool


def _command_reads(scope: WordScope, spec: ProgramSpec, args: Sequence[Word], *, posix_order: bool) -> None:
    if spec.access == "none":
        return
    start = len(scope.reads)
    args = expand_words(scope, args)
    parsed = None
    if spec.options is not None and not (posix_order and not spec.options.stop_at_operand):
        parsed = parse_options(args, spec.options, abbreviations=True)
    reading = _parsed_reads(scope, spec, parsed) if parsed is not None else _all_words_read(scope, spec, args)
    if spec.lists_working_directory or (reading.recursive and not reading.has_path_operand):
        # `ls`, `find`: the names here; `grep -r x`, `rg x`: everything here
        add_cwds(scope, "tree" if reading.recursive and reading.kind == "file" else "names")
    if reading.follows_links and (reading.recursive or spec.tree_copier):
        _add_link_targets(scope, start, reading.kind)


def _parsed_reads(scope: WordScope, spec: ProgramSpec, parsed: ParsedArgs) -> _Reading:
    """The reads of words parsed with the program's grammar."""
    kind: ReadKind = "names" if spec.access == "names" else "file"
    recursive, follows, pattern_given = spec.always_recursive, spec.always_follows_links, False
    for name, value in parsed.options:
        if name in spec.names_from_file:
            _partly_unknown(scope, f"{spec.name} {name} reads the names of the files it reads from a file")
        recursive = recursive or (name in spec.recursive and _recursion_on(value))
        follows = follows or name in spec.follows_links
        pattern_given = pattern_given or name in spec.pattern_options
        if value is not None and name not in spec.text_options:
            add_word(scope, value, "file")  # `-f FILE`, `--file=FILE`, `-rfFILE`
    operands = list(parsed.positionals)
    if spec.operands == "pattern_then_paths" and not pattern_given:
        operands = operands[1:]  # the pattern or program
    paths = [word for word in operands if not (word.is_literal and word.value == "-")]
    for word in paths:
        add_word(scope, word, kind)
    return _Reading(kind=kind, recursive=recursive, follows_links=follows, has_path_operand=bool(paths))


def _all_words_read(scope: WordScope, spec: ProgramSpec, args: Sequence[Word]) -> _Reading:
    """Words no grammar parsed: every word, and every part of one that may be a path, is
    read; recursion and link following are assumed whenever a word may ask for them."""
    if spec.names_from_file and any(may_give(word_texts(scope, word), spec.names_from_file) for word in args):
        _partly_unknown(scope, f"{spec.name} may read the names of the files it reads from a file")
    kind: ReadKind = "names" if spec.access == "names" else "file"
    for word in args:
        add_word(scope, word, kind)
    recursive = spec.always_recursive or may_give(args, spec.recursive)
    follows = spec.always_follows_links or may_give(args, spec.follows_links)
    return _Reading(kind=kind, recursive=recursive, follows_links=follows, has_path_operand=False)


def _recursion_on(value: Word | None) -> bool:
    """``-r`` takes no value; ``--directories=recurse`` (GNU: any unambiguous prefix) does."""
    if value is None or not value.is_literal:
        return True
    return len(value.value) >= 3 and "recurse".startswith(value.value)


def _add_link_targets(scope: WordScope, start: int, kind: ReadKind) -> None:
    """Every link below the trees this command reads is followed: its target is read too."""
    roots = [read.path for read in scope.reads[start:] if read.kind == "tree" or (kind == "names" and read.kind == "names")]
    targets = link_targets(roots)
    if targets is None:
        raise Unknown("it follows symbolic links through more files than this check looks at")
    for target in targets:
        scope.reads.append(PathRead(path=target, kind=kind if kind == "names" else ("tree" if target.is_dir() else "file")))


def _add_work_trees(scope: WordScope) -> None:
    """The whole work tree of the repository git uses (it may lie above the cwd)."""
    add_cwds(scope, "tree")
    for cwd in scope.cwds:
        found = discover_repository(Path(os.path.realpath(cwd)))
        if found is not None and found.work_tree is not None:
            scope.reads.append(PathRead(path=found.work_tree, kind="tree"))
