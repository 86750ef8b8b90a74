"""The final, static form of a run: Markdown, HTML and plain text, no widgets.

It replaces the live view when the run ends (same display id), so a saved or
nbconvert-rendered notebook shows it. It holds no timings or ids but in its last line, the
run's summary (model, tokens, cost, time: ``notebooks/sanitize.cfg`` knows its shape), so
re-executing a notebook with the same answers gives the same output.
"""

from __future__ import annotations

import re
from typing import Any

from nb_agent.jupyter.html import Html, el, markdown, markdown_source, style
from nb_agent.jupyter.view import interaction_render, theme
from nb_agent.jupyter.view.change_render import MAX_STATIC_LINES, change_html, change_text
from nb_agent.jupyter.view.glyphs import STATUS_ICONS, STOP
from nb_agent.jupyter.view.run_state import Notice, RunState, TextBlock, ToolCall, input_preview
from nb_agent.jupyter.view.subagent_card import static_html, static_markdown, static_plain, static_summary
from nb_agent.jupyter.view.tool_card import NOTICE_TONE, card_change, images_html
from nb_agent.tools.files.change_preview import ChangePreview

MAX_RESULT_PREVIEW_CHARS = 2_000
MAX_STATIC_IMAGES = 4
MAX_STATIC_IMAGE_CHARS = 700_000
INTERRUPTED_NOTICE = "Interrupted by user. The transcript was saved; the next cell continues the conversation."
PRESET_USED_UP = "no --answer left for this request"
"""The feedback a pre-answered denial carries when the list ran out (see ``preset_answers``)."""


def stop_notice(state: RunState) -> str:
    """Why an interrupted run stopped: the user's Stop unless something else is known."""
    return state.stop_reason or INTERRUPTED_NOTICE


def approval_note(card: ToolCall) -> str:
    """How the card's permission request was answered, e.g. `` (allowed by you)``."""
    approval = card.approval
    if approval is None or approval.answer is None:
        return ""
    answer, feedback, rule = approval.answer, approval.feedback, approval.suggested_rule
    if approval.source == "preset":
        if answer == "deny" and feedback == PRESET_USED_UP:
            return " (permission asked · no --answer left, so denied)"
        said = {"allow": "allow", "always_allow": "always allow", "deny": "deny"}[answer]
        detail = ""
        if answer == "always_allow" and rule:
            detail = f", adds `{rule}`"
        elif answer == "deny" and feedback:
            detail = f": {feedback}"
        return f" (permission asked · answered “{said}” by --answer{detail})"
    if answer == "allow":
        return " (allowed by you)"
    if answer == "always_allow":
        return f" (always allowed: `{rule}`)" if rule else " (always allowed)"
    return f" (denied by you: {feedback})" if feedback else " (denied by you)"


_TOOL_ERROR_TAGS = re.compile(r"</?tool_use_error>")
MAX_REASON_CHARS = 200


def outcome_note(card: ToolCall) -> str:
    """Why a call was denied or failed (the first line of its result), unless the user's
    or ``--answer``'s decision already says it."""
    if card.status not in ("denied", "error") or (card.approval is not None and card.approval.answer is not None):
        return ""
    lines = _TOOL_ERROR_TAGS.sub("", card.result_text).strip().splitlines()
    if not lines:
        return ""
    reason = lines[0] if len(lines[0]) <= MAX_REASON_CHARS else lines[0][: MAX_REASON_CHARS - 1] + "…"
    return f": {reason}"


def _asked_by(card: ToolCall) -> str:
    return f" (asked by the {card.agent})" if card.agent else ""


def _notes(card: ToolCall) -> str:
    if interaction_render.handles(card):
        return _asked_by(card) + (interaction_render.note(card) or outcome_note(card))
    return _asked_by(card) + approval_note(card) + outcome_note(card)


def superseded_todos(state: RunState) -> set[int]:
    """The TodoWrite calls whose list a later one of the same agent replaced: the saved
    rendering keeps their one line, and only the latest list as a checklist."""
    latest: dict[str | None, ToolCall] = {}
    superseded: set[int] = set()
    for item in state.items:
        if isinstance(item, ToolCall) and item.name == "TodoWrite" and item.status == "done":
            if item.agent in latest:
                superseded.add(latest[item.agent].key)
            latest[item.agent] = item
    return superseded


DESCRIBED_TOOLS = frozenset({"Bash", "ExecuteCode"})
"""Tools whose input has the model's ``description`` of the call: the saved line says it."""


