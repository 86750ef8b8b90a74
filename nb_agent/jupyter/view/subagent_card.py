"""How a subagent looks: a live card inside its Agent call's card (type, description,
live status, its tool calls collapsed beneath, tokens and time, the final answer) and a
compact static form for the saved notebook (no timings or token counts: re-running the
notebook gives the same output).
"""

from __future__ import annotations

import html

from nb_agent.jupyter.view.markdown_stream import render_markdown
from nb_agent.jupyter.view.run_state import ToolCall, input_preview
from nb_agent.jupyter.view.status_line import duration, tokens
from nb_agent.jupyter.view.subagent import SubagentView

SUBAGENT_STYLE = {
    "running": ("#1565c0", "running"),
    "launched": ("#6a1b9a", "running in the background"),
    "completed": ("#2e7d32", "done"),
    "failed": ("#b00020", "failed"),
    "stopped": ("#757575", "stopped"),
}
ICONS = {"done": "✓", "error": "✗", "denied": "⊘", "interrupted": "⏹", "waiting for approval": "?"}
MAX_LIVE_TEXT_CHARS = 1_500
MAX_STATIC_ANSWER_CHARS = 3_000


def _calls_label(n: int) -> str:
    return f"{n} tool call{'s' if n != 1 else ''}"


def _call_line(call: ToolCall) -> str:
    preview = input_preview(call, limit=100)
    arg = f" {preview}" if preview else ""
    return f"{ICONS.get(call.status, '…')} {call.name}{arg} — {call.status}"


def _title(view: SubagentView) -> str:
    description = f" — {html.escape(view.description)}" if view.description else ""
    return f'<b>Agent</b> <span style="color:#6a1b9a">{html.escape(view.agent_type)}</span>{description}'


def live_subagent_html(view: SubagentView, *, status_override: str | None = None) -> str:
    """The live card: header with status, counters and time; tool calls; latest text."""
    color, label = SUBAGENT_STYLE.get(status_override or view.status, ("#555", view.status))
    calls = view.tool_calls
    counters = [label, _calls_label(len(calls))]
    if view.tokens:
        counters.append(f"{tokens(view.tokens)} tokens")
    if view.status != "launched":
        counters.append(duration(view.elapsed()))
    header = f'<div>{_title(view)} <span style="color:{color};font-size:0.85em">[{html.escape(" · ".join(counters))}]</span></div>'
    rows = "".join(f'<li>{html.escape(_call_line(c))}</li>' for c in calls)
    body = f'<details><summary style="font-size:0.85em">{_calls_label(len(calls))}</summary><ul style="margin:2px 0;font-size:0.85em">{rows}</ul></details>' if calls else ""
    text = view.latest_text.strip()
    if view.error and view.status in ("failed", "stopped"):
        body += f'<div style="color:#b00020;font-size:0.85em">{html.escape(view.error)}</div>'
    if text:
        shown = text if len(text) <= MAX_LIVE_TEXT_CHARS else "…" + text[-MAX_LIVE_TEXT_CHARS:]
        body += f'<div style="font-size:0.9em">{render_markdown(shown) if view.finished else html.escape(shown)}</div>'
    return (
        f'<div class="nb-agent-card nb-agent-subagent" style="border-left:3px solid {color};padding:2px 8px;margin:4px 0;'
        f'font-family:var(--jp-ui-font-family,sans-serif)">{header}{body}</div>'
    )


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


def static_html(view: SubagentView) -> str:
    rows = "".join(f"<li>{html.escape(_call_line(c))}</li>" for c in view.tool_calls)
    calls = f"<details><summary>{_calls_label(len(view.tool_calls))}</summary><ul>{rows}</ul></details>" if rows else ""
    answer = _answer(view)
    body = f'<div style="margin-left:1em;padding-left:6px;border-left:2px solid #ce93d8">{render_markdown(answer)}</div>' if answer else ""
    return calls + body


def static_plain(view: SubagentView) -> str:
    lines = [f"    {_call_line(c)}" for c in view.tool_calls]
    lines += [f"    | {line}" for line in _answer(view).splitlines()]
    return "\n".join(lines)
