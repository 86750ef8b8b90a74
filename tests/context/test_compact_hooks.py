"""Autocompact runs PreCompact (trigger ``auto``) and SessionStart (source ``compact``) hooks."""

from __future__ import annotations

import json
import sys

from nb_agent.context.config import ContextConfig
from nb_agent.hooks import Hooks
from nb_agent.testing import Reply, text, tool_use
from nb_agent.testing.collect import assert_history_invariant, collect

SMALL = dict(context_window=60_000, microcompact=False)


def _hook(tmp_path, name: str, stdout: str) -> str:
    script = tmp_path / f"{name}.py"
    log = tmp_path / f"{name}.jsonl"
    script.write_text(f"import sys\nopen({str(log)!r}, 'a').write(sys.stdin.read() + '\\n')\nprint({stdout!r})\n")
    return f"{sys.executable} {script}"


async def test_autocompact_runs_pre_compact_and_session_start(tmp_path, make_engine, sized_tool, fake_model):
    hooks, warnings = Hooks.from_settings(
        {
            "PreCompact": [{"matcher": "auto", "hooks": [{"type": "command", "command": _hook(tmp_path, "pre", "Keep the list of fetched labels.")}]}],
            "SessionStart": [{"matcher": "compact", "hooks": [{"type": "command", "command": _hook(tmp_path, "start", "Project rules: fetch in order.")}]}],
        }
    )
    assert warnings == []
    turns = [Reply(content=[tool_use("Fetch", {"chars": 16_000, "label": f"r{i}"}, id=f"t{i}")]) for i in range(10)]
    model = fake_model([*turns, Reply(content=[text("done")])], summary_text="ten fetches, most done")
    engine = make_engine(model.transport(), context=ContextConfig(**SMALL, keep_recent_tokens=5_000), tools=[sized_tool("Fetch")], hooks=hooks)
    out = await collect(engine, "fetch ten things")
    assert out.result.subtype == "success"
    pre = [json.loads(line) for line in (tmp_path / "pre.jsonl").read_text().splitlines()]
    assert [(p["trigger"], p["custom_instructions"]) for p in pre] == [("auto", "")]
    assert "Keep the list of fetched labels." in json.dumps(model.summary_requests[0])
    start = [json.loads(line) for line in (tmp_path / "start.jsonl").read_text().splitlines()]
    assert [s["source"] for s in start] == ["compact"]
    after = next(r for r in model.main_requests if "ten fetches, most done" in json.dumps(r))
    sent = json.dumps(after["messages"])
    assert sent.index("ten fetches, most done") < sent.index("Project rules: fetch in order.")
    assert_history_invariant(engine.messages)
