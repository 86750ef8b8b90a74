"""Grep: real ripgrep on real files — modes, flags, filters, limits, errors, abort."""

from __future__ import annotations

import asyncio
import os
import subprocess
import time

import pytest

from nb_agent.errors import AbortError, ToolError
from nb_agent.testing.waiting import eventually
from nb_agent.tools.files import GrepInput, GrepResult, GrepTool
from nb_agent.tools.files.grep import build_rg_args, split_glob
from nb_agent.tools.files.ripgrep import find_rg


@pytest.fixture
def tree(tmp_path):
    """A small project: two Python files, a JS file, a text file, known mtimes."""
    files = {
        "app/main.py": "import os\n\ndef main():\n    print('Hello')\n    return 0\n",
        "app/util.py": "def helper():\n    return 'hello world'\n",
        "web/index.js": "function hello() { return 1 }\n",
        "README.txt": "Nothing here\n",
    }
    for i, (name, text) in enumerate(files.items()):
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        os.utime(path, (1_000_000 + i, 1_000_000 + i))
    return tmp_path


def test_rg_is_found():
    rg = find_rg()
    assert rg is not None and os.access(rg, os.X_OK)
    assert subprocess.run([rg, "--version"], capture_output=True, check=True).stdout.startswith(b"ripgrep")


async def test_files_with_matches_is_the_default_newest_first(tree, run):
    out = await run(GrepTool(), pattern="hello", **{"-i": True})
    assert isinstance(out.data, GrepResult) and out.data.mode == "files_with_matches"
    expected = [tree / "web/index.js", tree / "app/util.py", tree / "app/main.py"]
    assert out.text == "Found 3 files\n" + "\n".join(map(str, expected))


async def test_case_sensitive_by_default(tree, run):
    out = await run(GrepTool(), pattern="Hello")
    assert out.data.filenames == [str(tree / "app/main.py")]


async def test_content_mode_has_line_numbers_by_default(tree, run):
    out = await run(GrepTool(), pattern="return", output_mode="content", path="app")
    assert set(out.text.split("\n")) == {
        f"{tree}/app/main.py:5:    return 0",
        f"{tree}/app/util.py:2:    return 'hello world'",
    }
    plain = await run(GrepTool(), pattern="return 0", output_mode="content", path="app", **{"-n": False})
    assert plain.text == f"{tree}/app/main.py:    return 0"


async def test_context_flags(tree, run):
    main = str(tree / "app/main.py")
    after = await run(GrepTool(), pattern="def main", output_mode="content", path=main, **{"-A": 1})
    assert after.text == "3:def main():\n4-    print('Hello')"
    before = await run(GrepTool(), pattern="def main", output_mode="content", path=main, **{"-B": 2})
    assert before.text == "1-import os\n2-\n3:def main():"
    around = await run(GrepTool(), pattern="print", output_mode="content", path=main, **{"-C": 1, "-A": 5})
    assert around.text == "3-def main():\n4:    print('Hello')\n5-    return 0"


async def test_count_mode_totals(tree, run):
    out = await run(GrepTool(), pattern="e", output_mode="count", path="app", glob="*.py")
    counts = dict(line.rsplit(":", 1) for line in out.data.content.split("\n"))
    assert counts == {f"{tree}/app/main.py": "3", f"{tree}/app/util.py": "2"}
    assert out.data.num_matches == 5 and out.data.num_files == 2
    assert out.text.endswith("\n\nFound 5 total occurrences across 2 files.")


async def test_count_on_a_single_file(tree, run):
    out = await run(GrepTool(), pattern="return", output_mode="count", path="app/main.py")
    assert out.data.content == "1" and out.data.num_matches == 1


async def test_glob_and_type_filters(tree, run):
    by_glob = await run(GrepTool(), pattern="hello", glob="*.js", **{"-i": True})
    assert by_glob.data.filenames == [str(tree / "web/index.js")]
    by_type = await run(GrepTool(), pattern="hello", type="py", **{"-i": True})
    assert set(by_type.data.filenames) == {str(tree / "app/main.py"), str(tree / "app/util.py")}
    braces = await run(GrepTool(), pattern="hello", glob="*.{js,txt}", **{"-i": True})
    assert braces.data.filenames == [str(tree / "web/index.js")]


def test_split_glob():
    assert split_glob("*.js *.ts") == ["*.js", "*.ts"]
    assert split_glob("*.js,*.ts") == ["*.js", "*.ts"]
    assert split_glob("*.{ts,tsx}") == ["*.{ts,tsx}"]


async def test_multiline(tree, run):
    single = await run(GrepTool(), pattern=r"main\(\):.*print", output_mode="content")
    assert single.text == "No matches found"
    multi = await run(GrepTool(), pattern=r"main\(\):.*print", output_mode="content", multiline=True)
    assert f"{tree}/app/main.py:3:def main():" in multi.text


