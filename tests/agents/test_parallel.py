"""Several Agent calls in one response run side by side; kernel tools stay one at a time."""

from __future__ import annotations

from typing import Any, ClassVar

from nb_agent.testing import Reply, text, tool_use
from nb_agent.testing.collect import assert_history_invariant, collect
from nb_agent.testing.tools import RecordingTool


class KernelTool(RecordingTool):
    """Stands for ExecuteCode: not concurrency-safe, and uses the shared kernel."""

    shared_resource: ClassVar[str | None] = "kernel"


def agent_call(tag: str, kind: str = "general-purpose") -> dict[str, Any]:
    return tool_use("Agent", {"description": f"task {tag}", "prompt": f"[{tag}] do it", "subagent_type": kind})


def overlapping(a, b) -> bool:
    return a.started < b.ended and b.started < a.ended


def sub_route(tool: str, tag: str, sleep: float = 0.0, meet: int = 0) -> list[Reply]:
    return [
        Reply(content=[tool_use(tool, {"value": tag, "sleep": sleep, "meet": meet})]),
        Reply(content=[text(f"{tag} done")]),
    ]


async def test_three_agents_in_one_response_run_concurrently(make_agent_engine):
    echo = RecordingTool("Echo")
    engine, script = make_agent_engine(
        {
            "": [Reply(content=[agent_call("a", "Explore"), agent_call("b", "Explore"), agent_call("c", "Explore")]), Reply(content=[text("all done")])],
            **{f"[{t}]": sub_route("Echo", t, meet=3) for t in "abc"},
        },
        tools=[echo],
    )
    out = await collect(engine, "explore")
    assert out.result.subtype == "success"
    script.assert_exhausted()
    assert len(echo.calls) == 3
    assert all(call.met for call in echo.calls), "the three agents' calls were not all running at once"
    assert [r["content"].split("\n")[0] for r in out.tool_results if "done" in str(r["content"])][:3] == ["a done", "b done", "c done"]
    assert_history_invariant(engine.messages)


async def test_kernel_tools_are_serialized_across_agents_while_file_tools_overlap(make_agent_engine):
    kernel = KernelTool("ExecuteCode", concurrency_safe=False, read_only=True)
    echo = RecordingTool("Echo")
    engine, script = make_agent_engine(
        {
            "": [Reply(content=[agent_call("k1"), agent_call("k2"), agent_call("e1"), agent_call("e2")]), Reply(content=[text("ok")])],
            "[k1]": sub_route("ExecuteCode", "k1", 0.2),
            "[k2]": sub_route("ExecuteCode", "k2", 0.2),
            "[e1]": sub_route("Echo", "e1", meet=2),
            "[e2]": sub_route("Echo", "e2", meet=2),
        },
        tools=[kernel, echo],
    )
    out = await collect(engine, "go")
    assert out.result.subtype == "success"
    script.assert_exhausted()
    k1, k2 = kernel.calls
    assert not overlapping(k1, k2), "two agents ran kernel code at the same time"
    assert all(call.met for call in echo.calls), "the file tools of two agents did not run at once"


async def test_parent_context_keeps_only_the_reports(make_agent_engine):
    big = "row," * 2_000
    engine, script = make_agent_engine(
        {
            "": [Reply(content=[agent_call("a", "Explore"), agent_call("b", "Explore")]), Reply(content=[text("summary")])],
            "[a]": [Reply(content=[tool_use("Echo", {"value": big})]), Reply(content=[text("a: 2000 rows")])],
            "[b]": [Reply(content=[tool_use("Echo", {"value": big})]), Reply(content=[text("b: 2000 rows")])],
        }
    )
    await collect(engine, "count rows")
    last_parent_request = str(script.requests_by_route[""][-1]["messages"])
    assert "a: 2000 rows" in last_parent_request and "b: 2000 rows" in last_parent_request
    assert big not in last_parent_request
    assert len(last_parent_request) < len(big) // 2
