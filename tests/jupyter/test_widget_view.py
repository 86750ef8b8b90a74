"""The live widget view in-process (ipywidgets without a kernel): approvals from another
thread, message pacing, the final replacement."""

from __future__ import annotations

import asyncio
import re
import threading
from types import SimpleNamespace as NS

import pytest

from nb_agent.jupyter.view.agent_view import WidgetAgentView
from nb_agent.jupyter.view.approval import REJECT_MESSAGE, REJECT_WITH_FEEDBACK_PREFIX
from nb_agent.jupyter.view.run_state import RunState
from nb_agent.jupyter.view.status_line import StatusSnapshot
from nb_agent.messages import AssistantMessage, StreamEvent
from nb_agent.permissions.types import PermissionAllow, PermissionDeny, PermissionRequest
from nb_agent.testing.cycles import cycles_left_behind


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _status():
    return StatusSnapshot(model="m", turn=1, input_tokens=0, output_tokens=0, context_tokens=0)


def _view(clock=None):
    state = RunState(clock=clock or Clock())
    return state, WidgetAgentView(state, status=_status, clock=clock or Clock())


def _request(tool_use_id="t1", rule="Bash(touch:*)"):
    return PermissionRequest(tool_use_id=tool_use_id, tool_name="Bash", input={"command": "touch x"}, message="May I?", suggested_rule=rule)


async def _ask_and_click(view, answer, *, feedback="", from_thread=True):
    task = asyncio.ensure_future(view.approver(None, _request(), None))
    await asyncio.sleep(0.01)
    row = view.approval_row("t1")
    assert row is not None
    labels = [b.description for b in row.buttons.values()]
    assert labels == ["Allow", "Always allow", "Deny"]
    assert "Bash(touch:*)" in row.rule.value and row.feedback.widget.placeholder
    if from_thread:
        thread = threading.Thread(target=row.click, args=(answer, feedback))
        thread.start()
        thread.join()
    else:
        row.click(answer, feedback)
    result = await asyncio.wait_for(task, 2)
    return row, result


async def test_allow_clicked_on_another_thread():
    state, view = _view()
    row, result = await _ask_and_click(view, "allow")
    assert result == PermissionAllow()
    assert all(b.disabled for b in row.buttons.values()) and row.feedback.widget.disabled
    (card,) = state.cards
    assert card.approval.answer == "allow" and card.status == "running"
    assert "Allowed by you" in view._widgets[card.key].content.value


async def test_an_answered_card_keeps_its_line_and_drops_its_controls():
    state, view = _view()
    task = asyncio.ensure_future(view.approver(None, _request(), None))
    await asyncio.sleep(0.01)
    row = view.approval_row("t1")
    (card,) = state.cards
    outer = view._widgets[card.key].outer
    assert row.box in outer.children  # the ask: buttons under the card
    row.click("deny", "not now")
    await asyncio.wait_for(task, 2)
    view.flush_now()
    assert list(outer.children) == [view._widgets[card.key].content]
    assert "Denied by you. Feedback: not now" in view._widgets[card.key].content.value


async def test_always_allow_returns_the_rule():
    _, view = _view()
    _, result = await _ask_and_click(view, "always_allow")
    assert result == PermissionAllow(rule_to_add="Bash(touch:*)")


async def test_deny_with_and_without_feedback():
    _, view = _view()
    _, result = await _ask_and_click(view, "deny", feedback="use ls instead")
    assert isinstance(result, PermissionDeny) and result.message == REJECT_WITH_FEEDBACK_PREFIX + "use ls instead"
    _, view = _view()
    _, result = await _ask_and_click(view, "deny", from_thread=False)
    assert result.message == REJECT_MESSAGE


async def test_only_the_first_click_counts():
    state, view = _view()
    task = asyncio.ensure_future(view.approver(None, _request(), None))
    await asyncio.sleep(0.01)
    row = view.approval_row("t1")
    row.click("deny")
    row.click("allow")
    assert isinstance(await task, PermissionDeny)
    assert state.cards[0].approval.answer == "deny"


async def test_cancellation_while_waiting_disables_the_row():
    _, view = _view()
    task = asyncio.ensure_future(view.approver(None, _request(), None))
    await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert all(b.disabled for b in view.approval_row("t1").buttons.values())


def test_always_allow_is_disabled_without_a_rule():
    _, view = _view()

    async def ask():
        task = asyncio.ensure_future(view.approver(None, _request(rule=None), None))
        await asyncio.sleep(0.01)
        row = view.approval_row("t1")
        assert row.buttons["always_allow"].disabled and "no rule" in row.rule.value
        row.click("allow")
        await task

    asyncio.run(ask())


def _delta(index, text):
    return StreamEvent(event=NS(type="content_block_delta", index=index, delta=NS(type="text_delta", text=text)))


def test_a_fast_stream_stays_within_the_message_budget():
    clock = Clock()
    state, view = _view(clock)
    answer = "".join(f"word{i} " + ("\n\n" if i % 40 == 0 else "") for i in range(3000))[:20_000]
    state.on_event(StreamEvent(event=NS(type="message_start")))
    state.on_event(StreamEvent(event=NS(type="content_block_start", index=0, content_block=NS(type="text"))))
    spent_before = view.scheduler.budget.spent
    ticks_at = 0.0
    for i in range(0, len(answer), 2):  # 10,000 deltas over 2 s
        clock.now = i / 2 * 0.0002
        state.on_event(_delta(0, answer[i : i + 2]))
        if clock.now >= ticks_at:
            view.tick()
            ticks_at += 0.04
    spent = view.scheduler.budget.spent - spent_before
    assert spent <= 2 * 30, spent
    state.on_event(StreamEvent(event=NS(type="content_block_stop", index=0)))
    state.on_event(AssistantMessage(content=[{"type": "text", "text": answer}], message_id="m", model="m"))
    clock.now += 1
    view.tick()
    (block,) = state.items
    pages = view._widgets[block.key].pages
    assert pages is not None and re.findall(r"word\d+", "".join(page.value for page in pages.pages)) == re.findall(r"word\d+", answer)
    assert block.text == answer


def test_finish_replaces_the_display_and_closes_widgets():
    state, view = _view()
    updates = []
    view.handle = NS(update=lambda bundle, raw: updates.append((bundle, raw)))
    root = view.root
    view.finish({"text/plain": "final"})
    assert updates == [({"text/plain": "final"}, True)]
    assert root.comm is None  # closed
    view.finish({"text/plain": "again"})  # idempotent
    assert len(updates) == 1


def _finished_view_with_a_card() -> None:
    state, view = _view()
    view.handle = NS(update=lambda bundle, raw: None)
    state.on_event(AssistantMessage(content=[{"type": "text", "text": "an answer"}], message_id="m", model="m"))
    view.tick()
    view.finish({"text/plain": "final"})


def test_a_finished_view_leaves_nothing_in_reference_cycles():
    _finished_view_with_a_card()  # the first view also makes the widgets every view shares
    with cycles_left_behind() as left:
        _finished_view_with_a_card()
    assert left.of_package("nb_agent") == []
