"""Figures are fitted to what the model needs: scaled to about 1,000 px and re-encoded as
the smaller of a palette PNG and a JPEG, transparent parts on white; anything else is
left alone."""

from __future__ import annotations

import io

import pytest

from nb_agent.tools.files.media import FIGURE_MAX_PIXELS, FIGURE_MAX_SIDE, fit_figure

Image = pytest.importorskip("PIL.Image")


def _encode(image, fmt: str = "PNG") -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format=fmt)
    return buffer.getvalue()


def _chart(width: int, height: int) -> bytes:
    import matplotlib

    matplotlib.use("agg")
    import matplotlib.pyplot as plt
    import numpy as np

    rng = np.random.default_rng(0)
    fig, ax = plt.subplots(figsize=(width / 100, height / 100), dpi=100)
    ax.scatter(rng.normal(size=2000), rng.normal(size=2000), s=8, alpha=0.5)
    ax.set_title("A chart with text")
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    plt.close(fig)
    return buffer.getvalue()


def _decoded(data: bytes):
    return Image.open(io.BytesIO(data))


def test_a_large_chart_is_scaled_down_and_much_smaller():
    raw = _chart(2000, 1200)
    media_type, fitted = fit_figure(raw)
    image = _decoded(fitted)
    assert media_type == "image/png" and image.format == "PNG" and image.mode == "P"
    assert max(image.size) <= FIGURE_MAX_SIDE and image.size[0] * image.size[1] <= FIGURE_MAX_PIXELS
    assert abs(image.size[0] / image.size[1] - 2000 / 1200) < 0.01  # the aspect ratio is kept
    assert len(fitted) < len(raw) / 3


def test_a_small_chart_keeps_its_size_and_few_colors_stay_exact():
    flat = Image.new("RGB", (300, 200), "white")
    for x in range(300):
        flat.putpixel((x, 100), (31, 119, 180))
    media_type, fitted = fit_figure(_encode(flat))
    image = _decoded(fitted)
    assert image.size == (300, 200)
    assert image.convert("RGB").tobytes() == flat.tobytes()  # lossless: 2 colors


def test_a_photo_becomes_a_jpeg():
    import os

    noise = Image.frombytes("RGB", (1600, 1200), os.urandom(1600 * 1200 * 3))
    media_type, fitted = fit_figure(_encode(noise))
    assert media_type == "image/jpeg" and _decoded(fitted).size == (1024, 768)


def test_transparent_parts_are_laid_on_white():
    clear = Image.new("RGBA", (40, 40), (0, 0, 0, 0))
    clear.putpixel((5, 5), (255, 0, 0, 255))
    _, fitted = fit_figure(_encode(clear))
    rgb = _decoded(fitted).convert("RGB")
    assert rgb.getpixel((0, 0)) == (255, 255, 255) and rgb.getpixel((5, 5)) == (255, 0, 0)


def test_what_is_not_an_image_is_returned_unchanged():
    assert fit_figure(b"not an image") == ("image/png", b"not an image")
    gif = _encode(Image.new("P", (10, 10)), "GIF")
    media_type, fitted = fit_figure(gif)
    assert len(fitted) <= len(gif) and media_type in ("image/gif", "image/png")
