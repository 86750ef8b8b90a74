"""``%%agent`` and ``%agent``: the magics and their configurable settings.

Settings are traitlets (``%config AgentMagics.model = "claude-opus-4-5"``) with
environment fallbacks ``NB_AGENT_MODEL`` and ``NB_AGENT_PERMISSION_MODE``. Importing
this module is cheap: the engine, anthropic, ipywidgets and markdown-it load at the
first run.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Coroutine
from typing import Any

from IPython.core.getipython import get_ipython
from IPython.core.magic import Magics, cell_magic, line_magic, magics_class
from traitlets import Bool, Enum, Float, Int, List, Unicode, default, observe, validate

from nb_agent.context.images import DEFAULT_KEEP_IMAGES
from nb_agent.jupyter import warm
from nb_agent.jupyter.commands import BY_NAME, dispatch, line_usage, parse_line_command
from nb_agent.jupyter.options import PERMISSION_MODES, OptionsError, cell_usage

MODEL_ENV = "NB_AGENT_MODEL"
PERMISSION_MODE_ENV = "NB_AGENT_PERMISSION_MODE"
RENDER_ENV = "NB_AGENT_RENDER"
RENDER_MODES = ("auto", "widgets", "text", "static")

SYNC_CELL_MESSAGE = (
    "%%agent runs as an async cell, which needs IPython's autoawait with the asyncio runner "
    "(this cell ran synchronously, so it could not wait for approvals or be interrupted). "
    "Run `%autoawait asyncio` and execute the cell again."
)


@magics_class
class AgentMagics(Magics):
    """The agent of this kernel."""

    model = Unicode(
        help=f"Model for the agent; empty means the engine's default. Falls back to ${MODEL_ENV}."
    ).tag(config=True)
    fallback_model = Unicode(
        "", help="Model to switch to when the model is overloaded (529s); empty: none. %%agent --fallback-model sets it for one cell."
    ).tag(config=True)
    provider = Unicode(
        help=(
            "Where the model is reached: anthropic, bedrock, vertex or foundry; empty: from the environment "
            "(CLAUDE_CODE_USE_BEDROCK / _VERTEX / _FOUNDRY, else Anthropic's API). Also %agent provider NAME."
        )
    ).tag(config=True)
    auto_compact = Bool(
        True, help="Summarize the conversation automatically near the context limit; off: a run stops at the limit."
    ).tag(config=True)
    keep_images = Int(
        DEFAULT_KEEP_IMAGES,
        help=(
            "Images (charts) of tool results kept in the conversation, 3-8: older ones are replaced by a line "
            "saying where the image is saved, so long sessions stay light."
        ),
    ).tag(config=True)
    permission_mode = Enum(
        PERMISSION_MODES,
        help=f"Permission mode: {', '.join(PERMISSION_MODES)}. Falls back to ${PERMISSION_MODE_ENV}.",
    ).tag(config=True)
    allow = List(Unicode(), help='Allow rules for every session, e.g. ["Bash(git status:*)"].').tag(config=True)
    deny = List(Unicode(), help="Deny rules for every session.").tag(config=True)
    max_turns = Int(None, allow_none=True, help="Stop a run after this many model turns (None: no limit).").tag(config=True)
    insert_code_cell = Bool(
        True,
        help=(
            "After a run that executed code, put that code below the %%agent cell (reproducibility): with the live "
            "notebook, one real code cell per ExecuteCode call, marked as the agent's (metadata nb_agent.agent_made); "
            "otherwise one new cell offered with set_next_input."
        ),
    ).tag(config=True)
    review_edits = Bool(
        True,
        help=(
            "Mark the live notebook edits the agent makes without asking (acceptEdits, bypassPermissions) as pending "
            "review in the page, until you Keep or Undo them on the run's edits card. The mark is the page's only: "
            "never in the saved notebook's sources or metadata."
        ),
    ).tag(config=True)
    render = Enum(
        RENDER_MODES,
        help=(
            "How a run is shown: 'auto' (widgets in a kernel, text in a terminal), 'widgets', 'text', or 'static' "
            "(no live updates, only the final rendering; approvals cannot be asked then, pre-answer them with "
            f"%%agent --answer). Falls back to ${RENDER_ENV}."
        ),
    ).tag(config=True)
    max_updates_per_second = Float(25.0, help="At most this many live view updates a second.").tag(config=True)
    context_window = Int(200_000, help="The model's context window, for the status line's 'context used'.").tag(config=True)
    attach_variables = Bool(
        True, help="Attach a short summary of the user's variables to each prompt."
    ).tag(config=True)
    live_notebook = Bool(
        True,
        help=(
            "Read and edit the notebook open in JupyterLab / Notebook 7 live, through the nb-agent-live "
            "extension, when it answers (False: always work on the .ipynb file)."
        ),
    ).tag(config=True)
    notebook_path = Unicode("", help="Path of this notebook (default: from the Jupyter server, or %agent notebook).").tag(
        config=True
    )
    mcp_wait = Float(
        5.0,
        help=(
            "At most this many seconds a run waits for MCP servers still starting before its first request; "
            "a slower one joins later (a notice says so), a failed one is named in one line and left out."
        ),
    ).tag(config=True)
    notify_after = Float(
        30.0, help="A run at least this many seconds long fires the Notification hooks (idle_prompt) when it ends."
    ).tag(config=True)
    state_dir = Unicode("", help="Where sessions are saved (default: .nb_agent next to the notebook).").tag(config=True)
    checkpoints = Bool(
        True,
        help=(
            "Take checkpoints at the start of every run and turn (variables, files of the working directories, "
            "notebook edits, the conversation's position) so %agent rewind can undo the agent's work."
        ),
    ).tag(config=True)
    checkpoint_max_file_size = Int(50 * 1024 * 1024, help="Files larger than this many bytes are left out of file checkpoints (and named).").tag(config=True)
    checkpoint_max_files = Int(
        50_000, help="A working directory with more files than this gets no file checkpoints (said once); add a .gitignore."
    ).tag(config=True)
    checkpoint_memory = Int(
        0,
        help=(
            "Bytes the namespace checkpoints may hold (copies of arrays and containers an ExecuteCode call may "
            "change, objects the agent rebound or deleted); the oldest are let go first. 0: the smaller of 1 GB "
            "and a quarter of the available memory."
        ),
    ).tag(config=True)

    @default("model")
    def _default_model(self) -> str:
        return os.environ.get(MODEL_ENV, "")

    @default("provider")
    def _default_provider(self) -> str:
        return os.environ.get("NB_AGENT_PROVIDER", "")

    @validate("provider")
    def _valid_provider(self, proposal: Any) -> str:
        from traitlets import TraitError

        value = str(proposal["value"]).strip()
        if value:
            from nb_agent.errors import ConfigurationError
            from nb_agent.model.providers import parse_provider

            try:
                parse_provider(value)
            except ConfigurationError as exc:
                raise TraitError(str(exc)) from None
        return value

    @default("permission_mode")
    def _default_permission_mode(self) -> str:
        value = os.environ.get(PERMISSION_MODE_ENV, "")
        return value if value in PERMISSION_MODES else "default"

    @default("render")
    def _default_render(self) -> str:
        value = os.environ.get(RENDER_ENV, "").strip().lower()
        return value if value in RENDER_MODES else "auto"

    @validate("max_updates_per_second")
    def _valid_rate(self, proposal: Any) -> float:
        return min(max(float(proposal["value"]), 1.0), 25.0)

    @validate("keep_images")
    def _valid_keep_images(self, proposal: Any) -> int:
        from nb_agent.context.images import clamp_keep

        return clamp_keep(proposal["value"])

    @observe(
        "model", "permission_mode", "max_turns", "notify_after", "provider", "fallback_model", "auto_compact", "keep_images"
    )
    def _setting_changed(self, change: Any) -> None:
        session = getattr(self, "session", None)
        if session is not None:  # %config after the engine exists: applies from the next run
            session.setting_changed(change["name"], change["new"])

    def __init__(self, shell: Any = None, **kwargs: Any) -> None:
        super().__init__(shell=shell, **kwargs)
        from nb_agent.jupyter.session import KernelAgentSession

        self.session = KernelAgentSession(shell, self)
        env_mode = os.environ.get(PERMISSION_MODE_ENV, "")
        if env_mode and env_mode not in PERMISSION_MODES:
            self.session.warnings.append(f"${PERMISSION_MODE_ENV}={env_mode!r} is not a permission mode; using 'default'")

    # --- %%agent ------------------------------------------------------------------------
    @cell_magic("agent")
    def agent_cell(self, line: str, cell: str) -> None:
        """Reached only when the cell did not run as an async cell (see SYNC_CELL_MESSAGE)."""
        coroutine = self.session.run_cell(line, cell)
        _run_sync(coroutine, SYNC_CELL_MESSAGE)

    # --- %agent -------------------------------------------------------------------------
    @line_magic("agent")
    def agent_line(self, line: str) -> None:
        try:
            command = parse_line_command(line)
        except OptionsError as exc:
            print(exc.render())
            return
        warm.join()  # a subcommand's imports on this thread must not meet the warming thread's halfway
        pending = dispatch(self.session, command)
        if pending is None:
            return
        if BY_NAME[command.name].after_the_cell:
            # Only its session hooks wait: they run as soon as this cell ends.
            _run_sync(pending, "(it takes effect when this cell ends; run it alone in a cell to see it at once)", schedule=True)
            return
        _run_sync(pending, f"Run `%agent {command.name}` alone in its own cell (it waits for the model or the servers).")

    def _line(self, line: str) -> Coroutine[Any, Any, None] | None:
        try:
            command = parse_line_command(line)
        except OptionsError as exc:
            print(exc.render())
            return None
        warm.join()  # a subcommand's imports on this thread must not meet the warming thread's halfway
        return dispatch(self.session, command)


AgentMagics.agent_cell.__doc__ = cell_usage()
AgentMagics.agent_line.__doc__ = line_usage()


_SCHEDULED: set[asyncio.Task[None]] = set()


def _run_sync(coroutine: Coroutine[Any, Any, None], message: str, *, schedule: bool = False) -> None:
    """Run ``coroutine`` to the end when no loop runs in this thread; else explain and drop
    it (or, with ``schedule``, start it on the running loop, to finish after the cell)."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        asyncio.run(coroutine)
        return
    if schedule:
        task = loop.create_task(coroutine)
        _SCHEDULED.add(task)
        task.add_done_callback(_SCHEDULED.discard)
    else:
        coroutine.close()
    print(message)


def _magics() -> AgentMagics:
    shell = get_ipython()
    manager = shell.magics_manager if shell is not None else None
    instance = manager.registry.get("AgentMagics") if manager is not None else None
    if instance is None:
        raise RuntimeError("nb_agent is not loaded: run %load_ext nb_agent")
    return instance


async def _run_cell_entry(line: str, body: str) -> None:
    """What a rewritten ``%%agent`` cell awaits."""
    await _magics().session.run_cell(line, body)


async def _run_line_entry(line: str) -> None:
    """What a rewritten ``%agent compact`` cell awaits."""
    pending = _magics()._line(line)
    if pending is not None:
        await pending
