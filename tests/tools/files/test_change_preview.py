"""What Edit and Write would change, worked out before they run (the approval card shows it),
and the pipeline handing it to the approver with the question. Nothing is written."""

from __future__ import annotations

from pathlib import Path

import pytest

from nb_agent.engine import EngineConfig, QueryEngine
from nb_agent.errors import ToolError
from nb_agent.permissions.types import PermissionAllow, PermissionAsk, PermissionDeny, PermissionPolicy
from nb_agent.testing import Reply, ScriptedTransport, text, tool_use
from nb_agent.testing.collect import collect
from nb_agent.tools.files.change_preview import HEAD_LINES, FileChange, diff_counts
from nb_agent.tools.files.edit import EditTool
from nb_agent.tools.files.freshness import record_file_state
from nb_agent.tools.files.paths import state_key
from nb_agent.tools.files.read import ReadTool
from nb_agent.tools.files.write import WriteTool

LINES = "".join(f"line {n}\n" for n in range(1, 41))


def _read(ctx, path: Path) -> None:
    """As if the model had read ``path`` whole."""
    record_file_state(session=ctx.session, key=state_key(path), path=path, text=path.read_text())


async def _preview(tool, ctx, **raw) -> FileChange:
    parsed = tool.parse_input(raw)
    assert (await tool.validate_input(parsed, ctx)).ok
    change = await tool.change_preview(parsed, ctx)
    assert isinstance(change, FileChange)
    return change


async def test_an_edit_shows_the_region_with_three_lines_of_context_and_writes_nothing(tmp_path, ctx):
    path = tmp_path / "data.txt"
    path.write_text(LINES)
    _read(ctx, path)
    change = await _preview(EditTool(), ctx, file_path=str(path), old_string="line 20\n", new_string="line twenty\n")
    assert path.read_text() == LINES
    assert not change.created and change.path == str(path)
    assert change.diff.splitlines() == [
        f"--- {path}", f"+++ {path}", "@@ -17,7 +17,7 @@",
        " line 17", " line 18", " line 19", "-line 20", "+line twenty", " line 21", " line 22", " line 23",
    ]  # fmt: skip
    assert diff_counts(change.diff) == (1, 1)


async def test_an_edit_that_cannot_apply_has_no_preview_but_says_why(tmp_path, ctx):
    path = tmp_path / "data.txt"
    path.write_text(LINES)
    _read(ctx, path)
    parsed = EditTool().parse_input({"file_path": str(path), "old_string": "not there", "new_string": "x"})
    with pytest.raises(ToolError, match="not found"):  # the pipeline shows no change then
        await EditTool().change_preview(parsed, ctx)


async def test_a_new_file_shows_its_head_and_length(tmp_path, ctx):
    content = "".join(f"row {n}\n" for n in range(100))
    change = await _preview(WriteTool(), ctx, file_path=str(tmp_path / "new.csv"), content=content)
    assert change.created and change.total_lines == 100 and change.diff == ""
    assert change.head.splitlines() == [f"row {n}" for n in range(HEAD_LINES)]
    assert not (tmp_path / "new.csv").exists()


async def test_an_overwrite_shows_a_diff(tmp_path, ctx):
    path = tmp_path / "notes.md"
    path.write_text("a\nb\nc\n")
    _read(ctx, path)
    change = await _preview(WriteTool(), ctx, file_path=str(path), content="a\nB\nc\nd\n")
    assert not change.created
    assert [line for line in change.diff.splitlines() if line[:1] in "+-" and line[:3] not in ("+++", "---")] == ["-b", "+B", "+d"]
    assert path.read_text() == "a\nb\nc\n"


class AskAll(PermissionPolicy):
    async def decide(self, tool, input, ctx):
        return PermissionAsk(message=f"Allow {tool.name}?")


async def test_the_approver_is_asked_with_the_change(tmp_path):
    path = tmp_path / "data.txt"
    path.write_text(LINES)
    requests = []

    async def approver(tool, request, ctx):
        requests.append(request)
        return PermissionAllow() if request.tool_name == "Read" else PermissionDeny(message="no")

    calls = [
        tool_use("Read", {"file_path": str(path)}),
        tool_use("Edit", {"file_path": str(path), "old_string": "line 5\n", "new_string": "line five\n"}),
        tool_use("Edit", {"file_path": str(path), "old_string": "absent", "new_string": "x"}),
    ]
    engine = QueryEngine(
        config=EngineConfig(cwd=tmp_path),
        tools=[ReadTool(), EditTool()],
        transport=ScriptedTransport([Reply(content=calls[:1]), Reply(content=calls[1:2]), Reply(content=calls[2:]), Reply(content=[text("ok")])]),
        permission_policy=AskAll(),
        can_use_tool=approver,
    )
    out = await collect(engine, "go")
    assert out.result.subtype == "success"
    read, edit = requests[0], requests[1]
    assert read.change is None  # a read changes nothing
    assert isinstance(edit.change, FileChange) and "-line 5\n+line five\n" in edit.change.diff
    assert path.read_text() == LINES  # denied: nothing written
    assert len(requests) == 2  # the edit that cannot apply is refused before anyone is asked
