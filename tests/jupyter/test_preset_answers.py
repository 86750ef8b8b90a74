"""``%%agent --answer``: approvals pre-answered for runs nobody can click in (nbclient,
nbval), shown as asked and answered in the final rendering."""

from __future__ import annotations

import pytest

from nb_agent.jupyter.options import OptionsError, PresetAnswer, parse_answer, parse_cell_options
from nb_agent.jupyter.preset_answers import USED_UP_MESSAGE, PresetApprover
from nb_agent.jupyter.static_render import render_markdown_text, render_plain
from nb_agent.jupyter.view.run_state import RunState
from nb_agent.permissions.types import PermissionAllow, PermissionDeny, PermissionRequest
from nb_agent.testing import Reply, text, tool_use


def test_answers_parse_in_order() -> None:
    options = parse_cell_options('--answer allow --answer always --answer "deny:use pandas, not a loop" --answer deny')
    assert options.answers == (
        PresetAnswer(answer="allow"),
        PresetAnswer(answer="always_allow"),
        PresetAnswer(answer="deny", feedback="use pandas, not a loop"),
        PresetAnswer(answer="deny"),
    )
    assert parse_cell_options("").answers is None  # no --answer: approvals are asked as usual
    with pytest.raises(OptionsError, match="expected allow, always, deny"):
        parse_cell_options("--answer maybe")
    with pytest.raises(OptionsError):
        parse_cell_options("--answer allow:why")  # only a denial carries feedback
    assert parse_answer("DENY: too risky ") == PresetAnswer(answer="deny", feedback="too risky")


def _request(n: int, rule: str | None = "Bash(rm:*)") -> PermissionRequest:
    return PermissionRequest(
        tool_use_id=f"t{n}", tool_name="Bash", input={"command": f"rm f{n}"}, message=f"run rm f{n}?", suggested_rule=rule
    )


async def test_the_list_answers_each_request_once_then_denies() -> None:
    state = RunState()
    approver = PresetApprover([parse_answer("always"), parse_answer("deny:keep it"), parse_answer("always")], state)
    first = await approver(None, _request(1), None)
    assert isinstance(first, PermissionAllow) and first.rule_to_add == "Bash(rm:*)"
    second = await approver(None, _request(2), None)
    assert isinstance(second, PermissionDeny) and second.message.endswith("the user said:\nkeep it")
    third = await approver(None, _request(3, rule=None), None)
    assert isinstance(third, PermissionAllow) and third.rule_to_add is None  # nothing to add: a plain allow
    fourth = await approver(None, _request(4), None)
    assert isinstance(fourth, PermissionDeny) and fourth.message == USED_UP_MESSAGE
    cards = state.cards
    assert [c.approval.source for c in cards] == ["preset"] * 4
    markdown = render_markdown_text(state)
    assert "answered “always allow” by --answer, adds `Bash(rm:*)`" in markdown
    assert "answered “deny” by --answer: keep it" in markdown
    assert "no --answer left, so denied" in markdown
    assert "answered “always allow” by --answer, adds" in render_plain(state).replace("`", "")


async def test_unused_answers_are_reported() -> None:
    state = RunState()
    approver = PresetApprover([parse_answer("allow"), parse_answer("deny:no")], state)
    await approver(None, _request(1), None)
    approver.report_unused()
    assert "1 --answer value(s) were not needed: deny: no" in render_markdown_text(state)


def test_a_pre_answered_write_runs_without_buttons(kernel, requests_since) -> None:
    kernel.server.script.add(
        Reply(content=[tool_use("Write", {"file_path": str(kernel.cwd / "preset.txt"), "content": "hi\n"})]),
        Reply(content=[tool_use("Bash", {"command": "rm preset.txt"})]),
        Reply(content=[text("Kept the file.")]),
    )
    run = kernel.run('%%agent --answer allow --answer "deny:keep the file"\nwrite preset.txt, then delete it')
    assert run.status == "ok", run.errors
    markdown = run.final_bundle["text/markdown"]
    assert "**Write**" in markdown and "answered “allow” by --answer" in markdown
    assert "answered “deny” by --answer: keep the file" in markdown
    assert (kernel.cwd / "preset.txt").read_text() == "hi\n"
    assert "keep the file" in str(requests_since()[-1]["messages"][-1])
    assert not kernel.widgets.ever(lambda s: s.get("_model_name") == "ButtonModel" and s.get("description") == "Allow")


def test_static_rendering_with_answers_has_one_output(kernel) -> None:
    kernel.server.script.add(
        Reply(content=[tool_use("Write", {"file_path": str(kernel.cwd / "static.txt"), "content": "x"})]),
        Reply(content=[text("Written.")]),
    )
    kernel.run('%config AgentMagics.render = "static"')
    try:
        run = kernel.run("%%agent --answer allow\nwrite static.txt")
    finally:
        kernel.run('%config AgentMagics.render = "auto"')
    assert run.status == "ok", run.errors
    displays = run.of_type("display_data")
    assert len(displays) == 3 and not run.of_type("update_display_data")  # the static rendering, the file edits card, the run card
    assert displays[1]["content"]["data"]["text/plain"].startswith("Files this run's edits changed (1)")
    assert "application/vnd.nb-agent.rewind+json" in displays[2]["content"]["data"]
    assert "answered “allow” by --answer" in displays[0]["content"]["data"]["text/markdown"]
