"""Family 7 for Grep and Glob: a search never returns what Read may not read."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from nb_agent.abort import AbortController
from nb_agent.permissions import RuleBasedPolicy
from nb_agent.permissions.types import PermissionDeny
from nb_agent.tools.base import ToolSession, ToolUseContext
from nb_agent.tools.files import GlobTool, GrepTool
from nb_agent.tools.services import ToolServices


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "src" / "deep").mkdir(parents=True)
    (root / "secrets").mkdir()
    for relative in (".env", "src/.env", "secrets/key.txt", "src/deep/config.yml", "ok.txt", "src/a.py"):
        (root / relative).write_text("TOKEN=abc\n")
    return root


def context(project: Path, cwd: Path, deny: list[str]) -> tuple[RuleBasedPolicy, ToolUseContext]:
    policy = RuleBasedPolicy(project_dir=project, deny=deny)
    ctx = ToolUseContext(
        abort_controller=AbortController(), session=ToolSession(cwd=cwd), services=ToolServices(read_scope=policy.read_scope)
    )
    return policy, ctx


def found(tool: GrepTool | GlobTool, ctx: ToolUseContext, **raw: object) -> str:
    parsed = tool.parse_input(raw)
    assert asyncio.run(tool.validate_input(parsed, ctx)).ok
    result = asyncio.run(tool.call(parsed, ctx, lambda _progress: None))
    return str(tool.map_result_to_block(result.data, "toolu_test"))


CASES = [
    (["Read(./.env)"], {".env"}),
    (["Read(.env)"], {".env", "src/.env"}),
    (["Read(**/.env)"], {".env", "src/.env"}),
    (["Read(./secrets/**)"], {"secrets/key.txt"}),
    (["Read(secrets/)"], {"secrets/key.txt"}),
    (["Read(/src/deep/*.yml)"], {"src/deep/config.yml"}),
    (["Read(*.yml)", "Read(./.env)"], {"src/deep/config.yml", ".env"}),
]


@pytest.mark.parametrize(("deny", "hidden"), CASES)
@pytest.mark.parametrize("where", ["project", "src"])
def test_grep_and_glob_leave_out_denied_files(project: Path, deny: list[str], hidden: set[str], where: str) -> None:
    cwd = project if where == "project" else project / "src"
    _, ctx = context(project, cwd, deny)
    for mode in ("content", "files_with_matches", "count"):
        for path in (None, str(project), str(project / "src")):
            text = found(GrepTool(), ctx, pattern="TOKEN", output_mode=mode, path=path)
            for relative in hidden:
                assert str(project / relative) not in text, (mode, path, relative, text)
            searched_project = path == str(project) or (path is None and cwd == project)
            if searched_project and mode != "count":
                assert str(project / "ok.txt") in text, (mode, path, text)  # the rest is still found
    for pattern in ("**/*", "**/.env", ".env", "**/*.yml", "secrets/*"):
        for path in (None, str(project)):
            text = found(GlobTool(), ctx, pattern=pattern, path=path)
            for relative in hidden:
                assert str(project / relative) not in text, (pattern, relative, text)
    # The input's own globs cannot bring them back.
    text = found(GrepTool(), ctx, pattern="TOKEN", output_mode="content", glob=".env", path=str(project))
    for relative in hidden:
        assert str(project / relative) not in text


def test_files_no_rule_covers_are_still_found(project: Path) -> None:
    _, ctx = context(project, project, ["Read(./.env)"])
    text = found(GrepTool(), ctx, pattern="TOKEN", output_mode="files_with_matches", path=str(project))
    assert str(project / "ok.txt") in text and str(project / "src" / ".env") in text
    assert str(project / ".env") not in text


def test_grep_naming_a_denied_file_is_denied(project: Path) -> None:
    policy, ctx = context(project, project, ["Read(./.env)"])
    grep = GrepTool()
    parsed = grep.parse_input({"pattern": "TOKEN", "path": ".env", "output_mode": "content"})
    assert asyncio.run(grep.validate_input(parsed, ctx)).ok
    assert isinstance(asyncio.run(policy.decide(grep, parsed, ctx)), PermissionDeny)


@pytest.mark.parametrize(("deny", "hidden"), CASES)
@pytest.mark.parametrize("spelling", ["symlinked project", "/proc/self/root"])
def test_a_search_path_spelled_through_a_link_still_leaves_out_denied_files(
    project: Path, tmp_path: Path, deny: list[str], hidden: set[str], spelling: str
) -> None:
    """ripgrep anchors exclusions at its real working directory: a project reached through
    a symlink (a symlinked home, macOS's /tmp) returned the denied files' contents."""
    if spelling == "symlinked project":
        root = tmp_path / "link"
        root.symlink_to(project)
    else:
        root = Path(f"/proc/self/root{project}")
        if not root.is_dir():
            pytest.skip("no /proc")
    for mode in ("bypassPermissions", "default"):
        policy = RuleBasedPolicy(project_dir=root, deny=deny, mode=mode)  # type: ignore[arg-type]
        ctx = ToolUseContext(abort_controller=AbortController(), session=ToolSession(cwd=root), services=ToolServices(read_scope=policy.read_scope))
        for path in (None, str(root)):
            text = found(GrepTool(), ctx, pattern="TOKEN", output_mode="content", path=path)
            shown = {line.split(":", 1)[0] for line in text.splitlines()}
            relatives = {name.replace(str(root), "").replace(str(project), "").lstrip("/") for name in shown}
            assert "ok.txt" in relatives and not relatives & hidden, (path, text)
