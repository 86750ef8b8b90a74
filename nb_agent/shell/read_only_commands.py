"""The read-only allow-list: which programs, with which arguments, only read.

:data:`COMMAND_RULES` maps a command name to a check of its arguments (the words after
the name). Programs absent from it are never read-only. Programs with no option that
writes or runs anything take any arguments; the others are checked option by option,
mostly with allow-lists (see :mod:`nb_agent.shell.read_only_args`). ``xargs`` and
the wrappers (``timeout``, ``nice``) need the whole classifier and live in
:mod:`nb_agent.shell.read_only`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from nb_agent.shell.parse import Word
from nb_agent.shell.read_only_args import OptionSpec, has_denied_option, parse_options
from nb_agent.shell.read_only_git import git_is_read_only
from nb_agent.shell.read_only_scripts import awk_program_is_safe, sed_script_is_safe

__all__ = ["COMMAND_RULES", "is_safe_variable_name", "rule_for"]

ArgumentRule = Callable[[Sequence[Word]], bool]

# No option of these writes a file or runs a program, so any arguments will do.
_ANY_ARGUMENTS = frozenset(
    {
        "ls", "cat", "head", "tail", "wc", "grep", "egrep", "fgrep", "pwd", "echo", "which",
        "type", "stat", "du", "df", "cut", "tr", "diff", "cmp", "whoami", "id", "groups",
        "uname", "basename", "dirname", "realpath", "readlink", "nproc", "free", "ps",
        "seq", "true", "false", ":", "column", "nl", "od", "hexdump", "md5sum", "sha1sum",
        "sha224sum", "sha256sum", "sha384sum", "sha512sum", "b2sum", "cksum", "sum", "tac",
        "rev", "paste", "comm", "join", "fold", "expand", "unexpand", "strings", "sleep",
        "printenv", "uptime", "arch", "locale", "getconf", "zcat", "bzcat", "xzcat", "lscpu",
        "tty", "cal", "numfmt", "dirs", "whereis",
        # Builtins that change only the shell's directory (see the `cd` + `git` rule).
        "cd", "pushd", "popd",
    }
)
# Tools whose `--version` is all we allow. Not `cargo` / `rustc`: usually rustup's proxies,
# which run the toolchain a folder's `rust-toolchain.toml` names, `path = "..."` included
# (a binary the folder ships).
_VERSION_ONLY = frozenset(
    {
        "node", "npm", "java", "javac", "gcc", "g++", "clang", "make", "cmake",
        "ruby", "perl", "R", "Rscript", "jupyter", "nvcc", "docker", "uv", "julia",
    }
)
_PYTHON = re.compile(r"python[0-9.]*")
_PIP = re.compile(r"pip[0-9.]*")
_AWK_NAMES = ("awk", "gawk", "mawk", "nawk")

# Environment variables a prefixed assignment (`LC_ALL=C sort`) may set.
_SAFE_UPPERCASE_VARIABLES = frozenset(
    {
        "LANG", "LANGUAGE", "LC_ALL", "LC_COLLATE", "LC_CTYPE", "LC_MESSAGES", "LC_NUMERIC",
        "LC_TIME", "LC_MONETARY", "TZ", "NO_COLOR", "FORCE_COLOR", "CLICOLOR", "TERM",
        "COLUMNS", "LINES", "TIME_STYLE", "QUOTING_STYLE", "BLOCK_SIZE", "POSIXLY_CORRECT",
        "GREP_COLOR", "GREP_COLORS", "LS_COLORS", "PYTHONIOENCODING", "PYTHONUNBUFFERED",
        "PYTHONDONTWRITEBYTECODE", "OMP_NUM_THREADS", "CUDA_VISIBLE_DEVICES",
    }
)
# Never allowed, whatever their case: they make programs run other programs or read
# another configuration. (Other upper-case names are refused too, as unknown.)
_DANGEROUS_VARIABLES = frozenset(
    {
        "PATH", "HOME", "IFS", "ENV", "BASH_ENV", "SHELLOPTS", "BASHOPTS", "PS4",
        "PROMPT_COMMAND", "CDPATH", "PAGER", "MANPAGER", "EDITOR", "VISUAL", "BROWSER",
        "LESSOPEN", "LESSCLOSE", "SSH_ASKPASS", "RIPGREP_CONFIG_PATH", "XDG_CONFIG_HOME",
        "PYTHONPATH", "PYTHONSTARTUP", "PYTHONHOME", "NODE_OPTIONS", "PERL5OPT", "PERL5LIB",
        "RUBYOPT", "GCONV_PATH", "LOCPATH", "AWKPATH", "AWKLIBPATH", "TMPDIR",
    }
)
_DANGEROUS_PREFIXES = (
    "LD_", "DYLD_", "GIT_", "BASH_FUNC_", "PIP_", "CONDA_", "NPM_CONFIG_", "PYTHON", "JAVA",
    "_JAVA", "JDK_",
)
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def is_safe_variable_name(name: str) -> bool:
    """True for a variable a read-only command may set: lower-case or a known-harmless name."""
    if not _IDENTIFIER.fullmatch(name):
        return False  # `a[$(cmd)]`: bash evaluates the subscript
    if name in _SAFE_UPPERCASE_VARIABLES:
        return True
    upper = name.upper()
    if upper in _DANGEROUS_VARIABLES or upper.startswith(_DANGEROUS_PREFIXES):
        return False
    # Programs read upper-case variables (PYTHONUSERBASE, JAVA_TOOL_OPTIONS, ...): an
    # unknown one may be a knob that runs code. Lower-case names are the user's own.
    return any(char.islower() for char in name)


def rule_for(name: str) -> ArgumentRule | None:
    """The argument check for command ``name``; ``None`` when it is not allow-listed."""
    if name in _ANY_ARGUMENTS:
        return _any_arguments
    rule = COMMAND_RULES.get(name)
    if rule is not None:
        return rule
    if _PYTHON.fullmatch(name):
        return _python
    if _PIP.fullmatch(name):
        return _pip
    if name in _VERSION_ONLY:
        return _version_only
    return None


def _any_arguments(args: Sequence[Word]) -> bool:
    return True


def _literals(args: Sequence[Word]) -> list[str] | None:
    if not all(arg.is_literal for arg in args):
        return None
    return [arg.value for arg in args]


def _version_only(args: Sequence[Word]) -> bool:
    return _literals(args) == ["--version"]


def _python(args: Sequence[Word]) -> bool:
    values = _literals(args)
    return values is not None and len(values) == 1 and values[0] in ("--version", "-V", "-VV")


# --- tests and builtins ------------------------------------------------------------

_ARITHMETIC_TESTS = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge"})
_TEST_UNARY = frozenset(
    "-a -b -c -d -e -f -g -h -k -n -o -p -r -s -t -u -w -x -z -G -L -N -O -S".split()
)
_TEST_BINARY = frozenset("= == != < > -nt -ot -ef".split()) | _ARITHMETIC_TESTS
_INTEGER = re.compile(r"-?[0-9]+")


def _one_word(word: Word) -> bool:
    """A word the shell cannot turn into several: no unquoted expansion, glob or braces."""
    return not (word.may_split or word.has_glob or word.has_brace)


def _test(args: Sequence[Word]) -> bool:
    """``test``/``[``: `-v 'a[$(cmd)]'` and `-R` evaluate an array subscript, running it.

    test picks its operators by counting arguments *after* expansion, so a variable
    holding `-v` (a loop can set one) becomes that operator: expansions are allowed only
    as operands of a literal operator, in the fixed shapes `OP X` and `X OP Y`.
    """
    words = list(args)
    if words and words[-1].is_literal and words[-1].value == "]":
        words = words[:-1]  # `[ ... ]`
    if any(word.is_literal and word.value in ("-v", "-R") for word in words):
        return False
    if all(word.is_literal for word in words):
        return True
    if not all(word.is_literal or _one_word(word) for word in words):
        return False
    if words and words[0].is_literal and words[0].value == "!":
        words = words[1:]
    if len(words) == 1:
        return True
    if len(words) == 2:
        return words[0].is_literal and words[0].value in _TEST_UNARY
    if len(words) == 3:
        return words[1].is_literal and words[1].value in _TEST_BINARY
    return False


def _test_extended(args: Sequence[Word]) -> bool:
    """``[[ ... ]]`` fixes its operators when parsed, but `-eq` and friends evaluate their
    operands as arithmetic (`[[ x -eq 1 ]]` with x='a[$(cmd)]' runs cmd): integers only."""
    if any(arg.is_literal and arg.value in ("-v", "-R") for arg in args):
        return False
    if not any(arg.is_literal and arg.value in _ARITHMETIC_TESTS for arg in args):
        return True
    operands = [arg for arg in args if not (arg.is_literal and (
        arg.value in _ARITHMETIC_TESTS or arg.value in ("]]", "&&", "||", "!", "(", ")")))]
    return all(arg.is_literal and _INTEGER.fullmatch(arg.value) for arg in operands)


def _printf(args: Sequence[Word]) -> bool:
    # `printf -v NAME` assigns a shell variable (PATH, or `a[$(cmd)]`).
    first = args[0] if args else None
    if first is None or not first.may_be_option:
        return True
    return first.is_literal and not first.value.startswith("-v")


_READ = OptionSpec.of(flags="-r -s", valued="-d -n -N -p -t -u -a")


def _read(args: Sequence[Word]) -> bool:
    parsed = parse_options(args, _READ)
    if parsed is None:
        return False
    names = [*parsed.values("-a"), *parsed.positionals]
    return all(name.is_literal and is_safe_variable_name(name.value) for name in names)


def _env(args: Sequence[Word]) -> bool:
    # Printing the environment only: with a command, env hides what it runs.
    values = _literals(args)
    return values is not None and all(value in ("-0", "--null") for value in values)


_HOSTNAME_FLAGS = frozenset(
    {"-f", "-s", "-i", "-I", "-d", "-A", "--fqdn", "--long", "--short", "--ip-address",
     "--all-ip-addresses", "--domain", "--all-fqdns"}
)


def _hostname(args: Sequence[Word]) -> bool:
    values = _literals(args)  # a name or `-F file` sets the host name
    return values is not None and all(value in _HOSTNAME_FLAGS for value in values)


def _command(args: Sequence[Word]) -> bool:
    # `command -v NAME` looks a name up; `command NAME` would run it past our checks.
    values = _literals(args)
    return values is not None and len(values) >= 2 and values[0] in ("-v", "-V") and all(
        not value.startswith("-") for value in values[1:]
    )


# --- text tools --------------------------------------------------------------------

_SORT = OptionSpec.of(
    flags="-b -d -f -g -i -M -h -n -R -r -V -c -C -m -s -u -z --ignore-leading-blanks "
    "--dictionary-order --ignore-case --general-numeric-sort --ignore-nonprinting "
    "--month-sort --human-numeric-sort --numeric-sort --random-sort --reverse "
    "--version-sort --check --merge --stable --unique --zero-terminated --debug --help --version",
    valued="-k --key -t --field-separator -S --buffer-size -T --temporary-directory "
    "--parallel --batch-size --files0-from --random-source --sort",
)  # no -o/--output (writes), no --compress-program (runs a program)
_UNIQ = OptionSpec.of(
    flags="-c --count -d --repeated -D -u --unique -i --ignore-case -z --zero-terminated "
    "--help --version",
    valued="-f --skip-fields -s --skip-chars -w --check-chars",
    attached="--all-repeated --group",
)
_DATE = OptionSpec.of(
    flags="-u --utc --universal -R --rfc-email --debug --help --version",
    valued="-d --date -f --file -r --reference --rfc-3339",
    attached="-I --iso-8601",
)  # no -s/--set
_SED = OptionSpec.of(
    flags="-n --quiet --silent -E -r --regexp-extended -s --separate -z --null-data "
    "--zero-terminated -u --unbuffered --posix --sandbox --debug -b --binary --help --version",
    valued="-e --expression -l --line-length",
)  # no -i/--in-place (edits files), no -f (a script we cannot see)
_AWK = OptionSpec.of(
    flags="--posix --traditional --re-interval --sandbox -b --characters-as-bytes",
    valued="-F --field-separator -v --assign",
    stop_at_positional=True,
)  # no -f/-e/-i/-l (program text or extensions we cannot see), no -o/-p/-d (write files)
_XXD_VALUED = frozenset({"-c", "-cols", "-g", "-groupsize", "-l", "-len", "-o", "-offset",
                         "-s", "-seek", "-n", "-name"})
_FIND_DENIED = frozenset(
    {"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"}
)
_RG_VALUED_SHORT = "efgtTmABCjMErd"
_RG_VALUED_LONG = (
    "regexp", "file", "glob", "iglob", "type", "type-not", "max-count", "context",
    "after-context", "before-context", "threads", "max-columns", "encoding", "replace",
    "max-depth", "type-add", "sort", "sortr", "colors", "max-filesize", "context-separator",
)


def _sort(args: Sequence[Word]) -> bool:
    return parse_options(args, _SORT) is not None


def _uniq(args: Sequence[Word]) -> bool:
    parsed = parse_options(args, _UNIQ)  # a second operand is an output file
    return parsed is not None and len(parsed.positionals) <= 1 and all(
        _one_word(word) for word in parsed.positionals  # `uniq *.txt` may be two files
    )


def _date(args: Sequence[Word]) -> bool:
    parsed = parse_options(args, _DATE)  # an operand not starting with `+` sets the clock
    return parsed is not None and all(
        arg.is_literal and arg.value.startswith("+") for arg in parsed.positionals
    )


def _sed(args: Sequence[Word]) -> bool:
    parsed = parse_options(args, _SED)
    if parsed is None:
        return False
    scripts = parsed.values("-e", "--expression")
    if not scripts:
        if not parsed.positionals:
            return False
        scripts = [parsed.positionals[0]]
    if not all(script.is_literal for script in scripts):
        return False
    return sed_script_is_safe("\n".join(script.value for script in scripts))


def _awk(args: Sequence[Word]) -> bool:
    parsed = parse_options(args, _AWK)
    if parsed is None or not parsed.positionals:
        return False
    program = parsed.positionals[0]
    return program.is_literal and awk_program_is_safe(program.value)


_JQ_MODULES = re.compile(r"\b(?:import|include|modulemeta|get_search_list)\b")


def _jq(args: Sequence[Word]) -> bool:
    # `import "x" as y;` and `include` load .jq files from ~/.jq and -L directories,
    # which no path argument names; a filter we cannot see could do the same.
    if any(arg.value.startswith(("-L", "--library-path", "--l")) for arg in args):
        return False
    return not any(_JQ_MODULES.search(arg.value) or (arg.has_expansion and not arg.value.startswith("-"))
                   for arg in args)


def _xxd(args: Sequence[Word]) -> bool:
    # Options end at the input file; any word after it, `-p` included, names the output.
    index = 0
    while index < len(args):
        arg = args[index]
        if not arg.is_literal and arg.may_be_option:
            return False
        if not (arg.is_literal and arg.value.startswith("-") and len(arg.value) > 1):
            # The input file, one word (a glob may name two), and nothing after it.
            return index == len(args) - 1 and _one_word(arg)
        index += 2 if arg.value in _XXD_VALUED else 1
    return True


def _find(args: Sequence[Word]) -> bool:
    for arg in args:
        if not arg.is_literal and arg.may_be_option:
            return False  # `find "$dir"` could be `find -delete`
        if arg.is_literal and arg.value in _FIND_DENIED:
            return False
    return True


def _rg(args: Sequence[Word]) -> bool:
    # `--pre` and `--hostname-bin` run programs.
    return not has_denied_option(
        args, denied_long=("pre", "hostname-bin"), valued_short=_RG_VALUED_SHORT,
        valued_long=_RG_VALUED_LONG,
    )


def _tree(args: Sequence[Word]) -> bool:
    # `-o file` writes; `-R` writes 00Tree.html in every directory. tree takes option
    # values from the following words, so no letter of a cluster is skipped as a value.
    return not has_denied_option(args, denied_short="oR", denied_long=("output",))


def _file(args: Sequence[Word]) -> bool:
    # `-C`/`--compile` writes magic.mgc.
    return not has_denied_option(
        args, denied_short="C", denied_long=("compile",), valued_short="mfFeP"
    )


# --- package managers and GPUs -----------------------------------------------------

_PIP_COMMON = "-v --verbose -q --quiet --isolated --disable-pip-version-check --no-color " \
    "--no-input --require-virtualenv --no-cache-dir --help -h"
_PIP_SUBCOMMANDS = {
    "list": OptionSpec.of(
        flags=_PIP_COMMON + " -o --outdated -u --uptodate -e --editable -l --local --user "
        "--pre --not-required --exclude-editable --include-editable",
        valued="--format --path --exclude",
    ),
    "show": OptionSpec.of(flags=_PIP_COMMON + " -f --files"),
    "freeze": OptionSpec.of(
        flags=_PIP_COMMON + " -l --local --user --all --exclude-editable",
        valued="--path --exclude -r --requirement",
    ),
}  # no --log (writes), no --python (runs another interpreter)
_PIP_GLOBAL = frozenset(_PIP_COMMON.split())


def _pip(args: Sequence[Word]) -> bool:
    values = _literals(args)
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


_CONDA_LIST = OptionSpec.of(
    flags="--json --export -e --explicit --full-name -f --revisions -r --show-channel-urls "
    "--md5 -c --canonical --no-pip",
    valued="-n --name -p --prefix",
)
_CONDA_INFO = OptionSpec.of(flags="--envs -e --json -a --all --base -s --system")


def _conda(args: Sequence[Word]) -> bool:
    values = _literals(args)
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


_NVIDIA_SMI = OptionSpec.of(
    flags="-L --list-gpus -q --query -x --xml-format -h --help",
    valued="-i --id -d --display --query-gpu --query-compute-apps --format",
)  # no -f/--filename (writes), no settings (-pm, -r, -c, ...), no --loop


def _nvidia_smi(args: Sequence[Word]) -> bool:
    parsed = parse_options(args, _NVIDIA_SMI)
    return parsed is not None and not parsed.positionals


COMMAND_RULES: dict[str, ArgumentRule] = {
    "test": _test,
    "[": _test,
    "[[": _test_extended,
    "printf": _printf,
    "read": _read,
    "env": _env,
    "hostname": _hostname,
    "command": _command,
    "sort": _sort,
    "uniq": _uniq,
    "date": _date,
    "sed": _sed,
    **{name: _awk for name in _AWK_NAMES},
    "xxd": _xxd,
    "jq": _jq,
    "find": _find,
    "rg": _rg,
    "tree": _tree,
    "file": _file,
    "git": git_is_read_only,
    "conda": _conda,
    "nvidia-smi": _nvidia_smi,
}
"""Command name -> check of its arguments (the words after the name)."""
