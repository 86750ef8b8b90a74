"""What the live view re-sends often names classes, and the view defines them once: the
status line (every second) and streamed thinking carry no inline style, and the view's
stylesheet gives each class they use the look the inline style had (theme variables, so
light and dark alike). Static renderings keep inline styles (a saved notebook drops <style>)."""

from __future__ import annotations

import re
from types import SimpleNamespace as NS

from nb_agent.jupyter.view import theme
from nb_agent.jupyter.view.agent_view import WidgetAgentView
from nb_agent.jupyter.view.markdown_stream import thinking_html
from nb_agent.jupyter.view.run_state import RunState
from nb_agent.jupyter.view.status_line import StatusSnapshot, clock_html, status_html
from nb_agent.messages import StreamEvent


def _status() -> StatusSnapshot:
    return StatusSnapshot(model="m", turn=3, input_tokens=1200, output_tokens=80, context_tokens=9000, phase="waiting for approval")


def _rules(css: str) -> dict[str, str]:
    body = re.fullmatch(r"<style>(.*)</style>", css, re.S)
    assert body is not None, css
    return dict(re.findall(r"\.([a-z0-9-]+)\{([^{}]*)\}", body.group(1)))


def _classes(html: str) -> set[str]:
    return {c for value in re.findall(r'class="([^"]*)"', html) for c in value.split()}


def test_the_status_line_carries_its_text_and_classes_only():
    html = status_html(_status())
    assert "style=" not in html
    assert "turn 3" in html and "waiting for approval" in html
    assert len(html) < len("<div></div>") + 200, html  # was ~540 bytes of inline style more


def test_every_class_the_view_sends_is_defined_by_its_stylesheet():
    view = WidgetAgentView(RunState(), status=_status)
    try:
        assert view.root.children[0] is view.stylesheet and view.stylesheet.layout.display == "none"
        rules = _rules(view.stylesheet.value)
        used = _classes(status_html(_status())) | _classes(clock_html(_status())) | _classes(thinking_html("why"))
        assert used and used <= set(rules), used - set(rules)
        status = rules[theme.STATUS_CLASS]
        for declaration in ("color:var(--jp-ui-font-color2, #616161)", "font-size:0.85em", "font-family:var(--jp-ui-font-family, sans-serif)", "padding:2px 4px"):
            assert declaration in status.split(";"), status
        assert "color-mix(in srgb, var(--jp-warn-color0, #e65100) 70%" in rules[theme.tone_class(theme.WARN)]
        assert "white-space:pre-wrap" in rules[theme.THINKING_CLASS]
    finally:
        view.close()


def test_the_stylesheet_stays_first_as_items_come_and_go():
    state = RunState()
    view = WidgetAgentView(state, status=_status)
    try:
        state.on_event(StreamEvent(event=NS(type="message_start")))
        state.on_event(StreamEvent(event=NS(type="content_block_start", index=0, content_block=NS(type="text"))))
        state.on_event(StreamEvent(event=NS(type="content_block_delta", index=0, delta=NS(type="text_delta", text="hello"))))
        view.flush_now()
        children = view.root.children
        assert children[0] is view.stylesheet and children[-1] is view.status_row and len(children) == 3
    finally:
        view.close()


def test_thinking_is_shown_as_written_and_escaped():
    html = thinking_html("**not bold** <b>x</b>\n\nnext")
    assert "<strong>" not in html and "&lt;b&gt;" in html and "style=" not in html
