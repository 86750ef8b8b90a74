"""Large tool results (SPEC §3): persisted once, a tagged preview in context, Read exempt,
and an unwritable tool-results directory degrades to in-context truncation with a note."""

from __future__ import annotations

from nb_agent.context.tool_result_storage import PERSISTED_OUTPUT_CLOSING_TAG, PERSISTED_OUTPUT_TAG, TOOL_RESULTS_SUBDIR
from nb_agent.testing import Reply, ScriptedTransport, text, tool_use
from nb_agent.testing.collect import collect
from nb_agent.tools.files.read import ReadTool


def _result_content(request: dict, tool_use_id: str):
    for message in request["messages"]:
        for block in message["content"]:
            if block.get("type") == "tool_result" and block["tool_use_id"] == tool_use_id:
                return block["content"]
    raise AssertionError(f"no tool_result for {tool_use_id}")


def _turns(tool_name: str, chars: int, tool_use_id: str = "toolu_big") -> list[Reply]:
    return [Reply(content=[tool_use(tool_name, {"chars": chars, "label": "a"}, id=tool_use_id)]), Reply(content=[text("ok")])]


async def test_preview_names_size_and_path_and_shows_the_first_2000_bytes(make_engine, sized_tool):
    transport = ScriptedTransport(_turns("Fetch", 60_000))
    engine = make_engine(transport, tools=[sized_tool("Fetch")])
    out = await collect(engine, "go")
    assert out.result.subtype == "success"
    content = _result_content(transport.requests[1], "toolu_big")
    path = engine.session_dir / TOOL_RESULTS_SUBDIR / "toolu_big.txt"
    expected_preview = "[a]" + "x" * 1_997
    assert content == (
        f"{PERSISTED_OUTPUT_TAG}\nOutput too large (58.6KB). Full output saved to: {path}\n\n"
        f"Preview (first 2.0KB):\n{expected_preview}\n...\n{PERSISTED_OUTPUT_CLOSING_TAG}"
    )
    assert path.read_text() == "[a]" + "x" * 59_997


async def test_an_existing_file_is_not_overwritten(make_engine, sized_tool):
    transport = ScriptedTransport(_turns("Fetch", 60_000))
    engine = make_engine(transport, tools=[sized_tool("Fetch")])
    results = engine.session_dir / TOOL_RESULTS_SUBDIR
    results.mkdir(parents=True)
    (results / "toolu_big.txt").write_text("persisted by an earlier turn")
    await collect(engine, "go")
    assert (results / "toolu_big.txt").read_text() == "persisted by an earlier turn"
    assert str(results / "toolu_big.txt") in _result_content(transport.requests[1], "toolu_big")


async def test_results_under_the_threshold_stay_in_context(make_engine, sized_tool):
    transport = ScriptedTransport(_turns("Fetch", 49_000))
    engine = make_engine(transport, tools=[sized_tool("Fetch")])
    await collect(engine, "go")
    assert len(_result_content(transport.requests[1], "toolu_big")) == 49_000
    assert not (engine.session_dir / TOOL_RESULTS_SUBDIR).exists()


async def test_read_is_exempt_however_large(make_engine, tmp_path):
    assert ReadTool.max_result_size_chars == float("inf")
    big = tmp_path / "big.txt"
    big.write_text("line of text\n" * 20_000)  # 260,000 characters
    turns = [Reply(content=[tool_use("Read", {"file_path": str(big)}, id="toolu_read")]), Reply(content=[text("ok")])]
    transport = ScriptedTransport(turns)
    engine = make_engine(transport, tools=[ReadTool()])
    out = await collect(engine, "go")
    assert out.result.subtype == "success"
    content = _result_content(transport.requests[1], "toolu_read")
    text_content = content if isinstance(content, str) else "".join(b.get("text", "") for b in content)
    assert PERSISTED_OUTPUT_TAG not in text_content
    assert not (engine.session_dir / TOOL_RESULTS_SUBDIR).exists()


async def test_unwritable_results_directory_truncates_in_context_with_a_note(make_engine, sized_tool):
    transport = ScriptedTransport(_turns("Fetch", 60_000))
    engine = make_engine(transport, tools=[sized_tool("Fetch")])
    engine.session_dir.mkdir(parents=True)
    (engine.session_dir / TOOL_RESULTS_SUBDIR).write_text("a file where the directory should be")
    out = await collect(engine, "go")
    assert out.result.subtype == "success"
    content = _result_content(transport.requests[1], "toolu_big")
    assert PERSISTED_OUTPUT_TAG not in content
    assert "characters truncated: could not persist the full output" in content
    assert content.startswith("[a]xxx") and len(content) < 60_000
