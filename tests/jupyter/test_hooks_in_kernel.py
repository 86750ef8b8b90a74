"""Hooks from a project's .claude/settings.json in a real kernel: SessionStart at the first
cell, a refused prompt shown in the cell, %agent hooks, %agent new, SessionEnd at shutdown."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from nb_agent.testing import Reply, text

GATE = """#!/bin/bash
input=$(cat)
if grep -q 'prod' <<<"$input"; then
  echo "Prompts about prod need a change ticket (CHG-...)." >&2
  exit 2
fi
echo "Context from the team hook: the release is on Friday."
"""


def _log_hook(root: Path, name: str, stdout: str = "") -> str:
    script = root / f"{name}.py"
    script.write_text(
        "import json, sys\n"
        f"open({str(root / (name + '.jsonl'))!r}, 'a').write(sys.stdin.read().strip() + '\\n')\n"
        f"print({stdout!r})\n"
    )
    return f"{sys.executable} {script}"


def _inputs(root: Path, name: str) -> list[dict]:
    path = root / f"{name}.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def _project(cwd: Path) -> Path:
    hooks_dir = cwd / "hooks"
    hooks_dir.mkdir()
    gate = hooks_dir / "gate.sh"
    gate.write_text(GATE)
    gate.chmod(0o755)
    settings = {
        "hooks": {
            "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "$CLAUDE_PROJECT_DIR/hooks/gate.sh"}]}],
            "SessionStart": [{"hooks": [{"type": "command", "command": _log_hook(hooks_dir, "start", "Session notes: use pandas.")}]}],
            "SessionEnd": [{"hooks": [{"type": "command", "command": _log_hook(hooks_dir, "end")}]}],
            "PostCompact": [{"hooks": [{"type": "command", "command": "true"}]}],
        }
    }
    (cwd / ".claude").mkdir()
    (cwd / ".claude" / "settings.json").write_text(json.dumps(settings))
    return hooks_dir


def _bundle_text(execution) -> str:
    return execution.final_bundle.get("text/plain", "") + execution.final_bundle.get("text/html", "")


def test_session_hooks_and_a_refused_prompt_in_a_kernel(make_kernel):
    kernel = make_kernel("hooks-project")
    hooks_dir = _project(kernel.cwd)
    assert kernel.run("%load_ext nb_agent").status == "ok"
    trusted = kernel.run("%agent trust")  # the project's hooks are the subject: the user trusts it
    assert f"Trusted {kernel.cwd}" in trusted.stdout, trusted.stdout
    start = len(kernel.server.requests)

    kernel.server.script.add(Reply(content=[text("Noted.")]))
    first = kernel.run("%%agent\nsummarize the sales data", timeout=60)
    assert first.status == "ok", first.errors
    [started] = _inputs(hooks_dir, "start")
    assert started["source"] == "startup" and started["cwd"] == str(kernel.cwd)
    sent = json.dumps(kernel.server.requests[start]["messages"])
    assert "Session notes: use pandas." in sent and "the release is on Friday" in sent

    refused = kernel.run("%%agent\ndeploy the model to prod", timeout=60)
    assert refused.status == "ok" and not refused.errors, "a refused prompt is not an error"
    assert len(kernel.server.requests) == start + 1, "nothing was sent to the model"
    assert "Prompts about prod need a change ticket" in _bundle_text(refused)
    assert "deploy the model to prod" not in kernel.run("%agent history").stdout

    listed = kernel.run("%agent hooks").stdout
    assert "UserPromptSubmit" in listed and "gate.sh" in listed
    assert f"project ({kernel.cwd / '.claude' / 'settings.json'})" in listed
    assert "PostCompact" in listed and "not supported" in listed
    assert "'PostCompact' is not supported" in kernel.run("%agent status").stdout

    new = kernel.run("%agent new")
    assert "Started a new conversation" in new.stdout
    assert [e["reason"] for e in _inputs(hooks_dir, "end")] == ["clear"]
    assert [s["source"] for s in _inputs(hooks_dir, "start")] == ["startup", "clear"]

    first_session = _inputs(hooks_dir, "start")[0]["session_id"]
    resumed = kernel.run(f"%agent resume {first_session}")
    assert "Resumed session" in resumed.stdout, resumed.stdout
    assert [s["source"] for s in _inputs(hooks_dir, "start")][-1] == "resume"
    assert _inputs(hooks_dir, "start")[-1]["session_id"] == first_session
    assert [e["reason"] for e in _inputs(hooks_dir, "end")] == ["clear", "other"], "the cleared session ended on resume"

    kernel.server.script.add(Reply(content=[text("fresh")]))
    assert kernel.run("%%agent --new\nhello again", timeout=60).status == "ok"
    assert [e["reason"] for e in _inputs(hooks_dir, "end")] == ["clear", "other", "clear"]
    assert [s["source"] for s in _inputs(hooks_dir, "start")][-1] == "clear"

    kernel.shutdown_gracefully()
    deadline = time.monotonic() + 10
    while len(_inputs(hooks_dir, "end")) < 4 and time.monotonic() < deadline:
        time.sleep(0.1)
    ends = _inputs(hooks_dir, "end")
    assert [e["reason"] for e in ends] == ["clear", "other", "clear", "other"], "SessionEnd runs when the kernel shuts down"
    assert ends[-1]["session_id"] == _inputs(hooks_dir, "start")[-1]["session_id"]
