"""Where tree-sitter-bash and bash read a command line differently.

The grammar is close to bash but not exact, and every gap is a way to hide a command from
a safety check: ``ls<newline>\\rm x`` is one word to the grammar and two commands to
bash; ``tr\\<newline>uncate`` is two words to the grammar and ``truncate`` to bash;
``<<'EOF'#x; rm y`` has a comment for the grammar and a command for bash. Each check
here reports such a spot as a problem, which makes the command unanalysable. (Found by
differential fuzzing against bash; see the classifier's report.)
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from nb_agent.shell.parse_words import node_text

if TYPE_CHECKING:
    from tree_sitter import Node

__all__ = ["skipped_escape_problems", "token_problem"]

# Tokens whose text may contain a newline: quoted strings, heredocs.
_MULTILINE_TOKENS = frozenset(
    {"string_content", "raw_string", "ansi_c_string", "heredoc_body", "heredoc_content",
     "heredoc_end", "comment"}
)
# Anonymous tokens whose text legitimately differs from their kind.
_FREE_TEXT_TOKENS = frozenset({"\n", ";", ";;"})
_CASE_TERMINATORS = frozenset({";;", ";&", ";;&"})


def token_problem(node: Node, source: bytes) -> str | None:
    """What is wrong with one node as bash would see it, if anything."""
    kind = node.type
    if kind in _CASE_TERMINATORS and (node.parent is None or node.parent.type != "case_item"):
        return f"{kind} outside a case item"
    if kind in ("comment", "heredoc_start") and not _bounded(node, source, kind):
        # Bash starts a comment only at a word's start, and a heredoc delimiter runs to
        # the next blank: in `<<'EOF'#x; rm y` the grammar sees a comment where bash
        # sees the delimiter `EOF#x` and then `rm y`.
        return f"{kind} not delimited as bash delimits it"
    if kind == "heredoc_end" and not _whole_line(node, source):
        # The grammar ends a heredoc at a line that merely starts with the delimiter
        # (`EOF<<` opens another heredoc that swallows the next lines); bash needs the
        # delimiter alone on its line, so for bash those lines are commands.
        return "heredoc delimiter line is not the delimiter alone"
    if not node.is_named and node.child_count == 0 and node_text(node) != kind and kind not in _FREE_TEXT_TOKENS:
        # `cat -<<'EOF'` gives a `<<` token spelled `-<<` (bash passes `-` to cat);
        # `"\<TAB>"` gives a `"` token spelled `\<TAB>"`. A token that is not what it says
        # hides text from every check.
        return f"token {kind!r} spelled {node_text(node)!r}"
    if node.child_count == 0 and kind not in _MULTILINE_TOKENS:
        text = node_text(node)
        if text.strip() and ("\n" in text or text[0].isspace()):
            # The grammar lexes "ls\n\\rm x" as `ls` with the argument "\n\\rm":
            # bash runs rm. Outside quotes a token never spans lines.
            return "a word spans a line break"
    return None


# The grammar skips `\<newline>` and `\<blank>` between tokens as if they were spaces.
# Bash does not: `tr\<newline>uncate` is `truncate`, `\ -x` is the word " -x".
_ESCAPED_BLANK = re.compile(rb"\\[ \t\v\f\n]")
_OPAQUE_TYPES = frozenset(
    {"string", "raw_string", "ansi_c_string", "translated_string", "heredoc_body", "comment"}
)


_WORD_BOUNDARY = frozenset(b" \t\n;&|()<>")


def _bounded(node: Node, source: bytes, kind: str) -> bool:
    """A comment must start, and a heredoc delimiter end, at a word boundary."""
    if kind == "comment":
        return node.start_byte == 0 or source[node.start_byte - 1] in _WORD_BOUNDARY
    return node.end_byte >= len(source) or source[node.end_byte] in _WORD_BOUNDARY


def _whole_line(node: Node, source: bytes) -> bool:
    """The node is alone on its line, give or take leading tabs (for ``<<-``)."""
    start = node.start_byte
    while start > 0 and source[start - 1] == ord("\t"):
        start -= 1
    starts_line = start == 0 or source[start - 1] == ord("\n")
    ends_line = node.end_byte >= len(source) or source[node.end_byte] == ord("\n")
    return starts_line and ends_line


def skipped_escape_problems(root: Node, source: bytes) -> list[str]:
    """Problems for escaped blanks the parser skipped where bash would join or keep them."""
    matches = list(_ESCAPED_BLANK.finditer(source))
    if not matches:
        return []
    covered: list[tuple[int, int]] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.child_count == 0 or node.type in _OPAQUE_TYPES:
            covered.append((node.start_byte, node.end_byte))
        else:
            stack.extend(node.children)
    problems = []
    for match in matches:
        start = match.start()
        if any(low <= start < high for low, high in covered):
            continue  # inside a token: part of a word or string
        if match.group() != b"\\\n" or not _continuation_is_harmless(source, start):
            problems.append("escaped blank between words (bash and the parser disagree)")
    return problems


_OPERATOR_BYTES = b";&|()<>"


def _continuation_is_harmless(source: bytes, start: int) -> bool:
    """A line continuation the grammar skipped is harmless when it does not join two words
    (`tr\\<newline>uncate`) and does not follow a line break (the grammar then swallows
    the break, hiding the next line's command inside the previous one)."""
    before_index = start - 1
    while before_index >= 0 and source[before_index] in b" \t":
        before_index -= 1
    if before_index < 0 or source[before_index] == ord("\n"):
        return False
    before = source[start - 1]
    after = source[start + 2] if start + 2 < len(source) else ord(" ")
    if after in b"<>" and not chr(before).isspace():
        return False  # `ls 2\<newline>>f`: bash reads `2>f`, a descriptor redirection
    if after == ord("\n"):
        return False  # `x \<newline><newline>`: bash ends the command, the grammar goes on
    if _escaped(source, start - 1):
        return False  # `\;` or `\ ` before it is part of a word: bash joins the next line to it
    separated = (
        chr(before).isspace() or chr(after).isspace()
        or before in _OPERATOR_BYTES or after in _OPERATOR_BYTES
    )
    return separated


def _escaped(source: bytes, index: int) -> bool:
    """Is the byte at ``index`` escaped by an odd run of backslashes before it?"""
    count = 0
    while index - 1 - count >= 0 and source[index - 1 - count] == ord("\\"):
        count += 1
    return count % 2 == 1
