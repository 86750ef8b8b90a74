"""The ``%agent`` subcommands: one table, :data:`SUBCOMMANDS`, says each one's name, argument,
help and handler; parsing, the usage text, dispatch and the async-cell rewriting all read it.

Adding a subcommand is adding a row: write the handler, ``def name(session, arg) -> None``
(``async def`` when it must wait: the cell is then awaited like a ``%%agent`` cell), in
a module of this package, and put a :class:`Subcommand` for it in :data:`SUBCOMMANDS`
(and a line in the README's list: a test checks that the README documents each one).
Handlers print a short report; errors print, never raise.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from nb_agent.jupyter.commands import (
    agents,
    cassette,
    conversation,
    knowledge,
    mcp,
    report,
    reproduce,
    results,
    rewind,
    settings,
)
from nb_agent.jupyter.options import PERMISSION_MODES, OptionsError

if TYPE_CHECKING:
    from nb_agent.jupyter.session import KernelAgentSession

Handler = Callable[["KernelAgentSession", "str | None"], "Coroutine[Any, Any, None] | None"]
"""``handler(session, arg)``: ``arg`` is the rest of the line (``None`` when empty)."""


@dataclass(frozen=True, kw_only=True)
class Subcommand:
    name: str
    arg: Literal["required", "optional"] | None
    """Whether it takes the rest of the line: ``required``, ``optional`` or ``None`` (nothing)."""
    help: str
    run: Handler
    metavar: str = ""
    choices: tuple[str, ...] = ()
    """The values the argument may take (empty: any)."""
    choices_are: str = "value"
    """What a choice is, for the error message."""
    after_the_cell: bool = False
    """An async subcommand run in a cell that cannot await it: run it when the cell ends
    (only its hooks wait) instead of asking for a cell of its own."""

    @property
    def awaits(self) -> bool:
        """Whether it must be awaited (a cell holding only it is rewritten into an ``await``)."""
        return inspect.iscoroutinefunction(self.run)


def show_help(session: KernelAgentSession, _arg: str | None = None) -> None:
    print("\n".join([line_usage(), *knowledge.commands_help(session)]))


SUBCOMMANDS: tuple[Subcommand, ...] = (
    Subcommand(name="status", arg=None, run=report.status, help="model, mode, session, usage, rules (also: %agent with no arguments)"),
    Subcommand(name="new", arg=None, run=conversation.new, after_the_cell=True, help="start a new conversation"),
    Subcommand(name="compact", arg="optional", metavar="[INSTRUCTIONS]", run=conversation.compact, help="summarize the conversation to free context"),
    Subcommand(name="cost", arg=None, run=report.cost, help="tokens and USD cost of this kernel's runs"),
    Subcommand(name="history", arg=None, run=conversation.history, help="the current conversation, briefly"),
    Subcommand(name="sessions", arg=None, run=conversation.sessions, help="saved sessions next to this notebook"),
    Subcommand(
        name="result", arg="required", metavar="ID", run=results.result,
        help="the whole result of a tool call (a saved run shows its first 2,000 characters and this ID)",
    ),
    Subcommand(
        name="resume", arg="optional", metavar="[ID]", run=conversation.resume, after_the_cell=True,
        help="continue a saved session (default: the latest)",
    ),
    Subcommand(
        name="rewind", arg="optional", metavar="[ID] [--code|--conversation] | --list | --redo", run=rewind.rewind,
        help="undo the last run (variables, files, notebook edits, conversation), or go back to checkpoint ID",
    ),
    Subcommand(
        name="reproduce", arg="optional", metavar="[--timeout S]", run=reproduce.reproduce,
        help="run the notebook top to bottom in a fresh kernel: cells that fail, outputs that differ, names used before defined",
    ),
    Subcommand(name="checkpoints", arg=None, run=rewind.checkpoints, help="the runs and turns %agent rewind can go back to, with what each changed"),
    Subcommand(name="allow", arg="required", metavar="RULE", run=settings.allow, help='add a session allow rule, e.g. Bash(git status:*)'),
    Subcommand(name="deny", arg="required", metavar="RULE", run=settings.deny, help="add a session deny rule"),
    Subcommand(
        name="mode", arg="required", metavar="MODE", choices=PERMISSION_MODES, choices_are="permission mode", run=settings.mode,
        help="set the permission mode: " + ", ".join(PERMISSION_MODES),
    ),
    Subcommand(name="model", arg="required", metavar="NAME", run=settings.model, help="set the model"),
    Subcommand(
        name="provider", arg="optional", metavar="[NAME]", run=settings.provider,
        help="show or set where the model is reached: anthropic, bedrock, vertex, foundry",
    ),
    Subcommand(
        name="trust", arg="optional", metavar="[PATH]", run=settings.trust_folder,
        help="trust this folder (or PATH): its settings, hooks, .mcp.json servers, agents and git may act",
    ),
    Subcommand(name="untrust", arg="optional", metavar="[PATH]", run=settings.untrust_folder, help="stop trusting this folder (or PATH)"),
    Subcommand(name="tools", arg=None, run=report.tools, help="the tools the agent can use (and why any is not offered)"),
    Subcommand(name="todos", arg=None, run=report.todos, help="the agent's todo list"),
    Subcommand(name="hooks", arg=None, run=report.hooks, help="the hooks in force, with the settings file each comes from"),
    Subcommand(name="sandbox", arg=None, run=report.sandbox, help="the Bash sandbox: backend, what runs in it, its limits"),
    Subcommand(name="agents", arg=None, run=agents.agents, help="the subagent types the Agent tool can start"),
    Subcommand(name="memory", arg=None, run=knowledge.memory, help="the memory files the agent reads (CLAUDE.md, rules, imports), and those skipped, with why"),
    Subcommand(
        name="remember", arg="required", metavar="--project|--local|--user TEXT", run=knowledge.remember,
        help="add TEXT to the folder's CLAUDE.md, its CLAUDE.local.md, or your ~/.claude/CLAUDE.md",
    ),
    Subcommand(name="skills", arg=None, run=knowledge.skills, help="the skills and custom commands, who can invoke each, and files skipped"),
    Subcommand(name="tasks", arg=None, run=agents.tasks, help="subagents of this session: background ones running or finished"),
    Subcommand(name="stop", arg="required", metavar="ID", run=agents.stop, help="stop a background subagent (a prefix of its id is enough)"),
    Subcommand(name="notebook", arg="optional", metavar="[PATH]", run=settings.notebook, help="show or set the path of this notebook"),
    Subcommand(
        name="cassette", arg="optional", metavar="[PATH]", run=cassette.cassette,
        help="record or replay the model's traffic in PATH (relative to the notebook); alone: what was played",
    ),
    Subcommand(
        name="mcp", arg="optional", metavar="[ARGS]", run=mcp.mcp,
        help="MCP servers: list | add NAME -- CMD ARGS... | add NAME --url URL | remove NAME",
    ),
    Subcommand(name="help", arg=None, run=show_help, help="this help"),
)  # fmt: skip
BY_NAME = {s.name: s for s in SUBCOMMANDS}


def line_usage() -> str:
    rows = [f"  {s.name} {s.metavar}".rstrip() for s in SUBCOMMANDS]
    width = max(len(r) for r in rows) + 2
    lines = ["usage: %agent [SUBCOMMAND] [ARG]", "", "subcommands:"]
    lines += [f"{row.ljust(width)}{s.help}" for row, s in zip(rows, SUBCOMMANDS)]
    lines += ["", "Ask the agent with a %%agent cell; %%agent --help lists its options."]
    return "\n".join(lines)


@dataclass(frozen=True, kw_only=True)
class LineCommand:
    """One parsed ``%agent`` line: a name of :data:`SUBCOMMANDS` and its argument."""

    name: str
    arg: str | None = None

    @property
    def subcommand(self) -> Subcommand:
        return BY_NAME[self.name]


def _unquote(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return text


def parse_line_command(line: str) -> LineCommand:
    """Parse ``%agent SUBCOMMAND [ARG]``. The argument is the rest of the line, so a
    rule such as ``Bash(git status:*)`` needs no quoting."""
    text = line.strip()
    if not text:
        return LineCommand(name="status")
    name, _, rest = text.partition(" ")
    name = name.strip().lower()
    if name in ("-h", "--help"):
        name = "help"
    sub = BY_NAME.get(name)
    if sub is None:
        raise OptionsError(f"error: unknown subcommand {name!r}", usage=line_usage())
    arg = _unquote(rest) or None
    if sub.arg is None and arg is not None:
        raise OptionsError(f"error: {name} takes no argument (got {arg!r})", usage=line_usage())
    if sub.arg == "required" and arg is None:
        raise OptionsError(f"error: {name} needs {sub.metavar}", usage=line_usage())
    if sub.choices and arg is not None and arg not in sub.choices:
        raise OptionsError(
            f"error: unknown {sub.choices_are} {arg!r}; expected one of {', '.join(sub.choices)}", usage=line_usage()
        )
    return LineCommand(name=name, arg=arg)


def dispatch(session: KernelAgentSession, command: LineCommand) -> Coroutine[Any, Any, None] | None:
    """Run one parsed subcommand; an async one returns its coroutine for the caller to await."""
    return command.subcommand.run(session, command.arg)


def awaited_names() -> tuple[str, ...]:
    """The subcommands a cell holding only one of them is rewritten to await."""
    return tuple(s.name for s in SUBCOMMANDS if s.awaits)


__all__ = ["SUBCOMMANDS", "LineCommand", "Subcommand", "dispatch", "line_usage", "parse_line_command"]
