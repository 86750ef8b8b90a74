"""Sandbox settings from the settings files: the user's loosen or tighten, a project's only tighten."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nb_agent.agent import create_engine
from nb_agent.permissions.settings import load_settings
from nb_agent.tools.bash.sandbox.from_settings import sandbox_runtime_from_settings
from nb_agent.tools.bash.sandbox.settings import merge_sandbox_settings


def _write(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


def test_user_settings_apply_in_full(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    _write(home / ".claude" / "settings.json", {"sandbox": {
        "enabled": True, "autoAllowBashIfSandboxed": False, "excludedCommands": ["docker"],
        "network": {"allowAll": True}, "filesystem": {"allowWrite": ["~/.cache", "//opt/data"], "denyRead": ["./private"]},
    }})  # fmt: skip
    runtime = sandbox_runtime_from_settings(load_settings(project, home=home), project_dir=project, home=home)
    s = runtime.settings
    assert s.enabled and not s.auto_allow_bash_if_sandboxed and s.excluded_commands == ("docker",)
    assert s.network.allow_all and runtime.network_mode == "all"
    assert s.allow_write == (home / ".cache", Path("/opt/data")) and s.deny_read == (project / "private",)
    assert runtime.warnings == []


def test_a_project_can_only_tighten(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    _write(project / ".claude" / "settings.json", {"sandbox": {
        "enabled": True, "excludedCommands": ["curl"], "allowUnsandboxedCommands": False,
        "network": {"allowAll": True, "allowedDomains": ["evil.example"]},
        "filesystem": {"allowWrite": ["//etc"], "denyWrite": ["./data"], "denyRead": ["./secrets"]},
    }})  # fmt: skip
    _write(project / ".claude" / "settings.local.json", {"sandbox": {"autoAllowBashIfSandboxed": True, "enabled": False}})
    runtime = sandbox_runtime_from_settings(load_settings(project, home=home), project_dir=project, home=home)
    s = runtime.settings
    assert s.enabled and not s.allow_unsandboxed_commands  # tightening taken
    assert s.deny_write == (project / "data",) and s.deny_read == (project / "secrets",)
    assert s.excluded_commands == () and s.allow_write == () and runtime.network_mode == "none"  # loosening ignored
    assert s.network.allowed_domains == ()
    joined = "\n".join(runtime.warnings)
    for key in ("excludedCommands", "allowWrite", "allowedDomains", "allowAll", "enabled=false"):
        assert key in joined, key
    # the project turned the sandbox on: its commands still ask (auto-allow is the user's to give)
    assert not s.auto_allow_bash_if_sandboxed and "sandboxed commands still ask" in joined


@pytest.mark.parametrize(
    ("user", "auto_allowed"),
    [({}, False), ({"autoAllowBashIfSandboxed": False}, False), ({"autoAllowBashIfSandboxed": True}, True), ({"enabled": True}, True)],
)
def test_auto_allow_needs_the_users_own_file(tmp_path: Path, user: dict, auto_allowed: bool) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    _write(home / ".claude" / "settings.json", {"sandbox": user})
    for name in ("settings.json", "settings.local.json"):
        _write(project / ".claude" / name, {"sandbox": {"enabled": True, "autoAllowBashIfSandboxed": True}})
    for trusted in (False, True):  # a trusted folder's files do not loosen the sandbox either
        settings = load_settings(project, home=home, project_trusted=trusted)
        s = sandbox_runtime_from_settings(settings, project_dir=project, home=home).settings
        assert s.enabled and s.auto_allow_bash_if_sandboxed is auto_allowed, (user, trusted)


def test_permission_rules_feed_the_filesystem_lists(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    _write(home / ".claude" / "settings.json", {"permissions": {"allow": ["Edit(~/notes/**)"], "deny": ["Read(~/.config/tokens)"]}})
    _write(project / ".claude" / "settings.json", {"permissions": {"allow": ["Edit(//etc/**)"], "deny": ["Edit(./locked)"]}})
    runtime = sandbox_runtime_from_settings(load_settings(project, home=home), project_dir=project, home=home)
    assert runtime.settings.allow_write == (home / "notes",)  # the project's Edit allow rule does not widen the sandbox
    assert runtime.settings.deny_read == (home / ".config" / "tokens",)
    assert runtime.settings.deny_write == (project / "locked",)


def test_bad_values_are_warnings_not_crashes(tmp_path: Path) -> None:
    settings, warnings = merge_sandbox_settings(
        {"user": {"enabled": "yes", "excludedCommands": "docker", "network": [], "filesystem": {"denyRead": [3]}}, "project": "on"},
        project_dir=tmp_path, home=tmp_path,
    )  # fmt: skip
    assert not settings.enabled and settings.excluded_commands == ()
    assert len(warnings) == 5


def test_create_engine_puts_the_sandbox_where_bash_finds_it(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    _write(project / ".claude" / "settings.json", {"sandbox": {"excludedCommands": ["x"]}})
    engine, warnings = create_engine(cwd=project, home=home, mcp=False)
    runtime = engine.config.options.sandbox
    assert runtime.project_dir == project.resolve() or runtime.project_dir == project
    assert any("excludedCommands" in w for w in warnings)
