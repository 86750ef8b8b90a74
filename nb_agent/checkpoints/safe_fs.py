"""Writing and deleting files inside a folder without ever following a link out of it.

A rewind writes back files the agent changed. Since the run, a folder on the way may have
become a symbolic link (the agent's code could have made ``data -> /etc``): every folder
on the path is opened with ``O_NOFOLLOW`` relative to its parent, a link there refuses the
write, and the file itself is replaced by a rename inside its folder (which replaces a
link at that name instead of writing through it). Each write is atomic: the old file stays
whole until the new one is complete, so a full disk or an interrupt loses nothing.
"""

from __future__ import annotations

import os
import stat
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from nb_agent.errors import UnsafePathError

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


def _parts(relative: str) -> list[str]:
    parts = [p for p in relative.split("/") if p not in ("", ".")]
    if not parts or any(p == ".." for p in parts):
        raise UnsafePathError(f"{relative!r} is not a path inside the folder")
    return parts


@contextmanager
def _parent_dir(root: Path, relative: str, *, create: bool) -> Iterator[tuple[int, str]]:
    """``(fd of the file's folder, file name)``, every folder opened without following links."""
    parts = _parts(relative)
    fd = os.open(root, _DIR_FLAGS)
    try:
        for part in parts[:-1]:
            try:
                child = os.open(part, _DIR_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                os.mkdir(part, 0o777, dir_fd=fd)
                child = os.open(part, _DIR_FLAGS, dir_fd=fd)
            except OSError as exc:  # ELOOP: a link; ENOTDIR: a file
                raise UnsafePathError(f"{relative}: {part} is a link or not a folder now") from exc
            os.close(fd)
            fd = child
        yield fd, parts[-1]
    finally:
        os.close(fd)


def _mode_for(fd: int, name: str, git_mode: int) -> int:
    """Keep the permissions of the file being replaced; else git's (644, or 755 if executable)."""
    try:
        current = os.stat(name, dir_fd=fd, follow_symlinks=False)
        if stat.S_ISREG(current.st_mode):
            return stat.S_IMODE(current.st_mode)
    except FileNotFoundError:
        pass
    return 0o755 if git_mode & 0o111 else 0o644


def write_file(root: Path, relative: str, data: bytes, *, git_mode: int = 0o100644) -> None:
    """Put ``data`` at ``root/relative`` (a file, or a symbolic link when ``git_mode`` says so)."""
    with _parent_dir(root, relative, create=True) as (fd, name):
        temporary = f".{name}.nb_agent-{uuid.uuid4().hex[:8]}"
        if stat.S_ISLNK(git_mode):
            os.symlink(os.fsdecode(data), temporary, dir_fd=fd)
        else:
            mode = _mode_for(fd, name, git_mode)
            out = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600, dir_fd=fd)
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(out, view) :]
                os.fchmod(out, mode)
            except BaseException:
                os.close(out)
                os.unlink(temporary, dir_fd=fd)
                raise
            os.close(out)
        try:
            os.replace(temporary, name, src_dir_fd=fd, dst_dir_fd=fd)
        except BaseException:
            os.unlink(temporary, dir_fd=fd)
            raise


def delete_file(root: Path, relative: str) -> bool:
    """Remove ``root/relative`` (a link is removed, not followed); ``False`` if it was gone.
    Folders left empty by it are removed too, up to ``root``."""
    try:
        with _parent_dir(root, relative, create=False) as (fd, name):
            os.unlink(name, dir_fd=fd)
    except FileNotFoundError:
        return False
    _remove_empty_parents(root, relative)
    return True


def _remove_empty_parents(root: Path, relative: str) -> None:
    parts = _parts(relative)[:-1]
    while parts:
        try:
            with _parent_dir(root, "/".join(parts), create=False) as (fd, name):
                os.rmdir(name, dir_fd=fd)
        except OSError:  # not empty, gone, or a link: leave it
            return
        parts.pop()
