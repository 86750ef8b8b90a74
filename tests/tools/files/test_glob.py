"""Glob: gitignore-style patterns through ripgrep, newest first, capped at 100."""

from __future__ import annotations

import os
import subprocess

from nb_agent.tools.files import GlobResult, GlobTool
from nb_agent.tools.files.glob import MAX_RESULTS, TRUNCATION_NOTE, split_pattern


def _touch(path, mtime=None):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("x")
    if mtime is not None:
        os.utime(path, (mtime, mtime))
    return path


async def test_results_are_absolute_and_newest_first(tmp_path, run):
    old = _touch(tmp_path / "old.py", 1_000_000)
    new = _touch(tmp_path / "pkg" / "new.py", 3_000_000)
    mid = _touch(tmp_path / "mid.py", 2_000_000)
    _touch(tmp_path / "notes.txt")
    out = await run(GlobTool(), pattern="**/*.py")
    assert out.text == "\n".join(map(str, (new, mid, old)))
    assert isinstance(out.data, GlobResult) and out.data.num_files == 3 and not out.data.truncated


async def test_a_bare_pattern_matches_at_any_depth_and_a_slashed_one_is_anchored(tmp_path, run):
    top = _touch(tmp_path / "src" / "a.py")
    deep = _touch(tmp_path / "src" / "sub" / "b.py")
    _touch(tmp_path / "other" / "src" / "c.py")
    anywhere = await run(GlobTool(), pattern="*.py")
    assert anywhere.data.num_files == 3
    anchored = await run(GlobTool(), pattern="src/*.py")
    assert anchored.data.filenames == [str(top)]
    recursive = await run(GlobTool(), pattern="src/**/*.py")
    assert set(recursive.data.filenames) == {str(top), str(deep)}


async def test_braces_and_path_argument(tmp_path, run):
    ts = _touch(tmp_path / "web" / "a.ts")
    tsx = _touch(tmp_path / "web" / "b.tsx")
    _touch(tmp_path / "a.ts")
    out = await run(GlobTool(), pattern="*.{ts,tsx}", path="web")
    assert set(out.data.filenames) == {str(ts), str(tsx)}


async def test_hidden_and_gitignored_files_are_listed_but_not_vcs_dirs(tmp_path, run):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text("data/\n")
    data = _touch(tmp_path / "data" / "train.csv")
    env = _touch(tmp_path / ".env.csv")
    _touch(tmp_path / ".git" / "x.csv")
    out = await run(GlobTool(), pattern="**/*.csv")
    assert set(out.data.filenames) == {str(data), str(env)}


async def test_results_are_capped_with_a_note(tmp_path, run):
    for i in range(MAX_RESULTS + 20):
        _touch(tmp_path / f"f{i:03}.log", 1_000_000 + i)
    out = await run(GlobTool(), pattern="*.log")
    assert out.data.num_files == MAX_RESULTS + 20 and out.data.truncated
    assert len(out.data.filenames) == MAX_RESULTS
    assert out.data.filenames[0] == str(tmp_path / f"f{MAX_RESULTS + 19:03}.log")
    assert out.text.endswith("\n" + TRUNCATION_NOTE)


async def test_absolute_pattern_brings_its_own_directory(tmp_path, run):
    here = _touch(tmp_path / "proj" / "x.py")
    _touch(tmp_path / "proj" / "deeper" / "y.py")
    out = await run(GlobTool(), pattern=str(tmp_path / "proj" / "*.py"), path="/nonexistent-ignored")
    assert out.data.filenames == [str(here)]


def test_split_pattern(tmp_path):
    assert split_pattern("./src/*.py", tmp_path) == (tmp_path, "src/*.py")
    assert split_pattern("/a/b/**/*.py", tmp_path) == (tmp_path.__class__("/a/b"), "**/*.py")
    assert split_pattern("/a/b/c.py", tmp_path) == (tmp_path.__class__("/a/b"), "/c.py")


async def test_no_match_says_so(tmp_path, run):
    out = await run(GlobTool(), pattern="*.nothing")
    assert out.ok and out.text == "No files found"


async def test_missing_directory_and_file_as_directory_are_refused(tmp_path, run):
    missing = await run(GlobTool(), pattern="*", path="nope")
    assert not missing.ok and "Directory does not exist" in missing.text
    _touch(tmp_path / "file.txt")
    not_dir = await run(GlobTool(), pattern="*", path="file.txt")
    assert not not_dir.ok and "not a directory" in not_dir.text


async def test_flags_and_rule_content(tmp_path, ctx):
    tool = GlobTool()
    parsed = tool.parse_input({"pattern": "*.py", "path": "sub"})
    (tmp_path / "sub").mkdir()
    await tool.validate_input(parsed, ctx)
    assert tool.is_read_only(parsed) and tool.is_concurrency_safe(parsed)
    assert tool.max_result_size_chars == 100_000
    assert tool.permission_rule_content(parsed) == str(tmp_path / "sub")
