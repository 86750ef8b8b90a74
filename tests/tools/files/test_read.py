"""Read: numbering, ranges, caps, media, notebooks, and the file-state record it leaves."""

from __future__ import annotations

import base64
import io
import json
import math
import os
import sys

import pytest

from nb_agent.tools.files import ImageFileView, NotebookFileView, ReadTool, TextFileView
from nb_agent.tools.files.read import DEFAULT_LINE_LIMIT, MAX_LINE_CHARS, MAX_OUTPUT_CHARS

PNG_1PX = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


async def test_numbers_lines_like_cat_n(tmp_path, run):
    (tmp_path / "a.py").write_text("import os\n\tindented\n")
    out = await run(ReadTool(), file_path=str(tmp_path / "a.py"))
    assert out.ok
    assert out.text == "     1\timport os\n     2\t\tindented"
    assert isinstance(out.data, TextFileView) and out.data.total_lines == 2


async def test_full_read_records_file_state(tmp_path, run, ctx):
    path = tmp_path / "a.txt"
    path.write_text("one\ntwo\n")
    await run(ReadTool(), file_path=str(path))
    state = ctx.session.read_file_state[os.path.realpath(path)]
    assert state.content == "one\ntwo\n"
    assert state.timestamp == os.stat(path).st_mtime
    assert (state.offset, state.limit, state.is_partial_view) == (None, None, False)


async def test_offset_and_limit_select_lines_and_record_the_range(tmp_path, run, ctx):
    path = tmp_path / "a.txt"
    path.write_text("".join(f"line {i}\n" for i in range(1, 11)))
    out = await run(ReadTool(), file_path=str(path), offset=4, limit=3)
    assert out.text.startswith("     4\tline 4\n     5\tline 5\n     6\tline 6")
    assert "(Showing lines 4-6 of 10." in out.text
    state = ctx.session.read_file_state[os.path.realpath(path)]
    assert (state.offset, state.limit, state.content) == (4, 3, "line 4\nline 5\nline 6\n")


async def test_offset_zero_means_the_first_line(tmp_path, run):
    (tmp_path / "a.txt").write_text("x\ny\n")
    out = await run(ReadTool(), file_path=str(tmp_path / "a.txt"), offset=0, limit=1)
    assert out.text.startswith("     1\tx")


async def test_default_limit_is_2000_lines(tmp_path, run, ctx):
    path = tmp_path / "long.txt"
    path.write_text("".join(f"{i}\n" for i in range(1, 2501)))
    out = await run(ReadTool(), file_path=str(path))
    assert out.data.num_lines == DEFAULT_LINE_LIMIT and out.data.total_lines == 2500
    assert "  2000\t2000\n\n(Showing lines 1-2000 of 2500." in out.text
    assert "2001" not in out.text.split("\n\n")[0]
    state = ctx.session.read_file_state[os.path.realpath(path)]
    assert (state.offset, state.limit) == (1, 2000)


async def test_long_lines_are_cut(tmp_path, run, ctx):
    path = tmp_path / "wide.txt"
    path.write_text("a" * 5000 + "\nshort\n")
    out = await run(ReadTool(), file_path=str(path))
    first = out.text.split("\n")[0]
    assert first == "     1\t" + "a" * MAX_LINE_CHARS + "…"
    assert "were cut" in out.text
    # The cache keeps the real line: Edit matches against the file, not the display.
    assert ctx.session.read_file_state[os.path.realpath(path)].content.startswith("a" * 5000)


async def test_output_over_the_cap_is_cut_at_a_line(tmp_path, run, ctx):
    path = tmp_path / "big.txt"
    path.write_text(("b" * 1500 + "\n") * 200)
    out = await run(ReadTool(), file_path=str(path))
    kept = out.data.num_lines
    assert kept == MAX_OUTPUT_CHARS // (1500 + 8)
    assert len(out.text) <= MAX_OUTPUT_CHARS + 200
    assert f"(Showing lines 1-{kept} of 200." in out.text
    assert ctx.session.read_file_state[os.path.realpath(path)].limit == kept


