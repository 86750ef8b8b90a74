"""What a sandboxed command may not see: secrets on disk and credentials in the environment,
and the files inside a writable directory that would run code outside the sandbox later.
"""

from __future__ import annotations

import os
import re
import site
import sys
from collections.abc import Mapping
from pathlib import Path

from nb_agent.executables import search_path
from nb_agent.hidden_paths import registered_secrets

__all__ = [
    "HOME_SECRETS",
    "PROTECTED_NAMES",
    "is_credential_variable",
    "protected_candidates",
    "home_view",
    "protected_paths",
    "scrub_environment",
    "secret_paths",
]

HOME_SECRETS: tuple[str, ...] = (
    ".ssh",
    ".aws",
    ".azure",
    ".gnupg",
    ".docker",
    ".kube",
    ".netrc",
    ".git-credentials",
    ".pgpass",
    ".npmrc",
    ".pypirc",
    ".password-store",
    ".vault-token",
    ".terraform.d",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".gem/credentials",
    ".config/gcloud",
    ".config/gh",
    ".config/hub",
    ".config/op",
    ".config/anthropic",
    ".claude/.credentials.json",
    ".local/share/keyrings",
    # Jupyter kernel connection files hold the HMAC key: with it, code could be sent to a
    # kernel (this one included), which runs outside the sandbox.
    ".local/share/jupyter/runtime",
    "Library/Jupyter/runtime",
    "Library/Keychains",
)
"""Relative to the home directory: hidden from every sandboxed command."""

PRIVILEGED_SOCKETS: tuple[str, ...] = (
    "/var/run/docker.sock",
    "/run/docker.sock",
    "/run/containerd",
    "/run/podman",
    "/run/crio",
    "/run/snapd.socket",
    "/run/libvirt",
    "/var/lib/lxd/unix.socket",
    "/var/snap/lxd/common/lxd/unix.socket",
)
"""Sockets of daemons that start containers or services for whoever connects: reaching one
from inside is a way out. Hidden as well as blocked (:mod:`.seccomp`): they stay out of
reach where the filter is missing or ``allowAllUnixSockets`` lifts it."""

PROTECTED_NAMES: tuple[str, ...] = (
    ".git/hooks",
    ".git/config",
    ".git/config.worktree",
    ".git/commondir",  # makes .git a linked worktree's: git then reads the config it points to
    ".git/modules",  # submodules' own config and hooks (git status reads them)
    ".git/worktrees",  # each linked worktree's commondir, gitdir and config.worktree
    ".gitmodules",
    ".claude",
    ".nb_agent",
    ".mcp.json",
    ".vscode",
    ".idea",
)
"""Inside a writable directory these stay read-only: they configure or run code later,
outside the sandbox (git hooks, agent settings and hooks, MCP servers, editor tasks)."""

_HOME_STARTUP: tuple[str, ...] = (
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_logout",
    ".profile",
    ".zshrc",
    ".zprofile",
    ".zshenv",
    ".zlogin",
    ".config/fish",
    ".ipython",
    ".jupyter",
    ".claude.json",
    ".config/autostart",
    ".config/systemd",
    ".local/bin",
    ".local/lib",
)
"""When the home directory itself is writable (a notebook started in ``~``), these stay read-only."""

