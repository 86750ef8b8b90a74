"""Fake tools and a context factory for the permission tests.

Real :class:`~nb_agent.tools.base.Tool` subclasses whose only behaviour is the part the
rule engine reads: ``name``, ``is_read_only``, ``permission_rule_content`` and
``check_permissions``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any, ClassVar

import pytest
from pydantic import BaseModel

from nb_agent.abort import AbortController
from nb_agent.permissions.types import PermissionDecision, PermissionMode
from nb_agent.tools.base import Tool, ToolResult, ToolSession, ToolUseContext


class CommandInput(BaseModel):
    command: str


class PathInput(BaseModel):
    file_path: str


class UrlInput(BaseModel):
    url: str


class NoInput(BaseModel):
    pass


class _FakeTool(Tool[Any]):
    read_only: ClassVar[bool] = False

    def prompt(self) -> str:
        return f"fake {self.name}"

    def is_read_only(self, input: Any) -> bool:
        return self.read_only

    async def call(self, input: Any, ctx: ToolUseContext, on_progress: Any) -> ToolResult:
        raise AssertionError("the permission tests never run a tool")


_READ_ONLY_COMMANDS = ("ls", "cat", "pwd", "echo", "git status", "git log")


class FakeBash(_FakeTool):
    name = "Bash"
    input_model = CommandInput

    def is_read_only(self, input: CommandInput) -> bool:
        cmd = input.command.strip()
        simple = not any(op in cmd for op in ("&&", "||", ";", "|", ">", "$(", "`"))
        return simple and any(cmd == c or cmd.startswith(c + " ") for c in _READ_ONLY_COMMANDS)

    def permission_rule_content(self, input: CommandInput) -> str | None:
        return input.command


class _PathTool(_FakeTool):
    input_model = PathInput

    def permission_rule_content(self, input: PathInput) -> str | None:
        return input.file_path


class FakeRead(_PathTool):
    name = "Read"
    read_only = True


class FakeGlob(_PathTool):
    name = "Glob"
    read_only = True


class FakeEdit(_PathTool):
    name = "Edit"


class FakeWrite(_PathTool):
    name = "Write"


class FakeNotebookEdit(_PathTool):
    name = "NotebookEdit"


class FakeWebFetch(_FakeTool):
    name = "WebFetch"
    input_model = UrlInput
    read_only = True

    def permission_rule_content(self, input: UrlInput) -> str | None:
        return input.url


class FakeMcpTool(_FakeTool):
    input_model = NoInput
    is_mcp = True

    def __init__(self, name: str) -> None:
        self.name = name  # type: ignore[misc]


class FakeAgentTool(_FakeTool):
    name = "Agent"
    input_model = NoInput


class FakeSearch(_FakeTool):
    name = "Search"
    input_model = NoInput
    read_only = True


class ScriptedCheckTool(_FakeTool):
    """A tool whose own ``check_permissions`` answers what the test says."""

    name = "Scripted"
    input_model = NoInput

    def __init__(self, decision: PermissionDecision, *, read_only: bool = False) -> None:
        self.decision = decision
        self.read_only = read_only  # type: ignore[misc]

    async def check_permissions(self, input: Any, ctx: ToolUseContext) -> PermissionDecision:
        return self.decision


@pytest.fixture
def tools() -> SimpleNamespace:
    return SimpleNamespace(
        bash=FakeBash(),
        read=FakeRead(),
        glob=FakeGlob(),
        edit=FakeEdit(),
        write=FakeWrite(),
        notebook_edit=FakeNotebookEdit(),
        web_fetch=FakeWebFetch(),
        mcp_create_issue=FakeMcpTool("mcp__github__create_issue"),
        mcp_list_repos=FakeMcpTool("mcp__github__list_repos"),
        mcp_other=FakeMcpTool("mcp__gitlab__create_issue"),
        agent=FakeAgentTool(),
        search=FakeSearch(),
        scripted=ScriptedCheckTool,
    )


@pytest.fixture
def make_ctx() -> Callable[..., ToolUseContext]:
    def make(
        cwd: Path, *, additional: tuple[Path, ...] = (), permission_mode: PermissionMode = "default"
    ) -> ToolUseContext:
        session = ToolSession(cwd=cwd, additional_directories=list(additional))
        return ToolUseContext(abort_controller=AbortController(), session=session, permission_mode=permission_mode)

    return make


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project directory with a home directory beside it (not above it)."""
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (tmp_path / "home").mkdir()
    return root


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "home"
    path.mkdir(exist_ok=True)
    monkeypatch.setenv("HOME", str(path))
    return path


def inp(tool: Tool[Any], **raw: Any) -> Any:
    return tool.parse_input(raw)


@pytest.fixture
def parse() -> Callable[..., Any]:
    """``parse(tool, command="ls")``: a validated input for ``tool``."""
    return inp

