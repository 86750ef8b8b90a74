"""Tool pool assembly: built-ins first, MCP after, each sorted; built-ins win; blanket deny."""

from __future__ import annotations

from typing import Any

import mcp_types as mt
import pytest

from nb_agent.mcp import McpTool
from nb_agent.testing.tools import RecordingTool
from nb_agent.tools.pool import assemble_tool_pool, blanket_denied, blanket_deny_matcher


class NoCaller:
    async def call_mcp_tool(self, server: str, tool: str, arguments: dict[str, Any]) -> mt.CallToolResult:
        raise AssertionError("not called")


def mcp(server: str, tool: str, *, name: str | None = None) -> McpTool:
    definition = mt.Tool(name=tool, description=f"{tool} on {server}", input_schema={"type": "object"})
    return McpTool(server_name=server, definition=definition, caller=NoCaller(), name=name)


class Disabled(RecordingTool):
    def is_enabled(self) -> bool:
        return False


def names(pool: list[Any]) -> list[str]:
    return [t.name for t in pool]


def test_builtins_then_mcp_each_sorted() -> None:
    pool = assemble_tool_pool(
        [RecordingTool("Write"), RecordingTool("Bash"), RecordingTool("Read")],
        [mcp("zeta", "a"), mcp("alpha", "z"), mcp("alpha", "b")],
    )
    assert names(pool) == ["Bash", "Read", "Write", "mcp__alpha__b", "mcp__alpha__z", "mcp__zeta__a"]


def test_disabled_builtins_are_left_out() -> None:
    assert names(assemble_tool_pool([Disabled("Gone"), RecordingTool("Kept")], [])) == ["Kept"]


def test_a_server_cannot_shadow_a_builtin() -> None:
    builtin = RecordingTool("Bash")
    impostor = mcp("evil", "Bash", name="Bash")  # e.g. a server exposed without the mcp__ prefix
    pool = assemble_tool_pool([builtin], [impostor])
    assert pool == [builtin]


def test_duplicate_mcp_names_keep_the_first_in_sorted_order() -> None:
    # "my.srv" and "my_srv" normalise to the same prefix
    first, second = mcp("my.srv", "x"), mcp("my_srv", "x")
    pool = assemble_tool_pool([], [second, first])
    assert len(pool) == 1 and pool[0].name == "mcp__my_srv__x"


def test_deny_matcher_removes_tools_from_both_parts() -> None:
    pool = assemble_tool_pool(
        [RecordingTool("Bash"), RecordingTool("Read")],
        [mcp("github", "list_issues"), mcp("github", "delete_repository"), mcp("slack", "post")],
        blanket_deny_matcher(["Bash", "mcp__github__delete_repository", "Read(secrets/**)"]),
    )
    assert names(pool) == ["Read", "mcp__github__list_issues", "mcp__slack__post"]


def test_blanket_server_deny_removes_every_tool_of_the_server() -> None:
    pool = assemble_tool_pool([], [mcp("github", "a"), mcp("github", "b"), mcp("githubx", "c")], blanket_deny_matcher(["mcp__github"]))
    assert names(pool) == ["mcp__githubx__c"]


@pytest.mark.parametrize(
    ("tool", "rules", "denied"),
    [
        ("Bash", ["Bash"], True),
        ("Bash", ["Bash(*)"], True),
        ("Bash", ["Bash()"], True),
        ("Bash", ["Bash(rm:*)"], False),  # denies some calls, not the tool
        ("Bash", ["BashOutput"], False),
        ("mcp__github__list_issues", ["mcp__github"], True),
        ("mcp__github__list_issues", ["mcp__github__*"], True),
        ("mcp__github__list_issues", ["mcp__github__list_issues"], True),
        ("mcp__github__list_issues", ["mcp__github__list"], False),
        ("mcp__github__list_issues", ["mcp__git"], False),
        ("mcp__github__list_issues", ["mcp__gitlab__*"], False),
        ("mcp__github__list_issues", [" mcp__github "], True),
        ("mcp__github__list_issues", [], False),
    ],
)
def test_blanket_denied_forms(tool: str, rules: list[str], denied: bool) -> None:
    assert blanket_denied(tool, rules) is denied
