"""Finding Edit's ``old_string`` in a file despite the model's typographic slips.

Models sometimes swap straight and curly quotes, and the API layer may have shortened
some XML-like tags in their output. Rather than fail, the match is retried with quotes
normalized (and then with the tags restored); the replacement text is adjusted to the
quote style the file actually uses (seed 003 §3.6 ``findActualString`` /
``preserveQuoteStyle`` / ``normalizeFileEditInput``).
"""

from __future__ import annotations

from dataclasses import dataclass

LEFT_SINGLE = "\u2018"
RIGHT_SINGLE = "\u2019"
LEFT_DOUBLE = "\u201c"
RIGHT_DOUBLE = "\u201d"

_STRAIGHTEN = str.maketrans({LEFT_SINGLE: "'", RIGHT_SINGLE: "'", LEFT_DOUBLE: '"', RIGHT_DOUBLE: '"'})
# Characters after which a quote opens rather than closes.
_OPENING_CONTEXT = frozenset(" \t\n\r([{\u2014\u2013")

DESANITIZATIONS: dict[str, str] = {
    "<fnr>": "<function_results>",
    "<n>": "<name>",
    "</n>": "</name>",
    "<o>": "<output>",
    "</o>": "</output>",
    "<e>": "<error>",
    "</e>": "</error>",
    "<s>": "<system>",
    "</s>": "</system>",
    "<r>": "<result>",
    "</r>": "</result>",
    "< META_START >": "<META_START>",
    "< META_END >": "<META_END>",
    "< EOT >": "<EOT>",
    "< META >": "<META>",
    "< SOS >": "<SOS>",
    "\n\nH:": "\n\nHuman:",
    "\n\nA:": "\n\nAssistant:",
}
"""Tags the API may have shortened in model output, mapped back to what files contain."""


@dataclass(frozen=True, kw_only=True)
class EditMatch:
    """The text to replace as it is in the file, and the replacement to put there."""

    actual_old_string: str
    new_string: str


def normalize_quotes(text: str) -> str:
    """Curly quotes made straight (length-preserving, so indices carry over)."""
    return text.translate(_STRAIGHTEN)


def find_actual_string(content: str, search: str) -> str | None:
    """``search`` as it occurs in ``content``: exactly, else modulo quote style; else ``None``."""
    if search in content:
        return search
    index = normalize_quotes(content).find(normalize_quotes(search))
    if index == -1:
        return None
    return content[index : index + len(search)]


def preserve_quote_style(old_string: str, actual_old_string: str, new_string: str) -> str:
    """``new_string`` in the quote style of the file text it replaces."""
    if old_string == actual_old_string:
        return new_string
    has_double = LEFT_DOUBLE in actual_old_string or RIGHT_DOUBLE in actual_old_string
    has_single = LEFT_SINGLE in actual_old_string or RIGHT_SINGLE in actual_old_string
    if not has_double and not has_single:
        # The file has straight quotes where the model typed curly ones.
        return normalize_quotes(new_string)
    result = new_string
    if has_double:
        result = _curl_doubles(result)
    if has_single:
        result = _curl_singles(result)
    return result


def desanitize(text: str) -> str:
    """``text`` with API-shortened tags restored."""
    for short, full in DESANITIZATIONS.items():
        text = text.replace(short, full)
    return text


def find_edit_match(content: str, old_string: str, new_string: str) -> EditMatch | None:
    """Locate ``old_string`` (exact, quote-normalized, then desanitized); ``None`` if absent."""
    actual = find_actual_string(content, old_string)
    if actual is not None:
        return EditMatch(actual_old_string=actual, new_string=preserve_quote_style(old_string, actual, new_string))
    restored_old = desanitize(old_string)
    if restored_old != old_string:
        actual = find_actual_string(content, restored_old)
        if actual is not None:
            restored_new = desanitize(new_string)
            return EditMatch(
                actual_old_string=actual,
                new_string=preserve_quote_style(restored_old, actual, restored_new),
            )
    return None


def _opens(text: str, index: int) -> bool:
    return index == 0 or text[index - 1] in _OPENING_CONTEXT


def _curl_doubles(text: str) -> str:
    chars = list(text)
    for i, ch in enumerate(chars):
        if ch == '"':
            chars[i] = LEFT_DOUBLE if _opens(text, i) else RIGHT_DOUBLE
    return "".join(chars)


def _curl_singles(text: str) -> str:
    chars = list(text)
    for i, ch in enumerate(chars):
        if ch != "'":
            continue
        before = text[i - 1] if i > 0 else ""
        after = text[i + 1] if i + 1 < len(text) else ""
        if before.isalpha() and after.isalpha():
            chars[i] = RIGHT_SINGLE  # an apostrophe, as in "don't"
        else:
            chars[i] = LEFT_SINGLE if _opens(text, i) else RIGHT_SINGLE
    return "".join(chars)
