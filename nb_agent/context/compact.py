"""Compaction (SPEC §4, seed 001 §2.7): replace the history by a model-written summary.

``compact_conversation`` splits the window into an older part, summarized by one model
call, and a recent tail of at most ``keep_recent_tokens`` kept verbatim (never splitting a
tool_use from its result). The result is a :class:`CompactBoundaryMessage` carrying the
summary followed by the kept messages, moved below it: tombstones withdraw the originals
and copies with fresh uuids follow the boundary (``extra_messages``), so the session's
history never holds a tool_use twice. A failed summary raises :class:`CompactionError`
and leaves the history untouched.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any, Literal

from nb_agent.context.compaction import CompactionResult
from nb_agent.context.tokens import estimate_api_messages_tokens, estimate_messages_tokens
from nb_agent.context.tool_results import safe_cut_points
from nb_agent.errors import NbAgentError, PromptTooLongError
from nb_agent.messages import (
    CompactBoundaryMessage,
    ContentBlock,
    TombstoneMessage,
    UserMessage,
    new_uuid,
    normalize_for_api,
)

CompactTrigger = Literal["auto", "manual", "reactive"]

SUMMARY_SYSTEM_PROMPT = "You are a helpful AI assistant tasked with summarizing conversations."
SUMMARY_MAX_OUTPUT_TOKENS = 20_000
MAX_PTL_RETRIES = 3
"""How often a summary request that is itself too long is retried with its oldest part dropped."""
TOOL_TEXT_LIMIT = 4_000
"""Characters of one tool input / result shown to the summarizer."""

COMPACT_PROMPT = """\
Your task is to create a detailed summary of the conversation so far, paying close attention \
to the user's explicit requests and your previous actions. The summary will replace the \
conversation history: it must hold everything needed to continue the work without losing context.

Before the summary, wrap your analysis in <analysis> tags. Go through the conversation in order \
and note, for each part: the user's explicit requests and intent, your approach, key decisions, \
file names, code, notebook variables and kernel state, errors and how they were fixed, and any \
feedback the user gave.

Then write the summary inside <summary> tags, with these sections:
1. Primary Request and Intent: all of the user's explicit requests, in detail.
2. Key Technical Concepts: technologies, libraries and ideas discussed.
3. Files, Code and Notebook State: files read, edited or created and variables that matter, \
with short code snippets where they are essential and why each matters.
4. Errors and Fixes: every error met and how it was fixed, including user feedback.
5. Problem Solving: problems solved and troubleshooting still under way.
6. All User Messages: every message the user wrote (not tool results), verbatim or nearly.
7. Pending Tasks: what you were asked to do and have not done yet.
8. Current Work: precisely what was being worked on immediately before this summary, with file \
names and code.
9. Optional Next Step: the next step, only if it follows directly from the most recent request \
(quote that request); leave it out if the task was finished.

