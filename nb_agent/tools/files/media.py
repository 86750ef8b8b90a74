"""Images and PDFs for the model: Read's non-text files become content blocks (other
binaries are refused), and figures are fitted to what the model needs before they enter
the conversation."""

from __future__ import annotations

import base64
import io
from pathlib import Path
from typing import Any

from nb_agent.errors import ToolError
from nb_agent.messages import ContentBlock

IMAGE_MEDIA_TYPES: dict[str, str] = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
}
PDF_EXTENSION = ".pdf"

MAX_IMAGE_BYTES = 3_750_000
"""Raw bytes whose base64 form stays under the API's 5 MB per-image limit."""
MAX_IMAGE_SIDE = 2000
"""Longest side after shrinking an over-size image (needs Pillow)."""
FIGURE_MAX_SIDE = 1024
FIGURE_MAX_PIXELS = 1024 * 768
"""A figure is scaled down to fit both (about 1,000 tokens at most): a chart's text stays
legible, and larger images cost upload and tokens for detail the model does not use (the
API itself scales anything above 1,568 px or 1.15 megapixels down)."""
FIGURE_COLORS = 128
"""Colors of a figure re-encoded as a palette PNG (charts have few; antialiasing adds shades)."""
MAX_PDF_BYTES = 20 * 1024 * 1024
"""PDFs above this are refused (the request as a whole is capped at 32 MB)."""

BINARY_EXTENSIONS = frozenset(
    """
    .exe .dll .so .dylib .bin .o .a .obj .lib .class .jar .war .pyc .pyo .pyd .whl .egg
    .zip .tar .gz .tgz .bz2 .xz .7z .rar .zst .lz4 .iso .dmg .img .deb .rpm
    .mp3 .mp4 .wav .flac .ogg .avi .mov .mkv .webm .m4a .aac .wma .mpg .mpeg
    .ttf .otf .woff .woff2 .eot .ico .bmp .tiff .tif .psd .heic .avif
    .parquet .feather .arrow .orc .avro .npy .npz .pkl .pickle .h5 .hdf5 .nc .mat
    .sqlite .sqlite3 .db .duckdb .doc .docx .xls .xlsx .ppt .pptx .odt .ods .odp
    .wasm .pt .pth .onnx .safetensors .ckpt .joblib .tflite .pb
    """.split()
)
"""Extensions refused without looking inside (Read would only show noise)."""


def sniff_image_type(head: bytes) -> str | None:
    """The image media type from magic bytes (the extension may lie)."""
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


def looks_binary(head: bytes) -> bool:
    """Whether the first bytes of a file look like binary data rather than text."""
    if head.startswith((b"\xef\xbb\xbf", b"\xff\xfe")):
        return False  # a BOM: UTF-16LE text is full of NUL bytes
    if b"\x00" in head:
        return True
    # Control bytes other than whitespace/escape are rare in text of any encoding.
    control = sum(1 for b in head if b < 0x20 and b not in b"\t\n\r\f\b\x1b")
    return bool(head) and control / len(head) > 0.3


def binary_file_message(path: Path) -> str:
    ext = path.suffix.lower() or "(no extension)"
    return (
        f"This tool cannot read binary files. The file appears to be a binary {ext} file. "
        "Inspect it with code instead (e.g. pandas, numpy or a suitable library in the kernel), "
        "or with a Bash tool such as `file`, `xxd` or `unzip -l`."
    )


def image_block(media_type: str, data: str) -> ContentBlock:
    return {"type": "image", "source": {"type": "base64", "media_type": media_type, "data": data}}


