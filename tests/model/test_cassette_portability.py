"""Cassettes recorded in one directory replay from another: the working directory in
recorded responses, images and object addresses in requests, one cassette per process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nb_agent.engine import EngineConfig, QueryEngine
from nb_agent.model import cassette as cassettes
from nb_agent.model.cassette import (
    CWD_TOKEN,
    CassetteTransport,
    Normalizer,
    expand_cwd_in_event,
    tokenize_cwd_in_events,
)
from nb_agent.model.transport import AnthropicTransport
from nb_agent.testing import FakeAnthropicServer, Reply, text, tool_use
from nb_agent.testing.collect import collect
from nb_agent.tools.files import file_tools


def _delta(index: int, kind: str, value: str) -> dict:
    field = "text" if kind == "text_delta" else "partial_json"
    return {"type": "content_block_delta", "index": index, "delta": {"type": kind, field: value}}


def test_a_path_split_across_chunks_is_stored_as_one_tokenized_delta() -> None:
    cwd = Path("/home/ann/project")
    events = [
        {"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "t", "name": "Read", "input": {}}},
        _delta(0, "input_json_delta", '{"file_path": "/home/a'),
        _delta(0, "input_json_delta", 'nn/project/data.csv"}'),
        {"type": "content_block_stop", "index": 0},
        _delta(1, "text_delta", "unrelated "),
        _delta(1, "text_delta", "text"),
    ]
    stored = tokenize_cwd_in_events(events, cwd)
    deltas = [e for e in stored if e["type"] == "content_block_delta"]
    assert deltas[0]["delta"]["partial_json"] == f'{{"file_path": "{CWD_TOKEN}/data.csv"}}'
    assert [d["delta"].get("text") for d in deltas[1:]] == ["unrelated ", "text"]  # untouched blocks keep their chunks
    replayed = expand_cwd_in_event(deltas[0], Path('/srv/other "clone"'))
    assert json.loads(replayed["delta"]["partial_json"]) == {"file_path": '/srv/other "clone"/data.csv'}


def test_images_and_object_addresses_are_not_compared() -> None:
    normalizer = Normalizer(cwd=Path("/nowhere"))
    a = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}}
    b = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "BBBB"}}
    assert normalizer.value(a) == normalizer.value(b)
    assert normalizer.value({**b, "source": {**b["source"], "media_type": "image/jpeg"}}) != normalizer.value(a)
    assert normalizer.text("<Legend at 0x7f55e2b9c6410>") == normalizer.text("<Legend at 0x7fd1fd907790>")


def test_the_default_normalizer_follows_the_working_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    normalizer = Normalizer()
    monkeypatch.chdir(tmp_path)
    assert normalizer.text(f"{tmp_path}/x") == "<CWD>/x"


async def _run(workdir: Path, transport: object) -> str:
    (workdir / "notes.txt").write_text("the answer is 42\n")
    engine = QueryEngine(config=EngineConfig(cwd=workdir), tools=file_tools(), transport=transport)
    out = await collect(engine, "what does notes.txt say?")
    assert out.result.subtype == "success", out.result.error
    return out.result.text


async def test_recorded_in_one_directory_replayed_in_another(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first, second = tmp_path / "first" / "work", tmp_path / "second clone" / "work"
    first.mkdir(parents=True)
    second.mkdir(parents=True)
    path = tmp_path / "run.json"

    def turns(request: dict) -> Reply:
        return Reply(content=[tool_use("Read", {"file_path": f"{first}/notes.txt"})])

    monkeypatch.chdir(first)
    async with FakeAnthropicServer([turns, Reply(content=[text("It says 42.")])]) as server:
        recorder = CassetteTransport(path, mode="record", inner=AnthropicTransport(client=server.client()))
        assert await _run(first, recorder) == "It says 42."
    assert str(first) not in path.read_text()
    monkeypatch.chdir(second)
    replay = CassetteTransport(path, mode="replay")
    assert await _run(second, replay) == "It says 42."  # the Read found second/notes.txt
    replay.assert_used_up()


def test_every_engine_of_a_process_continues_the_same_cassette(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"version": 1, "interactions": []}))
    monkeypatch.setenv(cassettes.CASSETTE_ENV, str(path))
    monkeypatch.setenv(cassettes.CASSETTE_MODE_ENV, "replay")
    try:
        first = cassettes.cassette_from_env(has_api_key=False, live_factory=lambda: None)
        again = cassettes.cassette_from_env(has_api_key=False, live_factory=lambda: None)
        assert first is again and first is not None
        cassettes.close_cassette(path)
        assert cassettes.cassette_from_env(has_api_key=False, live_factory=lambda: None) is not first
    finally:
        cassettes.close_cassette(path)


def test_a_file_that_is_not_a_cassette_is_a_configuration_error(tmp_path: Path) -> None:
    from nb_agent.errors import ConfigurationError

    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    with pytest.raises(ConfigurationError, match="not a cassette"):
        CassetteTransport(bad, mode="replay")
