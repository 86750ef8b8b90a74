"""The HTML of one tool card: name, key input, status, elapsed, live progress, result.

Pure functions of a :class:`ToolCall`, so the widget view and tests share them. Every
piece of tool or model text is escaped.
"""

from __future__ import annotations

import html
from typing import Any

from nb_agent.jupyter.view.run_state import ToolCall, input_preview
from nb_agent.jupyter.view.status_line import duration

STATUS_STYLE = {
    "queued": ("#757575", "queued"),
    "waiting for approval": ("#e65100", "waiting for approval"),
    "running": ("#1565c0", "running"),
    "done": ("#2e7d32", "done"),
    "error": ("#b00020", "error"),
    "denied": ("#b00020", "denied"),
    "interrupted": ("#757575", "interrupted"),
}
MAX_CODE_LINES = 60
MAX_PROGRESS_CHARS = 3_000
MAX_RESULT_CHARS = 8_000
MAX_CARD_IMAGES = 4

_PRE = 'style="white-space:pre-wrap;margin:4px 0;padding:4px 6px;background:var(--jp-layout-color2,#f5f5f5);max-height:24em;overflow:auto;font-size:0.85em"'


def _get(obj: Any, name: str) -> Any:
    if isinstance(obj, dict):
        return obj.get(name)
    return getattr(obj, name, None)


def extract_diff(structured: Any) -> str | None:
    """A unified diff from a tool's structured result (``diff`` text or patch hunks)."""
    if structured is None:
        return None
    diff = _get(structured, "diff")
    if isinstance(diff, str) and diff.strip():
        return diff
    hunks = _get(structured, "structured_patch") or _get(structured, "structuredPatch")
    if isinstance(hunks, list) and hunks:
        lines: list[str] = []
        for hunk in hunks:
            header = (_get(hunk, "oldStart"), _get(hunk, "oldLines"), _get(hunk, "newStart"), _get(hunk, "newLines"))
            if all(h is not None for h in header):
                lines.append(f"@@ -{header[0]},{header[1]} +{header[2]},{header[3]} @@")
            lines.extend(str(line) for line in (_get(hunk, "lines") or []))
        return "\n".join(lines) or None
    return None


def diff_html(diff: str) -> str:
    rows = []
    for line in diff.splitlines()[:400]:
        color = ""
        if line.startswith("+") and not line.startswith("+++"):
            color = "background:rgba(46,125,50,0.15)"
        elif line.startswith("-") and not line.startswith("---"):
            color = "background:rgba(176,0,32,0.12)"
        elif line.startswith("@@"):
            color = "color:#1565c0"
        rows.append(f'<div style="{color}">{html.escape(line) or "&nbsp;"}</div>')
    return f'<div {_PRE.replace("white-space:pre-wrap", "white-space:pre")}>{"".join(rows)}</div>'


def _key_input_html(card: ToolCall) -> str:
    code = card.input.get("code")
    if card.name == "ExecuteCode" and isinstance(code, str):
        lines = code.splitlines()
        shown = "\n".join(lines[:MAX_CODE_LINES]) + (f"\n… ({len(lines) - MAX_CODE_LINES} more lines)" if len(lines) > MAX_CODE_LINES else "")
        return f"<pre {_PRE}>{html.escape(shown)}</pre>"
    command = card.input.get("command")
    if isinstance(command, str) and "\n" in command:
        return f"<pre {_PRE}>{html.escape(command)}</pre>"
    if card.name == "NotebookEdit" and isinstance(card.input.get("new_source"), str):
        mode = card.input.get("edit_mode", "replace")
        target = card.input.get("cell_id") or "(start)"
        return f'<div style="font-size:0.85em">{html.escape(str(mode))} cell {html.escape(str(target))}</div>' + (
            f"<pre {_PRE}>{html.escape(card.input['new_source'])}</pre>" if mode != "delete" else ""
        )
    return ""


def _header(card: ToolCall, now: float | None) -> str:
    color, label = STATUS_STYLE.get(card.status, ("#555", card.status))
    preview = input_preview(card, limit=160)
    inline = "" if card.name == "ExecuteCode" else preview
    elapsed = card.elapsed(now)
    timer = f" · {duration(elapsed)}" if elapsed is not None else ""
    description = card.input.get("description")
    desc = f' <span style="color:#777">— {html.escape(str(description))}</span>' if isinstance(description, str) and description else ""
    if card.agent:
        desc += f' <span style="color:#6a1b9a;font-size:0.85em">asked by the {html.escape(card.agent)}</span>'
    return (
        f'<div><b>{html.escape(card.name)}</b>'
        + (f' <code style="font-size:0.85em">{html.escape(inline)}</code>' if inline else "")
        + desc
        + f' <span style="color:{color};font-size:0.85em">[{html.escape(label)}{timer}]</span></div>'
    )


