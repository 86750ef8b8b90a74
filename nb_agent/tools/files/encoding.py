"""Text encodings and line endings: detect them on read, keep them on write.

Supported: UTF-8, UTF-8 with BOM, UTF-16LE with BOM; LF or CRLF line endings (the
majority wins). The model always sees ``\\n`` line endings; a file is written back in the
encoding, BOM and line ending it had, so an edit does not rewrite every line.

Undecodable UTF-8 bytes are kept as surrogate escapes (``surrogateescape``) so an edit
elsewhere in the file writes them back byte for byte; :func:`display_text` turns them
into U+FFFD for anything shown to the model.
"""

from __future__ import annotations

import codecs
import io
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Literal

from nb_agent.errors import ToolError

TextEncoding = Literal["utf-8", "utf-8-bom", "utf-16-le-bom"]
LineEnding = Literal["LF", "CRLF"]

_BOMS: dict[TextEncoding, bytes] = {
    "utf-8": b"",
    "utf-8-bom": codecs.BOM_UTF8,
    "utf-16-le-bom": codecs.BOM_UTF16_LE,
}


@dataclass(frozen=True, kw_only=True)
class TextFormat:
    """How a text file is stored on disk."""

    encoding: TextEncoding = "utf-8"
    line_ending: LineEnding = "LF"

    @property
    def codec(self) -> str:
        return "utf-16-le" if self.encoding == "utf-16-le-bom" else "utf-8"

    @property
    def errors(self) -> str:
        # surrogateescape round-trips stray bytes, but only for ASCII-compatible codecs.
        return "surrogateescape" if self.codec == "utf-8" else "replace"


DEFAULT_FORMAT = TextFormat()
"""New files: UTF-8 without BOM, LF."""


@dataclass(frozen=True, kw_only=True)
class DecodedText:
    """A whole text file: ``text`` has ``\\n`` line endings; ``format`` says how to write it back."""

    text: str
    format: TextFormat
    has_invalid_bytes: bool = False


def detect_encoding(head: bytes) -> TextEncoding:
    """The encoding implied by the first bytes (a BOM), UTF-8 when there is none."""
    if head.startswith(codecs.BOM_UTF8):
        return "utf-8-bom"
    if head.startswith(codecs.BOM_UTF16_LE):
        return "utf-16-le-bom"
    return "utf-8"


def detect_line_ending(text: str) -> LineEnding:
    """CRLF when more lines end in ``\\r\\n`` than in a bare ``\\n``."""
    crlf = text.count("\r\n")
    return "CRLF" if crlf > text.count("\n") - crlf else "LF"


def decode_bytes(raw: bytes) -> DecodedText:
    """Decode a file's bytes, remembering its encoding and line ending."""
    encoding = detect_encoding(raw[:4])
    fmt = TextFormat(encoding=encoding)
    body = raw[len(_BOMS[encoding]) :]
    has_invalid = False
    try:
        text = body.decode(fmt.codec)
    except UnicodeDecodeError:
        has_invalid = True
        text = body.decode(fmt.codec, fmt.errors)
    ending = detect_line_ending(text)
    return DecodedText(
        text=text.replace("\r\n", "\n"),
        format=TextFormat(encoding=encoding, line_ending=ending),
        has_invalid_bytes=has_invalid,
    )


def encode_text(text: str, fmt: TextFormat) -> bytes:
    """``text`` (``\\n`` endings) as bytes in ``fmt``: BOM, codec and line ending restored."""
    if fmt.line_ending == "CRLF":
        text = text.replace("\r\n", "\n").replace("\n", "\r\n")
    try:
        return _BOMS[fmt.encoding] + text.encode(fmt.codec, fmt.errors)
    except UnicodeEncodeError as exc:
        raise ToolError(f"The text cannot be encoded as {fmt.encoding}: {exc.reason}.") from exc


def display_text(text: str) -> str:
    """``text`` with surrogate escapes (undecodable bytes) shown as U+FFFD."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def split_lines(text: str) -> list[str]:
    """``text`` split after each ``\\n`` only (``str.splitlines`` also splits on ``\\r``, ``\\f``, …)."""
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def read_text_file(path: Path) -> DecodedText:
    """Read and decode a whole text file."""
    with open(path, "rb") as f:
        return decode_bytes(f.read())


def write_text_file(path: Path, text: str, fmt: TextFormat = DEFAULT_FORMAT) -> None:
    """Write ``text`` in ``fmt``, in place (keeps the inode, mode and hard links)."""
    data = encode_text(text, fmt)
    with open(path, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def iter_lines(f: BinaryIO) -> tuple[TextFormat, Iterator[str]]:
    """Stream a text file's lines with their ``\\n`` kept, splitting on ``\\n`` only.

    Used for files too large to decode whole. The returned format's line ending is the
    default; callers count ``\\r\\n`` themselves if they need it.
    """
    head = f.read(3)
    encoding = detect_encoding(head)
    f.seek(len(_BOMS[encoding]))
    fmt = TextFormat(encoding=encoding)
    # newline="\n": split on \n only and translate nothing, like str.split("\n").
    wrapper = io.TextIOWrapper(f, encoding=fmt.codec, errors=fmt.errors, newline="\n")
    return fmt, iter(wrapper)
