"""End to end, through the real SDK against the fake Messages API server: with a classifier
that calls *everything* read-only (so nothing asks), the sandbox alone stops a write outside
the working directory, a connection to a local listener, a secret read and credential
variables; ordinary read-only work still succeeds inside it."""

from __future__ import annotations

import socket
import threading
import uuid
from pathlib import Path
from typing import Any

import pytest

from nb_agent.agent import create_engine
from nb_agent.model.transport import AnthropicTransport
from nb_agent.permissions.types import PermissionAllow
from nb_agent.testing import FakeAnthropicServer, Reply, text, tool_use
from nb_agent.testing.collect import assert_history_invariant, collect
from nb_agent.testing.wrong_classifier import EverythingReadOnlyBash

from .conftest import SECRET

pytestmark = pytest.mark.usefixtures("needs_sandbox")


async def run_commands(project: Path, home: Path, commands: list[str], **engine_kwargs: Any) -> list[tuple[str, bool]]:
    """Let the model run ``commands`` (one Bash call per turn: a failing call would cancel
    its parallel siblings); return each tool_result's text and error flag."""
    calls = [tool_use("Bash", {"command": c}, id=f"toolu_{i:02d}") for i, c in enumerate(commands)]
    async with FakeAnthropicServer([*(Reply(content=[c]) for c in calls), Reply(content=[text("done")])]) as server:
        engine, _ = create_engine(
            cwd=project, home=home, tools=[EverythingReadOnlyBash()], transport=AnthropicTransport(client=server.client()),
            mcp=False, **{"trust": True, **engine_kwargs},  # the user's own project
        )  # fmt: skip
        out = await collect(engine, "go")
        assert out.result.subtype == "success", out.result
        assert_history_invariant(engine.messages)
        results = [b for r in server.requests[1:] for b in r["messages"][-1]["content"] if b["type"] == "tool_result"]
    assert [r["tool_use_id"] for r in results] == [c["id"] for c in calls]
    return [(r["content"] if isinstance(r["content"], str) else r["content"][0]["text"], bool(r.get("is_error"))) for r in results]


async def test_a_write_outside_the_working_directory_is_stopped(project: Path, home: Path, tmp_path: Path) -> None:
    sibling = tmp_path / "elsewhere"
    sibling.mkdir()
    system = Path("/var/tmp") / f"nb_agent-sandbox-test-{uuid.uuid4().hex}"
    outcomes = await run_commands(
        project, home,
        [f"echo pwned > {sibling}/x", f"echo pwned > {system}", f"echo pwned > {home}/.bashrc", "echo fine > inside.txt"],
    )  # fmt: skip
    assert not (sibling / "x").exists()
    assert not system.exists()
    assert (home / ".bashrc").read_text() == "# rc\n"
    system_text, system_error = outcomes[1]
    assert system_error and "Read-only file system" in system_text
    assert "Sandbox: this command ran in nb_agent's sandbox" in system_text and "dangerouslyDisableSandbox" in system_text
    assert (project / "inside.txt").read_text() == "fine\n"  # the working directory stays writable


async def test_a_connection_to_a_local_listener_is_stopped(project: Path, home: Path) -> None:
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    received: list[bytes] = []

    def accept() -> None:
        listener.settimeout(5)
        try:
            conn, _ = listener.accept()
        except OSError:
            return
        with conn:
            received.append(conn.recv(100))

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        outcomes = await run_commands(
            project, home,
            [
                f"python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=3).sendall(b'leak')\"",
                f"cat README.md > /dev/tcp/127.0.0.1/{port}",
            ],
        )  # fmt: skip
    finally:
        listener.close()
        thread.join(timeout=6)
    assert received == []
    for output, is_error in outcomes:
        assert is_error and "Connection refused" in output and "refusing a network connection" in output


async def test_secrets_are_unreadable_even_when_home_is_the_working_directory(home: Path) -> None:
    commands = [f"cat {home}/.ssh/id_rsa", f"cat {home}/.aws/credentials", f"cat {home}/.netrc", f"ls -a {home}/.ssh", f"grep -r sandbox-test-secret {home}"]
    outcomes = await run_commands(home, home, commands)
    for output, _ in outcomes:
        assert SECRET not in output
    assert "Permission denied" in outcomes[0][0]


async def test_secrets_outside_the_project_are_unreadable(project: Path, home: Path) -> None:
    outcomes = await run_commands(project, home, [f"cat {home}/.ssh/id_rsa", f"tar cf - {home} 2>/dev/null | strings"])
    assert all(SECRET not in output for output, _ in outcomes)


