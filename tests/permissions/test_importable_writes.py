"""Writing something the kernel would import always asks (issue 21 §2): in acceptEdits and
bypassPermissions, with allow rules, a Write of a module file into the kernel's working
directory (or any ``sys.path`` directory, or the agent's working directories, which a
restarted kernel puts on ``sys.path`` again) is no ordinary project edit: the kernel runs it
at its next ``import`` of that name. Bash writes are held to the same rule."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from nb_agent import import_guard
from nb_agent.abort import AbortController
from nb_agent.permissions import PermissionAllow, PermissionAsk, RuleBasedPolicy
from nb_agent.tools.base import ToolSession, ToolUseContext
from nb_agent.tools.bash import bash_tools
from nb_agent.tools.files import file_tools

IMPORTABLE = [
    "nbformat.py", "helpers.py", "anthropic.pyc", "fast.cpython-311-x86_64-linux-gnu.so", "fast.abi3.so", "evil.pth",
    "sitecustomize.py", "mypkg/__init__.py", "yaml/__init__.pyc", "__pycache__/helpers.cpython-311.pyc",
    "pandas/core.py",  # a directory named like an installed module shadows it
    "google/auth/__init__.py",  # a portion of an installed namespace package
]  # fmt: skip
ORDINARY = ["data.csv", "README.md", "notes/todo.py", "notebooks/analysis/step.py", "model.pth.bak", "output/plot.png"]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    import_guard.distrust([project])  # as create_engine does for the agent's folder
    return project


def _ctx(cwd: Path) -> ToolUseContext:
    return ToolUseContext(abort_controller=AbortController(), session=ToolSession(cwd=cwd))


async def _decide(policy: RuleBasedPolicy, tool: Any, ctx: ToolUseContext, **raw: Any) -> Any:
    parsed = tool.parse_input(raw)
    result = await tool.validate_input(parsed, ctx)
    assert result.ok, result
    return await policy.decide(tool, parsed, ctx)


def _tool(name: str) -> Any:
    return {t.name: t for t in [*file_tools(), *bash_tools()]}[name]


@pytest.mark.parametrize("mode", ["acceptEdits", "bypassPermissions"])
@pytest.mark.parametrize("relative", IMPORTABLE)
async def test_writing_an_importable_file_asks_in_every_mode(project: Path, mode: str, relative: str) -> None:
    policy = RuleBasedPolicy(project_dir=project, home=project.parent, mode=mode, allow=["Edit", "Write", "Edit(**)", "Bash"])  # type: ignore[arg-type]
    ctx = _ctx(project)
    decision = await _decide(policy, _tool("Write"), ctx, file_path=relative, content="x = 1\n")
    assert isinstance(decision, PermissionAsk), (relative, decision)
    assert "import" in decision.message
    folder = relative.split("/")[0]
    bash = await _decide(policy, _tool("Bash"), ctx, command=f"mkdir -p {folder} 2>/dev/null; echo 'x = 1' > {relative}")
    assert isinstance(bash, PermissionAsk), (relative, bash)


@pytest.mark.parametrize("relative", ORDINARY)
async def test_ordinary_project_files_do_not(project: Path, relative: str) -> None:
    policy = RuleBasedPolicy(project_dir=project, home=project.parent, mode="acceptEdits")
    decision = await _decide(policy, _tool("Write"), _ctx(project), file_path=relative, content="x")
    assert isinstance(decision, PermissionAllow), (relative, decision)


async def test_any_sys_path_directory_counts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``sys.path.append("src")`` in a notebook, or an editable install's path entry."""
    project = tmp_path / "elsewhere"
    (project / "src").mkdir(parents=True)
    monkeypatch.setattr(sys, "path", [*sys.path, str(project / "src")])
    policy = RuleBasedPolicy(project_dir=project, home=tmp_path, mode="bypassPermissions")
    ctx = _ctx(project)
    asked = await _decide(policy, _tool("Write"), ctx, file_path="src/html2text.py", content="x")
    assert isinstance(asked, PermissionAsk), asked
    fine = await _decide(policy, _tool("Write"), ctx, file_path="helpers.py", content="x")  # project not on sys.path
    assert isinstance(fine, PermissionAllow), fine
