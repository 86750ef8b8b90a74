"""Small real images for tests (Pillow), as the base64 a tool result or a notebook output carries."""

from __future__ import annotations

import base64
import io


def png_base64(width: int = 4, height: int = 3, color: tuple[int, int, int] = (200, 30, 30)) -> str:
    """A ``width`` × ``height`` PNG of one colour, base64-encoded."""
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (width, height), color).save(out, format="PNG")
    return base64.b64encode(out.getvalue()).decode("ascii")


def decoded_size(data_uri: str) -> tuple[int, int]:
    """The pixel size of the image in a ``data:image/...;base64,`` URI (raises if it is none)."""
    from PIL import Image

    header, _, payload = data_uri.partition(",")
    assert header.startswith("data:image/") and header.endswith(";base64"), header
    with Image.open(io.BytesIO(base64.b64decode(payload, validate=True))) as image:
        image.load()
        return image.size
