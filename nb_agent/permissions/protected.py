"""Files whose change runs code or changes the agent: writing them always asks.

No mode (``acceptEdits``, ``bypassPermissions``) and no allow rule skips the ask; only a
deny rule is stronger. Matching is case-insensitive (macOS and Windows file systems are)
and applies to every spelling of the path (as written with ``~`` and ``..`` folded, and
with symlinks resolved), so ``~/.BashRC``, ``link-to-home/.bashrc`` and
``sub/../.ssh/authorized_keys`` are all caught.

What is protected, and why:

* shell and login startup files (``.bashrc``, ``.zshrc``, ``.profile``, fish's config,
  ``.envrc``…): the next shell runs them;
* ``.ssh/``, ``.gnupg/``, ``.aws/``, ``.kube/``, ``.docker/``, ``.gitconfig``,
  ``.git-credentials``, ``.config/git/``: keys, and tools that run configured commands;
* IPython and Jupyter startup and configuration (``.ipython/``, ``.jupyter/``,
  ``ipython_config.py``, ``jupyter_*_config.*``, ``$IPYTHONDIR``, ``$JUPYTER_CONFIG_DIR``):
  the next kernel runs them;
* Python's own directories (site-packages, dist-packages, every ``sysconfig`` path, the
  user site) and ``.pth`` / ``sitecustomize.py`` / ``usercustomize.py`` files in any
  ``sys.path`` directory: the next interpreter imports or executes them;
* what the kernel would import from a ``sys.path`` directory, its working directory
  included (:func:`nb_agent.import_guard.import_directories`): a module, package,
  ``__pycache__`` or ``.pth`` at its top, or a file in a directory there named like an
  installed module;
* agent configuration: ``.claude/``, ``.claude.json``, ``.mcp.json``, ``.nb_agent/``
  (the folder-trust answers too, and ``$NB_AGENT_TRUST_FILE`` wherever it points),
  ``.git/`` (git hooks), ``.gitmodules``, ``.vscode/``, ``.idea/``, ``.ripgreprc``.
"""

from __future__ import annotations

import os
import site
import sys
import sysconfig
from functools import lru_cache
from pathlib import Path

from nb_agent.import_guard import IMPORTABLE_SUFFIXES, import_directories, installed_elsewhere
from nb_agent.permissions.paths import candidate_paths, safe_realpath

__all__ = ["protected_reason"]

_STARTUP_FILES = frozenset(
    {
        ".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".bash_aliases", ".profile",
        ".zshrc", ".zshenv", ".zprofile", ".zlogin", ".zlogout", ".login", ".logout", ".cshrc",
        ".tcshrc", ".kshrc", ".mkshrc", ".inputrc", ".envrc", ".xprofile", ".xinitrc",
        ".xsession", ".xsessionrc", ".pam_environment", ".pythonrc", ".pythonstartup",
        ".pythonrc.py", ".vimrc", ".gvimrc", ".exrc", ".emacs", ".rprofile", ".tmux.conf", ".screenrc",
    }
)  # fmt: skip
_TOOL_CONFIG_FILES = frozenset(
    {".gitconfig", ".git-credentials", ".gitmodules", ".ripgreprc", ".npmrc", ".netrc", ".curlrc", ".wgetrc", ".pypirc"}
)
_AGENT_FILES = frozenset({".claude.json", ".mcp.json"})
_PYTHON_STARTUP_FILES = frozenset({"sitecustomize.py", "usercustomize.py"})
_PROTECTED_DIRS: dict[str, str] = {
    ".ssh": "SSH keys and configuration",
    ".gnupg": "GnuPG keys and configuration",
    ".aws": "AWS credentials and configuration (credential_process runs commands)",
    ".kube": "Kubernetes configuration (exec plugins run commands)",
    ".docker": "Docker configuration (credential helpers run commands)",
    ".ipython": "IPython startup and configuration",
    ".jupyter": "Jupyter configuration",
    ".git": "the git repository (git hooks run code)",
    ".claude": "agent configuration (settings, hooks, agents)",
    ".nb_agent": "nb_agent's own state and configuration",
    ".vscode": "editor configuration (tasks run commands)",
    ".idea": "editor configuration (run configurations)",
    "site-packages": "installed Python packages",
    "dist-packages": "installed Python packages",
}
_NESTED_DIRS: dict[tuple[str, ...], str] = {
    (".config", "fish"): "fish shell startup files",
    (".config", "git"): "git configuration",
    (".config", "ipython"): "IPython startup and configuration",
    (".config", "jupyter"): "Jupyter configuration",
    (".config", "direnv"): "direnv configuration",
    (".config", "environment.d"): "login environment",
    (".config", "autostart"): "programs started at login",
    (".config", "systemd"): "user services (systemd starts them)",
    (".local", "bin"): "programs on the PATH",
    (".local", "share", "jupyter"): "Jupyter kernel specs and extensions (a kernel spec names the command a kernel runs)",
    ("library", "jupyter"): "Jupyter kernel specs and extensions (a kernel spec names the command a kernel runs)",
    ("library", "launchagents"): "programs started at login",
}


def protected_reason(path: Path) -> str | None:
    """Why writing ``path`` always needs approval, or ``None`` when it is ordinary."""
    for candidate in candidate_paths(path):
        reason = _by_name(candidate) or _by_location(candidate) or _by_import_path(candidate)
        if reason:
            return reason
    return None


