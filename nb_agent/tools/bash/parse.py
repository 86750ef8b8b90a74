"""A structured view of a Bash command line, built on tree-sitter's bash grammar (SPEC §8).

:func:`parse_command` turns a command line into a :class:`ParsedCommand`: every simple
command (argv, prefixed assignments, redirections), every redirection and heredoc, and
flags for the constructs a safety check must not look past (substitutions, arithmetic,
function definitions, parse errors). It decides nothing about safety: that is
:mod:`nb_agent.tools.bash.read_only`'s job.

Words are unquoted the way bash would (``'a b'`` -> ``a b``, ``\\$x`` -> ``$x``). Words
whose value depends on the shell's state at run time (``$VAR``, ``$(...)``, globs, brace
expansion, ``~``) keep their source text as value and are marked non-literal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Node, Parser

__all__ = [
    "Assignment",
    "Heredoc",
    "ParsedCommand",
    "Redirect",
    "SimpleCommand",
    "Word",
    "parse_command",
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


@dataclass(frozen=True, kw_only=True)
class Assignment:
    """``NAME=value`` (or ``NAME+=value``), standalone or prefixed to a command."""

    name: str
    """The variable name; the source text when it is not a plain name (``a[$i]``)."""
    value: Word | None
    append: bool = False


@dataclass(frozen=True, kw_only=True)
class Redirect:
    """One redirection such as ``2>/dev/null``, ``>&2``, ``<in.txt`` or ``<<EOF``."""

    operator: str
    """The operator as written: ``>``, ``>>``, ``<``, ``&>``, ``&>>``, ``>&``, ``<&``,
    ``>|``, ``>&-``, ``<&-``, ``<<``, ``<<-`` or ``<<<``."""
    fd: int | None
    """The explicit file descriptor (``2`` in ``2>x``), if any."""
    target: Word | None
    """The file, descriptor number or here-string; ``None`` for closes and heredocs."""


@dataclass(frozen=True, kw_only=True)
class Heredoc:
    """A here-document. Its body is expanded by the shell unless the delimiter is quoted."""

    delimiter: str
    quoted: bool
    body: str


@dataclass(frozen=True, kw_only=True)
class SimpleCommand:
    """One simple command: ``[assignments] argv... [redirects]``.

    Builtins with their own grammar (``export``, ``local``, ``unset``) and test
    commands (``[ ... ]``, ``[[ ... ]]``) are given as simple commands too, with the
    keyword as ``argv[0]``. A standalone assignment has an empty ``argv``.
    """

    argv: tuple[Word, ...]
    assignments: tuple[Assignment, ...] = ()
    redirects: tuple[Redirect, ...] = ()

    @property
    def name(self) -> str | None:
        """The command name when it is a literal word, else ``None``."""
        if self.argv and self.argv[0].is_literal:
            return self.argv[0].value
        return None


@dataclass(frozen=True, kw_only=True)
class ParsedCommand:
    """Everything in a command line that a safety check needs to see."""

    source: str
    commands: tuple[SimpleCommand, ...]
    """Every simple command, in source order, including those inside compound commands."""
    redirects: tuple[Redirect, ...]
    """Every redirection, including those applied to compound commands (``{ ...; } >f``)."""
    heredocs: tuple[Heredoc, ...]
    loop_variables: tuple[str, ...]
    """Variables assigned by ``for NAME in ...`` loops."""
    has_parse_error: bool
    has_command_substitution: bool
    """``$(...)`` or backticks anywhere, including inside strings and expansions."""
    has_process_substitution: bool
    has_arithmetic: bool
    """``$((...))``, ``((...))`` or a C-style ``for`` (arithmetic may assign and index)."""
    has_unsafe_expansion: bool
    """A ``${...}`` form beyond plain, default-value or pattern expansions: indirection
    (``${!x}``), substrings and indices (arithmetic), ``${x@P}``, ``${x:=y}``."""
    has_subshell: bool
    has_compound: bool
    """A brace group, ``if``, ``case`` or loop; their inner commands are in ``commands``."""
    has_function_definition: bool
    problems: tuple[str, ...]
    """Constructs the parser did not understand; any makes the command unanalysable."""

    @property
    def analysable(self) -> bool:
        """True when the tree parsed cleanly and every construct was understood."""
        return not self.has_parse_error and not self.problems


_parser: Parser | None = None


def _get_parser() -> Parser:
    # Built on first use: importing tree-sitter and loading the grammar costs milliseconds.
    global _parser
    if _parser is None:
        import tree_sitter
        import tree_sitter_bash

        _parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))
    return _parser


def parse_command(command: str) -> ParsedCommand:
    """Parse a Bash command line into simple commands, redirections and safety flags."""
    tree = _get_parser().parse(command.encode("utf-8"))
    builder = _Builder()
    builder.scan_flags(tree.root_node)
    builder.statement(tree.root_node)
    return builder.build(command)


# --- words -------------------------------------------------------------------------

_GLOB_CHARS = frozenset("*?[")
_EXPANSION_TYPES = frozenset(
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
# Leaf-ish nodes whose text is taken as unquoted characters.
_TEXT_TYPES = frozenset(
    {"word", "number", "test_operator", "regex", "extglob_pattern", "variable_name"}
)
_BRACE_EXPANSION = re.compile(r"\{[^{}]*(?:,|\.\.)[^{}]*\}")
_DQ_ESCAPES = re.compile(r"\\([$`\"\\\n])")


@dataclass(slots=True)
class _Piece:
    text: str
    quoted: bool
    literal: bool


def _text(node: Node) -> str:
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
            gap = source[position - start : child.start_byte - start].decode("utf-8", "surrogateescape")
            out.append(_Piece(_DQ_ESCAPES.sub(r"\1", gap), quoted=True, literal=True))
        position = max(position, child.end_byte)
        if child.type == '"' and child.start_byte in (start, end):
            continue
        if child.type == "string_content" or not child.is_named:
            out.append(_Piece(_DQ_ESCAPES.sub(r"\1", _text(child)), quoted=True, literal=True))
        elif child.type in _EXPANSION_TYPES:
            out.append(_Piece(_text(child), quoted=True, literal=False))
        else:
            problems.append(f"unsupported node in string: {child.type}")
            out.append(_Piece(_text(child), quoted=True, literal=False))


def _pieces(node: Node, out: list[_Piece], problems: list[str]) -> None:
    kind = node.type
    if kind in _TEXT_TYPES:
        _unquoted_pieces(_text(node), out)
    elif kind == "raw_string":
        out.append(_Piece(_text(node)[1:-1], quoted=True, literal=True))
    elif kind == "string":
        _double_quoted_pieces(node, out, problems)
    elif kind == "concatenation":
        position = node.start_byte
        for child in node.children:
            if child.start_byte > position:
                problems.append("gap inside a concatenated word")
            position = child.end_byte
            _pieces(child, out, problems)
    elif kind in _EXPANSION_TYPES:
        quoted = kind in ("ansi_c_string", "translated_string")
        out.append(_Piece(_text(node), quoted=quoted, literal=False))
    elif not node.is_named:  # a stray token such as '{' or '$' inside a concatenation
        _unquoted_pieces(_text(node), out)
    else:
        problems.append(f"unsupported word node: {kind}")
        out.append(_Piece(_text(node), quoted=False, literal=False))


def _word(node: Node, problems: list[str]) -> Word:
    pieces: list[_Piece] = []
    _pieces(node, pieces, problems)
    return _word_from_pieces(_text(node), pieces)


def _word_from_pieces(raw: str, pieces: list[_Piece]) -> Word:
    value = "".join(piece.text for piece in pieces)
    has_expansion = any(not piece.literal for piece in pieces)
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
    return Word(
        raw=raw,
        value=value,
        is_literal=not (has_expansion or has_glob or has_brace or has_tilde),
        has_expansion=has_expansion,
        has_glob=has_glob,
        may_be_option=may_be_option,
        may_split=may_split,
    )


def _literal_word(text: str) -> Word:
    return Word(
        raw=text, value=text, is_literal=True, has_expansion=False, has_glob=False,
        may_be_option=text.startswith("-"),
    )


# --- statements --------------------------------------------------------------------

_LIST_TYPES = frozenset(
    {"program", "list", "pipeline", "negated_command", "do_group", "elif_clause", "else_clause"}
)
_COMPOUND_TYPES = frozenset({"if_statement", "while_statement", "case_statement"})
_SAFE_EXPANSION_OPERATORS = frozenset(
    {":-", "-", ":+", "+", ":?", "?", "#", "##", "%", "%%", "/", "//", "/#", "/%",
     "^", "^^", ",", ",,"}
)
_SAFE_SUBSCRIPTS = frozenset({"@", "*"})
_HEREDOC_PARTS = frozenset({"heredoc_start", "heredoc_body", "heredoc_end", "<<", "<<-"})


@dataclass
class _Builder:
    commands: list[tuple[int, SimpleCommand]] = field(default_factory=list)
    """(start byte, command): heredoc lines hang later commands early in the tree."""
    redirects: list[Redirect] = field(default_factory=list)
    heredocs: list[Heredoc] = field(default_factory=list)
    loop_variables: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    flags: set[str] = field(default_factory=set)

    def build(self, source: str) -> ParsedCommand:
        flags = self.flags
        return ParsedCommand(
            source=source,
            commands=tuple(command for _, command in sorted(self.commands, key=lambda c: c[0])),
            redirects=tuple(self.redirects),
            heredocs=tuple(self.heredocs),
            loop_variables=tuple(self.loop_variables),
            has_parse_error="parse_error" in flags,
            has_command_substitution="command_substitution" in flags,
            has_process_substitution="process_substitution" in flags,
            has_arithmetic="arithmetic" in flags,
            has_unsafe_expansion="unsafe_expansion" in flags,
            has_subshell="subshell" in flags,
            has_compound="compound" in flags,
            has_function_definition="function_definition" in flags,
            problems=tuple(self.problems),
        )

    # Flags come from a walk over every node, so nothing nested escapes them, whatever
    # the statement walk below understands.
    def scan_flags(self, root: Node) -> None:
        stack = [root]
        while stack:
            node = stack.pop()
            kind = node.type
            if node.is_error or node.is_missing:
                self.flags.add("parse_error")
            elif kind in ("command_substitution", "process_substitution"):
                self.flags.add(kind)
            elif kind in ("arithmetic_expansion", "c_style_for_statement"):
                self.flags.add("arithmetic")
            elif kind == "compound_statement" and node.child_count and node.children[0].type == "((":
                self.flags.add("arithmetic")
            elif kind == "expansion" and not _is_safe_expansion(node):
                self.flags.add("unsafe_expansion")
            elif kind == "subscript" and node.parent is not None and node.parent.type != "expansion":
                self.flags.add("unsafe_expansion")  # a[$i]=x: the index is arithmetic
            stack.extend(node.children)
        if root.has_error:
            self.flags.add("parse_error")

    def statement(self, node: Node) -> None:
        kind = node.type
        if kind == "command":
            self.commands.append((node.start_byte, self.simple_command(node)))
        elif kind in _LIST_TYPES:
            self.children(node)
        elif kind == "redirected_statement":
            self.redirected_statement(node)
        elif kind == "subshell":
            self.flags.add("subshell")
            self.children(node)
        elif kind == "compound_statement":
            self.flags.add("compound")
            self.children(node)
        elif kind in _COMPOUND_TYPES:
            self.flags.add("compound")
            self.children(node, skip_words=True)
        elif kind == "case_item":
            self.children(node, skip_words=True)
        elif kind == "for_statement":
            self.flags.add("compound")
            variable = node.child_by_field_name("variable")
            if variable is not None:
                self.loop_variables.append(_text(variable))
            body = node.child_by_field_name("body")
            if body is not None:
                self.statement(body)
        elif kind == "c_style_for_statement":
            self.flags.add("compound")
            body = node.child_by_field_name("body")
            if body is not None:
                self.statement(body)
        elif kind == "function_definition":
            self.flags.add("function_definition")
            body = node.child_by_field_name("body")
            if body is not None:
                self.statement(body)
        elif kind == "test_command":
            self.commands.append((node.start_byte, self.test_command(node)))
        elif kind in ("declaration_command", "unset_command"):
            self.commands.append((node.start_byte, self.declaration(node)))
        elif kind in ("variable_assignment", "variable_assignments"):
            assignments = [node] if kind == "variable_assignment" else list(node.named_children)
            standalone = SimpleCommand(
                argv=(), assignments=tuple(self.assignment(a) for a in assignments)
            )
            self.commands.append((node.start_byte, standalone))
        elif kind in ("comment", "heredoc_body"):
            pass
        else:
            self.problems.append(f"unsupported construct: {kind}")

    def children(self, node: Node, *, skip_words: bool = False) -> None:
        for child in node.named_children:
            if child.type == "comment":
                continue
            if skip_words and (child.type in _TEXT_TYPES or child.type in _EXPANSION_TYPES
                               or child.type in ("string", "raw_string", "concatenation")):
                continue  # case subjects and patterns: words, not commands
            self.statement(child)

    def redirected_statement(self, node: Node) -> None:
        extra_args: list[Word] = []
        body: Node | None = None
        for index, child in enumerate(node.children):
            field_name = node.field_name_for_child(index)
            if field_name == "body":
                body = child
            elif child.type in ("file_redirect", "heredoc_redirect", "herestring_redirect"):
                self.redirect(child, extra_args)
            elif child.is_named and child.type != "comment":
                self.problems.append(f"unsupported redirected statement part: {child.type}")
        if body is None:
            if extra_args:
                self.problems.append("words after a redirection without a command")
            return
        if body.type == "command":
            self.commands.append((body.start_byte, self.simple_command(body, extra_args)))
        else:
            if extra_args:
                self.problems.append("words after a redirection of a compound command")
            self.statement(body)

    def redirect(self, node: Node, extra_args: list[Word]) -> Redirect:
        """Record one redirection; words bash would give the command go to ``extra_args``."""
        if node.type == "heredoc_redirect":
            result = self.heredoc(node, extra_args)
        else:
            fd: int | None = None
            operator = ""
            targets: list[Word] = []
            for child in node.children:
                if child.type == "file_descriptor":
                    fd = int(_text(child)) if _text(child).isdigit() else None
                    if fd is None:
                        self.problems.append("non-numeric file descriptor")
                elif not child.is_named:
                    operator = _text(child)
                elif child.type == "comment":
                    continue
                else:
                    targets.append(_word(child, self.problems))
            # `cmd 2>/dev/null src`: bash gives `src` to cmd; tree-sitter makes it a target.
            extra_args.extend(targets[1:])
            result = Redirect(operator=operator, fd=fd, target=targets[0] if targets else None)
        self.redirects.append(result)
        return result

    def heredoc(self, node: Node, extra_args: list[Word]) -> Redirect:
        operator = "<<"
        delimiter = end = body = ""
        for child in node.children:
            kind = child.type
            if kind in ("<<", "<<-"):
                operator = kind
            elif kind == "heredoc_start":
                delimiter = _text(child)
            elif kind == "heredoc_body":
                body = _text(child)
            elif kind == "heredoc_end":
                end = _text(child)
            elif kind == "file_redirect":
                self.redirect(child, extra_args)
            elif kind in ("&&", "||", "|", "|&", ";", "&") or kind == "comment":
                continue
            elif kind in ("pipeline", "list", "command", "redirected_statement", "subshell",
                          "compound_statement", "negated_command"):
                # tree-sitter hangs the rest of the line (`| grep x`, `&& rm y`) here.
                self.statement(child)
            else:
                self.problems.append(f"unsupported heredoc part: {kind}")
        quoted = any(char in delimiter for char in "'\"\\")
        bare = re.sub(r"[\"'\\]", "", delimiter)
        if not bare or end != bare:
            self.problems.append("heredoc delimiter not understood")
        self.heredocs.append(Heredoc(delimiter=bare, quoted=quoted, body=body))
        return Redirect(operator=operator, fd=None, target=None)

    def simple_command(self, node: Node, extra_args: list[Word] | None = None) -> SimpleCommand:
        argv: list[Word] = []
        assignments: list[Assignment] = []
        redirects: list[Redirect] = []
        redirect_args: list[Word] = []
        for index, child in enumerate(node.children):
            field_name = node.field_name_for_child(index)
            kind = child.type
            if kind == "variable_assignment":
                assignments.append(self.assignment(child))
            elif kind in ("file_redirect", "heredoc_redirect", "herestring_redirect"):
                redirects.append(self.redirect(child, redirect_args))
            elif kind == "command_name":
                if child.named_child_count != 1:
                    self.problems.append("command name is not one word")
                argv.extend(_word(name, self.problems) for name in child.named_children)
            elif field_name == "argument":
                argv.append(_word(child, self.problems))
            elif kind == "comment":
                continue
            else:
                self.problems.append(f"unsupported command part: {kind}")
        argv.extend(redirect_args)
        argv.extend(extra_args or ())
        return SimpleCommand(argv=tuple(argv), assignments=tuple(assignments),
                             redirects=tuple(redirects))

    def assignment(self, node: Node) -> Assignment:
        name_node = node.child_by_field_name("name")
        value_node = node.child_by_field_name("value")
        append = any(child.type == "+=" for child in node.children)
        if name_node is None or name_node.type != "variable_name":
            self.flags.add("unsafe_expansion")
        return Assignment(
            name=_text(name_node) if name_node is not None else _text(node),
            value=_word(value_node, self.problems) if value_node is not None else None,
            append=append,
        )

    def test_command(self, node: Node) -> SimpleCommand:
        """``[ ... ]`` / ``[[ ... ]]`` as argv: the brackets and every operand and operator."""
        words: list[Word] = []
        stack = list(reversed(node.children))
        while stack:
            child = stack.pop()
            if child.type in _TEXT_TYPES or child.type in _EXPANSION_TYPES or child.type in (
                "string", "raw_string", "concatenation"
            ):
                words.append(_word(child, self.problems))
            elif child.is_named:
                stack.extend(reversed(child.children))
            else:
                words.append(_literal_word(_text(child)))
        return SimpleCommand(argv=tuple(words))

    def declaration(self, node: Node) -> SimpleCommand:
        """``export``/``local``/``declare``/``unset``...: the keyword, then each operand's text."""
        words = [
            _literal_word(_text(child)) if not child.is_named else _word_or_text(child, self.problems)
            for child in node.children
        ]
        return SimpleCommand(argv=tuple(words))


