"""One bounded line per namespace change, for the model (the ExecuteCode result) and the
tool card: ``sales: changed in place, 1,000 → 950 rows``, ``model: rebound (LinearRegression
→ Pipeline)``, ``tmp: deleted``."""

from __future__ import annotations

from typing import Any

from nb_agent.checkpoints.namespace.records import NameChange
from nb_agent.objects import Facts, describe_brief, frame_columns, human_bytes, kind_of
from nb_agent.objects.describe import dims_text

MAX_LINE_CHARS = 200
MAX_LINES = 12
MAX_COLUMN_NAMES = 3


def cut(text: str, limit: int = MAX_LINE_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _facts_of(value: Any) -> Facts | None:
    try:
        return kind_of(value).facts(value)
    except Exception:  # noqa: BLE001 - a broken object: its name alone
        return None


def _rows(before: Facts, after: Facts) -> str | None:
    if before.shape and after.shape and len(before.shape) == len(after.shape) == 2:
        parts = []
        if before.shape[0] != after.shape[0]:
            parts.append(f"{before.shape[0]:,} → {after.shape[0]:,} rows")
        if before.shape[1] != after.shape[1]:
            parts.append(f"{before.shape[1]} → {after.shape[1]} columns")
        return ", ".join(parts) or None
    if before.shape is not None and after.shape is not None and before.shape != after.shape:
        return f"shape {dims_text(before.shape)} → {dims_text(after.shape)}"
    if before.length is not None and after.length is not None and before.length != after.length:
        return f"{before.length:,} → {after.length:,} items"
    return None


def _column_changes(old: Any, new: Any) -> str | None:
    before, after = frame_columns(old), frame_columns(new)
    if before is None or after is None or before == after:
        return None
    added = [c for c in after if c not in set(before)]
    removed = [c for c in before if c not in set(after)]
    parts = []
    for sign, names in (("+", added), ("−", removed)):
        if names:
            shown = ", ".join(names[:MAX_COLUMN_NAMES]) + (f" (+{len(names) - MAX_COLUMN_NAMES} more)" if len(names) > MAX_COLUMN_NAMES else "")
            parts.append(f"columns {sign}{shown}")
    return "; ".join(parts) or "columns reordered or renamed"


def _dtype_change(before: Facts, after: Facts) -> str | None:
    if before.dtype and after.dtype and before.dtype != after.dtype:
        return f"dtype {before.dtype} → {after.dtype}"
    return None


def _memory_change(before: Facts | None, value: Any) -> str | None:
    if before is None or before.memory is None:
        return None
    after = _facts_of(value)
    if after is None or after.memory is None or abs(after.memory - before.memory) < max(1024, before.memory // 100):
        return None
    return f"{human_bytes(before.memory)} → {human_bytes(after.memory)}"


def changed_line(change: NameChange, value: Any) -> str:
    """``sales: changed in place, 1,000 → 950 rows; columns +w``."""
    before = change.before.facts
    if change.before.has_snapshot:
        before = _facts_of(change.before.snapshot) or before
    after = _facts_of(value)
    details: list[str] = []
    if before is not None and after is not None:
        details += [d for d in (_rows(before, after), _dtype_change(before, after)) if d]
    if change.before.has_snapshot and (columns := _column_changes(change.before.snapshot, value)):
        details.append(columns)
    if memory := _memory_change(change.before.facts, value):
        details.append(memory)
    if change.change == "unknown":
        restorable = "restorable" if change.restorable else "not restorable"
        return cut(f"{change.name}: may have changed in place (no cheap way to tell for a {kind_of(value).type_name(value)}; {restorable})")
    else:
        head = f"{change.name}: changed in place" + (f", {'; '.join(details)}" if details else " (values)")
    return cut(head + _not_restorable(change))


def _not_restorable(change: NameChange) -> str:
    if change.restorable:
        return ""
    return f" — not restorable ({change.before.lost})" if change.before.lost else " — not restorable"


def rebound_line(change: NameChange, value: Any) -> str:
    old, new = change.before.facts, _facts_of(value)
    if old is not None and new is not None and old.type_name != new.type_name:
        what = f"{old.type_name} → {new.type_name}"
    else:
        rows = _rows(old, new) if old is not None and new is not None else None
        what = describe_brief(value) if rows is None else f"{new.type_name if new else '?'}, {rows}"
    return cut(f"{change.name}: rebound ({what})" + _not_restorable(change))


def created_line(change: NameChange, value: Any) -> str:
    return cut(f"{change.name}: created ({describe_brief(value)})")


def deleted_line(change: NameChange) -> str:
    facts = change.before.facts
    was = f" (was {facts.type_name})" if facts is not None else ""
    return cut(f"{change.name}: deleted{was}" + _not_restorable(change))


def line(change: NameChange, value: Any) -> str:
    """The change's line (``value``: what the name holds now, or ``ABSENT``)."""
    if change.change == "created":
        return created_line(change, value)
    if change.change == "deleted":
        return deleted_line(change)
    if change.change == "rebound":
        return rebound_line(change, value)
    return changed_line(change, value)


ORDER = {"created": 0, "rebound": 1, "deleted": 2, "changed": 3, "unknown": 4}


def call_lines(changes: list[NameChange]) -> list[str]:
    """A call's lines, bounded: definite changes first, then one line for the names that
    may have changed (no cheap test tells)."""
    definite = [c.line for c in sorted(changes, key=lambda c: ORDER[c.change]) if c.change != "unknown"]
    unknown = [c for c in changes if c.change == "unknown"]
    out = definite if len(definite) <= MAX_LINES else [*definite[: MAX_LINES - 1], f"… and {len(definite) - MAX_LINES + 1} more changes"]
    if len(unknown) == 1:
        out.append(unknown[0].line)
    elif unknown:
        names = ", ".join(c.name for c in unknown[:8]) + (f" (+{len(unknown) - 8} more)" if len(unknown) > 8 else "")
        out.append(cut(f"may have changed in place (no cheap way to tell; not restorable): {names}"))
    return out
