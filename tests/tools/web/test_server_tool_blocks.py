"""A response carrying server-side web search blocks (through the real SDK and the fake
server over HTTP): the blocks and the streamed citations are kept in the messages, sent
back unchanged, written to the transcript, resumed, and rendered as text for compaction."""

from __future__ import annotations

from nb_agent.context.compact import summary_request_messages
from nb_agent.engine import EngineConfig, QueryEngine
from nb_agent.messages import normalize_for_api
from nb_agent.model.transport import AnthropicTransport
from nb_agent.testing import FakeAnthropicServer, Reply, cited_text, server_tool_use, text, web_search_tool_result
from nb_agent.testing.collect import collect

RESULTS = [("Release notes", "https://pandas.example.org/whatsnew")]


def _reply():
    use = server_tool_use("pandas release", id="srvtoolu_01abc")
    return Reply(
        content=[
            text("Let me search."),
            use,
            web_search_tool_result(use["id"], RESULTS),
            cited_text("Copy-on-write is now the default.", [(RESULTS[0][1], RESULTS[0][0], "now the default")]),
        ]
    )


async def test_server_blocks_and_citations_round_trip(tmp_path):
    with FakeAnthropicServer([_reply(), Reply(content=[text("second")])]) as server:
        engine = QueryEngine(config=EngineConfig(cwd=tmp_path), transport=AnthropicTransport(client=server.client()))
        await collect(engine, "search please")
        blocks = [b for m in engine.messages if m.type == "assistant" for b in m.content]
        assert [b["type"] for b in blocks] == ["text", "server_tool_use", "web_search_tool_result", "text"]
        assert blocks[1]["input"] == {"query": "pandas release"}
        assert blocks[3]["citations"] == [
            {"type": "web_search_result_location", "url": RESULTS[0][1], "title": RESULTS[0][0],
             "cited_text": "now the default", "encrypted_index": "idx-0"}
        ]  # fmt: skip
        await collect(engine, "and then?")
        sent = server.requests[1]["messages"][1]["content"]
        assert [b["type"] for b in sent] == ["text", "server_tool_use", "web_search_tool_result", "text"]
        assert sent[3]["citations"][0]["url"] == RESULTS[0][1]
        engine.close()

    resumed, _ = QueryEngine.resume(engine.transcript_path, config=EngineConfig(cwd=tmp_path))
    assert normalize_for_api(resumed.messages)[1] == normalize_for_api(engine.messages)[1]
    summary_input = summary_request_messages(resumed.messages, None)
    flat = "\n".join(b.get("text", "") for m in summary_input for b in m["content"] if isinstance(b, dict))
    assert "https://pandas.example.org/whatsnew" in flat
