"""The ``%agent`` subcommands: each prints a short report; errors print, never raise.

``status`` works without building the engine (it only reads settings), so a fresh
kernel can ask what nb_agent would do before paying for the heavy imports.
"""

from __future__ import annotations

import inspect
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

from nb_agent.jupyter.options import LineCommand, line_usage

if TYPE_CHECKING:
    from nb_agent.jupyter.session import KernelAgentSession


def _tokens(n: int) -> str:
    from nb_agent.jupyter.view.status_line import tokens

    return tokens(n)


def status(session: KernelAgentSession) -> None:
    settings = session.settings
    engine = session.engine
    mode = getattr(engine.permission_policy, "mode", settings.permission_mode) if engine is not None else settings.permission_mode
    notebook = session.notebook_path()
    lines = [f"nb_agent · permission mode {mode}", *_model_lines(session)]
    lines.append(f"notebook   {notebook or '(unknown: set it with %agent notebook PATH)'}")
    lines.extend(session.live.status_lines())
    lines.append(f"sessions   {session.sessions_dir()}")
    lines += _trust_lines(session)
    if engine is None:
        lines.append("session    (none yet: the first %%agent cell starts one; %agent resume continues a saved one)")
    else:
        turns = engine.turn_count
        lines.append(f"session    {engine.session_id} · {len(engine.messages)} messages · {turns} turns")
        lines.append(f"transcript {engine.transcript_path}")
        total = engine.usage.total
        used = engine.usage.last_request.context_tokens
        window = settings.context_window
        lines.append(
            f"usage      {_tokens(total.context_tokens)} in / {_tokens(total.output_tokens)} out · "
            f"context {100 * used / window:.0f}% of {_tokens(window)} · ${engine.usage.cost_usd:.4f}"
        )
        by_source = getattr(engine.permission_policy, "rules_by_source", None)
        if by_source is not None:
            for source, rules in by_source().items():
                lines.append(f"rules      {source}: " + ", ".join(f"{r.behavior} {r.text}" for r in rules))
        lines.append(f"tools      {', '.join(t.name for t in engine.tools)}")
        count = len(engine.hooks.describe())
        lines.append(f"hooks      {count} in force (%agent hooks lists them)")
    if (runtime := session.sandbox_runtime(create=True)) is not None:
        lines.append(f"sandbox    {runtime.status_line()}")
    policy_warnings = list(getattr(engine.permission_policy, "warnings", [])) if engine is not None else []
    for warning in dict.fromkeys([*policy_warnings, *session.warnings]):
        lines.append(f"warning    {warning}")
    print("\n".join(lines))


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


def trust(session: KernelAgentSession, path: str | None, *, trusted: bool) -> None:
    """``%agent trust [PATH]`` / ``%agent untrust [PATH]``: record the answer (in the
    user's own config) and make the engine follow it."""
    import os
    from pathlib import Path

    from nb_agent.trust import broad_folders, trust_file

    folder = Path(os.path.abspath(os.path.expanduser(path))) if path else session.project_folder()
    if not folder.is_dir():
        print(f"No folder {folder}.")
        return
    if session.running:
        print("An agent run is active in this kernel; answer when it has ended.")
        return
    now = session.set_folder_trust(trusted, folder)
    verb = "Trusted" if trusted else "Not trusting"
    covered = "" if trusted and str(Path(os.path.realpath(folder))) in broad_folders() else " and the folders under it"
    print(f"{verb} {folder}{covered} (remembered in your own configuration, {_store_name(trust_file())}).")
    if now.folder != folder and not str(now.folder).startswith(str(folder) + os.sep):
        return
    if now.state == "not_needed":
        print("Nothing in it changes what the agent does at the moment.")
    elif trusted:
        print(f"The agent now uses its {'; '.join(now.reasons)}.")
    else:
        print(f"The agent does not use its {'; '.join(now.reasons)} (its deny and ask rules still apply), and runs no git.")


