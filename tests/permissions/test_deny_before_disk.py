"""Audit defect 5: a deny rule answers before a tool looks at the disk (seed 003 §3.6 step
④), so a denied path's calls say nothing about whether the file exists, how large it is,
or whether it was read."""

from __future__ import annotations

import pytest

from nb_agent.agent import create_engine
from nb_agent.engine import EngineConfig, EngineOptions
from nb_agent.model.retry import NO_RETRIES
from nb_agent.testing import Reply, ScriptedTransport, text, tool_use
from nb_agent.testing.collect import collect, tool_results_sent

CALLS = {
    "Edit": lambda p: {"file_path": p, "old_string": "a", "new_string": "b"},
    "Write": lambda p: {"file_path": p, "content": "x"},
    "Read": lambda p: {"file_path": p},
}


@pytest.mark.parametrize("tool", CALLS)
async def test_a_denied_path_looks_the_same_whether_it_exists_or_not(tmp_path, tool) -> None:
    project, home = tmp_path / "project", tmp_path / "home"
    (project / "secrets").mkdir(parents=True)
    home.mkdir()
    (project / "secrets" / "big.env").write_text("K=V\n" * 200_000)  # exists, large, never read
    paths = {"exists": str(project / "secrets" / "big.env"), "missing": str(project / "secrets" / "none.env")}
    turns = [Reply(content=[tool_use(tool, CALLS[tool](p), id=f"t_{k}")]) for k, p in paths.items()] + [Reply(content=[text("ok")])]
    transport = ScriptedTransport(turns)
    config = EngineConfig(cwd=project, model="claude-sonnet-4-6", options=EngineOptions(retry_policy=NO_RETRIES))
    engine, _ = create_engine(
        config=config, transport=transport, home=home, agents=False, mcp=False, permission_mode="acceptEdits",
        deny=["Edit(secrets/**)", "Read(secrets/**)"],
    )
    await collect(engine, "try")
    results = {k: v["text"] for k, v in _sent(transport).items()}
    assert "denied by the rule" in results["t_exists"]
    assert results["t_exists"].replace("big.env", "X") == results["t_missing"].replace("none.env", "X")


def _sent(transport) -> dict[str, dict]:
    return tool_results_sent(transport.requests)
