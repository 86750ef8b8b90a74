"""The HTML of one tool card: name, key input, status, elapsed, live progress, result.

Pure functions of a :class:`ToolCall`, so the widget view and tests share them. All markup
is made by :mod:`nb_agent.jupyter.html`: tool and model text is text, images are re-encoded.
"""

from __future__ import annotations

from typing import Any

from nb_agent.jupyter.html import Html, el, image_src, join, merge, style
from nb_agent.jupyter.view import interaction_render, theme
from nb_agent.jupyter.view.change_render import change_html
from nb_agent.jupyter.view.run_state import ToolCall, input_preview
from nb_agent.jupyter.view.status_line import duration
from nb_agent.jupyter.view.subagent_card import live_subagent_html
from nb_agent.tools.files.change_preview import ChangePreview, FileChange

STATUS_TONE = {
    "queued": theme.MUTED,
    "waiting for approval": theme.WARN,
    "running": theme.INFO,
    "done": theme.SUCCESS,
    "error": theme.ERROR,
    "denied": theme.ERROR,
    "interrupted": theme.MUTED,
}
MAX_CODE_LINES = 60
MAX_PROGRESS_CHARS = 3_000
MAX_COMPUTE_CHARS = 300
MAX_RESULT_CHARS = 8_000
MAX_CARD_IMAGES = 4
IMAGE_UNREADABLE = "[an image that could not be read]"


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


def card_change(card: ToolCall) -> ChangePreview | None:
    """The change a card shows: the tool's own diff once it is done, else what the approval
    card was shown (a new file's head, a cell before and after)."""
    diff = extract_diff(card.structured) if card.status == "done" else None
    if diff:
        path = _get(card.structured, "file_path") or card.input.get("file_path") or ""
        return FileChange(path=str(path), diff=diff)
    return card.change


def _key_input_html(card: ToolCall) -> Html | None:
    code = card.input.get("code")
    if card.name == "ExecuteCode" and isinstance(code, str):
        lines = code.splitlines()
        shown = "\n".join(lines[:MAX_CODE_LINES]) + (f"\n… ({len(lines) - MAX_CODE_LINES} more lines)" if len(lines) > MAX_CODE_LINES else "")
        return el("pre", shown, style=theme.pre())
    command = card.input.get("command")
    if isinstance(command, str) and "\n" in command:
        return el("pre", command, style=theme.pre())
    change = card_change(card)
    if change is not None:
        return change_html(change)  # what the call changed, or (waiting for approval) would change
    if card.name == "NotebookEdit" and isinstance(card.input.get("new_source"), str):
        mode = str(card.input.get("edit_mode", "replace"))
        target = str(card.input.get("cell_id") or "(start)")
        return join([el("div", f"{mode} cell {target}", style=theme.SMALL), el("pre", card.input["new_source"], style=theme.pre()) if mode != "delete" else None])
    return None


ASKS_THE_USER = frozenset({"AskUserQuestion", "ExitPlanMode"})


def status_label(card: ToolCall) -> str | None:
    """The card's bracketed state; none for a finished checklist or question (its own line says it)."""
    if card.name in ASKS_THE_USER and card.status == "waiting for approval":
        return "waiting for you"
    if interaction_render.handles(card) and card.status == "done":
        return None
    return card.status


def _header(card: ToolCall, now: float | None) -> Html:
    tone = STATUS_TONE.get(card.status, theme.MUTED)
    preview = input_preview(card, limit=160)
    inline = "" if card.name == "ExecuteCode" else preview
    elapsed = card.elapsed(now)
    timer = f" · {duration(elapsed)}" if elapsed is not None else ""
    description = card.input.get("description")
    label = status_label(card)
    return el(
        "div",
        el("b", card.name),
        [" ", el("code", inline, style=theme.SMALL)] if inline else None,
        [" ", el("span", f"— {description}", style=theme.TEXT[theme.MUTED])] if isinstance(description, str) and description else None,
        [" ", el("span", f"asked by the {card.agent}", style=theme.small(theme.ACCENT))] if card.agent else None,
        [" ", el("span", f"[{label}{timer}]", style=theme.small(tone))] if label else None,
    )