Do not call any tools: answer with text only."""

CONTINUE_INSTRUCTION = (
    "Continue the conversation from where it left off without asking the user any further "
    "questions. Continue with the last task that you were asked to work on."
)
KEPT_NOTE = "The most recent messages follow this summary verbatim."


class CompactionError(NbAgentError):
    """Compaction could not produce a summary; the history was left as it was."""


Summarize = Callable[[dict[str, Any]], Awaitable[str]]
"""Sends one non-streaming summary request body and returns the response text."""


# --- choosing what to keep --------------------------------------------------------------------


def choose_cut(messages: list[Any], keep_recent_tokens: int) -> int:
    """Index where the kept tail starts (``len(messages)`` keeps nothing).

    The tail is the longest that fits ``keep_recent_tokens`` and starts at a safe cut;
    what is summarized always includes something the model said (the first response).
    """
    if keep_recent_tokens <= 0:
        return len(messages)
    said = [i for i, m in enumerate(messages) if m.type == "assistant" and not m.is_api_error_message]
    if not said:
        return len(messages)
    ok = safe_cut_points(messages)
    best = len(messages)
    tail_tokens = 0
    for index in range(len(messages) - 1, said[0], -1):
        tail_tokens += estimate_messages_tokens([messages[index]])
        if tail_tokens > keep_recent_tokens:
            break
        if ok[index]:
            best = index
    return best


# --- the summary request ------------------------------------------------------------------------


def _clip(text: str, limit: int = TOOL_TEXT_LIMIT) -> str:
    return text if len(text) <= limit else f"{text[:limit]}… [{len(text) - limit} more characters]"


def _block_as_text(block: ContentBlock) -> ContentBlock | None:
    """Tool calls, results and media rendered as text: the summary request carries no tools."""
    kind = block.get("type")
    if kind == "text":
        cited = [str(c["url"]) for c in block.get("citations") or [] if isinstance(c, dict) and c.get("url")]
        if not cited:
            return block
        return {"type": "text", "text": f"{block.get('text', '')} [sources: {', '.join(dict.fromkeys(cited))}]"}
    if kind == "web_search_tool_result":
        results = block.get("content")
        if not isinstance(results, list):
            return {"type": "text", "text": f"[Web search failed: {_clip(json.dumps(results, ensure_ascii=False))}]"}
        links = "; ".join(f"{r.get('title', '')} <{r.get('url', '')}>" for r in results if isinstance(r, dict))
        return {"type": "text", "text": f"[Web search results: {_clip(links)}]"}
    if kind in ("thinking", "redacted_thinking"):
        return None
    if kind in ("tool_use", "server_tool_use", "mcp_tool_use"):
        payload = json.dumps(block.get("input", {}), ensure_ascii=False)
        return {"type": "text", "text": f"[Tool call {block.get('name', '')} ({block.get('id', '')}): {_clip(payload)}]"}
    if kind == "tool_result":
        content = block.get("content", "")
        if not isinstance(content, str):
            content = "\n".join(b.get("text", "") if b.get("type") == "text" else f"[{b.get('type')}]" for b in content)
        error = " (error)" if block.get("is_error") else ""
        return {"type": "text", "text": f"[Tool result{error} for {block.get('tool_use_id', '')}: {_clip(content)}]"}
    if kind in ("image", "document"):
        return {"type": "text", "text": f"[{kind}]"}
    return {"type": "text", "text": f"[{kind}]"}


def summary_request_messages(messages: list[Any], instructions: str | None) -> list[dict[str, Any]]:
    """The conversation to summarize as plain-text turns, then the compaction prompt."""
    api = normalize_for_api([*messages, UserMessage(content=compact_prompt(instructions))])
    out: list[dict[str, Any]] = []
    for message in api:
        blocks = [b for b in (_block_as_text(b) for b in message["content"]) if b is not None and b.get("text")]
        if not blocks:
            blocks = [{"type": "text", "text": "(no content)"}]
        if out and out[-1]["role"] == message["role"]:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": message["role"], "content": blocks})
    if out and out[0]["role"] != "user":
        out.insert(0, {"role": "user", "content": [{"type": "text", "text": "(earlier conversation)"}]})
    return out


def _drop_oldest(api_messages: list[dict[str, Any]], fraction: float) -> list[dict[str, Any]]:
    """Drop about ``fraction`` of the turns before the prompt, restarting on a user turn."""
    body, prompt = api_messages[:-1], api_messages[-1]
    drop = max(2, int(len(body) * fraction))
    rest = body[drop:]
    while rest and rest[0]["role"] != "user":
        rest = rest[1:]
    note = {"role": "user", "content": [{"type": "text", "text": "[The earliest part of the conversation was omitted.]"}]}
    if rest:
        rest[0] = {"role": "user", "content": note["content"] + rest[0]["content"]}
        return [*rest, prompt]
    return [{"role": "user", "content": note["content"] + prompt["content"]}]


def fit_summary_request(api_messages: list[dict[str, Any]], max_input_tokens: int) -> list[dict[str, Any]]:
    while estimate_api_messages_tokens(api_messages) > max_input_tokens and len(api_messages) > 1:
        api_messages = _drop_oldest(api_messages, 0.1)
    return api_messages


_SUMMARY_RE = re.compile(r"<summary>(.*?)(?:</summary>|$)", re.DOTALL)
_ANALYSIS_RE = re.compile(r"<analysis>.*?(?:</analysis>|$)", re.DOTALL)


def format_summary(raw: str) -> str:
    """The ``<summary>`` part of the model's answer (the analysis is a scratchpad)."""
    match = _SUMMARY_RE.search(raw)
    text = match.group(1) if match else _ANALYSIS_RE.sub("", raw)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


# --- kept messages --------------------------------------------------------------------------------


def _strip_media(content: Any) -> Any:
    if isinstance(content, str):
        return content
    out = []
    for block in content:
        kind = block.get("type")
        if kind in ("image", "document"):
            out.append({"type": "text", "text": f"[{kind} removed to fit the request]"})
        elif kind == "tool_result" and not isinstance(block.get("content", ""), str):
            out.append({**block, "content": _strip_media(block["content"])})
        else:
            out.append(block)
    return out


