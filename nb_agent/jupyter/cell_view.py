"""How a ``%%agent`` cell shows its run: the view chosen by ``AgentMagics.render`` (live
widgets, plain text, or nothing until the static rendering), the ticker that keeps it
moving, the status line, and what is left below the cell when the run ends (the static
rendering, the code the agent ran, the card of live notebook edits)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from nb_agent.jupyter.frontend import RunFrontend

log = logging.getLogger(__name__)

TICK_S = 0.04
"""Ticker period: widget flushes and the keep-alive that lets Stop act within a tick."""


class NoView:
    """``render = "static"``: nothing live, only the final static rendering."""

    def tick(self) -> int:
        return 0

    def push_live_output(self, tool_name: str, progress: dict[str, Any]) -> None:
        pass


def in_kernel(shell: Any) -> bool:
    return getattr(shell, "kernel", None) is not None


def render_mode(settings: Any, shell: Any) -> str:
    mode = settings.render
    if mode == "auto":
        return "widgets" if in_kernel(shell) else "text"
    return mode


def make_view(
    mode: str, state: Any, *, status: Callable[[], Any], settings: Any, frontend: RunFrontend, warnings: list[str], page_widgets: bool = False
) -> Any:
    """The view for ``mode``, shown; ``frontend`` gets its approver and prompts. ``page_widgets``:
    every connected page draws the extension's widgets (see ``WidgetAgentView``)."""
    if mode == "widgets":
        try:
            from nb_agent.jupyter.view.agent_view import WidgetAgentView
            from nb_agent.jupyter.view.user_prompts import WidgetUserPrompts

            view = WidgetAgentView(state, status=status, max_updates_per_s=settings.max_updates_per_second, page_widgets=page_widgets)
            view.show()
            frontend.view, frontend.approver, frontend.prompts = view, view.approver, WidgetUserPrompts(view)
            return view
        except ImportError as exc:
            warnings.append(f"live widgets unavailable ({exc}); showing plain text")
            mode = "text"
    if mode == "text":
        from nb_agent.jupyter.text_prompts import TextUserPrompts
        from nb_agent.jupyter.text_view import TextAgentView, TextApprover

        view = TextAgentView(state)
        frontend.view, frontend.approver, frontend.prompts = view, TextApprover(view), TextUserPrompts(state)
        return view
    frontend.view, frontend.approver, frontend.prompts = None, None, None
    return NoView()


def shown_widgets(view: Any) -> tuple[str, dict[str, Any]] | None:
    """The live widget view's root model id and the MIME bundle that shows it (``None``: no widgets)."""
    bundle = getattr(view, "shown", None)
    root = getattr(view, "root", None)
    model_id = getattr(root, "model_id", None)
    return (model_id, bundle) if isinstance(bundle, dict) and isinstance(model_id, str) else None


def finish_view(view: Any, state: Any) -> dict[str, Any]:
    """Replace the live view by the run's static rendering (shown); returns that rendering."""
    from nb_agent.jupyter.static_render import static_bundle

    bundle = static_bundle(state)
    if isinstance(view, NoView):
        from IPython.display import display

        display(bundle, raw=True)
    else:
        view.finish(bundle)
    return bundle


async def ticker(view: Any) -> None:
    while True:
        await asyncio.sleep(TICK_S)
        try:
            view.tick()
        except Exception:  # a display glitch must not end the run
            log.debug("view tick failed", exc_info=True)


