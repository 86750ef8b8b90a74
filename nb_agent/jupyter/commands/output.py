"""What several ``%agent`` subcommands print with: short previews, hook notices, token counts."""

from __future__ import annotations

from typing import Any

from nb_agent.jupyter.view.status_line import tokens


def preview(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def print_notices(events: list[Any]) -> None:
    """Hook notices (warnings, systemMessages, context added) as lines of the cell's output."""
    for event in events:
        if getattr(event, "type", None) == "system":
            mark = "warning: " if event.level in ("warning", "error") else ""
            print(f"{mark}{event.content}")


__all__ = ["preview", "print_notices", "tokens"]
