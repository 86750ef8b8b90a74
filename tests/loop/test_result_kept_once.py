"""A tool result is kept once: what the model saw (and a file with the rest when it was too
large), never the whole output again beside it, in memory or in the transcript."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from nb_agent.loop.pipeline import ToolRunDeps, run_tool_use
from nb_agent.messages import ContentBlock
from nb_agent.testing import tool_use
from nb_agent.testing.harness import tool_context
from nb_agent.tools.base import ProgressCallback, Tool, ToolResult, ToolUseContext
from nb_agent.tools.bash.tool import BashResult, BashTool
from nb_agent.tools.files.read import ReadTool


class Matches:
    """A broad search's output: much more than the model is shown."""

    def __init__(self, text: str) -> None:
        self.text = text


class _Query(BaseModel):
    pattern: str = ""


class BroadGrep(Tool[_Query]):
    name = "BroadGrep"
    input_model = _Query
    max_result_size_chars = 30_000

    def prompt(self) -> str:
        return "search everything"

    async def call(self, input: _Query, ctx: ToolUseContext, on_progress: ProgressCallback) -> ToolResult:
        return ToolResult(data=Matches("match line\n" * 400_000))  # 4.4 MB

    def map_result_to_block(self, data: Any, tool_use_id: str) -> str | list[ContentBlock]:
        return data.text if isinstance(data, Matches) else super().map_result_to_block(data, tool_use_id)


async def test_a_persisted_result_keeps_a_preview_and_a_path_never_the_whole(tmp_path: Path):
    tool = BroadGrep()
    outputs: list[weakref.ref[Matches]] = []
    real_call = tool.call

    async def call(input: _Query, ctx: ToolUseContext, on_progress: ProgressCallback) -> ToolResult:
        result = await real_call(input, ctx, on_progress)
        outputs.append(weakref.ref(result.data))
        return result

    tool.call = call  # type: ignore[method-assign]
    updates = [u async for u in run_tool_use(tool_use("BroadGrep", {"pattern": "x"}), tool_context([tool], session_dir=tmp_path), ToolRunDeps())]
    message = updates[-1].message
    content = message.content[0]["content"]
    assert content.startswith("<persisted-output>") and len(content) < 5_000
    saved = Path(content.split("Full output saved to: ")[1].split("\n")[0])
    assert saved.stat().st_size == len("match line\n" * 400_000)
    assert message.tool_use_result is None
    del updates
    gc.collect()
    assert outputs[0]() is None  # nothing holds the 4.4 MB any more


def test_tools_whose_output_is_their_content_keep_no_second_copy():
    assert ReadTool().structured_output("the file's text") is None
    bash = BashResult(command="ls", output="a\nb\n" * 1_000, exit_code=0, sandboxed=True)
    kept = BashTool().structured_output(bash)
    assert kept.output == "" and (kept.exit_code, kept.sandboxed, kept.command) == (0, True, "ls")
