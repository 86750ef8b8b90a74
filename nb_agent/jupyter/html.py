"""The one place nb_agent makes HTML: every card, status line, form and static rendering
builds its markup here, and nothing the model, a tool or a file supplies ever becomes markup.

By construction:

- text is escaped (:func:`el` escapes every ``str`` child; only :class:`Html` made here
  passes through);
- tags and attribute names come from fixed sets, attribute values are quoted and escaped;
- a link's ``href`` is a :class:`WebUrl` (http or https only) and an image's ``src`` an
  :class:`ImageSrc`, made by decoding the image with Pillow and encoding it again, so
  the bytes shown are an image this process wrote, whatever the claimed ``base64`` held;
- styles are :class:`Style` values checked against a small CSS grammar (no ``url(``);
- Markdown is rendered with raw HTML off, images off and links checked like ``href``.

Markup escaping itself is markupsafe's (the Jinja escaper). ``tests/jupyter/test_html_layer``
checks that no other module of the package writes tags, escapes by hand or wraps text as
markup.
"""

from __future__ import annotations

import base64
import io
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal
from urllib.parse import urlsplit

from markupsafe import Markup, escape

Html = Markup
"""Markup made by this module (a ``str`` subclass); any other ``str`` is text."""

Tag = Literal[
    "a", "b", "blockquote", "br", "code", "del", "details", "div", "em", "h1", "h2", "h3", "h4",
    "h5", "h6", "hr", "i", "img", "li", "ol", "p", "pre", "s", "span", "strong", "summary",
    "table", "tbody", "td", "th", "thead", "tr", "ul",
]  # fmt: skip
TAGS: frozenset[str] = frozenset(Tag.__args__)
VOID_TAGS = frozenset({"br", "hr", "img"})
ATTRIBUTES = frozenset({"class", "style", "title", "href", "target", "rel", "src", "alt", "open", "role", "tabindex", "aria-label"})
"""Every attribute :func:`el` can write (markdown-it adds ``class`` on code, ``start`` on lists
and ``style`` on table cells: :data:`MARKDOWN_ATTRIBUTES`)."""
MARKDOWN_ATTRIBUTES = frozenset({"start", "style"})
WEB_SCHEMES = frozenset({"http", "https"})
IMAGE_FORMATS = {"PNG": "image/png", "JPEG": "image/jpeg"}
"""What a re-encoded image is written as: JPEG stays JPEG, anything else becomes PNG."""
MAX_IMAGE_PIXELS = 40_000_000
"""Larger images are not decoded (Pillow's own bomb guard warns from 89 M)."""
MAX_IMAGE_BASE64_CHARS = 16_000_000

@dataclass(frozen=True, slots=True)
class WebUrl:
    """An http(s) URL with a host, safe as an ``href``; made by :func:`web_url`."""

    value: str


@dataclass(frozen=True, slots=True)
class ImageSrc:
    """A ``data:`` URI of an image this process encoded; made by :func:`image_src`."""

    value: str
    media_type: str


@dataclass(frozen=True, slots=True)
class Style:
    """Inline CSS checked by :func:`style`."""

    value: str


_CSS_PROPERTY = re.compile(r"[a-z][a-z-]*\Z")
_CSS_CLASS = re.compile(r"[a-z][a-z0-9-]*\Z")
_CSS_VALUE = re.compile(r"[\w\s#%.,()+-]*\Z")
"""Colours, lengths, keywords and ``var(--name, fallback)``: no quotes, ``;``, ``:``, ``\\`` or ``/``."""


def style(**properties: str | None) -> Style:
    """``style(font_size="0.85em", color=...)``: underscores become dashes; ``None`` is left out.

    A value outside plain CSS (quotes, ``;``, ``url(``, ``expression(``) raises ``ValueError``:
    styles are the program's own constants, never text from elsewhere."""
    parts = []
    for name, value in properties.items():
        if value is None:
            continue
        prop = name.replace("_", "-")
        if not _CSS_PROPERTY.match(prop) or not _CSS_VALUE.match(value) or re.search(r"(url|expression|image|image-set)\s*\(", value, re.I):
            raise ValueError(f"not a plain CSS declaration: {prop}: {value!r}")
        parts.append(f"{prop}:{value}")
    return Style(";".join(parts))


