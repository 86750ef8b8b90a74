"""The fake server's prompt cache, through the real SDK over HTTP: prefix reads and writes
at breakpoints, the minimum length, the 20-block lookback, the TTL, the 4-breakpoint limit,
deferred tools."""

from __future__ import annotations

import anthropic
import pytest

from nb_agent.testing import FakeAnthropicServer, Reply, text
from nb_agent.testing.prompt_cache import PromptCacheSimulator, image_tokens, minimum_cacheable_tokens, prompt_blocks

MODEL = "test-model"  # not in the table: caches from 1,024 tokens
LONG = "x" * 8000  # 2,000 tokens
MARK = {"type": "ephemeral"}


def _system(marked: bool = True) -> list[dict]:
    block = {"type": "text", "text": LONG}
    return [{**block, "cache_control": MARK}] if marked else [block]


def _user(content: str, marked: bool = False) -> dict:
    block = {"type": "text", "text": content}
    return {"role": "user", "content": [{**block, "cache_control": MARK} if marked else block]}


async def _usage(server: FakeAnthropicServer, **body) -> anthropic.types.Usage:
    server.script.add(Reply(content=[text("ok")]))
    message = await server.client().messages.create(model=body.pop("model", MODEL), max_tokens=64, **body)
    return message.usage


def _total(body: dict) -> int:
    return sum(b.tokens for b in prompt_blocks(body)[1])


async def test_a_marked_prefix_is_written_once_then_read():
    body = {"system": _system(), "messages": [_user("question one")]}
    async with FakeAnthropicServer(prompt_cache=True) as server:
        first = await _usage(server, **body)
        second = await _usage(server, **body)
        other_question = await _usage(server, system=_system(), messages=[_user("another question")])
    prefix = _total({"system": _system()})
    assert (first.cache_creation_input_tokens, first.cache_read_input_tokens) == (prefix, 0)
    assert (second.cache_creation_input_tokens, second.cache_read_input_tokens) == (0, prefix)
    assert other_question.cache_read_input_tokens == prefix
    assert first.input_tokens + first.cache_creation_input_tokens == _total(body)


async def test_without_markers_or_below_the_minimum_nothing_is_cached():
    async with FakeAnthropicServer(prompt_cache=True) as server:
        for _ in range(2):
            plain = await _usage(server, system=_system(marked=False), messages=[_user("q")])
            assert plain.cache_creation_input_tokens == plain.cache_read_input_tokens == 0
        short = [{"type": "text", "text": "short prompt", "cache_control": MARK}]
        for _ in range(2):
            usage = await _usage(server, system=short, messages=[_user("q")])
            assert usage.cache_creation_input_tokens == usage.cache_read_input_tokens == 0
    assert minimum_cacheable_tokens("claude-opus-4-6") == 4096
    assert minimum_cacheable_tokens("us.anthropic.claude-haiku-4-5-20251001-v1:0") == 4096
    assert minimum_cacheable_tokens("claude-sonnet-4-5@20250929") == 1024


async def test_a_rolling_breakpoint_reads_the_previous_request_within_the_lookback():
    history = [_user(LONG)]
    async with FakeAnthropicServer(prompt_cache=True) as server:
        await _usage(server, messages=[_user(LONG, marked=True)])
        # 10 more blocks: the old write is within 20 blocks of the new breakpoint
        grown = history + [{"role": "assistant", "content": [{"type": "text", "text": f"a{i}"}]} if i % 2 == 0 else _user(f"u{i}") for i in range(9)]
        grown.append(_user("latest", marked=True))
        usage = await _usage(server, messages=grown)
    assert usage.cache_read_input_tokens == _total({"messages": [_user(LONG)]})


async def test_beyond_the_lookback_only_an_explicit_breakpoint_at_the_old_end_reads():
    turns = []
    for i in range(12):  # 24 blocks after the first message
        turns += [{"role": "assistant", "content": [{"type": "text", "text": f"a{i}"}]}, _user(f"u{i}")]
    turns[-1] = _user("u11", marked=True)
    async with FakeAnthropicServer(prompt_cache=True) as server:
        await _usage(server, messages=[_user(LONG, marked=True)])
        missed = await _usage(server, messages=[_user(LONG), *turns])
        assert missed.cache_read_input_tokens == 0
        hit = await _usage(server, messages=[_user(LONG, marked=True), *turns])
        assert hit.cache_read_input_tokens > 0


