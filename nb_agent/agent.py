"""Build a ready-to-use engine the way a user expects: settings files, rules, hooks, tools.

``create_engine()`` reads ``.claude/settings.json`` / ``.claude/settings.local.json`` /
``~/.claude/settings.json`` (permissions and hooks), adds the caller's rules, and gives
the model the built-in tools. The notebook layer and the headless example both use it.

It is also where folder trust is enforced (:mod:`nb_agent.folder_trust`): in a folder
whose files would change the agent's behaviour and that the user has not trusted, the
project's settings give only deny and ask rules, ``.mcp.json`` servers are not started,
``.claude/agents`` is not read, no git status is read and git commands always ask.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from nb_agent import import_guard
from nb_agent.engine import EngineConfig, QueryEngine
from nb_agent.folder_trust import FolderTrust, folder_trust
from nb_agent.hooks.registry import Hooks
from nb_agent.model.transport import ModelTransport
from nb_agent.permissions.paths import home_directory
from nb_agent.permissions.policy import RuleBasedPolicy
from nb_agent.permissions.settings import load_settings
from nb_agent.permissions.types import CanUseTool, PermissionMode
from nb_agent.skills.loader import load_skill_catalog
from nb_agent.skills.tool import SkillTool
from nb_agent.state_dir import default_state_dir
from nb_agent.tools.base import Tool
from nb_agent.tools.tool_pool import ToolPoolProvider


def builtin_tools() -> list[Tool[Any]]:
    """Bash (with BashOutput/KillShell), Read, Write, Edit, Glob, Grep, ToolSearch,
    TodoWrite, AskUserQuestion, EnterPlanMode, ExitPlanMode, WebFetch, WebSearch."""
    from nb_agent.tools.bash import bash_tools
    from nb_agent.tools.files import file_tools
    from nb_agent.tools.interaction import interaction_tools
    from nb_agent.tools.tool_search import ToolSearchTool
    from nb_agent.tools.web import web_tools

    return [*bash_tools(), *file_tools(), ToolSearchTool(), *interaction_tools(), *web_tools()]


def _follow_session_provider(tools: Sequence[Tool[Any]], config: EngineConfig) -> None:
    """WebSearch is offered by the session's provider (which ``%agent provider`` may set),
    not only the environment's: the pool is assembled again at every submission."""
    from nb_agent.tools.web import WebSearchTool

    for tool in tools:
        if isinstance(tool, WebSearchTool):
            tool.session_provider = lambda: config.resolved_provider


def mcp_manager_for(cwd: Path, *, home: Path | None = None, include_project: bool = True) -> Any:
    """An MCP manager for ``.mcp.json`` (when ``include_project``: the folder is trusted)
    and ``~/.claude.json`` (servers connect lazily); None when the ``mcp`` package is not
    installed."""
    from nb_agent.mcp.manager import McpManager
    from nb_agent.mcp.state import sdk_installed

    if not sdk_installed():  # the mcp extra is not installed: no MCP servers, everything else works
        return None
    user_config = (home or Path.home()) / ".claude.json"
    return McpManager.from_config(cwd=cwd, user_config_path=user_config, include_project=include_project)


def _configure_sandbox(config: EngineConfig, settings: Any, *, home: Path | None) -> list[str]:
    """Put the session's Bash sandbox, from the settings files, where Bash finds it."""
    from nb_agent.tools.bash.sandbox.from_settings import sandbox_runtime_from_settings

    runtime = sandbox_runtime_from_settings(settings, project_dir=config.cwd, home=home)
    config.options.sandbox = runtime
    import_guard.distrust(runtime.settings.allow_write)  # sandboxed commands write there unasked
    return list(runtime.warnings)


def _decide_trust(trust: FolderTrust | bool | None, cwd: Path, *, home: Path | None) -> FolderTrust:
    # A decision made for another folder (the kernel's cwd moved between the answer and the
    # build) says nothing about this one: decide again from the recorded answers.
    if isinstance(trust, FolderTrust) and trust.folder == Path(os.path.abspath(cwd)):
        return trust
    if isinstance(trust, FolderTrust):
        return folder_trust(cwd, home=home)
    found = folder_trust(cwd, home=home)
    if trust is None or found.state == "not_needed":
        return found
    return replace(found, state="trusted" if trust else "declined")


