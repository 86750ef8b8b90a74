"""How the cards of the tools that talk with the user (and search the web) look: the
todo checklist, the questions with their answers, the plan with its decision, search
results as links. Pure functions of a :class:`ToolCall` used by the live card, the
static rendering and the text view; markup is made by :mod:`nb_agent.jupyter.html`.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from nb_agent.jupyter.html import Html, WebUrl, el, join, style, web_url
from nb_agent.jupyter.html import markdown as markdown_html
from nb_agent.jupyter.view import theme

if TYPE_CHECKING:
    from nb_agent.jupyter.view.run_state import ToolCall

HANDLED = frozenset({"TodoWrite", "AskUserQuestion", "ExitPlanMode", "EnterPlanMode", "WebSearch"})
_MARKS = {"completed": "☑", "in_progress": "▶", "pending": "☐"}


def handles(card: ToolCall) -> bool:
    return card.name in HANDLED


def _todos(card: ToolCall) -> list[dict[str, Any]]:
    todos = card.input.get("todos")
    return [t for t in todos if isinstance(t, dict)] if isinstance(todos, list) else []


def _questions(card: ToolCall) -> list[dict[str, Any]]:
    questions = card.input.get("questions")
    return [q for q in questions if isinstance(q, dict)] if isinstance(questions, list) else []


def _structured(card: ToolCall, key: str) -> Any:
    return card.structured.get(key) if isinstance(card.structured, dict) else None


_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>])")


def _search_links(card: ToolCall) -> list[tuple[str, WebUrl | None]]:
    """WebSearch's results as (title, url); the url is None unless it is http(s): results
    come from the web, and anything else (``javascript:``, ``data:``) must not be clickable."""
    links = []
    for link in _structured(card, "links") or []:
        if not isinstance(link, dict):
            continue
        url, title = str(link.get("url", "")), str(link.get("title") or link.get("url", ""))
        links.append((title, web_url(url)))
    return links


def _md_link(title: str, link: WebUrl | None) -> str:
    """A Markdown link whose title cannot end it early; a non-web result as text only."""
    text = _MD_SPECIAL.sub(r"\\\1", title)
    if link is None:
        return text
    url = link.value
    for char, code in ((" ", "%20"), ("(", "%28"), (")", "%29"), ("<", "%3C"), (">", "%3E")):
        url = url.replace(char, code)
    return f"[{text}]({url})"


def _who(card: ToolCall) -> str:
    return "--answer" if card.approval is not None and card.approval.source == "preset" else "you"


def _refusal(card: ToolCall) -> str:
    """The user's feedback when they declined, else the first line of the error."""
    if card.approval is not None and card.approval.answer == "deny":
        return card.approval.feedback
    lines = card.result_text.replace("<tool_use_error>", "").replace("</tool_use_error>", "").strip().splitlines()
    return lines[0] if lines else ""


def preview(card: ToolCall) -> str | None:
    """The card's one-line summary of its input."""
    if card.name == "TodoWrite":
        todos = _todos(card)
        done = sum(1 for t in todos if t.get("status") == "completed")
        return f"{done}/{len(todos)} done"
    if card.name == "AskUserQuestion":
        questions = _questions(card)
        return str(questions[0].get("question", "")) + (f" (+{len(questions) - 1})" if len(questions) > 1 else "") if questions else ""
    if card.name == "ExitPlanMode":
        plan = str(card.input.get("plan", "")).strip().splitlines()
        return plan[0].lstrip("# ") if plan else ""
    if card.name == "EnterPlanMode":
        return "plan first"
    return None


def note(card: ToolCall) -> str:
    """What happened, in words (replaces the generic approval note on these cards)."""
    if card.name == "AskUserQuestion":
        if card.status == "done":
            return f" (answered by {_who(card)})"
        return f" (not answered: {_refusal(card)})" if card.finished and _refusal(card) else ""
    if card.name == "ExitPlanMode":
        mode = _structured(card, "mode")
        if card.status == "done" and mode:
            return f" (approved by {_who(card)}: {mode} mode)"
        if card.status == "denied":
            feedback = card.approval.feedback if card.approval is not None else ""
            return f" (kept planning{', said ' + _who(card) + ': ' + feedback if feedback else ''})"
        return ""
    if card.name == "EnterPlanMode" and card.status == "done":
        return " (plan mode)"
    return ""


# --- Markdown (static) -----------------------------------------------------------------


def markdown(card: ToolCall) -> list[str]:
    """Extra Markdown lines shown under the card's line."""
    if card.name == "TodoWrite":
        return [_todo_md(t) for t in _todos(card)]
    if card.name == "AskUserQuestion":
        answers = _structured(card, "answers") or {}
        return [f"{q.get('question', '')} → **{answers[q.get('question')]}**" if q.get("question") in answers else str(q.get("question", "")) for q in _questions(card)]
    if card.name == "ExitPlanMode":
        return [f"> {line}" if line else ">" for line in str(card.input.get("plan", "")).strip().splitlines()]
    if card.name == "WebSearch":
        return [_md_link(title, url) for title, url in _search_links(card)]
    return []


def _todo_md(todo: dict[str, Any]) -> str:
    status = todo.get("status")
    if status == "completed":
        return f"[x] {todo.get('content', '')}"
    if status == "in_progress":
        return f"[ ] **{todo.get('activeForm') or todo.get('content', '')}** (in progress)"
    return f"[ ] {todo.get('content', '')}"


# --- HTML (live card and static) ---------------------------------------------------------


def body_html(card: ToolCall) -> Html | None:
    """The card's body in place of its raw input/result."""
    if card.name == "TodoWrite":
        return todos_html(_todos(card))
    if card.name == "AskUserQuestion":
        answers = _structured(card, "answers") or {}
        rows = []
        for q in _questions(card):
            answer = answers.get(q.get("question"))
            rows.append(
                el(
                    "div",
                    el("span", str(q.get("header", "")), style=theme.CHIP),
                    " ",
                    str(q.get("question", "")),
                    [" → ", el("b", str(answer))] if answer else None,
                )
            )
        return join(rows)
    if card.name == "ExitPlanMode":
        return el("div", markdown_html(str(card.input.get("plan", ""))), style=theme.BOXED)
    if card.name == "WebSearch":
        items = [el("li", el("a", title, href=url) if url is not None else title) for title, url in _search_links(card)]
        return el("ul", items, style=style(margin="2px 0")) if items else None
    return None


_ROW_STYLE = {
    "in_progress": theme.text(theme.INFO, style(font_weight="bold")),
    "completed": theme.TEXT[theme.MUTED],
}


def todos_html(todos: list[dict[str, Any]]) -> Html:
    """A checklist; the item in progress is highlighted."""
    rows = []
    for todo in todos:
        status = str(todo.get("status", "pending"))
        mark = _MARKS.get(status, "☐")
        if status == "in_progress":
            label: Any = str(todo.get("activeForm") or todo.get("content", ""))
        elif status == "completed":
            label = el("s", str(todo.get("content", "")))
        else:
            label = str(todo.get("content", ""))
        rows.append(el("li", mark, " ", label, style=_ROW_STYLE.get(status)))
    return el("ul", rows, cls="nb-agent-todos", style=style(list_style="none", padding_left="0.5em", margin="2px 0"))