def _approval_html(card: ToolCall) -> str:
    approval = card.approval
    if approval is None:
        return ""
    if approval.answer is None:
        return f'<div style="color:#e65100;font-size:0.9em">{html.escape(approval.message)}</div>'
    if approval.answer == "allow":
        text = "Allowed by you."
    elif approval.answer == "always_allow":
        text = f"Always allowed by you (rule {approval.suggested_rule})." if approval.suggested_rule else "Always allowed by you."
    else:
        text = "Denied by you." + (f" Feedback: {approval.feedback}" if approval.feedback else "")
    return f'<div style="color:#555;font-size:0.85em">{html.escape(text)}</div>'


def _progress_html(card: ToolCall) -> str:
    if card.finished or not card.progress:
        return ""
    tail = card.progress.get("output_tail") or card.progress.get("output")
    if not isinstance(tail, str) or not tail:
        return ""
    return f"<pre {_PRE}>{html.escape(tail[-MAX_PROGRESS_CHARS:])}</pre>"


def _result_html(card: ToolCall) -> str:
    if not card.finished:
        return ""
    diff = extract_diff(card.structured) if card.status == "done" else None
    if diff:
        return f"<details open><summary>diff</summary>{diff_html(diff)}</details>"
    text = card.result_text
    if len(text) > MAX_RESULT_CHARS:
        text = text[:MAX_RESULT_CHARS] + f"\n… ({len(card.result_text) - MAX_RESULT_CHARS:,} more characters)"
    images = "".join(
        f'<div><img style="max-width:100%" src="data:{html.escape(media)};base64,{data}"/></div>'
        for media, data in card.result_images[:MAX_CARD_IMAGES]
    )
    body = (f"<pre {_PRE}>{html.escape(text)}</pre>" if text.strip() else "") + images
    if not body:
        return ""
    is_open = " open" if card.status == "error" or images else ""
    return f"<details{is_open}><summary>result</summary>{body}</details>"


def _interaction_html(card: ToolCall) -> str:
    """Todos, questions, plans, search results: their own body; the raw result only on error."""
    from nb_agent.jupyter.view import interaction_render

    waiting = card.approval is not None and card.approval.answer is None
    state = (
        '<div style="color:#e65100;font-size:0.9em">Waiting for your answer below.</div>'
        if waiting
        else f'<div style="color:#555;font-size:0.85em">{html.escape(interaction_render.note(card).strip(" ()"))}</div>'
    )
    result = _result_html(card) if card.status == "error" else ""
    return interaction_render.body_html(card) + state + _progress_html(card) + result


def card_html(card: ToolCall, now: float | None = None) -> str:
    if card.subagent is not None:
        from nb_agent.jupyter.view.subagent_card import live_subagent_html

        # a stopped parent can leave its subagent's own status behind: the call's wins
        override = "stopped" if card.status == "interrupted" and not card.subagent.finished else None
        return live_subagent_html(card.subagent, status_override=override)
    from nb_agent.jupyter.view.interaction_render import handles

    color, _ = STATUS_STYLE.get(card.status, ("#555", ""))
    if handles(card):
        inner = _header(card, now) + _interaction_html(card)
    else:
        inner = _header(card, now) + _key_input_html(card) + _approval_html(card) + _progress_html(card) + _result_html(card)
    return (
        f'<div class="nb-agent-card" style="border-left:3px solid {color};padding:2px 8px;margin:4px 0;'
        f'font-family:var(--jp-ui-font-family,sans-serif)">{inner}</div>'
    )


def thinking_html(text: str) -> str:
    return f'<div style="color:#777;font-size:0.9em;white-space:pre-wrap">{html.escape(text)}</div>'


def notice_html(level: str, text: str) -> str:
    color = {"error": "#b00020", "warning": "#8a6d00"}.get(level, "#666")
    return f'<div style="color:{color};font-size:0.9em;margin:2px 0">{html.escape(text)}</div>'
