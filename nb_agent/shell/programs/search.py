"""Programs whose first operand is a pattern or a program, not a path: the grep family,
``rg``, ``sed``, the awks and (in :mod:`~nb_agent.shell.programs.readers`) ``jq``.

The read scope must know which word is the pattern (it is not read) and which are paths
(they are), in every spelling the program accepts; sed scripts and awk programs are
checked by :mod:`nb_agent.shell.read_only_scripts`.
"""

from __future__ import annotations

from collections.abc import Sequence

from nb_agent.shell.options import Options, parse_options
from nb_agent.shell.parse_words import Word
from nb_agent.shell.programs.spec import ProgramSpec, specs
from nb_agent.shell.read_only_scripts import awk_program_is_safe, sed_script_is_safe

__all__ = ["SEARCHERS"]

_NO_MATCH = "No matches found"
_PATTERN_OPTIONS = frozenset({"-e", "--regexp", "-f", "--file"})
_PATTERN_TEXT = frozenset({"-e", "--regexp"})

_GREP = Options.of(valued="-e -f -m -A -B -C -d -D --regexp --file")

_RG = Options.of(
    valued="-e -f -g -t -T -m -A -B -C -j -M -E -r -d --regexp --file --glob --iglob --type "
    "--type-not --max-count --context --after-context --before-context --threads --max-columns "
    "--encoding --replace --max-depth --type-add --sort --sortr --colors --max-filesize "
    "--context-separator",
)

_SED = Options.of(
    flags="-n --quiet --silent -E -r --regexp-extended -s --separate -z --null-data "
    "--zero-terminated -u --unbuffered --posix --sandbox --debug -b --binary --help --version",
    valued="-e --expression -l --line-length -f --file",
    optional="-i --in-place",
)  # -f: a script we cannot see


def _sed(args: Sequence[Word]) -> bool:
    parsed = parse_options(args, _SED)
    if parsed is None or parsed.has("-i", "--in-place", "-f", "--file"):
        return False
    scripts = parsed.values("-e", "--expression")
    if not scripts:
        if not parsed.positionals:
            return False
        scripts = [parsed.positionals[0]]
    if not all(script.is_literal for script in scripts):
        return False
    return sed_script_is_safe("\n".join(script.value for script in scripts))


_AWK = Options.of(
    flags="--posix --traditional --re-interval --sandbox -b --characters-as-bytes",
    valued="-F --field-separator -v --assign -f --file -e --source",
    stop_at_operand=True,
)  # no -i/-l (extensions), no -o/-p/-d (write files)
_AWK_HIDDEN = ("-f", "--file", "-e", "--source")  # program text we cannot see, or split up


def _awk(args: Sequence[Word]) -> bool:
    parsed = parse_options(args, _AWK)
    if parsed is None or not parsed.positionals or parsed.has(*_AWK_HIDDEN):
        return False
    program = parsed.positionals[0]
    return program.is_literal and awk_program_is_safe(program.value)


SEARCHERS: tuple[ProgramSpec, ...] = (
    *specs(
        "grep egrep fgrep",
        options=_GREP,
        read_only="always",
        operands="pattern_then_paths",
        pattern_options=_PATTERN_OPTIONS,
        text_options=_PATTERN_TEXT,
        recursive=frozenset({"-r", "-R", "--recursive", "--dereference-recursive", "-d", "--directories"}),
        benign_exit_1=_NO_MATCH,
    ),
    ProgramSpec(
        name="rg",
        options=_RG,
        runs=frozenset({"--pre", "--hostname-bin"}),
        read_only="unless_denied",
        operands="pattern_then_paths",
        pattern_options=_PATTERN_OPTIONS,
        text_options=_PATTERN_TEXT,
        always_recursive=True,
        benign_exit_1=_NO_MATCH,
    ),
    ProgramSpec(
        name="sed",
        options=_SED,
        writes=frozenset({"-i", "--in-place"}),
        read_only="check",
        check=_sed,
        operands="pattern_then_paths",
        pattern_options=frozenset({"-e", "--expression", "-f", "--file"}),
        text_options=frozenset({"-e", "--expression"}),
    ),
    *specs(
        "awk gawk mawk nawk",
        options=_AWK,
        read_only="check",
        check=_awk,
        operands="pattern_then_paths",
        pattern_options=frozenset({"-f", "--file", "-e", "--source"}),
        text_options=frozenset({"-F", "--field-separator", "-v", "--assign", "-e", "--source"}),
    ),
)
"""Pattern-first readers."""
