"""A structured view of a Bash command line, built on tree-sitter's bash grammar (SPEC §8).

:func:`parse_command` turns a command line into a :class:`ParsedCommand`: every simple
command (argv, prefixed assignments, redirections), every redirection and heredoc, and
flags for the constructs a safety check must not look past (substitutions, arithmetic,
function definitions, parse errors). It decides nothing about safety: that is
:mod:`nb_agent.shell.read_only`'s job.

Words (:class:`Word`, unquoting, literalness) live in
:mod:`nb_agent.shell.parse_words`; the places where the grammar and bash disagree,
each reported as a problem, in :mod:`nb_agent.shell.parse_checks`.
"""

from __future__ import annotations

import importlib.util
import re
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from nb_agent.shell.parse_checks import skipped_escape_problems, token_problem
from nb_agent.shell.parse_words import WORD_TYPES, Word, literal_word, node_text, word_from_node

if TYPE_CHECKING:
    from tree_sitter import Node, Parser

__all__ = [
    "Assignment",
    "Heredoc",
    "Loop",
    "ParsedCommand",
    "Redirect",
    "SimpleCommand",
    "Word",
    "parse_command",
]


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
class Loop:
    """``for NAME in WORDS``: the variable takes each word's value (after expansion)."""

    name: str
    words: tuple[Word, ...] | None
    """``None`` for ``for NAME; do`` (the positional parameters)."""


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
    text: str = ""
    """Its source text, redirections included (what an exact Bash rule names)."""

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
    loops: tuple[Loop, ...] = ()
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


def parser_unavailable_reason() -> str | None:
    """Why commands cannot be parsed here (tree-sitter or its Bash grammar is not
    installed), or None. Checked without importing them: that costs milliseconds."""
    for module in ("tree_sitter", "tree_sitter_bash"):
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            return f"the Bash parser needs {module.replace('_', '-')}, which is not installed (pip install 'nb_agent[tools]')"
    return None


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
    source = command.encode("utf-8", errors="surrogateescape")
    tree = _get_parser().parse(source)
    builder = _Builder()
    builder.scan_flags(tree.root_node, source)
    builder.problems.extend(skipped_escape_problems(tree.root_node, source))
    builder.statement(tree.root_node)
    return builder.build(command)


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
_HEREDOC_DELIMITER = re.compile(r"\\?[A-Za-z0-9_]+|'[A-Za-z0-9_]+'|\"[A-Za-z0-9_]+\"")


