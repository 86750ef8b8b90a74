"""Permission rules in Claude Code syntax: parsing, matching, and "Always allow" suggestions.

A rule is ``Tool`` or ``Tool(content)``: ``Bash(git status:*)`` (prefix),
``Bash(npm run test)`` (exact), ``Bash(git * main)`` (wildcard), ``Read(**/*.csv)`` and
``Edit(src/**)`` (gitignore globs, see :mod:`nb_agent.permissions.paths`),
``WebFetch(domain:example.com)``, ``mcp__server`` / ``mcp__server__*`` (every tool of a
server) and ``mcp__server__tool``. ``Edit`` rules cover every file-editing tool and
``Read`` rules every path-based reading tool, as in Claude Code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlparse

from nb_agent.errors import ConfigurationError
from nb_agent.permissions.domains import domain_matches
from nb_agent.permissions.paths import (
    anchor_directory,
    candidate_paths,
    glob_matches,
    home_directory,
    parse_path_pattern,
    relative_to,
    resolve_tool_path,
)
from nb_agent.permissions.shell_rules import analysis_of, shell_rule_matches, wildcard_matches
from nb_agent.shell.command_parts import CommandAnalysis
from nb_agent.shell.programs import program_spec

if TYPE_CHECKING:
    from nb_agent.tools.base import Tool

__all__ = [
    "FILE_EDIT_TOOLS",
    "FILE_READ_TOOLS",
    "PermissionRule",
    "RuleBehavior",
    "RuleSource",
    "ToolFamily",
    "first_matching_rule",
    "parse_rule",
    "path_rule_matches",
    "rule_matches",
    "split_shell_command",
    "suggest_rule",
    "tool_family",
]

RuleBehavior = Literal["allow", "deny", "ask"]
RuleSource = Literal["user", "project", "local", "caller", "session"]
"""Where a rule came from: a settings file, the caller's arguments, or a session answer."""

ToolFamily = Literal["shell", "file_read", "file_edit", "web_fetch", "other"]

FILE_EDIT_TOOLS: frozenset[str] = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})
"""Built-in tools an ``Edit(...)`` rule covers. Other tools opt in with ``permission_family``."""
FILE_READ_TOOLS: frozenset[str] = frozenset({"Read", "Glob", "Grep", "LS", "NotebookRead"})
"""Built-in tools a ``Read(...)`` rule covers."""
SHELL_TOOLS: frozenset[str] = frozenset({"Bash"})
WEB_FETCH_TOOLS: frozenset[str] = frozenset({"WebFetch"})

_TOOL_NAME = re.compile(r"[A-Za-z0-9_\-]+")
_MCP_PREFIX = "mcp__"


@dataclass(frozen=True, kw_only=True, slots=True)
class PermissionRule:
    """One parsed rule, e.g. ``Bash(git status:*)`` from the project's settings."""

    tool_name: str
    content: str | None
    """The part in parentheses; ``None`` for a whole-tool rule (``Bash``, ``Bash(*)``)."""
    behavior: RuleBehavior
    source: RuleSource
    root: Path | None = None
    """The project directory ``/path`` and relative file patterns are anchored at;
    ``None`` means the working directory passed to :func:`rule_matches`."""

    @property
    def text(self) -> str:
        """The rule as written in a settings file."""
        return self.tool_name if self.content is None else f"{self.tool_name}({self.content})"

    def __str__(self) -> str:
        return self.text


def parse_rule(
    text: str,
    *,
    behavior: RuleBehavior = "allow",
    source: RuleSource = "session",
    root: Path | None = None,
) -> PermissionRule:
    """Parse ``Tool`` or ``Tool(content)``; raise ``ConfigurationError`` when malformed."""
    if not isinstance(text, str):
        raise ConfigurationError(f"permission rule must be a string, got {type(text).__name__}: {text!r}")
    stripped = text.strip()
    if not stripped:
        raise ConfigurationError("empty permission rule")
    content: str | None = None
    name = stripped
    if "(" in stripped or ")" in stripped:
        open_at = stripped.find("(")
        if open_at == -1 or not stripped.endswith(")"):
            raise ConfigurationError(
                f"malformed permission rule {text!r}: expected Tool or Tool(content) with balanced parentheses"
            )
        name, content = stripped[:open_at].strip(), stripped[open_at + 1 : -1].strip()
        # Claude Code: ``Tool()`` and ``Tool(*)`` mean the whole tool.
        if content in ("", "*"):
            content = None
    _check_tool_name(name, text)
    if content is not None:
        _check_content(name, content, text)
    return PermissionRule(tool_name=name, content=content, behavior=behavior, source=source, root=root)