def _approval_html(card: ToolCall) -> Html | None:
    approval = card.approval
    if approval is None:
        return None
    if approval.answer is None:
        return el("div", approval.message, style=theme.text(theme.WARN, style(font_size="0.9em")))
    if approval.answer == "allow":
        said = "Allowed by you."
    elif approval.answer == "always_allow":
        said = f"Always allowed by you (rule {approval.suggested_rule})." if approval.suggested_rule else "Always allowed by you."
    else:
        said = "Denied by you." + (f" Feedback: {approval.feedback}" if approval.feedback else "")
    return el("div", said, style=theme.small(theme.MUTED))


def _progress_html(card: ToolCall) -> Html | None:
    if card.finished or not card.progress:
        return None
    compute = card.progress.get("compute")  # a Dask or Spark computation's one line
    tail = card.progress.get("output_tail") or card.progress.get("output")
    return join(
        [
            el("div", compute[:MAX_COMPUTE_CHARS], style=theme.small(theme.INFO)) if isinstance(compute, str) and compute else None,
            el("pre", el("span", tail[-MAX_PROGRESS_CHARS:]), style=merge(theme.pre(), theme.FOLLOW)) if isinstance(tail, str) and tail else None,
        ]
    )


def images_html(images: list[tuple[str, str]], limit: int) -> list[Html]:
    """Up to ``limit`` result images, each decoded and re-encoded (an unreadable one is a note)."""
    shown = []
    for media_type, data in images[:limit]:
        src = image_src(media_type, data)
        shown.append(el("div", el("img", src=src, alt="tool result image", style=theme.IMAGE)) if src else el("div", IMAGE_UNREADABLE, style=theme.small(theme.MUTED)))
    return shown


def _result_html(card: ToolCall) -> Html | None:
    if not card.finished:
        return None
    if card.status == "done" and extract_diff(card.structured):
        return None  # the diff is shown above
    text = card.result_text
    if len(text) > MAX_RESULT_CHARS:
        text = text[:MAX_RESULT_CHARS] + f"\n… ({len(card.result_text) - MAX_RESULT_CHARS:,} more characters)"
    images = images_html(card.result_images, MAX_CARD_IMAGES)
    if not text.strip() and not images:
        return None
    return el(
        "details",
        el("summary", "result"),
        el("pre", text, style=theme.pre()) if text.strip() else None,
        images,
        open=card.status == "error" or bool(images),
    )


def _interaction_html(card: ToolCall) -> Html:
    """Todos, questions, plans, search results: their own body; the raw result only on error."""
    waiting = card.approval is not None and card.approval.answer is None
    if waiting and card.name in ASKS_THE_USER:  # the form below shows the questions or the plan
        return join([el("div", "Waiting for your answer below.", style=theme.text(theme.WARN, style(font_size="0.9em")))])
    state = (
        el("div", "Waiting for your answer below.", style=theme.text(theme.WARN, style(font_size="0.9em")))
        if waiting
        else el("div", interaction_render.note(card).strip(" ()"), style=theme.small(theme.MUTED))
    )
    return join([interaction_render.body_html(card), state, _progress_html(card), _result_html(card) if card.status == "error" else None])


def card_html(card: ToolCall, now: float | None = None) -> Html:
    if card.subagent is not None:
        # a stopped parent can leave its subagent's own status behind: the call's wins
        override = "stopped" if card.status == "interrupted" and not card.subagent.finished else None
        return live_subagent_html(card.subagent, status_override=override)
    if interaction_render.handles(card):
        inner = [_header(card, now), _interaction_html(card)]
    else:
        inner = [_header(card, now), _key_input_html(card), _approval_html(card), _progress_html(card), _result_html(card)]
    return el("div", inner, cls="nb-agent-card", style=theme.card(STATUS_TONE.get(card.status, theme.MUTED)))


NOTICE_TONE = {"error": theme.ERROR, "warning": theme.WARN}


def notice_html(level: str, text: str) -> Html:
    # pre-line: a notice's own line breaks show (the trust question's list), spaces still wrap
    return el("div", text, style=theme.text(NOTICE_TONE.get(level, theme.MUTED), style(font_size="0.9em", margin="2px 0", white_space="pre-line")))
