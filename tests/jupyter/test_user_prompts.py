"""The agent's questions, plans and todos in a real kernel: option and plan buttons clicked
through the widget comm protocol, headless answers, Stop while a question waits."""

from __future__ import annotations

import json
import time

from nb_agent.testing import Reply, held_at_end, text, tool_use

QUESTION = {
    "question": "Which metric should the analysis use?",
    "header": "Metric",
    "options": [
        {"label": "Median revenue", "description": "Robust to outliers"},
        {"label": "Mean revenue", "description": "Sensitive to big orders"},
    ],
    "multiSelect": False,
}
CHARTS = {
    "question": "Which charts do you want?",
    "header": "Charts",
    "options": [{"label": "Line", "description": "per month"}, {"label": "Bar", "description": "per region"}, {"label": "Box", "description": "spread"}],
    "multiSelect": True,
}
PLAN = "## Plan\n1. Load sales.csv\n2. Compute the median per month\n3. Write report.md"
TODOS = [
    {"content": "Load the data", "status": "completed", "activeForm": "Loading the data"},
    {"content": "Pick the metric", "status": "in_progress", "activeForm": "Picking the metric"},
    {"content": "Draw the chart", "status": "pending", "activeForm": "Drawing the chart"},
]


def _wait_button(kernel, run, description):
    """Wait until the whole form is on screen (its last widgets included), then the button."""
    kernel.wait_for(
        run,
        lambda: kernel.button(description) is not None
        and (kernel.button("Skip") is not None or kernel.button("Keep planning") is not None)
        and any("waiting for you" in str(s.get("value", "")) for s in kernel.widgets.states.values()),
    )
    return kernel.button(description)


def _status_lines(kernel, since: int) -> list[str]:
    """Every value a status line took since ``since`` (an index into the tracker's values)."""
    return [v for v in kernel.widgets.values[since:] if "nb-agent-status" in v]


def _tool_result_text(request) -> str:
    return json.dumps(request["messages"][-1]["content"])


def test_an_option_button_answers_the_question(kernel, requests_since):
    kernel.server.script.add(
        Reply(content=[tool_use("AskUserQuestion", {"questions": [QUESTION]})]),
        Reply(content=[text("Median it is.")]),
    )
    run = kernel.start("%%agent\nanalyse revenue")
    median = _wait_button(kernel, run, "Median revenue")
    assert kernel.button("Mean revenue") and kernel.button("Submit answers") and kernel.button("Skip")
    assert kernel.widgets.ever(lambda s: "Robust to outliers" in str(s.get("value", "")))
    kernel.click(median)
    kernel.wait_for(run, lambda: kernel.widgets.state_of(median).get("button_style") == "info")  # shown as chosen
    kernel.click(kernel.button("Submit answers"))
    kernel.wait(run)
    assert run.status == "ok", run.errors
    sent = _tool_result_text(requests_since()[-1])
    assert '\\"Which metric should the analysis use?\\"=\\"Median revenue\\"' in sent
    assert kernel.widgets.state_of(median).get("disabled") is True
    markdown = run.final_bundle["text/markdown"]
    assert "Which metric should the analysis use? → **Median revenue**" in markdown and "answered by you" in markdown


def test_checkboxes_and_other_text_answer_a_multi_select_question(kernel, requests_since):
    kernel.server.script.add(
        Reply(content=[tool_use("AskUserQuestion", {"questions": [CHARTS, QUESTION]})]),
        Reply(content=[text("ok")]),
    )
    run = kernel.start("%%agent\ncharts")
    submit = _wait_button(kernel, run, "Submit answers")
    boxes = {kernel.widgets.states[c]["description"]: c for c in kernel.widgets.find(_model_name="CheckboxModel", disabled=False)}
    assert set(boxes) == {"Line", "Bar", "Box"}
    kernel.click(submit)  # nothing chosen yet: not sent, a hint instead
    kernel.wait_for(run, lambda: kernel.widgets.ever(lambda s: "Answer every question" in str(s.get("value", ""))))
    kernel.set_value(boxes["Line"], True)
    kernel.set_value(boxes["Box"], True)
    others = kernel.widgets.find(_model_name="TextModel", disabled=False)
    kernel.set_value(others[1], "trimmed mean, 5%")  # the second question's "Other"
    time.sleep(0.3)
    kernel.click(submit)
    kernel.wait(run)
    assert run.status == "ok", run.errors
    sent = _tool_result_text(requests_since()[-1])
    assert '\\"Which charts do you want?\\"=\\"Line, Box\\"' in sent
    assert '\\"Which metric should the analysis use?\\"=\\"trimmed mean, 5%\\"' in sent