def _check_tool_name(name: str, text: str) -> None:
    if name.startswith(_MCP_PREFIX):
        server_rule = name.endswith("__*")
        core = name[: -len("__*")] if server_rule else name
        if not _TOOL_NAME.fullmatch(core) or core == "mcp" or core.strip("_") == "mcp":
            raise ConfigurationError(f"malformed MCP permission rule {text!r}: expected mcp__server or mcp__server__tool")
        return
    if not name or not _TOOL_NAME.fullmatch(name):
        raise ConfigurationError(f"malformed permission rule {text!r}: {name!r} is not a tool name")


def _check_content(name: str, content: str, text: str) -> None:
    if name.startswith(_MCP_PREFIX):
        raise ConfigurationError(f"MCP permission rule {text!r} takes no content: use mcp__server or mcp__server__tool")
    if name in WEB_FETCH_TOOLS and not content.startswith("domain:"):
        raise ConfigurationError(f"WebFetch rule {text!r} must look like WebFetch(domain:example.com)")
    if name in WEB_FETCH_TOOLS and not content[len("domain:") :].strip():
        raise ConfigurationError(f"WebFetch rule {text!r} names no domain")
    if name in SHELL_TOOLS and content.endswith(":*") and not content[:-2].strip():
        raise ConfigurationError(f"Bash rule {text!r} has an empty prefix before ':*'")


# --- which tools a rule covers ---------------------------------------------------------


def tool_family(tool: Tool[Any]) -> ToolFamily:
    """How rules match a tool's content; a tool may declare ``permission_family``."""
    declared = getattr(tool, "permission_family", None)
    if declared in ("shell", "file_read", "file_edit", "web_fetch", "other"):
        return declared
    if tool.name in SHELL_TOOLS:
        return "shell"
    if tool.name in FILE_EDIT_TOOLS:
        return "file_edit"
    if tool.name in FILE_READ_TOOLS:
        return "file_read"
    if tool.name in WEB_FETCH_TOOLS:
        return "web_fetch"
    return "other"


def rule_applies_to_tool(rule: PermissionRule, tool: Tool[Any]) -> bool:
    """Does the rule's tool part name this tool (ignoring the content)?"""
    name = rule.tool_name
    if name.startswith(_MCP_PREFIX):
        return _mcp_rule_covers(name, tool, loose=rule.behavior != "allow")
    if name == tool.name or name in tool.aliases:
        return True
    family = tool_family(tool)
    if name == "Edit" and family == "file_edit":
        return True
    if name == "Read" and family == "file_read":
        return True
    # Claude Code: permission to edit a path implies permission to read it.
    return name == "Edit" and family == "file_read" and rule.behavior == "allow"


def _mcp_rule_covers(rule_name: str, tool: Tool[Any], *, loose: bool = False) -> bool:
    """``mcp__server`` / ``mcp__server__*`` cover the tools of exactly that server (never of
    ``server__evil``); ``mcp__server__tool`` covers exactly that tool name.

    Names compare as the tool names are built (``my.server`` is ``my_server``; colliding
    server names are refused at connection). ``loose`` (deny and ask rules) also ignores
    case: ``mcp__github`` denies a server named ``GitHub`` too (over-matching is the safe
    side for them; an allow rule stays exact)."""
    fold = _mcp_fold if loose else _mcp_normal
    rest = rule_name[len(_MCP_PREFIX) :]
    if rest.endswith("__*"):
        server_rule: str | None = rest[: -len("__*")]
    else:
        server_rule = rest if "__" not in rest else None
    if server_rule is None:
        return fold(rule_name) == fold(tool.name)
    if not tool.is_mcp:
        return False
    # The server's own (normalised) name, not a prefix of the tool name.
    server = getattr(tool, "mcp_server_key", None)
    if server is None:
        server = tool.name[len(_MCP_PREFIX) :].split("__", 1)[0] if tool.name.startswith(_MCP_PREFIX) else None
    return server is not None and fold(server) == fold(server_rule)


_MCP_INVALID_CHARS = re.compile(r"[^A-Za-z0-9_-]")


