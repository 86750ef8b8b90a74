"""Read's view of a ``.ipynb`` file: every cell with its outputs, as text and image blocks.

Cells are shown with the ids the NotebookEdit tool addresses them by (``cell-N`` for a
cell without an id, N its 0-based index). Text outputs are capped per output; PNG/JPEG
outputs become image blocks so the model sees the plots.
"""

from __future__ import annotations

import json
import re
from typing import Any

from nb_agent.errors import ToolError
from nb_agent.messages import ContentBlock
from nb_agent.tools.files.media import MAX_IMAGE_BYTES, image_block

MAX_OUTPUT_CHARS = 10_000
"""Per text output; the rest is cut with a note (tracebacks and big frames repeat)."""

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_TEXT_MIME_ORDER = ("text/plain", "text/markdown", "text/latex", "text/html", "application/json")
_IMAGE_MIMES = ("image/png", "image/jpeg")


def parse_notebook(raw: str) -> dict[str, Any]:
    """The notebook as a v4 dict (upgraded by nbformat when installed)."""
    try:
        import nbformat  # optional: upgrades v3 notebooks and normalizes sources
    except ImportError:
        nbformat = None
    if nbformat is not None:
        try:
            return dict(nbformat.reads(raw, as_version=4))
        except Exception:  # noqa: BLE001 - nbformat could not read it: read the JSON below
            pass
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ToolError(f"The notebook is not valid JSON ({exc.msg} at line {exc.lineno}).") from exc
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        raise ToolError("The file is not a Jupyter notebook (no 'cells' list).")
    return data


def render_notebook(raw: str) -> tuple[list[ContentBlock], int]:
    """``(content blocks, number of cells)`` for a notebook's JSON text."""
    return render_notebook_dict(parse_notebook(raw))


def render_notebook_dict(notebook: dict[str, Any], *, heading: str = "") -> tuple[list[ContentBlock], int]:
    """``(content blocks, number of cells)`` for a notebook already parsed (v4 shape);
    ``heading`` is said first (e.g. where the notebook's content comes from)."""
    cells = notebook.get("cells", [])
    language = _language(notebook)
    builder = _BlockBuilder()
    builder.text(heading)
    builder.text(f"Jupyter notebook: {len(cells)} cells, language {language}.\n")
    for index, cell in enumerate(cells):
        _render_cell(builder, cell, index)
    return builder.finish(), len(cells)


class _BlockBuilder:
    """Accumulates text, flushing it into a block whenever an image block comes."""

    def __init__(self) -> None:
        self.blocks: list[ContentBlock] = []
        self._parts: list[str] = []

    def text(self, text: str) -> None:
        self._parts.append(text)

    def image(self, block: ContentBlock) -> None:
        self._flush()
        self.blocks.append(block)

    def finish(self) -> list[ContentBlock]:
        self._flush()
        return self.blocks

    def _flush(self) -> None:
        if self._parts:
            self.blocks.append({"type": "text", "text": "".join(self._parts)})
            self._parts = []


def _render_cell(builder: _BlockBuilder, cell: dict[str, Any], index: int) -> None:
    cell_id = cell.get("id") or f"cell-{index}"
    cell_type = cell.get("cell_type", "code")
    attrs = f'id="{cell_id}" cell_type="{cell_type}"'
    if cell_type == "code" and cell.get("execution_count") is not None:
        attrs += f' execution_count="{cell["execution_count"]}"'
    builder.text(f"\n<cell {attrs}>\n{_joined(cell.get('source', ''))}\n")
    outputs = cell.get("outputs") or []
    if outputs:
        builder.text("<outputs>\n")
        for output in outputs:
            _render_output(builder, output)
        builder.text("</outputs>\n")
    builder.text("</cell>\n")


def _render_output(builder: _BlockBuilder, output: dict[str, Any]) -> None:
    kind = output.get("output_type", "")
    if kind == "stream":
        name = output.get("name", "stdout")
        builder.text(f'<output type="stream" name="{name}">\n{_capped(_joined(output.get("text", "")))}\n</output>\n')
    elif kind == "error":
        traceback = "\n".join(output.get("traceback") or [])
        body = traceback or f"{output.get('ename', '')}: {output.get('evalue', '')}"
        builder.text(f'<output type="error">\n{_capped(_ANSI.sub("", body))}\n</output>\n')
    elif kind in ("execute_result", "display_data"):
        data = output.get("data") or {}
        text = next((_joined(data[m]) for m in _TEXT_MIME_ORDER if m in data), None)
        if text is not None:
            builder.text(f'<output type="{kind}">\n{_capped(text)}\n</output>\n')
        for mime in _IMAGE_MIMES:
            if mime in data:
                _render_image(builder, mime, _joined(data[mime]))
        if text is None and not any(m in data for m in _IMAGE_MIMES):
            builder.text(f'<output type="{kind}" mime_types="{", ".join(data)}"/>\n')


def _render_image(builder: _BlockBuilder, mime: str, data: str) -> None:
    payload = "".join(data.split())  # notebooks may wrap base64 across lines
    if len(payload) * 3 // 4 > MAX_IMAGE_BYTES:
        builder.text(f"[{mime} output omitted: too large]\n")
    else:
        builder.image(image_block(mime, payload))


def _language(notebook: dict[str, Any]) -> str:
    metadata = notebook.get("metadata") or {}
    info = metadata.get("language_info") or {}
    spec = metadata.get("kernelspec") or {}
    return str(info.get("name") or spec.get("language") or "python")


def _joined(value: Any) -> str:
    """nbformat's multiline strings may be stored as a list of lines."""
    return "".join(value) if isinstance(value, list) else str(value)


def _capped(text: str) -> str:
    if len(text) <= MAX_OUTPUT_CHARS:
        return text
    return text[:MAX_OUTPUT_CHARS] + f"\n[... {len(text) - MAX_OUTPUT_CHARS:,} more characters truncated]"
