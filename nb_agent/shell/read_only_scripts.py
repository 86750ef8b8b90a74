"""Whether a sed script or an awk program can only read (for the read-only classifier).

Both checks are small lexers that fail closed: anything they do not recognise counts as
unsafe. sed scripts are parsed command by command (``e``, ``w``, ``W``, ``r``, ``R`` and
the ``s///e`` / ``s///w`` flags run programs, write or pull in files). awk programs are
lexed for ``system``, pipes (``|``, ``|&``), output redirection after ``print`` /
``printf`` and gawk's ``@`` (``@load``, ``@include``, indirect calls).
"""

from __future__ import annotations

import re

__all__ = ["awk_program_is_safe", "sed_script_is_safe"]

# --- sed ---------------------------------------------------------------------------

_SED_NO_ARGUMENT = frozenset("=dDgGhHnNpPxzF")
_SED_TEXT = frozenset("aic")
_SED_LABEL = frozenset("btT:v")
_SED_NUMBER_ARGUMENT = frozenset("lLqQ")
_SED_SUBSTITUTE_FLAGS = frozenset("gpiImM0123456789")
_SED_COMMAND_END = frozenset(";\n}#")


def sed_script_is_safe(script: str) -> bool:
    """True when a GNU sed script only edits its output stream."""
    return _SedScanner(script).run()


class _SedScanner:
    def __init__(self, script: str) -> None:
        self.text = script
        self.pos = 0

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def skip_blanks(self, newlines: bool = False) -> None:
        blanks = " \t\n;" if newlines else " \t"
        while self.peek() and self.peek() in blanks:
            self.pos += 1

    def run(self) -> bool:
        while True:
            self.skip_blanks(newlines=True)
            char = self.peek()
            if not char:
                return True
            if char == "#":
                self.skip_line()
                continue
            if not self.address():
                return False
            self.skip_blanks()
            if self.peek() == ",":
                self.pos += 1
                self.skip_blanks()
                if not self.address(second=True):
                    return False
                self.skip_blanks()
            while self.peek() == "!":
                self.pos += 1
                self.skip_blanks()
            if not self.command():
                return False

    def command(self) -> bool:
        char = self.peek()
        self.pos += 1
        if char in ("{", "}"):
            return True
        if char in _SED_NO_ARGUMENT:
            return self.end_of_command()
        if char in _SED_NUMBER_ARGUMENT:
            self.skip_blanks()
            while self.peek().isdigit():
                self.pos += 1
            return self.end_of_command()
        if char in _SED_TEXT:
            self.skip_text()
            return True
        if char in _SED_LABEL:
            return self.label()
        if char == "s":
            return self.substitute()
        if char == "y":
            delimiter = self.peek()
            self.pos += 1
            return self.delimited(delimiter) and self.delimited(delimiter) and self.end_of_command()
        return False  # e, w, W, r, R and anything unknown

    def label(self) -> bool:
        """A label (``b``, ``t``, ``T``, ``:``) or version (``v``). GNU sed ends it at a
        blank, ``;``, ``}`` or newline and reads a command right after a blank
        (``ba w out`` writes), so a label must be plain and end at one of those."""
        self.skip_blanks()
        while self.peek() and (self.peek().isalnum() or self.peek() in "_."):
            self.pos += 1
        return not self.peek() or self.peek() in " \t\n;}"

    def end_of_command(self) -> bool:
        self.skip_blanks()
        return not self.peek() or self.peek() in _SED_COMMAND_END

    def substitute(self) -> bool:
        delimiter = self.peek()
        self.pos += 1
        if not self.delimited(delimiter, regex=True) or not self.delimited(delimiter):
            return False
        while self.peek() and self.peek() not in _SED_COMMAND_END:
            if self.peek() not in _SED_SUBSTITUTE_FLAGS and self.peek() not in " \t":
                return False  # `e` runs the pattern space, `w file` writes
            self.pos += 1
        return True

    def delimited(self, delimiter: str, *, regex: bool = False) -> bool:
        """Consume up to and including an unescaped ``delimiter``.

        In a regex, GNU sed does not end it inside a bracket expression (``s/[/]/x/``).
        """
        if not delimiter or delimiter in "\n\\[":
            return False
        while self.pos < len(self.text):
            char = self.text[self.pos]
            self.pos += 1
            if char == "\\":
                self.pos += 1
            elif char == "\n":
                return False  # an unescaped newline ends the command early: refuse
            elif regex and char == "[":
                if not self.bracket():
                    return False
            elif char == delimiter:
                return True
        return False

    def bracket(self) -> bool:
        """Consume a bracket expression after its ``[`` (``[^]a]``, ``[[:alpha:]/]``)."""
        if self.peek() == "^":
            self.pos += 1
        if self.peek() == "]":
            self.pos += 1
        while self.pos < len(self.text):
            char = self.text[self.pos]
            self.pos += 1
            if char == "[" and self.peek() in (":", ".", "="):
                close = self.text.find(self.peek() + "]", self.pos + 1)
                if close < 0:
                    return False
                self.pos = close + 2
            elif char == "]":
                return True
            elif char == "\n":
                return False
        return False

    def address(self, *, second: bool = False) -> bool:
        char = self.peek()
        if char.isdigit() or (second and char in "+~"):
            self.pos += 1
            while self.peek().isdigit() or self.peek() == "~":
                self.pos += 1
        elif char == "$":
            self.pos += 1
        elif char in ("/", "\\"):
            if char == "\\":
                self.pos += 1
            delimiter = self.peek() if char == "\\" else "/"
            self.pos += 1
            if not self.delimited(delimiter, regex=True):
                return False
            while self.peek() in ("I", "M"):
                self.pos += 1
        return True

    def skip_line(self) -> None:
        while self.peek() and self.peek() != "\n":
            self.pos += 1

    def skip_text(self) -> None:
        """``a``/``i``/``c`` text runs to the end of the line; a trailing ``\\`` continues it."""
        while self.pos < len(self.text):
            char = self.text[self.pos]
            self.pos += 1
            if char == "\\":
                self.pos += 1
            elif char == "\n":
                return