def test_skip_tells_the_model_the_user_declined(kernel, requests_since):
    kernel.server.script.add(Reply(content=[tool_use("AskUserQuestion", {"questions": [QUESTION]})]), Reply(content=[text("ok")]))
    run = kernel.start("%%agent\nanalyse")
    kernel.click(_wait_button(kernel, run, "Skip"))
    kernel.wait(run)
    assert run.status == "ok", run.errors
    assert "declined to answer" in _tool_result_text(requests_since()[-1])


def test_approve_with_accept_edits_switches_the_mode(kernel, requests_since):
    writing = held_at_end(Reply(content=[tool_use("Write", {"file_path": str(kernel.cwd / "report.md"), "content": "# Report\n"})]))
    kernel.server.script.add(Reply(content=[tool_use("ExitPlanMode", {"plan": PLAN})]), writing, Reply(content=[text("Written.")]))
    seen = len(kernel.widgets.values)
    run = kernel.start("%%agent --permission-mode plan\nplan the report")
    approve = _wait_button(kernel, run, "Approve, accept edits")
    assert kernel.button("Approve") and kernel.button("Keep planning")
    assert kernel.widgets.ever(lambda s: "Compute the median per month" in str(s.get("value", "")) and "<li>" in str(s.get("value", "")))
    kernel.click(approve)
    try:  # while the next reply streams (held before its end), the status line follows the new mode
        kernel.wait_for(run, lambda: any("accept edits" in s for s in _status_lines(kernel, seen)))
    finally:
        writing.release.set()
        kernel.wait(run)
    assert run.status == "ok", run.errors
    assert (kernel.cwd / "report.md").read_text() == "# Report\n"  # written without asking: acceptEdits
    assert any("plan mode" in s for s in _status_lines(kernel, seen))
    assert "approved by you: acceptEdits mode" in run.final_bundle["text/markdown"]
    try:
        assert "permission mode acceptEdits" in kernel.run("%agent status").stdout  # it outlives the cell's --permission-mode
    finally:
        kernel.run("%agent mode default")


def test_keep_planning_sends_the_feedback(kernel, requests_since):
    kernel.server.script.add(Reply(content=[tool_use("ExitPlanMode", {"plan": PLAN})]), Reply(content=[text("Revising.")]))
    run = kernel.start("%%agent --permission-mode plan\nplan it")
    keep = _wait_button(kernel, run, "Keep planning")
    (feedback,) = kernel.widgets.find(_model_name="TextModel", disabled=False)
    kernel.set_value(feedback, "use the mean instead")
    time.sleep(0.3)
    kernel.click(keep)
    kernel.wait(run)
    assert run.status == "ok", run.errors
    sent = _tool_result_text(requests_since()[-1])
    assert "keep planning" in sent and "use the mean instead" in sent
    assert "kept planning, said you: use the mean instead" in run.final_bundle["text/markdown"]
    assert "permission mode default" in kernel.run("%agent status").stdout