def document_block(data: str) -> ContentBlock:
    return {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": data}}


def load_image(path: Path) -> tuple[str, str]:
    """``(media_type, base64 data)`` of an image file, shrunk with Pillow when too large."""
    raw = path.read_bytes()
    media_type = sniff_image_type(raw[:16])
    if media_type is None:
        raise ToolError(f"{path} is not a valid PNG, JPEG, GIF or WebP image.")
    if len(raw) > MAX_IMAGE_BYTES:
        shrunk = _shrink_image(raw)
        if shrunk is None:
            raise ToolError(
                f"Image is too large ({len(raw):,} bytes; the maximum is {MAX_IMAGE_BYTES:,}). "
                "Resize it first (Pillow is not available to do so here)."
            )
        media_type, raw = shrunk
    return media_type, base64.b64encode(raw).decode("ascii")


def load_pdf(path: Path) -> str:
    """Base64 data of a PDF file within the size cap."""
    size = path.stat().st_size
    if size > MAX_PDF_BYTES:
        raise ToolError(f"PDF is too large ({size:,} bytes; the maximum is {MAX_PDF_BYTES:,}).")
    raw = path.read_bytes()
    if not raw.startswith(b"%PDF-"):
        raise ToolError(f"{path} is not a valid PDF file.")
    return base64.b64encode(raw).decode("ascii")


def _shrink_image(raw: bytes) -> tuple[str, bytes] | None:
    """Downscale and re-encode as JPEG until it fits; ``None`` without Pillow or if it cannot fit."""
    try:
        from PIL import Image  # optional: only needed for over-size images
    except ImportError:
        return None
    with Image.open(io.BytesIO(raw)) as image:
        image.thumbnail((MAX_IMAGE_SIDE, MAX_IMAGE_SIDE))
        rgb = image.convert("RGB")
    for quality in (85, 70, 50, 30):
        buffer = io.BytesIO()
        rgb.save(buffer, format="JPEG", quality=quality)
        if buffer.tell() <= MAX_IMAGE_BYTES:
            return "image/jpeg", buffer.getvalue()
    return None


def fit_figure(raw: bytes) -> tuple[str, bytes]:
    """``(media_type, bytes)`` of an image (a plot) as the model needs it: at most
    :data:`FIGURE_MAX_SIDE` px on its long side and :data:`FIGURE_MAX_PIXELS`, re-encoded as
    the smaller of a palette PNG (lossless when it has at most 256 colors; else
    :data:`FIGURE_COLORS`, which keeps a chart's lines and text) and a JPEG (which suits a
    photo). Returned unchanged when Pillow is missing, the bytes are not an image Pillow
    reads, or re-encoding saves nothing."""
    media_type = sniff_image_type(raw[:16])
    try:
        from PIL import Image  # optional: figures come from matplotlib, which requires Pillow
    except ImportError:
        return media_type or "image/png", raw
    try:
        with Image.open(io.BytesIO(raw)) as image:
            image.load()
            rgb = _on_white(image)
    except (OSError, ValueError, Image.DecompressionBombError):
        return media_type or "image/png", raw
    width, height = rgb.size
    scale = min(1.0, FIGURE_MAX_SIDE / max(width, height), (FIGURE_MAX_PIXELS / (width * height)) ** 0.5)
    if scale < 1.0:
        rgb = rgb.resize((max(1, round(width * scale)), max(1, round(height * scale))), Image.Resampling.LANCZOS)
    candidates = [("image/png", _palette_png(rgb))]
    if rgb.getcolors(256) is None:  # many colors: a photo may be smaller as a JPEG
        buffer = io.BytesIO()
        rgb.save(buffer, format="JPEG", quality=85, optimize=True)
        candidates.append(("image/jpeg", buffer.getvalue()))
    best = min(candidates, key=lambda c: len(c[1]))
    if scale == 1.0 and len(best[1]) >= len(raw) and media_type is not None:
        return media_type, raw
    return best


def _on_white(image: Any) -> Any:
    """RGB, transparent parts laid on white (as a notebook shows a figure)."""
    from PIL import Image

    if image.mode in ("RGBA", "LA") or (image.mode == "P" and "transparency" in image.info):
        rgba = image.convert("RGBA")
        background = Image.new("RGB", rgba.size, "white")
        background.paste(rgba, mask=rgba.getchannel("A"))
        return background
    return image.convert("RGB")


def _palette_png(rgb: Any) -> bytes:
    from PIL import Image

    colors = rgb.getcolors(256)
    count = len(colors) if colors is not None else FIGURE_COLORS
    palette = rgb.quantize(colors=count, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    buffer = io.BytesIO()
    palette.save(buffer, format="PNG", optimize=True)
    return buffer.getvalue()