# --- awk ---------------------------------------------------------------------------

# Checked on the raw text, so no lexing mistake can hide them: anything that runs a
# command, reads a file or socket the command line does not name, or picks files at run
# time. `getline` reads commands' output and files; `system` runs; `@` is gawk's
# `@load`/`@include`/indirect call; `/inet` gawk's network files; ENVIRON/PROCINFO
# steer gawk; ARGV/ARGC choose the input files at run time; `|&` is a coprocess.
_AWK_FORBIDDEN = re.compile(
    r"system|getline|ENVIRON|PROCINFO|ARGV|ARGC|SYMTAB|FUNCTAB|@|/inet|\|&"
)
_AWK_PRINT = re.compile(r"\bprintf?\b")
# After these a `/` starts a regular expression in every awk; after an operand (a name,
# a number, `)`, `]`, `$`) it divides. After `++`/`--` awks disagree (`x++ / 1` divides
# in gawk and BWK awk), so a `/` there makes the program unclassifiable.
_AWK_REGEX_AFTER = frozenset("(,{};!~&|?:=<>+-*%^\n")
_AWK_REGEX_AFTER_WORD = re.compile(r"\b(?:print|printf|return|in|case)\s*$")
_AWK_AMBIGUOUS_BEFORE_SLASH = re.compile(r"(?:\+\+|--)\s*$")
# Inside a regex or string, these would be code to an awk that lexed the line otherwise.
_AWK_UNSAFE_IN_LITERAL = frozenset("|>\"#;{}")


def awk_program_is_safe(program: str) -> bool:
    """True when an awk program cannot run commands, write files or read other files,
    whichever awk (gawk, mawk, BWK/macOS awk, busybox) runs it."""
    if _AWK_FORBIDDEN.search(program):
        return False
    code = _awk_code(program)
    if code is None:
        return False
    if "|" in code.replace("||", "  "):
        return False  # `print | "cmd"`
    return not any(_redirects_output(code, match.end()) for match in _AWK_PRINT.finditer(code))


def _redirects_output(code: str, start: int) -> bool:
    """Whether the print statement starting at ``start`` has a ``>`` outside parentheses."""
    depth = 0
    for char in code[start:]:
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
            if depth < 0:
                return False
        elif depth == 0 and char in ";\n}":
            return False
        elif depth == 0 and char == ">":
            return True
    return False


def _awk_code(program: str) -> str | None:
    """The program with strings, regexes and comments blanked; ``None`` if unlexable."""
    out: list[str] = []
    pos = 0
    previous = "\n"  # last significant code character
    while pos < len(program):
        char = program[pos]
        if char == "#":
            end = program.find("\n", pos)
            pos = len(program) if end < 0 else end
            continue
        if char == '"':
            end = _closing(program, pos, '"')
            if end is None:
                return None
            out.append('""')
            pos = end + 1
            previous = '"'
            continue
        if char == "/":
            code = "".join(out)
            if _AWK_AMBIGUOUS_BEFORE_SLASH.search(code):
                return None
            if _regex_allowed(previous, code):
                end = _closing(program, pos, "/")
                if end is None or _AWK_UNSAFE_IN_LITERAL.intersection(
                    program[pos + 1 : end].replace("||", "")
                ) - {"|"}:
                    return None  # a regex another awk could read as division and code
                out.append("//")
                pos = end + 1
                previous = "/"
                continue
            # Division by our reading; if an awk read a regex here instead, a quote or `#`
            # inside it would desynchronise us, so refuse that shape outright.
            line_end = program.find("\n", pos)
            segment = program[pos + 1 : len(program) if line_end < 0 else line_end]
            if "/" in segment and any(c in segment[: segment.index("/")] for c in "\"#"):
                return None
        if char == "\\":
            if pos + 1 < len(program) and program[pos + 1] == "\n":
                pos += 2
                continue
            return None  # a backslash outside strings and regexes: nothing legitimate
        out.append(char)
        if not char.isspace() or char == "\n":
            previous = char
        pos += 1
    return "".join(out)


def _regex_allowed(previous: str, code: str) -> bool:
    if previous in _AWK_REGEX_AFTER:
        return True
    return _AWK_REGEX_AFTER_WORD.search(code) is not None


def _closing(text: str, start: int, quote: str) -> int | None:
    """Index of the unescaped ``quote`` closing the literal opened at ``start``."""
    pos = start + 1
    in_bracket = False
    while pos < len(text):
        char = text[pos]
        if char == "\\":
            if text[pos + 1 : pos + 2] == "\n":
                return None  # a continued string: awks disagree
            pos += 2
            continue
        if char == "\n":
            return None  # strings and regexes do not span lines
        if quote == "/" and char == "/" and in_bracket:
            return None  # `/[/]/`: gawk keeps the bracket, BWK awk ends the regex
        if quote == "/" and char == "[" and not in_bracket:
            in_bracket = True
        elif quote == "/" and char == "]" and in_bracket:
            in_bracket = False
        elif char == quote and not in_bracket:
            return pos
        pos += 1
    return None