def _store_name(path: Any) -> str:
    """The store's path as the user would write it (notebooks are shared: no home path)."""
    import os

    from nb_agent.permissions.paths import home_directory
    from nb_agent.trust import TRUST_FILE_ENV

    if os.environ.get(TRUST_FILE_ENV):
        return f"${TRUST_FILE_ENV}"
    home = home_directory()
    return f"~/{path.relative_to(home)}" if path.is_relative_to(home) else str(path)


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


def sandbox(session: KernelAgentSession) -> None:
    runtime = session.sandbox_runtime(create=True)
    engine = session.engine
    dirs = list(engine.tool_session.additional_directories) if engine is not None else []
    print("\n".join(["nb_agent · Bash sandbox", *runtime.describe(additional_directories=dirs)]))


def _print_notices(events: list[Any]) -> None:
    """Hook notices (warnings, systemMessages, context added) as lines of the cell's output."""
    for event in events:
        if getattr(event, "type", None) == "system":
            mark = "warning: " if event.level in ("warning", "error") else ""
            print(f"{mark}{event.content}")


async def new(session: KernelAgentSession) -> None:
    engine = session.ensure_engine()
    _print_notices(await engine.start_new_conversation())
    print(f"Started a new conversation (session {engine.session_id}).")


async def compact(session: KernelAgentSession, instructions: str | None) -> None:
    engine = session.ensure_engine()
    entry = getattr(engine, "compact", None)
    if entry is None:
        print("Compaction is not available in this version of nb_agent yet.")
        return
    if not engine.messages:
        print("Nothing to compact: the conversation is empty.")
        return
    from nb_agent.errors import NbAgentError

    before = len(engine.messages)
    try:
        outcome = entry(instructions) if instructions else entry()
        if inspect.isawaitable(outcome):
            outcome = await outcome
    except NbAgentError as exc:
        print(f"Compaction failed; the conversation is unchanged: {exc}")
        return
    _print_notices(list(getattr(outcome, "extra_messages", [])))
    boundary = getattr(outcome, "boundary", None)
    tokens = getattr(boundary, "pre_tokens", 0)
    detail = f" (about {_tokens(tokens)} tokens before)" if tokens else ""
    print(f"Compacted the conversation of {before} messages into a summary{detail}. The next %%agent cell continues from it.")


def cost(session: KernelAgentSession) -> None:
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


