"""Edit's validation chain, step by step (seed 003 §3.6), and what a valid edit returns."""

from __future__ import annotations

import os

import pytest

from nb_agent.errors import ToolError
from nb_agent.tools.base import FileState
from nb_agent.tools.files import EditResult, EditTool, ReadTool
from nb_agent.tools.files.edit_validation import apply_edit


async def _read(run, path, **kw):
    out = await run(ReadTool(), file_path=str(path), **kw)
    assert out.ok, out.content


# ① path expansion ------------------------------------------------------------------------


async def test_1_relative_and_dotdot_paths_resolve_against_cwd(tmp_path, run):
    (tmp_path / "pkg").mkdir()
    path = tmp_path / "pkg" / "m.py"
    path.write_text("x = 1\n")
    await _read(run, path)
    out = await run(EditTool(), file_path="pkg/../pkg/m.py", old_string="x = 1", new_string="x = 2")
    assert out.ok and path.read_text() == "x = 2\n"


async def test_1_tilde_expands_to_home(tmp_path, run, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    path = tmp_path / "notes.txt"
    path.write_text("todo\n")
    await _read(run, "~/notes.txt")
    out = await run(EditTool(), file_path="~/notes.txt", old_string="todo", new_string="done")
    assert out.ok and path.read_text() == "done\n"


# ③ no-op ---------------------------------------------------------------------------------


async def test_3_identical_strings_are_refused(tmp_path, run):
    out = await run(EditTool(), file_path=str(tmp_path / "a.txt"), old_string="same", new_string="same")
    assert not out.ok and "No changes to make" in out.text


# ④ deny rules are matched by the permission stage against the resolved path ----------------


async def test_4_rule_content_is_the_absolute_path_as_written(tmp_path, ctx):
    # Symlinks are kept: the permission engine adds the real path and checks both.
    (tmp_path / "real.txt").write_text("x\n")
    (tmp_path / "alias.txt").symlink_to(tmp_path / "real.txt")
    tool = EditTool()
    parsed = tool.parse_input({"file_path": "./sub/../alias.txt", "old_string": "x", "new_string": "y"})
    assert tool.permission_rule_content(parsed) == "./sub/../alias.txt"  # unvalidated: the engine resolves it
    await tool.validate_input(parsed, ctx)
    assert tool.permission_rule_content(parsed) == str(tmp_path / "alias.txt")


# ⑤ UNC paths -----------------------------------------------------------------------------


async def test_5_unc_paths_are_not_touched_during_validation(ctx, monkeypatch):
    # Only stats of the UNC path are refused: os.stat is process-wide, and threads of other
    # parts (traceback's linecache, a background import) may stat their own files meanwhile.
    real_stat = os.stat
    touched: list[object] = []

    def no_unc_stat(path, *args, **kwargs):
        if "server" in os.fspath(path) and "share" in os.fspath(path):
            touched.append(path)
            raise AssertionError("validation touched the filesystem")
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", no_unc_stat)
    tool = EditTool()
    parsed = tool.parse_input({"file_path": r"\\server\share\f.txt", "old_string": "a", "new_string": "b"})
    assert (await tool.validate_input(parsed, ctx)).ok
    assert touched == []


# ⑥ size cap ------------------------------------------------------------------------------


async def test_6_files_over_1_gib_are_refused(tmp_path, run):
    path = tmp_path / "huge.log"
    with open(path, "wb") as f:
        f.truncate((1 << 30) + 1)  # sparse: no real gigabyte written
    out = await run(EditTool(), file_path=str(path), old_string="a", new_string="b")
    assert not out.ok and "too large to edit" in out.text


# ⑦ encoding and line endings (more in test_edit_encodings.py) ----------------------------


async def test_7_crlf_is_compared_as_lf(tmp_path, run):
    path = tmp_path / "win.txt"
    path.write_bytes(b"first\r\nsecond\r\n")
    await _read(run, path)
    out = await run(EditTool(), file_path=str(path), old_string="first\nsecond", new_string="1\n2")
    assert out.ok and path.read_bytes() == b"1\r\n2\r\n"


# ⑧ existence semantics -------------------------------------------------------------------


async def test_8_empty_old_string_creates_a_missing_file(tmp_path, run):
    path = tmp_path / "new" / "file.txt"
    out = await run(EditTool(), file_path=str(path), old_string="", new_string="hello\n")
    assert out.ok and out.text == f"File created successfully at: {path}"
    assert path.read_text() == "hello\n" and out.data.created


async def test_8_nonempty_old_string_on_a_missing_file_is_refused(tmp_path, run):
    (tmp_path / "config.yaml").write_text("")
    out = await run(EditTool(), file_path=str(tmp_path / "config.yml"), old_string="a", new_string="b")
    assert not out.ok and "File does not exist" in out.text
    assert "config.yaml" in out.text  # a look-alike is suggested


async def test_8_empty_old_string_on_a_nonempty_file_is_refused(tmp_path, run):
    path = tmp_path / "a.txt"
    path.write_text("content\n")
    out = await run(EditTool(), file_path=str(path), old_string="", new_string="x")
    assert not out.ok and "Cannot create new file - file already exists." in out.text
    assert path.read_text() == "content\n"


async def test_8_empty_old_string_fills_an_empty_file(tmp_path, run):
    path = tmp_path / "a.txt"
    path.write_text("  \n")
    out = await run(EditTool(), file_path=str(path), old_string="", new_string="filled\n")
    assert out.ok and path.read_text() == "filled\n"


# ⑨ notebooks -----------------------------------------------------------------------------


async def test_9_notebooks_are_refused(tmp_path, run):
    path = tmp_path / "nb.ipynb"
    path.write_text('{"cells": []}')
    await _read(run, path)
    out = await run(EditTool(), file_path=str(path), old_string="[]", new_string="[1]")
    assert not out.ok and "NotebookEdit" in out.text


# ⑩ read first, in full view --------------------------------------------------------------


async def test_10_unread_files_are_refused(tmp_path, run):
    path = tmp_path / "a.txt"
    path.write_text("x\n")
    out = await run(EditTool(), file_path=str(path), old_string="x", new_string="y")
    assert not out.ok and "has not been read yet" in out.text


async def test_10_a_partial_view_is_refused(tmp_path, run, ctx):
    path = tmp_path / "CLAUDE.md"
    path.write_text("# rules\n<!-- hidden -->\n")
    ctx.session.read_file_state[os.path.realpath(path)] = FileState(
        content="# rules\n", timestamp=os.stat(path).st_mtime, is_partial_view=True
    )
    out = await run(EditTool(), file_path=str(path), old_string="# rules", new_string="# Rules")
    assert not out.ok and "has not been read yet" in out.text


async def test_10_a_ranged_read_allows_an_edit(tmp_path, run):
    # Decision: as in Claude Code, offset/limit reads count (large files stay editable);
    # only a partial *view* (content altered for display) is refused.
    path = tmp_path / "a.txt"
    path.write_text("".join(f"line {i}\n" for i in range(1, 50)))
    await _read(run, path, offset=10, limit=5)
    out = await run(EditTool(), file_path=str(path), old_string="line 12\n", new_string="LINE 12\n")
    assert out.ok and "LINE 12\n" in path.read_text()


# ⑪ unchanged since read ------------------------------------------------------------------


async def test_11_an_external_change_is_refused(tmp_path, run):
    path = tmp_path / "a.txt"
    path.write_text("x = 1\n")
    await _read(run, path)
    path.write_text("x = 1\ny = 2\n")
    out = await run(EditTool(), file_path=str(path), old_string="x = 1", new_string="x = 3")
    assert not out.ok and "modified since read" in out.text


async def test_11_a_newer_mtime_with_the_same_content_is_allowed(tmp_path, run):
    path = tmp_path / "a.txt"
    path.write_text("x = 1\n")
    await _read(run, path)
    later = os.stat(path).st_mtime + 5
    os.utime(path, (later, later))
    out = await run(EditTool(), file_path=str(path), old_string="x = 1", new_string="x = 3")
    assert out.ok


async def test_11_a_ranged_read_is_refused_after_any_newer_mtime(tmp_path, run):
    path = tmp_path / "a.txt"
    path.write_text("a\nb\nc\n")
    await _read(run, path, offset=1, limit=1)
    later = os.stat(path).st_mtime + 5
    os.utime(path, (later, later))
    out = await run(EditTool(), file_path=str(path), old_string="a", new_string="A")
    assert not out.ok and "modified since read" in out.text


async def test_11_the_file_is_checked_again_at_call_time(tmp_path, run, ctx):
    path = tmp_path / "a.txt"
    path.write_text("x = 1\n")
    await _read(run, path)
    tool = EditTool()
    parsed = tool.parse_input({"file_path": str(path), "old_string": "x = 1", "new_string": "x = 2"})
    assert (await tool.validate_input(parsed, ctx)).ok
    path.write_text("x = 1  # the user typed this while the prompt was open\n")
    with pytest.raises(ToolError, match="modified since read"):
        await tool.call(parsed, ctx, lambda _: None)


async def test_11_consecutive_edits_need_no_new_read(tmp_path, run):
    path = tmp_path / "a.txt"
    path.write_text("a b c\n")
    await _read(run, path)
    for old, new in (("a", "A"), ("b", "B"), ("c", "C")):
        assert (await run(EditTool(), file_path=str(path), old_string=old, new_string=new)).ok
    assert path.read_text() == "A B C\n"


# ⑫ find the string -----------------------------------------------------------------------


async def test_12_missing_string_is_refused(tmp_path, run):
    path = tmp_path / "a.txt"
    path.write_text("present\n")
    await _read(run, path)
    out = await run(EditTool(), file_path=str(path), old_string="absent", new_string="x")
    assert not out.ok and out.text == "String to replace not found in file.\nString: absent"


async def test_12_quotes_are_matched_modulo_style(tmp_path, run):
    path = tmp_path / "a.md"
    path.write_text("He said \u201chello\u201d.\n")
    await _read(run, path)
    out = await run(EditTool(), file_path=str(path), old_string='said "hello"', new_string='said "bye"')
    assert out.ok and path.read_text() == "He said \u201cbye\u201d.\n"


async def test_12_shortened_tags_are_restored(tmp_path, run):
    path = tmp_path / "prompt.txt"
    path.write_text("<function_results>ok</function_results>\n")
    await _read(run, path)
    out = await run(EditTool(), file_path=str(path), old_string="<fnr>ok", new_string="<fnr>done")
    assert out.ok and path.read_text() == "<function_results>done</function_results>\n"


# ⑬ ambiguity -----------------------------------------------------------------------------


async def test_13_multiple_matches_are_refused_with_the_count(tmp_path, run):
    path = tmp_path / "a.py"
    path.write_text("x = 1\nx = 1\nx = 1\n")
    await _read(run, path)
    out = await run(EditTool(), file_path=str(path), old_string="x = 1", new_string="x = 2")
    assert not out.ok and out.text.startswith("Found 3 matches of the string to replace, but replace_all is false.")


async def test_13_replace_all_replaces_every_match(tmp_path, run):
    path = tmp_path / "a.py"
    path.write_text("old()\nold()\n")
    await _read(run, path)
    out = await run(EditTool(), file_path=str(path), old_string="old", new_string="new", replace_all=True)
    assert out.ok and path.read_text() == "new()\nnew()\n"
    assert out.data.replacements == 2 and "All 2 occurrences were replaced." in out.text


# ⑭ settings files ------------------------------------------------------------------------


async def test_14_settings_files_must_stay_valid_json(tmp_path, run):
    settings = tmp_path / ".nb_agent" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"permissions": {"allow": []}}\n')
    await _read(run, settings)
    out = await run(EditTool(), file_path=str(settings), old_string="[]}", new_string="[}")
    assert not out.ok and "invalid JSON" in out.text
    out = await run(EditTool(), file_path=str(settings), old_string="[]", new_string='["Read"]')
    assert out.ok


