"""``%agent agents``, ``%agent tasks`` and ``%agent stop ID``: subagents from the notebook."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nb_agent.jupyter.session import KernelAgentSession


def _host(session: KernelAgentSession) -> Any:
    return session.ensure_engine().tool_session.resources.subagents


def agents(session: KernelAgentSession, _arg: str | None = None) -> None:
    host = _host(session)
    if host is None:
        print("Subagents are not available in this session.")
        return
    lines = []
    for definition in host.catalog.definitions:
        where = f"{definition.source}: {definition.path}" if definition.path else definition.source
        tools = "all tools" if definition.tools is None else ", ".join(definition.tools)
        if definition.disallowed_tools:
            tools += f" except {', '.join(definition.disallowed_tools)}"
        extras = [f"model {definition.model}"] if definition.model else []
        if definition.permission_mode:
            extras.append(f"mode {definition.permission_mode}")
        if definition.max_turns:
            extras.append(f"max {definition.max_turns} turns")
        lines.append(f"{definition.name:<18} {definition.description}")
        lines.append(f"{'':<18} ({where}; {tools}{'; ' + ', '.join(extras) if extras else ''})")
    for issue in host.catalog.issues:
        lines.append(f"skipped   {issue}")
    print("\n".join(lines))


def tasks(session: KernelAgentSession, _arg: str | None = None) -> None:
    from nb_agent.jupyter.view.status_line import duration, tokens

    host = _host(session)
    runs = list(host.runs.values()) if host is not None else []
    if not runs:
        print("No subagents have run in this session.")
        return
    lines = []
    for run in runs:
        kind = "background" if run.background else "foreground"
        usage = run.usage.context_tokens + run.usage.output_tokens
        lines.append(
            f"{run.agent_id[:8]}  {run.status:<9} {kind:<10} {run.agent_type:<16} {run.description[:40]:<40} "
            f"{run.tool_uses:>3} tools  {tokens(usage):>6} tokens  {duration(run.elapsed())}"
        )
    if any(r.background and not r.finished for r in runs):
        lines.append("Stop one with %agent stop ID (a prefix of the id is enough).")
    print("\n".join(lines))


def stop(session: KernelAgentSession, agent_id: str | None) -> None:
    assert agent_id is not None  # required: the parser saw it
    from nb_agent.errors import NbAgentError

    host = _host(session)
    if host is None:
        print("Subagents are not available in this session.")
        return
    try:
        run = host.find(agent_id)
    except NbAgentError as exc:
        print(f"Cannot stop: {exc}")
        return
    if run.finished:
        print(f"Subagent {run.agent_id[:8]} ({run.description}) already {run.status}.")
        return
    if not run.background:
        print(f"Subagent {run.agent_id[:8]} runs in the foreground: stop its cell instead.")
        return
    host.stop(agent_id)
    print(f"Stopping subagent {run.agent_id[:8]} ({run.description}); its result so far reaches the agent at the next %%agent cell.")