async def test_crlf_is_shown_without_carriage_returns(tmp_path, run, ctx):
    path = tmp_path / "win.txt"
    path.write_bytes(b"a\r\nb\r\n")
    out = await run(ReadTool(), file_path=str(path))
    assert out.text == "     1\ta\n     2\tb"
    assert ctx.session.read_file_state[os.path.realpath(path)].content == "a\nb\n"


async def test_utf16_file_is_decoded(tmp_path, run):
    path = tmp_path / "u16.txt"
    path.write_bytes(b"\xff\xfe" + "héllo\r\nwörld\r\n".encode("utf-16-le"))
    out = await run(ReadTool(), file_path=str(path))
    assert out.text == "     1\théllo\n     2\twörld"


async def test_empty_file_gives_a_note_and_is_recorded(tmp_path, run, ctx):
    path = tmp_path / "empty.txt"
    path.write_text("")
    out = await run(ReadTool(), file_path=str(path))
    assert out.ok and "exists but the contents are empty" in out.text
    assert ctx.session.read_file_state[os.path.realpath(path)].content == ""


async def test_offset_past_the_end_gives_a_note(tmp_path, run, ctx):
    path = tmp_path / "a.txt"
    path.write_text("1\n2\n")
    out = await run(ReadTool(), file_path=str(path), offset=10)
    assert out.ok and "shorter than the provided offset (10). The file has 2 lines." in out.text
    assert os.path.realpath(path) not in ctx.session.read_file_state


async def test_relative_path_resolves_against_the_session_cwd(tmp_path, run):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "f.txt").write_text("rel\n")
    out = await run(ReadTool(), file_path="sub/f.txt")
    assert out.text == "     1\trel"
    assert out.data.file_path == str(tmp_path / "sub" / "f.txt")


async def test_png_is_returned_as_an_image_block(tmp_path, run):
    (tmp_path / "dot.png").write_bytes(PNG_1PX)
    out = await run(ReadTool(), file_path=str(tmp_path / "dot.png"))
    assert isinstance(out.data, ImageFileView)
    assert out.content == [
        {
            "type": "image",
            "source": {"type": "base64", "media_type": "image/png", "data": base64.b64encode(PNG_1PX).decode()},
        }
    ]


async def test_image_media_type_comes_from_the_bytes_not_the_name(tmp_path, run):
    jpeg = b"\xff\xd8\xff\xe0" + b"\x00" * 64
    (tmp_path / "lies.png").write_bytes(jpeg)
    out = await run(ReadTool(), file_path=str(tmp_path / "lies.png"))
    assert out.content[0]["source"]["media_type"] == "image/jpeg"


@pytest.mark.parametrize(
    ("name", "head", "media_type"),
    [("a.gif", b"GIF89a" + b"\x00" * 20, "image/gif"), ("a.webp", b"RIFF\x10\x00\x00\x00WEBPVP8 ", "image/webp")],
)
async def test_gif_and_webp(tmp_path, run, name, head, media_type):
    (tmp_path / name).write_bytes(head)
    out = await run(ReadTool(), file_path=str(tmp_path / name))
    assert out.content[0]["source"]["media_type"] == media_type


async def test_oversized_image_is_shrunk_with_pillow(tmp_path, run):
    image_module = pytest.importorskip("PIL.Image")
    noise = image_module.frombytes("RGB", (1200, 1200), os.urandom(1200 * 1200 * 3))
    buffer = io.BytesIO()
    noise.save(buffer, format="PNG", compress_level=0)
    assert buffer.tell() > 3_750_000
    (tmp_path / "big.png").write_bytes(buffer.getvalue())
    out = await run(ReadTool(), file_path=str(tmp_path / "big.png"))
    source = out.content[0]["source"]
    assert source["media_type"] == "image/jpeg"
    assert len(base64.b64decode(source["data"])) <= 3_750_000


async def test_oversized_image_without_pillow_is_refused(tmp_path, run, monkeypatch):
    monkeypatch.setitem(sys.modules, "PIL", None)
    (tmp_path / "big.png").write_bytes(PNG_1PX + b"\x00" * 3_800_000)
    out = await run(ReadTool(), file_path=str(tmp_path / "big.png"))
    assert not out.ok and "Image is too large" in out.text


