"""A ``%%agent`` cell in a real kernel: streaming, the static rendering, continuing the
conversation, the reproducibility cell, usage errors."""

from __future__ import annotations

import re
from typing import Any

from nb_agent.testing import Reply, held_at_end, text, tool_use

ANSWER = "# Result\n\nThe answer is **42**.\n\n```python\nprint(42)\n```\n"


def _widget_values_with(run: Any, needle: str) -> list[str]:
    return [
        str(m["content"]["data"]["state"]["value"])
        for m in run.of_type("comm_msg")
        if "value" in m["content"]["data"].get("state", {}) and needle in str(m["content"]["data"]["state"]["value"])
    ]


def test_answer_streams_into_widgets_then_static_rendering(kernel, requests_since):
    # the stream pauses with the whole text sent but its block not ended, until a widget shows it
    reply = held_at_end(Reply(content=[text(ANSWER)], chunk_size=3))
    kernel.server.script.add(reply)
    run = kernel.start("%%agent\nWhat is the answer?")
    try:  # the live view went out as widgets while the cell ran ...
        kernel.wait_for(run, lambda: bool(_widget_values_with(run, "42")))
    finally:
        reply.release.set()
    kernel.wait(run)
    assert run.of_type("display_data")[0]["content"]["data"].get("application/vnd.jupyter.widget-view+json")
    assert run.status == "ok", run.errors
    # ... and the same display was replaced by the static rendering, exact text included
    display_id = run.of_type("display_data")[0]["content"]["transient"]["display_id"]
    final = run.of_type("update_display_data")[-1]["content"]
    assert final["transient"]["display_id"] == display_id
    assert ANSWER.strip() in final["data"]["text/markdown"]
    assert "<strong>42</strong>" in final["data"]["text/html"]
    assert "application/vnd.jupyter.widget-view+json" not in final["data"]
    # the request carried the prompt
    (request,) = requests_since()
    assert "What is the answer?" in str(request["messages"][-1]["content"])


def test_a_finished_run_leaves_its_summary_line(kernel):
    # the status line goes with the live view: the run's cost was then only in %agent cost
    kernel.server.script.add(
        Reply(content=[tool_use("Bash", {"command": "true"})], input_tokens=2_000, output_tokens=30),
        Reply(content=[text("Done.")], input_tokens=500, cache_read_input_tokens=2_100, output_tokens=12),
    )
    run = kernel.run("%%agent --permission-mode bypassPermissions\ncheck it")
    assert run.status == "ok", run.errors
    last_line = run.final_bundle["text/plain"].splitlines()[-1]
    assert re.fullmatch(r"claude-\S+ · 4\.6k in \(cache: 2\.1k read\) / 42 out · \$\d+\.\d{4} · \d+\.\ds", last_line), last_line
    assert "· 4.6k in (cache: 2.1k read) / 42 out · $" in run.final_bundle["text/html"]


def test_consecutive_cells_continue_one_conversation(kernel, requests_since):
    kernel.server.script.add(Reply(content=[text("First.")]), Reply(content=[text("Second.")]))
    assert kernel.run("%%agent\nremember the word PINEAPPLE").status == "ok"
    assert kernel.run("%%agent\nwhat was the word?").status == "ok"
    first, second = requests_since()
    flat = str(second["messages"])
    assert "PINEAPPLE" in flat and "First." in flat


def test_code_the_agent_ran_is_offered_as_the_next_cell(kernel, requests_since, helpers):
    kernel.server.script.add(
        Reply(content=[tool_use("ExecuteCode", {"code": "answer_value = 6 * 7\nanswer_value"})]),
        Reply(content=[text("It is 42.")]),
    )
    run = kernel.run("%%agent --permission-mode bypassPermissions\ncompute it")
    assert run.status == "ok", run.errors
    (payload,) = [p for p in run.payload if p.get("source") == "set_next_input"]
    assert "answer_value = 6 * 7" in payload["text"]
    assert "[result]\n42" in helpers.last_user_text(requests_since()[-1])
    # the static rendering lists the tool call with its outcome
    assert "ExecuteCode" in run.final_bundle["text/markdown"] and "done" in run.final_bundle["text/markdown"]


def test_insert_code_cell_can_be_turned_off(kernel):
    kernel.server.script.add(
        Reply(content=[tool_use("ExecuteCode", {"code": "unused_value = 1"})]), Reply(content=[text("ok")])
    )
    assert kernel.run("%config AgentMagics.insert_code_cell = False").status == "ok"
    try:
        run = kernel.run("%%agent --permission-mode bypassPermissions\nset it")
        assert not [p for p in run.payload if p.get("source") == "set_next_input"]
    finally:
        kernel.run("%config AgentMagics.insert_code_cell = True")


def test_bad_option_prints_usage_without_traceback(kernel):
    run = kernel.run("%%agent --frobnicate\nhello")
    assert run.status == "ok" and not run.errors
    assert "usage: %%agent" in run.stdout and "--frobnicate" in run.stdout


def test_bad_option_value_prints_usage(kernel):
    run = kernel.run("%%agent --max-turns zero\nhello")
    assert run.status == "ok" and not run.errors
    assert "usage: %%agent" in run.stdout and "--max-turns" in run.stdout


def test_help_option_prints_usage(kernel):
    run = kernel.run("%%agent --help\n")
    assert run.status == "ok" and "--permission-mode" in run.stdout


def test_empty_prompt_is_explained(kernel):
    run = kernel.run("%%agent\n\n")
    assert run.status == "ok" and "Write your request" in run.stdout


def test_unknown_subcommand_prints_usage_without_traceback(kernel):
    run = kernel.run("%agent frobnicate")
    assert run.status == "ok" and not run.errors
    assert "unknown subcommand 'frobnicate'" in run.stdout and "usage: %agent" in run.stdout


def test_subcommand_argument_errors_print_usage(kernel):
    for line in ("%agent mode sideways", "%agent allow", "%agent cost extra"):
        run = kernel.run(line)
        assert run.status == "ok" and not run.errors, line
        assert "usage: %agent" in run.stdout, line


def test_autoawait_off_fails_with_a_clear_message(kernel):
    assert kernel.run("%autoawait off").status == "ok"
    try:
        run = kernel.run("%%agent\nhello")
        assert "autoawait" in run.stdout
        assert not run.errors
    finally:
        assert kernel.run("%autoawait asyncio").status == "ok"


def test_a_failed_model_call_fails_the_cell_with_a_notice(kernel):
    from nb_agent.testing import ErrorReply

    kernel.server.script.add(ErrorReply(status=400, error_type="invalid_request_error", message="bad request for the test"))
    run = kernel.run("%%agent\nthis will fail")
    assert run.status == "error"
    (error,) = run.errors
    assert error["ename"] == "AgentRunFailed"
    run.assert_ending_said_once("bad request for the test")  # the view's error notice said it a second time
