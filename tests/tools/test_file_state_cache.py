"""The file-state cache: an LRU bounded by content size, owned by one conversation."""

from __future__ import annotations

from pathlib import Path

from nb_agent.engine import EngineConfig, QueryEngine
from nb_agent.testing import Reply, ScriptedTransport, text, tool_use
from nb_agent.testing.collect import collect
from nb_agent.tools.base import FileState
from nb_agent.tools.file_state_cache import FileStateCache
from nb_agent.tools.files import file_tools


def _state(n: int) -> FileState:
    return FileState(content="x" * n, timestamp=0.0)


def test_the_cache_drops_least_recently_used_entries_past_its_byte_bound() -> None:
    cache = FileStateCache(max_bytes=100)
    cache["a"], cache["b"], cache["c"] = _state(40), _state(40), _state(10)
    assert cache.get("a") is not None  # a is now the most recently used
    cache["d"] = _state(40)
    assert "b" not in cache and {"a", "c", "d"} <= {k for k in ("a", "b", "c", "d") if k in cache}
    assert cache.total_bytes == 90
    cache["a"] = _state(5)  # replacing an entry re-counts it
    assert cache.total_bytes == 55
    big = FileStateCache(max_bytes=10)
    big["huge"] = _state(50)  # one entry larger than the bound is kept alone (the file just read)
    assert "huge" in big and len(big) == 1


def test_a_default_cache_stays_under_25_mb() -> None:
    cache = FileStateCache()
    for i in range(40):
        cache[f"f{i}"] = _state(1024 * 1024)
    assert cache.total_bytes <= 25 * 1024 * 1024 and len(cache) == 25


async def test_a_new_conversation_has_read_nothing(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("old\n")
    turns = [
        Reply(content=[tool_use("Read", {"file_path": str(tmp_path / "notes.txt")})]),
        Reply(content=[text("read it")]),
        Reply(content=[tool_use("Edit", {"file_path": str(tmp_path / "notes.txt"), "old_string": "old", "new_string": "new"})]),
        Reply(content=[text("tried")]),
    ]
    engine = QueryEngine(config=EngineConfig(cwd=tmp_path, permission_mode="acceptEdits"), tools=file_tools(), transport=ScriptedTransport(turns))
    await collect(engine, "read notes")
    assert len(engine.tool_session.read_file_state) == 1
    engine.new_conversation()
    out = await collect(engine, "now edit it")
    assert "has not been read" in str(out.tool_results[0]["content"])
    assert (tmp_path / "notes.txt").read_text() == "old\n"