def _mcp_normal(name: str) -> str:
    """As :func:`nb_agent.mcp.config.normalize_name_for_mcp` builds tool names."""
    return _MCP_INVALID_CHARS.sub("_", name)


def _mcp_fold(name: str) -> str:
    return _mcp_normal(name).casefold()


# --- content matching ------------------------------------------------------------------


def rule_matches(
    rule: PermissionRule,
    tool: Tool[Any],
    input: Any,
    cwd: Path,
    *,
    home: Path | None = None,
    anchor: Path | None = None,
) -> bool:
    """Does ``rule`` match this call of ``tool``?

    A relative path in the call is resolved against ``cwd`` (where the tool runs); a
    rule without a root of its own (a user-level rule) is anchored at ``anchor`` (the
    session's starting directory), else at ``cwd``.

    Matching leans to the rule's side of safety: an *allow* rule must cover every part of
    a compound Bash command and every spelling of a path (as written and symlink-resolved);
    a *deny* or *ask* rule matches if any part or any spelling matches.
    """
    if not rule_applies_to_tool(rule, tool):
        return False
    if rule.content is None:
        return True
    content = tool.permission_rule_content(input)
    if content is None:
        return False
    family = tool_family(tool)
    if family == "shell":
        return _shell_rule_matches(rule.content, content, strict=rule.behavior == "allow")
    if family in ("file_read", "file_edit"):
        return path_rule_matches(rule, content, cwd=cwd, home=home, anchor=anchor)
    if family == "web_fetch":
        return _domain_rule_matches(rule.content, content)
    return wildcard_matches(rule.content, content)


def first_matching_rule(
    rules: list[PermissionRule] | tuple[PermissionRule, ...],
    tool: Tool[Any],
    input: Any,
    cwd: Path,
    *,
    behavior: RuleBehavior,
    home: Path | None = None,
    anchor: Path | None = None,
) -> PermissionRule | None:
    """The first rule of ``behavior`` matching the call (Edit's deny-rule check uses this)."""
    for rule in rules:
        if rule.behavior == behavior and rule_matches(rule, tool, input, cwd, home=home, anchor=anchor):
            return rule
    return None


def path_rule_matches(
    rule: PermissionRule, raw_path: str, *, cwd: Path, home: Path | None, anchor: Path | None = None
) -> bool:
    """Does a file rule (``Read(./.env)``, ``Edit(src/**)``) match ``raw_path``?

    Allow rules need every spelling of the path (as written, symlinks resolved) to match;
    deny and ask rules any, compared case-insensitively too: on macOS's and Windows' file
    systems ``.ENV`` opens ``.env`` (a wider deny is the safe side; an allow never widens)."""
    home = home or home_directory()
    pattern = parse_path_pattern(rule.content or "")
    base = anchor_directory(pattern, root=rule.root or anchor or cwd, home=home)
    path = resolve_tool_path(raw_path, cwd=cwd, home=home)
    folded = parse_path_pattern((rule.content or "").casefold()) if rule.behavior != "allow" else None
    results = []
    for candidate in candidate_paths(path):
        matched = False
        for anchor in candidate_paths(base):
            rel = relative_to(candidate, anchor)
            if rel is not None and glob_matches(pattern, rel):
                matched = True
                break
            if folded is not None:
                rel = relative_to(Path(str(candidate).casefold()), Path(str(anchor).casefold()))
                if rel is not None and glob_matches(folded, rel):
                    matched = True
                    break
        results.append(matched)
    return all(results) if rule.behavior == "allow" else any(results)


def _domain_rule_matches(content: str, target: str) -> bool:
    wanted = content[len("domain:") :] if content.startswith("domain:") else content
    return domain_matches(wanted, _target_host(target) or "")


def _target_host(target: str) -> str | None:
    """The host of a URL, or ``target`` itself when it is already a host (WebFetch passes
    the host its client connects to)."""
    if "://" not in target:
        return target
    try:
        return urlparse(target).hostname
    except ValueError:
        return None


# --- Bash ------------------------------------------------------------------------------


def _shell_rule_matches(pattern: str, command: str, *, strict: bool) -> bool:
    return shell_rule_matches(pattern, command, strict=strict)


