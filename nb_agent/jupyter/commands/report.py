"""``%agent status``, ``cost``, ``tools``, ``hooks``, ``todos`` and ``sandbox``: reports
that change nothing. ``status`` works without building the engine (it only reads
settings), so a fresh kernel can ask what nb_agent would do before paying for the heavy
imports."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from nb_agent.jupyter.commands.output import preview, tokens
from nb_agent.wording import plural

if TYPE_CHECKING:
    from nb_agent.jupyter.session import KernelAgentSession


def status(session: KernelAgentSession, _arg: str | None = None) -> None:
    settings = session.settings
    engine = session.engine
    mode = getattr(engine.permission_policy, "mode", settings.permission_mode) if engine is not None else settings.permission_mode
    notebook = session.notebook_path()
    lines = [f"nb_agent · permission mode {mode}", *_model_lines(session)]
    lines.append(f"notebook   {notebook or '(unknown: set it with %agent notebook PATH)'}")
    lines.extend(session.live.status_lines())
    lines.append(f"files      {session.live.files_line()}")
    lines.append(f"sessions   {session.sessions_dir()} (on the kernel's machine)")
    lines += _trust_lines(session)
    if engine is None:
        lines.append("session    (none yet: the first %%agent cell starts one; %agent resume continues a saved one)")
    else:
        turns = engine.turn_count
        # the count %agent sessions lists: the transcript's user and assistant messages (the
        # conversation in memory holds other kinds, and after a compaction only its summary)
        counted = engine.transcript.messages_written
        lines.append(f"session    {engine.session_id} · {plural(counted, 'message')} · {plural(turns, 'turn')}")
        lines.append(f"transcript {engine.transcript_path}")
        total = engine.usage.total
        used = engine.usage.last_request.context_tokens
        window = settings.context_window
        lines.append(
            f"usage      {tokens(total.context_tokens)} in / {tokens(total.output_tokens)} out · "
            f"context {100 * used / window:.0f}% of {tokens(window)} · ${engine.usage.cost_usd:.4f}"
        )
        by_source = getattr(engine.permission_policy, "rules_by_source", None)
        if by_source is not None:
            for source, rules in by_source().items():
                lines.append(f"rules      {source}: " + ", ".join(f"{r.behavior} {r.text}" for r in rules))
        lines.append(f"tools      {', '.join(t.name for t in engine.tools)}")
        lines += _mcp_lines(engine)
        count = len(engine.hooks.describe())
        lines.append(f"hooks      {count} in force (%agent hooks lists them)")
    if (runtime := session.sandbox_runtime(create=True)) is not None:
        lines.append(f"sandbox    {runtime.status_line()}")
    policy_warnings = list(getattr(engine.permission_policy, "warnings", [])) if engine is not None else []
    for warning in dict.fromkeys([*policy_warnings, *session.warnings]):
        lines.append(f"warning    {warning}")
    print("\n".join(lines))


def _mcp_lines(engine: Any) -> list[str]:
    """MCP servers that are not connected: failed (with why, in one line) or still starting."""
    manager = getattr(getattr(engine, "tool_pool", None), "mcp", None)
    if manager is None:
        return []
    lines = []
    for server in manager.list_servers():
        if server.status == "failed":
            reason = (server.error or "no reason given").strip().splitlines()[0]
            lines.append(f"mcp        {server.name}: failed to start: {reason} (%agent mcp reconnect {server.name})")
        elif server.status in ("pending", "connecting"):
            lines.append(f"mcp        {server.name}: still starting")
    return lines


def _trust_lines(session: KernelAgentSession) -> list[str]:
    """The folder's trust and, when it is not trusted, what of it is not used."""
    trust = session.folder_trust()
    lines = [f"trust      {trust.describe()}"]
    if trust.applies:
        return lines
    engine = session.engine
    settings = getattr(engine.permission_policy, "settings", None) if engine is not None else None
    lines += [f"untrusted  not used: {skipped}" for skipped in getattr(settings, "untrusted_skipped", [])]
    manager = getattr(getattr(engine, "tool_pool", None), "mcp", None)
    if manager is not None and manager.untrusted_servers:
        lines.append(f"untrusted  .mcp.json servers not started: {', '.join(manager.untrusted_servers)}")
    return lines


