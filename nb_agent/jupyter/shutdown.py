"""Ending an engine from the kernel's synchronous code (kernel shutdown, ``%unload_ext``,
an engine replaced by a resume or a folder-trust answer): SessionEnd hooks, bounded;
background shells and subagents stopped; the transcript closed."""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from collections.abc import Coroutine
from typing import Any

from nb_agent.jupyter.engine_factory import subagent_host

log = logging.getLogger(__name__)

SESSION_END_TIMEOUT_ENV = "NB_AGENT_SESSION_END_TIMEOUT"
SESSION_END_TIMEOUT_S = 3.0
"""SessionEnd hooks at kernel shutdown get at most this long (Jupyter kills a kernel that
takes more than 5 s to shut down)."""


def session_end_timeout() -> float:
    try:
        return max(0.0, float(os.environ.get(SESSION_END_TIMEOUT_ENV, SESSION_END_TIMEOUT_S)))
    except ValueError:
        return SESSION_END_TIMEOUT_S


def end_session_now(engine: Any, reason: str) -> None:
    """Run SessionEnd hooks from synchronous code (atexit, unload), whether or not an event
    loop runs in this thread: on a loop of its own in a helper thread, waited for at most
    :func:`session_end_timeout` (plus a second to reap killed hooks)."""
    if not getattr(engine, "session_hooks", None) or not engine.session_hooks.started:
        return
    cap = session_end_timeout()

    def run() -> None:
        try:
            for notice in asyncio.run(engine.end_session(reason, timeout_cap=cap)):
                log.warning("%s", notice.content)
        except Exception:  # never break shutdown
            log.debug("SessionEnd hooks failed", exc_info=True)

    worker = threading.Thread(target=run, name="nb_agent-session-end", daemon=True)
    worker.start()
    worker.join(cap + 1.5)


def kill_background_shells(engine: Any) -> None:
    try:
        registry = engine.tool_session.resources.background_shells
        if registry is not None:
            registry.kill_all_now()
    except Exception:  # noqa: BLE001 - best effort (also runs at exit)
        pass


def retire(engine: Any, reason: str) -> None:
    """An engine replaced by another: its background shells and subagents stop (the
    latter told ``reason``) and its transcript closes."""
    kill_background_shells(engine)
    host = subagent_host(engine)
    if host is not None:
        host.background_root.abort(reason)
    engine.close()


def close_at_exit(engine: Any) -> None:
    """At kernel shutdown (and ``%unload_ext``): SessionEnd hooks (bounded), kill
    background shells and subagents, close the transcript."""
    end_session_now(engine, "other")
    try:
        retire(engine, "The kernel is shutting down")
    except Exception:  # noqa: BLE001 - best effort at exit
        pass


_CLOSING: set[asyncio.Task[Any]] = set()


def close_soon(closing: Coroutine[Any, Any, Any]) -> None:
    """Await ``closing`` on the running loop (kept referenced until done), or now if none runs."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        asyncio.run(closing)
        return
    task = loop.create_task(closing)
    _CLOSING.add(task)
    task.add_done_callback(_CLOSING.discard)
