"""One agent per kernel: the engine, its tools and policy, and running a ``%%agent`` cell.

:meth:`KernelAgentSession.run_cell` is the coroutine a ``%%agent`` cell awaits (the
input transformer turns the cell into a top-level ``await``). It builds the engine on
first use (heavy imports happen here, not at ``%load_ext``), picks a renderer, keeps a
ticker waking the loop every 40 ms while the run is active (so the kernel's Stop is
acted on at once and widget updates go out), consumes the engine's events, and ends
with the static rendering. A kernel interrupt arrives as ``CancelledError``; the
engine turns it into an abort (tools killed, every tool_use answered, transcript
saved), and the cell ends with a short notice instead of a traceback.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nb_agent.jupyter.errors import AgentInterrupted, AgentRunFailed
from nb_agent.jupyter.model_settings import MODEL_SETTINGS, apply_model_settings
from nb_agent.jupyter.interrupts import TerminalInterrupt, uncancel_current_task
from nb_agent.jupyter.saved_sessions import SessionInfo, list_sessions
from nb_agent.state_dir import default_state_dir

if TYPE_CHECKING:
    from nb_agent.engine import QueryEngine
    from nb_agent.jupyter.view.run_state import RunState

log = logging.getLogger(__name__)

SESSION_END_TIMEOUT_ENV = "NB_AGENT_SESSION_END_TIMEOUT"
SESSION_END_TIMEOUT_S = 3.0
"""SessionEnd hooks at kernel shutdown get at most this long (Jupyter kills a kernel that
takes more than 5 s to shut down)."""
TICK_S = 0.04
"""Ticker period: widget flushes and the keep-alive that lets Stop act within a tick."""
KERNEL_BRIDGE_KEY = "nb_agent.kernel"
"""Where the kernel bridge sits in ``ToolSession.extra`` (for tools other than ours)."""
NOTEBOOK_PROMPT = """\
# Working in a Jupyter notebook
You run inside the user's Jupyter kernel; the user talks to you from %%agent cells.
- ExecuteCode runs Python in the user's own namespace: variables you create are theirs, and theirs are yours. Use it for data work, plots and checks; keep each call short.
- InspectVariables lists or describes the user's variables without running code; look before recomputing.
- NotebookEdit edits cells of a .ipynb file (Read it first). When the notebook is live (said below), Read shows what the user sees, unsaved edits included, and NotebookEdit changes the open notebook in place by cell id; otherwise the notebook the user has open must be reloaded in the browser after an edit, so prefer ExecuteCode and answers over editing it.
- The code you run is offered to the user as a new cell below, for reproducibility: write it clean."""


def _bash_tools() -> list[Any]:
    from nb_agent.tools.bash import bash_tools

    return bash_tools()


def _file_tools() -> list[Any]:
    from nb_agent.tools.files import file_tools

    return file_tools()


def _tool_search() -> list[Any]:
    from nb_agent.tools.tool_search import ToolSearchTool

    return [ToolSearchTool()]


def _interaction_tools() -> list[Any]:
    from nb_agent.tools.interaction import interaction_tools

    return interaction_tools()


def _web_tools() -> list[Any]:
    from nb_agent.tools.web import web_tools

    return web_tools()


def default_tools(bridge: Any) -> list[Any]:
    """The kernel tools, then Bash, the file tools, ToolSearch, the tools that talk with
    the user and the web tools, each family only if it imports (a broken family is left
    out with a warning, the rest still work)."""
    from nb_agent.jupyter.tools import kernel_tools

    from nb_agent.jupyter.live.read import with_live_read

    tools: list[Any] = list(kernel_tools(bridge))
    for family in (_bash_tools, _file_tools, _tool_search, _interaction_tools, _web_tools):
        try:
            tools += family()
        except Exception as exc:  # noqa: BLE001
            log.warning("%s unavailable: %s", family.__name__.strip("_"), exc)
    return with_live_read(tools, bridge.live)


def _kill_background_shells(engine: Any) -> None:
    try:
        from nb_agent.tools.bash.background import BackgroundShells

        registry = engine.tool_session.extra.get(BackgroundShells.SESSION_KEY)
        if isinstance(registry, BackgroundShells):
            registry.kill_all_now()
    except Exception:  # noqa: BLE001 - best effort (also runs at exit)
        pass


def _subagent_host(engine: Any) -> Any:
    from nb_agent.agents import SubagentHost

    return SubagentHost.of(engine.tool_session.extra)


def _in_kernel(shell: Any) -> bool:
    return getattr(shell, "kernel", None) is not None


class KernelAgentSession:
    """The per-kernel agent. ``settings`` is the :class:`AgentMagics` (traitlets)."""

    def __init__(self, shell: Any, settings: Any) -> None:
        self.shell = shell
        self.settings = settings
        self.engine: QueryEngine | None = None
        self.warnings: list[str] = []
        self.running = False
        self.last_state: RunState | None = None
        self._approver: Any = None
        self._prompts: Any = None
        """The running view's way to put questions and plans to the user (None: nobody can)."""
        self._preset: Any = None
        """The running cell's ``--answer`` list (a :class:`PresetApprover`), if it gave one."""
        self._view: Any = None
        self._bridge: Any = None
        self._explicit_notebook: Path | None = None
        self.background_cards: dict[str, Any] = {}
        """The live cards of background subagents, by agent id."""
        self.cassette: tuple[str, Path] | None = None
        """``%agent cassette``: the path as given, and resolved."""
        self._told_untrusted: set[Path] = set()
        """Untrusted folders a run already said it works without (said once per kernel)."""
        from nb_agent.jupyter.live import LiveNotebook

        self.live = LiveNotebook(shell=shell, resolve_path=_resolve_notebook)
        self._namespace_left: Any = None
        """The user's variables (name → type, id) when the last run ended."""

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
        state, warning = default_state_dir(notebook.parent if notebook is not None else Path.cwd())
        if warning:
            self._warn(warning)
        return state

    def sessions_dir(self) -> Path:
        return self.state_dir() / "sessions"

    # --- the engine ---------------------------------------------------------------------------
    @property
    def bridge(self) -> Any:
        if self._bridge is None:
            from nb_agent.jupyter.tools.bridge import KernelBridge

            self._bridge = KernelBridge(
                shell=self.shell,
                notebook_path=self.notebook_path,
                live_output=self._live_output,
                before_blocking=self._flush_view,
                live=lambda: self.live.current,
            )
        return self._bridge

    def _system_prompt(self) -> Any:
        from nb_agent.prompts import SystemPromptParts

        notebook = self.notebook_path()
        live = self.live.current
        if live is not None:
            notebook = live.path or notebook
        dynamic = [f"The user's notebook: {notebook}"] if notebook else []
        if live is not None:
            from nb_agent.jupyter.live.read import live_heading

            dynamic.append(live_heading(live).strip())
        return SystemPromptParts(append=NOTEBOOK_PROMPT, dynamic_sections=dynamic)

    def _engine_config(self) -> Any:
        from nb_agent.engine import EngineConfig

        kwargs: dict[str, Any] = {
            "max_turns": self.settings.max_turns,
            "cwd": Path.cwd(),
            "state_dir": self.state_dir(),
            "system_prompt": self._system_prompt(),
            "extra": {"notify_after_s": self.settings.notify_after},
        }
        if self.settings.model:
            kwargs["model"] = self.settings.model
        config = EngineConfig(**kwargs)
        apply_model_settings(config, self.settings)
        return config

    def _valid_rules(self, behavior: str) -> list[str]:
        """``AgentMagics.allow`` / ``.deny``; a malformed rule is left out with a warning."""
        from nb_agent.errors import ConfigurationError
        from nb_agent.permissions.rules import parse_rule

        kept = []
        for rule in getattr(self.settings, behavior):
            try:
                parse_rule(rule, behavior=behavior, source="caller", root=Path.cwd())  # type: ignore[arg-type]
            except ConfigurationError as exc:
                self._warn(f"ignored AgentMagics.{behavior} rule {rule!r}: {exc}")
                continue
            kept.append(rule)
        return kept

    def _warn(self, text: str) -> None:
        if text not in self.warnings:
            self.warnings.append(text)

    def _create_engine(self, trust: Any = None) -> QueryEngine:
        """An engine as ``create_engine`` makes it (settings files: rules, hooks, MCP
        servers), with the kernel tools and this session's approver. ``trust``: the
        folder's :class:`~nb_agent.folder_trust.FolderTrust` (default: the recorded answer)."""
        from nb_agent.agent import create_engine

        mode = self.settings.permission_mode
        config = self._engine_config()
        if trust is not None:  # rebuilt for an answer: the same folder, wherever the kernel's cwd went since
            config.cwd = trust.folder
        engine, warnings = create_engine(
            trust=trust,
            config=config,
            permission_mode=mode if mode != "default" else None,  # let the settings' defaultMode apply
            allow=self._valid_rules("allow"),
            deny=self._valid_rules("deny"),
            tools=default_tools(self.bridge),
            can_use_tool=self._can_use_tool,
        )
        for warning in warnings:
            if not warning.startswith("folder trust:"):  # said on the run and in %agent status
                self._warn(warning)
        engine.tool_session.extra[KERNEL_BRIDGE_KEY] = self.bridge
        engine.deps_overrides["between_turns"] = self._between_turns
        host = _subagent_host(engine)
        if host is not None:
            host.on_background_start.append(self._show_background_agent)
        return engine

    def _show_background_agent(self, run: Any) -> None:
        """A background subagent started in the running cell: give it a card there that
        keeps updating after the cell ends."""
        if self._render_mode() == "text":
            print(f"[background agent {run.agent_id[:8]} started: {run.label}; %agent tasks lists it]")
            return
        from nb_agent.jupyter.view.background_card import BackgroundAgentCard

        self.background_cards[run.agent_id] = BackgroundAgentCard(run)

    def setting_changed(self, name: str, value: Any) -> None:
        """An ``AgentMagics`` setting changed: carry it into the engine, if there is one."""
        engine = self.engine
        if engine is None:
            return
        if name in MODEL_SETTINGS:
            apply_model_settings(engine.config, self.settings, engine.context_manager)
            engine.usage.provider = engine.config.provider
            engine.reset_transport()
        elif name == "model":
            from nb_agent.engine import default_model

            engine.config.model = value or default_model()
        elif name == "max_turns":
            engine.config.max_turns = value
        elif name == "notify_after":
            engine.config.extra["notify_after_s"] = value
        elif name == "permission_mode":
            engine.config.permission_mode = value
            if hasattr(engine.permission_policy, "set_mode"):
                engine.permission_policy.set_mode(value)

    def sandbox_runtime(self, *, create: bool = False) -> Any:
        """The engine's Bash sandbox; without an engine, one read from the settings files
        when ``create`` (so ``%agent sandbox`` works before the first run), else None."""
        from nb_agent.tools.bash.sandbox.runtime import SANDBOX_OPTION

        engine = self.engine
        if engine is not None:
            return engine.config.extra.get("tool_options", {}).get(SANDBOX_OPTION)
        if not create:
            return None
        from nb_agent.permissions.settings import load_settings
        from nb_agent.tools.bash.sandbox.from_settings import sandbox_runtime_from_settings

        return sandbox_runtime_from_settings(load_settings(Path.cwd()), project_dir=Path.cwd())

    def ensure_engine(self) -> QueryEngine:
        if self.engine is None:
            self.engine = self._create_engine()
        return self.engine

    async def _can_use_tool(self, tool: Any, request: Any, ctx: Any) -> Any:
        from nb_agent.jupyter.prompt_answers import nobody_can_answer, prompt_kind

        if self._preset is not None:
            return await self._preset(tool, request, ctx)
        kind = prompt_kind(request.tool_name)
        if kind is not None:  # a question or a plan: only a frontend that can show it may answer
            return await self._prompts(tool, request, ctx) if self._prompts is not None else nobody_can_answer(kind)
        if self._approver is None:
            from nb_agent.permissions.types import PermissionDeny

            return PermissionDeny(
                message=(
                    f"{request.message} No one can approve it here: this run has no live view "
                    "(AgentMagics.render is 'static'). Allow it with %agent allow RULE, a permission mode, "
                    "or pre-answer it with %%agent --answer."
                )
            )
        return await self._approver(tool, request, ctx)

    def _flush_view(self) -> None:
        flush = getattr(self._view, "flush_now", None)
        if flush is not None:
            flush()

    def _live_output(self, tool_name: str, tail: str) -> None:
        view = self._view
        if view is not None:
            view.push_live_output(tool_name, tail)

    # --- sessions --------------------------------------------------------------------------------
    def list_sessions(self, limit: int = 50) -> list[SessionInfo]:
        return list_sessions(self.sessions_dir(), limit)

    def resume(self, session_id: str | None = None) -> tuple[SessionInfo, list[str]]:
        """Continue a saved session (the latest other than the current one by default)."""
        from nb_agent.errors import ConfigurationError

        sessions = self.list_sessions(limit=10_000)
        current = self.engine.session_id if self.engine is not None else None
        if session_id:
            matches = [s for s in sessions if s.session_id.startswith(session_id)]
            if not matches:
                raise ConfigurationError(f"No saved session {session_id!r} in {self.sessions_dir()}")
            if len(matches) > 1:
                raise ConfigurationError(f"{session_id!r} matches {len(matches)} sessions; give more of the id")
            chosen = matches[0]
        else:
            candidates = [s for s in sessions if s.session_id != current and s.messages > 0]
            if not candidates:
                raise ConfigurationError(f"No saved session to resume in {self.sessions_dir()}")
            chosen = candidates[0]
        # The parts (policy with its session rules, hooks, tool pool and MCP servers) carry over.
        template = self.engine or self._create_engine()
        engine, warnings = self._continue(chosen.path, template)
        _kill_background_shells(template)
        template.close()
        self.engine = engine
        return chosen, warnings

    def _continue(self, transcript: Path, template: Any) -> tuple[QueryEngine, list[str]]:
        """The conversation saved in ``transcript``, carried on with ``template``'s parts."""
        from nb_agent.engine import QueryEngine

        engine, warnings = QueryEngine.resume(
            transcript,
            config=template.config,
            tools=template.tools,
            tool_pool=template.tool_pool,
            hooks=template.hooks,
            permission_policy=template.permission_policy,
            can_use_tool=self._can_use_tool,
        )
        engine.tool_session.additional_directories = list(template.tool_session.additional_directories)
        engine.tool_session.extra[KERNEL_BRIDGE_KEY] = self.bridge
        host = _subagent_host(template)
        if host is not None:  # the same host: its background agents report to the resumed session
            from nb_agent.agents import attach_subagents

            attach_subagents(engine, host.catalog, host=host)
        return engine, warnings

    # --- folder trust ----------------------------------------------------------------------------
    def project_folder(self) -> Path:
        """The folder whose files the agent uses: its engine's, else the kernel's cwd."""
        return self.engine.config.cwd if self.engine is not None else Path.cwd()

    def folder_trust(self) -> Any:
        """The project folder's trust, as recorded now (:func:`nb_agent.folder_trust.folder_trust`)."""
        from nb_agent.folder_trust import folder_trust

        return folder_trust(self.project_folder())

    def set_folder_trust(self, trusted: bool, folder: Path | None = None) -> Any:
        """Record the answer for ``folder`` (default: the project folder) and, when the
        engine's folder is under it, rebuild the engine to match. Returns the new trust."""
        from nb_agent.trust import set_trust

        set_trust(folder or self.project_folder(), trusted)
        trust = self.folder_trust()
        if self.engine is not None:
            self._match_trust(trust)
        return trust

    def _match_trust(self, trust: Any) -> QueryEngine:
        """The engine, built (again) for ``trust`` when the one there was built otherwise."""
        from nb_agent.folder_trust import FOLDER_TRUST_KEY

        old = self.engine
        if old is None:
            self.engine = self._create_engine(trust)
            return self.engine
        built = old.config.extra.get(FOLDER_TRUST_KEY)
        if built is not None and built.applies == trust.applies:
            old.config.extra[FOLDER_TRUST_KEY] = trust
            return old
        fresh = self._create_engine(trust)
        session_rules = old.permission_policy.rules_by_source().get("session", []) if hasattr(old.permission_policy, "rules_by_source") else []
        for rule in session_rules:
            fresh.permission_policy.add_session_rule(rule.behavior, rule.text)
        engine = fresh
        if old.messages:  # the conversation goes on, with the parts the new answer allows
            engine, _ = self._continue(old.transcript_path, fresh)
            fresh.close()
        _kill_background_shells(old)
        host = _subagent_host(old)
        if host is not None:
            host.background_root.abort("The folder's trust changed")
        old.close()
        if old.tool_pool is not None and old.tool_pool is not engine.tool_pool:
            _close_soon(old.tool_pool.aclose())  # the old answer's MCP servers stop
        self.engine = engine
        return engine

    async def _settle_trust(self, options: Any, state: Any) -> Any:
        """Before a run: the folder's trust, asked for when it has never been answered
        (the card, or ``--answer trust``); said once when the folder runs untrusted."""
        from nb_agent.jupyter.view.trust_card import answered_text

        trust = self.folder_trust()
        if trust.state == "unanswered":
            answer, by = options.trust, "answered by --answer"
            if answer is None and hasattr(self._view, "show_trust_question"):
                from nb_agent.jupyter.view.trust_card import ask_trust

                answer, by = await ask_trust(self._view, trust), ""
            if answer is not None:
                from nb_agent.trust import set_trust

                set_trust(trust.folder, answer)
                if by:
                    state.notice("info", answered_text(trust, answer, by=by), subtype="folder_trust")
                trust = self.folder_trust()
            elif trust.folder not in self._told_untrusted:
                self._told_untrusted.add(trust.folder)
                state.notice("warning", untrusted_notice(trust), subtype="folder_trust")
        elif trust.state == "declined" and trust.folder not in self._told_untrusted:
            self._told_untrusted.add(trust.folder)
            state.notice("info", answered_text(trust, False, by="you answered Don't trust"), subtype="folder_trust")
        return trust

    # --- running a cell ------------------------------------------------------------------------
    async def run_cell(self, line: str, body: str) -> None:
        from nb_agent.jupyter.options import OptionsError, parse_cell_options

        try:
            options = parse_cell_options(line)
        except OptionsError as exc:
            print(exc.render())
            return
        prompt = body.strip("\n")
        if not prompt.strip():
            print("Write your request in the cell, below the %%agent line.")
            return
        if self.running:
            print("An agent run is already active in this kernel; wait for it or interrupt it.")
            return
        self.running = True
        try:
            await self._run(prompt, options)
        finally:
            self.running = False
            self._approver = None
            self._prompts = None
            self._preset = None
            self._view = None

    async def _run(self, prompt: str, options: Any) -> None:
        from nb_agent.jupyter.view.run_state import RunState

        state = RunState(model=options.model or self.settings.model, tool_lookup=self._tool_named, is_denied=self._was_denied)
        self.last_state = state
        usage_before: list[Any] = []
        # The view first: the first run's heavy imports (the engine) happen behind it.
        view = self._make_view(state, lambda: self._status(state, usage_before[0] if usage_before else None))
        if options.answers is not None:
            from nb_agent.jupyter.preset_answers import PresetApprover

            self._preset = PresetApprover(options.answers, state)
        ticker = asyncio.ensure_future(self._ticker(view))
        sigint = TerminalInterrupt() if not _in_kernel(self.shell) else None
        restore: Callable[[], None] = lambda: None  # noqa: E731
        try:
            if sigint is not None:
                sigint.install(asyncio.current_task())
            try:
                await self._start_live()
                self._match_trust(await self._settle_trust(options, state))
                engine = self._prepare(options)
            except Exception as exc:  # noqa: BLE001 - e.g. a broken settings file: said on the view
                log.debug("could not start the agent", exc_info=True)
                result, interrupted, error = None, False, f"{type(exc).__name__}: {exc}"
            else:
                restore = self._apply_overrides(engine, options)
                usage_before.append(engine.usage.total)
                result, interrupted, error = await self._consume(engine, state, prompt, new=options.new)
        finally:
            if sigint is not None:
                sigint.remove()
            ticker.cancel()
            restore()
            self.live.end_run()
            self._namespace_left = self._namespace_fingerprint()
        if result is not None:
            interrupted = interrupted or result.subtype == "interrupted"
            if result.is_error and not interrupted and result.error and not _shown(state, result.error):
                error = error or result.error
        if interrupted:
            uncancel_current_task()
        if self._preset is not None:
            self._preset.report_unused()
        state.finish(result=result, interrupted=interrupted, error=error)
        self._finish_view(view, state)
        self._offer_code_cell(state)
        self._show_live_edits()
        if interrupted:
            raise AgentInterrupted
        if result is None or result.subtype == "error_during_execution":
            raise AgentRunFailed(error or (result.error if result is not None else None) or "see the messages above")

    def _prepare(self, options: Any) -> Any:
        engine = self.ensure_engine()
        for rule in options.allow:
            self._add_rule("allow", rule)
        for rule in options.deny:
            self._add_rule("deny", rule)
        engine.config.system_prompt = self._system_prompt()  # the notebook path may have changed
        return engine

    async def _consume(self, engine: Any, state: Any, prompt: str, *, new: bool = False) -> tuple[Any, bool, str | None]:
        """Feed the engine's events to ``state``: ``(result, interrupted, error)``."""
        from nb_agent.engine import EngineResult

        result: Any = None
        try:
            if new:  # --new: SessionEnd (clear) for the old conversation, SessionStart for the new
                for event in await engine.start_new_conversation():
                    state.on_event(event)
            async for event in engine.submit_message(prompt, attachments=self._attachments()):
                if isinstance(event, EngineResult):
                    result = event
                else:
                    state.on_event(event)
        except asyncio.CancelledError:
            # The cancellation escaped the engine (it saved what it had on the way out).
            engine.interrupt()
            uncancel_current_task()
            return result, True, None
        except Exception as exc:  # noqa: BLE001 - shown on the view; the kernel keeps running
            log.debug("agent run failed", exc_info=True)
            return result, False, f"{type(exc).__name__}: {exc}"
        return result, False, None

    def _tool_named(self, name: str) -> Any:
        engine = self.engine
        return next((t for t in engine.tools if t.name == name), None) if engine is not None else None

    def _was_denied(self, tool_use_id: str) -> bool:
        engine = self.engine
        return engine is not None and any(d.tool_use_id == tool_use_id for d in engine.permission_denials)

    def _add_rule(self, behavior: str, rule: str) -> None:
        from nb_agent.errors import ConfigurationError

        engine = self.ensure_engine()
        try:
            engine.permission_policy.add_session_rule(behavior, rule)  # type: ignore[arg-type]
        except (ConfigurationError, NotImplementedError) as exc:
            print(f"Ignored the {behavior} rule {rule!r}: {exc}")

    def _apply_overrides(self, engine: Any, options: Any) -> Callable[[], None]:
        config = engine.config
        policy = engine.permission_policy
        saved = (config.model, config.max_turns, config.permission_mode, getattr(policy, "mode", None))
        saved_run = (config.fallback_model, config.max_budget_usd)
        sandbox = self.sandbox_runtime() if options.sandbox is not None else None
        if sandbox is not None:
            sandbox.override = options.sandbox
        if options.model:
            config.model = options.model
        if options.max_turns:
            config.max_turns = options.max_turns
        if options.fallback_model:
            config.fallback_model = options.fallback_model
        config.max_budget_usd = options.max_budget
        if options.permission_mode:
            config.permission_mode = options.permission_mode
            if hasattr(policy, "set_mode"):
                policy.set_mode(options.permission_mode)

        def restore() -> None:
            # A plan approved (or EnterPlanMode) during the cell chose the mode: it stays.
            mode_kept = options.permission_mode and getattr(policy, "mode", options.permission_mode) != options.permission_mode
            config.model, config.max_turns = saved[:2]
            config.fallback_model, config.max_budget_usd = saved_run
            if sandbox is not None:
                sandbox.override = None
            if mode_kept:
                return
            config.permission_mode = saved[2]
            if options.permission_mode and saved[3] is not None:
                policy.set_mode(saved[3])

        return restore

    async def _start_live(self) -> None:
        self.live.enabled = bool(getattr(self.settings, "live_notebook", True))
        try:
            await self.live.start_run()
        except Exception:  # noqa: BLE001 - the page misbehaved: work on the file as before
            log.debug("live notebook unavailable", exc_info=True)
            self.live.current = None
            self.live.mode, self.live.reason = "file", "the live notebook failed to start (see the kernel log)"

    def _attachments(self) -> list[Any]:
        from nb_agent.messages import AttachmentMessage

        live = self.live.current
        notes = [AttachmentMessage(kind="notebook_changes", content=n) for n in self.live.attachments(live)] if live else []
        return notes + self._namespace_attachment() + self._variables_attachment()

    async def _between_turns(self) -> list[Any]:
        """After each turn's tool results: what the user did to the live notebook meanwhile
        (the page's messages reach the running cell when the kernel dispatches them)."""
        from nb_agent.messages import AttachmentMessage

        live = self.live.current
        try:
            note = live.changes_since_turn() if live is not None else None
        except Exception:  # noqa: BLE001 - a note must never stop the run
            log.debug("between-turn notebook changes failed", exc_info=True)
            return []
        return [AttachmentMessage(kind="notebook_changes", content=note)] if note else []

    def _namespace_fingerprint(self) -> Any:
        if not self.settings.attach_variables:
            return None
        from nb_agent.jupyter.namespace_changes import namespace_fingerprint

        try:
            return namespace_fingerprint(self.shell)
        except Exception:  # noqa: BLE001 - a strange namespace must not break the run's end
            log.debug("namespace fingerprint failed", exc_info=True)
            return None

    def _namespace_attachment(self) -> list[Any]:
        """The variables the user's code added, changed or deleted since the last run ended."""
        before = self._namespace_left
        if before is None or not self.settings.attach_variables:
            return []
        from nb_agent.jupyter.namespace_changes import namespace_changes
        from nb_agent.messages import AttachmentMessage

        try:
            note = namespace_changes(before, self.shell)
        except Exception:  # noqa: BLE001
            log.debug("namespace changes failed", exc_info=True)
            return []
        return [AttachmentMessage(kind="namespace_changes", content=note)] if note else []

    def _variables_attachment(self) -> list[Any]:
        if not self.settings.attach_variables:
            return []
        from nb_agent.jupyter.tools.inspect_variables import variables_summary
        from nb_agent.messages import AttachmentMessage

        try:
            summary = variables_summary(self.shell)
        except Exception:  # noqa: BLE001 - a strange object in the namespace must not block the run
            log.debug("variables summary failed", exc_info=True)
            return []
        return [AttachmentMessage(kind="variables", content=summary)] if summary else []

    def _render_mode(self) -> str:
        mode = self.settings.render
        if mode == "auto":
            return "widgets" if _in_kernel(self.shell) else "text"
        return mode

    def _make_view(self, state: Any, status: Callable[[], Any]) -> Any:
        mode = self._render_mode()
        if mode == "widgets":
            try:
                from nb_agent.jupyter.view.agent_view import WidgetAgentView

                from nb_agent.jupyter.view.user_prompts import WidgetUserPrompts

                view = WidgetAgentView(state, status=status, max_updates_per_s=self.settings.max_updates_per_second)
                view.show()
                self._view, self._approver, self._prompts = view, view.approver, WidgetUserPrompts(view)
                return view
            except ImportError as exc:
                self.warnings.append(f"live widgets unavailable ({exc}); showing plain text")
                mode = "text"
        if mode == "text":
            from nb_agent.jupyter.text_view import TextAgentView, TextApprover

            from nb_agent.jupyter.text_prompts import TextUserPrompts

            view = TextAgentView(state)
            self._view, self._approver, self._prompts = view, TextApprover(view), TextUserPrompts(state)
            return view
        self._view, self._approver, self._prompts = None, None, None
        return NoView()

    def _finish_view(self, view: Any, state: Any) -> None:
        from nb_agent.jupyter.static_render import static_bundle

        bundle = static_bundle(state)
        if isinstance(view, NoView):
            from IPython.display import display

            display(bundle, raw=True)
        else:
            view.finish(bundle)

    async def _ticker(self, view: Any) -> None:
        while True:
            await asyncio.sleep(TICK_S)
            try:
                view.tick()
            except Exception:  # noqa: BLE001 - a display glitch must not end the run
                log.debug("view tick failed", exc_info=True)

    def _status(self, state: Any, usage_before: Any) -> Any:
        from nb_agent.jupyter.view.status_line import StatusSnapshot

        phase = "running"
        if any(c.status == "waiting for approval" for c in state.cards):
            phase = "waiting for you" if any(c.name in ("AskUserQuestion", "ExitPlanMode") and c.status == "waiting for approval" for c in state.cards) else "waiting for approval"
        if state.ended_at is not None:
            phase = "interrupted" if state.interrupted else "done"
        engine = self.engine
        if engine is None or usage_before is None:
            return StatusSnapshot(
                model=state.model, turn=0, input_tokens=0, output_tokens=0, context_tokens=0,
                context_window=self.settings.context_window, elapsed_s=state.elapsed(), phase=phase,
            )  # fmt: skip
        total = engine.usage.total
        return StatusSnapshot(
            permission_mode=getattr(engine.permission_policy, "mode", engine.config.permission_mode),
            todo=_todo_summary(engine),
            model=state.model or engine.config.model,
            turn=state.turn,
            input_tokens=total.context_tokens - usage_before.context_tokens,
            output_tokens=total.output_tokens - usage_before.output_tokens,
            context_tokens=engine.usage.last_request.context_tokens,
            context_window=self.settings.context_window,
            session_cost_usd=engine.usage.cost_usd,
            elapsed_s=state.elapsed(),
            phase=phase,
        )

    def _offer_code_cell(self, state: Any) -> None:
        if not self.settings.insert_code_cell:
            return
        snippets = [
            c.input["code"].strip("\n")
            for c in state.cards
            if c.name == "ExecuteCode" and c.status == "done" and isinstance(c.input.get("code"), str)
        ]
        if not snippets:
            return
        live = self.live.just_ended
        if live is not None:  # the live notebook: real cells, one per call, marked as the agent's
            try:
                live.add_code_cells([f"# Code the agent ran (ExecuteCode)\n{snippet}" for snippet in snippets])
                return
            except Exception:  # noqa: BLE001 - the page went away: offer it the old way
                log.debug("adding the code cells failed", exc_info=True)
        text = "# Code the agent ran in the cell above\n" + "\n\n".join(snippets) + "\n"
        try:
            self.shell.set_next_input(text)
        except Exception:  # noqa: BLE001 - a frontend that cannot take it just does not get it
            log.debug("set_next_input failed", exc_info=True)

    def _show_live_edits(self) -> None:
        """Below a live run's output: the card of its notebook edits (go to cell, revert)."""
        live = self.live.just_ended
        if live is None or not live.edits:
            return
        from IPython.display import display

        from nb_agent.jupyter.live.edits_card import edits_bundle

        live.reconcile()  # acknowledgements that came in after the last edit
        bundle = edits_bundle(live)
        if bundle is not None:
            display(bundle, raw=True)

    # --- shutdown --------------------------------------------------------------------------------
    def close(self) -> None:
        """At kernel shutdown (and ``%unload_ext``): SessionEnd hooks (bounded), kill
        background shells, close the transcript."""
        engine = self.engine
        if engine is None:
            return
        end_session_now(engine, "other")
        _kill_background_shells(engine)
        host = _subagent_host(engine)
        if host is not None:
            host.background_root.abort("The kernel is shutting down")
        try:
            engine.close()
        except Exception:  # noqa: BLE001 - best effort at exit
            pass