async def test_head_limit_in_each_mode(tree, run):
    files = await run(GrepTool(), pattern="e", head_limit=2)
    assert len(files.data.filenames) == 2 and files.data.num_files == 4
    assert "(Results limited to the first 2 by head_limit.)" in files.text
    content = await run(GrepTool(), pattern="e", output_mode="content", head_limit=3)
    assert content.data.num_lines == 3 and content.data.applied_limit == 3
    count = await run(GrepTool(), pattern="e", output_mode="count", head_limit=1)
    assert len(count.data.content.split("\n")) == 1
    unlimited = await run(GrepTool(), pattern="e", head_limit=0)
    assert unlimited.data.applied_limit is None and unlimited.data.num_files == 4


async def test_no_matches_is_not_an_error(tree, run):
    files = await run(GrepTool(), pattern="zzz_absent")
    assert files.ok and files.text == "No files found"
    content = await run(GrepTool(), pattern="zzz_absent", output_mode="content")
    assert content.ok and content.text == "No matches found"


async def test_bad_regex_is_a_tool_error_with_rg_message(tree, run):
    out = await run(GrepTool(), pattern="(unclosed")
    assert not out.ok and out.text.startswith("ripgrep failed:") and "regex parse error" in out.text


async def test_unknown_type_is_a_tool_error(tree, run):
    out = await run(GrepTool(), pattern="x", type="nosuchlang")
    assert not out.ok and "unrecognized file type" in out.text


async def test_a_pattern_starting_with_a_dash(tmp_path, run):
    (tmp_path / "opts.txt").write_text("use --verbose here\n")
    out = await run(GrepTool(), pattern="--verbose", output_mode="content")
    assert out.text.endswith("1:use --verbose here")


async def test_hidden_searched_gitignored_and_vcs_skipped(tmp_path, run):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text("build/\n")
    for name in (".hidden.cfg", "build/out.txt", "src.txt"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("needle\n")
    (tmp_path / ".git" / "needle.txt").write_text("needle\n")
    out = await run(GrepTool(), pattern="needle")
    assert set(out.data.filenames) == {str(tmp_path / ".hidden.cfg"), str(tmp_path / "src.txt")}


async def test_missing_path_is_refused(tmp_path, run):
    out = await run(GrepTool(), pattern="x", path="nowhere")
    assert not out.ok and out.text.startswith(f"Path does not exist: {tmp_path / 'nowhere'}")


def _rg_processes_on(path) -> list[int]:
    """Live processes whose command line names ``path`` (Linux /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
            with open(f"/proc/{entry}/stat") as f:
                zombie = f.read().rsplit(")", 1)[1].split()[0] == "Z"
        except OSError:
            continue
        if os.fsencode(path) in argv and not zombie:
            found.append(int(entry))
    return found


async def test_abort_kills_rg_and_raises(tmp_path, ctx):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)  # rg blocks opening it: a search that never ends by itself
    tool = GrepTool()
    parsed = tool.parse_input({"pattern": "x", "path": str(fifo)})
    assert (await tool.validate_input(parsed, ctx)).ok
    asyncio.get_running_loop().call_later(0.3, ctx.abort_controller.abort, "stop")
    started = time.monotonic()
    with pytest.raises(AbortError):
        await tool.call(parsed, ctx, lambda _: None)
    # Generous: rg on the fifo never ends by itself; the bound only separates that from a stop.
    assert time.monotonic() - started < 20
    if os.path.isdir("/proc"):
        assert _rg_processes_on(fifo) == []


async def test_cancelling_the_call_kills_rg(tmp_path, ctx):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    tool = GrepTool()
    parsed = tool.parse_input({"pattern": "x", "path": str(fifo)})
    task = asyncio.ensure_future(tool.call(parsed, ctx, lambda _: None))
    if os.path.isdir("/proc"):
        await eventually(lambda: bool(_rg_processes_on(fifo)), "rg started", within=20)  # a loaded machine starts rg late
        assert len(_rg_processes_on(fifo)) == 1  # rg is running, blocked on the FIFO
    else:
        await asyncio.sleep(0.3)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, 20)
    if os.path.isdir("/proc"):
        assert _rg_processes_on(fifo) == []


def test_args_mirror_claude_code():
    parsed = GrepInput.model_validate(
        {"pattern": "-x", "output_mode": "content", "-C": 2, "-i": True, "glob": "*.py", "multiline": True}
    )
    args = build_rg_args(parsed, "/p")
    assert args[:1] == ["--hidden"] and args[1:3] == ["--glob", "!.git"]
    assert args[args.index("--max-columns") + 1] == "500"
    for flag in ("-U", "--multiline-dotall", "-i", "-n"):
        assert flag in args
    assert args[args.index("-C") + 1] == "2" and args[args.index("-e") + 1] == "-x"
    assert args[-3:] == ["--glob", "*.py", "/p"]


def test_flags():
    tool = GrepTool()
    parsed = tool.parse_input({"pattern": "x"})
    assert tool.is_read_only(parsed) and tool.is_concurrency_safe(parsed)
    assert tool.max_result_size_chars == 20_000
    assert "ripgrep" in tool.prompt()


async def test_tool_errors_are_tool_errors(tmp_path, ctx):
    tool = GrepTool()
    with pytest.raises(ToolError):
        await tool.call(tool.parse_input({"pattern": "[", "path": str(tmp_path)}), ctx, lambda _: None)
