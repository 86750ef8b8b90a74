"""Where ``git`` would run, found without running git (for the read-only fast path).

A read-only git command is still a program that reads configuration: ``core.fsmonitor``,
``diff.<driver>.textconv``, ``filter.<driver>.clean``, ``core.pager`` and hooks run
commands, and a directory holding ``HEAD``, ``objects/`` and ``refs/`` *is* a (bare)
repository to git. So git only skips the prompt in the project's own repository root
(or the session's starting directory inside it), with a repository configuration made
only of keys known to run nothing, no hooks, and no ``GIT_*`` variable redirecting it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

from nb_agent.config_text import read_config_text
from nb_agent.git.discovery import GitRepository, discover_repository
from nb_agent.git.gitlinks import gitlink_paths

__all__ = ["GitRepository", "discover_repository", "git_run_problem"]


# GIT_* variables that change nothing a read-only command does (shell_env sets the first two).
_HARMLESS_GIT_VARIABLES = frozenset(
    {"GIT_EDITOR", "GIT_PAGER", "GIT_TERMINAL_PROMPT", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL",
     "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE"}
)

# Repository config keys known to run nothing on a read-only command: (section, key).
# A section with a subsection is allowed only for remote/branch/submodule, and then only
# these keys (`remote.x.uploadpack`, `diff.x.textconv`, `filter.x.clean` are not).
_SAFE_KEYS: dict[str, frozenset[str]] = {
    "core": frozenset(
        "repositoryformatversion filemode bare logallrefupdates ignorecase precomposeunicode "
        "symlinks autocrlf eol safecrlf quotepath checkstat trustctime untrackedcache "
        "splitindex sparsecheckout sparsecheckoutcone longpaths commitgraph multipackindex "
        "abbrev compression loosecompression bigfilethreshold".split()
    ),
    "remote": frozenset("url pushurl fetch push tagopt prune mirror skipdefaultupdate".split()),
    "branch": frozenset("remote merge rebase pushremote description".split()),
    "submodule": frozenset("url active branch".split()),
    "user": frozenset("name email".split()),
    "init": frozenset({"defaultbranch"}),
    "pull": frozenset({"rebase", "ff"}),
    "push": frozenset({"default", "autosetupremote"}),
    "fetch": frozenset({"prune", "prunetags"}),
    "extensions": frozenset({"objectformat", "worktreeconfig", "refstorage"}),
    "gc": frozenset({"auto", "autodetach"}),
    "lfs": frozenset({"repositoryformatversion", "url"}),
    "diff": frozenset({"renames", "algorithm", "mnemonicprefix", "noprefix", "context", "indentheuristic"}),
    "log": frozenset({"date", "decorate", "follow", "abbrevcommit"}),
    "status": frozenset({"showuntrackedfiles", "branch", "short"}),
    "color": frozenset({"ui", "branch", "diff", "status"}),
    "index": frozenset({"version"}),
}
_SUBSECTION_SECTIONS = frozenset({"remote", "branch", "submodule"})
_MAX_SUBMODULE_DEPTH = 4
_MAX_MODULES = 1000
_SECTION = re.compile(r'\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]')
_KEY = re.compile(r"([A-Za-z][A-Za-z0-9-]*)\s*(?:=|$|[;#])")


def _config_problem(path: Path, *, submodule: bool = False) -> str | None:
    """Why a config file may make git run something, or ``None`` when it cannot.
    ``submodule``: a submodule's own, which names its work tree (``core.worktree``)."""
    try:
        text = read_config_text(path, errors="replace")  # never a FIFO or /dev/zero
    except FileNotFoundError:
        return None
    except OSError:
        return f"{path} cannot be read"
    section: str | None = None
    subsection = False
    for raw_line in text.splitlines():
        line = raw_line.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("["):
            match = _SECTION.match(line)
            if match is None:
                return f"{path} has a section git may read differently: {line[:60]}"
            name = match.group(1).lower()
            section, _, dotted = name.partition(".")  # `[remote.origin]`, the old syntax
            subsection = match.group(2) is not None or bool(dotted)
            rest = line[match.end() :].strip()
            if not rest or rest[0] in "#;":
                continue
            line = rest  # `[core] fsmonitor = x` on one line
        match = _KEY.match(line)
        if section is None or match is None or line.endswith("\\"):
            return f"{path} has a line git may read differently: {line[:60]}"
        key = match.group(1).lower()
        if subsection and section not in _SUBSECTION_SECTIONS:
            return f"{path} sets {section}.<name>.{key}"
        if key not in _SAFE_KEYS.get(section, frozenset()) and not (submodule and (section, key) == ("core", "worktree")):
            return f"{path} sets {section}.{key}"
    return None


