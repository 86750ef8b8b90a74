"""Building the kernel's engine: the kernel tools and the engine's own, the configuration
read from ``AgentMagics``, the notebook's system prompt, and the Bash sandbox.

The heavy imports (the engine, anthropic, the tools) happen in these functions, at the
first run, not at ``%load_ext``.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nb_agent.jupyter.model_settings import apply_model_settings

if TYPE_CHECKING:
    from nb_agent.engine import EngineConfig, QueryEngine
    from nb_agent.prompts import SystemPromptParts

log = logging.getLogger(__name__)

NOTEBOOK_PROMPT = """\
# Working in a Jupyter notebook
You run inside the user's Jupyter kernel; the user talks to you from %%agent cells.
- ExecuteCode runs Python in the user's own namespace: variables you create are theirs, and theirs are yours. Use it for data work, plots and checks; keep each call short.
- InspectVariables lists or describes the user's variables without running code; look before recomputing.
- NotebookEdit edits cells of a .ipynb file (Read it first). When the notebook is live (said below), Read shows what the user sees, unsaved edits included, and NotebookEdit changes the open notebook in place by cell id; otherwise the notebook the user has open must be reloaded in the browser after an edit, so prefer ExecuteCode and answers over editing it.
- The code you run is offered to the user as a new cell below, for reproducibility: write it clean."""


def _bash_tools() -> list[Any]:
    from nb_agent.tools.bash import bash_tools

    return bash_tools()


def _file_tools() -> list[Any]:
    from nb_agent.tools.files import file_tools

    return file_tools()


def _tool_search() -> list[Any]:
    from nb_agent.tools.tool_search import ToolSearchTool

    return [ToolSearchTool()]


def _interaction_tools() -> list[Any]:
    from nb_agent.tools.interaction import interaction_tools

    return interaction_tools()


def _web_tools() -> list[Any]:
    from nb_agent.tools.web import web_tools

    return web_tools()


def default_tools(bridge: Any) -> list[Any]:
    """The kernel tools, then Bash, the file tools, ToolSearch, the tools that talk with
    the user and the web tools, each family only if it imports (a broken family is left
    out with a warning, the rest still work)."""
    from nb_agent.jupyter.live.read import with_live_read
    from nb_agent.jupyter.tools import kernel_tools

    tools: list[Any] = list(kernel_tools(bridge))
    for family in (_bash_tools, _file_tools, _tool_search, _interaction_tools, _web_tools):
        try:
            tools += family()
        except Exception as exc:  # noqa: BLE001
            log.warning("%s unavailable: %s", family.__name__.strip("_"), exc)
    return with_live_read(tools, bridge.live, bridge.notebook_elsewhere)


def notebook_system_prompt(notebook: Path | None, live: Any) -> SystemPromptParts:
    """The notebook's part of the system prompt: how to work here, and which notebook
    (the live one's path first, with its heading)."""
    from nb_agent.prompts import SystemPromptParts

    shown: Any = live.address.where() if live is not None else notebook  # a remote notebook says it is not a file here
    dynamic = [f"The user's notebook: {shown}"] if shown else []
    if live is not None:
        from nb_agent.jupyter.live.read import live_heading

        dynamic.append(live_heading(live).strip())
    return SystemPromptParts(append=NOTEBOOK_PROMPT, dynamic_sections=dynamic)


def valid_rules(settings: Any, behavior: str, warn: Callable[[str], None]) -> list[str]:
    """``AgentMagics.allow`` / ``.deny``; a malformed rule is left out with a warning."""
    from nb_agent.errors import ConfigurationError
    from nb_agent.permissions.rules import parse_rule

    kept = []
    for rule in getattr(settings, behavior):
        try:
            parse_rule(rule, behavior=behavior, source="caller", root=Path.cwd())  # type: ignore[arg-type]
        except ConfigurationError as exc:
            warn(f"ignored AgentMagics.{behavior} rule {rule!r}: {exc}")
            continue
        kept.append(rule)
    return kept


@dataclass(kw_only=True)
class KernelEngineFactory:
    """Makes the kernel's engines (the first, and again for a folder-trust answer or a
    resume), all wired to the same kernel: its bridge, approvals and notices."""

    settings: Any
    """The :class:`AgentMagics` (traitlets)."""
    bridge: Callable[[], Any]
    """The kernel bridge (made on first use)."""
    state_dir: Callable[[], Path]
    system_prompt: Callable[[], SystemPromptParts]
    can_use_tool: Callable[..., Any]
    between_turns: Callable[[], Any]
    on_background_start: Callable[[Any], None]
    warn: Callable[[str], None]
    checkpoints: Callable[[], Any] = lambda: None
    """The kernel's checkpoint store (every engine of the kernel checkpoints into it)."""

    def config(self) -> EngineConfig:
        from nb_agent.engine_config import EngineConfig, EngineOptions

        kwargs: dict[str, Any] = {
            "max_turns": self.settings.max_turns,
            "cwd": Path.cwd(),
            "state_dir": self.state_dir(),
            "system_prompt": self.system_prompt(),
            "options": EngineOptions(notify_after_s=self.settings.notify_after),
        }
        if self.settings.model:
            kwargs["model"] = self.settings.model
        config = EngineConfig(**kwargs)
        apply_model_settings(config, self.settings)
        return config

    def create(self, trust: Any = None) -> QueryEngine:
        """An engine as ``create_engine`` makes it (settings files: rules, hooks, MCP
        servers), with the kernel tools and this session's approver. ``trust``: the
        folder's :class:`~nb_agent.folder_trust.FolderTrust` (default: the recorded answer)."""
        from nb_agent.agent import create_engine
        from nb_agent.model.cassette import CASSETTE_ENV

        mode = self.settings.permission_mode
        config = self.config()
        if trust is not None:  # rebuilt for an answer: the same folder, wherever the kernel's cwd went since
            config.cwd = trust.folder
        engine, warnings = create_engine(
            trust=trust,
            config=config,
            permission_mode=mode if mode != "default" else None,  # let the settings' defaultMode apply
            allow=valid_rules(self.settings, "allow", self.warn),
            deny=valid_rules(self.settings, "deny", self.warn),
            tools=default_tools(self.bridge()),
            can_use_tool=self.can_use_tool,
            checkpoints=self.checkpoints(),
        )
        for warning in warnings:
            if not warning.startswith("folder trust:"):  # said on the run and in %agent status
                self.warn(warning)
        engine.tool_session.resources.kernel = self.bridge()  # for tools other than ours
        engine.deps_overrides["between_turns"] = self.between_turns
        if engine.tool_pool is not None and not os.environ.get(CASSETTE_ENV):
            # a broken MCP server must not hold up the first answer; a replay waits for every
            # server, as its recording did (its requests must carry the same tools)
            engine.tool_pool.mcp_wait = max(0.0, float(self.settings.mcp_wait))
        quiet_mcp_library()
        host = subagent_host(engine)
        if host is not None:
            host.on_background_start.append(self.on_background_start)
        return engine

    def carry_on(self, transcript: Path, template: Any) -> tuple[QueryEngine, list[str]]:
        """The conversation saved in ``transcript``, carried on with ``template``'s parts
        (policy with its session rules, hooks, tool pool and MCP servers, subagents)."""
        engine, warnings = template.carry_on(transcript, can_use_tool=self.can_use_tool)
        host = subagent_host(template)
        if host is not None:  # the same host: its background agents report to the resumed session
            from nb_agent.agents import attach_subagents

            attach_subagents(engine, host.catalog, host=host)
        return engine, warnings


def quiet_mcp_library() -> None:
    """The MCP client library logs a server's non-JSON output with a full pydantic traceback,
    which the kernel prints into the cell; nb_agent says what went wrong in one line
    (``ToolPoolProvider.take_notices``, ``%agent mcp``), so those records stop at the
    library's logger (kept at DEBUG for whoever configures it)."""
    import logging

    library = logging.getLogger("mcp")
    if not any(isinstance(h, logging.NullHandler) for h in library.handlers):
        library.addHandler(logging.NullHandler())
    library.propagate = False


def subagent_host(engine: Any) -> Any:
    return engine.tool_session.resources.subagents


def sandbox_runtime(engine: Any, *, create: bool = False) -> Any:
    """The engine's Bash sandbox; without an engine, one read from the settings files
    when ``create`` (so ``%agent sandbox`` works before the first run), else None."""
    if engine is not None:
        return engine.config.options.sandbox
    if not create:
        return None
    from nb_agent.permissions.settings import load_settings
    from nb_agent.tools.bash.sandbox.from_settings import sandbox_runtime_from_settings

    return sandbox_runtime_from_settings(load_settings(Path.cwd()), project_dir=Path.cwd())
