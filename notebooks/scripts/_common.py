"""Helpers for the model scripts that record the demo notebooks' cassettes.

A script is the model's side of a notebook, turn by turn, played by nb_agent's
``FakeAnthropicServer`` while ``record.py`` runs the notebook. A turn is a ``Reply`` or a
function of the request body that returns one (to name absolute paths in the notebook's
scratch directory, or to size the usage like a real response).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from nb_agent.testing import Reply, text, tool_use

__all__ = ["Reply", "cwd", "reply", "text", "tool_use", "turn"]

Request = dict[str, Any]
_WORKING_DIRECTORY = re.compile(r"^Working directory: (.+)$", re.MULTILINE)


def cwd(request: Request) -> str:
    """The agent's working directory, from the system prompt's environment section."""
    system = request.get("system") or []
    blob = system if isinstance(system, str) else "\n".join(block.get("text", "") for block in system)
    match = _WORKING_DIRECTORY.search(blob)
    if match is None:
        raise AssertionError("no 'Working directory:' line in the system prompt")
    return match.group(1).strip()


def reply(request: Request, *blocks: dict[str, Any]) -> Reply:
    """A reply whose input token count is the request's size (about four characters a
    token), so the usage and cost in the notebook look like a real run's."""
    return Reply(content=list(blocks), input_tokens=max(1, len(json.dumps(request)) // 4))


def turn(make: Callable[[str], list[dict[str, Any]]]) -> Callable[[Request], Reply]:
    """A turn built from the working directory: ``turn(lambda cwd: [text(...), tool_use(...)])``."""
    return lambda request: reply(request, *make(cwd(request)))
