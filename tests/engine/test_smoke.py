from nb_agent.testing import Reply, text, tool_use
from nb_agent.testing.collect import collect
from nb_agent.testing.tools import RecordingTool


async def test_text_then_tool_then_answer(make_engine):
    echo = RecordingTool("Echo")
    engine, transport = make_engine(
        [Reply(content=[text("Let me echo."), tool_use("Echo", {"value": "hi"})]), Reply(content=[text("Done: hi")])],
        tools=[echo],
    )
    out = await collect(engine, "echo hi")
    result = out.result
    assert result.subtype == "success", result
    assert result.text == "Done: hi"
    assert [c.value for c in echo.calls] == ["hi"]
    second = transport.script.requests[1]
    last = second["messages"][-1]
    assert last["role"] == "user"
    assert last["content"][0]["type"] == "tool_result"
    assert last["content"][0]["content"] == "Echo: hi"
