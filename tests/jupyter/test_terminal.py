"""Terminal IPython (an in-process shell, no kernel): %%agent prints plain text."""

from __future__ import annotations

import re

import pytest

from nb_agent.testing import FakeAnthropicServer, Reply, text, tool_use


@pytest.fixture(scope="module")
def shell():
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "nb_agent")
    yield shell
    shell.run_line_magic("unload_ext", "nb_agent")


def test_agent_cell_streams_plain_text(shell, monkeypatch, tmp_path, capsys):
    monkeypatch.chdir(tmp_path)
    with FakeAnthropicServer([
        Reply(content=[text("Let me look."), tool_use("ExecuteCode", {"code": "terminal_value = 5\nterminal_value * 2"})]),
        Reply(content=[text("It is **10**.")]),
    ]) as server:  # fmt: skip
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "test")
        magics = shell.magics_manager.registry["AgentMagics"]
        magics.session.engine = None  # pick up this test's working directory
        result = shell.run_cell("%%agent --permission-mode bypassPermissions\ncompute it")
    assert result.success, result.error_in_exec
    out = capsys.readouterr().out
    assert "Let me look." in out and "● ExecuteCode(terminal_value = 5 …)" in out and "└ done" in out
    assert "It is **10**." in out
    assert re.search(r"\n\[claude-\S+ · \S+ in .*/ \S+ out · \$\d+\.\d{4} · \d+\.\ds\]\n", out), out  # the run's summary
    assert shell.user_ns["terminal_value"] == 5
    assert (tmp_path / ".nb_agent" / "sessions").is_dir()


def test_line_magic_runs_without_a_kernel(shell, capsys):
    shell.run_line_magic("agent", "frobnicate")
    assert "unknown subcommand" in capsys.readouterr().out


def test_a_failed_run_is_said_once(shell, monkeypatch, tmp_path, capsys):
    # the model's error was printed as it came ("[error] …") and again by the cell's error line
    from nb_agent.testing import ErrorReply

    monkeypatch.chdir(tmp_path)
    with FakeAnthropicServer([ErrorReply(status=400, error_type="invalid_request_error", message="bad request for the test")]) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "test")
        magics = shell.magics_manager.registry["AgentMagics"]
        magics.session.engine = None  # pick up this test's working directory
        result = shell.run_cell("%%agent\nthis will fail")
    assert not result.success
    captured = capsys.readouterr()
    said = captured.out + captured.err
    assert said.count("bad request for the test") == 1, said
    assert "The agent run failed: " in said
