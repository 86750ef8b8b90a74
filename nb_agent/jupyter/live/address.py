"""Where the notebook open in the browser is, and which spellings of a path name it.

The notebook belongs to the Jupyter server; the kernel may run elsewhere (Kernel Gateway,
Enterprise Gateway, JupyterHub with remote kernels), where no file of that name exists, or
where a file of that name is another one. So the live notebook is addressed by the page,
not by a file: the page reports its path relative to the server's root and the root itself,
and a tool call names the open notebook when its path is one of these spellings, exactly
(after folding ``.`` and ``..``):

- the path the model was told (:attr:`NotebookAddress.shown`: the server-side path, which is
  also the file's path when the kernel sees the server's files),
- the server-side path (the server's root joined with the notebook's path),
- the notebook's path relative to the server's root, or its bare name, written as a relative path,
- when the kernel sees the notebook's file, any path of that same file (a link to it).

Nothing else names it: a path that merely resembles it (another folder, ``../name``, another
case) is a file like any other, with the file tools' checks. A call that names the open
notebook goes to the page and never to a file on this machine, so a same-named file here
(a stale copy in the kernel's image) is never read or written in its place.
"""

from __future__ import annotations

import os
import posixpath
from dataclasses import dataclass
from pathlib import Path

WORKING_DIR_ENV = "KERNEL_WORKING_DIR"
"""Set by Jupyter Server in a kernel started through a gateway: the notebook's folder on the
server's machine (Enterprise Gateway also starts the kernel there, when it can)."""


@dataclass(frozen=True, kw_only=True)
class NotebookAddress:
    """The open notebook as the page reports it, and where it is for the kernel."""

    notebook_path: str
    """Relative to the server's root, ``/``-separated (JupyterLab's ``context.path``)."""
    server_root: str | None
    """The server's root folder on the server's machine (``None``: an older page did not say)."""
    shown: Path
    """The path the model is told: the server-side path when known."""
    on_this_machine: bool
    """The notebook's file is at :attr:`shown` on the kernel's machine."""

    @classmethod
    def locate(cls, notebook_path: str, server_root: str | None, *, cwd: Path, working_dir: str | None = None) -> NotebookAddress:
        """Where the notebook is for a kernel running in ``cwd``; ``working_dir`` is
        :data:`WORKING_DIR_ENV` (the notebook's server-side folder, through a gateway)."""
        relative = notebook_path.replace("\\", "/").lstrip("/")
        if server_root:
            shown = Path(posixpath.normpath(posixpath.join(server_root.replace("\\", "/"), relative)))
            return cls(notebook_path=notebook_path, server_root=server_root, shown=shown, on_this_machine=shown.is_file())
        name = posixpath.basename(relative)
        candidates = [cwd / relative, cwd / name]  # the kernel runs in the notebook's folder, locally
        if working_dir:
            candidates.insert(0, Path(working_dir) / name)
        found = next((c for c in candidates if c.is_file()), None)
        shown = found or (Path(working_dir) / name if working_dir else cwd / relative)
        return cls(notebook_path=notebook_path, server_root=None, shown=Path(os.path.normpath(shown)), on_this_machine=found is not None)

    @property
    def name(self) -> str:
        return posixpath.basename(self.notebook_path.replace("\\", "/"))

    @property
    def server_path(self) -> str | None:
        return os.fspath(self.shown) if self.server_root else None

    def names(self, raw: str, cwd: Path) -> bool:
        """Whether a tool's path argument ``raw`` (as the model wrote it) names this notebook."""
        text = raw.strip()
        if not text or "\x00" in text:
            return False
        expanded = os.path.expanduser(text)
        shown = os.path.normpath(self.shown)
        if not os.path.isabs(expanded):
            relative = posixpath.normpath(text.replace("\\", "/"))
            if relative in (posixpath.normpath(self.notebook_path.replace("\\", "/").lstrip("/")), self.name):
                return True
            expanded = os.path.join(os.fspath(cwd), expanded)
        candidate = os.path.normpath(expanded)
        if candidate == shown:
            return True
        if not self.on_this_machine:
            return False
        try:
            return os.path.samefile(candidate, shown)
        except OSError:
            return False

    def where(self) -> str:
        """Where the notebook's file is, for the model and ``%agent status``."""
        if self.on_this_machine:
            return str(self.shown)
        return f"{self.shown} on the Jupyter server (not a file on the kernel's machine: only Read and NotebookEdit reach it, through the page)"




ELSEWHERE = "the notebook lives on the Jupyter server; open it in JupyterLab for live edits"


def elsewhere_message(raw: str, cwd: Path, *, known: list[NotebookAddress], working_dir: str | None) -> str | None:
    """When ``raw`` (a path that is not a file on this machine) names the user's notebook
    and no page is connected to reach it: the message that says where it is. ``known``: the
    notebooks this kernel knows of; ``working_dir``: :data:`WORKING_DIR_ENV`."""
    import socket

    host = socket.gethostname()
    for address in known:
        if not address.on_this_machine and address.names(raw, cwd):
            return (
                f"{address.shown} is not a file on the kernel's machine ({host}): {ELSEWHERE} "
                "(the nb-agent-live extension lets Read and NotebookEdit reach the open notebook through the page)."
            )
    if working_dir and not os.path.isdir(working_dir) and raw.strip().lower().endswith(".ipynb"):
        return (
            f"{raw.strip()} is not a file on the kernel's machine ({host}), which runs apart from the Jupyter server "
            f"(the notebook's folder there is {working_dir}): {ELSEWHERE} "
            "(the nb-agent-live extension lets Read and NotebookEdit reach the open notebook through the page)."
        )
    return None


__all__ = ["ELSEWHERE", "WORKING_DIR_ENV", "NotebookAddress", "elsewhere_message"]
