"""ToolSearch: modes and the auto threshold, queries, discovery from history, request tools."""

from __future__ import annotations

from typing import Any, ClassVar

import mcp_types as mt
import pytest
from pydantic import BaseModel

from nb_agent.abort import AbortController
from nb_agent.mcp import McpTool
from nb_agent.messages import (
    AssistantMessage,
    AttachmentMessage,
    CompactBoundaryMessage,
    UserMessage,
    tool_result_message,
)
from nb_agent.testing.tools import RecordingTool
from nb_agent.tools.base import Tool, ToolUseContext
from nb_agent.tools.pool import assemble_tool_pool
from nb_agent.tools.tool_search import (
    TOOL_SEARCH_ENV,
    ToolSearchOutput,
    ToolSearchTool,
    deferred_tools,
    deferred_tools_prompt,
    discovered_tool_names,
    discovered_tools_attachment,
    estimate_tools_tokens,
    format_search_result,
    resolve_mode,
    tools_for_request,
)

CATALOG: dict[str, list[tuple[str, str]]] = {
    "github": [
        ("list_pull_requests", "List pull requests in a GitHub repository."),
        ("merge_pull_request", "Merge a pull request in a GitHub repository."),
        ("create_issue", "Create a new issue in a GitHub repository with a title and optional body."),
        ("list_issues", "List issues in a GitHub repository."),
        ("search_code", "Fast and precise code search across ALL GitHub repositories."),
        ("list_branches", "List branches in a GitHub repository"),
        ("get_me", "Get details of the authenticated GitHub user."),
    ],
    "slack": [
        ("slack_post_message", "Post a new message to a Slack channel"),
        ("slack_list_channels", "List public or pre-defined channels in the workspace with pagination"),
        ("slack_get_channel_history", "Get recent messages from a channel"),
    ],
    "kubernetes": [
        ("pods_list", "List all the Kubernetes pods in the current cluster from all namespaces"),
        ("pods_log", "Get the logs of a Kubernetes Pod in the current or provided namespace with the provided name"),
        ("pods_delete", "Delete a Kubernetes Pod in the current or provided namespace with the provided name"),
        ("namespaces_list", "List all the Kubernetes namespaces in the current cluster"),
    ],
    "linear": [
        ("linear_createIssue", "Create a new issue in Linear"),
        ("linear_getActiveCycle", "Get the currently active cycle for a team"),
    ],
    "git": [("git_status", "Shows the working tree status"), ("git_log", "Shows the commit logs")],
    "time": [("get_current_time", "Get current time in a specific timezone")],
}


class NoCaller:
    async def call_mcp_tool(self, server: str, tool: str, arguments: dict[str, Any]) -> mt.CallToolResult:
        raise AssertionError("not called")


def mcp_tools(padding: int = 0) -> list[McpTool]:
    out = []
    for server, tools in CATALOG.items():
        for name, description in tools:
            schema = {"type": "object", "properties": {"x": {"type": "string", "description": "pad " * padding}}}
            definition = mt.Tool(name=name, description=description, input_schema=schema)
            out.append(McpTool(server_name=server, definition=definition, caller=NoCaller()))
    return out


class AskInput(BaseModel):
    question: str


class AskUserQuestion(RecordingTool):
    """A built-in that defers itself (rarely needed), with a search hint."""

    input_model: ClassVar[type[BaseModel]] = AskInput
    should_defer: ClassVar[bool] = True
    search_hint: ClassVar[str | None] = "clarify ambiguous request multiple choice"

    def prompt(self) -> str:
        return "Ask the user a question and wait for the answer."


def pool(*, padding: int = 0, with_search: bool = True) -> list[Tool[Any]]:
    builtins: list[Tool[Any]] = [RecordingTool("Bash"), RecordingTool("Read"), AskUserQuestion("AskUserQuestion")]
    if with_search:
        builtins.append(ToolSearchTool())
    return assemble_tool_pool(builtins, mcp_tools(padding))


def names(tools: list[Any]) -> list[str]:
    return [t.name for t in tools]


# --- modes ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "mode"),
    [(None, "auto"), ("auto", "auto"), ("tst-auto", "auto"), ("on", "on"), ("tst", "on"), ("TRUE", "on"),
     ("off", "off"), ("standard", "off"), ("0", "off"), ("bogus", "auto")],
)
def test_resolve_mode(raw: str | None, mode: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(TOOL_SEARCH_ENV, raising=False)
    assert resolve_mode(raw) == mode


def test_mode_from_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TOOL_SEARCH_ENV, "off")
    assert resolve_mode() == "off" and deferred_tools(pool(), context_window=100) == []


