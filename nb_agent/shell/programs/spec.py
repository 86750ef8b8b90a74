"""One program's facts, as every Bash decision needs them (issue 23, item 2).

A :class:`ProgramSpec` answers every question the read-only classifier, the read scope,
the shell guard, the Bash rules, rule suggestions and the Bash tool ask about a program:
its option grammar, which options write or run something, what its operands are, what it
reads of them, whether it runs a command of its own, how to suggest a rule for it. A
program that needs code for an answer says so with a hook (``check`` for ``sed``,
``awk``, ``git``, ``test``...).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from nb_agent.shell.options import Options, has_denied_option, parse_options
from nb_agent.shell.parse_words import Word

__all__ = [
    "Access",
    "ArgumentCheck",
    "CommandString",
    "DirectoryChange",
    "Operands",
    "Peel",
    "ProgramSpec",
    "ReadOnly",
    "RuleWords",
    "WrapperKind",
    "specs",
]

ArgumentCheck = Callable[[Sequence[Word]], bool]
"""A check of the words after the program name."""
Peel = Callable[["ProgramSpec", Sequence[Word]], "Sequence[Word] | None"]
"""What a wrapper runs, given its arguments; ``None`` when they are not understood."""

ReadOnly = Literal["never", "always", "version", "options", "unless_denied", "check"]
"""``never``; ``always`` (no option writes or runs anything); ``version`` (only
``--version``); ``options`` (every option known to the grammar, none in ``writes`` or
``runs``); ``unless_denied`` (any option but those in ``writes`` and ``runs``, in any
abbreviation: programs with too many harmless options to list); ``check`` (``check``)."""
Operands = Literal["paths", "pattern_then_paths", "none"]
"""What the words that are not options are: paths; a pattern or program first (unless an
option gave it), then paths; nothing read."""
Access = Literal["content", "names", "none"]
"""What the program reads of the paths it is given: their contents (a directory: all of
it), only names and metadata (of a directory's entries too), or nothing."""
WrapperKind = Literal["scheduling", "detaching", "other", "input"]
"""How a program runs the rest of its argv: changing only scheduling or buffering
(``timeout``, ``nice``: allow rules and the read-only check look through it); the same
but writing a file of its own (``nohup``: allow rules look through it); changing who
runs it, its environment or anything else (``sudo``, ``env``, ``ionice``: only deny and
ask rules look through it); with words read from its input appended (``xargs``)."""
DirectoryChange = Literal["cd", "pushd", "popd"]
"""How a builtin moves the shell: to its operand, else home (``cd``); to its operand,
else nowhere known to us (``pushd``); back along the directory stack (``popd``)."""
RuleWords = Literal["exact", "program", "subcommand"]
"""The rule an "Always allow" answer suggests: the exact command (its prefix would allow
anything: shells, ``rm``, wrappers); ``Bash(prog:*)``; ``Bash(prog sub:*)``."""


@dataclass(frozen=True, kw_only=True)
class CommandString:
    """How a program takes a command line of its own as a string (``sh -c 'rm x'``)."""

    kind: Literal["shell", "option", "joined"]
    """``shell``: a short option cluster holding ``c`` (``sh -ec STRING``); ``option``: the
    value of one of ``options`` (``su -c STRING``, ``env -S STRING``); ``joined``: all
    its arguments joined by spaces (``eval``, ``watch``)."""
    options: frozenset[str] = frozenset()


@dataclass(frozen=True, kw_only=True)
class ProgramSpec:
    """Everything the Bash decisions know about one program."""

    name: str
    options: Options | None = None
    """The option grammar, when known (``None``: any word may be any option)."""
    writes: frozenset[str] = frozenset()
    """Options that write files (``sort -o``)."""
    runs: frozenset[str] = frozenset()
    """Options that run programs (``rg --pre``, ``find -exec``)."""
    read_only: ReadOnly = "never"
    check: ArgumentCheck | None = None
    """The read-only check of its arguments, for ``read_only="check"``."""
    operands: Operands = "paths"
    pattern_options: frozenset[str] = frozenset()
    """Options that give the pattern or program (``grep -e``, ``sed -f``): then every
    operand is a path."""
    text_options: frozenset[str] = frozenset()
    """Options whose value is never a path (a pattern, a separator, a variable): not read."""
    access: Access = "content"
    opens_operands: bool = True
    """False for programs that change the files they name without reading them (``rm``,
    ``chmod``): a Read deny rule is not about them."""
    lists_working_directory: bool = False
    """Reads the names in the directory it runs in, whatever its operands (``ls``, ``find``)."""
    recursive: frozenset[str] = frozenset()
    """Options that make it read every file below a directory (``grep -r``)."""
    always_recursive: bool = False
    """Reads every file below the directory it runs in when given no path (``rg``)."""
    follows_links: frozenset[str] = frozenset()
    """Options that make its recursion follow symbolic links (``grep -R``, ``rg -L``)."""
    always_follows_links: bool = False
    """Its recursion follows symbolic links whatever its options (``zip -r``, ``scp -r``)."""
    names_from_file: frozenset[str] = frozenset()
    """Options by which it takes the list of files it reads from a file or its input
    (``--files0-from``, ``tar -T``, ``md5sum -c``, ``grep --exclude-from``)."""
    wrapper: WrapperKind | None = None
    peel: Peel | None = None
    """For a wrapper whose argv needs code to find what it runs (``timeout DURATION``)."""
    runs_argv_tail: bool = False
    """Runs part of its argv as a command in a way :attr:`wrapper` does not model
    (``watch``, ``flock f cmd``, ``find -exec``): deny rules see every tail of its argv."""
    command_string: CommandString | None = None
    tree_copier: bool = False
    """Reads or sends every file under a directory it is given, even when it also writes
    (``cp -r``, ``tar``, ``rsync``, ``git``, ``curl``)."""
    changes_operands: bool = False
    """Creates, replaces, moves or removes the files it names (``mv``, ``cp``, ``rm``,
    ``touch``): an allow rule for the program covers them only within the working directories."""
    benign_exit_1: str | None = None
    """What exit code 1 means when it is an answer, not a failure (``grep``: no match)."""
    rule_words: RuleWords = "program"
    changes_directory: DirectoryChange | None = None
    uses_repository: bool = False
    """Reads the configuration and hooks of the repository it runs in (``git``)."""
    reads_repository: ArgumentCheck | None = None
    """Given its arguments: may it print files of the repository that no operand names
    (``git log -p``)?"""
    configures: Callable[[Sequence[Word]], str | None] | None = None
    """Given its arguments: why it may change configuration that later runs commands."""

    def read_only_arguments(self, args: Sequence[Word]) -> bool:
        """Can the program, given ``args`` (the words after its name), only read?"""
        match self.read_only:
            case "always":
                return True
            case "version":
                return all(arg.is_literal for arg in args) and [arg.value for arg in args] == ["--version"]
            case "options":
                if self.options is None:
                    return False
                parsed = parse_options(args, self.options)
                return parsed is not None and not any(name in self.writes or name in self.runs for name, _ in parsed.options)
            case "unless_denied":
                return not self.has_denied_option(args)
            case "check":
                return self.check is not None and self.check(args)
        return False

    def has_denied_option(self, args: Sequence[Word]) -> bool:
        """Is any word one of :attr:`writes` or :attr:`runs`, in any spelling?"""
        denied = self.writes | self.runs
        valued = self.options.valued if self.options is not None else frozenset()
        return has_denied_option(
            args,
            denied_long=[name[2:] for name in denied if name.startswith("--")],
            denied_short="".join(name[1] for name in denied if len(name) == 2 and name[0] == "-"),
            valued_short="".join(name[1] for name in valued if len(name) == 2),
            valued_long=[name[2:] for name in valued if name.startswith("--")],
        )


def specs(names: str, **facts: Any) -> tuple[ProgramSpec, ...]:
    """One spec per whitespace-separated name, all with the same ``facts``."""
    return tuple(ProgramSpec(name=name, **facts) for name in names.split())