def _model_lines(session: KernelAgentSession) -> list[str]:
    """The model as configured and as sent, its limits, and the provider."""
    from nb_agent.engine import EngineConfig, default_model
    from nb_agent.model.models import describe_limits

    config = session.engine.config if session.engine is not None else EngineConfig(model=session.settings.model or default_model())
    sent = config.resolve(config.model)
    shown = config.model if sent == config.model else f"{config.model} → {sent}"
    lines = [f"model      {shown} · {describe_limits(sent)}"]
    if config.fallback_model:
        lines.append(f"fallback   {config.resolve(config.fallback_model)}")
    lines.append(f"provider   {config.resolved_provider.label}")
    return lines


def sandbox(session: KernelAgentSession, _arg: str | None = None) -> None:
    runtime = session.sandbox_runtime(create=True)
    engine = session.engine
    dirs = list(engine.tool_session.additional_directories) if engine is not None else []
    print("\n".join(["nb_agent · Bash sandbox", *runtime.describe(additional_directories=dirs)]))


def cost(session: KernelAgentSession, _arg: str | None = None) -> None:
    engine = session.engine
    if engine is None or not engine.usage.by_model:
        print("No model calls yet in this kernel: $0.0000.")
        return
    lines = []
    for model, usage in engine.usage.by_model.items():
        lines.append(
            f"{model}: {usage.input_tokens:,} input, {usage.output_tokens:,} output, "
            f"{usage.cache_read_input_tokens:,} cache read, {usage.cache_creation_input_tokens:,} cache write tokens"
            f" · ${usage.cost_usd(model):.4f}"
        )
    lines.append(f"total: ${engine.usage.cost_usd:.4f}")
    print("\n".join(lines))


def tools(session: KernelAgentSession, _arg: str | None = None) -> None:
    engine = session.ensure_engine()
    lines = []
    # assembled now, as the next cell will: a setting changed since (``%agent provider``)
    # may have taken a tool away
    offered = engine.tool_pool.assemble() if engine.tool_pool is not None else engine.tools
    for tool in offered:
        first = (tool.prompt().strip().splitlines() or [""])[0]
        lines.append(f"{tool.name:<18} {preview(first, 100)}")
    builtins = engine.tool_pool.builtins if engine.tool_pool is not None else []
    for tool in builtins:
        reason = tool.unavailable_reason()
        if reason:
            lines.append(f"{tool.name:<18} not offered: {reason}")
    print("\n".join(lines))


def hooks(session: KernelAgentSession, _arg: str | None = None) -> None:
    """``%agent hooks``: every hook in force, by event, with where it was configured, and
    the folder's hooks not used because it is not trusted."""
    engine = session.ensure_engine()
    infos = engine.hooks.describe()
    trust = session.folder_trust()
    lines = [f"hooks in force for {engine.config.cwd} · folder trust: {trust.state.replace('_', ' ')}"]
    settings = getattr(engine.permission_policy, "settings", None)
    if not trust.applies:
        skipped = [s for s in getattr(settings, "untrusted_skipped", []) if "hooks" in s.split(": ", 1)[-1].split(", ")]
        lines += [f"not used (folder not trusted; %agent trust): hooks of {s.split(': ', 1)[0]}" for s in skipped]
    if not infos:
        lines.append("(none: add them to .claude/settings.json, .claude/settings.local.json or ~/.claude/settings.json)")
    for info in infos:
        where = info.source if info.path is None else f"{info.source} ({info.path})"
        matcher = info.matcher if info.matcher not in (None, "") else "*"
        lines.append(f"{info.event:<19} {matcher:<14} {preview(info.description, 70):<70} {where} · timeout {info.timeout:g}s")
    ignored = [w for w in session.warnings if "hook" in w]
    lines += [f"ignored: {w}" for w in ignored]
    print("\n".join(lines))


def todos(session: KernelAgentSession, _arg: str | None = None) -> None:
    from nb_agent.tools.interaction.todos import current_todos, todos_text

    engine = session.engine
    print(todos_text(current_todos(engine.tool_session)) if engine is not None else "The todo list is empty.")