def test_on_defers_mcp_and_should_defer_builtins() -> None:
    deferred = names(deferred_tools(pool(), "on"))
    assert "AskUserQuestion" in deferred and "mcp__github__list_pull_requests" in deferred
    assert not {"Bash", "Read", "ToolSearch"} & set(deferred)


def test_auto_defers_only_past_ten_percent_of_the_window() -> None:
    small = pool()
    cost = estimate_tools_tokens([t for t in small if t.is_mcp or t.should_defer])
    assert deferred_tools(small, "auto", context_window=cost * 10 + 50) == []
    assert deferred_tools(small, "auto", context_window=cost * 10 - 50) != []
    assert deferred_tools(pool(padding=2_000), "auto", context_window=200_000) != []
    assert deferred_tools(small, "off", context_window=1) == []


def test_nothing_is_deferred_without_a_toolsearch_tool_in_the_pool() -> None:
    assert deferred_tools(pool(with_search=False), "on") == []
    assert "mcp__git__git_log" in names(tools_for_request(pool(with_search=False), [], "on"))


def test_token_estimate_is_json_length_over_four() -> None:
    tools = mcp_tools()[:3]
    import json

    assert estimate_tools_tokens(tools) == len(json.dumps([t.to_api_definition() for t in tools])) // 4
    assert estimate_tools_tokens([]) == 0


# --- queries ----------------------------------------------------------------------------------


def search(query: str, max_results: int = 5) -> ToolSearchOutput:
    return ToolSearchTool().search(pool(), query, max_results=max_results)


def test_select_loads_exact_names_and_reports_missing() -> None:
    out = search("select:mcp__slack__slack_post_message, mcp__git__git_log,nope")
    assert out.matches == ["mcp__slack__slack_post_message", "mcp__git__git_log"]
    assert out.not_found == ["nope"]


def test_select_accepts_case_insensitive_and_unprefixed_names() -> None:
    assert search("select:MCP__TIME__GET_CURRENT_TIME,pods_log").matches == [
        "mcp__time__get_current_time",
        "mcp__kubernetes__pods_log",
    ]


def test_exact_name_fast_path() -> None:
    assert search("mcp__github__get_me").matches == ["mcp__github__get_me"]
    assert search("AskUserQuestion").matches == ["AskUserQuestion"]


def test_server_prefix_lists_that_server_only() -> None:
    out = search("mcp__git", max_results=10)
    assert out.matches == ["mcp__git__git_log", "mcp__git__git_status"]  # not github
    out = search("mcp__github", max_results=3)
    assert len(out.matches) == 3 and out.total_matching == 7
    assert all(n.startswith("mcp__github__") for n in out.matches)


def test_server_prefix_with_keywords_ranks_within_the_server() -> None:
    assert search("mcp__github merge", max_results=1).matches == ["mcp__github__merge_pull_request"]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("list open pull requests in a repo", "mcp__github__list_pull_requests"),
        ("merge PR 12", "mcp__github__merge_pull_request"),
        ("post a message to the team channel", "mcp__slack__slack_post_message"),
        ("k8s pod logs", "mcp__kubernetes__pods_log"),
        ("remove the crashing pod", "mcp__kubernetes__pods_delete"),
        ("what time is it in Tokyo", "mcp__time__get_current_time"),
        ("ask the user to clarify", "AskUserQuestion"),
        ("JavaScript", None),  # nothing relevant: no crash, maybe no match
    ],
)
def test_keyword_queries_rank_the_intended_tool_first(query: str, expected: str | None) -> None:
    out = search(query)
    if expected is not None:
        assert out.matches[0] == expected, out.matches


def test_required_terms_filter() -> None:
    out = search("+linear create issue")
    assert out.matches[0] == "mcp__linear__linear_createIssue"
    assert all(name.startswith("mcp__linear__") for name in out.matches)
    out = search("create issue")
    assert {"mcp__linear__linear_createIssue", "mcp__github__create_issue"} <= set(out.matches)
    assert search("+nosuchword create issue").matches == []


def test_max_results_caps_keyword_results() -> None:
    assert len(search("list", max_results=2).matches) == 2


def test_result_text_lists_names_and_descriptions() -> None:
    text = format_search_result(search("select:mcp__github__get_me,zzz"))
    assert "- mcp__github__get_me: Get details of the authenticated GitHub user." in text
    assert "Not found: zzz" in text
    assert "No deferred tool matched" in format_search_result(search("qwertyuiop"))


