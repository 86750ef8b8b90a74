"""``%agent reproduce``: run the notebook top to bottom in a fresh scratch kernel and say
whether it reproduces (the user asked: nothing is asked for; the Bash sandbox holds the
fresh kernel when it is on). The model's way to the same check is the ReproduceNotebook tool."""

from __future__ import annotations

import asyncio
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nb_agent.jupyter.session import KernelAgentSession
    from nb_agent.tools.bash.sandbox.runtime import command_wrapper

USAGE = "usage: %agent reproduce [--timeout SECONDS]"


def parse_timeout(arg: str | None) -> float:
    """``--timeout S`` (default the check's); raises ``ValueError`` with the usage."""
    from nb_agent.jupyter.reproduce.check import DEFAULT_TIMEOUT_S, MAX_TIMEOUT_S

    words = shlex.split(arg or "")
    if not words:
        return DEFAULT_TIMEOUT_S
    if len(words) == 2 and words[0] == "--timeout":
        try:
            seconds = float(words[1])
        except ValueError:
            raise ValueError(f"--timeout takes a number of seconds, not {words[1]!r}\n{USAGE}") from None
        if 1 <= seconds <= MAX_TIMEOUT_S:
            return seconds
        raise ValueError(f"--timeout is between 1 and {MAX_TIMEOUT_S} seconds\n{USAGE}")
    raise ValueError(USAGE)


async def _notebook(session: KernelAgentSession) -> tuple[list[Any], Path, str]:
    """The cells (the page's, unsaved edits included, or the saved file's), the folder the
    code runs in, and which of the two it is."""
    from nb_agent.jupyter.reproduce.check import saved_cells

    found = await session.live.page_cells()
    if found is not None:
        cells, address = found
        return cells, address.shown.parent if address.on_this_machine else Path.cwd(), f"{address.shown} as the page shows it"
    path = session.notebook_path()
    cells = saved_cells(path)
    assert path is not None  # saved_cells said so otherwise
    return cells, path.parent, f"{path} as saved"


def _wrap(session: KernelAgentSession) -> command_wrapper | None:
    """The Bash sandbox's command wrapper when the sandbox is on (the check runs inside it)."""
    from nb_agent.tools.bash.sandbox.runtime import command_wrapper

    runtime = session.sandbox_runtime(create=True)
    if runtime is None or not runtime.enabled or not runtime.availability.available:
        return None
    engine = session.engine
    extra = engine.tool_session.additional_directories if engine is not None else ()
    return command_wrapper(runtime, additional_directories=extra)


async def reproduce(session: KernelAgentSession, arg: str | None) -> None:
    from nb_agent.errors import NbAgentError
    from nb_agent.jupyter.interrupts import awake, uncancel_current_task
    from nb_agent.jupyter.reproduce.check import reproduce as check

    try:
        timeout = parse_timeout(arg)
        cells, folder, where = await _notebook(session)
        print(f"Checking {where}: every code cell top to bottom in a fresh kernel (at most {timeout:g} s)...", flush=True)
        report = await awake(check(cells, cwd=folder, timeout=timeout, wrap=_wrap(session)))
    except (ValueError, OSError, NbAgentError) as exc:
        print(exc)
        return
    except asyncio.CancelledError:
        uncancel_current_task()
        print("Stopped: the fresh kernel was ended; your kernel and notebook are as they were.")
        return
    print(report.text())
