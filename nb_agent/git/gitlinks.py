"""The submodules git will enter: the gitlinks of a repository's index, read without git.

``git status`` (and ``git diff``, ``describe --dirty``...) runs ``git status`` inside every
submodule the index records (a *gitlink* entry) whose directory holds a ``.git``, whether
or not ``.gitmodules`` lists it; that git reads the submodule's own configuration, whose
``core.fsmonitor`` it runs. The index file is read here (format versions 2 to 4, SHA-1 or
SHA-256 object names); anything not understood (a split index, a bad header, an entry that
runs past the end) answers ``None``, so the caller can ask instead of guessing.
"""

from __future__ import annotations

import struct
from pathlib import Path

__all__ = ["gitlink_paths"]

_MAX_INDEX_BYTES = 256 * 1024 * 1024
_GITLINK = 0o160000
_OBJECT_TYPE = 0o170000
_FIXED = 40  # ctime, mtime, dev, ino, mode, uid, gid, size: ten 32-bit fields


def gitlink_paths(index: Path) -> list[str] | None:
    """The paths of the index's gitlink entries; ``[]`` without an index; ``None`` when
    the index is not understood."""
    try:
        if index.stat().st_size > _MAX_INDEX_BYTES:
            return None
        data = index.read_bytes()
    except FileNotFoundError:
        return []
    except OSError:
        return None
    if len(data) < 12 or data[:4] != b"DIRC":
        return None
    version, count = struct.unpack(">II", data[4:12])
    if version not in (2, 3, 4):
        return None
    for hash_size in (20, 32):  # SHA-1, or SHA-256 (extensions.objectformat)
        found = _entries(data, version, count, hash_size)
        if found is not None:
            return found
    return None


def _entries(data: bytes, version: int, count: int, hash_size: int) -> list[str] | None:
    """The gitlink paths, reading ``count`` entries with ``hash_size``-byte names; ``None``
    when the bytes do not fit (then another hash size may)."""
    links: list[str] = []
    offset, previous = 12, b""
    end = len(data) - hash_size  # the trailing checksum
    for _ in range(count):
        start = offset
        if offset + _FIXED + hash_size + 2 > end:
            return None
        mode = struct.unpack(">I", data[offset + 24 : offset + 28])[0]
        offset += _FIXED + hash_size
        flags = struct.unpack(">H", data[offset : offset + 2])[0]
        offset += 2
        if flags & 0x4000:  # extended flags (version 3 and up)
            if version < 3:
                return None
            offset += 2
        if version == 4:
            strip, offset = _varint(data, offset)
            if strip is None or strip > len(previous):
                return None
            nul = data.find(b"\0", offset, end)
            if nul < 0:
                return None
            path = previous[: len(previous) - strip] + data[offset:nul]
            offset = nul + 1
        else:
            nul = data.find(b"\0", offset, end)
            if nul < 0:
                return None
            path = data[offset:nul]
            offset = start + ((nul - start) // 8 + 1) * 8  # 1-8 NULs pad the entry to 8 bytes
        if not path or path.startswith(b"/") or b"\0" in path:
            return None
        previous = path
        if mode & _OBJECT_TYPE == _GITLINK:
            links.append(path.decode("utf-8", "surrogateescape"))
    if _has_split_index(data, offset, end):
        return None  # the entries live in a shared index file as well: not read here
    return links


def _varint(data: bytes, offset: int) -> tuple[int | None, int]:
    """git's offset varint (index v4 path compression)."""
    if offset >= len(data):
        return None, offset
    byte = data[offset]
    offset += 1
    value = byte & 0x7F
    while byte & 0x80:
        if offset >= len(data):
            return None, offset
        byte = data[offset]
        offset += 1
        value = ((value + 1) << 7) | (byte & 0x7F)
    return value, offset


def _has_split_index(data: bytes, offset: int, end: int) -> bool:
    """Walk the extensions after the entries; a ``link`` extension (split index), or
    bytes that are not extensions, count as not understood."""
    while offset < end:
        if offset + 8 > end:
            return True
        signature = data[offset : offset + 4]
        size = struct.unpack(">I", data[offset + 4 : offset + 8])[0]
        if signature == b"link" or offset + 8 + size > end:
            return True
        offset += 8 + size
    return offset != end
