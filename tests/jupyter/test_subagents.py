"""Subagents in a real kernel: the subagent's card inside its Agent call, an approval asked
by a subagent (clicked through the widget comm protocol), a background agent whose card
keeps updating after its cell ended, and the ``%agent`` commands."""

from __future__ import annotations

import json

from nb_agent.testing import Reply, held_at_end, text, tool_use
from nb_agent.testing.routing import RoutedScript


def agent_call(prompt: str, *, kind: str = "general-purpose", description: str = "list files", **extra):
    return tool_use("Agent", {"description": description, "prompt": prompt, "subagent_type": kind, **extra})


def html_values(kernel, run=None) -> list[str]:
    """Every HTML value a widget had: the current ones, and (given the run) each update sent."""
    states = [*kernel.widgets.states.values(), *kernel.widgets.closed.values()]
    values = [str(s.get("value", "")) for s in states if s.get("_model_name") == "HTMLModel"]
    for message in run.comm_messages if run is not None else []:
        data = message["content"].get("data", {})
        value = (data.get("state") or {}).get("value")
        if isinstance(value, str):
            values.append(value)
    return values


def test_the_subagent_card_lives_inside_the_agent_call(kernel):
    (kernel.cwd / "a.csv").write_text("x\n1\n")
    # the subagent's first reply waits, before its end, for the running card; the agent's
    # answer after the subagent's, for the card of the finished subagent
    globbing = held_at_end(Reply(content=[tool_use("Glob", {"pattern": "*.csv"})]))
    answering = held_at_end(Reply(content=[text("There is one CSV file.")]))
    kernel.server.script.add(
        Reply(content=[agent_call("find the csv files", kind="Explore")]),
        globbing,
        Reply(content=[text("Found **a.csv**.")]),
        answering,
    )
    run = kernel.start("%%agent\nwhat csv files are there?")

    def cards() -> list[str]:
        return [v for v in html_values(kernel, run) if "nb-agent-subagent" in v]

    try:
        kernel.wait_for(run, lambda: any("Explore" in v and "running" in v for v in cards()))
        globbing.release.set()
        kernel.wait_for(run, lambda: any("1 tool call" in v and "Glob *.csv — done" in v and "a.csv" in v for v in cards()))
    finally:
        globbing.release.set()
        answering.release.set()
    kernel.wait(run)
    assert run.status == "ok", run.errors
    markdown = run.final_bundle["text/markdown"]
    assert "**Agent** Explore “list files” — done (1 tool call)" in markdown
    assert "  - ✓ Glob *.csv — done" in markdown and "  > Found **a.csv**." in markdown
    assert "There is one CSV file." in markdown
    assert "Explore “list files” — done (1 tool call)" in run.final_bundle["text/plain"]


def test_an_approval_asked_by_a_subagent_names_it_and_is_clicked(kernel):
    kernel.server.script.add(
        Reply(content=[agent_call("make a marker file", description="make marker")]),
        Reply(content=[tool_use("Bash", {"command": "touch sub_marker.txt"}, id="toolu_sub_touch")]),
        Reply(content=[text("Made sub_marker.txt.")]),
        Reply(content=[text("The subagent made it.")]),
    )
    run = kernel.start("%%agent\nmake the marker")
    kernel.wait_for(
        run,
        lambda: kernel.button("Allow") is not None
        and any("asked by the general-purpose agent “make marker”" in v and "waiting for approval" in v for v in html_values(kernel)),
    )
    kernel.click(kernel.button("Allow"))
    kernel.wait(run)
    assert run.status == "ok", run.errors
    assert (kernel.cwd / "sub_marker.txt").exists()
    markdown = run.final_bundle["text/markdown"]
    assert "touch sub_marker.txt` — done (asked by the general-purpose agent “make marker”) (allowed by you)" in markdown
    assert "**Agent** general-purpose “make marker” — done (1 tool call)" in markdown


def test_background_agent_card_updates_after_the_cell_and_reports_next_time(kernel, monkeypatch):
    # the background agent and the main one call the model side by side: their turns are
    # routed by the subagent's prompt, not taken from one queue in an order nobody controls
    script = RoutedScript({
        "": [
            Reply(content=[agent_call("[bg] count lines slowly", description="count lines", run_in_background=True)]),
            Reply(content=[text("Started a background agent.")]),
        ],
        # its answer is held until the test has seen it running after the cell
        "[bg]": [Reply(content=[tool_use("Bash", {"command": "echo 3"})]), answer := held_at_end(Reply(content=[text("There are 3 lines.")]))],
    })  # fmt: skip
    monkeypatch.setattr(kernel.server, "script", script)
    run = kernel.run("%%agent\ncount in the background")
    assert run.status == "ok", run.errors
    assert "running in the background" in run.final_bundle["text/markdown"]
    tasks = kernel.run("%agent tasks")
    assert "running" in tasks.stdout and "background" in tasks.stdout and "count lines" in tasks.stdout
    answer.release.set()
    # the card keeps updating (same display id) after the cell ended, until the agent is done
    kernel.wait_for(run, lambda: any("There are 3 lines." in json.dumps(m["content"]) for m in run.of_type("update_display_data")))
    final = [m for m in run.of_type("update_display_data") if "There are 3 lines." in json.dumps(m["content"])][-1]
    assert "Background agent general-purpose “count lines” — done (1 tool call)" in final["content"]["data"]["text/plain"]
    script.add(Reply(content=[text("Noted: 3 lines.")]))
    follow = kernel.run("%%agent\nanything new?")
    assert follow.status == "ok", follow.errors
    last = json.dumps(script.requests_by_route[""][-1]["messages"])
    assert "<task-notification>" in last and "There are 3 lines." in last
    assert "Its final message was passed to the agent." in follow.final_bundle["text/markdown"]
    done = kernel.run("%agent tasks")
    assert "completed" in done.stdout


def test_agent_commands(kernel):
    agents_dir = kernel.cwd / ".claude" / "agents"
    listing = kernel.run("%agent agents")
    assert "Explore" in listing.stdout and "general-purpose" in listing.stdout and "Plan" in listing.stdout
    stop = kernel.run("%agent stop nothing-like-this")
    assert "Cannot stop" in stop.stdout and "No subagent" in stop.stdout
    missing = kernel.run("%agent stop")
    assert "usage" in missing.stdout.lower() or "ID" in missing.stdout
    assert not agents_dir.exists()