def create_engine(
    *,
    cwd: Path | None = None,
    model: str | None = None,
    permission_mode: PermissionMode | None = None,
    allow: Sequence[str] = (),
    deny: Sequence[str] = (),
    tools: Sequence[Tool[Any]] | None = None,
    extra_tools: Sequence[Tool[Any]] = (),
    transport: ModelTransport | None = None,
    can_use_tool: CanUseTool | None = None,
    home: Path | None = None,
    config: EngineConfig | None = None,
    mcp: Any = None,
    agents: bool = True,
    project_agents: bool = True,
    skills: bool = True,
    trust: FolderTrust | bool | None = None,
    **engine_kwargs: Any,
) -> tuple[QueryEngine, list[str]]:
    """An engine configured from the settings files; returns it with any settings warnings.

    ``mcp``: an ``McpManager``, ``None`` to read ``.mcp.json`` / ``~/.claude.json``, or
    ``False`` for no MCP servers. Servers connect at the first submission, not here.
    ``agents``: give the model the ``Agent`` tool (built-in types and the custom agents of
    ``~/.claude/agents``, plus ``<cwd>/.claude/agents`` when ``project_agents``: the
    caller's decision that the folder is trusted).
    ``skills``: read skills and custom commands (``~/.claude``, and the folder's own when
    it is trusted); the model gets the ``Skill`` tool when one of them is for it.
    ``trust``: the folder's trust (:func:`nb_agent.folder_trust.folder_trust`); ``None``
    decides it from the user's recorded answer (a folder nobody answered for is not
    trusted), ``True`` / ``False`` is the caller's answer. It is kept in
    ``config.folder_trust``.
    """
    config = config or EngineConfig()
    if cwd is not None:
        config.cwd = cwd
    if model:
        config.model = model
    decided = _decide_trust(trust, config.cwd, home=home)
    config.folder_trust = decided
    settings = load_settings(config.cwd, home=home, project_trusted=decided.applies)
    policy = RuleBasedPolicy(
        settings=settings, allow=allow, deny=deny, mode=permission_mode, project_dir=config.cwd, home=home
    )
    config.permission_mode = policy.mode
    hooks = Hooks()
    warnings = list(settings.warnings)
    if config.state_dir is None and (moved := default_state_dir(config.cwd)[1]):
        warnings.append(moved)
    if not decided.applies:
        warnings.append(f"folder trust: {decided.describe()}")
    warnings += _configure_sandbox(config, settings, home=home)
    for source, section in settings.hooks_by_source.items():
        path = settings.source_paths.get(source)
        warnings += hooks.extend_from_settings(section, project_dir=str(config.cwd), source=source, path=str(path) if path else None)
    builtins = (list(tools) if tools is not None else builtin_tools()) + list(extra_tools)
    _follow_session_provider(builtins, config)
    catalog = None
    if agents:
        from nb_agent.agents import AgentTool, load_agent_catalog

        catalog = load_agent_catalog(cwd=config.cwd, home=home, include_project=project_agents and decided.applies)
        warnings += catalog.issues
        builtins.append(AgentTool(catalog))
    catalog_of_skills = None
    if skills:
        catalog_of_skills = load_skill_catalog(cwd=config.cwd, home=home or home_directory(), include_project=decided.applies)
        warnings += catalog_of_skills.issues
        if catalog_of_skills.model_invocable:
            builtins.append(SkillTool(catalog_of_skills))
    manager = mcp_manager_for(config.cwd, home=home, include_project=decided.applies) if mcp is None else (mcp or None)
    if manager is not None:
        warnings += [str(issue) for issue in manager.config_issues]
    tool_pool = ToolPoolProvider(
        builtins=builtins, mcp=manager, is_denied=lambda tool: policy.blanket_deny_rule(tool) is not None
    )
    engine = QueryEngine(
        config=config,
        tools=tool_pool.assemble(),
        tool_pool=tool_pool,
        transport=transport,
        hooks=hooks,
        permission_policy=policy,
        can_use_tool=can_use_tool,
        skills=catalog_of_skills,
        **engine_kwargs,
    )
    engine.tool_session.additional_directories = list(settings.additional_directories)
    # Tools write in these without asking in some modes: never a place to import from.
    import_guard.distrust([config.cwd, *settings.additional_directories])
    if catalog is not None:
        from nb_agent.agents import attach_subagents

        attach_subagents(engine, catalog)
    return engine, warnings
