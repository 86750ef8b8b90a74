from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from nb_agent.engine import EngineConfig, QueryEngine
from nb_agent.testing import ScriptedTransport


@pytest.fixture
def hook_engine(tmp_path: Path):
    """``make(turns, hooks, tools)`` → (engine, transport), working in ``tmp_path``."""

    def make(turns: list[Any], hooks: Any, tools: list[Any], **kwargs: Any) -> tuple[QueryEngine, ScriptedTransport]:
        transport = ScriptedTransport(turns)
        engine = QueryEngine(config=EngineConfig(cwd=tmp_path), tools=tools, transport=transport, hooks=hooks, **kwargs)
        return engine, transport

    return make


class HookScripts:
    """Real command hooks written as Python scripts: each logs the JSON it got on stdin
    (one line per run in ``<name>.jsonl``) and then prints/exits as told."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def command(self, name: str, *, stdout: str = "", stderr: str = "", exit: int = 0, sleep: float = 0.0) -> str:
        import sys

        path = self.root / f"{name}.py"
        path.write_text(
            "import json, os, sys, time\n"
            "data = json.loads(sys.stdin.read())\n"
            "data['_env_project_dir'] = os.environ.get('CLAUDE_PROJECT_DIR')\n"
            "data['_process_cwd'] = os.getcwd()\n"
            f"open({str(self.log(name))!r}, 'a').write(json.dumps(data) + '\\n')\n"
            f"time.sleep({sleep!r})\n"
            f"sys.stdout.write({stdout!r})\n"
            f"sys.stderr.write({stderr!r})\n"
            f"sys.exit({exit!r})\n"
        )
        return f"{sys.executable} {path}"

    def log(self, name: str) -> Path:
        return self.root / f"{name}.jsonl"

    def inputs(self, name: str) -> list[dict[str, Any]]:
        import json

        path = self.log(name)
        return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


@pytest.fixture
def scripts(tmp_path: Path) -> HookScripts:
    root = tmp_path / "hook-scripts"
    root.mkdir()
    return HookScripts(root)


def settings_hooks(section: dict[str, Any], *, project_dir: Path | None = None) -> Any:
    """A registry from a settings ``hooks`` object (as a user's settings file holds it)."""
    from nb_agent.hooks import Hooks

    registry, warnings = Hooks.from_settings(section, project_dir=str(project_dir) if project_dir else None)
    assert warnings == []
    return registry


def one(event_command: str, matcher: str | None = None) -> list[dict[str, Any]]:
    entry: dict[str, Any] = {"hooks": [{"type": "command", "command": event_command}]}
    if matcher is not None:
        entry["matcher"] = matcher
    return [entry]
