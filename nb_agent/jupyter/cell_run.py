"""One ``%%agent`` cell's run, from its options to what it leaves below the cell.

The view comes first (the first run's heavy imports happen behind it); a ticker wakes
the loop every 40 ms while the run is active, so the kernel's Stop is acted on at once
and widget updates go out; the folder's trust is settled, the cell's options applied for
this cell only, and the engine's events consumed into the run's state. A kernel
interrupt arrives as ``CancelledError``: the engine turns it into an abort (tools killed,
every tool_use answered, transcript saved) and the cell ends with a short notice
instead of a traceback.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from nb_agent.errors import NbAgentError
from nb_agent.jupyter import cell_view, warm
from nb_agent.jupyter.errors import AgentInterrupted, AgentRunFailed, CellEnding
from nb_agent.jupyter.interrupts import TerminalInterrupt, uncancel_current_task
from nb_agent.jupyter.live.notebook import executing_cell_id
from nb_agent.jupyter.live.run_views import display_output

if TYPE_CHECKING:
    from nb_agent.jupyter.options import CellOptions
    from nb_agent.jupyter.session import KernelAgentSession

log = logging.getLogger(__name__)


class CellRun:
    """The run of one cell in ``session``: ``await CellRun(...).run()``."""

    def __init__(self, session: KernelAgentSession, prompt: str, options: CellOptions) -> None:
        from nb_agent.jupyter.view.run_state import RunState

        self.session = session
        self.prompt = prompt
        self.options = options
        # Functions of the session, not methods of this run: the session keeps the state
        # (``last_state``) after the run, and a state holding the run that holds it is a cycle.
        self.state = RunState(
            model=self._model_name(),
            tool_lookup=functools.partial(_tool_named, session),
            is_denied=functools.partial(_was_denied, session),
        )
        self.usage_before: Any = None
        self.cost_before = 0.0

    def _model_name(self) -> str:
        """The model the status line names from the start (not a placeholder until the engine exists)."""
        from nb_agent.model.model_ids import main_model

        engine = self.session.engine
        return self.options.model or self.session.settings.model or (engine.config.model if engine is not None else main_model())

    async def run(self) -> None:
        session, options, state = self.session, self.options, self.state
        session.last_state = state
        frontend = session.frontend
        mode = cell_view.render_mode(session.settings, session.shell)
        view = cell_view.make_view(
            mode, state, status=self._status, settings=session.settings, frontend=frontend, warnings=session.warnings,
            page_widgets=session.live.hub.pages_have_widgets,
        )  # fmt: skip
        if options.answers is not None:
            from nb_agent.jupyter.preset_answers import PresetApprover

            frontend.preset = PresetApprover(options.answers, state)
        if (shown := cell_view.shown_widgets(view)) is not None:  # a page reloaded during the run gets it back
            session.live.views.started(cell_id=executing_cell_id(session.shell), model_id=shown[0], view=shown[1])
        ticker = asyncio.ensure_future(cell_view.ticker(view))
        sigint = TerminalInterrupt() if not cell_view.in_kernel(session.shell) else None
        restore: Callable[[], None] = lambda: None  # noqa: E731
        try:
            if sigint is not None:
                sigint.install(asyncio.current_task())
            try:
                await warm.ready()  # the heavy imports, off the loop: the status line keeps counting
                await self._start_live()
                session.trust_flow.match(await session.trust_flow.settle(options, state, frontend.view))
                engine = self._prepare()
            except Exception as exc:  # e.g. a broken settings file: said on the view
                log.debug("could not start the agent", exc_info=True)
                result, interrupted, error = None, False, str(exc) if isinstance(exc, NbAgentError) else f"{type(exc).__name__}: {exc}"
            else:
                restore = apply_overrides(engine, options, session.sandbox_runtime() if options.sandbox is not None else None)
                self.usage_before, self.cost_before = engine.usage.total, engine.usage.cost_usd
                result, interrupted, error = await self._consume(engine)
        finally:
            if sigint is not None:
                sigint.remove()
            ticker.cancel()
            restore()
            session.live.end_run()
            session.attachments.remember_namespace()
            session.attachments.record_kernel(session.engine)
        if result is not None:
            interrupted = interrupted or result.subtype == "interrupted"
            if result.is_error and not interrupted and result.error and not cell_view.shown(state, result.error):
                error = error or result.error
        if interrupted:
            uncancel_current_task()
        if frontend.preset is not None:
            frontend.preset.report_unused()
        ending = _ending(result, interrupted, error)
        state.finish(result=result, interrupted=interrupted, error=error, said_by_cell=ending.line if ending is not None else None)
        state.summary = self._summary()
        left: list[dict[str, Any] | None] = [cell_view.finish_view(view, state)]  # what replaces the view in a reloaded page
        if session.settings.insert_code_cell:
            cell_view.offer_code_cell(state, shell=session.shell, live=session.live.just_ended)
        left.append(cell_view.show_live_edits(session.live.just_ended))
        widgets = cell_view.render_mode(session.settings, session.shell) == "widgets"
        left.append(session.checkpoints.show_file_edits(session.engine, cell_view.edited_files(state, session.engine), widgets=widgets))
        left.append(session.checkpoints.show_run_card(session.engine))
        outputs = [display_output(bundle) for bundle in left if bundle is not None]
        session.live.views.finished(outputs + ([ending.output()] if ending is not None else []))
        if ending is not None:
            raise ending

    def _summary(self) -> str:
        """The ended run in one line (nothing when it never reached the engine)."""
        from nb_agent.jupyter.view.status_line import run_summary

        engine = self.session.engine
        if engine is None or self.usage_before is None:
            return ""
        spent = engine.usage.total - self.usage_before
        cost = engine.usage.cost_usd - self.cost_before
        return run_summary(model=self.state.model or engine.config.model, usage=spent, cost_usd=cost, elapsed_s=self.state.elapsed())

    def _status(self) -> Any:
        return cell_view.status_snapshot(
            self.state, self.session.engine, self.usage_before, context_window=self.session.settings.context_window
        )

    async def _start_live(self) -> None:
        live = self.session.live
        live.enabled = bool(getattr(self.session.settings, "live_notebook", True))
        live.review = bool(getattr(self.session.settings, "review_edits", True))
        try:
            await live.start_run()
        except Exception:  # the page misbehaved: work on the file as before
            log.debug("live notebook unavailable", exc_info=True)
            live.current = None
            live.mode, live.reason = "file", "the live notebook failed to start (see the kernel log)"

    def _prepare(self) -> Any:
        session = self.session
        engine = session.ensure_engine()
        for rule in self.options.allow:
            _add_rule(engine, "allow", rule)
        for rule in self.options.deny:
            _add_rule(engine, "deny", rule)
        engine.config.system_prompt = session.system_prompt()  # the notebook path may have changed
        if self.options.invocation is not None and engine.user_invocation(self.prompt) is None:
            from nb_agent.errors import ConfigurationError
            from nb_agent.skills.invocation import parse_invocation, unknown_invocation

            name = (parse_invocation(self.options.invocation) or ("?", ""))[0]
            raise ConfigurationError(unknown_invocation(engine.skills, name) or f"/{name} cannot be run")
        return engine

    async def _consume(self, engine: Any) -> tuple[Any, bool, str | None]:
        """Feed the engine's events to the run's state: ``(result, interrupted, error)``."""
        from nb_agent.engine import EngineResult

        state = self.state
        result: Any = None
        try:
            if self.options.new:  # --new: SessionEnd (clear) for the old conversation, SessionStart for the new
                for event in await engine.start_new_conversation():
                    state.on_event(event)
            async for event in engine.submit_message(self.prompt, attachments=self.session.attachments.for_prompt()):
                if isinstance(event, EngineResult):
                    result = event
                else:
                    state.on_event(event)
        except asyncio.CancelledError:
            # The cancellation escaped the engine (it saved what it had on the way out).
            engine.interrupt()
            uncancel_current_task()
            return result, True, None
        except Exception as exc:  # shown on the view; the kernel keeps running
            log.debug("agent run failed", exc_info=True)
            return result, False, f"{type(exc).__name__}: {exc}"
        return result, False, None


def _tool_named(session: KernelAgentSession, name: str) -> Any:
    engine = session.engine
    return next((t for t in engine.tools if t.name == name), None) if engine is not None else None


def _was_denied(session: KernelAgentSession, tool_use_id: str) -> bool:
    engine = session.engine
    return engine is not None and any(d.tool_use_id == tool_use_id for d in engine.permission_denials)


def _ending(result: Any, interrupted: bool, error: str | None) -> CellEnding | None:
    """How the cell ends when the run did not succeed: the user's Stop, or a failure."""
    if interrupted:
        return AgentInterrupted()
    if result is None or result.subtype == "error_during_execution":
        return AgentRunFailed(error or (result.error if result is not None else None) or "see the messages above")
    return None


def _add_rule(engine: Any, behavior: str, rule: str) -> None:
    from nb_agent.errors import ConfigurationError

    try:
        engine.permission_policy.add_session_rule(behavior, rule)
    except (ConfigurationError, NotImplementedError) as exc:
        print(f"Ignored the {behavior} rule {rule!r}: {exc}")


def apply_overrides(engine: Any, options: Any, sandbox: Any) -> Callable[[], None]:
    """The cell's ``--model``, ``--max-turns``, ``--fallback-model``, ``--max-budget``,
    ``--permission-mode`` and ``--sandbox`` (on ``sandbox``, the engine's Bash sandbox):
    set now; the returned function puts the engine's own back (a plan approved during
    the cell chose the mode: that mode stays)."""
    config = engine.config
    policy = engine.permission_policy
    saved = (config.model, config.max_turns, config.permission_mode, getattr(policy, "mode", None))
    saved_run = (config.fallback_model, config.max_budget_usd)
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
