"""The MCP SDK (``mcp``, ``mcp_types``: about half a second of imports) loads when the first
server starts, not with the engine: a session without servers runs without it."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from nb_agent.testing import FakeAnthropicServer, Reply, text

RUN_A_TURN = textwrap.dedent(
    """
    import asyncio, sys
    from pathlib import Path
    import anthropic
    from nb_agent.agent import create_engine
    from nb_agent.model.transport import AnthropicTransport

    async def main():
        client = anthropic.AsyncAnthropic(base_url=sys.argv[1], api_key="test-key", max_retries=0)
        engine, _ = create_engine(cwd=Path(sys.argv[2]), home=Path(sys.argv[3]), transport=AnthropicTransport(client), agents=False)
        async for _event in engine.submit_message("hello"):
            pass
        print(len(engine.tool_pool.mcp.list_servers()), "mcp" in sys.modules, "mcp_types" in sys.modules)

    asyncio.run(main())
    """
)


def run_a_turn(server: FakeAnthropicServer, folder: Path, home: Path) -> list[str]:
    """Servers listed, then whether ``mcp`` and ``mcp_types`` were imported, after one turn in a fresh Python."""
    server.script.add(Reply(content=[text("Hello.")]))
    out = subprocess.run(
        [sys.executable, "-c", RUN_A_TURN, server.base_url, str(folder), str(home)],
        capture_output=True, text=True, check=True, timeout=120, cwd=folder,
    )  # fmt: skip
    return out.stdout.split()


def test_a_turn_without_servers_never_imports_the_sdk(tmp_path: Path) -> None:
    folder, home = tmp_path / "folder", tmp_path / "home"
    folder.mkdir()
    home.mkdir()
    with FakeAnthropicServer([]) as server:
        assert run_a_turn(server, folder, home) == ["0", "False", "False"]


def test_a_configured_server_loads_the_sdk_when_it_starts(tmp_path: Path) -> None:
    folder, home = tmp_path / "folder", tmp_path / "home"
    folder.mkdir()
    home.mkdir()
    # A server that cannot start still loads the SDK: its start is what imports it.
    (home / ".claude.json").write_text(json.dumps({"mcpServers": {"broken": {"command": str(tmp_path / "missing")}}}))
    with FakeAnthropicServer([]) as server:
        assert run_a_turn(server, folder, home) == ["1", "True", "True"]