@dataclass
class _Builder:
    commands: list[tuple[int, SimpleCommand]] = field(default_factory=list)
    """(start byte, command): heredoc lines hang later commands early in the tree."""
    redirects: list[Redirect] = field(default_factory=list)
    heredocs: list[Heredoc] = field(default_factory=list)
    loop_variables: list[str] = field(default_factory=list)
    loops: list[Loop] = field(default_factory=list)
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
            loops=tuple(self.loops),
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
    def scan_flags(self, root: Node, source: bytes) -> None:
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
            elif kind == "compound_statement" and node_text(node).startswith("(("):
                self.flags.add("arithmetic")
            elif kind == "expansion" and not _is_safe_expansion(node):
                self.flags.add("unsafe_expansion")
            elif kind == "subscript" and (node.parent is None or node.parent.type != "expansion"):
                self.flags.add("unsafe_expansion")  # a[$i]=x: the index is arithmetic
            if kind in _REDIRECT_TYPES and _glued_to_word(node, source):
                # `cat x 0>&1`: the grammar keeps `0` as an argument and redirects stdout;
                # bash redirects descriptor 0 (and `{fd}>f` assigns a variable).
                self.problems.append("redirection glued to the word before it")
            problem = token_problem(node, source)
            if problem is not None:
                self.problems.append(problem)
            stack.extend(node.children)
        if root.has_error:
            self.flags.add("parse_error")

    def statement(self, node: Node) -> None:
        kind = node.type
        if kind == "command":
            self.commands.append((node.start_byte, replace(self.simple_command(node), text=node_text(node))))
        elif kind in _LIST_TYPES:
            if kind == "negated_command" and not node_text(node)[1:2].isspace():
                self.problems.append("`!` not followed by a blank")  # `!x` is a word to bash
            self.children(node)
        elif kind == "redirected_statement":
            self.redirected_statement(node)
        elif kind == "subshell":
            self.flags.add("subshell")
            self.children(node)
        elif kind == "compound_statement":
            self.flags.add("compound")
            if not node_text(node)[1:2].isspace():
                self.problems.append("brace group without a blank after {")  # `{cat` is a word
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
                self.loop_variables.append(node_text(variable))
                self.loops.append(self.loop(node, node_text(variable)))
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
            self.commands.append((node.start_byte, replace(self.test_command(node), text=node_text(node))))
        elif kind in ("declaration_command", "unset_command"):
            self.commands.append((node.start_byte, replace(self.declaration(node), text=node_text(node))))
        elif kind in ("variable_assignment", "variable_assignments"):
            assignments = [node] if kind == "variable_assignment" else list(node.named_children)
            standalone = SimpleCommand(
                argv=(), assignments=tuple(self.assignment(a) for a in assignments), text=node_text(node)
            )
            self.commands.append((node.start_byte, standalone))
        elif kind in ("comment", "heredoc_body"):
            pass
        else:
            self.problems.append(f"unsupported construct: {kind}")

    def loop(self, node: Node, name: str) -> Loop:
        values = [
            word_from_node(child, self.problems)
            for index, child in enumerate(node.children)
            if node.field_name_for_child(index) == "value"
        ]
        has_in = any(child.type == "in" for child in node.children)
        return Loop(name=name, words=tuple(values) if has_in else None)

    def children(self, node: Node, *, skip_words: bool = False) -> None:
        for child in node.named_children:
            if child.type == "comment":
                continue
            if skip_words and child.type in WORD_TYPES:
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
            command = replace(self.simple_command(body, extra_args), text=node_text(node))
            self.commands.append((body.start_byte, command))
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
            previous_end = -1
            for child in node.children:
                if child.type == "file_descriptor":
                    fd = int(node_text(child)) if node_text(child).isdigit() else None
                    if fd is None:
                        self.problems.append("non-numeric file descriptor")
                elif not child.is_named:
                    operator = node_text(child)
                elif child.type == "comment":
                    continue
                else:
                    if targets and child.start_byte == previous_end:
                        self.problems.append("words run together")  # `'|'\;x`: one word to bash
                    targets.append(word_from_node(child, self.problems))
                    previous_end = child.end_byte
            if operator in (">&-", "<&-"):
                # A close takes no target: in `sort >&--o` bash passes `-o` to sort.
                extra_args.extend(targets)
                targets = []
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
                delimiter = node_text(child)
            elif kind == "heredoc_body":
                body = node_text(child)
            elif kind == "heredoc_end":
                end = node_text(child)
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
        # Plain delimiters only: the grammar reads `<<EOF;` as delimiter "EOF;" where
        # bash reads `EOF` and then `;`.
        if not _HEREDOC_DELIMITER.fullmatch(delimiter) or end != bare:
            self.problems.append("heredoc delimiter not understood")
        self.heredocs.append(Heredoc(delimiter=bare, quoted=quoted, body=body))
        return Redirect(operator=operator, fd=None, target=None)

    def simple_command(self, node: Node, extra_args: list[Word] | None = None) -> SimpleCommand:
        argv: list[Word] = []
        assignments: list[Assignment] = []
        redirects: list[Redirect] = []
        redirect_args: list[Word] = []
        previous_end = -1
        for index, child in enumerate(node.children):
            field_name = node.field_name_for_child(index)
            kind = child.type
            if kind in ("command_name", "variable_assignment") or field_name == "argument":
                if child.start_byte == previous_end:
                    # `"echo"\)x` is one word to bash; the grammar makes it two.
                    self.problems.append("words run together")
                previous_end = child.end_byte
            if kind == "variable_assignment":
                assignments.append(self.assignment(child))
            elif kind in ("file_redirect", "heredoc_redirect", "herestring_redirect"):
                redirects.append(self.redirect(child, redirect_args))
                previous_end = child.end_byte
            elif kind == "command_name":
                if child.named_child_count != 1:
                    self.problems.append("command name is not one word")
                argv.extend(word_from_node(name, self.problems) for name in child.named_children)
            elif field_name == "argument":
                argv.append(word_from_node(child, self.problems))
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
            name=node_text(name_node) if name_node is not None else node_text(node),
            value=word_from_node(value_node, self.problems) if value_node is not None else None,
            append=append,
        )

    def test_command(self, node: Node) -> SimpleCommand:
        """``[ ... ]`` / ``[[ ... ]]`` as argv: the brackets and every operand and operator."""
        text = node_text(node)
        opening = "[[" if text.startswith("[[") else "["
        closing = "]]" if opening == "[[" else "]"
        if not (text[len(opening) : len(opening) + 1].isspace()
                and text[-len(closing) - 1 : -len(closing)].isspace()):
            # Without blanks `[rm]` is a glob to bash (it may match a file), not a test.
            self.problems.append("test brackets not separated by blanks")
        if opening == "[" and "\n" in text:
            self.problems.append("line break inside [ ... ]")  # it ends the `[` command
        words: list[Word] = []
        stack = list(reversed(node.children))
        while stack:
            child = stack.pop()
            if child.type in WORD_TYPES:
                words.append(word_from_node(child, self.problems))
            elif child.is_named:
                stack.extend(reversed(child.children))
            else:
                words.append(literal_word(node_text(child)))
        return SimpleCommand(argv=tuple(words))

    def declaration(self, node: Node) -> SimpleCommand:
        """``export``/``local``/``declare``/``unset``...: the keyword, then each operand's text."""
        words = [
            _declaration_word(child, self.problems)
            if child.is_named
            else literal_word(node_text(child))
            for child in node.children
        ]
        return SimpleCommand(argv=tuple(words))


def _declaration_word(node: Node, problems: list[str]) -> Word:
    if node.type == "variable_assignment":
        text = node_text(node)
        return Word(raw=text, value=text, is_literal=False, has_expansion=True, has_glob=False,
                    may_be_option=False, may_split=True)
    return word_from_node(node, problems)


_REDIRECT_TYPES = frozenset({"file_redirect", "heredoc_redirect", "herestring_redirect"})


def _glued_to_word(node: Node, source: bytes) -> bool:
    """A redirection without a descriptor child that directly follows a word character."""
    if any(child.type == "file_descriptor" for child in node.children) or node.start_byte == 0:
        return False
    before = source[node.start_byte - 1 : node.start_byte]
    return not (before.isspace() or before in (b";", b"&", b"|", b"(", b")", b"<", b">"))


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
        index_text = node_text(index) if index is not None else ""
        if not (index_text in _SAFE_SUBSCRIPTS or index_text.isdigit()):
            return False
    elif head.type not in ("variable_name", "special_variable_name"):
        return False
    rest = inner[1:]
    if not rest:
        return True
    if rest[0].is_named or node_text(rest[0]) not in _SAFE_EXPANSION_OPERATORS:
        return False
    return all(
        child.is_named or node_text(child) in _SAFE_EXPANSION_OPERATORS for child in rest[1:]
    )
