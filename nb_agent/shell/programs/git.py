"""``git``: which invocations only read, what they print, what may change its configuration.

Git runs programs more often than it looks: ``-c`` and ``--config-env`` set any config
(``core.fsmonitor``, ``core.pager``, ``diff.external`` run commands), ``-C`` /
``--git-dir`` / ``--work-tree`` point it at a repository whose config and hooks are
unknown, ``--ext-diff`` / ``--textconv`` run filters and ``--output`` writes a file. So
global options are an allow-list, subcommands are an allow-list, and each subcommand
either takes a deny-list of such options (``log``, ``diff``, ...) or an allow-list of its
listing options (``branch``, ``tag``, ``config``, ...).

For the read scope, :func:`git_prints_repository` says whether a command may print files
of the repository that no operand names; where git runs, and whether that repository's
configuration runs anything, is :mod:`nb_agent.shell.git_repo`'s question.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from nb_agent.shell.options import Options, has_denied_option, parse_options
from nb_agent.shell.parse_words import Word
from nb_agent.shell.programs.spec import ProgramSpec

__all__ = ["GIT", "git_is_read_only", "git_prints_repository"]

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
_BRANCH = Options.of(
    flags="-a --all -r --remotes -l --list -v -vv --verbose -q --quiet --show-current "
    "--color --no-color --column --no-column -i --ignore-case --omit-empty --no-abbrev "
    + " ".join(_LIST_FILTERS),
    valued="--sort --format --abbrev",
)
_TAG = Options.of(
    flags="-l --list --color --no-color --column --no-column -i --ignore-case --omit-empty "
    + " ".join(_LIST_FILTERS),
    valued="--sort --format",
    optional="-n",
)
_REMOTE_GET_URL = Options.of(flags="--push --all")
_CONFIG_READ_MODES = ("--get", "--get-all", "--get-regexp", "--list", "-l")
_CONFIG = Options.of(
    flags="--get --get-all --get-regexp --list -l --show-origin --show-scope --name-only "
    "--null -z --global --system --local --worktree --includes --no-includes --bool --int "
    "--bool-or-int --path --expiry-date --all --regexp",
    valued="--file -f --blob --type --default",
)
_WORKTREE_LIST = Options.of(flags="--porcelain -v --verbose -z")


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


# --- what it prints ------------------------------------------------------------------

# Subcommands that print file contents (or search them: `log -G`); `status`, `branch`,
# `ls-files`, `rev-parse`... print names and hashes only.
_CONTENT_SUBCOMMANDS = frozenset(
    "log show diff diff-tree diff-index diff-files blame annotate whatchanged range-diff "
    "cat-file grep reflog stash format-patch archive".split()
)
# `git log` options that print commit metadata, never file contents (an allow-list:
# -p, -G, -S, -L, --word-diff... print or search contents).
_LOG_LISTING = frozenset(
    "--oneline --graph --decorate --no-decorate --all --branches --tags --remotes --no-merges "
    "--merges --reverse --abbrev-commit --no-abbrev-commit --date --format --pretty --stat "
    "--shortstat --numstat --name-only --name-status --max-count --skip --since --after "
    "--until --before --author --committer --first-parent --topo-order --date-order "
    "--no-color --color --relative-date -n".split()
)
_WIDENING = ("--follow", "-C", "--find-copies", "--find-copies-harder", "--textconv", "--no-index")


def git_prints_repository(args: Sequence[Word]) -> bool:
    """Can ``git <args>`` print the contents of files it was not given as literal paths
    (``git log -p``, ``git show HEAD``, ``git diff``, ``git grep x``, ``git cat-file -p
    SHA``, a search such as ``log -G``)? Yes unless its pathspecs, after ``--``, are all
    plain literal paths (they are then read like any operand); ``blame`` / ``annotate``
    print only the file they name."""
    index = 0
    while index < len(args) and args[index].may_be_option:
        if not args[index].is_literal or args[index].value in ("-C", "-c") or args[index].value.startswith(
            ("--git-dir", "--work-tree", "--namespace", "--super-prefix", "--config-env")
        ):
            return True  # another repository or configuration: assume the worst
        index += 1
    if index == len(args):
        return False
    subcommand = args[index]
    if not subcommand.is_literal:
        return True
    rest = args[index + 1 :]
    if subcommand.value not in _CONTENT_SUBCOMMANDS:
        return False
    if any(not word.is_literal or word.value.startswith(_WIDENING) for word in rest):
        return True  # a computed word, or history following renames / other files
    if subcommand.value in ("blame", "annotate"):
        return False
    if subcommand.value in ("log", "reflog") and all(_log_lists_only(word.value) for word in rest):
        return False  # `git log --oneline -5`: commit messages, no file contents
    words = [word.value for word in rest]
    if "--" not in words:
        return True
    pathspecs = words[words.index("--") + 1 :]
    return not pathspecs or any(spec.startswith(":") or any(c in spec for c in "*?[") for spec in pathspecs)


def _log_lists_only(word: str) -> bool:
    if not word.startswith("-") or word == "--":
        return True  # a revision, a path or a value: without a content option, log lists commits
    name = word.partition("=")[0]
    return name in _LOG_LISTING or word[1:].isdigit()


def _configures(args: Sequence[Word]) -> str | None:
    """``git config``/``remote``/``submodule`` that may write git configuration, which
    names commands git runs later (``core.hooksPath``, ``core.pager``, ``ext::`` URLs)."""
    words = [word.value for word in args if word.is_literal]
    subcommand = next((word for word in words if not word.startswith("-")), None)
    if subcommand in ("config", "remote", "submodule"):
        return f"git {subcommand} may change git configuration (.git/config, ~/.gitconfig), which can run commands"
    return None


GIT = ProgramSpec(
    name="git",
    read_only="check",
    check=git_is_read_only,
    uses_repository=True,
    reads_repository=git_prints_repository,
    configures=_configures,
    tree_copier=True,
    names_from_file=frozenset({"--pathspec-from-file"}),
    rule_words="subcommand",
)
"""git reads the repository it runs in (configuration and hooks that run commands) and
sends trees (``git add``, ``push``); its rules name the subcommand (``git commit:*``)."""
