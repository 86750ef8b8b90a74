"""The file tools facing bad input: binaries, missing files, directories, odd paths, huge files."""

from __future__ import annotations

import os

import pydantic
import pytest

from nb_agent.tools.files import EditTool, GlobTool, GrepTool, ReadTool, WriteTool


async def test_binary_extension_is_refused_before_reading(tmp_path, run):
    (tmp_path / "model.pkl").write_bytes(b"\x80\x04K\x01.")
    out = await run(ReadTool(), file_path=str(tmp_path / "model.pkl"))
    assert not out.ok and "cannot read binary files" in out.text and ".pkl" in out.text


async def test_binary_content_with_a_text_name_is_refused(tmp_path, run):
    (tmp_path / "data.txt").write_bytes(b"ab\x00\x01\x02cd" * 100)
    out = await run(ReadTool(), file_path=str(tmp_path / "data.txt"))
    assert not out.ok and "cannot read binary files" in out.text


async def test_missing_file_suggests_look_alikes(tmp_path, run):
    (tmp_path / "analysis.py").write_text("x\n")
    out = await run(ReadTool(), file_path="analysys.py")
    assert not out.ok
    assert out.text.startswith(
        f"File does not exist: {tmp_path / 'analysys.py'}. Current working directory: {tmp_path}."
    )
    assert str(tmp_path / "analysis.py") in out.text


async def test_missing_file_under_a_file_is_a_clear_error(tmp_path, run):
    (tmp_path / "f.txt").write_text("x")
    out = await run(ReadTool(), file_path=str(tmp_path / "f.txt" / "inner"))
    assert not out.ok and "File does not exist" in out.text


@pytest.mark.parametrize("tool", [ReadTool(), EditTool(), WriteTool()], ids=lambda t: t.name)
async def test_a_directory_given_as_a_file(tmp_path, run, tool):
    (tmp_path / "folder").mkdir()
    raw = {"file_path": str(tmp_path / "folder")}
    if tool.name == "Edit":
        raw |= {"old_string": "a", "new_string": "b"}
    if tool.name == "Write":
        raw |= {"content": "x"}
    out = await run(tool, **raw)
    assert not out.ok and "is a directory" in out.text


async def test_tilde_paths(tmp_path, run, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "home.txt").write_text("at home\n")
    out = await run(ReadTool(), file_path="~/home.txt")
    assert out.text == "     1\tat home"


async def test_dotdot_paths_are_folded(tmp_path, run, ctx):
    (tmp_path / "a").mkdir()
    (tmp_path / "b.txt").write_text("bee\n")
    out = await run(ReadTool(), file_path="a/../b.txt")
    assert out.data.file_path == str(tmp_path / "b.txt")
    assert os.path.realpath(tmp_path / "b.txt") in ctx.session.read_file_state


async def test_paths_above_cwd_resolve(tmp_path, run, ctx):
    sub = tmp_path / "deep" / "er"
    sub.mkdir(parents=True)
    (tmp_path / "top.txt").write_text("top\n")
    ctx.session.cwd = sub
    out = await run(ReadTool(), file_path="../../top.txt")
    assert out.text == "     1\ttop"


async def test_invalid_utf8_is_shown_with_replacement_characters(tmp_path, run):
    (tmp_path / "latin1.txt").write_bytes(b"caf\xe9 au lait\n")
    out = await run(ReadTool(), file_path=str(tmp_path / "latin1.txt"))
    assert out.ok and out.text.startswith("     1\tcaf\ufffd au lait")
    assert "not valid UTF-8" in out.text


async def test_edit_across_invalid_bytes_says_why_it_cannot_match(tmp_path, run):
    path = tmp_path / "latin1.txt"
    path.write_bytes(b"caf\xe9 au lait\n")
    await run(ReadTool(), file_path=str(path))
    out = await run(EditTool(), file_path=str(path), old_string="caf\ufffd", new_string="cafe")
    assert not out.ok and "not valid UTF-8" in out.text
    assert path.read_bytes() == b"caf\xe9 au lait\n"


async def test_huge_sparse_file_is_refused_by_read(tmp_path, run):
    path = tmp_path / "huge.txt"
    with open(path, "wb") as f:
        f.truncate((1 << 30) + 4096)  # sparse: no real gigabyte written
    out = await run(ReadTool(), file_path=str(path), offset=1, limit=10)
    assert not out.ok and "too large to read" in out.text and "Grep" in out.text


async def test_large_file_under_the_cap_reads_a_range_by_streaming(tmp_path, run):
    path = tmp_path / "big.log"
    with open(path, "w") as f:
        for i in range(1, 200_001):
            f.write(f"entry {i}\n")
    out = await run(ReadTool(), file_path=str(path), offset=150_000, limit=2)
    assert out.text.startswith("150000\tentry 150000\n150001\tentry 150001")
    assert "of 200000" in out.text


async def test_device_files_are_refused(run):
    out = await run(ReadTool(), file_path="/dev/zero")
    assert not out.ok and "device" in out.text


async def test_fifo_is_refused_not_waited_on(tmp_path, run):
    os.mkfifo(tmp_path / "pipe")
    out = await run(ReadTool(), file_path=str(tmp_path / "pipe"))
    assert not out.ok and "not a regular file" in out.text


@pytest.mark.parametrize("bad", ["", "   ", "a\x00b"])
async def test_unusable_paths_fail_validation(run, bad):
    out = await run(ReadTool(), file_path=bad)
    assert not out.ok and "path" in out.text.lower()


async def test_grep_with_a_nul_in_the_path(run):
    out = await run(GrepTool(), pattern="x", path="a\x00b")
    assert not out.ok and "NUL" in out.text


def test_schema_errors():
    with pytest.raises(pydantic.ValidationError):
        ReadTool().parse_input({"file_path": "/x", "offset": -1})
    with pytest.raises(pydantic.ValidationError):
        ReadTool().parse_input({"file_path": "/x", "limit": 0})
    with pytest.raises(pydantic.ValidationError):
        EditTool().parse_input({"file_path": "/x", "old_string": "a"})
    with pytest.raises(pydantic.ValidationError):
        WriteTool().parse_input({"file_path": "/x", "content": "", "mode": "append"})


async def test_write_over_a_huge_unread_file_is_refused_without_reading_it(tmp_path, run):
    path = tmp_path / "huge.bin.txt"
    with open(path, "wb") as f:
        f.truncate(2 << 30)  # sparse; reading it would take seconds and gigabytes
    out = await run(WriteTool(), file_path=str(path), content="x")
    assert not out.ok and "has not been read yet" in out.text


async def test_glob_with_an_empty_pattern(run):
    out = await run(GlobTool(), pattern="  ")
    assert not out.ok and "empty" in out.text


async def test_not_really_a_pdf_or_an_image(tmp_path, run):
    (tmp_path / "fake.pdf").write_text("hello")
    (tmp_path / "fake.png").write_text("hello")
    pdf = await run(ReadTool(), file_path=str(tmp_path / "fake.pdf"))
    png = await run(ReadTool(), file_path=str(tmp_path / "fake.png"))
    assert not pdf.ok and "not a valid PDF" in pdf.text
    assert not png.ok and "not a valid PNG, JPEG, GIF or WebP image" in png.text
