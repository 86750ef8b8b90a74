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


def html_to_markdown(html: str, *, base_url: str = "") -> str:
    """Markdown of an HTML page: links kept (made absolute against ``base_url``), images as
    their alt text, no line wrapping."""
    import html2text

    converter = html2text.HTML2Text(baseurl=base_url)
    converter.body_width = 0
    converter.ignore_images = True
    converter.unicode_snob = True
    return converter.handle(html).strip()
