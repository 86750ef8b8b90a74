"""The image window: only the last few images of tool results stay in the conversation;
older ones become one line saying where they are saved; evictions happen at the start of
a cell (the cached prefix is rewritten at most once per cell) or when a request would
carry too many images or bytes; they are sticky across turns and a resume."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from nb_agent.context.config import ContextConfig
from nb_agent.context.images import MAX_IMAGES_IN_REQUEST, ImageRef, choose_evictions, clamp_keep
from nb_agent.engine import QueryEngine
from nb_agent.testing import FakeAnthropicServer, Reply, ScriptedTransport, text, tool_use
from nb_agent.testing.collect import assert_tool_result_invariant, collect
from nb_agent.testing.tools import FunctionTool

MODEL = "claude-sonnet-4-6"


class ChartInput(BaseModel):
    n: int = 0


def _png(n: int) -> str:
    from PIL import Image

    image = Image.new("RGB", (64, 48), (n * 7 % 256, 90, 200))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def _chart_tool(name: str = "ExecuteCode") -> FunctionTool:
    async def draw(inp: ChartInput, ctx: Any) -> list[dict[str, Any]]:
        image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": _png(inp.n)}}
        return [{"type": "text", "text": f"chart {inp.n}"}, image]

    return FunctionTool(name, draw, ChartInput, read_only=True)


def _images(body: dict[str, Any]) -> list[str]:
    """The base64 data of every image in a request, in order."""
    found = []
    for message in body["messages"]:
        for block in message["content"] if isinstance(message["content"], list) else []:
            inner = block.get("content") if block.get("type") == "tool_result" else [block]
            for part in inner if isinstance(inner, list) else []:
                if isinstance(part, dict) and part.get("type") == "image":
                    found.append(part["source"]["data"])
    return found


def _placeholders(body: dict[str, Any]) -> list[str]:
    """The eviction lines of a request, in order."""
    found = []
    for message in body["messages"]:
        for block in message["content"] if isinstance(message["content"], list) else []:
            inner = block.get("content") if block.get("type") == "tool_result" else None
            for part in inner if isinstance(inner, list) else []:
                if part.get("type") == "text" and "removed from the conversation" in part.get("text", ""):
                    found.append(part["text"])
    return found


def _charts(first: int, count: int) -> list[Reply]:
    return [Reply(content=[tool_use("ExecuteCode", {"n": first + i})]) for i in range(count)] + [Reply(content=[text("done")])]


def _engine(make_engine, transport: Any, **context: Any) -> QueryEngine:
    return make_engine(transport, context=ContextConfig(**context), tools=[_chart_tool()])


def test_the_policy():
    refs = [ImageRef(tool_use_id=f"t{i}", images=1, bytes=1_000) for i in range(6)]
    assert choose_evictions(refs, keep=4, byte_budget=10**6, cell_start=False) == []  # within a cell, 6 ≤ 8
    assert choose_evictions(refs, keep=4, byte_budget=10**6, cell_start=True) == ["t0", "t1"]
    many = [ImageRef(tool_use_id=f"t{i}", images=1, bytes=1_000) for i in range(MAX_IMAGES_IN_REQUEST + 1)]
    assert choose_evictions(many, keep=4, byte_budget=10**6, cell_start=False) == ["t0", "t1", "t2", "t3", "t4"]
    heavy = [ImageRef(tool_use_id=f"t{i}", images=1, bytes=400_000) for i in range(3)]
    assert choose_evictions(heavy, keep=4, byte_budget=1_000_000, cell_start=False) == ["t0"]
    huge = [ImageRef(tool_use_id="t0", images=6, bytes=10**7)]
    assert choose_evictions(huge, keep=3, byte_budget=1_000, cell_start=True) == []  # the newest stays
    assert (clamp_keep(1), clamp_keep(5), clamp_keep(30)) == (3, 5, 8)


async def test_thirty_charts_in_one_cell_never_send_more_than_eight_images(make_engine, tmp_path: Path):
    transport = ScriptedTransport(_charts(0, 30))
    engine = _engine(make_engine, transport)
    await collect(engine, "draw thirty charts")
    counts = [len(_images(r)) for r in transport.requests]
    assert max(counts) <= MAX_IMAGES_IN_REQUEST and counts[30] <= MAX_IMAGES_IN_REQUEST
    assert counts[:9] == list(range(9))  # nothing evicted while the window holds 8 or fewer
    last = transport.requests[-1]
    assert _images(last)[-1] == _png(29)  # the newest chart is always there
    for line in _placeholders(last):
        saved = Path(line.split("saved as ")[1].split(": Read")[0])
        assert saved.is_file() and saved.parent == engine.session_dir / "tool-results"
    saved = sorted((engine.session_dir / "tool-results").glob("*-image1.png"))
    assert base64.b64encode(saved[0].read_bytes()).decode() in {_png(i) for i in range(30)}
    for request in transport.requests:
        assert_tool_result_invariant(request["messages"])


def _rewrites(requests: list[dict[str, Any]]) -> int:
    """Requests whose earlier messages differ from the previous request's (cache markers aside)."""

    def plain(message: dict[str, Any]) -> str:
        content = message["content"]
        blocks = [{k: v for k, v in b.items() if k != "cache_control"} for b in content] if isinstance(content, list) else content
        return json.dumps({"role": message["role"], "content": blocks})

    count = 0
    for before, after in zip(requests, requests[1:]):
        old = [plain(m) for m in before["messages"][:-1]]  # the last message may be merged into
        if [plain(m) for m in after["messages"][: len(old)]] != old:
            count += 1
    return count


