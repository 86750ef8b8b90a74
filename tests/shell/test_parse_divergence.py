"""Family 2: where tree-sitter and bash might see different words, the classifier asks."""

from __future__ import annotations

import subprocess

import pytest

from nb_agent.shell.command_parts import analyse_command
from nb_agent.shell.read_only import is_read_only_command

BLANKS = (" ", "\t")


@pytest.mark.parametrize("escaped", [" ", "\t", ";", "&", "|", "<", ">", "(", ")", "#", "'", '"', "$", "`", "*"])
@pytest.mark.parametrize("template", ["sed -n 1p\\{e}\\\ne\\ touch\\ X notes.txt", "cat a\\{e}\\\nb", "grep x\\{e}\\\n-r ~"])
def test_escaped_character_before_a_continuation_is_refused(escaped: str, template: str) -> None:
    command = template.format(e=escaped)
    assert not is_read_only_command(command), command
    assert not analyse_command(command).understood or command.startswith("cat a\\") and escaped == "*"


@pytest.mark.parametrize(
    "word",
    ['"\\\t"', 'a"\\\t"b', '"x\\\t"', '"\\\t\\\t"', '"\\\tx"', '"a\\\t" b', "\"'\\\t'\"", '"\\ "'],
)
def test_backslash_blank_inside_double_quotes_is_read_as_bash_reads_it(word: str) -> None:
    # The grammar folds `\<TAB>"` into one token and loses track of the quote: such a
    # word must be refused, any other must have bash's value.
    command = f"printf '<%s>' {word}"
    bash_words = subprocess.run(["bash", "-c", command], capture_output=True, text=True, check=True).stdout
    analysis = analyse_command(command)
    if analysis.understood:
        ours = "".join(f"<{w.value}>" for w in analysis.parts[0].argv[2:])
        assert ours == bash_words, (word, ours, bash_words)
    assert not is_read_only_command(f'awk "BEGIN {{ x = {word} }} {{ \\"id\\" | getline }}"')


@pytest.mark.parametrize("blank", ["", " ", "\t"])
def test_continuation_before_an_empty_line_is_refused(blank: str) -> None:
    # `wc \<newline><newline> -l x`: bash runs `wc`, then `-l x`; the grammar sees one command.
    assert not is_read_only_command(f"wc{blank} \\\n\n -l notes.txt")
    assert not is_read_only_command(f"ls{blank} \\\n\nrm -rf x")


@pytest.mark.parametrize("digits", ["0", "1", "2", "3", "{fd}"])
def test_continuation_between_a_number_and_a_redirection_is_refused(digits: str) -> None:
    for operator in (">/dev/null", ">&1", "<notes.txt", ">>/dev/null", "<&0"):
        assert not is_read_only_command(f"ls {digits}\\\n{operator}"), (digits, operator)


@pytest.mark.parametrize("glued", ["0>&1", "0<&3", "3>/dev/null", "{fd}>/dev/null", "x0>/dev/null", "10>&2"])
def test_redirection_glued_to_a_word_is_refused(glued: str) -> None:
    assert not is_read_only_command(f"cat notes.txt {glued}")
    assert not is_read_only_command(f"cat notes.{glued}")


@pytest.mark.parametrize(
    "command",
    ["git log --oneline \\\n  --graph -10", "cat a \\\n b", "ls \\\n -la", "grep -n foo \\\n notes.txt",
     "cat \"a\tb\"", "cat 'a\\\tb'", "cat \"a\\\\\tb\"", "ls 2>/dev/null", "cat a 2>&1"],
)
def test_plain_continuations_and_quotes_stay_read_only(command: str) -> None:
    assert is_read_only_command(command), command


@pytest.mark.parametrize("prefix", ["-", "x", "'-'", "2", "a-"])
def test_heredoc_operator_glued_to_a_word_is_refused(prefix: str) -> None:
    # `cat -<<'EOF'`: the grammar spells its `<<` token `-<<` and drops the `-`.
    assert not is_read_only_command(f"cat {prefix}<<'EOF'\nhello\nEOF")


@pytest.mark.parametrize("glued", ["'|'\\;tee", '"a"b', "'x'\\ y", "a'b'"])
def test_words_after_a_redirection_run_together_as_in_bash(glued: str) -> None:
    analysis = analyse_command(f"ls 2>&1 {glued} X")
    if analysis.understood:  # then the words must be bash's words
        values = [word.value for word in analysis.parts[0].argv]
        expected = subprocess.run(["bash", "-c", f"printf '%s\\n' {glued} X"], capture_output=True, text=True).stdout
        assert values[1:] == expected.splitlines(), (glued, values)


@pytest.mark.parametrize("blank", ["\u00a0", "\u2000", "\u2003", "\u2028", "\u2029", "\u202f", "\u3000", "\ufeff", "\x85", "\r"])
@pytest.mark.parametrize("template", ["du {b}-sh .", "find . {b}-name x", "cat notes.txt{b}; touch X", "ls{b}-la"])
def test_unicode_blanks_and_carriage_returns_are_refused(blank: str, template: str) -> None:
    """Bash keeps a Unicode blank inside the word (`du '\u3000-sh'` is a file name, not
    `-sh`); the parser may split there. The differential fuzz found it."""
    assert not is_read_only_command(template.format(b=blank))