def split_shell_command(command: str) -> list[str] | None:
    """The simple commands of ``command`` as written (redirections included), from the one
    parse every Bash decision uses (:func:`nb_agent.shell.command_parts.analyse_command`).

    ``None`` when no allow rule can vouch for the command: a command or process
    substitution (``$(…)``, backticks, ``<(…)``), a function definition, an unsafe
    ``${…}`` form, arithmetic, or anything the parser cannot analyse (or is not installed).
    """
    analysis = _parse(command)
    if analysis is None or not analysis.understood:
        return None
    return [part.simple.text for part in analysis.parts]


def _parse(command: str) -> CommandAnalysis | None:
    """The parsed view of ``command``; ``None`` when the parser (``tools`` extra) is missing."""
    return analysis_of(command)


# --- "Always allow" suggestions --------------------------------------------------------

_PLAIN_WORD = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+@:/=-]*")


def suggest_rule(
    tool: Tool[Any],
    input: Any,
    *,
    cwd: Path | None = None,
    root: Path | None = None,
    home: Path | None = None,
) -> str | None:
    """The rule an "Always allow" answer adds for this call, or ``None`` when none fits.

    Bash: a prefix rule of the command's first word (two for tools with subcommands,
    ``git commit -m x`` -> ``Bash(git commit:*)``); the exact command when it is compound
    or starts with a shell, wrapper, ``rm`` or ``mv``. File edits: every file in the edited file's
    directory (``Edit(src/**)``, ``Edit(//abs/dir/**)`` outside ``cwd``); reads likewise
    with ``Read``. WebFetch: the URL's domain. Anything else: the bare tool name.
    A relative file path is resolved against ``cwd``; the glob is written relative to
    ``root`` (the project the session rule is anchored at; default ``cwd``).
    """
    family = tool_family(tool)
    content = tool.permission_rule_content(input)
    if family == "shell":
        return _suggest_shell_rule(tool.name, content) if content else None
    if family in ("file_edit", "file_read") and content:
        base = "Edit" if family == "file_edit" else "Read"
        return f"{base}({_directory_glob(content, cwd=cwd or Path.cwd(), root=root, home=home)})"
    if family == "web_fetch" and content:
        host = _target_host(content)
        return f"{tool.name}(domain:{host})" if host else tool.name
    return tool.name


def _suggest_shell_rule(tool_name: str, command: str) -> str | None:
    command = command.strip()
    if not command or "\n" in command:
        return None
    words = _prefix_words(command)
    return f"{tool_name}({' '.join(words)}:*)" if words else f"{tool_name}({command})"


def _prefix_words(command: str) -> list[str] | None:
    """The words of a prefix rule for ``command`` (``git commit``), or ``None`` when only
    the exact command fits: compound or wrapped syntax, a prefixed assignment (allow
    rules never strip them), a computed word, or a program whose prefix rule would allow
    anything (a shell, ``eval``, ``rm``, a wrapper)."""
    parts = split_shell_command(command)
    analysis = _parse(command)
    if parts != [command] or analysis is None:
        return None  # several commands, or something around this one (`! x`, `( x )`)
    simple = analysis.parts[0].simple
    if simple.assignments:
        return None
    words: list[str] = []
    for word in simple.argv[:2]:
        if not word.is_literal or not _PLAIN_WORD.fullmatch(word.value):
            break
        words.append(word.value)
    if not words:
        return None
    taking = program_spec(words[0]).rule_words
    if taking == "exact":
        return None
    if taking == "subcommand":
        # ``git -C x push``: a ``git:*`` rule would allow every git command.
        return words if len(words) == 2 else None
    return words[:1]


def suggest_read_rule(path: Path, *, tree: bool, root: Path, home: Path | None = None) -> str:
    """The ``Read`` allow rule that covers an absolute ``path`` read by a command: every
    file in its directory, or everything under it when the whole ``tree`` is read."""
    return f"Read({_directory_glob(str(path / '_') if tree else str(path), cwd=root, root=root, home=home)})"


def _directory_glob(raw_path: str, *, cwd: Path, root: Path | None, home: Path | None) -> str:
    path = resolve_tool_path(raw_path, cwd=cwd, home=home)
    directory = candidate_paths(path)[0].parent
    rel = relative_to(directory, candidate_paths(root or cwd)[0])
    if rel is None:
        return f"/{directory.as_posix()}/**"  # ``//abs/dir/**``
    return f"{rel}/**" if rel else "./**"