def merge(*styles: Style | None) -> Style:
    """Several styles as one (later declarations win, as in CSS)."""
    return Style(";".join(s.value for s in styles if s is not None and s.value))


def stylesheet(rules: Mapping[str, Style]) -> Html:
    """A ``<style>`` element giving each class name its declarations
    (``{"nb-agent-status": style(...)}`` -> ``.nb-agent-status{...}``), so markup sent again
    and again carries a class instead of its inline style. Class names and styles are the
    program's constants: a name is checked like a CSS identifier, and a style's grammar has no
    ``<``, ``{`` or ``}``, so nothing ends a rule or the element early."""
    css = []
    for name, declarations in rules.items():
        if not _CSS_CLASS.match(name) or not isinstance(declarations, Style):
            raise ValueError(f"not a class name and a Style: {name!r}")
        css.append(f".{name}{{{declarations.value}}}")
    return Markup("<style>{}</style>").format(Markup("\n".join(css)))


def web_url(url: str) -> WebUrl | None:
    """``url`` if it is an absolute http(s) URL with a host and no control characters (a
    space is written ``%20``), else ``None``: ``javascript:``, ``data:``, relative and
    protocol-relative links are never made clickable."""
    if not isinstance(url, str) or len(url) > 8_000 or any(ord(c) < 32 or 127 <= ord(c) < 160 or (c.isspace() and c != " ") for c in url):
        return None
    url = url.replace(" ", "%20")
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.scheme.lower() not in WEB_SCHEMES or not parts.hostname:
        return None
    return WebUrl(url)


def image_src(media_type: str, data: str) -> ImageSrc | None:
    """The image in ``data`` (base64, as a tool result or notebook output carries it), decoded
    and encoded again; ``None`` when it is not a readable image. The claimed media type is
    only a hint: what Pillow reads decides."""
    if not isinstance(data, str) or len(data) > MAX_IMAGE_BASE64_CHARS:
        return None
    return _reencoded("".join(data.split()))


@lru_cache(maxsize=32)  # a live card re-renders its result now and then: decode once
def _reencoded(data: str) -> ImageSrc | None:
    from PIL import Image

    try:
        raw = base64.b64decode(data, validate=True)
        with Image.open(io.BytesIO(raw)) as image:
            if image.width * image.height > MAX_IMAGE_PIXELS:
                return None
            fmt = "JPEG" if image.format == "JPEG" else "PNG"
            image.load()
            frame = image.convert("RGB") if fmt == "JPEG" and image.mode not in ("RGB", "L") else image
            if fmt == "PNG" and frame.mode not in ("1", "L", "LA", "P", "RGB", "RGBA", "I", "I;16"):
                frame = frame.convert("RGBA")
            out = io.BytesIO()
            frame.save(out, format=fmt, **({"quality": 90} if fmt == "JPEG" else {}))
    except Exception:  # noqa: BLE001 - Pillow's decoders raise many kinds on bad data
        return None
    media_type = IMAGE_FORMATS[fmt]
    return ImageSrc(f"data:{media_type};base64,{base64.b64encode(out.getvalue()).decode('ascii')}", media_type)


def text(value: str) -> Html:
    """``value`` as text (escaped)."""
    return escape(value)


def join(children: Iterable[Any], separator: str = "") -> Html:
    """The children (text escaped, :class:`Html` kept) one after the other."""
    return Markup(escape(separator)).join(_flatten(children))


def _flatten(children: Iterable[Any]) -> Iterable[Html]:
    for child in children:
        if child is None or child is False or child == "":
            continue
        if isinstance(child, str):  # Html is a str: escape() keeps it, escapes the rest
            yield escape(child)
        elif isinstance(child, Iterable):
            yield from _flatten(child)
        else:
            raise TypeError(f"not text or markup: {type(child).__name__}")