_CREDENTIAL_NAME = re.compile(
    r"(TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|SESSION_?KEY|CREDENTIAL|AUTH(?!OR)|COOKIE|_PAT$|_DSN$)",
    re.IGNORECASE,
)
_CREDENTIAL_PREFIXES = ("AWS_", "AZURE_", "ARM_CLIENT", "GOOGLE_APPLICATION_CREDENTIALS", "GCP_", "CLOUDSDK_AUTH", "VAULT_", "OP_", "SSH_AUTH_SOCK", "GPG_AGENT_INFO", "KRB5CCNAME", "JPY_API_TOKEN")
_URL_WITH_PASSWORD = re.compile(r"://[^/@\s:]*:[^/@\s]+@")
_KEEP = frozenset({"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "TERM", "PWD", "TZ"})


def is_credential_variable(name: str, value: str) -> bool:
    """Whether an environment variable looks like it carries a credential."""
    if name in _KEEP:
        return False
    upper = name.upper()
    if upper.startswith(_CREDENTIAL_PREFIXES) or _CREDENTIAL_NAME.search(upper):
        return True
    return bool(_URL_WITH_PASSWORD.search(value))


def scrub_environment(env: Mapping[str, str]) -> tuple[dict[str, str], list[str]]:
    """``env`` without credential variables; returns it and the names removed."""
    kept: dict[str, str] = {}
    removed: list[str] = []
    for name, value in env.items():
        if is_credential_variable(name, value):
            removed.append(name)
        else:
            kept[name] = value
    return kept, removed


def secret_paths(home: Path, extra: tuple[Path, ...] = (), env: Mapping[str, str] | None = None) -> list[Path]:
    """Existing secret files and directories to hide (home secrets, ``denyRead``, and the
    files credential variables point at, such as ``GOOGLE_APPLICATION_CREDENTIALS``)."""
    env = os.environ if env is None else env
    candidates = [home / name for name in HOME_SECRETS]
    candidates += list(extra)
    for name in ("GOOGLE_APPLICATION_CREDENTIALS", "AWS_SHARED_CREDENTIALS_FILE", "AWS_CONFIG_FILE", "KUBECONFIG", "JUPYTER_RUNTIME_DIR", "DOCKER_CONFIG"):
        value = env.get(name, "")
        for part in value.split(os.pathsep) if name == "KUBECONFIG" else [value]:
            if part and os.path.isabs(part):
                candidates.append(Path(part))
    socket = env.get("SSH_AUTH_SOCK", "")
    if socket and os.path.isabs(socket):
        candidates.append(Path(socket))
    candidates += jupyter_runtime_directories(env)
    candidates += [Path(f"/run/user/{os.getuid()}"), *(Path(p) for p in PRIVILEGED_SOCKETS), *registered_secrets()]
    return _existing(candidates)


def jupyter_runtime_directories(env: Mapping[str, str]) -> list[Path]:
    """Where Jupyter may keep kernel connection files besides ``~/.local/share/jupyter``:
    jupyter_core's ``$JUPYTER_DATA_DIR/runtime`` and ``$XDG_DATA_HOME/jupyter/runtime``
    (``$JUPYTER_RUNTIME_DIR`` is taken above, ``$XDG_RUNTIME_DIR`` is under ``/run/user``)."""
    found = [Path(env[name]) / "runtime" for name in ("JUPYTER_DATA_DIR",) if os.path.isabs(env.get(name, ""))]
    found += [Path(env[name]) / "jupyter" / "runtime" for name in ("XDG_DATA_HOME",) if os.path.isabs(env.get(name, ""))]
    if os.path.isabs(env.get("XDG_RUNTIME_DIR", "")):
        found.append(Path(env["XDG_RUNTIME_DIR"]) / "jupyter")
    return found



def protected_candidates(writable: list[Path], home: Path) -> list[Path]:
    """Every path inside the writable directories that must stay read-only, existing or not."""
    candidates = [directory / name for directory in writable for name in PROTECTED_NAMES]
    # A .git file ("gitdir: ...") names the repository git uses, and a .git made where there
    # was none is a repository (with its config) the user's next git in that folder uses.
    candidates += [directory / ".git" for directory in writable if not (directory / ".git").is_dir()]
    if any(_same(directory, home) or _inside(home, directory) for directory in writable):
        candidates += [home / name for name in _HOME_STARTUP]
    return candidates


def protected_paths(writable: list[Path], home: Path) -> list[Path]:
    """Existing paths inside the writable directories that must stay read-only."""
    return _existing(protected_candidates(writable, home))


def _existing(paths: list[Path]) -> list[Path]:
    seen: dict[Path, None] = {}
    for path in paths:
        if os.path.lexists(path):
            seen.setdefault(Path(os.path.normpath(path)), None)
    return list(seen)


def _same(a: Path, b: Path) -> bool:
    return os.path.normpath(a) == os.path.normpath(b)


def _inside(path: Path, directory: Path) -> bool:
    try:
        Path(os.path.normpath(path)).relative_to(os.path.normpath(directory))
    except ValueError:
        return False
    return True


def home_view(home: Path, writable: list[Path], env: Mapping[str, str] | None = None) -> tuple[Path, ...] | None:
    """What of the home directory a sandboxed command sees, or None when it sees all of it
    (a working directory is the home directory or holds it).

    Read outside the working directories asks; the sandbox follows it for the home
    directory, where the personal files are (shell history, ``~/.kaggle``, tokens in
    ``~/.cache``, other projects' ``.env``): only the working directories inside it, the
    kernel's Python (a pyenv or conda under ``~``, the user site) and the programs on
    ``PATH`` under ``~`` (``~/.pyenv`` for ``~/.pyenv/shims``, a toolchain's prefix for its
    ``bin``; ``~/.local/bin`` with ``~/.local/lib``) are there, read-only."""
    env = os.environ if env is None else env
    home = Path(os.path.realpath(home))
    if home == Path("/") or any(_same(w, home) or _inside(home, w) for w in writable):
        return None
    wanted: list[Path] = [Path(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.dirname(os.path.realpath(sys.executable)))]
    user_site = getattr(site, "getusersitepackages", lambda: None)()
    if user_site:
        wanted.append(Path(user_site))
    for entry in search_path(env.get("PATH", os.defpath)).split(os.pathsep):
        real = Path(os.path.realpath(entry))
        if not _inside(real, home):
            continue
        parent = real.parent
        if real.name in ("bin", "sbin", "shims") and parent == home / ".local":
            wanted += [real, parent / "lib"]
        elif real.name in ("bin", "sbin", "shims") and parent != home:
            wanted.append(parent)
        else:
            wanted.append(real)
    inside = [Path(os.path.realpath(p)) for p in wanted if _inside(Path(os.path.realpath(p)), home) and os.path.exists(p)]
    inside = [p for p in dict.fromkeys(inside) if p != home]
    return tuple(p for p in inside if not any(q != p and _inside(p, q) for q in inside))
