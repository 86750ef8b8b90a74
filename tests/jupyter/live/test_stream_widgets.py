"""A streamed answer reaches a page that has the extension's widgets as appends: each chunk
of its HTML is sent once, an update carries what is new and the tail, and the clock is
ticked by the page. A page without them (or no page: nbclient, VS Code) gets the stock HTML
widgets, pages of the answer. A page that loads the widget mid-run (a reload: its widget
manager asks the kernel for the widget's state) gets the whole answer so far."""

from __future__ import annotations

import uuid
from typing import Any

from ipywidgets._version import __control_protocol_version__ as CONTROL_PROTOCOL

from nb_agent.jupyter.html import markdown
from nb_agent.jupyter.view.page_widgets import tail_edit
from nb_agent.testing import Reply, held_partway, text

PARAGRAPH = "Paragraph {i} has **bold** words, `code` and an escaped <tag> & sign. " * 6
ANSWER = "\n\n".join(
    [
        *(PARAGRAPH.format(i=i).strip() for i in range(6)),
        "- one item\n- another item",
        "```python\nprint('fenced')\n```",
        *(PARAGRAPH.format(i=i).strip() for i in range(6, 12)),
    ]
)
STREAM_TEXT = "StreamTextModel"


def _opened(execution: Any, model_name: str) -> list[str]:
    return [
        m["content"]["comm_id"]
        for m in execution.of_type("comm_open")
        if m["content"].get("data", {}).get("state", {}).get("_model_name") == model_name
    ]


def _custom(execution: Any, comm_id: str) -> list[dict[str, Any]]:
    return [
        m["content"]["data"]["content"]
        for m in execution.of_type("comm_msg")
        if m["content"]["comm_id"] == comm_id and m["content"]["data"].get("method") == "custom"
    ]


def _resolve(previous: str, part: Any) -> str:
    """What the page does with a part of a message (labextension/src/streamWidgets.ts)."""
    if isinstance(part, str):
        return part
    start, end, middle = part
    assert start + end <= len(previous)
    return previous[:start] + middle + previous[len(previous) - end :]


def test_an_edit_of_the_tail_gives_the_kernels_html_back():
    paragraph = "<p>" + "word " * 30
    for old, new in [
        (paragraph + "</p>\n", paragraph + "more words</p>\n"),
        (paragraph + "</p>\n", "<p>short</p>\n"),
        ("", paragraph),
        (paragraph + "x</p>", paragraph + "</p>"),
        (paragraph + "\U0001f600</p>", paragraph + "\U0001f600 and more</p>"),
    ]:
        sent = tail_edit(old, new)
        assert _resolve(old, sent) == new
        if "\U0001f600" in new:
            assert sent == new  # offsets past U+FFFF differ in the page's UTF-16 strings: sent whole
    assert tail_edit(paragraph + "</p>\n", paragraph + "more</p>\n") == [len(paragraph), 5, "more"]


def _stream(kernel: Any, prompt: str, reply: Reply | None = None) -> Any:
    kernel.server.script.add(reply or Reply(content=[text(ANSWER)], chunk_size=7, stream_duration=1.5))
    return kernel.start(f"%%agent --new\n{prompt}")


def _streamed_through_the_holds(kernel: Any, run: Any, reply: Reply) -> Any:
    """Release each of ``reply``'s holds once the page has one more update of the stream,
    then wait for the run: an update for each part of the stream, whatever the machine's load."""
    def updates() -> int:
        opened = _opened(run, STREAM_TEXT)
        return len(_custom(run, opened[0])) if opened else 0

    for hold in range(1, len(reply.hold_after_events) + 1):
        kernel.wait_for(run, lambda: updates() >= hold)  # noqa: B023 (called before the loop goes on)
        reply.release.set()
    return kernel.wait(run)