def status_snapshot(state: Any, engine: Any, usage_before: Any, *, context_window: int) -> Any:
    """The status line's figures for this run (``usage_before``: the engine's usage when it started)."""
    from nb_agent.jupyter.view.status_line import StatusSnapshot

    phase = "running"
    if any(c.status == "waiting for approval" for c in state.cards):
        phase = "waiting for you" if any(c.name in ("AskUserQuestion", "ExitPlanMode") and c.status == "waiting for approval" for c in state.cards) else "waiting for approval"
    if state.ended_at is not None:
        phase = "interrupted" if state.interrupted else "done"
    if engine is None or usage_before is None:
        return StatusSnapshot(
            model=state.model, turn=0, input_tokens=0, output_tokens=0, context_tokens=0,
            context_window=context_window, elapsed_s=state.elapsed(), phase=phase,
        )  # fmt: skip
    total = engine.usage.total
    streamed, estimated = engine.usage.in_flight()  # a long answer counts while it streams
    return StatusSnapshot(
        permission_mode=getattr(engine.permission_policy, "mode", engine.config.permission_mode),
        todo=_todo_summary(engine),
        model=state.model or engine.config.model,
        turn=state.turn,
        input_tokens=total.context_tokens - usage_before.context_tokens + streamed.context_tokens,
        output_tokens=total.output_tokens - usage_before.output_tokens + streamed.output_tokens,
        output_estimated=estimated,
        context_tokens=streamed.context_tokens or engine.usage.last_request.context_tokens,
        context_window=context_window,
        context_note=_context_note(engine),
        session_cost_usd=engine.usage.cost_usd,
        elapsed_s=state.elapsed(),
        phase=phase,
    )


def _context_note(engine: Any) -> str:
    manager = engine.context_manager
    thresholds = manager.thresholds(engine.config.resolve(engine.config.model))
    return thresholds.warning_note(engine.usage.last_request.context_tokens, auto_compact=manager.config.auto_compact)


def _todo_summary(engine: Any) -> str:
    from nb_agent.tools.interaction.todos import current_todos

    todos = current_todos(engine.tool_session)
    if not todos:
        return ""
    done = sum(1 for t in todos if t.status == "completed")
    current = next((t.activeForm for t in todos if t.status == "in_progress"), "")
    return f"{done}/{len(todos)}" + (f" · {current}" if current else "")


def offer_code_cell(state: Any, *, shell: Any, live: Any) -> None:
    """The code the agent ran (ExecuteCode), below the cell: with the live notebook ``live``
    (the run that just ended), real cells marked as the agent's; else one cell offered."""
    snippets = [
        c.input["code"].strip("\n")
        for c in state.cards
        if c.name == "ExecuteCode" and c.status == "done" and isinstance(c.input.get("code"), str)
    ]
    if not snippets:
        return
    if live is not None:  # the live notebook: real cells, one per call, marked as the agent's
        try:
            live.add_code_cells(snippets)
            return
        except Exception:  # the page went away: offer it the old way
            log.debug("adding the code cells failed", exc_info=True)
    text = "# Code the agent ran in the cell above\n" + "\n\n".join(snippets) + "\n"
    try:
        shell.set_next_input(text)
    except Exception:  # a frontend that cannot take it just does not get it
        log.debug("set_next_input failed", exc_info=True)


FILE_EDIT_TOOLS = {"Edit": "file_path", "Write": "file_path", "NotebookEdit": "notebook_path"}
"""The tools whose changed files the run's file edits card lists, with their path field."""


def edited_files(state: Any, engine: Any) -> set[str]:
    """Absolute paths the run's finished Edit, Write and NotebookEdit calls named."""
    cwd = Path(engine.config.cwd) if engine is not None else Path.cwd()
    found: set[str] = set()
    for card in state.cards:
        field = FILE_EDIT_TOOLS.get(card.name)
        path = card.input.get(field) if field is not None and card.status == "done" else None
        if isinstance(path, str) and path.strip():
            found.add(str(cwd / Path(path.strip()).expanduser()))
    return found


def show_live_edits(live: Any) -> dict[str, Any] | None:
    """Below a live run's output: the card of its notebook edits (go to cell, revert); returns it."""
    if live is None or not live.edits:
        return None
    from IPython.display import display

    from nb_agent.jupyter.live.edits_card import edits_bundle

    live.reconcile()  # acknowledgements that came in after the last edit
    bundle = edits_bundle(live)
    if bundle is not None:
        display(bundle, raw=True)
    return bundle


def shown(state: Any, text: str) -> bool:
    """Whether a notice of the run already says ``text`` (a retry notice does not count: it
    goes when the run ends in an error)."""
    from nb_agent.jupyter.view.run_state import Notice
    from nb_agent.model.retry import RETRY_NOTICE_SUBTYPE

    return any(isinstance(i, Notice) and i.subtype != RETRY_NOTICE_SUBTYPE and text in i.text for i in state.items)