async def test_call_searches_ctx_tools_and_returns_structured_data() -> None:
    tools = pool()
    search_tool = next(t for t in tools if t.name == "ToolSearch")
    ctx = ToolUseContext(abort_controller=AbortController(), tools=tools)
    result = await search_tool.call(search_tool.parse_input({"query": "slack channels"}), ctx, lambda _: None)
    assert isinstance(result.data, ToolSearchOutput)
    assert result.data.matches[0] == "mcp__slack__slack_list_channels"
    assert result.data.total_deferred_tools == len(CATALOG_NAMES) + 1
    assert search_tool.is_read_only(None) and search_tool.is_concurrency_safe(None)
    with_provider = ToolSearchTool(pool_provider=lambda: tools)
    empty_ctx = ToolUseContext(abort_controller=AbortController())
    assert (await with_provider.call(with_provider.parse_input({"query": "git log"}), empty_ctx, lambda _: None)).data.matches


CATALOG_NAMES = [n for tools in CATALOG.values() for n, _ in tools]


# --- discovery and the request ----------------------------------------------------------------


def search_turn(tool_use_id: str, output: ToolSearchOutput, *, is_error: bool = False) -> list[Any]:
    ask = AssistantMessage(
        content=[{"type": "tool_use", "id": tool_use_id, "name": "ToolSearch", "input": {"query": output.query}}],
        message_id=f"msg_{tool_use_id}",
        model="m",
    )
    answer = tool_result_message(tool_use_id, format_search_result(output), is_error=is_error, tool_use_result=output)
    return [ask, answer]


def test_discovered_names_come_from_toolsearch_results_only() -> None:
    history = [
        UserMessage(content="hi"),
        *search_turn("t1", search("select:mcp__github__get_me")),
        *search_turn("t2", search("select:mcp__git__git_log"), is_error=True),  # errors do not count
        AssistantMessage(content=[{"type": "tool_use", "id": "t3", "name": "Bash", "input": {}}], message_id="m3", model="m"),
        tool_result_message("t3", "- mcp__slack__slack_post_message: printed by some other tool"),
    ]
    assert discovered_tool_names(history) == {"mcp__github__get_me"}


def test_discovery_survives_a_transcript_round_trip_without_structured_data() -> None:
    # A resumed session may only have the text the model saw.
    ask, answer = search_turn("t1", search("select:mcp__time__get_current_time,mcp__git__git_status"))
    text_only = UserMessage(content=answer.content)
    assert discovered_tool_names([ask, text_only]) == {"mcp__time__get_current_time", "mcp__git__git_status"}


def test_discovery_reads_api_shaped_messages_and_tool_reference_blocks() -> None:
    history = [
        {"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "ToolSearch", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a", "content": [
            {"type": "tool_reference", "tool_name": "mcp__linear__linear_createIssue"}]}]},
    ]
    assert discovered_tool_names(history) == {"mcp__linear__linear_createIssue"}


def test_discovery_after_compaction_uses_the_attachment() -> None:
    history = [
        CompactBoundaryMessage(summary="we looked up some tools"),
        discovered_tools_attachment(["mcp__github__list_issues", "mcp__slack__slack_post_message"]),
        UserMessage(content="continue"),
    ]
    assert discovered_tool_names(history) == {"mcp__github__list_issues", "mcp__slack__slack_post_message"}
    assert isinstance(history[1], AttachmentMessage) and history[1].kind == "discovered_tools"


def test_tools_for_request_with_and_without_deferral() -> None:
    tools = pool()
    off = tools_for_request(tools, [], "off")
    assert "ToolSearch" not in names(off) and "mcp__git__git_log" in names(off)

    first = tools_for_request(tools, [], "on")
    assert names(first) == ["Bash", "Read", "ToolSearch"]

    history = [UserMessage(content="hi"), *search_turn("t1", search("select:mcp__git__git_log,AskUserQuestion"))]
    later = tools_for_request(tools, history, "on")
    assert names(later) == ["AskUserQuestion", "Bash", "Read", "ToolSearch", "mcp__git__git_log"]
    # re-derived every call: a history without the search has nothing discovered
    assert names(tools_for_request(tools, history[:1], "on")) == ["Bash", "Read", "ToolSearch"]


def test_deferred_request_is_much_smaller() -> None:
    tools = pool(padding=2_000)
    full = estimate_tools_tokens(tools_for_request(tools, [], "off"))
    request = tools_for_request(tools, [], "auto", 200_000)
    assert not any(t.is_mcp for t in request)
    assert estimate_tools_tokens(request) < full * 0.05


def test_deferred_tools_prompt_names_servers_and_builtins() -> None:
    text = deferred_tools_prompt(pool(), "on")
    assert text is not None
    assert "github (7)" in text and "slack (3)" in text and "kubernetes (4)" in text
    assert "AskUserQuestion" in text and "select:" in text and "mcp__<server>" in text
    assert deferred_tools_prompt(pool(), "off") is None
