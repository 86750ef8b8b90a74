"""The run's card of file edits: below a run whose Edit, Write or NotebookEdit calls changed
files (a notebook edited as a file included), each file's diff with **Undo** and **Keep**.

It needs no page extension, so it works wherever ipywidgets do (JupyterLab, Notebook 7,
VS Code): the buttons are widgets and the kernel does the work. Undo puts that file back
as the run found it, from the run's start snapshot (issue 20's shadow repository), unless
the file is no longer what the run left: then it stays as it is, and the card says so.
The card's HTML (what a saved notebook, nbclient or an untrusted file shows) is updated
under the same display id after each click, so the saved notebook tells what was done.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any

from nb_agent.checkpoints.file_edits import FileEdit, undo_file_edit
from nb_agent.jupyter.html import Html, el
from nb_agent.jupyter.view import theme
from nb_agent.jupyter.view.change_render import MAX_STATIC_LINES, change_html, change_summary, change_text
from nb_agent.tools.files.change_preview import FileChange, file_change, unified_diff

log = logging.getLogger(__name__)

BINARY = "binary file changed (no diff shown)"


def notebook_text(source: str | None) -> str | None:
    """A notebook file as its cells' sources, each under a ``# %% [type]`` line (what a diff
    of a notebook should show, not its JSON; no cell ids: nbformat makes an inserted cell's
    at random, which would make a saved card differ at each run); ``source`` itself when it
    is no notebook."""
    if source is None:
        return None
    try:
        cells = json.loads(source)["cells"]
        return "".join(f"# %% [{c['cell_type']}]\n{''.join(c['source'])}\n" for c in cells)
    except (ValueError, KeyError, TypeError):
        return source


def edit_change(edit: FileEdit) -> FileChange | None:
    """The diff of ``edit`` (``None``: a binary file); a notebook's, cell by cell."""
    texts = edit.texts()
    if texts is None:
        return None
    before, after = texts
    if edit.path.endswith(".ipynb"):
        before, after = notebook_text(before), notebook_text(after)
    if after is None:
        return FileChange(path=edit.path, diff=unified_diff(edit.path, before or "", ""))
    return file_change(edit.path, before, after)


@dataclass(kw_only=True)
class FileEntry:
    """One file on the card and what the user did with it (``status``: ``""`` while open)."""

    edit: FileEdit
    change: FileChange | None
    status: str = ""

    def line(self) -> str:
        what = "deleted" if self.edit.after is None else (change_summary(self.change) if self.change is not None else BINARY)
        return f"{self.edit.path}: {what}" + (f" — {self.status}" if self.status else "")


def _title(entries: list[FileEntry]) -> str:
    return f"Files this run's edits changed ({len(entries)})"


def _item_html(entry: FileEntry, *, max_lines: int) -> Html:
    shown = change_html(entry.change, max_lines=max_lines) if entry.change is not None else None
    return el("li", entry.line(), shown)


def static_bundle(entries: list[FileEntry]) -> dict[str, Any]:
    """HTML and plain text of the card as it stands (what a saved notebook keeps)."""
    html = el("div", el("b", _title(entries)), el("ul", [_item_html(e, max_lines=MAX_STATIC_LINES) for e in entries]), cls="nb-agent-file-edits")
    text = [_title(entries) + ":"]
    for entry in entries:
        text.append(f"- {entry.line()}")
        if entry.change is not None:
            text += ["  " + line for line in change_text(entry.change).splitlines()]
    return {"text/html": str(html), "text/plain": "\n".join(text)}


class FileEditsCard:
    """The card with its widgets: per file its diff, Undo, Keep and what was done."""

    def __init__(self, edits: list[FileEdit]) -> None:
        import ipywidgets as w

        self.entries = [FileEntry(edit=edit, change=edit_change(edit)) for edit in edits]
        self.handle: Any = None
        self._rows: list[tuple[Any, Any, Any]] = []
        rows: list[Any] = []
        for entry in self.entries:
            undo = w.Button(description="Undo", tooltip=f"Put {entry.edit.path} back as the run found it", layout=w.Layout(width="auto"))
            keep = w.Button(description="Keep", button_style="success", layout=w.Layout(width="auto"))
            said = w.HTML(value="")
            undo.on_click(lambda _b, e=entry: self._act(e, undo=True))
            keep.on_click(lambda _b, e=entry: self._act(e, undo=False))
            self._rows.append((undo, keep, said))
            rows.append(w.VBox([w.HTML(value=str(_item_html(entry, max_lines=400))), w.HBox([undo, keep, said])]))
        self.root = w.VBox([w.HTML(value=str(el("b", _title(self.entries)))), *rows], _dom_classes=("nb-agent-file-edits",))

    def bundle(self) -> dict[str, Any]:
        return {**(self.root._repr_mimebundle_() or {}), **static_bundle(self.entries)}

    def show(self) -> dict[str, Any]:
        from IPython.display import display

        shown = self.bundle()
        self.handle = display(shown, raw=True, display_id=True)
        return shown

    def _act(self, entry: FileEntry, *, undo: bool) -> None:
        if entry.status:
            return
        try:
            entry.status = undo_file_edit(entry.edit) if undo else "kept"
        except Exception as exc:  # said on the card; the kernel goes on
            log.warning("undoing %s failed", entry.edit.path, exc_info=True)
            entry.status = f"not restored: {type(exc).__name__}: {exc}"
        undo_button, keep_button, said = self._rows[self.entries.index(entry)]
        undo_button.disabled = keep_button.disabled = True
        said.value = str(el("span", entry.status, style=theme.small(theme.MUTED)))
        if self.handle is not None:
            self.handle.update(self.bundle(), raw=True)


def show_file_edits(edits: list[FileEdit], *, widgets: bool) -> dict[str, Any] | None:
    """Below a run: the card of ``edits`` (``widgets``: with buttons; else its HTML only);
    returns the bundle shown (``None``: no edits)."""
    if not edits:
        return None
    if widgets:
        try:
            return FileEditsCard(edits).show()
        except ImportError:
            log.debug("ipywidgets missing: the file edits card without buttons", exc_info=True)
    from IPython.display import display

    shown = static_bundle([FileEntry(edit=edit, change=edit_change(edit)) for edit in edits])
    display(shown, raw=True)
    return shown
