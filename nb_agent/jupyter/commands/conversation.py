"""``%agent new``, ``compact``, ``history``, ``sessions`` and ``resume``: the conversation."""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING

from nb_agent.jupyter.commands.output import preview, print_notices, tokens
from nb_agent.jupyter.heap import release_freed_memory
from nb_agent.jupyter.view.glyphs import TOOL_CALL, TOOL_RESULT
from nb_agent.wording import plural

if TYPE_CHECKING:
    from nb_agent.jupyter.session import KernelAgentSession


async def new(session: KernelAgentSession, _arg: str | None = None) -> None:
    engine = session.ensure_engine()
    print_notices(await engine.start_new_conversation())
    release_freed_memory()  # the old conversation's pages back to the system, not the kernel's high-water mark
    print(f"Started a new conversation (session {engine.session_id}).")


async def compact(session: KernelAgentSession, instructions: str | None) -> None:
    engine = session.ensure_engine()
    entry = getattr(engine, "compact", None)
    if entry is None:
        print("Compaction is not available in this version of nb_agent yet.")
        return
    if not engine.messages:
        print("Nothing to compact: the conversation is empty.")
        return
    from nb_agent.errors import NbAgentError

    before = len(engine.messages)
    try:
        outcome = entry(instructions) if instructions else entry()
        if inspect.isawaitable(outcome):
            outcome = await outcome
    except NbAgentError as exc:
        print(f"Compaction failed; the conversation is unchanged: {exc}")
        return
    print_notices(list(getattr(outcome, "extra_messages", [])))
    boundary = getattr(outcome, "boundary", None)
    pre_tokens = getattr(boundary, "pre_tokens", 0)
    detail = f" (about {tokens(pre_tokens)} tokens before)" if pre_tokens else ""
    print(f"Compacted the conversation of {plural(before, 'message')} into a summary{detail}. The next %%agent cell continues from it.")


def history(session: KernelAgentSession, _arg: str | None = None) -> None:
    engine = session.engine
    if engine is None or not engine.messages:
        print("The conversation is empty.")
        return
    lines = [f"session {engine.session_id}"]
    for message in engine.messages:
        kind = message.type
        if kind == "user" and not message.is_meta:
            if isinstance(message.content, str):
                lines.append(f"you:   {preview(message.content)}")
            else:
                for block in message.content:
                    if block.get("type") == "tool_result":
                        mark = "error" if block.get("is_error") else "ok"
                        lines.append(f"       {TOOL_RESULT} {mark}")
                    elif block.get("type") == "text":
                        lines.append(f"you:   {preview(block.get('text', ''))}")
        elif kind == "assistant" and not message.is_api_error_message:
            for block in message.content:
                if block.get("type") == "text" and block.get("text", "").strip():
                    lines.append(f"agent: {preview(block['text'])}")
                elif block.get("type") == "tool_use":
                    arguments = block.get("input") or {}
                    key = next((str(arguments[k]) for k in ("command", "file_path", "notebook_path", "pattern", "code", "name", "description") if k in arguments), "")
                    lines.append(f"       {TOOL_CALL} {block['name']}({preview(key, 80)})")
        elif kind == "compact_boundary":
            lines.append("── compacted: from here on the model sees this summary instead of the messages above ──")
            lines.append(f"summary: {preview(message.summary, 300)}")
    print("\n".join(lines))


def sessions(session: KernelAgentSession, _arg: str | None = None) -> None:
    from nb_agent.jupyter.saved_sessions import format_time

    found = session.list_sessions()
    if not found:
        print(f"No saved sessions in {session.sessions_dir()}.")
        return
    current = session.engine.session_id if session.engine is not None else None
    lines = [f"saved sessions in {session.sessions_dir()} (newest first):"]
    for info in found:
        mark = "*" if info.session_id == current else " "
        lines.append(f"{mark} {info.session_id}  {format_time(info.modified)}  {plural(info.messages, 'message'):>13}  {preview(info.first_prompt, 60)}")
    lines.append("Continue one with %agent resume ID (a prefix of the id is enough).")
    print("\n".join(lines))


async def resume(session: KernelAgentSession, session_id: str | None) -> None:
    from nb_agent.errors import NbAgentError

    previous = session.engine
    try:
        info, warnings = session.resume(session_id)
    except NbAgentError as exc:
        print(f"Cannot resume: {exc}")
        return
    for warning in warnings:
        print(f"warning: {warning}")
    engine = session.engine
    assert engine is not None
    if previous is not None and previous is not engine:
        print_notices(await previous.end_session("other"))
    print_notices(await engine.session_hooks.start_if_pending())  # SessionStart, source "resume"
    print(f"Resumed session {info.session_id} ({plural(engine.transcript.messages_written, 'message')}). The next %%agent cell continues it.")