def _by_import_path(path: Path) -> str | None:
    """A file the kernel would import: a module, package, ``__pycache__`` or ``.pth`` at the
    top of a ``sys.path`` directory (the kernel's working directory is one), or anything in
    a directory there named like an installed module (it shadows it)."""
    text = os.path.normpath(os.fspath(path))
    for directory in import_directories():
        if not text.startswith(directory.rstrip("/") + "/"):
            continue
        parts = text[len(directory.rstrip("/")) + 1 :].split("/")
        first = parts[0]
        top = first.split(".")[0]
        if len(parts) == 1 and (first == "__pycache__" or first.lower().endswith(IMPORTABLE_SUFFIXES)):
            return f"a module on the kernel's import path ({directory}): the kernel would run it"
        if len(parts) >= 2 and (first == "__pycache__" or (len(parts) == 2 and parts[1].startswith("__init__."))):
            return f"a package or compiled module on the kernel's import path ({directory}): the kernel would run it"
        if len(parts) >= 2 and installed_elsewhere(top, directory):
            return f"a file in {first}/, which shadows the installed module {top!r} for the kernel"
    return None


def _by_name(path: Path) -> str | None:
    parts = [_fold_name(p) for p in path.parts]
    name = parts[-1] if parts else ""
    for index, part in enumerate(parts):
        if part in _PROTECTED_DIRS:
            return _PROTECTED_DIRS[part]
        for nested, reason in _NESTED_DIRS.items():
            if tuple(parts[index : index + len(nested)]) == nested:
                return reason
    if name in _STARTUP_FILES:
        return "a shell startup file (the next shell runs it)"
    if name in _TOOL_CONFIG_FILES:
        return "tool configuration that can run commands or hold credentials"
    if name in _AGENT_FILES:
        return "agent configuration (MCP servers, settings)"
    if name in _PYTHON_STARTUP_FILES:
        return "a Python startup file (every interpreter runs it)"
    if name.startswith(("ipython_config", "ipython_kernel_config", "ipython_notebook_config")):
        return "IPython configuration (the next kernel runs it)"
    if name.startswith("jupyter_") and "_config." in name:
        return "Jupyter configuration (run by Jupyter at start)"
    return None


def _fold_name(name: str) -> str:
    """One path segment as file systems may compare it: case-insensitively and without
    the trailing dots and spaces Windows drops (``.ssh.`` is ``.ssh`` there)."""
    folded = name.casefold()
    stripped = folded.rstrip(". ")
    return stripped if stripped and stripped not in (".", "..") else folded


def _by_location(path: Path) -> str | None:
    folded = _fold(path)
    startup = os.environ.get("PYTHONSTARTUP")
    if startup and folded == _fold(safe_realpath(os.path.expanduser(startup))):
        return "the Python startup file ($PYTHONSTARTUP)"
    for directory, reason in _python_directories():
        if folded == directory or folded.startswith(directory.rstrip("/") + "/"):
            return reason
    if folded.endswith(".pth") and _fold(path.parent) in _sys_path_directories():
        return "a .pth file on Python's import path (the next interpreter runs it)"
    moved_store = os.environ.get("NB_AGENT_TRUST_FILE")  # nb_agent.trust's store, when not in ~/.nb_agent
    if moved_store and folded == _fold(os.path.realpath(os.path.expanduser(moved_store))):
        return "nb_agent's folder-trust answers"
    moved_checkpoints = os.environ.get("NB_AGENT_CHECKPOINTS_DIR")  # nb_agent.state_dir's, when not in ~/.nb_agent
    if moved_checkpoints and os.path.isabs(os.path.expanduser(moved_checkpoints)):
        directory = _fold(os.path.realpath(os.path.expanduser(moved_checkpoints)))
        if folded == directory or folded.startswith(directory.rstrip("/") + "/"):
            return "nb_agent's file checkpoints (a rewind writes them back into your folders)"
    return None


def _fold(path: Path | str) -> str:
    return os.path.normpath(os.fspath(path)).lower()


@lru_cache(maxsize=1)
def _python_directories() -> tuple[tuple[str, str], ...]:
    """Directories where a written file is run by the next interpreter or kernel."""
    found: dict[str, str] = {}
    for name in ("stdlib", "platstdlib", "purelib", "platlib", "scripts", "include"):
        try:
            value = sysconfig.get_path(name)
        except KeyError:
            continue
        if value:
            found.setdefault(_fold(os.path.realpath(value)), f"Python's {name} directory")
    sites = list(getattr(site, "getsitepackages", lambda: [])())
    user_site = getattr(site, "getusersitepackages", lambda: None)()
    for value in [*sites, *([user_site] if user_site else [])]:
        found.setdefault(_fold(os.path.realpath(value)), "Python's site-packages")
    for variable, reason in (
        ("IPYTHONDIR", "IPython startup and configuration"),
        ("JUPYTER_CONFIG_DIR", "Jupyter configuration"),
        ("JUPYTER_DATA_DIR", "Jupyter kernel specs and extensions"),
    ):
        if os.environ.get(variable):
            found.setdefault(_fold(os.path.realpath(os.path.expanduser(os.environ[variable]))), reason)
    for entry in os.environ.get("JUPYTER_PATH", "").split(os.pathsep):
        if entry:
            found.setdefault(_fold(os.path.realpath(os.path.expanduser(entry))), "Jupyter kernel specs and extensions")
    found.setdefault(_fold(os.path.realpath(os.path.join(sys.prefix, "share", "jupyter"))), "Jupyter kernel specs and extensions")
    found.pop(_fold("/"), None)  # a broken configuration must not protect the whole disk
    return tuple(found.items())


def _sys_path_directories() -> set[str]:
    # '' and the script's directory are the working directory: a .pth there is inert,
    # but a .pth in any real sys.path entry is executed at start-up.
    return {_fold(os.path.realpath(entry)) for entry in sys.path if entry and os.path.isdir(entry)}
