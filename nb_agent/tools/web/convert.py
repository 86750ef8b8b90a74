"""Page bodies into text the model reads: HTML to Markdown (html2text), text as is."""

from __future__ import annotations

HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
TEXT_TYPES = frozenset({"application/json", "application/xml", "application/javascript", "application/x-ndjson"})
PDF_TYPE = "application/pdf"


def media_type(content_type: str) -> str:
    """``text/html; charset=utf-8`` -> ``text/html``."""
    return content_type.split(";", 1)[0].strip().lower()


def is_html(kind: str) -> bool:
    return kind in HTML_TYPES


def is_text(kind: str) -> bool:
    return kind.startswith("text/") or kind in TEXT_TYPES or kind.endswith(("+json", "+xml"))


FEED_CHARS = 32_768
"""HTML fed to the converter at a time when only a prefix of the Markdown is needed."""


def html_to_markdown(html: str, *, base_url: str = "", max_chars: int | None = None) -> str:
    """Markdown of an HTML page: links kept (made absolute against ``base_url``), images as
    their alt text, no line wrapping. With ``max_chars``, conversion stops once more than
    that much Markdown exists (the start is the same; only the rest is not converted):
    html2text is pure Python, and a large page's tail would be cut off anyway."""
    import html2text

    converter = html2text.HTML2Text(baseurl=base_url)
    converter.body_width = 0
    converter.ignore_images = True
    converter.unicode_snob = True
    if max_chars is None or len(html) <= FEED_CHARS:
        return converter.handle(html).strip()
    converter.start = True  # what handle() sets before feeding
    produced, seen = 0, 0
    for offset in range(0, len(html), FEED_CHARS):
        converter.feed(html[offset : offset + FEED_CHARS])
        pieces = converter.outtextlist
        produced += sum(len(piece) for piece in pieces[seen:])
        seen = len(pieces)
        if produced > max_chars:
            break
    converter.feed("")
    return converter.optwrap(converter.finish()).strip()
