"""One agent per kernel: what the ``%%agent`` and ``%agent`` magics talk to.

:class:`KernelAgentSession` holds the kernel's engine (made on first use by
:class:`~nb_agent.jupyter.engine_factory.KernelEngineFactory`: heavy imports happen then,
not at ``%load_ext``) and its parts: the folder-trust flow
(:mod:`~nb_agent.jupyter.trust_flow`), what each prompt carries
(:mod:`~nb_agent.jupyter.attachments`), the running cell's frontend
(:mod:`~nb_agent.jupyter.frontend`). :meth:`KernelAgentSession.run_cell` is the coroutine
a ``%%agent`` cell awaits (the input transformer turns the cell into a top-level
``await``); one cell's run is a :class:`~nb_agent.jupyter.cell_run.CellRun`.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nb_agent.jupyter.attachments import KernelAttachments
from nb_agent.jupyter.engine_factory import KernelEngineFactory, notebook_system_prompt, sandbox_runtime
from nb_agent.jupyter.errors import AgentInterrupted, AgentRunFailed
from nb_agent.jupyter.frontend import RunFrontend
from nb_agent.jupyter.kernel_checkpoints import KernelCheckpoints
from nb_agent.jupyter.live.rewind import NotebookPart
from nb_agent.jupyter.model_settings import apply_setting
from nb_agent.jupyter.saved_sessions import SessionInfo, list_sessions
from nb_agent.jupyter.shutdown import close_at_exit, kill_background_shells
from nb_agent.jupyter.trust_flow import FolderTrustFlow
from nb_agent.state_dir import default_state_dir

if TYPE_CHECKING:
    from nb_agent.engine import QueryEngine
    from nb_agent.jupyter.view.run_state import RunState
    from nb_agent.prompts import SystemPromptParts


class KernelAgentSession:
    """The per-kernel agent. ``settings`` is the :class:`AgentMagics` (traitlets)."""

    def __init__(self, shell: Any, settings: Any) -> None:
        from nb_agent.jupyter.live import LiveNotebook

        self.shell = shell
        self.settings = settings
        self.engine: QueryEngine | None = None
        self.warnings: list[str] = []
        self.running = False
        self.last_state: RunState | None = None
        self.background_cards: dict[str, Any] = {}
        """The live cards of background subagents, by agent id."""
        self.cassette: tuple[str, Path] | None = None
        """``%agent cassette``: the path as given, and resolved."""
        self.live = LiveNotebook(shell=shell)
        self.live.hub.on_resume = lambda _channel: self.frontend.reshow()
        self.frontend = RunFrontend()
        self.attachments = KernelAttachments(shell=shell, settings=settings, live=self.live, agent_names=lambda: self.checkpoints.agent_names())
        self.checkpoints = KernelCheckpoints(shell=shell, settings=settings, after_rewind=self.attachments.remember_namespace)
        self.checkpoints.add_part(NotebookPart(self.live))
        self.live.hub.on_rewind_request = self._rewind_request
        self.trust_flow = FolderTrustFlow(self)
        self.factory = KernelEngineFactory(
            settings=settings,
            bridge=lambda: self.bridge,
            state_dir=self.state_dir,
            system_prompt=self.system_prompt,
            can_use_tool=self.frontend.can_use_tool,
            between_turns=self.attachments.between_turns,
            on_background_start=self._show_background_agent,
            warn=self.warn,
            checkpoints=lambda: self.checkpoints.store,
        )
        self._bridge: Any = None
        self._explicit_notebook: Path | None = None

    # --- where things are ------------------------------------------------------------------
    def notebook_path(self) -> Path | None:
        """``%agent notebook PATH`` > ``AgentMagics.notebook_path`` > ``JPY_SESSION_NAME``
        (set by the Jupyter server) > ``__session__`` (ipykernel's copy of it)."""
        if self._explicit_notebook is not None:
            return self._explicit_notebook
        configured = getattr(self.settings, "notebook_path", "")
        candidates = [configured, os.environ.get("JPY_SESSION_NAME", ""), self.shell.user_ns.get("__session__", "")]
        for candidate in candidates:
            if isinstance(candidate, str) and candidate.strip():
                return _resolve_notebook(candidate.strip())
        return None

    def set_notebook_path(self, path: str) -> Path:
        resolved = Path(os.path.expanduser(path))
        if not resolved.is_absolute():
            resolved = Path.cwd() / resolved
        self._explicit_notebook = resolved
        return resolved

    def state_dir(self) -> Path:
        configured = getattr(self.settings, "state_dir", "")
        if configured:
            return Path(os.path.expanduser(configured))
        notebook = self.notebook_path()
        # the notebook's folder may be the server's, not on this machine (a gateway kernel)
        here = notebook is not None and notebook.parent.is_dir()
        state, warning = default_state_dir(notebook.parent if here and notebook is not None else Path.cwd())
        if warning:
            self.warn(warning)
        return state

    def sessions_dir(self) -> Path:
        return self.state_dir() / "sessions"

    def warn(self, text: str) -> None:
        """A warning for ``%agent status`` (each said once)."""
        if text not in self.warnings:
            self.warnings.append(text)

    # --- the engine ---------------------------------------------------------------------------
    def _rewind_request(self, channel: Any, message: Any) -> None:
        """A run card's "Rewind this run" (preview, or do it): answered on the page's channel."""
        self.checkpoints.answer_page(channel, message, engine=self.engine, running=self.running)

    @property
    def bridge(self) -> Any:
        if self._bridge is None:
            from nb_agent.jupyter.tools.bridge import KernelBridge

            self._bridge = KernelBridge(
                shell=self.shell,
                notebook_path=self.notebook_path,
                live_output=self.frontend.live_output,
                before_blocking=self.frontend.flush,
                live=lambda: self.live.current,
                notebook_elsewhere=lambda raw, cwd: self.live.elsewhere(raw, cwd, self.notebook_path()),
                namespace=self.checkpoints.tracker,
            )
        return self._bridge

    def system_prompt(self) -> SystemPromptParts:
        return notebook_system_prompt(self.notebook_path(), self.live.current)

    def ensure_engine(self) -> QueryEngine:
        if self.engine is None:
            self.engine = self.factory.create()
        return self.engine

    def setting_changed(self, name: str, value: Any) -> None:
        """An ``AgentMagics`` setting changed: carry it into the engine, if there is one."""
        if self.engine is not None:
            apply_setting(self.engine, self.settings, name, value)

    def sandbox_runtime(self, *, create: bool = False) -> Any:
        """The engine's Bash sandbox (see :func:`~nb_agent.jupyter.engine_factory.sandbox_runtime`)."""
        return sandbox_runtime(self.engine, create=create)

    def _show_background_agent(self, run: Any) -> None:
        """A background subagent started in the running cell: give it a card there that
        keeps updating after the cell ends."""
        from nb_agent.jupyter.cell_view import render_mode

        if render_mode(self.settings, self.shell) == "text":
            print(f"[background agent {run.agent_id[:8]} started: {run.label}; %agent tasks lists it]")
            return
        from nb_agent.jupyter.view.background_card import BackgroundAgentCard

        self.background_cards[run.agent_id] = BackgroundAgentCard(run)

    # --- saved sessions --------------------------------------------------------------------------
    def list_sessions(self, limit: int = 50) -> list[SessionInfo]:
        return list_sessions(self.sessions_dir(), limit)

    def resume(self, session_id: str | None = None) -> tuple[SessionInfo, list[str]]:
        """Continue a saved session (the latest other than the current one by default)."""
        current = self.engine.session_id if self.engine is not None else None
        chosen = choose_session(self.list_sessions(limit=10_000), session_id, current=current, where=self.sessions_dir())
        # The parts (policy with its session rules, hooks, tool pool and MCP servers) carry over.
        template = self.engine or self.factory.create()
        engine, warnings = self.factory.carry_on(chosen.path, template)
        kill_background_shells(template)
        template.close()
        self.engine = engine
        self.attachments.resumed(chosen.path)
        return chosen, warnings

    # --- folder trust (see FolderTrustFlow) ------------------------------------------------------
    def project_folder(self) -> Path:
        return self.trust_flow.project_folder()

    def folder_trust(self) -> Any:
        return self.trust_flow.current()

    def set_folder_trust(self, trusted: bool, folder: Path | None = None) -> Any:
        return self.trust_flow.record(trusted, folder)

    # --- running a cell ------------------------------------------------------------------------
    async def run_cell(self, line: str, body: str) -> None:
        from nb_agent.jupyter.cell_run import CellRun
        from nb_agent.jupyter.options import OptionsError, parse_cell_options, split_invocation

        options_line, invocation = split_invocation(line)
        try:
            options = replace(parse_cell_options(options_line), invocation=invocation)
        except OptionsError as exc:
            print(exc.render())
            return
        prompt = body.strip("\n")
        if invocation is not None:  # %%agent /name args: the rest of the cell continues the arguments
            prompt = f"{invocation}\n{prompt}" if prompt.strip() else invocation
        if not prompt.strip():
            print("Write your request in the cell, below the %%agent line.")
            return
        if self.running:
            print("An agent run is already active in this kernel; wait for it or interrupt it.")
            return
        if (refusal := oversized_prompt(prompt, context_window=self.settings.context_window)) is not None:
            print(refusal)
            return
        if self.checkpoints.rewinding:
            print("A rewind (from a run card) is under way; run the cell again when it has finished.")
            return
        self.running = True
        try:
            await CellRun(self, prompt, options).run()
        finally:
            self.running = False
            self.last_state = None  # only stop_for_shutdown reads it, during a run
            self.frontend.clear()
            self.live.views.abandon()

    # --- shutdown --------------------------------------------------------------------------------
    def stop_for_shutdown(self, notice: str) -> bool:
        """The kernel is going (a restart, or a shutdown): the running cell's live view becomes
        the run's static rendering so far, ending with ``notice`` (on the thread that handles
        the shutdown request; the run's loop will not run again). Whether there was a run."""
        view, state = self.frontend.view, self.last_state
        if not self.running or state is None or not hasattr(view, "finish"):
            return False
        from nb_agent.jupyter import cell_view

        state.finish(interrupted=True, stop_reason=notice)
        self.live.views.stopped([cell_view.finish_view(view, state)])
        return True

    def close(self) -> None:
        """At kernel shutdown (and ``%unload_ext``): SessionEnd hooks (bounded), kill
        background shells and subagents, close the transcript."""
        if self.engine is not None:
            close_at_exit(self.engine)


PROMPT_SHARE_OF_CONTEXT = 0.5
"""A prompt may take at most this share of the context window (the rest is the system
prompt, the conversation, tool results and the answer)."""


def oversized_prompt(prompt: str, *, context_window: int) -> str | None:
    """Why ``prompt`` is refused before anything is sent, or ``None``: too large a prompt
    would set off a compaction of the conversation and then not fit anyway."""
    estimated = len(prompt) // 4  # about four characters a token
    limit = int(context_window * PROMPT_SHARE_OF_CONTEXT)
    if estimated <= limit:
        return None
    return (
        f"This prompt is about {estimated:,} tokens ({len(prompt):,} characters); a prompt may take at most "
        f"{limit:,} (half of the model's {context_window:,}-token context window). Nothing was sent and the "
        "conversation is unchanged. Put the text in a file (or a variable) and ask for what you need from it: "
        "the agent reads files in parts (Read, Grep) and looks at variables with ExecuteCode."
    )


def choose_session(sessions: list[SessionInfo], session_id: str | None, *, current: str | None, where: Path) -> SessionInfo:
    """The saved session ``session_id`` names (a prefix is enough), or the newest one with
    messages other than ``current``."""
    from nb_agent.errors import ConfigurationError

    if session_id:
        matches = [s for s in sessions if s.session_id.startswith(session_id)]
        if not matches:
            raise ConfigurationError(f"No saved session {session_id!r} in {where}")
        if len(matches) > 1:
            raise ConfigurationError(f"{session_id!r} matches {len(matches)} sessions; give more of the id")
        return matches[0]
    candidates = [s for s in sessions if s.session_id != current and s.messages > 0]
    if not candidates:
        raise ConfigurationError(f"No saved session to resume in {where}")
    return candidates[0]


def _resolve_notebook(raw: str) -> Path:
    """An absolute notebook path. The server may give it relative to its root, while the
    kernel runs in the notebook's directory: then the file is found by its name here."""
    path = Path(os.path.expanduser(raw))
    if path.is_absolute():
        return path
    here = Path.cwd() / path
    if not here.exists() and (Path.cwd() / path.name).exists():
        return Path.cwd() / path.name
    return here


__all__ = ["AgentInterrupted", "AgentRunFailed", "KernelAgentSession"]