def test_a_page_with_the_widgets_gets_appends(kernel, live_case):
    live_case.page(widgets=1)
    reply = held_partway(Reply(content=[text(ANSWER)], chunk_size=7), 1 / 3, 2 / 3)
    run = _streamed_through_the_holds(kernel, _stream(kernel, "write a long answer", reply), reply)
    assert run.status == "ok", run.errors
    (comm_id,) = _opened(run, STREAM_TEXT)
    messages = _custom(run, comm_id)
    assert len(messages) >= 2, messages  # it streamed: several updates, not one at the end
    chunks: list[str] = []
    tail = ""
    for seq, message in enumerate(messages, 1):
        assert message["seq"] == seq and message["count"] == len(chunks), "a chunk was sent again"
        chunks += [_resolve(tail, part) for part in message["append"]]
        tail = _resolve(tail, message["tail"])
    # the chunks are the answer's HTML (the kernel's one layer), each sent once, in order; the
    # run's static rendering then replaces the view with the whole answer
    shown = "".join(chunks)
    assert len(chunks) >= 2 and markdown(ANSWER).startswith(shown), (len(chunks), shown)
    assert "&lt;tag&gt; &amp; sign" in shown and "<strong>bold</strong>" in shown and "<li>one item</li>" in shown
    assert "Paragraph 11 has" in run.final_bundle["text/html"]
    # no stock HTML widget carried the answer, and the clock is the page's (never updated)
    assert not any("Paragraph 3" in value for value in kernel.widgets.values)
    (clock,) = _opened(run, "PageClockModel")
    assert not [m for m in run.of_type("comm_msg") if m["content"]["comm_id"] == clock]


def test_the_paragraph_being_written_travels_as_edits(kernel, live_case):
    # one long paragraph: no chunk is ever stable, so every update after the first re-sends
    # the tail, and each must go as what was added to it (whatever the timing of the updates)
    answer = " ".join(f"word{i}" for i in range(900))  # plain words: any prefix renders as itself
    live_case.page(widgets=1)
    reply = held_partway(Reply(content=[text(answer)], chunk_size=7), 1 / 3, 2 / 3)
    run = _streamed_through_the_holds(kernel, _stream(kernel, "write one long paragraph", reply), reply)
    assert run.status == "ok", run.errors
    (comm_id,) = _opened(run, STREAM_TEXT)
    messages = _custom(run, comm_id)
    assert len(messages) >= 2, messages  # the first delta's update and the finished block's
    tail = ""
    for message in messages:
        assert message["append"] == [] and message["count"] == 0, message
        tail = _resolve(tail, message["tail"])
    assert all(isinstance(message["tail"], list) for message in messages[1:]), messages
    # spliced back, the edits give the kernel's rendering of what had streamed (the run's end
    # replaces the view with the static rendering, so the last update may be of a part)
    assert tail.startswith("<p>") and tail.endswith("</p>\n") and answer.startswith(tail[3:-5]) and len(tail) > 100, tail


