"""TodoWrite: the list replaces the session's, survives submissions, needs no permission."""

from __future__ import annotations

from nb_agent.testing import Reply, text, tool_use
from nb_agent.testing.collect import assert_history_invariant, collect
from nb_agent.tools.interaction.todos import RESULT_TEXT, current_todos, todos_text

TODOS = [
    {"content": "Load the data", "status": "completed", "activeForm": "Loading the data"},
    {"content": "Pick the metric", "status": "in_progress", "activeForm": "Picking the metric"},
    {"content": "Draw the chart", "status": "pending", "activeForm": "Drawing the chart"},
]




async def test_the_list_is_kept_across_submissions_and_needs_no_approval(make_engine, tmp_path):
    turns = [
        Reply(content=[tool_use("TodoWrite", {"todos": TODOS})]),
        Reply(content=[text("planned")]),
        Reply(content=[text("still there")]),
    ]
    engine = make_engine(turns)  # no can_use_tool: anything that asked would be refused
    [result] = (await collect(engine, "plan it")).tool_results
    assert result["content"] == RESULT_TEXT and not result.get("is_error")
    await collect(engine, "next cell")
    assert [t.content for t in current_todos(engine.tool_session)] == ["Load the data", "Pick the metric", "Draw the chart"]
    assert todos_text(current_todos(engine.tool_session)).splitlines() == [
        "[x] Load the data", "[>] Picking the metric", "[ ] Draw the chart",
    ]  # fmt: skip
    assert_history_invariant(engine.messages)


async def test_a_list_all_done_is_cleared_and_bad_status_is_refused(make_engine, tmp_path):
    done = [{**t, "status": "completed"} for t in TODOS]
    bad = [{"content": "x", "status": "doing", "activeForm": "x-ing"}]
    turns = [
        Reply(content=[tool_use("TodoWrite", {"todos": TODOS})]),
        Reply(content=[tool_use("TodoWrite", {"todos": bad})]),
        Reply(content=[tool_use("TodoWrite", {"todos": done})]),
        Reply(content=[text("ok")]),
    ]
    engine = make_engine(turns)
    results = (await collect(engine, "go")).tool_results
    assert results[1]["is_error"] and "todos.0.status" in results[1]["content"]
    assert not results[2].get("is_error")
    assert engine.tool_session.resources.todos[None] == []


async def test_plan_mode_allows_it(make_engine, tmp_path):
    turns = [Reply(content=[tool_use("TodoWrite", {"todos": TODOS})]), Reply(content=[text("ok")])]
    engine = make_engine(turns, mode="plan")
    [result] = (await collect(engine, "plan")).tool_results
    assert not result.get("is_error"), result


async def test_a_resumed_conversation_gets_its_last_list_back(make_engine, tmp_path):
    from nb_agent.engine import EngineConfig, QueryEngine
    from nb_agent.tools.interaction import TodoWriteTool

    later = [{**TODOS[1], "status": "completed"}, {**TODOS[2], "status": "in_progress"}]
    bad = [{"content": "x", "status": "doing", "activeForm": "x-ing"}]
    turns = [
        Reply(content=[tool_use("TodoWrite", {"todos": TODOS})]),
        Reply(content=[tool_use("TodoWrite", {"todos": later})]),
        Reply(content=[tool_use("TodoWrite", {"todos": bad})]),  # refused: not the list
        Reply(content=[text("ok")]),
    ]
    engine = make_engine(turns)
    await collect(engine, "go")
    engine.close()
    resumed, _ = QueryEngine.resume(engine.transcript_path, config=EngineConfig(cwd=tmp_path), tools=[TodoWriteTool()])
    assert [(t.content, t.status) for t in current_todos(resumed.tool_session)] == [
        ("Pick the metric", "completed"), ("Draw the chart", "in_progress"),
    ]  # fmt: skip


async def test_a_resumed_conversation_without_todos_has_none(make_engine, tmp_path):
    from nb_agent.engine import EngineConfig, QueryEngine
    from nb_agent.tools.interaction import TodoWriteTool

    engine = make_engine([Reply(content=[text("hello")])])
    await collect(engine, "hi")
    engine.close()
    resumed, _ = QueryEngine.resume(engine.transcript_path, config=EngineConfig(cwd=tmp_path), tools=[TodoWriteTool()])
    assert current_todos(resumed.tool_session) == []