# the result --------------------------------------------------------------------------------


async def test_result_has_a_snippet_for_the_model_and_a_diff_for_uis(tmp_path, run):
    path = tmp_path / "a.py"
    path.write_text("".join(f"line{i}\n" for i in range(1, 21)))
    await _read(run, path)
    out = await run(EditTool(), file_path=str(path), old_string="line10\n", new_string="ten\nTEN\n")
    assert isinstance(out.data, EditResult)
    assert out.text.startswith(f"The file {path} has been updated. Here's the result of running `cat -n`")
    assert out.data.snippet.split("\n")[0] == "     6\tline6"
    assert out.data.snippet.split("\n")[-1] == "    15\tline14"
    assert "    10\tten\n    11\tTEN\n" in out.data.snippet
    assert "-line10\n+ten\n+TEN\n" in out.data.diff and out.data.diff.startswith(f"--- {path}\n+++ {path}\n")


def test_deleting_whole_lines_also_removes_their_newline():
    assert apply_edit("a\nb\nc\n", "b", "", replace_all=False) == "a\nc\n"


def test_deleting_the_end_of_a_line_keeps_the_newline():
    assert apply_edit("a, y\nb\n", ", y", "", replace_all=False) == "a\nb\n"


def test_edit_tool_flags():
    tool = EditTool()
    parsed = tool.parse_input({"file_path": "a", "old_string": "b", "new_string": "c"})
    assert not tool.is_read_only(parsed) and not tool.is_concurrency_safe(parsed)
    assert tool.max_result_size_chars == 100_000
    assert "replace_all" in tool.prompt()


async def test_deny_rules_of_the_permission_engine_match_the_edited_path(tmp_path, ctx):
    from nb_agent.permissions.rules import parse_rule, rule_matches

    (tmp_path / "secrets").mkdir()
    (tmp_path / "secrets" / "key.txt").write_text("k\n")
    (tmp_path / "shortcut").symlink_to(tmp_path / "secrets")
    deny = parse_rule("Edit(secrets/**)", behavior="deny")
    tool = EditTool()
    for spelling in (
        "secrets/key.txt",
        "./src/../secrets/key.txt",
        "shortcut/key.txt",
        str(tmp_path / "secrets/key.txt"),
    ):
        parsed = tool.parse_input({"file_path": spelling, "old_string": "k", "new_string": "v"})
        await tool.validate_input(parsed, ctx)
        assert rule_matches(deny, tool, parsed, tmp_path), spelling
