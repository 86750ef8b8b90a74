"""A subagent's TodoWrite keeps its own list: the main conversation's list (shown in the
status line, ``%agent todos``) is not replaced by it."""

from __future__ import annotations

from nb_agent.testing import Reply, text, tool_use
from nb_agent.testing.collect import collect
from nb_agent.tools.interaction import TodoWriteTool
from nb_agent.tools.interaction.todos import current_todos

MAIN = [{"content": "Plan the analysis", "status": "in_progress", "activeForm": "Planning the analysis"}]
SUB = [{"content": "List the files", "status": "in_progress", "activeForm": "Listing the files"}]


async def test_a_subagents_todos_do_not_replace_the_main_list(make_agent_engine):
    engine, script = make_agent_engine(
        {
            "": [
                Reply(content=[tool_use("TodoWrite", {"todos": MAIN})]),
                Reply(content=[tool_use("Agent", {"description": "look", "prompt": "[sub] list files", "subagent_type": "general-purpose"})]),
                Reply(content=[text("done")]),
            ],
            "[sub]": [Reply(content=[tool_use("TodoWrite", {"todos": SUB})]), Reply(content=[text("two files")])],
        },
        tools=[TodoWriteTool()],
    )
    out = await collect(engine, "analyse")
    assert out.result.subtype == "success", out.result
    script.assert_exhausted()
    assert [t.content for t in current_todos(engine.tool_session)] == ["Plan the analysis"]
    [agent_id] = engine.tool_session.resources.subagents.runs
    assert [t.content for t in current_todos(engine.tool_session, agent_id)] == ["List the files"]
