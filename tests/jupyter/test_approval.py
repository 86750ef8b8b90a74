"""Approving tool calls with the card's buttons, clicked through the widget comm protocol."""

from __future__ import annotations

import json
import time

from nb_agent.jupyter.errors import AgentInterrupted
from nb_agent.testing import Reply, text, tool_use

from .conftest import STOP_WITHIN_S


def _is_waiting_card(state):
    value = str(state.get("value", ""))
    return "nb-agent-card" in value and "waiting for approval" in value


def _wait_for_button(kernel, execution, description="Allow"):
    """Wait until the approval row is complete and its card is on screen."""
    kernel.wait_for(
        execution,
        lambda: kernel.button(description) is not None
        and kernel.widgets.find(_model_name="TextModel", disabled=False)
        and any(_is_waiting_card(s) for s in kernel.widgets.states.values()),
    )
    return kernel.button(description)


def _transcript_entries(kernel, kind):
    entries = []
    for path in (kernel.cwd / ".nb_agent" / "sessions").glob("*.jsonl"):
        for line in path.read_text().splitlines():
            entry = json.loads(line)
            if entry.get("kind") == kind:
                entries.append(entry)
    return entries


def test_allow_runs_the_tool_and_records_the_answer(kernel, requests_since):
    kernel.server.script.add(
        Reply(content=[tool_use("Bash", {"command": "touch allowed_file.txt"}, id="toolu_allow_1")]),
        Reply(content=[text("Created it.")]),
    )
    run = kernel.start("%%agent\nmake a file")
    allow = _wait_for_button(kernel, run)
    # the card shows all three buttons, the rule "Always allow" would add, and a feedback box
    states = kernel.widgets.states
    assert kernel.button("Always allow") and kernel.button("Deny")
    assert any("Bash(touch:*)" in str(s.get("value", "")) for s in states.values() if s.get("_model_name") == "HTMLModel")
    assert kernel.widgets.find(_model_name="TextModel")
    assert any("touch allowed_file.txt" in str(s.get("value", "")) for s in states.values())
    kernel.click(allow)
    kernel.wait(run)
    assert run.status == "ok", run.errors
    assert (kernel.cwd / "allowed_file.txt").exists()
    # the buttons were disabled, the card says who allowed it, the transcript records it
    assert kernel.widgets.state_of(allow).get("disabled") is True
    assert kernel.widgets.ever(lambda s: "Allowed by you" in str(s.get("value", "")))
    assert any(e["tool_use_id"] == "toolu_allow_1" and e["decision"] == "allow" for e in _transcript_entries(kernel, "permission_decision"))
    assert "done" in run.final_bundle["text/markdown"]


def test_always_allow_adds_the_rule_and_stops_asking(kernel):
    kernel.server.script.add(
        Reply(content=[tool_use("Bash", {"command": "touch always_a.txt"})]),
        Reply(content=[tool_use("Bash", {"command": "touch always_b.txt"})]),
        Reply(content=[text("Both made.")]),
    )
    run = kernel.start("%%agent\nmake two files")
    kernel.click(_wait_for_button(kernel, run, "Always allow"))
    kernel.wait(run)
    assert run.status == "ok", run.errors
    assert (kernel.cwd / "always_a.txt").exists() and (kernel.cwd / "always_b.txt").exists()
    allow_buttons = [m for m in run.of_type("comm_open") if m["content"]["data"]["state"].get("description") == "Allow"]
    assert len(allow_buttons) == 1, "the second touch asked again"
    assert "Bash(touch:*)" in run.final_bundle["text/markdown"]
    status = kernel.run("%agent status")
    assert "allow Bash(touch:*)" in status.stdout


def test_always_allow_on_execute_code_stops_asking(kernel):
    kernel.server.script.add(
        Reply(content=[tool_use("ExecuteCode", {"code": "approved_x = 1"})]),
        Reply(content=[tool_use("ExecuteCode", {"code": "approved_y = approved_x + 1"})]),
        Reply(content=[text("done")]),
    )
    run = kernel.start("%%agent\nset two variables")
    kernel.click(_wait_for_button(kernel, run, "Always allow"))
    kernel.wait(run)
    assert run.status == "ok", run.errors
    assert kernel.run("print(approved_y)").stdout.strip() == "2"


def test_deny_with_feedback_reaches_the_model(kernel, requests_since, helpers):
    kernel.server.script.add(
        Reply(content=[tool_use("Bash", {"command": "rm -rf important_dir"})]),
        Reply(content=[text("Understood, I will not delete it.")]),
    )
    run = kernel.start("%%agent\nclean up")
    deny = _wait_for_button(kernel, run, "Deny")
    (feedback_box,) = kernel.widgets.find(_model_name="TextModel", disabled=False)
    kernel.set_value(feedback_box, "keep important_dir, it holds my data")
    time.sleep(0.2)
    kernel.click(deny)
    kernel.wait(run)
    assert run.status == "ok", run.errors
    last = helpers.last_user_text(requests_since()[-1])
    assert "keep important_dir, it holds my data" in last
    assert "denied" in run.final_bundle["text/markdown"]
    assert kernel.widgets.ever(lambda s: "Denied by you. Feedback: keep important_dir" in str(s.get("value", "")))


def test_interrupt_while_waiting_for_approval(kernel, requests_since):
    kernel.server.script.add(
        Reply(content=[tool_use("Bash", {"command": "mkdir never_made_dir"})]),
        Reply(content=[text("after the interrupt")]),
    )
    run = kernel.start("%%agent\nmake a file, slowly")
    _wait_for_button(kernel, run)
    interrupted_at = time.monotonic()
    kernel.interrupt()
    kernel.wait(run)
    assert run.ended - interrupted_at < STOP_WITHIN_S  # an approval never answered waits forever: any bound tells "stopped" from "hung"
    assert run.status == "error"
    assert run.errors[0]["ename"] == "AgentInterrupted"
    assert run.errors[0]["traceback"] == [AgentInterrupted.NOTICE]  # a notice, not a traceback
    assert not (kernel.cwd / "never_made_dir").exists()
    assert "Bash** `mkdir never_made_dir` — interrupted" in run.final_bundle["text/markdown"]  # the call's own status
    run.assert_ending_said_once("Agent run interrupted")
    for mime, shown in run.final_bundle.items():  # nor in other words (it said "⏹ Interrupted by user. The transcript…")
        assert "transcript" not in shown.lower(), (mime, shown)
    # the next cell runs normally and the model saw the interrupted tool call answered
    after = kernel.run("%%agent\ncontinue")
    assert after.status == "ok", after.errors
    assert "Interrupted by user" in json.dumps(requests_since()[-1]["messages"])
