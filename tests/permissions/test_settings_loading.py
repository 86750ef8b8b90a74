"""Loading and merging ~/.claude/settings.json, .claude/settings.json, .claude/settings.local.json."""

import json
from pathlib import Path
from typing import Any

from nb_agent.permissions.settings import load_settings, settings_file_paths


def write(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def user_file(home: Path) -> Path:
    return home / ".claude" / "settings.json"


def project_file(project: Path) -> Path:
    return project / ".claude" / "settings.json"


def local_file(project: Path) -> Path:
    return project / ".claude" / "settings.local.json"


def test_no_files_gives_empty_settings(project: Path, home: Path) -> None:
    settings = load_settings(project, home=home)
    assert settings.rules == []
    assert settings.default_mode is None
    assert settings.warnings == []
    assert settings.loaded_files == []
    assert settings.project_dir == project


def test_rules_are_unioned_with_their_source(project: Path, home: Path) -> None:
    write(user_file(home), {"permissions": {"allow": ["Bash(ls:*)"], "deny": ["Read(~/.ssh/**)"]}})
    write(project_file(project), {"permissions": {"allow": ["Edit(src/**)"], "ask": ["Bash(git push:*)"]}})
    write(local_file(project), {"permissions": {"allow": ["Bash(ls:*)"], "deny": ["Bash(rm:*)"]}})
    settings = load_settings(project, home=home)
    got = [(r.text, r.behavior, r.source) for r in settings.rules]
    assert got == [
        ("Bash(ls:*)", "allow", "user"),
        ("Read(~/.ssh/**)", "deny", "user"),
        ("Edit(src/**)", "allow", "project"),
        ("Bash(git push:*)", "ask", "project"),
        ("Bash(ls:*)", "allow", "local"),
        ("Bash(rm:*)", "deny", "local"),
    ]
    assert [r.text for r in settings.rules_with("deny")] == ["Read(~/.ssh/**)", "Bash(rm:*)"]
    assert settings.loaded_files == [user_file(home), project_file(project), local_file(project)]


def test_project_rules_are_rooted_at_the_project(project: Path, home: Path) -> None:
    write(user_file(home), {"permissions": {"allow": ["Edit(/src/**)"]}})
    write(project_file(project), {"permissions": {"allow": ["Edit(/src/**)"]}})
    user_rule, project_rule = load_settings(project, home=home).rules
    assert user_rule.root is None
    assert project_rule.root == project


def test_default_mode_precedence_local_over_project_over_user(project: Path, home: Path) -> None:
    write(user_file(home), {"permissions": {"defaultMode": "plan"}})
    assert load_settings(project, home=home).default_mode == "plan"
    write(project_file(project), {"permissions": {"defaultMode": "acceptEdits"}})
    assert load_settings(project, home=home).default_mode == "acceptEdits"
    write(local_file(project), {"permissions": {"defaultMode": "bypassPermissions"}})
    assert load_settings(project, home=home).default_mode == "bypassPermissions"


def test_local_file_without_mode_keeps_the_project_mode(project: Path, home: Path) -> None:
    write(project_file(project), {"permissions": {"defaultMode": "acceptEdits"}})
    write(local_file(project), {"permissions": {"allow": ["Bash"]}})
    assert load_settings(project, home=home).default_mode == "acceptEdits"


def test_malformed_json_is_a_warning_and_the_file_is_skipped(project: Path, home: Path) -> None:
    bad = write(project_file(project), '{"permissions": {"allow": ["Bash(ls:*)",]}')
    write(local_file(project), {"permissions": {"deny": ["Bash(rm:*)"]}})
    settings = load_settings(project, home=home)
    assert [r.text for r in settings.rules] == ["Bash(rm:*)"]
    assert len(settings.warnings) == 1
    assert str(bad) in settings.warnings[0]
    assert "invalid JSON" in settings.warnings[0]
    assert "line 1" in settings.warnings[0]
    assert bad not in settings.loaded_files


def test_non_object_top_level_is_a_warning(project: Path, home: Path) -> None:
    write(user_file(home), '["Bash"]')
    settings = load_settings(project, home=home)
    assert settings.rules == []
    assert "expected a JSON object" in settings.warnings[0]


def test_empty_file_is_fine(project: Path, home: Path) -> None:
    write(project_file(project), "  \n")
    settings = load_settings(project, home=home)
    assert settings.warnings == []
    assert settings.loaded_files == [project_file(project)]


def test_malformed_rule_is_skipped_with_a_warning_and_the_rest_kept(project: Path, home: Path) -> None:
    path = write(project_file(project), {"permissions": {"allow": ["Bash(ls:*)", "Bash(oops", 7, "Read"]}})
    settings = load_settings(project, home=home)
    assert [r.text for r in settings.rules] == ["Bash(ls:*)", "Read"]
    assert any("Bash(oops" in w and str(path) in w and "rule skipped" in w for w in settings.warnings)
    assert any("non-string" in w for w in settings.warnings)


def test_wrongly_typed_sections_are_warnings(project: Path, home: Path) -> None:
    write(project_file(project), {"permissions": {"allow": "Bash", "defaultMode": "yolo"}, "hooks": []})
    write(local_file(project), {"permissions": ["Bash"]})
    settings = load_settings(project, home=home)
    assert settings.rules == []
    assert settings.default_mode is None
    text = "\n".join(settings.warnings)
    assert "permissions.allow must be a list" in text
    assert "'yolo'" in text
    assert "'hooks' must be an object" in text
    assert "'permissions' must be an object" in text


def test_additional_directories_are_expanded_and_unioned(project: Path, home: Path, tmp_path: Path) -> None:
    write(user_file(home), {"permissions": {"additionalDirectories": ["~/data", str(tmp_path / "shared")]}})
    write(project_file(project), {"permissions": {"additionalDirectories": ["../sibling", str(tmp_path / "shared")]}})
    settings = load_settings(project, home=home)
    assert settings.additional_directories == [home / "data", tmp_path / "shared", tmp_path / "sibling"]


def test_hooks_are_kept_raw_per_source_and_merged_per_event(project: Path, home: Path) -> None:
    user_hook = {"matcher": "Bash", "hooks": [{"type": "command", "command": "echo user"}]}
    project_hook = {"matcher": "Edit", "hooks": [{"type": "command", "command": "echo project"}]}
    write(user_file(home), {"hooks": {"PreToolUse": [user_hook]}})
    write(project_file(project), {"hooks": {"PreToolUse": [project_hook], "Stop": []}})
    settings = load_settings(project, home=home)
    assert settings.hooks_by_source == {
        "user": {"PreToolUse": [user_hook]},
        "project": {"PreToolUse": [project_hook], "Stop": []},
    }
    assert settings.hooks == {"PreToolUse": [user_hook, project_hook], "Stop": []}


def test_home_defaults_to_the_home_environment_variable(project: Path, home: Path) -> None:
    write(user_file(home), {"permissions": {"allow": ["Bash(ls:*)"]}})
    settings = load_settings(project)
    assert [(r.text, r.source) for r in settings.rules] == [("Bash(ls:*)", "user")]


def test_project_in_home_reads_the_shared_file_once(home: Path) -> None:
    write(user_file(home), {"permissions": {"allow": ["Bash(ls:*)"]}})
    settings = load_settings(home, home=home)
    assert [(r.text, r.source) for r in settings.rules] == [("Bash(ls:*)", "project")]
    assert [source for source, _ in settings_file_paths(home, home=home)] == ["project", "local"]


def test_unreadable_file_is_a_warning(project: Path, home: Path) -> None:
    project_file(project).mkdir(parents=True)  # a directory where the file should be
    settings = load_settings(project, home=home)
    assert "cannot be read" in settings.warnings[0]
