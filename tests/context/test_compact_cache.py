"""A compaction asks for its summary as the conversation's next request, so the summary
request reads the conversation's prompt cache (seed 003 §3.7), and falls back to the plain
summary request when the conversation would not fit."""

from __future__ import annotations

from pathlib import Path

from nb_agent.agent import builtin_tools, create_engine
from nb_agent.context.compact import SUMMARY_SYSTEM_PROMPT
from nb_agent.engine import EngineConfig
from nb_agent.model.transport import AnthropicTransport
from nb_agent.testing import FakeAnthropicServer, Reply, text, tool_use
from nb_agent.testing.prompt_cache import PromptCacheSimulator


class Recording(PromptCacheSimulator):
    def __init__(self) -> None:
        super().__init__()
        self.log: list[tuple[dict, object]] = []

    def account(self, body):  # type: ignore[no-untyped-def]
        usage = super().account(body)
        self.log.append((body, usage))
        return usage


async def test_a_manual_compaction_reads_the_conversation_from_the_cache(tmp_path: Path) -> None:
    for i in range(3):
        (tmp_path / f"notes_{i}.txt").write_text(f"note {i}: " + "the weekly figures are fine. " * 200)
    turns = [Reply(content=[tool_use("Read", {"file_path": str(tmp_path / f"notes_{i}.txt")}, id=f"t{i}")]) for i in range(3)]
    turns += [Reply(content=[text("Read the three notes.")]), Reply(content=[text("<summary>Three notes were read; all fine.</summary>")])]
    simulator = Recording()
    async with FakeAnthropicServer(turns, prompt_cache=simulator) as server:
        engine, _ = create_engine(
            config=EngineConfig(cwd=tmp_path, model="claude-sonnet-4-6"), transport=AnthropicTransport(client=server.client()),
            tools=builtin_tools(), mcp=False, agents=False, permission_mode="bypassPermissions",
        )  # fmt: skip
        async for _ in engine.submit_message("Read the notes."):
            pass
        result = await engine.compact()
        engine.close()
    assert "Three notes were read" in result.boundary.summary
    summary_body, usage = simulator.log[-1]
    assert summary_body["system"] != SUMMARY_SYSTEM_PROMPT and summary_body["tools"], "the conversation's own shape"
    total = usage.input_tokens + usage.cache_creation_input_tokens + usage.cache_read_input_tokens
    assert usage.cache_read_input_tokens / total >= 0.9, usage
