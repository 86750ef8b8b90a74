"""Which ``git`` invocations only read (for the read-only classifier).

Git runs programs more often than it looks: ``-c`` and ``--config-env`` set any config
(``core.fsmonitor``, ``core.pager``, ``diff.external`` run commands), ``-C`` /
``--git-dir`` / ``--work-tree`` point it at a repository whose config and hooks are
unknown, ``--ext-diff`` / ``--textconv`` run filters and ``--output`` writes a file. So
global options are an allow-list, subcommands are an allow-list, and each subcommand
either takes a deny-list of such options (``log``, ``diff``, ...) or an allow-list of its
listing options (``branch``, ``tag``, ``config``, ...).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from nb_agent.shell.parse import Word
from nb_agent.shell.read_only_args import OptionSpec, has_denied_option, parse_options

__all__ = ["git_is_read_only"]

_GLOBAL_FLAGS = frozenset(
    {
        "--no-pager", "-P", "--no-optional-locks", "--literal-pathspecs", "--glob-pathspecs",
        "--noglob-pathspecs", "--icase-pathspecs", "--no-replace-objects", "--version",
    }
)
# Options, by long name, that run a program, write a file or talk to another repository.
# Any prefix counts: git's parse-options accepts unambiguous abbreviations.
_DENIED_LONG = (
    "output", "ext-diff", "textconv", "filters", "open-files-in-pager", "upload-pack",
    "receive-pack", "exec", "exec-path", "config-env", "git-dir", "work-tree",
)
_VIEW_SUBCOMMANDS = frozenset(
    {
        "status", "log", "show", "diff", "diff-tree", "diff-index", "diff-files", "blame",
        "annotate", "shortlog", "whatchanged", "range-diff", "rev-parse", "rev-list",
        "ls-files", "ls-tree", "cat-file", "describe", "merge-base", "name-rev", "show-ref",
        "for-each-ref", "count-objects", "check-ignore", "check-attr", "check-ref-format",
        "var", "version", "cherry", "show-branch",
    }
)
# `git grep -O` opens the matches in a pager (any program); its other short options with
# values are listed so that a value is not read as a cluster of options.
_GREP_VALUED_SHORT = "efABCm"

_LIST_FILTERS = ("--contains", "--no-contains", "--merged", "--no-merged", "--points-at")
_BRANCH = OptionSpec.of(
    flags="-a --all -r --remotes -l --list -v -vv --verbose -q --quiet --show-current "
    "--color --no-color --column --no-column -i --ignore-case --omit-empty --no-abbrev "
    + " ".join(_LIST_FILTERS),
    valued="--sort --format --abbrev",
)
_TAG = OptionSpec.of(
    flags="-l --list --color --no-color --column --no-column -i --ignore-case --omit-empty "
    + " ".join(_LIST_FILTERS),
    valued="--sort --format",
    attached="-n",
)
_REMOTE_GET_URL = OptionSpec.of(flags="--push --all")
_CONFIG_READ_MODES = ("--get", "--get-all", "--get-regexp", "--list", "-l")
_CONFIG = OptionSpec.of(
    flags="--get --get-all --get-regexp --list -l --show-origin --show-scope --name-only "
    "--null -z --global --system --local --worktree --includes --no-includes --bool --int "
    "--bool-or-int --path --expiry-date --all --regexp",
    valued="--file -f --blob --type --default",
)
_WORKTREE_LIST = OptionSpec.of(flags="--porcelain -v --verbose -z")


def git_is_read_only(args: Sequence[Word]) -> bool:
    """True when ``git <args>`` only reads the repository in the current directory."""
    index = 0
    while index < len(args) and args[index].may_be_option:
        option = args[index]
        if not option.is_literal or option.value not in _GLOBAL_FLAGS:
            return False
        index += 1
    if index == len(args):
        return True  # `git` or `git --version`: prints
    subcommand = args[index]
    if not subcommand.is_literal:
        return False
    rest = args[index + 1 :]
    if subcommand.value in _VIEW_SUBCOMMANDS:
        return _view_is_safe(rest, grep=False)
    rule = _STATEFUL_SUBCOMMANDS.get(subcommand.value)
    return rule is not None and rule(rest)


def _view_is_safe(args: Sequence[Word], *, grep: bool) -> bool:
    if grep:
        return not has_denied_option(
            args, denied_long=_DENIED_LONG, denied_short="O", valued_short=_GREP_VALUED_SHORT
        )
    return not has_denied_option(args, denied_long=_DENIED_LONG)


def _branch(args: Sequence[Word]) -> bool:
    parsed = parse_options(args, _BRANCH)
    if parsed is None:
        return False
    # Without a listing option a name creates a branch (even `git branch -v name`).
    return not parsed.positionals or parsed.has("-l", "--list", *_LIST_FILTERS)


def _tag(args: Sequence[Word]) -> bool:
    parsed = parse_options(args, _TAG)
    if parsed is None:
        return False
    return not parsed.positionals or parsed.has("-l", "--list", "-n", *_LIST_FILTERS)


def _remote(args: Sequence[Word]) -> bool:
    if all(arg.is_literal and arg.value in ("-v", "--verbose") for arg in args):
        return True
    if args and args[0].is_literal and args[0].value == "get-url":
        return parse_options(args[1:], _REMOTE_GET_URL) is not None
    return False  # add, remove, set-url, prune, update, show (network), ...


def _config(args: Sequence[Word]) -> bool:
    parsed = parse_options(args, _CONFIG)
    if parsed is None or not all(word.is_literal for word in parsed.positionals):
        return False  # `git config a.*` may expand to `git config a.b a.c`, which sets
    if parsed.has(*_CONFIG_READ_MODES):
        return len(parsed.positionals) <= 2  # name [value-pattern]
    positionals = parsed.positionals
    if len(positionals) == 1 and "." in positionals[0].value:
        return True  # `git config user.name` reads; a second operand would set it
    return bool(positionals) and positionals[0].value in ("get", "list")


def _stash(args: Sequence[Word]) -> bool:
    if args and args[0].is_literal and args[0].value in ("list", "show"):
        return _view_is_safe(args[1:], grep=False)
    return False  # bare `git stash` pushes


def _reflog(args: Sequence[Word]) -> bool:
    for arg in args:
        if arg.may_be_option:
            continue
        if not arg.is_literal or arg.value in ("expire", "delete", "drop"):
            return False
        break
    return _view_is_safe(args, grep=False)


def _worktree(args: Sequence[Word]) -> bool:
    if args and args[0].is_literal and args[0].value == "list":
        parsed = parse_options(args[1:], _WORKTREE_LIST)
        return parsed is not None and not parsed.positionals
    return False


_STATEFUL_SUBCOMMANDS: dict[str, Callable[[Sequence[Word]], bool]] = {
    "grep": lambda args: _view_is_safe(args, grep=True),
    "branch": _branch,
    "tag": _tag,
    "remote": _remote,
    "config": _config,
    "stash": _stash,
    "reflog": _reflog,
    "worktree": _worktree,
}
