"""What the running cell shows and asks through: its view, the approver of permission
requests, the way to put questions and plans to the user, and the cell's ``--answer``
list. Between cells it is empty: nobody can answer then."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

log = logging.getLogger(__name__)


@dataclass(kw_only=True)
class RunFrontend:
    """The engine's ``can_use_tool`` goes here (one object per kernel, filled per cell)."""

    view: Any = None
    approver: Any = None
    prompts: Any = None
    """The running view's way to put questions and plans to the user (None: nobody can)."""
    preset: Any = None
    """The running cell's ``--answer`` list (a :class:`PresetApprover`), if it gave one."""

    def clear(self) -> None:
        self.view = self.approver = self.prompts = self.preset = None

    async def can_use_tool(self, tool: Any, request: Any, ctx: Any) -> Any:
        from nb_agent.jupyter.prompt_answers import nobody_can_answer, prompt_kind

        if self.preset is not None:
            return await self.preset(tool, request, ctx)
        kind = prompt_kind(request.tool_name)
        if kind is not None:  # a question or a plan: only a frontend that can show it may answer
            return await self.prompts(tool, request, ctx) if self.prompts is not None else nobody_can_answer(kind)
        if self.approver is None:
            from nb_agent.permissions.types import PermissionDeny

            return PermissionDeny(
                message=(
                    f"{request.message} No one can approve it here: this run has no live view "
                    "(AgentMagics.render is 'static'). Allow it with %agent allow RULE, a permission mode, "
                    "or pre-answer it with %%agent --answer."
                )
            )
        return await self.approver(tool, request, ctx)

    def flush(self) -> None:
        """Send the view's pending updates now (before the kernel blocks on user code)."""
        flush = getattr(self.view, "flush_now", None)
        if flush is not None:
            flush()

    def live_output(self, tool_name: str, progress: dict[str, Any]) -> None:
        if self.view is not None:
            self.view.push_live_output(tool_name, progress)

    def reshow(self) -> None:
        """A page's kernel websocket came back (or it saw messages missing): the running
        cell's view again, as the kernel has it, its approval buttons among it."""
        reshow = getattr(self.view, "reshow", None)
        if reshow is None:
            return
        try:
            reshow()
        except Exception:  # the run goes on; the next reconnect tries again
            log.debug("could not show the view again", exc_info=True)
