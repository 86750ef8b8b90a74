"""``%agent mcp``: list, add or remove MCP servers."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from nb_agent.jupyter.commands.output import preview

if TYPE_CHECKING:
    from nb_agent.jupyter.session import KernelAgentSession

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
        error = f" · {preview(row.error, 160)}" if row.error else ""
        lines.append(f"{row.name:<16} {row.status:<12} {row.tool_count:>4} tools · {row.transport or '?'} · {row.scope or '?'}{error}")
    return "\n".join(lines)


async def mcp(session: KernelAgentSession, arg: str | None) -> None:
    """``%agent mcp``: list, add or remove MCP servers (they connect here, not at load)."""
    import shlex

    from nb_agent.errors import NbAgentError

    engine = session.ensure_engine()
    pool = engine.tool_pool
    manager = getattr(pool, "mcp", None)
    if pool is None or manager is None:
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