def session_end_timeout() -> float:
    try:
        return max(0.0, float(os.environ.get(SESSION_END_TIMEOUT_ENV, SESSION_END_TIMEOUT_S)))
    except ValueError:
        return SESSION_END_TIMEOUT_S


def end_session_now(engine: Any, reason: str) -> None:
    """Run SessionEnd hooks from synchronous code (atexit, unload), whether or not an event
    loop runs in this thread: on a loop of its own in a helper thread, waited for at most
    :func:`session_end_timeout` (plus a second to reap killed hooks)."""
    import threading

    if not getattr(engine, "session_hooks", None) or not engine.session_hooks.started:
        return
    cap = session_end_timeout()

    def run() -> None:
        try:
            for notice in asyncio.run(engine.end_session(reason, timeout_cap=cap)):
                log.warning("%s", notice.content)
        except Exception:  # noqa: BLE001 - never break shutdown
            log.debug("SessionEnd hooks failed", exc_info=True)

    worker = threading.Thread(target=run, name="nb_agent-session-end", daemon=True)
    worker.start()
    worker.join(cap + 1.5)


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


def _todo_summary(engine: Any) -> str:
    from nb_agent.tools.interaction.todos import current_todos

    todos = current_todos(engine.tool_session)
    if not todos:
        return ""
    done = sum(1 for t in todos if t.status == "completed")
    current = next((t.activeForm for t in todos if t.status == "in_progress"), "")
    return f"{done}/{len(todos)}" + (f" · {current}" if current else "")


_CLOSING: set[asyncio.Task[Any]] = set()


def _close_soon(closing: Any) -> None:
    """Await ``closing`` on the running loop (kept referenced until done), or now if none runs."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        asyncio.run(closing)
        return
    task = loop.create_task(closing)
    _CLOSING.add(task)
    task.add_done_callback(_CLOSING.discard)


def untrusted_notice(trust: Any) -> str:
    """Said when a run in a folder nobody answered for cannot ask (no buttons here)."""
    return (
        f"Not using {'; '.join(trust.reasons)} of {trust.folder}: this folder is not trusted, and no one can "
        "answer here. If you trust its files, run %agent trust (or give this cell --answer trust) and run it again."
    )


def _shown(state: Any, text: str) -> bool:
    from nb_agent.jupyter.view.run_state import Notice

    return any(isinstance(i, Notice) and text in i.text for i in state.items)


class NoView:
    """``render = "static"``: nothing live, only the final static rendering."""

    def tick(self) -> int:
        return 0

    def push_live_output(self, tool_name: str, tail: str) -> None:
        pass


__all__ = ["AgentInterrupted", "AgentRunFailed", "KernelAgentSession", "default_tools"]
