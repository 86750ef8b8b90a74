"""A real MCP server for tests and benchmarks (the SDK's ``MCPServer``, formerly FastMCP).

Run it as ``python -m nb_agent.testing.mcp_server`` (stdio) or with ``--http`` (streamable
HTTP on 127.0.0.1; the chosen port is printed as ``PORT <n>`` on the first stdout line).

Standard tools, one per behaviour the client must handle:

========================  ==================================================================
``echo``                  read-only (``readOnlyHint``)
``delete_item``           destructive (``destructiveHint``)
``write_note``            no annotations (the client must fail closed)
``make_image``            returns an image (a tiny PNG)
``embedded_resource``     returns an embedded text resource
``slow``                  read-only, sleeps ``sleep_seconds``; returns start/end timestamps
``fail``                  always ends with ``isError``
``big_output``            returns ``chars`` characters (output-cap tests)
``add_tool``              registers a new tool and emits ``notifications/tools/list_changed``
``server_pid``            this process's pid (so a test can kill it)
``crash``                 exits the process mid-call
========================  ==================================================================

``--tools N`` adds N generated tools: from ``--catalog PATH`` (the real tool definitions in
``shared/data/mcp_catalog.json``; ``--catalog-server NAME`` keeps one server's tools under
their own names) or synthetic ones. ``--bare`` leaves the standard tools out.
"""

from __future__ import annotations

import argparse
import json
import os
import select
import socket
import struct
import subprocess
import sys
import time
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools.base import Tool as ServerTool
from mcp_types import CallToolResult, EmbeddedResource, ImageContent, TextContent, TextResourceContents, ToolAnnotations

MODULE = "nb_agent.testing.mcp_server"
DEFAULT_NAME = "nbtest"
DEFAULT_INSTRUCTIONS = "Test server for nb_agent. Use echo to check the connection."

READ_ONLY = ToolAnnotations(read_only_hint=True)
DESTRUCTIVE = ToolAnnotations(read_only_hint=False, destructive_hint=True)


def tiny_png(color: tuple[int, int, int] = (255, 0, 0), size: int = 4) -> bytes:
    """A solid-colour ``size``×``size`` PNG, built by hand (no imaging library needed)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    row = b"\x00" + bytes(color) * size
    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(row * size))
        + chunk(b"IEND", b"")
    )


_COLORS = {"red": (255, 0, 0), "green": (0, 255, 0), "blue": (0, 0, 255)}


async def _notify_tools_changed(ctx: Context) -> None:
    # Handshake-era clients get the notification on the session; 2026-era clients
    # only through a subscriptions/listen stream (the bus).
    await ctx.session.send_tool_list_changed()
    await ctx.notify_tools_changed()


def _add_standard_tools(server: MCPServer) -> None:
    @server.tool(annotations=READ_ONLY)
    def echo(text: str) -> str:
        """Echo the text back."""
        return f"echo: {text}"

    @server.tool(annotations=DESTRUCTIVE)
    def delete_item(item_id: str) -> str:
        """Delete an item permanently."""
        return f"deleted {item_id}"

    @server.tool()
    def write_note(key: str, value: str) -> str:
        """Store a note under a key."""
        return f"stored {key}"

    @server.tool(annotations=READ_ONLY)
    def make_image(color: str = "red", size: int = 4) -> CallToolResult:
        """Render a solid-colour square PNG."""
        import base64

        data = base64.b64encode(tiny_png(_COLORS.get(color, (0, 0, 0)), size)).decode()
        return CallToolResult(
            content=[TextContent(text=f"a {color} square"), ImageContent(data=data, mime_type="image/png")]
        )

    @server.tool(annotations=READ_ONLY)
    def embedded_resource(text: str) -> CallToolResult:
        """Return the text as an embedded resource."""
        resource = TextResourceContents(uri="memo://note", mime_type="text/plain", text=text)
        return CallToolResult(content=[EmbeddedResource(resource=resource)])

    @server.tool(annotations=READ_ONLY)
    async def slow(sleep_seconds: float = 1.0) -> str:
        """Sleep, then report when the call started and ended (wall-clock seconds)."""
        start = time.time()
        await anyio.sleep(sleep_seconds)
        return json.dumps({"start": start, "end": time.time(), "pid": os.getpid()})

    @server.tool(annotations=READ_ONLY)
    def fail(message: str = "something went wrong") -> str:
        """Always fail with the given message."""
        raise ToolError(message)

    @server.tool(annotations=READ_ONLY)
    def big_output(chars: int) -> str:
        """Return a text of the given length."""
        line = "0123456789abcdefghijklmnopqrstuvwxyz" * 3 + "\n"
        return (line * (chars // len(line) + 1))[:chars]

    @server.tool()
    async def add_tool(name: str, ctx: Context) -> str:
        """Register a new echo-like tool under ``name`` and announce the changed tool list."""

        def added(text: str = "") -> str:
            return f"{name}: {text}"

        server.add_tool(added, name=name, description=f"Dynamically added tool {name}.", annotations=READ_ONLY)
        await _notify_tools_changed(ctx)
        return f"added {name}"

    @server.tool(annotations=READ_ONLY)
    def server_pid() -> str:
        """This server's process id."""
        return str(os.getpid())

    @server.tool()
    def crash() -> str:
        """Exit the server process abruptly (simulates a crash mid-call)."""
        os._exit(3)


class _GeneratedTool(ServerTool):
    """A tool with a hand-written JSON Schema; a call echoes its name and arguments."""

    async def run(self, arguments: dict[str, Any], context: Any, convert_result: bool = False) -> Any:
        text = f"{self.name} called with {json.dumps(arguments, sort_keys=True)}"
        return CallToolResult(content=[TextContent(text=text)])