def _copy_kept(message: Any, strip_media: bool) -> Any:
    copy = replace(message, uuid=new_uuid())
    if strip_media and message.type in ("user", "assistant"):
        copy = replace(copy, content=_strip_media(copy.content))
    return copy


# --- compaction -------------------------------------------------------------------------------------


ShapedRequest = Callable[[list[Any], str, int], "dict[str, Any] | None"]
"""``(messages, prompt, max_tokens) -> request``: the summary request as the conversation's
own next request (its system blocks, tools and message prefix, then the prompt), which
reads the conversation's prompt cache; None when it would not fit."""


def compact_prompt(instructions: str | None) -> str:
    return COMPACT_PROMPT + (f"\n\nAdditional instructions from the user:\n{instructions}" if instructions else "")


async def _cached_summary(shaped: ShapedRequest | None, summarize: Summarize, messages: list[Any], instructions: str | None, max_tokens: int) -> str:
    """The summary asked over the cached prefix; empty when that is not possible (no shape,
    too long, or the model answered with no text), and the plain request is made instead."""
    request = shaped(messages, compact_prompt(instructions), max_tokens) if shaped is not None else None
    if request is None:
        return ""
    try:
        return format_summary(await summarize(request))
    except PromptTooLongError:
        return ""


async def _plain_summary(
    messages: list[Any], summarize: Summarize, model: str, instructions: str | None, summary_tokens: int, context_window: int
) -> str:
    """The summary of ``messages`` flattened to text, to a plain summarizer prompt; when even
    that is too long, its oldest part is dropped (a few times)."""
    api_messages = fit_summary_request(summary_request_messages(messages, instructions), context_window - summary_tokens - 5_000)
    raw = ""
    for attempt in range(MAX_PTL_RETRIES + 1):
        request = {"model": model, "max_tokens": summary_tokens, "system": SUMMARY_SYSTEM_PROMPT, "messages": api_messages}
        try:
            raw = await summarize(request)
            break
        except PromptTooLongError:
            if attempt == MAX_PTL_RETRIES or len(api_messages) <= 1:
                raise CompactionError("The conversation is too long to summarize, even without its oldest part.") from None
            api_messages = _drop_oldest(api_messages, 0.25)
    summary = format_summary(raw)
    if not summary:
        raise CompactionError("The summary came back empty.")
    return summary


async def compact_conversation(
    messages: list[Any],
    *,
    summarize: Summarize,
    model: str,
    trigger: CompactTrigger,
    pre_tokens: int,
    context_window: int,
    max_output_tokens: int,
    keep_recent_tokens: int,
    instructions: str | None = None,
    strip_media: bool = False,
    shaped: ShapedRequest | None = None,
) -> CompactionResult:
    """Summarize ``messages`` (a window) into a boundary plus a verbatim recent tail.

    With ``shaped``, the summary is first asked as the conversation's own next request
    (reading its prompt cache: seed 003 §3.7); otherwise, or if that fails, as a plain-text
    transcript to a summarizer."""
    cut = choose_cut(messages, keep_recent_tokens)
    to_summarize = messages[:cut]
    kept = [m for m in messages[cut:] if m.type in ("user", "assistant", "attachment")]
    if not any(m.type == "assistant" and not m.is_api_error_message for m in to_summarize):
        raise CompactionError("Not enough messages to compact.")  # nothing the model said yet
    summary_tokens = min(SUMMARY_MAX_OUTPUT_TOKENS, max_output_tokens)
    summary = await _cached_summary(shaped, summarize, to_summarize, instructions, summary_tokens)
    if not summary:
        summary = await _plain_summary(to_summarize, summarize, model, instructions, summary_tokens, context_window)
    notes = [KEPT_NOTE] if kept else []
    if trigger != "manual":
        notes.append(CONTINUE_INSTRUCTION)
    boundary = CompactBoundaryMessage(
        summary="\n\n".join([summary, *notes]),
        trigger=trigger,
        pre_tokens=pre_tokens,
    )
    copies = [_copy_kept(m, strip_media) for m in kept]
    # The kept messages move below the boundary: the originals are withdrawn (so the
    # history never holds a tool_use twice) and re-added as copies with fresh uuids.
    moved = [TombstoneMessage(target_uuid=m.uuid) for m in kept]
    return CompactionResult(messages=[boundary, *copies], boundary=boundary, extra_messages=[*moved, *copies])


__all__ = [
    "COMPACT_PROMPT",
    "CompactTrigger",
    "CompactionError",
    "choose_cut",
    "compact_conversation",
    "fit_summary_request",
    "format_summary",
    "summary_request_messages",
]
