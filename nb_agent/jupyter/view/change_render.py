"""How a change an agent's call makes (or would make) looks: a file's unified diff, a new
file's head, a notebook cell before and after with its neighbours. Used by the approval
card (before the call runs), the static rendering of a run and the run's edits card.

A diff longer than :data:`FOLD_LINES` lines is folded (a closed ``<details>`` whose summary
gives its size); past ``max_lines`` the rest is counted, not shown. Markup is made by
:mod:`nb_agent.jupyter.html` only.
"""

from __future__ import annotations

from nb_agent.jupyter.html import Html, Style, el, join, merge
from nb_agent.jupyter.view import theme
from nb_agent.tools.files.change_preview import CellChange, CellGlimpse, ChangePreview, FileChange, diff_counts
from nb_agent.wording import plural

FOLD_LINES = 30
"""A diff longer than this starts folded."""
MAX_LINES = 400
"""Lines shown of one diff in a card; the rest is counted."""
MAX_STATIC_LINES = 120
"""Lines kept of one diff in a saved rendering."""


def _diff_rows(diff: str, max_lines: int) -> list[Html]:
    lines = diff.splitlines()
    rows = []
    for line in lines[:max_lines]:
        tone = None
        if line.startswith("+") and not line.startswith("+++"):
            tone = theme.DIFF_ADDED
        elif line.startswith("-") and not line.startswith("---"):
            tone = theme.DIFF_REMOVED
        elif line.startswith("@@"):
            tone = theme.TEXT[theme.INFO]
        rows.append(el("div", line or "\u00a0", style=tone))
    if len(lines) > max_lines:
        rows.append(el("div", f"… {len(lines) - max_lines} more lines", style=theme.TEXT[theme.MUTED]))
    return rows


def diff_html(diff: str, *, max_lines: int = MAX_LINES) -> Html:
    """A unified diff, one coloured row a line (added, removed, hunk headers)."""
    return el("div", _diff_rows(diff, max_lines), cls="nb-agent-diff", style=theme.pre(wrap=False))


def _size(diff: str) -> str:
    added, removed = diff_counts(diff)
    count = len(diff.splitlines())
    return f"+{added} −{removed}, {plural(count, 'line')}"


def folded_diff(title: str, diff: str, *, max_lines: int = MAX_LINES) -> Html:
    """``diff`` under a summary saying what and how big; open unless it is long."""
    long = len(diff.splitlines()) > FOLD_LINES
    return el("details", el("summary", f"{title} ({_size(diff)})"), diff_html(diff, max_lines=max_lines), open=not long, cls="nb-agent-change")


def _source_block(source: str, tone: Style | None, max_lines: int) -> Html:
    lines = source.splitlines() or [""]
    shown = "\n".join(lines[:max_lines]) + (f"\n… {len(lines) - max_lines} more lines" if len(lines) > max_lines else "")
    return el("pre", shown or "\u00a0", style=merge(theme.pre(), tone) if tone is not None else theme.pre())


def _glimpse_html(glimpse: CellGlimpse | None, where: str) -> Html:
    if glimpse is None:
        return el("div", f"({where}: nothing, the notebook's {'start' if where == 'above' else 'end'})", style=theme.small(theme.MUTED))
    return join([
        el("div", f"{where}: {glimpse.cell_type} cell {glimpse.cell_id}", style=theme.small(theme.MUTED)),
        el("pre", glimpse.source or "\u00a0", style=merge(theme.pre(max_height="6em"), theme.TEXT[theme.MUTED])),
    ])  # fmt: skip


def file_change_html(change: FileChange, *, max_lines: int = MAX_LINES) -> Html:
    if change.created:
        more = change.total_lines - len(change.head.splitlines())
        title = f"new file {change.path} ({plural(change.total_lines, 'line')})"
        body = _source_block(change.head + (f"\n… {more} more lines" if more > 0 else ""), theme.DIFF_ADDED, max_lines + 1)
        return el("details", el("summary", title), body, open=change.total_lines <= FOLD_LINES, cls="nb-agent-change")
    if not change.diff:
        return el("div", f"{change.path}: no change", style=theme.small(theme.MUTED), cls="nb-agent-change")
    return folded_diff(f"diff of {change.path}", change.diff, max_lines=max_lines)


def cell_change_html(change: CellChange, *, max_lines: int = MAX_LINES) -> Html:
    cell = f"cell {change.cell_id}" if change.cell_id else "a new cell"
    if change.op == "replace":
        title = f"{cell} ({change.type_change or change.cell_type}): before → after"
        return folded_diff(title, change.diff, max_lines=max_lines) if change.diff else el("div", f"{cell}: no change", style=theme.small(theme.MUTED), cls="nb-agent-change")
    if change.op == "delete":
        return el(
            "div",
            el("div", f"deletes {change.cell_type} {cell}:", style=theme.small(theme.MUTED)),
            _source_block(change.before, theme.DIFF_REMOVED, max_lines),
            cls="nb-agent-change",
        )
    if change.op == "insert":
        middle = [el("div", f"inserts a {change.cell_type} cell:", style=theme.small(theme.MUTED)), _source_block(change.after, theme.DIFF_ADDED, max_lines)]
    else:
        middle = [el("div", f"moves {change.cell_type} {cell} here:", style=theme.small(theme.MUTED)), _source_block(change.before, theme.DIFF_ADDED, max_lines)]
    return el("div", _glimpse_html(change.above, "above"), middle, _glimpse_html(change.below, "below"), cls="nb-agent-change")


def change_html(change: ChangePreview, *, max_lines: int = MAX_LINES) -> Html:
    """The change as HTML, for a live card (``max_lines``: :data:`MAX_STATIC_LINES` when saved)."""
    if isinstance(change, FileChange):
        return file_change_html(change, max_lines=max_lines)
    return cell_change_html(change, max_lines=max_lines)


def _cut(lines: list[str], max_lines: int) -> list[str]:
    return lines[:max_lines] + ([f"… {len(lines) - max_lines} more lines"] if len(lines) > max_lines else [])


def change_text(change: ChangePreview, *, max_lines: int = MAX_STATIC_LINES) -> str:
    """The change as plain text: a unified diff, or the source with ``+``/``-`` marks."""
    if isinstance(change, FileChange):
        if change.created:
            more = change.total_lines - len(change.head.splitlines())
            lines = [f"new file {change.path}"] + [f"+{line}" for line in change.head.splitlines()] + ([f"… {more} more lines"] if more > 0 else [])
            return "\n".join(_cut(lines, max_lines))
        return "\n".join(_cut(change.diff.splitlines(), max_lines))
    if change.op == "replace":
        lines = change.diff.splitlines()
    elif change.op == "delete":
        lines = [f"deletes cell {change.cell_id}"] + [f"-{line}" for line in change.before.splitlines()]
    else:
        lines = [f"above: cell {change.above.cell_id}" if change.above else "above: (start)"]
        lines += [f"+{line}" for line in (change.after if change.op == "insert" else change.before).splitlines()]
        lines.append(f"below: cell {change.below.cell_id}" if change.below else "below: (end)")
    return "\n".join(_cut(lines, max_lines))


def change_summary(change: ChangePreview) -> str:
    """One line: what changes and how much (``+3 −1``)."""
    if isinstance(change, FileChange):
        return f"new file, {change.total_lines} lines" if change.created else _size(change.diff)
    if change.op == "replace":
        return _size(change.diff) if change.diff else "no change"
    return {"insert": "new cell", "delete": "cell deleted", "move": "cell moved"}[change.op]

