"""ReproduceNotebook: the reproducibility check as a tool the model can call (``%agent
reproduce`` is the user's way to it; :mod:`nb_agent.jupyter.reproduce.check` does the work).

It reads the notebook as the user has it (the live page's cells, unsaved edits included, or
the file) and changes nothing of the user's: not the kernel, not the notebook, not its file.
But it runs every cell's code, in a fresh kernel whose effects are real (a cell that writes
a file writes it), so it is not read-only for the permission rules: like ExecuteCode it asks
unless a mode or rule allows it (otherwise a cell the agent wrote would run unasked). With the
Bash sandbox on, the fresh kernel runs inside it, and ``autoAllowBashIfSandboxed`` lets the
check run without asking, as it does a sandboxed command.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from nb_agent.jupyter.reproduce.check import DEFAULT_TIMEOUT_S, MAX_TIMEOUT_S, reproduce, saved_cells
from nb_agent.jupyter.tools.bridge import KernelBridge
from nb_agent.tools.base import InterruptBehavior, ProgressCallback, Tool, ToolResult, ToolUseContext
from nb_agent.tools.bash.sandbox.runtime import SandboxRuntime, command_wrapper
from nb_agent.tools.bash.tool import sandbox_runtime


class ReproduceNotebookInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    timeout_s: int = Field(default=DEFAULT_TIMEOUT_S, ge=5, le=MAX_TIMEOUT_S, description="Time limit for running all the cells, in seconds")


_PROMPT = """\
Runs the user's notebook top to bottom in a fresh scratch kernel (the same Python, a time limit; %%agent cells are skipped) and reports the cells that fail, the outputs of another kind than the notebook shows (an image, text, an error, nothing), and the names a cell uses before any cell above defines them (hidden state, out-of-order runs).
The user's kernel, notebook and file are not touched, but the cells' code runs for real (a cell that writes a file writes it), so the user may be asked first.
Use it before saying that the notebook works from a clean start, or to find out why it would not."""


def notebook_cells(bridge: KernelBridge) -> tuple[list[Any], Path]:
    """The notebook's cells as the user has them, and the folder its code runs in."""
    live = bridge.live()
    if live is not None:
        shown = live.address.shown
        folder = shown.parent if live.address.on_this_machine else Path.cwd()
        return list(live.document.cells), folder
    path = bridge.notebook_path()
    return saved_cells(path), path.parent if path is not None else Path.cwd()


def _sandbox(ctx: ToolUseContext) -> SandboxRuntime | None:
    """The session's Bash sandbox when it is on and can run here."""
    runtime = sandbox_runtime(ctx)
    return runtime if runtime.enabled and runtime.availability.available else None


def sandbox_wrap(ctx: ToolUseContext) -> command_wrapper | None:
    """The Bash sandbox's command wrapper when the sandbox is on (``None`` otherwise)."""
    runtime = _sandbox(ctx)
    return command_wrapper(runtime, additional_directories=ctx.session.additional_directories) if runtime else None


class ReproduceNotebook(Tool[ReproduceNotebookInput]):
    name = "ReproduceNotebook"
    input_model = ReproduceNotebookInput
    search_hint = "run the notebook top to bottom in a fresh kernel reproducibility hidden state"
    repeats_its_content = True  # the structured output is its report's text again: kept once

    def __init__(self, bridge: KernelBridge) -> None:
        self.bridge = bridge

    def prompt(self) -> str:
        return _PROMPT

    def user_facing_name(self, input: ReproduceNotebookInput | None = None) -> str:
        return "Reproducibility check"

    def interrupt_behavior(self) -> InterruptBehavior:
        return "cancel"

    def auto_allow_reason(self, input: ReproduceNotebookInput, ctx: ToolUseContext) -> str | None:
        runtime = _sandbox(ctx)
        if runtime is None or not runtime.settings.auto_allow_bash_if_sandboxed:
            return None
        return "the fresh kernel runs in the Bash sandbox (autoAllowBashIfSandboxed)"

    async def call(self, input: ReproduceNotebookInput, ctx: ToolUseContext, on_progress: ProgressCallback) -> ToolResult:
        cells, folder = notebook_cells(self.bridge)
        report = await reproduce(cells, cwd=folder, timeout=input.timeout_s, wrap=sandbox_wrap(ctx))
        return ToolResult(data=report.text(), is_error=report.run.problem is not None)
