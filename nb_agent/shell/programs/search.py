"""Programs whose first operand is a pattern or a program, not a path: the grep family,
``rg``, ``sed``, the awks and (in :mod:`~nb_agent.shell.programs.readers`) ``jq``.

The read scope must know which word is the pattern (it is not read) and which are paths
(they are), in every spelling the program accepts; sed scripts and awk programs are
checked by :mod:`nb_agent.shell.read_only_scripts`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from nb_agent.shell.options import Options, parse_options
from nb_agent.shell.parse_words import Word
from nb_agent.shell.programs.spec import ProgramSpec, specs
from nb_agent.shell.read_only_scripts import awk_program_is_safe, sed_script_is_safe

__all__ = ["SEARCHERS"]

_NO_MATCH = "No matches found"
_PATTERN_OPTIONS = frozenset({"-e", "--regexp", "-f", "--file"})
_PATTERN_TEXT = frozenset({"-e", "--regexp"})

_GREP = Options.of(
    flags="-a -b -c -h -i -l -n -o -q -r -s -u -v -w -x -y -z -E -F -G -H -I -L -P -R -T -U -V -Z "
    "--basic-regexp --byte-offset --count --dereference-recursive --extended-regexp --files-with-matches "
    "--files-without-match --fixed-regexp --fixed-strings --help --ignore-case --initial-tab --invert-match "
    "--line-buffered --line-number --line-regexp --no-filename --no-group-separator --no-ignore-case "
    "--no-messages --null --null-data --only-matching --perl-regexp --quiet --recursive --silent --text "
    "--unix-byte-offsets --version --with-filename --word-regexp --binary",
    valued="-d -e -f -m -A -B -C -D -X --after-context --before-context --binary-files --context --devices "
    "--directories --exclude --exclude-dir --exclude-from --file --group-separator --include --label "
    "--max-count --regexp",
    optional="--color --colour",
    abbreviations=True,
    numeric=True,
)
"""GNU grep 3.8's options (probed: ``-X`` and ``--fixed-regexp`` are undocumented)."""

_RG = Options.of(
    flags="-z -s -F -i -v -x -U -P -S -a -w -L -. -u -b -h -n -N -0 -o -p -q -H -I -c -l -V "
    "--search-zip --case-sensitive --crlf --fixed-strings --ignore-case --invert-match --line-regexp --mmap "
    "--multiline --multiline-dotall --no-unicode --null-data --pcre2 --smart-case --stop-on-nonmatch --text "
    "--word-regexp --auto-hybrid-regex --no-pcre2-unicode --binary --follow --glob-case-insensitive --hidden "
    "--ignore-file-case-insensitive --no-ignore --no-ignore-dot --no-ignore-exclude --no-ignore-files "
    "--no-ignore-global --no-ignore-parent --no-ignore-vcs --no-require-git --one-file-system --unrestricted "
    "--block-buffered --byte-offset --column --no-context-separator --heading --help --include-zero "
    "--line-buffered --line-number --no-line-number --max-columns-preview --null --only-matching --passthru "
    "--pretty --quiet --trim --vimgrep --with-filename --no-filename --sort-files --count --count-matches "
    "--files-with-matches --files-without-match --json --debug --no-ignore-messages --no-messages --stats "
    "--trace --files --no-config --pcre2-version --type-list --version "
    "--no-auto-hybrid-regex --no-binary --no-block-buffered --no-byte-offset --no-column --no-crlf "
    "--no-encoding --no-fixed-strings --no-follow --no-glob-case-insensitive --no-heading --no-hidden "
    "--no-ignore-file-case-insensitive --no-include-zero --no-invert-match --no-json --no-line-buffered "
    "--no-max-columns-preview --no-mmap --no-multiline --no-multiline-dotall --no-one-file-system "
    "--no-pcre2 --no-pre --no-search-zip --no-sort-files --no-stats --no-text --no-trim",
    valued="-e -f -E -m -j -g -d -t -T -A -B -C -M -r --regexp --file --pre --pre-glob --dfa-size-limit "
    "--encoding --engine --max-count --regex-size-limit --threads --glob --iglob --ignore-file --max-depth "
    "--max-filesize --type --type-not --type-add --type-clear --after-context --before-context --color "
    "--colors --context --context-separator --field-context-separator --field-match-separator "
    "--hostname-bin --hyperlink-format --max-columns --path-separator --replace --sort --sortr --generate",
)
"""ripgrep 14's options (its own parser: clusters and attached values, no abbreviations)."""

_SED = Options.of(
    flags="-n --quiet --silent -E -r --regexp-extended -s --separate -z --null-data "
    "--zero-terminated -u --unbuffered --posix --sandbox --debug -b --binary --follow-symlinks "
    "--help --version",
    valued="-e --expression -l --line-length -f --file",
    optional="-i --in-place",
    abbreviations=True,
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
)  # no -i/-l (extensions), no -o/-p/-d (write files), no mawk -W (-W exec reads the program)
_AWK_HIDDEN = ("-f", "--file", "-e", "--source")  # program text we cannot see, or split up
_JQ = Options.of(
    flags="-n -r -j -a -s -c -C -M -S -e -h -V -R -f --tab --seq --stream --slurp --raw-output "
    "--join-output --ascii-output --null-input --compact-output --color-output --monochrome-output "
    "--sort-keys --exit-status --unbuffered --help --version --raw-input --from-file --args --jsonargs "
    "--debug-dump-disasm --debug-trace --raw-output0 --stream-errors",
    valued="-L --indent --library-path",
    pairs="--arg --argjson --slurpfile --rawfile --argfile",
)
"""jq 1.6-1.7 (its own parser; ``-f`` is a flag: the first operand is then the filter's file)."""

_JQ_MODULES = re.compile(r"\b(?:import|include|modulemeta|get_search_list)\b")


def _jq(args: Sequence[Word]) -> bool:
    # `import "x" as y;` and `include` load .jq files from ~/.jq and -L directories,
    # which no path argument names; a filter we cannot see could do the same.
    if any(arg.value.startswith(("-L", "--library-path", "--l")) for arg in args):
        return False
    return not any(_JQ_MODULES.search(arg.value) or (arg.has_expansion and not arg.value.startswith("-"))
                   for arg in args)



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
        follows_links=frozenset({"-R", "--dereference-recursive"}),
        names_from_file=frozenset({"--exclude-from"}),
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
        follows_links=frozenset({"-L", "--follow"}),
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
    ProgramSpec(
        name="jq",
        options=_JQ,
        read_only="check",
        check=_jq,
        operands="pattern_then_paths",
        pattern_options=frozenset({"-f", "--from-file"}),
        text_options=frozenset({"--arg", "--argjson", "--indent"}),
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
