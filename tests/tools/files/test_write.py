"""Write: create, overwrite only after a fresh Read, keep the file's encoding."""

from __future__ import annotations

import os

import pytest

from nb_agent.errors import ToolError
from nb_agent.tools.files import EditTool, ReadTool, WriteResult, WriteTool


async def test_creates_a_file_and_its_parent_directories(tmp_path, run, ctx):
    path = tmp_path / "a" / "b" / "new.py"
    out = await run(WriteTool(), file_path=str(path), content="print('hi')\n")
    assert out.ok and out.text == f"File created successfully at: {path}"
    assert path.read_bytes() == b"print('hi')\n"
    assert isinstance(out.data, WriteResult) and out.data.type == "create"
    state = ctx.session.read_file_state[os.path.realpath(path)]
    assert state.content == "print('hi')\n" and state.offset is None


async def test_a_written_file_can_be_edited_without_reading_it(tmp_path, run):
    path = tmp_path / "new.txt"
    await run(WriteTool(), file_path=str(path), content="alpha\n")
    out = await run(EditTool(), file_path=str(path), old_string="alpha", new_string="beta")
    assert out.ok and path.read_text() == "beta\n"


async def test_overwriting_an_unread_file_is_refused(tmp_path, run):
    path = tmp_path / "x.txt"
    path.write_text("original\n")
    out = await run(WriteTool(), file_path=str(path), content="new\n")
    assert not out.ok and "has not been read yet" in out.text
    assert path.read_text() == "original\n"


async def test_overwrite_after_read_reports_a_diff(tmp_path, run):
    path = tmp_path / "x.txt"
    path.write_text("one\ntwo\n")
    await run(ReadTool(), file_path=str(path))
    out = await run(WriteTool(), file_path=str(path), content="one\nthree\n")
    assert out.ok and out.text == f"The file {path} has been overwritten successfully."
    assert out.data.type == "update"
    assert "-two\n+three\n" in out.data.diff
    assert path.read_text() == "one\nthree\n"


async def test_overwrite_is_refused_when_the_file_changed_since_read(tmp_path, run):
    path = tmp_path / "x.txt"
    path.write_text("v1\n")
    await run(ReadTool(), file_path=str(path))
    path.write_text("v2 by the user\n")
    out = await run(WriteTool(), file_path=str(path), content="v3\n")
    assert not out.ok and "modified since read" in out.text
    assert path.read_text() == "v2 by the user\n"


async def test_a_touch_without_changes_does_not_block_the_write(tmp_path, run):
    path = tmp_path / "x.txt"
    path.write_text("same\n")
    await run(ReadTool(), file_path=str(path))
    future = os.stat(path).st_mtime + 10
    os.utime(path, (future, future))
    out = await run(WriteTool(), file_path=str(path), content="other\n")
    assert out.ok


async def test_the_file_is_checked_again_at_call_time(tmp_path, ctx):
    path = tmp_path / "x.txt"
    path.write_text("v1\n")
    tool = WriteTool()
    read = ReadTool()
    await read.call(read.parse_input({"file_path": str(path)}), ctx, lambda _: None)
    parsed = tool.parse_input({"file_path": str(path), "content": "v3\n"})
    assert (await tool.validate_input(parsed, ctx)).ok
    path.write_text("v2 while the user was deciding\n")
    with pytest.raises(ToolError, match="modified since read"):
        await tool.call(parsed, ctx, lambda _: None)
    assert path.read_text() == "v2 while the user was deciding\n"


async def test_crlf_file_stays_crlf(tmp_path, run):
    path = tmp_path / "win.txt"
    path.write_bytes(b"a\r\nb\r\n")
    await run(ReadTool(), file_path=str(path))
    await run(WriteTool(), file_path=str(path), content="x\ny\n")
    assert path.read_bytes() == b"x\r\ny\r\n"


async def test_content_with_its_own_crlf_is_written_as_given(tmp_path, run):
    path = tmp_path / "mixed.txt"
    path.write_bytes(b"a\nb\n")
    await run(ReadTool(), file_path=str(path))
    await run(WriteTool(), file_path=str(path), content="x\r\ny\r\n")
    assert path.read_bytes() == b"x\r\ny\r\n"


async def test_utf16_file_keeps_its_encoding_and_bom(tmp_path, run):
    path = tmp_path / "u16.txt"
    path.write_bytes(b"\xff\xfe" + "old\r\n".encode("utf-16-le"))
    await run(ReadTool(), file_path=str(path))
    await run(WriteTool(), file_path=str(path), content="néw\n")
    assert path.read_bytes() == b"\xff\xfe" + "néw\r\n".encode("utf-16-le")


async def test_new_files_are_plain_utf8(tmp_path, run):
    path = tmp_path / "u.txt"
    await run(WriteTool(), file_path=str(path), content="ünïcode\n")
    assert path.read_bytes() == "ünïcode\n".encode()


async def test_a_directory_cannot_be_written(tmp_path, run):
    (tmp_path / "d").mkdir()
    out = await run(WriteTool(), file_path=str(tmp_path / "d"), content="x")
    assert not out.ok and "is a directory" in out.text


async def test_flags_and_rule_content(tmp_path, ctx):
    tool = WriteTool()
    parsed = tool.parse_input({"file_path": "~/notes.txt", "content": ""})
    assert not tool.is_read_only(parsed) and not tool.is_concurrency_safe(parsed)
    assert tool.permission_rule_content(parsed) == "~/notes.txt"  # the engine expands it
    await tool.validate_input(parsed, ctx)
    assert tool.permission_rule_content(parsed) == os.path.expanduser("~/notes.txt")
    assert "Read tool first" in tool.prompt()