def _description(card: ToolCall) -> str | None:
    text = card.input.get("description") if card.name in DESCRIBED_TOOLS else None
    return " ".join(text.split()) if isinstance(text, str) and text.strip() else None


def _arg(card: ToolCall) -> str:
    """What the saved line says the call did: the model's description (with a command, the
    command too: it is what ran), else the key input."""
    preview = input_preview(card, limit=120).replace("`", "'")
    description = _description(card)
    if description is None:
        return f" `{preview}`" if preview else ""
    return f" {description}" + (f" (`{preview}`)" if preview and card.name != "ExecuteCode" else "")


def _tool_line(card: ToolCall, *, brief: bool = False) -> str:
    if card.subagent is not None:
        return f"{STATUS_ICONS.get(card.status, '•')} **Agent** {static_summary(card.subagent)}"
    arg = _arg(card)
    line = f"{STATUS_ICONS.get(card.status, '•')} **{card.name}**{arg} — {card.status}{_notes(card)}"
    extra = [] if brief else interaction_render.markdown(card)
    items = "".join(f"\n  - {item}" for item in extra if not item.startswith(">"))
    quoted = "\n".join(f"  {item}" for item in extra if item.startswith(">"))  # the plan, as one quote
    return line + items + (f"\n\n{quoted}" if quoted else "")


LIVE_ONLY_NOTICES = frozenset({"tool_use_summary", "hook_timing"})
"""Notices the live view shows and the saved rendering leaves out: a summary the cards
already say, and how long hooks took on this machine this time (not what the run did)."""


def _saved(state: RunState, notice: Notice) -> bool:
    """Whether the saved rendering keeps ``notice`` (not a live-only one, nor the run's error
    that the cell's error line says)."""
    return notice.subtype not in LIVE_ONLY_NOTICES and not state.said_at_the_end(notice)


def _stop_line(state: RunState) -> str | None:
    """The stop notice, unless the cell's error line says it (the user's Stop does; a kernel
    restart leaves no error line)."""
    return f"{STOP} {stop_notice(state)}" if state.interrupted and state.said_by_cell is None else None


def _notice_prefix(notice: Notice) -> str:
    return {"error": "**Error:** ", "warning": "**Warning:** "}.get(notice.level, "")


def _saved_change(card: ToolCall) -> ChangePreview | None:
    """The change a saved rendering shows: that of a call the user was asked about (what
    they approved, or refused); an edit made without asking keeps its one line."""
    return card_change(card) if card.change is not None and card.subagent is None else None


def _change_markdown(card: ToolCall) -> str:
    """The card's change as a fenced ``diff`` block under its list item (a fence longer than
    any run of backticks in it, so nothing in the diff ends it)."""
    change = _saved_change(card)
    if change is None:
        return ""
    shown = change_text(change)
    fence = "`" * max(3, 1 + max((len(run) for run in re.findall(r"`+", shown)), default=0))
    return "\n" + "\n".join(f"  {row}" for row in [f"{fence}diff", *shown.splitlines(), fence])


def render_markdown_text(state: RunState) -> str:
    """The run as Markdown: answer text in order, tool calls as a compact list, notices."""
    parts: list[str] = []
    tools: list[str] = []
    superseded = superseded_todos(state)

    def flush_tools() -> None:
        if tools:
            parts.append("\n".join(f"- {line}" for line in tools))
            tools.clear()

    for item in state.items:
        if isinstance(item, ToolCall):
            nested = static_markdown(item.subagent) if item.subagent is not None else _change_markdown(item)
            tools.append(_tool_line(item, brief=item.key in superseded) + (f"\n{nested}" if nested else ""))
            continue
        if isinstance(item, TextBlock):
            if item.kind != "text" or not item.text.strip():
                continue
            flush_tools()
            parts.append(item.text.strip("\n"))
        elif isinstance(item, Notice) and _saved(state, item):
            flush_tools()
            quoted = "\n".join(f"> {line}" if line else ">" for line in f"{_notice_prefix(item)}{item.text}".splitlines())
            parts.append(quoted)
    flush_tools()
    if (stop := _stop_line(state)) is not None:
        parts.append(f"> {stop}")
    if state.summary:
        parts.append(f"*{state.summary.replace('$', chr(92) + '$')}*")  # no $ … $ math
    return "\n\n".join(parts) if parts else "_(no answer)_"


WHOLE_RESULT_COMMAND = "%agent result"
"""Prints a call's whole result (``jupyter/commands/results.py``): the cut result names it."""


