"""Edit keeps a file's encoding, BOM, line endings and quote style; only the edit changes."""

from __future__ import annotations

import pytest

from nb_agent.tools.files import EditTool, ReadTool
from nb_agent.tools.files.encoding import decode_bytes, detect_line_ending, encode_text
from nb_agent.tools.files.matching import find_actual_string, preserve_quote_style

LQ, RQ, LS, RS = "\u201c", "\u201d", "\u2018", "\u2019"


async def _edit(run, path, old, new, **kw):
    read = await run(ReadTool(), file_path=str(path))
    assert read.ok, read.content
    out = await run(EditTool(), file_path=str(path), old_string=old, new_string=new, **kw)
    assert out.ok, out.content
    return out


async def test_utf16le_with_bom_is_written_back_as_utf16le(tmp_path, run):
    path = tmp_path / "u16.txt"
    path.write_bytes(b"\xff\xfe" + "naïve = 1\r\nother = 2\r\n".encode("utf-16-le"))
    await _edit(run, path, "naïve = 1", "naïve = 10")
    assert path.read_bytes() == b"\xff\xfe" + "naïve = 10\r\nother = 2\r\n".encode("utf-16-le")


async def test_utf8_bom_is_kept(tmp_path, run):
    path = tmp_path / "bom.csv"
    path.write_bytes(b"\xef\xbb\xbfa,b\n1,2\n")
    await _edit(run, path, "1,2", "3,4")
    assert path.read_bytes() == b"\xef\xbb\xbfa,b\n3,4\n"


async def test_crlf_endings_are_kept_including_in_new_lines(tmp_path, run):
    path = tmp_path / "win.bat"
    path.write_bytes(b"@echo off\r\necho one\r\n")
    await _edit(run, path, "echo one", "echo one\necho two")
    assert path.read_bytes() == b"@echo off\r\necho one\r\necho two\r\n"


async def test_lf_file_stays_lf(tmp_path, run):
    path = tmp_path / "unix.sh"
    path.write_bytes(b"a\nb\n")
    await _edit(run, path, "a", "a2")
    assert path.read_bytes() == b"a2\nb\n"


async def test_curly_double_quotes_in_the_file_are_kept(tmp_path, run):
    path = tmp_path / "prose.md"
    path.write_text(f"She wrote {LQ}draft{RQ} on it.\n")
    await _edit(run, path, 'wrote "draft"', 'wrote "final"')
    assert path.read_text() == f"She wrote {LQ}final{RQ} on it.\n"


async def test_curly_apostrophes_and_single_quotes_are_kept(tmp_path, run):
    path = tmp_path / "prose.md"
    path.write_text(f"It{RS}s {LS}fine{RS}.\n")
    await _edit(run, path, "It's 'fine'", "It's 'great', isn't it")
    assert path.read_text() == f"It{RS}s {LS}great{RS}, isn{RS}t it.\n"


async def test_curly_input_on_a_straight_file_is_straightened(tmp_path, run):
    path = tmp_path / "code.py"
    path.write_text('msg = "hi"\n')
    await _edit(run, path, f"msg = {LQ}hi{RQ}", f"msg = {LQ}hello{RQ}")
    assert path.read_text() == 'msg = "hello"\n'


async def test_invalid_utf8_bytes_elsewhere_survive_an_edit(tmp_path, run):
    path = tmp_path / "latin1.txt"
    path.write_bytes(b"caf\xe9\nprice = 1\n")
    await _edit(run, path, "price = 1", "price = 2")
    assert path.read_bytes() == b"caf\xe9\nprice = 2\n"


@pytest.mark.parametrize(
    ("text", "expected"),
    [("a\nb\n", "LF"), ("a\r\nb\r\n", "CRLF"), ("a\r\nb\nc\n", "LF"), ("a\r\nb\r\nc\n", "CRLF"), ("", "LF")],
)
def test_line_ending_majority(text, expected):
    assert detect_line_ending(text) == expected


@pytest.mark.parametrize(
    "raw",
    [
        b"plain\nutf8 \xc3\xa9\n",
        b"\xef\xbb\xbfbom\r\n",
        b"\xff\xfe" + "utf16 \u20ac\r\nx".encode("utf-16-le"),
        b"bad \xff byte\n",
    ],
)
def test_decode_then_encode_round_trips(raw):
    decoded = decode_bytes(raw)
    assert "\r" not in decoded.text
    assert encode_text(decoded.text, decoded.format) == raw


def test_find_actual_string_returns_the_file_spelling():
    content = f"say {LQ}hi{RQ}"
    assert find_actual_string(content, 'say "hi"') == f"say {LQ}hi{RQ}"
    assert find_actual_string(content, "absent") is None


def test_preserve_quote_style_is_a_no_op_for_exact_matches():
    assert preserve_quote_style('"a"', '"a"', '"b"') == '"b"'
    assert preserve_quote_style('"a"', f"{LQ}a{RQ}", '("b")') == f"({LQ}b{RQ})"
