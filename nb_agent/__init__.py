"""nb_agent: an AI agent that runs inside your Jupyter kernel.

``%load_ext nb_agent`` registers the ``%%agent`` and ``%agent`` magics. The engine
(``nb_agent.loop``, ``nb_agent.engine``, ``nb_agent.tools`` …) has no Jupyter dependency.

The names in ``__all__`` are the public API for Python users (README, "Using the engine
from Python"): ``from nb_agent import create_engine, QueryEngine, Tool``. Each is imported
on first use, so ``import nb_agent`` (and ``%load_ext nb_agent``) stays cheap.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from nb_agent import import_guard as _import_guard
from nb_agent.version import __version__ as __version__

# First thing: nothing nb_agent imports from here on may come from the kernel's folder.
_import_guard.install()

if TYPE_CHECKING:  # what type checkers see; ``_PUBLIC`` below is what runs (a test compares them)
    from nb_agent.agent import builtin_tools as builtin_tools
    from nb_agent.agent import create_engine as create_engine
    from nb_agent.console import ConsoleRenderer as ConsoleRenderer
    from nb_agent.engine import EngineResult as EngineResult
    from nb_agent.engine import QueryEngine as QueryEngine
    from nb_agent.engine import ask as ask
    from nb_agent.engine_config import EngineConfig as EngineConfig
    from nb_agent.engine_config import EngineOptions as EngineOptions
    from nb_agent.errors import ConfigurationError as ConfigurationError
    from nb_agent.errors import ModelError as ModelError
    from nb_agent.errors import NbAgentError as NbAgentError
    from nb_agent.errors import ToolError as ToolError
    from nb_agent.messages import AssistantMessage as AssistantMessage
    from nb_agent.messages import LoopEvent as LoopEvent
    from nb_agent.messages import ProgressMessage as ProgressMessage
    from nb_agent.messages import StreamEvent as StreamEvent
    from nb_agent.messages import SystemMessage as SystemMessage
    from nb_agent.messages import UserMessage as UserMessage
    from nb_agent.permissions.types import CanUseTool as CanUseTool
    from nb_agent.permissions.types import PermissionAllow as PermissionAllow
    from nb_agent.permissions.types import PermissionDeny as PermissionDeny
    from nb_agent.permissions.types import PermissionMode as PermissionMode
    from nb_agent.permissions.types import PermissionRequest as PermissionRequest
    from nb_agent.tools.base import Tool as Tool
    from nb_agent.tools.base import ToolResult as ToolResult
    from nb_agent.tools.base import ToolUseContext as ToolUseContext
    from nb_agent.tools.base import ValidationResult as ValidationResult

_PUBLIC: dict[str, str] = {
    # running the agent
    "create_engine": "nb_agent.agent",
    "builtin_tools": "nb_agent.agent",
    "QueryEngine": "nb_agent.engine",
    "EngineResult": "nb_agent.engine",
    "ask": "nb_agent.engine",
    "EngineConfig": "nb_agent.engine_config",
    "EngineOptions": "nb_agent.engine_config",
    "ConsoleRenderer": "nb_agent.console",
    # what submit_message yields
    "LoopEvent": "nb_agent.messages",
    "AssistantMessage": "nb_agent.messages",
    "UserMessage": "nb_agent.messages",
    "SystemMessage": "nb_agent.messages",
    "ProgressMessage": "nb_agent.messages",
    "StreamEvent": "nb_agent.messages",
    # writing a tool
    "Tool": "nb_agent.tools.base",
    "ToolResult": "nb_agent.tools.base",
    "ToolUseContext": "nb_agent.tools.base",
    "ValidationResult": "nb_agent.tools.base",
    # answering permission requests
    "CanUseTool": "nb_agent.permissions.types",
    "PermissionRequest": "nb_agent.permissions.types",
    "PermissionAllow": "nb_agent.permissions.types",
    "PermissionDeny": "nb_agent.permissions.types",
    "PermissionMode": "nb_agent.permissions.types",
    # errors
    "NbAgentError": "nb_agent.errors",
    "ConfigurationError": "nb_agent.errors",
    "ModelError": "nb_agent.errors",
    "ToolError": "nb_agent.errors",
}
"""Public name → the module that defines it."""

__all__ = ["__version__", *_PUBLIC]  # pyright: ignore[reportUnsupportedDunderAll] - it sees the names above


def __getattr__(name: str) -> Any:
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module 'nb_agent' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later look-ups do not come here
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_PUBLIC})


def load_ipython_extension(ipython: Any) -> None:
    from nb_agent.jupyter.extension import load_ipython_extension as _load

    _load(ipython)


def unload_ipython_extension(ipython: Any) -> None:
    from nb_agent.jupyter.extension import unload_ipython_extension as _unload

    _unload(ipython)
