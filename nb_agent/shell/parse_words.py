"""Shell words: unquoting, and what the shell may still do to a word at run time.

Built from tree-sitter-bash nodes by :func:`word_from_node`. A word is unquoted the way
bash would (``'a b'`` -> ``a b``, ``\\$x`` -> ``$x``); words whose value depends on the
shell's state at run time (``$VAR``, ``$(...)``, globs, brace expansion, ``~``) keep their
source text as value and are marked non-literal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Node

__all__ = [
    "EXPANSION_TYPES",
    "TEXT_TYPES",
    "WORD_TYPES",
    "Word",
    "literal_word",
    "node_text",
    "word_from_node",
]


@dataclass(frozen=True, kw_only=True)
class Word:
    """One shell word, unquoted.

    ``value`` is what the program receives when ``is_literal``; otherwise it is a
    best-effort rendering in which expansions keep their source text.
    """

    raw: str
    """The word as written in the command line."""
    value: str
    is_literal: bool
    """No expansion of any kind: no parameters, substitutions, globs, braces or ``~``."""
    has_expansion: bool
    """Contains a parameter, command, process or arithmetic expansion."""
    has_glob: bool
    """Contains an unquoted ``*``, ``?`` or ``[`` that bash may expand to file names."""
    may_be_option: bool
    """The shell could hand the program a word starting with ``-`` (a literal ``-x``, a
    leading expansion or glob, or an unquoted expansion that word splitting may cut)."""
    may_split: bool = False
    """Has an unquoted expansion, so word splitting may cut it into several words."""
    has_brace: bool = False
    """Has an unquoted brace expansion (``{a,b}``, ``{1..3}``): several words."""
    pattern: str = ""
    """For a word bash may expand to file names: its text with every quoted character
    escaped by a backslash, as bash's pattern matching reads it (``"a*"b*`` -> ``a\\*b*``)."""


_GLOB_CHARS = frozenset("*?[")
EXPANSION_TYPES = frozenset(
    {
        "simple_expansion",
        "expansion",
        "command_substitution",
        "process_substitution",
        "arithmetic_expansion",
        "brace_expression",
        "array",
        "ansi_c_string",
        "translated_string",
    }
)
"""Nodes whose value the shell computes at run time."""
# Leaf-ish nodes whose text is taken as unquoted characters.
TEXT_TYPES = frozenset(
    {"word", "number", "test_operator", "regex", "extglob_pattern", "variable_name"}
)
WORD_TYPES = TEXT_TYPES | EXPANSION_TYPES | {"string", "raw_string", "concatenation"}
"""Every node type that is a whole shell word."""
# Generous on purpose: bash skips a `}` seen before any comma (`{a},b}` expands).
_BRACE_EXPANSION = re.compile(r"\{.*(?:,|\.\.).*\}", re.DOTALL)
_DQ_ESCAPES = re.compile(r"\\([$`\"\\]|\n)")


@dataclass(slots=True)
class _Piece:
    text: str
    quoted: bool
    literal: bool


def _unescape_double_quoted(text: str) -> str:
    # Inside "...", a backslash escapes only $ ` " \ and newline (a line continuation).
    return _DQ_ESCAPES.sub(lambda match: "" if match.group(1) == "\n" else match.group(1), text)


def node_text(node: Node) -> str:
    """The source text of a node."""
    return node.text.decode("utf-8", errors="surrogateescape") if node.text else ""


def _unquoted_pieces(text: str, out: list[_Piece]) -> None:
    """Split unquoted text into characters, resolving backslash escapes."""
    i = 0
    while i < len(text):
        char = text[i]
        if char == "\\" and i + 1 < len(text):
            if text[i + 1] != "\n":  # backslash-newline is a line continuation
                out.append(_Piece(text[i + 1], quoted=True, literal=True))
            i += 2
            continue
        out.append(_Piece(char, quoted=False, literal=True))
        i += 1


def _double_quoted_pieces(node: Node, out: list[_Piece], problems: list[str]) -> None:
    source = node.text or b""
    start = node.start_byte
    position = start + 1  # after the opening quote
    end = node.end_byte - 1
    for child in node.children:
        if child.start_byte > position:  # text tree-sitter left between children
            gap = source[position - start : child.start_byte - start].decode(
                "utf-8", "surrogateescape"
            )
            out.append(_Piece(_unescape_double_quoted(gap), quoted=True, literal=True))
        position = max(position, child.end_byte)
        if not child.is_named and node_text(child) != child.type:
            # `"\<TAB>"`: the grammar makes `\<TAB>"` one `"` token, losing the quote.
            problems.append(f"string token {node_text(child)!r} not understood")
        if child.type == '"' and child.start_byte in (start, end):
            continue
        if child.type == "string_content" or not child.is_named:
            out.append(_Piece(_unescape_double_quoted(node_text(child)), quoted=True, literal=True))
        elif child.type in EXPANSION_TYPES:
            out.append(_Piece(node_text(child), quoted=True, literal=False))
        else:
            problems.append(f"unsupported node in string: {child.type}")
            out.append(_Piece(node_text(child), quoted=True, literal=False))


def _pieces(node: Node, out: list[_Piece], problems: list[str]) -> None:
    kind = node.type
    if kind in TEXT_TYPES:
        _unquoted_pieces(node_text(node), out)
    elif kind == "raw_string":
        out.append(_Piece(node_text(node)[1:-1], quoted=True, literal=True))
    elif kind == "string":
        _double_quoted_pieces(node, out, problems)
    elif kind == "concatenation":
        position = node.start_byte
        for child in node.children:
            if child.start_byte > position:
                problems.append("gap inside a concatenated word")
            position = child.end_byte
            _pieces(child, out, problems)
    elif kind == "ansi_c_string":
        decoded = decode_ansi_c(node_text(node))
        literal = decoded is not None
        out.append(_Piece(decoded if literal else node_text(node), quoted=True, literal=literal))
    elif kind in EXPANSION_TYPES:
        quoted = kind == "translated_string"
        out.append(_Piece(node_text(node), quoted=quoted, literal=False))
    elif not node.is_named:  # a stray token such as '{' or '$' inside a concatenation
        _unquoted_pieces(node_text(node), out)
    else:
        problems.append(f"unsupported word node: {kind}")
        out.append(_Piece(node_text(node), quoted=False, literal=False))


_ANSI_C_SIMPLE = {
    "a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r",
    "t": "\t", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?",
}
_ANSI_C_ESCAPE = re.compile(
    r"\\(?:([abeEfnrtv\\'\"?])|([0-7]{1,3})|x([0-9A-Fa-f]{1,2})|u([0-9A-Fa-f]{1,4})"
    r"|U([0-9A-Fa-f]{1,8})|c(.)|(.))",
    re.DOTALL,
)


def decode_ansi_c(text: str) -> str | None:
    """The value of ``$'...'`` as bash computes it; ``None`` when unsure (a NUL, which
    ends the word in bash, an unknown escape, or a code point Python cannot hold)."""
    if not (text.startswith("$'") and text.endswith("'") and len(text) >= 3):
        return None
    unknown = False

    def replace(match: re.Match[str]) -> str:
        nonlocal unknown
        simple, octal, hexa, short_u, long_u, control, other = match.groups()
        if simple is not None:
            return _ANSI_C_SIMPLE[simple]
        if other is not None or control is not None:
            unknown = True  # `\cX` and unknown escapes: rare, and bash versions differ
            return ""
        number = int(octal, 8) & 0xFF if octal else int(hexa or short_u or long_u, 16)
        if number == 0 or number > 0x10FFFF or (octal or hexa) and number > 0x7F:
            unknown = True  # a NUL byte, or a raw byte that is not a character
            return ""
        return chr(number)

    value = _ANSI_C_ESCAPE.sub(replace, text[2:-1])
    return None if unknown or "\x00" in value else value


def word_from_node(node: Node, problems: list[str]) -> Word:
    """The :class:`Word` for a word-like node; what is not understood goes to ``problems``."""
    pieces: list[_Piece] = []
    _pieces(node, pieces, problems)
    if any(piece.literal and not piece.quoted and piece.text.isspace() for piece in pieces):
        problems.append("unquoted blank inside a word")  # bash would split it there
    return _word_from_pieces(node_text(node), pieces)


def _word_from_pieces(raw: str, pieces: list[_Piece]) -> Word:
    value = "".join(piece.text for piece in pieces)
    # An unquoted `$` the grammar left as text (`$"x"` is a translated string) is not
    # trusted to be literal.
    has_expansion = any(
        not piece.literal or (not piece.quoted and "$" in piece.text) for piece in pieces
    )
    # Mask quoted text and expansions so only unquoted characters can look like syntax.
    masked = "".join(
        piece.text if piece.literal and not piece.quoted else "\x00" * max(len(piece.text), 1)
        for piece in pieces
    )
    has_glob = any(char in _GLOB_CHARS for char in masked)
    has_brace = _BRACE_EXPANSION.search(masked) is not None
    has_tilde = masked.startswith("~")
    first = pieces[0] if pieces else None
    may_split = any(not piece.literal and not piece.quoted for piece in pieces)
    may_be_option = (
        value.startswith("-")
        or (first is not None and not first.literal)
        or masked[:1] in ("*", "?", "[", "{")
        or may_split  # any part of a split word may start with '-'
    )
    pattern = "".join(
        piece.text if piece.literal and not piece.quoted else re.sub(r"([\\*?\[\]])", r"\\\1", piece.text)
        for piece in pieces
    ) if has_glob else ""
    return Word(
        raw=raw,
        value=value,
        is_literal=not (has_expansion or has_glob or has_brace or has_tilde),
        has_expansion=has_expansion,
        has_glob=has_glob,
        may_be_option=may_be_option,
        may_split=may_split,
        has_brace=has_brace,
        pattern=pattern,
    )


def literal_word(text: str) -> Word:
    """A word the shell passes unchanged (an operator inside ``[[ ]]``, a keyword)."""
    return Word(
        raw=text, value=text, is_literal=True, has_expansion=False, has_glob=False,
        may_be_option=text.startswith("-"),
    )
