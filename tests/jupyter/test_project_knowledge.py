"""A real Claude Code project in a real kernel (issue 26): memory with imports and rules, a
nested CLAUDE.md, two skills, two commands and a custom agent (``notebooks/files/knowledge``,
the demo's project). Trusted, all of it acts; untrusted, only what trust allows does: the
memory files are read (instructions, like any file of the folder), nothing else of it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from nb_agent.testing import Reply, text, tool_use

PROJECT = Path(__file__).resolve().parents[2] / "notebooks" / "files" / "knowledge"
PRIVATE = "acme-private-note: the shop managers' phone numbers"
SECRET = "-----BEGIN OPENSSH PRIVATE KEY----- project-knowledge"


def _kernel(make_kernel, tmp_path_factory, name: str, *, trusted: bool):
    home = tmp_path_factory.mktemp(f"{name}-home")
    (home / ".claude").mkdir()
    (home / ".claude" / "CLAUDE.md").write_text("The user prefers short answers.\n")
    (home / ".claude" / "acme-private.md").write_text(PRIVATE + "\n")
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_rsa").write_text(SECRET)
    kernel = make_kernel(name, extra_env={"HOME": str(home)})
    shutil.copytree(PROJECT, kernel.cwd, dirs_exist_ok=True)
    with (kernel.cwd / "CLAUDE.md").open("a") as file:  # the documented home import, and a planted link
        file.write("\nPersonal notes: @~/.claude/acme-private.md\nMore: @docs/keys.md\n")
    (kernel.cwd / "docs" / "keys.md").symlink_to(home / ".ssh" / "id_rsa")
    assert kernel.run("%load_ext nb_agent").status == "ok"
    if trusted:
        assert "Trusted" in kernel.run("%agent trust").stdout
    kernel.home = home
    return kernel


def _sent(kernel, start: int) -> str:
    return json.dumps(kernel.server.requests[start:])


def _run(kernel, cell: str, *turns):
    kernel.server.script.add(*turns)
    start = len(kernel.server.requests)
    run = kernel.run(cell, timeout=60)
    assert run.status == "ok", (run.errors, run.stdout)
    return run, start


@pytest.fixture(scope="module")
def trusted(make_kernel, tmp_path_factory):
    return _kernel(make_kernel, tmp_path_factory, "knowledge-trusted", trusted=True)


@pytest.fixture(scope="module")
def untrusted(make_kernel, tmp_path_factory):
    return _kernel(make_kernel, tmp_path_factory, "knowledge-untrusted", trusted=False)


def test_memory_lists_what_is_read_and_what_is_not(trusted) -> None:
    out = trusted.run("%agent memory").stdout
    cwd = trusted.cwd
    assert f"read     user     {trusted.home}/.claude/CLAUDE.md" in out
    assert f"read     project  {cwd}/CLAUDE.md" in out
    assert f"read     project  {cwd}/docs/conventions.md" in out and "imported by CLAUDE.md" in out
    assert "acme-private.md" in out and PRIVATE not in out
    assert f"read     project  {cwd}/.claude/rules/notebooks.md" in out
    assert f"waiting  {cwd}/.claude/rules/data-files.md  (read when the agent reads data/**/*.csv)" in out
    assert f"skipped  {cwd}/docs/keys.md (imported by {cwd}/CLAUDE.md): a link to a file outside {cwd}" in out
    assert "data/CLAUDE.md" not in out, "a subfolder's memory waits for a read there"


def test_skills_commands_and_the_agent_are_listed(trusted) -> None:
    skills = trusted.run("%agent skills").stdout
    for name in ("/tidy-notebook [notebook]", "/chart-style", "/summarize [topic]", "/check-data [csv file]"):
        assert name in skills
    assert "allowed-tools Read, NotebookEdit" in skills and "invoked by you: /tidy-notebook and the model" in skills
    helped = trusted.run("%agent help").stdout
    assert "commands (%%agent /NAME ARGS):" in helped and "/summarize [topic]" in helped and "/check-data [csv file]" in helped
    assert "data-auditor" in trusted.run("%agent agents").stdout


def test_a_command_runs_with_the_projects_memory_and_skill_list(trusted) -> None:
    run, start = _run(trusted, "%%agent /summarize the March dip", Reply(content=[text("- Revenue fell in March.")]))
    [request] = trusted.server.requests[start:]
    sent = json.dumps(request)
    assert "Summarize the March dip in three short bullet points" in json.dumps(request["messages"][-1])
    assert "Acme Coffee sales analysis" in sent and "One chart per cell" in sent and "Findings" in sent, "memory, import, rule"
    assert PRIVATE in sent, "the home import: the folder is trusted"
    assert SECRET not in sent, "never through a link out of the folder"
    assert "- tidy-notebook: Tidy a Jupyter notebook into a report" in sent and "- chart-style:" in sent


def test_reading_a_data_file_brings_its_folders_memory_and_rule_once(trusted) -> None:
    data = str(trusted.cwd / "data" / "sales_2024.csv")
    run, start = _run(
        trusted,
        "%%agent\nWhat is in the 2024 export?",
        Reply(content=[tool_use("Read", {"file_path": data}, id="toolu_read_data")]),
        Reply(content=[tool_use("Read", {"file_path": data}, id="toolu_read_again")]),
        Reply(content=[text("Two shops, four months.")]),
    )
    second, third = trusted.server.requests[start + 1 :]
    assert "exports from the till system" in json.dumps(second["messages"][-1]), "data/CLAUDE.md, after the read"
    assert "between fields" in json.dumps(second["messages"][-1]), "the rule about data/**/*.csv, after the read"
    assert json.dumps(third).count("exports from the till system") == 1, "once"


def test_allowed_tools_make_an_unlisted_call_ask(trusted) -> None:
    data = str(trusted.cwd / "data" / "sales_2024.csv")
    run, start = _run(
        trusted,
        '%%agent --answer "deny:not now" /check-data data/sales_2024.csv',
        Reply(content=[tool_use("Read", {"file_path": data}, id="toolu_cd_read")]),
        Reply(content=[tool_use("Bash", {"command": "wc -l data/sales_2024.csv"}, id="toolu_cd_wc")]),
        Reply(content=[text("No months are missing.")]),
    )
    last = json.dumps(trusted.server.requests[-1]["messages"][-1])
    assert "not now" in last, "wc is read-only and would run unasked: the command's allowed-tools made it ask"
    first = json.dumps(trusted.server.requests[start]["messages"][-1])
    assert "Check data/sales_2024.csv for missing months per shop" in first


def test_remember_adds_to_the_projects_claude_md(trusted) -> None:
    out = trusted.run("%agent remember --project Revenue figures are in thousands of euros.").stdout
    assert f"Remembered in {trusted.cwd}/CLAUDE.md" in out
    assert (trusted.cwd / "CLAUDE.md").read_text().endswith("- Revenue figures are in thousands of euros.\n")
    run, start = _run(trusted, "%%agent\nhi", Reply(content=[text("Hello.")]))
    assert "Revenue figures are in thousands of euros." in _sent(trusted, start)
    assert "usage: %agent remember --project|--local|--user TEXT" in trusted.run("%agent remember forgot the flag").stdout


def test_an_unknown_command_is_refused_in_the_cell(trusted) -> None:
    start = len(trusted.server.requests)
    run = trusted.run("%%agent /no-such-thing please")
    assert "No skill or command /no-such-thing" in json.dumps(run.messages, default=str)
    assert trusted.server.requests[start:] == [], "nothing was sent"


# --- the same project, untrusted ---------------------------------------------------------------


def test_untrusted_the_memory_is_read_and_nothing_else_acts(untrusted) -> None:
    memory = untrusted.run("%agent memory").stdout
    assert f"read     project  {untrusted.cwd}/CLAUDE.md" in memory
    assert "acme-private.md" in memory and "read once you trust the folder" in memory
    skills = untrusted.run("%agent skills").stdout
    assert "/tidy-notebook" not in skills and "not loaded (the folder is not trusted)" in skills
    assert "data-auditor" not in untrusted.run("%agent agents").stdout
    run, start = _run(untrusted, "%%agent\nWhat does this project do?", Reply(content=[text("Sales analysis.")]))
    sent = _sent(untrusted, start)
    assert "Acme Coffee sales analysis" in sent, "instructions are read in every folder"
    assert PRIVATE not in sent and SECRET not in sent
    assert "tidy-notebook" not in sent and "Skill" not in [t["name"] for t in untrusted.server.requests[start]["tools"]]


def test_untrusted_a_projects_command_cannot_run(untrusted) -> None:
    start = len(untrusted.server.requests)
    run = untrusted.run("%%agent /tidy-notebook report.ipynb")
    assert "No skill or command /tidy-notebook" in json.dumps(run.messages, default=str)
    assert untrusted.server.requests[start:] == []
