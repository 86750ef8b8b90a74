"""The kernel's folder is not a place nb_agent imports from.

A Jupyter kernel's ``sys.path`` holds ``''`` (the working directory) ahead of
site-packages, so a folder's ``anthropic.py``, ``nbformat.py`` or ``PIL/`` would run in
the kernel the first time nb_agent imports that name, with no tool call and whatever
the folder-trust answer. :func:`install` puts an :class:`ImportGuard` on
``sys.meta_path`` (``%load_ext nb_agent`` and ``import nb_agent`` do it first thing); it
decides where a module may come from:

* an import made **on nb_agent's behalf** (an ``nb_agent`` frame on the stack before any
  ``__main__`` frame: nb_agent's own modules, the libraries it calls, their optional
  imports such as httpx's ``brotli``, threads nb_agent starts) never resolves from an
  *untrusted location*: it is looked up in the other ``sys.path`` entries and, if it is not
  there, it fails with :class:`~nb_agent.errors.UnsafeImportError` (a
  ``ModuleNotFoundError``, so ``try: import x / except ImportError`` code works);
* **any** import (the user's and ExecuteCode's too) of a name that is installed — in the
  standard library, site-packages or any trusted ``sys.path`` entry — gets the installed
  module, never a same-named file in an untrusted location. A module of the folder with a
  name of its own (``utils.py``) imports as before.

*Untrusted locations* are the ``sys.path`` entries inside the kernel's current working
directory (``''`` is it) or inside a directory registered with :func:`distrust` (the
agent's working directories: tools write there without asking in some modes), except
Python's own installation directories (a virtual environment inside the project is still
the environment; writes to it always ask, see :mod:`nb_agent.permissions.protected`).

How nb_agent code must import: normally (``import x`` at module level or in a function);
the guard sees every import whose stack holds an nb_agent frame. A thread started for
nb_agent must run an nb_agent function (not a library function directly), so that its
imports are recognised; imports made in a ``__main__`` frame (cells, ExecuteCode, Python
hooks) are the user's.

Only the standard library is imported here, so installing the guard imports nothing from
the folder.
"""

from __future__ import annotations

import functools
import os
import site
import sys
import sysconfig
import threading
from collections.abc import Iterable, Sequence
from importlib.machinery import ModuleSpec, PathFinder
from types import FrameType, ModuleType

from nb_agent.errors import UnsafeImportError

__all__ = [
    "IMPORTABLE_SUFFIXES",
    "ImportGuard",
    "distrust",
    "import_directories",
    "importable_name",
    "install",
    "installed_elsewhere",
    "installed_guard",
    "is_python_installation",
    "is_untrusted_location",
    "planted_modules",
]

_OWN_PACKAGE = "nb_agent"
_IMPORT_MACHINERY = ("<frozen importlib._bootstrap", "importlib/__init__.py", "importlib\\__init__.py")


def _machinery_suffixes() -> list[str]:
    from importlib.machinery import all_suffixes

    return all_suffixes()


def _real(path: str) -> str:
    return os.path.normcase(os.path.realpath(path or os.curdir))


def _inside(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip(os.sep) + os.sep)


def _installation_directories() -> tuple[str, ...]:
    """Python's own directories: trusted even when a virtual environment sits in the project."""
    found: list[str] = []
    for name in ("stdlib", "platstdlib", "purelib", "platlib"):
        value = sysconfig.get_paths().get(name)
        if value:
            found.append(value)
    found += list(getattr(site, "getsitepackages", lambda: [])())
    user_site = getattr(site, "getusersitepackages", lambda: None)()
    if user_site:
        found.append(user_site)
    return tuple(dict.fromkeys(_real(p) for p in found))