def _hooks_problem(git_dir: Path) -> str | None:
    hooks = git_dir / "hooks"
    try:
        names = [entry.name for entry in os.scandir(hooks)]
    except FileNotFoundError:
        return None
    except OSError:
        return f"{hooks} cannot be listed"
    active = [name for name in names if not name.endswith(".sample")]
    return f"{hooks} has hooks ({', '.join(sorted(active)[:3])})" if active else None


def _repository_problem(repository: GitRepository, *, depth: int = 0) -> str | None:
    git_dir = repository.git_dir
    common = git_dir
    commondir = git_dir / "commondir"
    if os.path.lexists(commondir):  # a linked worktree shares the main repository's config
        try:  # git reads whatever is there (a link to /dev/zero: without end); only a file is fine
            target = Path(read_config_text(commondir, errors="replace").strip())
        except OSError:
            return f"{commondir} cannot be read"
        common = target if target.is_absolute() else git_dir / target
    for config in dict.fromkeys((common / "config", git_dir / "config.worktree", git_dir / "config")):
        if problem := _config_problem(config, submodule=depth > 0):
            return problem
    return _hooks_problem(common) or _submodules_problem(repository, common, depth=depth)


def _submodules_problem(repository: GitRepository, common: Path, *, depth: int) -> str | None:
    """Why a submodule git may enter might make it run something: ``git status`` runs git
    in every submodule the index records whose directory holds a ``.git`` (listed in
    ``.gitmodules`` or not), and that git reads the submodule's configuration. Every
    submodule repository, and every one kept under ``.git/modules``, is held to the same
    rules as the project's own (their submodules too, a few levels down)."""
    if depth >= _MAX_SUBMODULE_DEPTH:
        return f"{repository.git_dir} has submodules nested deeper than this check looks"
    configs = _module_configs(common / "modules")
    if configs is None:
        return f"{common / 'modules'} holds more submodules than this check looks at"
    for config in configs:
        if problem := _config_problem(config, submodule=True):
            return problem
    if repository.work_tree is None:
        return None
    links = gitlink_paths(repository.git_dir / "index")
    if links is None:
        return f"{repository.git_dir / 'index'} is an index this check does not read (a split index?)"
    for link in links:
        directory = repository.work_tree / link
        if not os.path.lexists(directory / ".git"):
            continue  # not checked out: git does not go in
        found = discover_repository(Path(os.path.realpath(directory)))
        if found is None or found.work_tree is None or Path(os.path.realpath(found.work_tree)) != Path(os.path.realpath(directory)):
            return f"the submodule {link} has a .git that git may read differently"
        if problem := _repository_problem(found, depth=depth + 1):
            return f"the submodule {link}: {problem}"
    return None


def _module_configs(modules: Path) -> list[Path] | None:
    """The configuration files of the submodule repositories kept under ``modules``
    (``.git/modules/a``, ``.git/modules/a/modules/b``); ``None`` past the bound."""
    found: list[Path] = []
    pending = [modules]
    while pending:
        if len(found) > _MAX_MODULES:
            return None
        directory = pending.pop()
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue
        for entry in entries:
            if entry.name in ("config", "config.worktree") and not entry.is_dir():
                found.append(Path(entry.path))
            elif entry.is_dir(follow_symlinks=False) and entry.name not in ("objects", "refs", "logs", "hooks", "info"):
                pending.append(Path(entry.path))
    return found


def git_run_problem(cwds: set[Path], *, project_dir: Path, env: Mapping[str, str]) -> str | None:
    """Why ``git`` run in any of ``cwds`` might do more than read; ``None`` when it cannot."""
    for name in env:
        if name.startswith("GIT_") and name not in _HARMLESS_GIT_VARIABLES and not name.startswith("GIT_SSL_"):
            return f"the environment sets {name}, which changes what git reads or runs"
    project_real = Path(os.path.realpath(project_dir))
    expected = discover_repository(project_real)
    allowed = {project_real}
    if expected is not None and expected.work_tree is not None:
        allowed.add(Path(os.path.realpath(expected.work_tree)))
    for cwd in cwds:
        real = Path(os.path.realpath(cwd))
        if real not in allowed:
            return f"git would run in {cwd}, not in the project's repository root"
        found = discover_repository(real)
        if found != expected:
            return f"git would use the repository at {found.git_dir if found else 'nowhere'}"
    if expected is None:
        return None  # no repository: git reads nothing and fails
    return _repository_problem(expected)