def _result_details(card: ToolCall) -> Html | None:
    text = card.result_text
    if len(text) > MAX_RESULT_PREVIEW_CHARS:
        more = len(card.result_text) - MAX_RESULT_PREVIEW_CHARS
        text = text[:MAX_RESULT_PREVIEW_CHARS] + f"\n… ({more:,} more characters: {WHOLE_RESULT_COMMAND} {card.tool_use_id} shows them all)"
    if not text.strip():
        return None
    return el("details", el("summary", "result"), el("pre", text, style=style(white_space="pre-wrap", max_height="20em", overflow="auto")))


def _tool_class(card: ToolCall) -> str:
    return f"nb-agent-tool nb-agent-{card.status.replace(' ', '-')}"


def _card_html(card: ToolCall, images_left: list[int], *, brief: bool = False) -> Html:
    if interaction_render.handles(card):
        preview = input_preview(card, limit=120)
        line = f"{STATUS_ICONS.get(card.status, '•')} {card.name} {preview} — {card.status}{_notes(card)}".replace("`", "")
        body = None if brief else interaction_render.body_html(card)
        return el("li", line, body, _result_details(card) if card.status == "error" else None, cls=_tool_class(card))
    line = _tool_line(card).replace("**", "").replace("`", "")
    change = _saved_change(card)
    if change is not None:
        body = change_html(change, max_lines=MAX_STATIC_LINES)
    else:
        body = static_html(card.subagent) if card.subagent is not None else _result_details(card)
    images = [image for image in card.result_images if len(image[1]) <= MAX_STATIC_IMAGE_CHARS][: max(images_left[0], 0)]
    pictures = images_html(images, len(images))
    images_left[0] -= len(pictures)
    return el("li", line, body, pictures, cls=_tool_class(card))


def render_html(state: RunState) -> Html:
    parts: list[Html] = []
    tools: list[Html] = []
    images_left = [MAX_STATIC_IMAGES]
    superseded = superseded_todos(state)

    def flush_tools() -> None:
        if tools:
            parts.append(el("ul", tools, cls="nb-agent-tools", style=style(list_style="none", padding_left="0.5em")))
            tools.clear()

    for item in state.items:
        if isinstance(item, ToolCall):
            tools.append(_card_html(item, images_left, brief=item.key in superseded))
        elif isinstance(item, TextBlock):
            if item.kind != "text" or not item.text.strip():
                continue
            flush_tools()
            parts.append(markdown(item.text))
        elif isinstance(item, Notice) and _saved(state, item):
            flush_tools()
            parts.append(el("p", item.text, style=theme.text(NOTICE_TONE.get(item.level, theme.MUTED), style(white_space="pre-wrap"))))
    flush_tools()
    if (stop := _stop_line(state)) is not None:
        parts.append(el("p", stop, style=theme.TEXT[theme.ERROR]))
    if state.summary:
        parts.append(el("p", state.summary, cls="nb-agent-summary", style=theme.small(theme.MUTED)))
    return el("div", parts or el("p", el("em", "(no answer)")), cls="nb-agent-result")


def render_plain(state: RunState) -> str:
    lines: list[str] = []
    superseded = superseded_todos(state)
    for item in state.items:
        if isinstance(item, TextBlock) and item.kind == "text" and item.text.strip():
            lines.append(item.text.strip("\n"))
        elif isinstance(item, ToolCall):
            preview = input_preview(item, limit=120)
            if item.subagent is not None:
                nested = static_plain(item.subagent)
                lines.append(f"{STATUS_ICONS.get(item.status, '*')} Agent {static_summary(item.subagent)}" + (f"\n{nested}" if nested else ""))
                continue
            note = _notes(item).replace("`", "")
            brief = item.key in superseded
            extra = "".join(f"\n    {line.replace('**', '')}" for line in ([] if brief else interaction_render.markdown(item)))
            if (change := _saved_change(item)) is not None:
                extra += "".join(f"\n    {line}" for line in change_text(change).splitlines())
            said = f": {_arg(item).strip().replace('`', '')}" if _description(item) else f"({preview})"
            lines.append(f"{STATUS_ICONS.get(item.status, '*')} {item.name}{said} — {item.status}{note}{extra}")
        elif isinstance(item, Notice) and _saved(state, item):
            lines.append(f"[{item.level}] {item.text}")
    if (stop := _stop_line(state)) is not None:
        lines.append(stop)
    if state.summary:
        lines.append(state.summary)
    return "\n\n".join(lines) or "(no answer)"


def static_bundle(state: RunState) -> dict[str, Any]:
    """The MIME bundle that replaces the live view."""
    return {
        "text/html": render_html(state),
        "text/markdown": markdown_source(render_markdown_text(state)),
        "text/plain": render_plain(state),
    }