def test_without_the_widgets_the_answer_is_pages_of_html(kernel, live_case):
    live_case.page()  # an older page, or a JupyterLab without ipywidgets: hello says no widgets
    reply = held_partway(Reply(content=[text(ANSWER)], chunk_size=7), 0.5)  # half the answer is pages' worth

    def pages(states: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
        """The pages in the box of the answer's first page."""
        first = [cid for cid, s in states.items() if s.get("_model_name") == "HTMLModel" and "Paragraph 0 has" in s.get("value", "")]
        boxes = [s for s in states.values() if s.get("_model_name") == "VBoxModel" and first and f"IPY_MODEL_{first[0]}" in s.get("children", [])]
        return [states[child.removeprefix("IPY_MODEL_")] for child in boxes[0]["children"]] if boxes else []

    run = _stream(kernel, "write a long answer", reply)
    kernel.wait_for(run, lambda: len(pages(kernel.widgets.states)) > 1)  # paged while it streams
    reply.release.set()
    run = kernel.wait(run)
    assert run.status == "ok", run.errors
    assert not _opened(run, STREAM_TEXT) and not _opened(run, "PageClockModel")
    closed = pages(kernel.widgets.closed)  # the run's end closed the live view
    assert len(closed) > 1, "the answer was not paged"
    assert "Paragraph 0 has" in closed[0]["value"] and "Paragraph 11 has" in run.final_bundle["text/html"]


def test_one_page_without_the_widgets_means_stock_widgets_for_all(kernel, live_case):
    live_case.page(widgets=1)
    live_case.page()
    run = kernel.wait(_stream(kernel, "write a long answer"))
    assert run.status == "ok", run.errors
    assert not _opened(run, STREAM_TEXT)


def test_a_page_that_loads_the_widget_mid_run_gets_the_answer_so_far(kernel, live_case):
    live_case.page(widgets=1)
    reply = held_partway(Reply(content=[text(ANSWER)], chunk_size=7), 0.5)  # released once every state was asked
    run = _stream(kernel, "write a long answer", reply)
    kernel.wait_for(run, lambda: bool(_opened(run, STREAM_TEXT)) and bool(_custom(run, _opened(run, STREAM_TEXT)[0])))
    (comm_id,) = _opened(run, STREAM_TEXT)
    (clock_id,) = _opened(run, "PageClockModel")
    states: list[dict[str, Any]] = []
    clock_states: list[dict[str, Any]] = []

    def answer(message: dict[str, Any]) -> None:
        data = message["content"].get("data") or {}
        if message["msg_type"] == "comm_msg" and data.get("method") == "update":
            if message["content"].get("comm_id") == comm_id:
                states.append(data["state"])
            elif message["content"].get("comm_id") == clock_id:
                clock_states.append(data["state"])

    control = uuid.uuid4().hex

    def control_reply(message: dict[str, Any]) -> None:
        data = message["content"].get("data") or {}
        if message["msg_type"] == "comm_msg" and message["content"].get("comm_id") == control and data.get("method") == "update_states":
            states.append(data["states"][comm_id]["state"])
            clock_states.append(data["states"][clock_id]["state"])

    kernel.observers += [answer, control_reply]
    try:
        # what a reloaded page's widget manager asks first: every widget's state, over its control comm
        opening = {"comm_id": control, "target_name": "jupyter.widget.control", "data": {}}
        kernel.kc.shell_channel.send(kernel.kc.session.msg("comm_open", opening, metadata={"version": CONTROL_PROTOCOL}))
        kernel.send_comm(control, {"method": "request_states"})
        kernel.wait_for(run, lambda: bool(states) and bool(clock_states))
        # and, widget by widget, what an older manager asks
        kernel.send_comm(comm_id, {"method": "request_state"})
        kernel.send_comm(clock_id, {"method": "request_state"})
        kernel.wait_for(run, lambda: len(states) >= 2 and len(clock_states) >= 2)
        # a page that missed an update asks again: the same whole state
        kernel.send_comm(comm_id, {"method": "custom", "content": {"event": "resync"}})
        kernel.wait_for(run, lambda: len(states) >= 3)
        reply.release.set()
        kernel.wait(run)
    finally:
        kernel.observers.remove(answer)
        kernel.observers.remove(control_reply)
    assert run.status == "ok", run.errors
    assert clock_states[0]["elapsed_s"] > 0 and clock_states[0]["_model_name"] == "PageClockModel"
    for state in states:
        so_far = "".join(state["chunks"]) + state["tail"]
        assert state["chunks"] and so_far.startswith("<p>Paragraph 0 has"), state
        assert markdown(ANSWER).startswith("".join(state["chunks"]))  # the chunks are the answer's beginning
        # the tail is whatever part of the answer was streaming (a paragraph, the list, the
        # fence: where the stream is when the state is asked depends on the machine's load)
        assert state["_model_name"] == STREAM_TEXT and isinstance(state["tail"], str)