async def test_pdf_is_returned_as_a_document_block(tmp_path, run):
    (tmp_path / "doc.pdf").write_bytes(b"%PDF-1.4\n%%EOF\n")
    out = await run(ReadTool(), file_path=str(tmp_path / "doc.pdf"))
    assert out.content[0]["type"] == "document"
    assert out.content[0]["source"]["media_type"] == "application/pdf"


def _notebook() -> dict:
    png = base64.b64encode(PNG_1PX).decode()
    return {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {"language_info": {"name": "python"}},
        "cells": [
            {"id": "intro", "cell_type": "markdown", "metadata": {}, "source": ["# Title\n", "text"]},
            {
                "id": "calc",
                "cell_type": "code",
                "execution_count": 3,
                "metadata": {},
                "source": "print(1 + 1)\n1 / 0",
                "outputs": [
                    {"output_type": "stream", "name": "stdout", "text": ["2\n"]},
                    {
                        "output_type": "error",
                        "ename": "ZeroDivisionError",
                        "evalue": "division by zero",
                        "traceback": ["\x1b[0;31mZeroDivisionError\x1b[0m: division by zero"],
                    },
                ],
            },
            {
                "id": "plot",
                "cell_type": "code",
                "execution_count": 4,
                "metadata": {},
                "source": "plot()",
                "outputs": [
                    {
                        "output_type": "display_data",
                        "metadata": {},
                        "data": {"text/plain": ["<Figure size 640x480>"], "image/png": png},
                    }
                ],
            },
        ],
    }


async def test_notebook_shows_cells_with_outputs_and_images(tmp_path, run, ctx):
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps(_notebook()))
    out = await run(ReadTool(), file_path=str(path))
    assert isinstance(out.data, NotebookFileView) and out.data.num_cells == 3
    blocks = out.content
    assert [b["type"] for b in blocks] == ["text", "image", "text"]
    text = blocks[0]["text"]
    assert '<cell id="intro" cell_type="markdown">\n# Title\ntext\n' in text
    assert '<cell id="calc" cell_type="code" execution_count="3">\nprint(1 + 1)\n1 / 0' in text
    assert '<output type="stream" name="stdout">\n2\n' in text
    assert "ZeroDivisionError: division by zero" in text and "\x1b" not in text
    assert "<Figure size 640x480>" in text
    assert blocks[1]["source"]["media_type"] == "image/png"
    # Recorded as a full view of the raw JSON, so Write may replace the notebook.
    assert json.loads(ctx.session.read_file_state[os.path.realpath(path)].content) == _notebook()


async def test_notebook_without_nbformat_falls_back_to_json(tmp_path, run, monkeypatch):
    monkeypatch.setitem(sys.modules, "nbformat", None)
    notebook = _notebook()
    del notebook["cells"][0]["id"]
    (tmp_path / "nb.ipynb").write_text(json.dumps(notebook))
    out = await run(ReadTool(), file_path=str(tmp_path / "nb.ipynb"))
    assert '<cell id="cell-0" cell_type="markdown">' in out.content[0]["text"]


async def test_invalid_notebook_is_a_clear_error(tmp_path, run):
    (tmp_path / "bad.ipynb").write_text("{not json")
    out = await run(ReadTool(), file_path=str(tmp_path / "bad.ipynb"))
    assert not out.ok and "not valid JSON" in out.text


async def test_flags_and_result_cap():
    tool = ReadTool()
    parsed = tool.parse_input({"file_path": "/x"})
    assert tool.is_read_only(parsed) and tool.is_concurrency_safe(parsed)
    assert math.isinf(tool.max_result_size_chars)
    assert "cat -n" in tool.prompt()


async def test_permission_rule_content_is_the_absolute_path(tmp_path, ctx):
    (tmp_path / "real.txt").write_text("x")
    (tmp_path / "link.txt").symlink_to(tmp_path / "real.txt")
    tool = ReadTool()
    parsed = tool.parse_input({"file_path": "link.txt"})
    assert tool.permission_rule_content(parsed) == "link.txt"  # before validation: no cwd known
    await tool.validate_input(parsed, ctx)
    assert tool.permission_rule_content(parsed) == str(tmp_path / "link.txt")
