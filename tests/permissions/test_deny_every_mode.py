"""Every mode × every tool family: a deny rule denies, and an allow rule or a mode never
beats it (issue 11: deny rules and protected paths apply in every mode)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from nb_agent.permissions import PermissionDeny, RuleBasedPolicy
from nb_agent.permissions.types import PERMISSION_MODES as MODES

# (tool attribute, input, deny rule); the call matches the rule.
CALLS: list[tuple[str, dict[str, Any], str]] = [
    ("read", {"file_path": "secret.txt"}, "Read(./secret.txt)"),
    ("glob", {"file_path": "secrets"}, "Read(./secrets)"),
    ("edit", {"file_path": "src/app.py"}, "Edit(src/**)"),
    ("write", {"file_path": "src/new.py"}, "Edit(./src/**)"),
    ("write", {"file_path": "src/new.py"}, "Write(src/**)"),
    ("notebook_edit", {"file_path": "nb.ipynb"}, "Edit(*.ipynb)"),
    ("web_fetch", {"url": "https://evil.example/x"}, "WebFetch(domain:evil.example)"),
    ("mcp_create_issue", {}, "mcp__github"),
    ("mcp_create_issue", {}, "mcp__github__create_issue"),
    ("mcp_create_issue", {}, "mcp__GitHub__*"),
    ("bash", {"command": "rm -rf build"}, "Bash(rm:*)"),
    ("bash", {"command": "ls"}, "Bash"),
    ("agent", {}, "Agent"),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("tool_name", "raw", "rule"), CALLS, ids=lambda value: str(value)[:30])
async def test_a_deny_rule_denies_in_every_mode_whatever_allows(
    project: Path, home: Path, make_ctx, tools: SimpleNamespace, mode: str, tool_name: str, raw: dict[str, Any], rule: str
) -> None:
    tool = getattr(tools, tool_name)
    family = rule.split("(")[0]
    policy = RuleBasedPolicy(project_dir=project, home=home, mode=mode, deny=[rule], allow=[family, "Bash", "Read", "Edit"])  # type: ignore[arg-type]
    decision = await policy.decide(tool, tool.parse_input(raw), make_ctx(project))
    assert isinstance(decision, PermissionDeny), decision
