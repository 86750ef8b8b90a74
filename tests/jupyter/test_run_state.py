"""RunState built from a real engine's events (in-process scripted model, no kernel)."""

from __future__ import annotations

from typing import Any

from nb_agent.engine import EngineConfig, EngineResult, QueryEngine
from nb_agent.jupyter.view.run_state import Notice, RunState, TextBlock, ToolCall, input_preview
from nb_agent.permissions.types import PermissionAllow, PermissionDeny
from nb_agent.testing import Reply, ScriptedTransport, text, thinking, tool_use
from nb_agent.testing.collect import collect
from nb_agent.testing.tools import RecordingTool


async def run_engine(tmp_path, turns, *, tools=(), can_use_tool=None, policy=None) -> tuple[RunState, list[tuple[str, Any]], EngineResult]:
    engine = QueryEngine(
        config=EngineConfig(cwd=tmp_path, model="claude-sonnet-4-5"),
        transport=ScriptedTransport(turns),
        tools=list(tools),
        can_use_tool=can_use_tool,
        **({"permission_policy": policy} if policy else {}),
    )
    tools_by_name = {t.name: t for t in engine.tools}
    state = RunState(tool_lookup=tools_by_name.get, is_denied=lambda tid: any(d.tool_use_id == tid for d in engine.permission_denials))
    seen: list[tuple[str, Any]] = []
    state.listeners.append(lambda what, item: seen.append((what, item)))
    run = await collect(engine, "go")
    for event in run.events:  # the view takes the events in the order the run yielded them
        state.on_event(event)
    engine.close()
    result = run.result
    assert result is not None
    return state, seen, result


async def test_text_streams_then_is_finalized_exactly(tmp_path):
    answer = "Hello *there*.\n\nSecond paragraph with `code`."
    state, seen, _ = await run_engine(tmp_path, [Reply(content=[thinking("let me think"), text(answer)], chunk_size=3)])
    kinds = [type(i).__name__ + ":" + getattr(i, "kind", "") for i in state.items]
    assert kinds == ["TextBlock:thinking", "TextBlock:text"]
    block = state.items[1]
    assert isinstance(block, TextBlock) and block.finished and block.text == answer
    assert state.answer_text == answer
    changes = [item for what, item in seen if what == "change" and item is block]
    assert len(changes) > 5  # streamed piece by piece
    assert state.turn == 1 and state.model == "claude-sonnet-4-5"


async def test_tool_cards_follow_the_call(tmp_path):
    echo = RecordingTool("Echo", concurrency_safe=True)
    turns = [
        Reply(content=[text("calling"), tool_use("Echo", {"value": "a", "progress": 2}, id="t1"), tool_use("Echo", {"value": "b", "fail": True}, id="t2")]),
        Reply(content=[text("done")]),
    ]
    state, _, _ = await run_engine(tmp_path, turns, tools=[echo], policy=_AllowAll())
    first, second = state.cards
    assert (first.tool_use_id, first.status, first.result_text) == ("t1", "done", "Echo: a")
    assert first.progress == {"step": 2, "of": 2}
    assert first.concurrency_safe and first.elapsed() is not None
    assert second.status == "error" and "failed" in second.result_text
    assert [type(i).__name__ for i in state.items] == ["TextBlock", "ToolCall", "ToolCall", "TextBlock"]


async def test_unknown_tool_and_denial(tmp_path):
    echo = RecordingTool("Echo")
    turns = [
        Reply(content=[tool_use("Nope", {}, id="t1"), tool_use("Echo", {"value": "x"}, id="t2")]),
        Reply(content=[text("ok")]),
    ]

    async def deny(tool, request, ctx):
        return PermissionDeny(message="no thanks")

    state, _, _ = await run_engine(tmp_path, turns, tools=[echo], can_use_tool=deny, policy=_AskAll())
    unknown, denied = state.cards
    assert unknown.status == "error" and "No such tool" in unknown.result_text
    assert denied.status == "denied"


async def test_approval_statuses(tmp_path):
    echo = RecordingTool("Echo")
    holder: dict[str, RunState] = {}

    async def approve(tool, request, ctx):
        card = holder["state"].ask(request.tool_use_id, name=request.tool_name, input=request.input, message=request.message, suggested_rule="Echo")
        assert card.status == "waiting for approval"
        holder["state"].answer(card, "always_allow")
        return PermissionAllow(rule_to_add="Echo")

    engine = QueryEngine(
        config=EngineConfig(cwd=tmp_path), transport=ScriptedTransport([Reply(content=[tool_use("Echo", {"value": "v"})]), Reply(content=[text("ok")])]),
        tools=[echo], can_use_tool=approve, permission_policy=_AskAll(),
    )
    state = RunState(tool_lookup={"Echo": echo}.get)
    holder["state"] = state
    async for event in engine.submit_message("go"):
        if not isinstance(event, EngineResult):
            state.on_event(event)
    engine.close()
    (card,) = state.cards
    assert card.status == "done" and card.approval.answer == "always_allow"


def test_tombstone_and_broken_stream_remove_items():
    from types import SimpleNamespace as NS

    from nb_agent.messages import AssistantMessage, RequestStartEvent, StreamEvent, TombstoneMessage

    state = RunState()
    ev = lambda **kw: StreamEvent(event=NS(**kw))  # noqa: E731
    state.on_event(RequestStartEvent(model="a"))
    state.on_event(ev(type="message_start"))
    state.on_event(ev(type="content_block_start", index=0, content_block=NS(type="text")))
    state.on_event(ev(type="content_block_delta", index=0, delta=NS(type="text_delta", text="partial")))
    state.on_event(RequestStartEvent(model="b"))  # the stream broke and was retried
    assert state.items == [] and state.turn == 2 and state.model == "b"
    message = AssistantMessage(content=[{"type": "text", "text": "whole"}], message_id="m", model="b")
    state.on_event(message)
    assert state.answer_text == "whole"
    state.on_event(TombstoneMessage(target_uuid=message.uuid))
    assert state.items == []


def test_finish_marks_unfinished_cards_interrupted():
    state = RunState()
    state._add(ToolCall(tool_use_id="t", name="Bash", input={"command": "sleep 5"}, input_complete=True, status="running"))
    state.finish(interrupted=True)
    assert state.cards[0].status == "interrupted" and state.interrupted


def test_input_preview_picks_the_key_input():
    assert input_preview(ToolCall(tool_use_id="1", name="Bash", input={"command": "ls -la"})) == "ls -la"
    assert input_preview(ToolCall(tool_use_id="1", name="ExecuteCode", input={"code": "a = 1\nb = 2"})) == "a = 1 …"
    assert input_preview(ToolCall(tool_use_id="1", name="X", input={"k": 1})) == '{"k": 1}'
    long = input_preview(ToolCall(tool_use_id="1", name="Bash", input={"command": "x" * 500}), limit=50)
    assert len(long) == 50 and long.endswith("…")


class _AllowAll:
    async def decide(self, tool, input, ctx):
        return PermissionAllow()

    async def deny_rule_decision(self, tool, input, ctx):  # no deny rule (the pipeline asks first)
        return None

    def add_session_rule(self, behavior, rule):
        pass


class _AskAll(_AllowAll):
    async def decide(self, tool, input, ctx):
        from nb_agent.permissions.types import PermissionAsk

        return PermissionAsk(message="may I?")


def test_notices_from_system_messages():
    from nb_agent.messages import SystemMessage

    state = RunState()
    state.on_event(SystemMessage(level="warning", content="Switched model", subtype="fallback"))
    (notice,) = state.items
    assert isinstance(notice, Notice) and notice.level == "warning"