class ImportGuard:
    """A ``sys.meta_path`` finder placed before :class:`~importlib.machinery.PathFinder`."""

    def __init__(self) -> None:
        self._roots: set[str] = set()
        self._lock = threading.Lock()
        self._installation = _installation_directories()
        self._cache: tuple[tuple[str, ...], tuple[str, ...], frozenset[str]] | None = None
        self._roots_cache: tuple[str, tuple[str, ...]] | None = None
        """``(os.getcwd(), untrusted_roots())`` as last computed."""

    # --- where a module may come from ------------------------------------------------------
    def distrust(self, directories: Iterable[os.PathLike[str] | str]) -> None:
        """Also treat ``sys.path`` entries inside ``directories`` as untrusted."""
        with self._lock:
            self._roots.update(_real(os.fspath(d)) for d in directories)
            self._cache = None
            self._roots_cache = None

    def untrusted_roots(self) -> tuple[str, ...]:
        cwd = os.getcwd()
        with self._lock:
            cached = self._roots_cache
            if cached is not None and cached[0] == cwd:
                return cached[1]
            roots = set(self._roots)
        # Keyed by getcwd(), which names the directory without symlinks: a path that later
        # resolves elsewhere is another getcwd(). realpath's lstat per component, at every
        # import, was a fifth of the first run's `import anthropic` (0.15-0.25 s of CPU).
        roots.add(_real(cwd))
        found = tuple(sorted(roots))
        with self._lock:
            if roots.issuperset(self._roots):  # no distrust() in between
                self._roots_cache = (cwd, found)
        return found

    def is_untrusted_location(self, path: str, roots: Sequence[str] | None = None) -> bool:
        """Whether a file or ``sys.path`` entry at ``path`` lies in an untrusted location."""
        real = _real(path)
        if any(_inside(real, d) for d in self._installation):
            return False
        return any(_inside(real, root) for root in (roots if roots is not None else self.untrusted_roots()))

    def untrusted_entries(self, entries: Sequence[str]) -> frozenset[str]:
        """The entries of ``entries`` (``sys.path`` or a package's ``__path__``) that are untrusted."""
        key = tuple(e for e in entries if isinstance(e, str))
        roots = self.untrusted_roots()
        cached = self._cache
        if cached is not None and cached[0] == key and cached[1] == roots:
            return cached[2]
        unsafe = frozenset(e for e in key if self.is_untrusted_location(e, roots))
        self._cache = (key, roots, unsafe)
        return unsafe

    # --- the finder ------------------------------------------------------------------------
    def find_spec(self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None) -> ModuleSpec | None:
        entries = list(sys.path if path is None else path)
        if path is not None:
            own = self._parents_own_directories(fullname)
            if own.issuperset(entries):
                return None  # a regular package's submodule: nothing left to check (most imports)
            unsafe = self.untrusted_entries(entries) - own
        else:
            unsafe = self.untrusted_entries(entries)
        if not unsafe:
            return None  # nothing to decide: the default finders give the same answer
        safe = [e for e in entries if e not in unsafe]
        spec = PathFinder.find_spec(fullname, safe, target)
        if spec is not None:
            return spec  # installed: never shadowed by a file in an untrusted location
        if not on_behalf_of_nb_agent():
            return None  # the user's own module (the default finders find it as before)
        spec = self._from_other_finders(fullname, path, target)
        if spec is not None:
            return spec
        if _probing():
            # importlib.util.find_spec only looks: it expects None, never an error. The
            # import that may follow comes back here and is refused then.
            return None
        raise UnsafeImportError(
            f"No module named {fullname!r} outside the kernel's working directory: nb_agent never imports "
            f"from {', '.join(sorted(_real(e) for e in unsafe))}",
            name=fullname,
        )

    def _parents_own_directories(self, fullname: str) -> frozenset[str]:
        """A regular package's own directory is where its submodules live (it was vetted
        when the package was imported); only entries added to its path beyond it are checked."""
        parent = sys.modules.get(fullname.rpartition(".")[0])
        origin = getattr(getattr(parent, "__spec__", None), "origin", None)
        if not origin or not os.path.isabs(origin):
            return frozenset()
        return frozenset({os.path.dirname(origin)})

    def _from_other_finders(self, fullname: str, path: Sequence[str] | None, target: ModuleType | None) -> ModuleSpec | None:
        """Finders after PathFinder (editable installs): accepted when the module they find
        is not in an untrusted location."""
        for finder in list(sys.meta_path):
            if finder is self or finder is PathFinder or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is None:
                continue
            origin = spec.origin if spec.has_location and spec.origin else None
            if origin is None or not self.is_untrusted_location(origin):
                return spec
        return None


def on_behalf_of_nb_agent(frame: FrameType | None = None) -> bool:
    """Whether the import being made was started by nb_agent code: an nb_agent frame is on
    the stack before (inside of) any ``__main__`` frame (cells and ExecuteCode run there)."""
    frame = frame or sys._getframe(1)
    while frame is not None:
        filename = frame.f_code.co_filename
        if not filename.startswith(_IMPORT_MACHINERY[0]) and not filename.endswith(_IMPORT_MACHINERY[1:]):
            name = frame.f_globals.get("__name__", "")
            if name == "__main__":
                return False
            if isinstance(name, str) and (name == _OWN_PACKAGE or name.startswith(_OWN_PACKAGE + ".")) and name != __name__:
                return True
        frame = frame.f_back
    return False


def _probing() -> bool:
    """Whether this lookup comes from ``importlib.util.find_spec`` rather than an import."""
    frame = sys._getframe(2)
    while frame is not None:
        filename = frame.f_code.co_filename
        if filename == "<frozen importlib.util>" or filename.endswith(("importlib/util.py", "importlib\\util.py")):
            return True
        if not filename.startswith(_IMPORT_MACHINERY[0]):
            return False
        frame = frame.f_back
    return False