async def test_one_chart_per_cell_rewrites_the_prefix_at_most_once_per_cell(make_engine):
    transport = ScriptedTransport([])
    engine = _engine(make_engine, transport, keep_images=3)
    cells = 8
    for cell in range(cells):
        transport.script.add(*_charts(cell, 2))
        await collect(engine, f"cell {cell}")
    counts = [len(_images(r)) for r in transport.requests]
    assert max(counts) <= 3 + 2  # keep, plus a cell's own two
    assert 0 < _rewrites(transport.requests) <= cells
    firsts = transport.requests[::3]  # each cell's first request
    assert all(len(_images(r)) <= 3 for r in firsts)


async def test_the_cache_keeps_serving_most_of_a_chart_session(make_engine, tmp_path: Path):
    async with FakeAnthropicServer([], prompt_cache=True) as server:
        from nb_agent.model.transport import AnthropicTransport

        engine = _engine(make_engine, AnthropicTransport(client=server.client()))
        for cell in range(6):
            server.script.add(*_charts(5 * cell, 5))
            result = (await collect(engine, f"cell {cell}: " + "draw the next charts " * 300)).result
            assert result is not None and result.subtype == "success"
    usage = engine.usage.total
    read_share = usage.cache_read_input_tokens / (usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens)
    assert read_share > 0.6, read_share


async def test_evictions_are_sticky_across_a_resume(make_engine, tmp_path: Path):
    transport = ScriptedTransport(_charts(0, 12))
    engine = _engine(make_engine, transport)
    await collect(engine, "draw")
    before = transport.requests[-1]
    engine.close()
    entries = [json.loads(line) for line in engine.transcript_path.read_text().splitlines()]
    evicted = {k: v for e in entries if e["kind"] == "image_window" for k, v in e["evicted"].items()}
    assert evicted and all("removed from the conversation" in line for line in evicted.values())

    resumed_transport = ScriptedTransport([Reply(content=[text("again")])])
    resumed, _ = QueryEngine.resume(
        engine.transcript_path, config=engine.config, transport=resumed_transport, tools=[_chart_tool()]
    )
    await collect(resumed, "and now?")
    after = resumed_transport.requests[0]
    assert _placeholders(after)[: len(_placeholders(before))] == _placeholders(before)
    assert len(_images(after)) <= 4  # the new cell evicts down to keep


async def test_off_keeps_every_image(make_engine):
    transport = ScriptedTransport(_charts(0, 12))
    engine = _engine(make_engine, transport, image_window=False)
    await collect(engine, "draw")
    assert len(_images(transport.requests[-1])) == 12