def _preview(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def history(session: KernelAgentSession) -> None:
    engine = session.engine
    if engine is None or not engine.messages:
        print("The conversation is empty.")
        return
    lines = [f"session {engine.session_id}"]
    for message in engine.messages:
        kind = message.type
        if kind == "user" and not message.is_meta:
            if isinstance(message.content, str):
                lines.append(f"you:   {_preview(message.content)}")
            else:
                for block in message.content:
                    if block.get("type") == "tool_result":
                        mark = "error" if block.get("is_error") else "ok"
                        lines.append(f"       ⎿ {mark}")
                    elif block.get("type") == "text":
                        lines.append(f"you:   {_preview(block.get('text', ''))}")
        elif kind == "assistant" and not message.is_api_error_message:
            for block in message.content:
                if block.get("type") == "text" and block.get("text", "").strip():
                    lines.append(f"agent: {_preview(block['text'])}")
                elif block.get("type") == "tool_use":
                    arguments = block.get("input") or {}
                    key = next((str(arguments[k]) for k in ("command", "file_path", "notebook_path", "pattern", "code", "name", "description") if k in arguments), "")
                    lines.append(f"       ⏺ {block['name']}({_preview(key, 80)})")
        elif kind == "compact_boundary":
            lines.append("── compacted: from here on the model sees this summary instead of the messages above ──")
            lines.append(f"summary: {_preview(message.summary, 300)}")
    print("\n".join(lines))


def sessions(session: KernelAgentSession) -> None:
    from nb_agent.jupyter.saved_sessions import format_time

    found = session.list_sessions()
    if not found:
        print(f"No saved sessions in {session.sessions_dir()}.")
        return
    current = session.engine.session_id if session.engine is not None else None
    lines = [f"saved sessions in {session.sessions_dir()} (newest first):"]
    for info in found:
        mark = "*" if info.session_id == current else " "
        lines.append(f"{mark} {info.session_id}  {format_time(info.modified)}  {info.messages:>4} messages  {_preview(info.first_prompt, 60)}")
    lines.append("Continue one with %agent resume ID (a prefix of the id is enough).")
    print("\n".join(lines))


async def resume(session: KernelAgentSession, session_id: str | None) -> None:
    from nb_agent.errors import NbAgentError

    previous = session.engine
    try:
        info, warnings = session.resume(session_id)
    except NbAgentError as exc:
        print(f"Cannot resume: {exc}")
        return
    for warning in warnings:
        print(f"warning: {warning}")
    engine = session.engine
    assert engine is not None
    if previous is not None and previous is not engine:
        _print_notices(await previous.end_session("other"))
    _print_notices(await engine.session_hooks.start_if_pending())  # SessionStart, source "resume"
    print(f"Resumed session {info.session_id} ({len(engine.messages)} messages). The next %%agent cell continues it.")


def add_rule(session: KernelAgentSession, behavior: str, rule: str) -> None:
    from nb_agent.errors import ConfigurationError

    engine = session.ensure_engine()
    try:
        engine.permission_policy.add_session_rule(behavior, rule)  # type: ignore[arg-type]
    except (ConfigurationError, NotImplementedError) as exc:
        print(f"Invalid rule {rule!r}: {exc}")
        return
    print(f"Added the session {behavior} rule {rule}.")


def mode(session: KernelAgentSession, value: str) -> None:
    session.settings.permission_mode = value  # the engine follows (AgentMagics observes it)
    session.setting_changed("permission_mode", value)  # also when the value did not change
    print(f"Permission mode: {value}.")


def model(session: KernelAgentSession, value: str) -> None:
    session.settings.model = value
    session.setting_changed("model", value)
    print(f"Model: {value}.")


def provider(session: KernelAgentSession, value: str | None) -> None:
    """Show the provider, or set it (``anthropic``, ``bedrock``, ``vertex``, ``foundry``)."""
    from nb_agent.engine import EngineConfig
    from nb_agent.errors import ConfigurationError
    from nb_agent.model.providers import parse_provider

    if value is not None:
        try:
            chosen = parse_provider(value)
        except ConfigurationError as exc:
            print(exc)
            return
        session.settings.provider = chosen.value  # observed: the engine follows
    config = session.engine.config if session.engine is not None else EngineConfig(provider=None)
    if session.engine is None and session.settings.provider:
        config.provider = parse_provider(session.settings.provider)
    current = config.resolved_provider
    source = "set in this kernel" if session.settings.provider else "from the environment"
    print(f"Provider: {current.label} ({current.value}, {source}); the model is sent as {config.resolve(config.model)}.")


def tools(session: KernelAgentSession) -> None:
    engine = session.ensure_engine()
    lines = []
    # assembled now, as the next cell will: a setting changed since (``%agent provider``)
    # may have taken a tool away
    offered = engine.tool_pool.assemble() if engine.tool_pool is not None else engine.tools
    for tool in offered:
        first = (tool.prompt().strip().splitlines() or [""])[0]
        lines.append(f"{tool.name:<18} {_preview(first, 100)}")
    builtins = engine.tool_pool.builtins if engine.tool_pool is not None else []
    for tool in builtins:
        reason = tool.unavailable_reason()
        if reason:
            lines.append(f"{tool.name:<18} not offered: {reason}")
    print("\n".join(lines))


def hooks(session: KernelAgentSession) -> None:
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
        lines.append(f"{info.event:<19} {matcher:<14} {_preview(info.description, 70):<70} {where} · timeout {info.timeout:g}s")
    ignored = [w for w in session.warnings if "hook" in w]
    lines += [f"ignored: {w}" for w in ignored]
    print("\n".join(lines))


def todos(session: KernelAgentSession) -> None:
    from nb_agent.tools.interaction.todos import current_todos, todos_text

    engine = session.engine
    print(todos_text(current_todos(engine.tool_session)) if engine is not None else "The todo list is empty.")


def notebook(session: KernelAgentSession, path: str | None) -> None:
    if path:
        resolved = session.set_notebook_path(path)
        note = "" if resolved.exists() else " (it does not exist yet)"
        print(f"Notebook: {resolved}{note}.")
    else:
        current = session.notebook_path()
        print(f"Notebook: {current}." if current else "Notebook unknown: set it with %agent notebook PATH.")


MCP_USAGE = "usage: %agent mcp [list | add NAME -- COMMAND ARGS... | add NAME --url URL | remove NAME]"


def _mcp_add_config(words: list[str]) -> dict[str, Any] | None:
    if "--url" in words:
        at = words.index("--url")
        return {"type": "http", "url": words[at + 1]} if at + 1 < len(words) else None
    if "--" in words:
        at = words.index("--")
        rest = words[at + 1 :]
        return {"command": rest[0], "args": rest[1:]} if rest else None
    return None


def _mcp_rows(manager: Any) -> str:
    rows = manager.list_servers()
    untrusted = (
        [f"not started (folder not trusted; %agent trust): {', '.join(manager.untrusted_servers)} from .mcp.json"]
        if manager.untrusted_servers else []
    )  # fmt: skip
    if not rows:
        return "\n".join(["No MCP servers (add one: %agent mcp add NAME -- COMMAND ARGS..., or list them in .mcp.json).", *untrusted])
    lines = list(untrusted)
    for row in rows:
        error = f" · {_preview(row.error, 160)}" if row.error else ""
        lines.append(f"{row.name:<16} {row.status:<12} {row.tool_count:>4} tools · {row.transport or '?'} · {row.scope or '?'}{error}")
    return "\n".join(lines)


async def mcp(session: KernelAgentSession, arg: str | None) -> None:
    """``%agent mcp``: list, add or remove MCP servers (they connect here, not at load)."""
    import shlex

    from nb_agent.errors import NbAgentError

    engine = session.ensure_engine()
    pool = getattr(engine, "tool_pool", None)
    manager = getattr(pool, "mcp", None)
    if manager is None:
        print("MCP is not available in this session (the mcp package is not installed).")
        return
    try:
        words = shlex.split(arg or "list")
    except ValueError as exc:
        print(f"error: {exc}\n{MCP_USAGE}")
        return
    action = words[0]
    try:
        if action == "list" and len(words) == 1:
            await manager.ensure_started()
        elif action == "add" and len(words) >= 3 and (config := _mcp_add_config(words[2:])) is not None:
            manager.add_server(words[1], config)
            await manager.ensure_started()
        elif action == "remove" and len(words) == 2:
            if not await manager.remove_server(words[1]):
                print(f"No MCP server named {words[1]!r}.")
                return
        else:
            print(MCP_USAGE)
            return
    except NbAgentError as exc:
        print(f"error: {exc}")
        return
    engine.tools = pool.assemble()
    print(_mcp_rows(manager))


def use_cassette(session: KernelAgentSession, path: str) -> str:
    """Record this kernel's model traffic to ``path`` or replay it from there (mode from
    ``$NB_AGENT_CASSETTE_MODE``, default auto). A relative path is taken from the
    notebook's directory (the kernel's working directory when the notebook is unknown),
    so a notebook names its cassette the same way in every clone. Every engine of the
    kernel (``%agent new``, ``%agent resume``) continues the same cassette; choosing it
    again starts it from the beginning."""
    import os
    from pathlib import Path

    from nb_agent.errors import ConfigurationError
    from nb_agent.model import cassette as cassettes
    from nb_agent.model.client import has_credentials

    if session.engine is not None:
        raise ConfigurationError("choose the cassette before the first %%agent cell of the kernel (restart the kernel)")
    resolved = Path(os.path.expanduser(path))
    if not resolved.is_absolute():
        notebook = session.notebook_path()
        resolved = (notebook.parent if notebook is not None else Path.cwd()) / resolved
    mode = cassettes.resolve_mode(resolved, has_api_key=has_credentials())
    if mode == "replay" and not resolved.exists():
        raise ConfigurationError(f"no cassette to replay at {resolved}")
    if mode == "record" and not has_credentials():
        raise ConfigurationError(f"no cassette at {resolved} to replay, and recording one needs ANTHROPIC_API_KEY")
    cassettes.close_cassette(resolved)
    os.environ[cassettes.CASSETTE_ENV] = str(resolved)
    session.cassette = (path, resolved)
    if mode == "replay":
        count = len(cassettes.read_interactions(resolved))
        return f"Replaying the model's side of this notebook from {path} ({count} recorded requests; no API key needed)."
    return f"Recording the model's traffic to {path}: requests go to the live API."


def cassette_report(session: KernelAgentSession) -> str:
    import os
    from pathlib import Path

    from nb_agent.model import cassette as cassettes

    from_env = os.environ.get(cassettes.CASSETTE_ENV, "")
    if session.cassette is None and not from_env:
        return "No cassette: the agent talks to the model directly (choose one with %agent cassette PATH)."
    # After %reload_ext the session forgot how the path was written: name the file only.
    resolved = session.cassette[1] if session.cassette else Path(from_env).expanduser().absolute()
    shown = session.cassette[0] if session.cassette else resolved.name
    transport = cassettes.open_cassettes().get(resolved)
    if transport is None:
        return f"Cassette {shown}: not used yet."
    if transport.mode == "replay":
        return f"Cassette {shown}: replayed {transport.played} of {len(transport.interactions)} recorded requests."
    return f"Cassette {shown}: recorded {transport.played} requests."


def cassette(session: KernelAgentSession, path: str | None) -> None:
    """``%agent cassette [PATH]``: choose the cassette, or say how far it has played."""
    from nb_agent.errors import NbAgentError

    if path is None:
        print(cassette_report(session))
        return
    try:
        print(use_cassette(session, path))
    except NbAgentError as exc:
        print(f"Cannot use the cassette: {exc}")


def dispatch(session: KernelAgentSession, command: LineCommand) -> Coroutine[Any, Any, None] | None:
    """Run one parsed subcommand; ``compact``, ``mcp``, ``new`` and ``resume`` return a
    coroutine for the caller to await."""
    name, arg = command.name, command.arg
    if name == "help":
        print(line_usage())
    elif name == "status":
        status(session)
    elif name == "new":
        return new(session)
    elif name == "compact":
        return compact(session, arg)
    elif name == "cost":
        cost(session)
    elif name == "history":
        history(session)
    elif name == "sessions":
        sessions(session)
    elif name == "resume":
        return resume(session, arg)
    elif name == "hooks":
        hooks(session)
    elif name in ("allow", "deny"):
        assert arg is not None
        add_rule(session, name, arg)
    elif name == "mode":
        assert arg is not None
        mode(session, arg)
    elif name == "model":
        assert arg is not None
        model(session, arg)
    elif name == "provider":
        provider(session, arg)
    elif name in ("trust", "untrust"):
        trust(session, arg, trusted=name == "trust")
    elif name == "tools":
        tools(session)
    elif name == "sandbox":
        sandbox(session)
    elif name in ("agents", "tasks", "stop"):
        from nb_agent.jupyter import agent_commands

        if name == "stop":
            assert arg is not None
            agent_commands.stop(session, arg)
        else:
            getattr(agent_commands, name)(session)
    elif name == "todos":
        todos(session)
    elif name == "notebook":
        notebook(session, arg)
    elif name == "cassette":
        cassette(session, arg)
    elif name == "mcp":
        return mcp(session, arg)
    else:  # pragma: no cover - parse_line_command only returns known names
        print(line_usage())
    return None
