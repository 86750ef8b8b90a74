"""How a subagent looks: a live card inside its Agent call's card (type, description,
live status, its tool calls collapsed beneath, tokens and time, the final answer) and a
compact static form for the saved notebook (no timings or token counts: re-running the
notebook gives the same output).
"""

from __future__ import annotations

from nb_agent.jupyter.html import Html, el, join, markdown, merge, style
from nb_agent.jupyter.view import theme
from nb_agent.jupyter.view.glyphs import STATUS_ICONS
from nb_agent.jupyter.view.run_state import ToolCall, input_preview
from nb_agent.jupyter.view.status_line import duration, tokens
from nb_agent.jupyter.view.subagent import SubagentView
from nb_agent.wording import plural

SUBAGENT_STYLE = {
    "running": (theme.INFO, "running"),
    "launched": (theme.ACCENT, "running in the background"),
    "completed": (theme.SUCCESS, "done"),
    "failed": (theme.ERROR, "failed"),
    "stopped": (theme.MUTED, "stopped"),
}
MAX_LIVE_TEXT_CHARS = 1_500
MAX_STATIC_ANSWER_CHARS = 3_000


def _calls_label(n: int) -> str:
    return plural(n, "tool call")


def _call_line(call: ToolCall) -> str:
    preview = input_preview(call, limit=100)
    arg = f" {preview}" if preview else ""
    return f"{STATUS_ICONS.get(call.status, '…')} {call.name}{arg} — {call.status}"


def _title(view: SubagentView) -> Html:
    return join([el("b", "Agent"), " ", el("span", view.agent_type, style=theme.TEXT[theme.ACCENT]), f" — {view.description}" if view.description else None])


def live_subagent_html(view: SubagentView, *, status_override: str | None = None) -> Html:
    """The live card: header with status, counters and time; tool calls; latest text."""
    tone, label = SUBAGENT_STYLE.get(status_override or view.status, (theme.MUTED, view.status))
    calls = view.tool_calls
    counters = [label, _calls_label(len(calls))]
    if view.tokens:
        counters.append(f"{tokens(view.tokens)} tokens")
    if view.status != "launched":
        counters.append(duration(view.elapsed()))
    header = el("div", _title(view), " ", el("span", f"[{' · '.join(counters)}]", style=theme.small(tone)))
    body: list[Html] = []
    if calls:
        rows = [el("li", _call_line(c)) for c in calls]
        body.append(el("details", el("summary", _calls_label(len(calls)), style=theme.SMALL), el("ul", rows, style=merge(style(margin="2px 0"), theme.SMALL))))
    text = view.latest_text.strip()
    if view.error and view.status in ("failed", "stopped"):
        body.append(el("div", view.error, style=theme.small(theme.ERROR)))
    if text:
        shown = text if len(text) <= MAX_LIVE_TEXT_CHARS else "…" + text[-MAX_LIVE_TEXT_CHARS:]
        body.append(el("div", markdown(shown) if view.finished else shown, style=style(font_size="0.9em")))
    return el("div", header, body, cls="nb-agent-card nb-agent-subagent", style=theme.card(tone))


# --- the static, compact form --------------------------------------------------------------


def static_summary(view: SubagentView) -> str:
    """``Explore “scan the data” — done (4 tool calls)``."""
    _, label = SUBAGENT_STYLE.get(view.status, ("", view.status))
    return f"{view.agent_type} “{view.description}” — {label} ({_calls_label(len(view.tool_calls))})"


def _answer(view: SubagentView) -> str:
    text = view.final_text.strip()
    if view.status in ("failed", "stopped") and view.error:
        text = f"{view.error}\n\n{text}".strip()
    if len(text) > MAX_STATIC_ANSWER_CHARS:
        text = text[:MAX_STATIC_ANSWER_CHARS] + "…"
    return text


def static_markdown(view: SubagentView) -> str:
    """Lines to put under the Agent call's list item (indented, so they nest)."""
    lines = [f"  - {_call_line(c)}".replace("`", "'") for c in view.tool_calls]
    answer = _answer(view)
    if answer:
        lines.append("")
        lines += [f"  > {line}" if line else "  >" for line in answer.splitlines()]
    return "\n".join(lines)


def static_html(view: SubagentView) -> Html:
    rows = [el("li", _call_line(c)) for c in view.tool_calls]
    calls = el("details", el("summary", _calls_label(len(view.tool_calls))), el("ul", rows)) if rows else None
    answer = _answer(view)
    body = el("div", markdown(answer), style=style(margin_left="1em", padding_left="6px", border_left=f"2px solid {theme.BORDER[theme.ACCENT]}")) if answer else None
    return join([calls, body])


def static_plain(view: SubagentView) -> str:
    lines = [f"    {_call_line(c)}" for c in view.tool_calls]
    lines += [f"    | {line}" for line in _answer(view).splitlines()]
    return "\n".join(lines)