def _placeholder() -> str:
    return ""


def _generated_tool(name: str, description: str, schema: dict[str, Any], annotations: dict[str, Any] | None) -> ServerTool:
    base = ServerTool.from_function(_placeholder, name=name, description=description, structured_output=False)
    fields = {key: getattr(base, key) for key in ServerTool.model_fields}
    fields["parameters"] = schema
    fields["annotations"] = ToolAnnotations.model_validate(annotations) if annotations else None
    return _GeneratedTool(**fields)


def catalog_tools(path: Path, *, server: str | None = None, limit: int | None = None) -> list[ServerTool]:
    """Tools from the catalog JSON; names are ``<server>_<tool>`` unless one server is chosen."""
    catalog = json.loads(path.read_text())
    out: list[ServerTool] = []
    for server_name, tools in catalog["servers"].items():
        if server is not None and server_name != server:
            continue
        for spec in tools:
            name = spec["name"] if server is not None else f"{server_name}_{spec['name']}"
            schema = spec.get("inputSchema") or {"type": "object", "properties": {}}
            out.append(_generated_tool(name, spec.get("description") or "", schema, spec.get("annotations")))
    return out[:limit] if limit is not None else out


_VERBS = ["list", "get", "create", "update", "delete", "search", "export", "sync"]
_NOUNS = ["widget", "invoice", "ticket", "report", "dataset", "user", "bucket", "alert", "pipeline", "model"]


def synthetic_tools(count: int) -> list[ServerTool]:
    """``count`` generated tools with varied names and descriptions."""
    out = []
    for i in range(count):
        verb, noun = _VERBS[i % len(_VERBS)], _NOUNS[(i // len(_VERBS)) % len(_NOUNS)]
        name = f"{verb}_{noun}_{i:03d}"
        description = f"{verb.capitalize()} {noun}s in region {i % 7} (synthetic tool {i})."
        schema = {
            "type": "object",
            "properties": {"id": {"type": "string", "description": f"The {noun} id."}, "limit": {"type": "integer"}},
            "required": ["id"],
        }
        annotations = {"readOnlyHint": True} if verb in ("list", "get", "search", "export") else None
        out.append(_generated_tool(name, description, schema, annotations))
    return out


def build_server(
    *,
    name: str = DEFAULT_NAME,
    tools: int | None = None,
    catalog: Path | None = None,
    catalog_server: str | None = None,
    bare: bool = False,
    instructions: str | None = DEFAULT_INSTRUCTIONS,
) -> MCPServer:
    """The test server: standard tools (unless ``bare``) plus generated ones."""
    if catalog is not None:
        generated = catalog_tools(catalog, server=catalog_server, limit=tools)
    else:
        generated = synthetic_tools(tools or 0)
    server = MCPServer(name=name, instructions=instructions, tools=generated, log_level="WARNING")
    if not bare:
        _add_standard_tools(server)
    return server


async def _serve_http(server: MCPServer) -> None:
    import uvicorn

    # Bind and listen before the port is announced (no free-port race for the parent, and
    # a client that connects before uvicorn starts accepting waits in the backlog instead
    # of being refused: on a loaded machine uvicorn's start-up takes seconds).
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    app = server.streamable_http_app(host="127.0.0.1")
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    await uvicorn.Server(config).serve(sockets=[sock])


def _launch_args() -> list[str]:
    # Run the file itself rather than ``-m``: importing the nb_agent.testing package
    # would pull in the Anthropic SDK and add most of a second to every start.
    return [str(Path(__file__).resolve())]


def stdio_config(*args: str) -> dict[str, Any]:
    """A ``.mcp.json`` server entry that runs this server (with ``args``) over stdio."""
    return {"command": sys.executable, "args": [*_launch_args(), *args]}


@contextmanager
def http_server(*args: str, startup_timeout: float = 30.0) -> Iterator[str]:
    """Run this server over streamable HTTP in a subprocess; yields its URL."""
    proc = subprocess.Popen(
        [sys.executable, *_launch_args(), "--http", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stdout is not None
    try:
        ready, _, _ = select.select([proc.stdout], [], [], startup_timeout)
        line = proc.stdout.readline() if ready else ""
        if not line.startswith("PORT "):
            raise RuntimeError(f"the HTTP test server did not start: {line!r}")
        yield f"http://127.0.0.1:{int(line.split()[1])}/mcp"
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        proc.stdout.close()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m nb_agent.testing.mcp_server", description=(__doc__ or "").strip().split("\n")[0])
    parser.add_argument("--name", default=DEFAULT_NAME)
    parser.add_argument("--tools", type=int, default=None, help="number of generated tools")
    parser.add_argument("--catalog", type=Path, default=None, help="mcp_catalog.json to generate tools from")
    parser.add_argument("--catalog-server", default=None, help="serve only this catalog server's tools")
    parser.add_argument("--bare", action="store_true", help="leave the standard tools out")
    parser.add_argument("--instructions", default=DEFAULT_INSTRUCTIONS)
    parser.add_argument("--http", action="store_true", help="serve streamable HTTP on 127.0.0.1")
    args = parser.parse_args(argv)
    server = build_server(
        name=args.name,
        tools=args.tools,
        catalog=args.catalog,
        catalog_server=args.catalog_server,
        bare=args.bare,
        instructions=args.instructions or None,
    )
    if args.http:
        anyio.run(_serve_http, server)
    else:
        server.run("stdio")


if __name__ == "__main__":  # pragma: no cover - exercised through subprocesses
    sys.exit(main())
