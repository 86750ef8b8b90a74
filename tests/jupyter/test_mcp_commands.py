"""``%agent mcp`` in a real kernel: add a stdio server, list it, use its tool, remove it."""

from __future__ import annotations

import sys

from nb_agent.testing import Reply, text, tool_use


def test_mcp_add_list_use_remove(kernel, requests_since):
    add = kernel.run(f"%agent mcp add demo -- {sys.executable} -m nb_agent.testing.mcp_server")
    assert add.status == "ok" and not add.errors, add.stderr
    assert "demo" in add.stdout and "connected" in add.stdout
    listed = kernel.run("%agent mcp list")
    assert "demo" in listed.stdout and "tools" in listed.stdout
    assert "mcp__demo__echo" in kernel.run("%agent tools").stdout

    kernel.run("%agent allow mcp__demo__echo")
    kernel.server.script.add(
        Reply(content=[tool_use("ToolSearch", {"query": "select:mcp__demo__echo"})]),
        Reply(content=[tool_use("mcp__demo__echo", {"text": "from the kernel"})]),
        Reply(content=[text("echoed")]),
    )
    assert kernel.run("%%agent\necho through the demo server").status == "ok"
    last = requests_since()[-1]
    assert "from the kernel" in str(last["messages"][-1]["content"])

    removed = kernel.run("%agent mcp remove demo")
    assert removed.status == "ok" and "No MCP servers" in removed.stdout
    assert "mcp__demo__echo" not in kernel.run("%agent tools").stdout


def test_mcp_bad_usage_prints_usage(kernel):
    run = kernel.run("%agent mcp frobnicate")
    assert run.status == "ok" and not run.errors
    assert "usage: %agent mcp" in run.stdout
