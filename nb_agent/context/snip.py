"""History snip (seed 002 §8.1 ``snipCompact``): drop the oldest messages of a long window.

Feature-gated (``HISTORY_SNIP``) in Claude Code and off by default here
(``ContextConfig.snip_max_messages``). When on, it is deliberately conservative:

- it cuts only in front of a message the user typed, so no tool_use is separated from its
  result and the window still starts with a user turn;
- a compact boundary at the front (it carries the summary) is always kept;
- cut points move in steps of half the cap, so the same history is cut at the same place
  turn after turn (the prompt cache survives until the next step).
"""

from __future__ import annotations

import math
from typing import Any

from nb_agent.context.tool_results import is_user_prompt


def snip_history(messages: list[Any], max_messages: int | None) -> list[Any]:
    """``messages`` without its oldest part if it has more than ``max_messages``."""
    if not max_messages or len(messages) <= max_messages:
        return messages
    head = [messages[0]] if messages and messages[0].type == "compact_boundary" else []
    body = messages[len(head) :]
    step = max(1, max_messages // 2)
    target = math.ceil((len(body) + len(head) - max_messages) / step) * step
    for index in range(max(target, 1), len(body)):
        if is_user_prompt(body[index]):
            return [*head, *body[index:]]
    return messages


__all__ = ["snip_history"]