def test_stop_while_a_question_waits(kernel, requests_since):
    kernel.server.script.add(
        Reply(content=[tool_use("AskUserQuestion", {"questions": [QUESTION]})]),
        Reply(content=[text("after the interrupt")]),
    )
    run = kernel.start("%%agent\nask me")
    _wait_button(kernel, run, "Median revenue")
    kernel.interrupt()
    kernel.wait(run)
    assert run.status == "error" and run.errors[0]["ename"] == "AgentInterrupted"
    after = kernel.run("%%agent\ncontinue")
    assert after.status == "ok", after.errors
    messages = requests_since()[-1]["messages"]
    uses = [b["id"] for m in messages if m["role"] == "assistant" for b in m["content"] if b.get("type") == "tool_use"]
    results = [b["tool_use_id"] for m in messages if m["role"] == "user" and isinstance(m["content"], list) for b in m["content"] if b.get("type") == "tool_result"]
    assert uses and sorted(uses) == sorted(results)
    assert "Interrupted by user" in json.dumps(messages)


def test_todos_show_as_a_checklist_and_are_kept(kernel):
    # The answer waits before its end until the live view has rendered the card.
    answer = held_at_end(Reply(content=[text("Listed.")]))
    kernel.server.script.add(Reply(content=[tool_use("TodoWrite", {"todos": TODOS})]), answer)
    run = kernel.start("%%agent\nmake a plan")
    try:
        kernel.wait_for(run, lambda: any("nb-agent-todos" in v and "Picking the metric" in v for v in kernel.widgets.values))
    finally:
        answer.release.set()
    kernel.wait(run)
    assert run.status == "ok", run.errors
    markdown = run.final_bundle["text/markdown"]
    assert "- [x] Load the data" in markdown and "- [ ] **Picking the metric** (in progress)" in markdown
    listed = kernel.run("%agent todos").stdout
    assert listed.splitlines() == ["[x] Load the data", "[>] Picking the metric", "[ ] Draw the chart"]


def test_the_saved_rendering_keeps_only_the_latest_todo_list(kernel):
    done = [dict(todo, status="completed") for todo in TODOS]
    kernel.server.script.add(
        Reply(content=[tool_use("TodoWrite", {"todos": TODOS})]),
        Reply(content=[tool_use("TodoWrite", {"todos": done})]),
        Reply(content=[text("All done.")]),
    )
    run = kernel.run("%%agent\nwork through the plan")
    assert run.status == "ok", run.errors
    for mime in ("text/markdown", "text/plain", "text/html"):
        saved = run.final_bundle[mime]
        assert saved.count("TodoWrite") == 2, saved  # each call keeps its line
        assert saved.count("Draw the chart") == 1, saved  # one checklist: the last
        assert "Picking the metric" not in saved, saved  # the earlier snapshot's items are gone
    assert "[x] Draw the chart" in run.final_bundle["text/markdown"]


def test_headless_answers_and_refusals(kernel, requests_since):
    kernel.run('%config AgentMagics.render = "static"')
    try:
        kernel.server.script.add(
            Reply(content=[tool_use("AskUserQuestion", {"questions": [QUESTION]})]),
            Reply(content=[tool_use("ExitPlanMode", {"plan": PLAN})]),
            Reply(content=[text("done")]),
        )
        run = kernel.run('%%agent --permission-mode plan --answer "pick:median revenue" --answer plan:acceptEdits\nanalyse')
        assert run.status == "ok", run.errors
        request = requests_since()[-2]
        assert '\\"Median revenue\\"' in _tool_result_text(request)
        markdown = run.final_bundle["text/markdown"] if run.of_type("update_display_data") else run.of_type("display_data")[-1]["content"]["data"]["text/markdown"]
        assert "→ **Median revenue**" in markdown and "answered by --answer" in markdown
        assert "approved by --answer: acceptEdits mode" in markdown
        kernel.run("%agent mode default")

        kernel.server.script.add(Reply(content=[tool_use("AskUserQuestion", {"questions": [QUESTION]})]), Reply(content=[text("assuming")]))
        refused = kernel.run("%%agent\nanalyse again")
        assert refused.status == "ok", refused.errors
        assert "Nobody can answer questions in this run" in _tool_result_text(requests_since()[-1])
    finally:
        kernel.run('%config AgentMagics.render = "auto"')