async def test_entries_expire_after_the_ttl():
    now = [0.0]
    cache = PromptCacheSimulator(clock=lambda: now[0])
    body = {"system": _system(), "messages": [_user("q")]}
    async with FakeAnthropicServer(prompt_cache=cache) as server:
        await _usage(server, **body)
        now[0] = 299.0
        assert (await _usage(server, **body)).cache_read_input_tokens > 0  # a read refreshes the entry
        now[0] = 598.0
        assert (await _usage(server, **body)).cache_read_input_tokens > 0
        now[0] = 1000.0
        expired = await _usage(server, **body)
    assert expired.cache_read_input_tokens == 0 and expired.cache_creation_input_tokens > 0


async def test_more_than_four_breakpoints_is_a_400():
    messages = [_user(f"m{i}", marked=True) if i % 2 == 0 else {"role": "assistant", "content": "ok"} for i in range(9)]
    async with FakeAnthropicServer(prompt_cache=True) as server:
        with pytest.raises(anthropic.BadRequestError, match="A maximum of 4 blocks with cache_control"):
            await server.client().messages.create(model=MODEL, max_tokens=10, system=_system(), messages=messages)
        assert server.requests == []


def _tool(name: str, **extra) -> dict:
    return {"name": name, "description": "d" * 400, "input_schema": {"type": "object"}, **extra}


async def test_a_new_tool_invalidates_the_prefix_but_a_deferred_one_does_not():
    body = {"system": _system(), "messages": [_user("q")]}
    async with FakeAnthropicServer(prompt_cache=True) as server:
        await _usage(server, tools=[_tool("A")], **body)
        added = await _usage(server, tools=[_tool("A"), _tool("B")], **body)
        assert added.cache_read_input_tokens == 0
        await _usage(server, tools=[_tool("A"), _tool("C", defer_loading=True)], **body)
        deferred = await _usage(server, tools=[_tool("A"), _tool("C", defer_loading=True), _tool("D", defer_loading=True)], **body)
        assert deferred.cache_read_input_tokens > 0 and deferred.cache_creation_input_tokens == 0


def test_a_tool_reference_counts_as_the_referenced_definition():
    tools = [_tool("C", defer_loading=True)]
    result = {"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "tool_reference", "tool_name": "C"}]}
    bare = {"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "tool_reference", "tool_name": "Z"}]}
    with_ref = _total({"tools": tools, "messages": [{"role": "user", "content": [result]}]})
    without = _total({"tools": tools, "messages": [{"role": "user", "content": [bare]}]})
    assert with_ref - without > 100


async def test_off_by_default_the_replys_numbers_are_kept():
    async with FakeAnthropicServer() as server:
        server.script.add(Reply(content=[text("ok")], input_tokens=1234, cache_read_input_tokens=7))
        message = await server.client().messages.create(model=MODEL, max_tokens=5, system=_system(), messages=[_user("q")])
    assert (message.usage.input_tokens, message.usage.cache_read_input_tokens) == (1234, 7)


def _png(width: int, height: int, noise: bool = False) -> str:
    import base64
    import io
    import os

    from PIL import Image

    image = Image.frombytes("RGB", (width, height), os.urandom(width * height * 3)) if noise else Image.new("RGB", (width, height), "white")
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def test_images_count_by_their_pixels_not_by_their_base64():
    plain, noisy = _png(600, 400), _png(600, 400, noise=True)
    assert len(noisy) > 50 * len(plain)
    assert image_tokens(plain) == image_tokens(noisy) == 600 * 400 // 750
    assert 1_500 < image_tokens(_png(4000, 3000)) <= 1_150_000 // 750  # the API shrinks it first
    assert image_tokens("not base64 of an image") == 1_150_000 // 750

    def total(image: str) -> int:
        block = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": image}}
        result = {"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "text", "text": "x" * 400}, block]}
        return _total({"messages": [{"role": "user", "content": [result]}]})

    assert total(plain) == total(noisy) < 500
