"""Credential variables are recognised by family, harmless ones are kept; the Seatbelt
profile (macOS; untested on a Mac here) says what the plan says."""

from __future__ import annotations

from pathlib import Path

import pytest

from nb_agent.tools.bash.sandbox.plan import SandboxPlan
from nb_agent.tools.bash.sandbox.seatbelt import seatbelt_command, seatbelt_profile
from nb_agent.tools.bash.sandbox.secrets import is_credential_variable, protected_paths, scrub_environment, secret_paths

CREDENTIALS = [
    ("ANTHROPIC_API_KEY", "sk"), ("ANTHROPIC_AUTH_TOKEN", "t"), ("OPENAI_API_KEY", "k"), ("AWS_ACCESS_KEY_ID", "a"),
    ("AWS_SECRET_ACCESS_KEY", "s"), ("AWS_SESSION_TOKEN", "t"), ("AWS_PROFILE", "p"), ("GITHUB_TOKEN", "g"), ("GH_TOKEN", "g"),
    ("HF_TOKEN", "h"), ("NPM_TOKEN", "n"), ("SLACK_BOT_TOKEN", "x"), ("MY_APP_SECRET", "s"), ("CLIENT_SECRET_ID", "s"),
    ("DB_PASSWORD", "p"), ("PGPASSWORD", "p"), ("AZURE_CLIENT_SECRET", "a"), ("GOOGLE_APPLICATION_CREDENTIALS", "/k.json"),
    ("SSH_AUTH_SOCK", "/run/ssh"), ("VAULT_TOKEN", "v"), ("STRIPE_PRIVATE_KEY", "k"), ("SENTRY_DSN", "https://x@y/1"),
    ("DATABASE_URL", "postgres://u:pw@h/db"), ("REDIS_URL", "redis://:pw@h:6379"), ("JPY_API_TOKEN", "j"), ("api_key", "lower"),
]  # fmt: skip
HARMLESS = [("PATH", "/usr/bin"), ("HOME", "/home/u"), ("LANG", "C.UTF-8"), ("VIRTUAL_ENV", "/v"), ("PYTHONPATH", "/p"),
            ("GIT_AUTHOR_NAME", "A"), ("KEYBOARD", "us"), ("HTTP_URL", "https://example.com/x"), ("TERM", "xterm")]  # fmt: skip


@pytest.mark.parametrize(("name", "value"), CREDENTIALS)
def test_credential_variables_are_recognised(name: str, value: str) -> None:
    assert is_credential_variable(name, value)


@pytest.mark.parametrize(("name", "value"), HARMLESS)
def test_harmless_variables_are_kept(name: str, value: str) -> None:
    assert not is_credential_variable(name, value)


def test_scrub_environment_reports_what_it_removed() -> None:
    kept, removed = scrub_environment(dict(CREDENTIALS + HARMLESS))
    assert set(kept) == {n for n, _ in HARMLESS} and set(removed) == {n for n, _ in CREDENTIALS}


def test_secret_and_protected_paths_exist_only(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".netrc").write_text("x")
    (home / ".bashrc").write_text("x")
    hidden = secret_paths(home, env={})
    assert home / ".ssh" in hidden and home / ".netrc" in hidden and home / ".aws" not in hidden
    assert home / ".bashrc" in protected_paths([home], home)  # home is a working directory
    assert protected_paths([tmp_path / "elsewhere"], home) == []


def test_seatbelt_profile_follows_the_plan(tmp_path: Path) -> None:
    plan = SandboxPlan(
        cwd=tmp_path, writable=(tmp_path / "proj",), read_only=(tmp_path / "proj" / ".git" / "hooks",),
        hidden=(Path("/Users/u/.ssh"),), private_tmp=tmp_path / "tmp", cwd_file=tmp_path / "cwd",
    )  # fmt: skip
    profile = seatbelt_profile(plan)
    lines = profile.splitlines()
    assert lines[:3] == ["(version 1)", "(allow default)", "(deny file-write*)"]
    assert f'(subpath "{tmp_path / "proj"}")' in lines[3] and f'(literal "{tmp_path / "cwd"}")' in lines[3]
    assert lines.index(next(line for line in lines if ".git/hooks" in line)) > 3  # the narrower deny comes later
    assert '(deny file-read* file-write* (subpath "/Users/u/.ssh"))' in lines
    assert "(deny network*)" in lines and profile.count("(") == profile.count(")")
    assert seatbelt_command(plan, ["bash", "-c", "ls"])[:2] == ["/usr/bin/sandbox-exec", "-p"]
