"""Server configuration: .mcp.json, ~/.claude.json, runtime additions, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nb_agent.errors import ConfigurationError
from nb_agent.mcp import HttpServerConfig, McpManager, StdioServerConfig, load_mcp_config, parse_server_config


def write(path: Path, data: object) -> Path:
    path.write_text(json.dumps(data) if not isinstance(data, str) else data)
    return path


def test_project_and_user_config_are_merged_with_project_winning(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    write(project / ".mcp.json", {"mcpServers": {
        "fs": {"command": "npx", "args": ["-y", "server-fs", "."], "env": {"A": "1"}},
        "shared": {"type": "http", "url": "https://project.example/mcp"},
    }})
    user = write(tmp_path / "claude.json", {"mcpServers": {
        "shared": {"command": "user-version"},
        "remote": {"type": "http", "url": "https://api.example/mcp", "headers": {"Authorization": "Bearer x"}},
    }})
    loaded = load_mcp_config(cwd=project, user_config_path=user)
    assert loaded.issues == []
    assert set(loaded.servers) == {"fs", "shared", "remote"}
    fs = loaded.servers["fs"]
    assert fs.scope == "project" and fs.config == StdioServerConfig(command="npx", args=("-y", "server-fs", "."), env={"A": "1"})
    assert loaded.servers["shared"].scope == "project"
    assert loaded.servers["shared"].config == HttpServerConfig(url="https://project.example/mcp")
    remote = loaded.servers["remote"]
    assert remote.scope == "user" and remote.config.headers == {"Authorization": "Bearer x"}


def test_local_scope_from_user_config_projects(tmp_path: Path) -> None:
    user = write(tmp_path / "claude.json", {
        "mcpServers": {"a": {"command": "global"}},
        "projects": {str(tmp_path.resolve()): {"mcpServers": {"a": {"command": "local"}}}},
    })
    loaded = load_mcp_config(cwd=tmp_path, user_config_path=user)
    assert loaded.servers["a"].scope == "local" and loaded.servers["a"].config.command == "local"


def test_bad_json_is_reported_and_other_files_still_load(tmp_path: Path) -> None:
    write(tmp_path / ".mcp.json", '{"mcpServers": {"x": ')
    user = write(tmp_path / "claude.json", {"mcpServers": {"ok": {"command": "fine"}}})
    loaded = load_mcp_config(cwd=tmp_path, user_config_path=user)
    assert list(loaded.servers) == ["ok"]
    assert len(loaded.issues) == 1
    assert "invalid JSON" in loaded.issues[0].message and loaded.issues[0].source.endswith(".mcp.json")


def test_malformed_entries_become_failed_servers(tmp_path: Path) -> None:
    write(tmp_path / ".mcp.json", {"mcpServers": {
        "no-command": {"args": ["x"]},
        "weird": {"type": "carrier-pigeon", "url": "x"},
        "good": {"command": "ok"},
    }})
    manager = McpManager.from_config(cwd=tmp_path, user_config_path=tmp_path / "missing.json")
    rows = {r.name: r for r in manager.list_servers()}
    assert rows["good"].status == "pending"
    assert rows["no-command"].status == "failed" and "command" in rows["no-command"].error
    assert rows["weird"].status == "failed" and "carrier-pigeon" in rows["weird"].error


def test_env_variables_are_expanded(tmp_path: Path) -> None:
    env = {"TOKEN": "s3cret", "HOST": "h.example"}
    missing: set[str] = set()
    config = parse_server_config(
        {"type": "http", "url": "https://${HOST}/mcp", "headers": {"Authorization": "Bearer ${TOKEN}", "X": "${NOPE:-dflt}"}},
        env=env,
        missing_env=missing,
    )
    assert config == HttpServerConfig(url="https://h.example/mcp", headers={"Authorization": "Bearer s3cret", "X": "dflt"})
    parse_server_config({"command": "run", "args": ["${UNSET_VAR}"]}, env=env, missing_env=missing)
    assert missing == {"UNSET_VAR"}


def test_missing_env_variable_is_a_warning_not_a_failure(tmp_path: Path) -> None:
    write(tmp_path / ".mcp.json", {"mcpServers": {"a": {"command": "x", "env": {"K": "${DEFINITELY_UNSET_NB_AGENT}"}}}})
    loaded = load_mcp_config(cwd=tmp_path, user_config_path=tmp_path / "none.json")
    assert "a" in loaded.servers
    assert [i.level for i in loaded.issues] == ["warning"]


def test_runtime_add_and_duplicate_names() -> None:
    manager = McpManager()
    manager.add_server("x", {"command": "run-x"})
    manager.add_server("y", HttpServerConfig(url="http://127.0.0.1:1/mcp"))
    rows = manager.list_servers()
    assert [(r.name, r.status, r.scope, r.transport, r.tool_count) for r in rows] == [
        ("x", "pending", "runtime", "stdio", 0),
        ("y", "pending", "runtime", "http", 0),
    ]
    with pytest.raises(ConfigurationError):
        manager.add_server("x", {"command": "again"})
    with pytest.raises(ConfigurationError):
        manager.add_server("z", {"type": "http"})


def test_settings_from_env(monkeypatch: pytest.MonkeyPatch) -> None:
    from nb_agent.mcp import McpSettings

    monkeypatch.setenv("NB_AGENT_MCP_TIMEOUT", "5")
    monkeypatch.setenv("NB_AGENT_MCP_MAX_OUTPUT_TOKENS", "1234")
    settings = McpSettings.from_env()
    assert (settings.connect_timeout, settings.max_output_tokens) == (5.0, 1234)
    monkeypatch.setenv("NB_AGENT_MCP_TIMEOUT", "soon")
    assert McpSettings.from_env().connect_timeout == 30.0