def _word_or_text(node: Node, problems: list[str]) -> Word:
    if node.type == "variable_assignment":
        text = _text(node)
        return Word(raw=text, value=text, is_literal=False, has_expansion=True, has_glob=False,
                    may_be_option=False, may_split=True)
    return _word(node, problems)


def _is_safe_expansion(node: Node) -> bool:
    """True for ``${x}``, ``${#x}``, ``${x:-w}``, ``${x%pat}``, ``${x/a/b}``, ``${a[@]}``.

    Anything else may evaluate arithmetic on a variable's value (which can run commands
    through array subscripts), expand indirectly, assign, or expand prompts.
    """
    inner = node.children[1:-1]
    if not inner or node.children[0].type != "${" or node.children[-1].type != "}":
        return False
    head = inner[0]
    if head.type == "#" and len(inner) == 2:  # ${#x}
        head = inner[1]
        inner = inner[1:]
    if head.type == "subscript":
        index = head.child_by_field_name("index")
        if index is None or not (_text(index) in _SAFE_SUBSCRIPTS or _text(index).isdigit()):
            return False
    elif head.type not in ("variable_name", "special_variable_name"):
        return False
    rest = inner[1:]
    if not rest:
        return True
    if rest[0].is_named or _text(rest[0]) not in _SAFE_EXPANSION_OPERATORS:
        return False
    return all(child.is_named or _text(child) in _SAFE_EXPANSION_OPERATORS for child in rest[1:])