_guard: ImportGuard | None = None
_install_lock = threading.Lock()


def install() -> ImportGuard:
    """Put the guard on ``sys.meta_path`` (once per process), just before PathFinder."""
    global _guard
    with _install_lock:
        if _guard is None:
            _guard = ImportGuard()
        if _guard not in sys.meta_path:
            position = sys.meta_path.index(PathFinder) if PathFinder in sys.meta_path else len(sys.meta_path)
            sys.meta_path.insert(position, _guard)
        return _guard


def installed_guard() -> ImportGuard | None:
    return _guard


def distrust(directories: Iterable[os.PathLike[str] | str]) -> None:
    """Register the agent's working directories as untrusted import locations."""
    install().distrust(directories)


def is_untrusted_location(path: str) -> bool:
    return install().is_untrusted_location(path)


def planted_modules() -> list[str]:
    """Modules already imported from an untrusted location that shadow an installed module
    of the same name (imported before the guard existed): ``"name (path)"`` each."""
    guard = install()
    roots = guard.untrusted_roots()
    found: list[str] = []
    for name, module in list(sys.modules.items()):
        if "." in name or name == "__main__" or not isinstance(module, ModuleType):
            continue
        origin = getattr(getattr(module, "__spec__", None), "origin", None) or getattr(module, "__file__", None)
        if not origin or not os.path.isabs(origin) or not guard.is_untrusted_location(origin, roots):
            continue
        safe = [e for e in sys.path if isinstance(e, str) and not guard.is_untrusted_location(e, roots)]
        if PathFinder.find_spec(name, safe) is not None:
            found.append(f"{name} ({origin})")
    return found


# --- what a write can add to the import path (permissions and the sandbox use this) -------------
IMPORTABLE_SUFFIXES: tuple[str, ...] = tuple(dict.fromkeys((*_machinery_suffixes(), ".pth")))
"""File endings the import system loads from a ``sys.path`` directory (``.py``, ``.pyc``,
extension modules), and ``.pth`` (run by ``site`` at start-up in site directories)."""
STARTUP_MODULES = frozenset({"sitecustomize", "usercustomize"})


def import_directories() -> list[str]:
    """Real paths of the directories imports look in at the top level: every ``sys.path``
    entry (``''`` is the working directory) and the directories registered with
    :func:`distrust` (a restarted kernel has its notebook's folder on ``sys.path`` again)."""
    guard = install()
    with guard._lock:
        roots = tuple(sorted(guard._roots))
    key = (tuple(e for e in sys.path if isinstance(e, str)), os.getcwd(), roots)
    cached = _import_directories_cache
    if cached is None or cached[0] != key:
        cached = (key, tuple(dict.fromkeys([*(_real(e) for e in key[0]), *roots])))
        globals()["_import_directories_cache"] = cached
    return [d for d in cached[1] if os.path.isdir(d)]  # one made since counts at once


_import_directories_cache: tuple[tuple[object, ...], tuple[str, ...]] | None = None


def is_python_installation(path: str) -> bool:
    """Inside Python's own directories (stdlib, site-packages, the user site)."""
    real = _real(path)
    return any(_inside(real, d) for d in install()._installation)


def importable_name(name: str, *, is_dir: bool, directory: str) -> bool:
    """Whether an entry called ``name`` directly in the import directory ``directory`` is
    something an import loads: a module file, a package, a ``__pycache__``, a ``.pth``,
    or a directory named like an installed module (a namespace portion that shadows it)."""
    if name == "__pycache__":
        return True
    if not is_dir:
        return name.lower().endswith(IMPORTABLE_SUFFIXES)
    full = os.path.join(directory, name)
    if any(os.path.exists(os.path.join(full, "__init__" + suffix)) for suffix in _machinery_suffixes()):
        return True
    return installed_elsewhere(name, directory)


def installed_elsewhere(name: str, directory: str) -> bool:
    """Whether the top-level module ``name`` is importable from a ``sys.path`` entry other than ``directory``."""
    if not name.isidentifier():
        return False
    return _installed_elsewhere(name, _real(directory), tuple(e for e in sys.path if isinstance(e, str)))


@functools.lru_cache(maxsize=4096)
def _installed_elsewhere(name: str, directory: str, path: tuple[str, ...]) -> bool:
    """Cached per ``sys.path``: a command's sandbox plan asks for every folder of the project."""
    others = [e for e in path if _real(e) != directory]
    try:
        spec = PathFinder.find_spec(name, others)
    except (ImportError, ValueError):
        return False
    if spec is None:
        return False
    if spec.origin is not None:
        return True
    # A namespace package: any directory of that name anywhere on sys.path makes one, so only
    # one that Python's own directories hold (google, mpl_toolkits, ...) counts as installed.
    return any(is_python_installation(p) for p in spec.submodule_search_locations or ())