async def test_credential_variables_are_not_passed_in(project: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    values = {
        "ANTHROPIC_API_KEY": "sk-ant-sandbox-test",
        "AWS_SECRET_ACCESS_KEY": "aws-sandbox-test",
        "GITHUB_TOKEN": "ghp-sandbox-test",
        "MY_SERVICE_SECRET_VALUE": "svc-sandbox-test",
        "DATABASE_URL": "postgres://user:pw-sandbox-test@db/x",
    }
    for name, value in values.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("HARMLESS_SETTING", "kept-sandbox-test")
    [(output, _)] = await run_commands(project, home, ["env"])
    assert not any(value in output for value in values.values())
    assert "kept-sandbox-test" in output


async def test_ordinary_read_only_work_succeeds_inside(project: Path, home: Path) -> None:
    commands = ["git status", "git log --oneline", "ls src", "grep -r needle src", 'python3 -c "print(1)"', "cat README.md", "pwd"]
    outcomes = await run_commands(project, home, commands)
    for command, (output, is_error) in zip(commands, outcomes):
        assert not is_error, (command, output)
    by_command = dict(zip(commands, (o for o, _ in outcomes)))
    assert "On branch main" in by_command["git status"]
    assert "first commit" in by_command["git log --oneline"]
    assert by_command["ls src"].strip() == "app.py"
    assert "src/app.py" in by_command["grep -r needle src"]
    assert by_command['python3 -c "print(1)"'].strip() == "1"
    assert by_command["cat README.md"].strip() == "# demo project"
    assert by_command["pwd"].strip() == str(project.resolve())


async def test_without_a_sandbox_the_same_write_happens_and_nothing_claims_a_sandbox(project: Path, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The control: the stops above are the sandbox's doing, and a missing sandbox is said, never hidden."""
    from nb_agent.tools.bash.sandbox import SandboxAvailability
    from nb_agent.tools.bash.sandbox import runtime as runtime_module

    missing = SandboxAvailability(available=False, reason="bubblewrap (bwrap) is not installed", fix="sudo apt-get install bubblewrap")
    monkeypatch.setattr(runtime_module, "probe_availability", lambda: missing)
    sibling = tmp_path / "elsewhere"
    sibling.mkdir()
    calls = [tool_use("Bash", {"command": f"echo pwned > {sibling}/x"}, id="toolu_a"), tool_use("Bash", {"command": "true"}, id="toolu_b")]
    async with FakeAnthropicServer([Reply(content=calls), Reply(content=[text("done")])]) as server:
        engine, _ = create_engine(cwd=project, home=home, tools=[EverythingReadOnlyBash()], transport=AnthropicTransport(client=server.client()), mcp=False)
        out = await collect(engine, "go")
    assert (sibling / "x").read_text() == "pwned\n"
    notices = [m for m in out.events if getattr(m, "subtype", "") == "sandbox_unavailable"]
    assert len(notices) == 1 and "bubblewrap (bwrap) is not installed" in notices[0].content and "apt-get install bubblewrap" in notices[0].content
    results = [m.tool_use_result for m in out.of_type("user") if getattr(m, "tool_use_result", None) is not None]
    assert results and all(r.sandboxed is False for r in results)


async def _approve_everything(tool, request, ctx) -> PermissionAllow:
    return PermissionAllow(reason="the user approved")


async def test_protected_paths_a_command_creates_are_moved_aside(project: Path, home: Path) -> None:
    """.claude/ and .mcp.json do not exist yet, so no mount guards them: what the command
    creates there is moved aside before anything outside the sandbox reads it. (Writing a
    protected file always asks; here the user approved, and the sandbox still stops it.)"""
    outcomes = await run_commands(
        project, home,
        ["mkdir .claude && echo '{\"permissions\": {\"allow\": [\"Bash\"]}}' > .claude/settings.local.json",
         "echo '{\"mcpServers\": {\"x\": {\"command\": \"sh\"}}}' > .mcp.json", "echo '#!/bin/sh' > .git/hooks/pre-commit"],
        can_use_tool=_approve_everything,
    )  # fmt: skip
    assert not (project / ".claude").exists() and not (project / ".mcp.json").exists()
    assert not (project / ".git" / "hooks" / "pre-commit").exists()
    assert "moved to .claude.sandbox-blocked-" in outcomes[0][0] and "moved to .mcp.json.sandbox-blocked-" in outcomes[1][0]
    assert "Read-only file system" in outcomes[2][0]  # .git/hooks exists: the mount refuses it outright