def el(
    tag: Tag,
    *children: Any,
    cls: str | None = None,
    style: Style | None = None,
    title: str | None = None,
    href: WebUrl | None = None,
    src: ImageSrc | None = None,
    alt: str | None = None,
    open: bool = False,  # the attribute's name
    role: str | None = None,
    tabindex: int | None = None,
    aria_label: str | None = None,
) -> Html:
    """``<tag attrs>children</tag>``: children are text (escaped), :class:`Html`, ``None``
    (skipped) or iterables of those. A link opens in a new tab without the opener."""
    if tag not in TAGS:
        raise ValueError(f"not an allowed tag: {tag!r}")
    if href is not None and not isinstance(href, WebUrl):
        raise TypeError("href must be a WebUrl (web_url())")
    if src is not None and not isinstance(src, ImageSrc):
        raise TypeError("src must be an ImageSrc (image_src())")
    if style is not None and not isinstance(style, Style):
        raise TypeError("style must be a Style (style())")
    attrs: list[tuple[str, str | None]] = [
        ("class", cls),
        ("style", style.value if style is not None and style.value else None),
        ("title", title),
        ("href", href.value if href is not None else None),
        ("target", "_blank" if href is not None else None),
        ("rel", "noopener noreferrer" if href is not None else None),
        ("src", src.value if src is not None else None),
        ("alt", alt),
        ("role", role),
        ("tabindex", str(tabindex) if tabindex is not None else None),
        ("aria-label", aria_label),
    ]
    opening = Markup("<") + Markup(tag)
    for name, value in attrs:
        if value is not None:
            opening += Markup(' {}="{}"').format(Markup(name), value)
    if open:
        opening += Markup(" open")
    opening += Markup(">")
    if tag in VOID_TAGS:
        if children:
            raise ValueError(f"<{tag}> takes no children")
        return opening
    return opening + join(children) + Markup("</{}>").format(Markup(tag))


# --- Markdown -----------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _markdown() -> Any:
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False, "breaks": False}).enable(["table", "strikethrough"])
    md.disable("image")  # a remote image would load by itself: a tracking pixel, a way out for data
    md.validateLink = lambda url: web_url(url) is not None

    def link_open(renderer: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
        tokens[idx].attrSet("target", "_blank")
        tokens[idx].attrSet("rel", "noopener noreferrer")
        return renderer.renderToken(tokens, idx, options, env)

    md.add_render_rule("link_open", link_open)
    return md


def markdown(source: str) -> Html:
    """Markdown to HTML: CommonMark, tables and strikethrough; raw HTML is shown as text,
    images as links, and only http(s) links are links."""
    return Markup(_markdown().render(source))


_HTML_START = re.compile(r"(\\*)<(?=[A-Za-z/!?])")


def _escape_starts(line: str) -> str:
    def escaped(match: re.Match[str]) -> str:
        slashes = match.group(1)
        return slashes + ("\\" if len(slashes) % 2 == 0 else "") + "<"

    return _HTML_START.sub(escaped, line)


@lru_cache(maxsize=1)
def _markdown_with_html() -> Any:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])


def _has_raw_html(source: str) -> bool:
    for token in _markdown_with_html().parse(source):
        if token.type == "html_block" or any(child.type == "html_inline" for child in token.children or []):
            return True
    return False


def markdown_source(source: str) -> str:
    """``source`` as Markdown that a renderer allowing raw HTML still shows as text: outside
    code blocks, each ``<`` that could open a tag, comment or autolink is backslash-escaped.
    The result is parsed again; should any raw HTML remain, every line is escaped."""
    source = source.replace("\r\n", "\n").replace("\r", "\n")  # as markdown-it numbers lines
    lines = source.split("\n")
    code_lines: set[int] = set()
    for token in _markdown_with_html().parse(source):
        if token.type in ("fence", "code_block") and token.map:
            code_lines.update(range(token.map[0], token.map[1]))
    escaped = "\n".join(line if index in code_lines else _escape_starts(line) for index, line in enumerate(lines))
    if _has_raw_html(escaped):
        escaped = "\n".join(_escape_starts(line) for line in lines)
    return escaped
