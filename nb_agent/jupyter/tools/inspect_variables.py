"""InspectVariables: what is in the user's namespace, without running their code.

Without a name: every user variable with its type, shape or length and (shallow)
memory. With a name: a detailed view (a DataFrame's columns, dtypes, head and
describe; an array's dtype, shape and statistics; a container's first items).
IPython internals, modules and underscored names are left out. Looking never calls
anything that could be slow or change state beyond well-known containers.
"""

from __future__ import annotations

import sys
import types
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from nb_agent.errors import ToolError
from nb_agent.tools.base import ProgressCallback, Tool, ToolResult, ToolUseContext
from nb_agent.jupyter.tools.bridge import KernelBridge

IPYTHON_NAMES = frozenset({"In", "Out", "get_ipython", "exit", "quit", "open"})
MAX_LISTED = 200
SUMMARY_LIMIT = 2_000
DETAIL_LIMIT = 12_000
_LEN_TYPES = (list, tuple, dict, set, frozenset, str, bytes, bytearray, range)
# The one-line summary names a frame's columns, but a 2,000-column frame must not eat the
# summary's budget: at most this many names, and this many characters for all of them.
SUMMARY_COLUMNS = 12
SUMMARY_COLUMNS_CHARS = 160
# describe() on a huge frame is slow; above this many rows it runs on a seeded sample.
DESCRIBE_FULL_ROWS = 1_000_000
DESCRIBE_SAMPLE_ROWS = 100_000


def user_variables(shell: Any) -> list[tuple[str, Any]]:
    """The user's own variables, in definition order."""
    hidden = getattr(shell, "user_ns_hidden", {}) or {}
    out = []
    for name, value in list(shell.user_ns.items()):
        if name.startswith("_") or name in IPYTHON_NAMES:
            continue
        if name in hidden and hidden[name] is value:
            continue
        if isinstance(value, types.ModuleType):
            continue
        out.append((name, value))
    return out


def _type_name(value: Any) -> str:
    cls = type(value)
    module = cls.__module__
    if module in ("builtins", "__main__"):
        return cls.__qualname__
    short = module.split(".")[0]
    return f"{short}.{cls.__qualname__}" if short in ("numpy", "pandas", "torch", "polars", "xarray") else cls.__qualname__


def _shape(value: Any) -> str:
    """``shape`` of array-likes, ``len`` of known containers, else ''."""
    module = type(value).__module__.split(".")[0]
    if module in ("numpy", "pandas", "torch", "polars", "xarray", "scipy", "jax", "tensorflow"):
        shape = getattr(value, "shape", None)
        try:
            if shape is not None:
                dims = tuple(int(d) for d in shape)
                return "×".join(str(d) for d in dims) if dims else "scalar"
        except (TypeError, ValueError):
            pass
    if isinstance(value, _LEN_TYPES):
        return f"len {len(value)}"
    return ""


def _memory(value: Any) -> int | None:
    try:
        module = type(value).__module__.split(".")[0]
        if module == "numpy" and hasattr(value, "nbytes"):
            return int(value.nbytes)
        if module == "pandas" and hasattr(value, "memory_usage"):
            usage = value.memory_usage(index=True, deep=False)
            return int(usage.sum()) if hasattr(usage, "sum") else int(usage)
        return sys.getsizeof(value)
    except Exception:  # noqa: BLE001 - sizing is best effort
        return None


def human_bytes(size: int | None) -> str:
    if size is None:
        return "?"
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{size} B"


def _short_repr(value: Any, limit: int = 60) -> str:
    if isinstance(value, (int, float, complex, bool)) or value is None:
        text = repr(value)
    elif isinstance(value, str):
        text = repr(value if len(value) <= limit else value[:limit] + "…")
    else:
        return ""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _frame_columns(value: Any) -> list[str] | None:
    """Column names of a pandas or polars DataFrame (None for anything else)."""
    module = type(value).__module__.split(".")[0]
    if module not in ("pandas", "polars") or type(value).__name__ != "DataFrame":
        return None
    try:
        return [str(column) for column in list(value.columns)]
    except Exception:  # noqa: BLE001 - a broken frame still gets its one line
        return None


def _columns_text(columns: list[str]) -> str:
    shown: list[str] = []
    size = 0
    for column in columns[:SUMMARY_COLUMNS]:
        name = column if len(column) <= 40 else column[:39] + "…"
        if shown and size + len(name) + 2 > SUMMARY_COLUMNS_CHARS:
            break
        shown.append(name)
        size += len(name) + 2
    rest = len(columns) - len(shown)
    return "columns " + ", ".join(shown) + (f", … +{rest} more" if rest else "")


def describe_one_line(name: str, value: Any) -> str:
    parts = [_type_name(value)]
    if shape := _shape(value):
        parts.append(shape)
    if columns := _frame_columns(value):
        parts.append(_columns_text(columns))
    if isinstance(value, (types.FunctionType, type)):
        return f"{name}: {parts[0]}"
    if short := _short_repr(value):
        parts.append(f"= {short}")
    return f"{name}: " + ", ".join(parts)


def variables_table(shell: Any) -> str:
    rows = [("name", "type", "shape/len", "memory")]
    variables = user_variables(shell)
    for name, value in variables[:MAX_LISTED]:
        rows.append((name, _type_name(value), _shape(value), human_bytes(_memory(value))))
    if len(rows) == 1:
        return "The user's namespace has no variables yet."
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    lines = ["  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip() for row in rows]
    if len(variables) > MAX_LISTED:
        lines.append(f"... and {len(variables) - MAX_LISTED} more")
    return "\n".join(lines)


def variables_summary(shell: Any, *, limit: int = SUMMARY_LIMIT) -> str | None:
    """A bounded one-line-per-variable summary for the model (None when there is none)."""
    lines = [describe_one_line(name, value) for name, value in user_variables(shell)]
    if not lines:
        return None
    header = "Variables currently defined in the user's Jupyter kernel (use InspectVariables for details):"
    out = [header]
    size = len(header)
    for index, line in enumerate(lines):
        if size + len(line) + 1 > limit - 40:
            out.append(f"... and {len(lines) - index} more")
            break
        out.append(line)
        size += len(line) + 1
    return "\n".join(out)


def _pandas_detail(name: str, value: Any) -> list[str]:
    import pandas as pd

    lines = [f"{name}: {_type_name(value)}, shape {_shape(value)}, memory {human_bytes(_memory(value))}"]
    with pd.option_context("display.max_columns", 30, "display.width", 160, "display.max_colwidth", 40):
        if isinstance(value, pd.DataFrame):
            lines.append("\ncolumns and dtypes:")
            lines.extend(f"  {col}: {dtype}" for col, dtype in list(value.dtypes.items())[:100])
            if value.shape[1] > 100:
                lines.append(f"  ... and {value.shape[1] - 100} more columns")
            nulls = value.isna().sum()
            if int(nulls.sum()):
                lines.append("\nmissing values: " + ", ".join(f"{c}={int(n)}" for c, n in nulls.items() if n)[:1000])
        else:
            lines.append(f"dtype: {getattr(value, 'dtype', '?')}")
        lines.append("\nhead:\n" + value.head(5).to_string())
        try:
            rows = len(value)
            if rows <= DESCRIBE_FULL_ROWS:
                described, heading = value.describe(), "describe:"
            else:
                described = value.sample(DESCRIBE_SAMPLE_ROWS, random_state=0).describe()
                heading = f"describe (computed on a random sample of {DESCRIBE_SAMPLE_ROWS:,} of {rows:,} rows):"
            lines.append(f"\n{heading}\n" + described.to_string())
        except Exception as exc:  # noqa: BLE001
            lines.append(f"\n(describe failed: {exc})")
    return lines


def _numpy_detail(name: str, value: Any) -> list[str]:
    import numpy as np

    lines = [f"{name}: numpy.ndarray, dtype {value.dtype}, shape {value.shape}, {human_bytes(_memory(value))}"]
    if value.size and np.issubdtype(value.dtype, np.number):
        flat = value.ravel()
        if flat.size > 10_000_000:
            flat = flat[:: flat.size // 1_000_000]
        with np.errstate(all="ignore"):
            stats = {k: _plain(f(flat)) for k, f in (("min", np.nanmin), ("max", np.nanmax), ("mean", np.nanmean), ("std", np.nanstd))}
            nan_count = int(np.isnan(flat).sum()) if np.issubdtype(flat.dtype, np.floating) else 0
            lines.append(", ".join(f"{k} {v}" for k, v in stats.items()) + f", NaN count {nan_count}")
    with np.printoptions(threshold=50, edgeitems=3, linewidth=120):
        lines.append("values:\n" + repr(value))
    return lines


def _plain(value: Any) -> str:
    """A numpy scalar as plain text (``11``, ``5.5``), not ``np.int64(11)``."""
    item = value.item() if hasattr(value, "item") else value
    return f"{item:.6g}" if isinstance(item, float) else str(item)


def describe_variable(name: str, value: Any) -> str:
    module = type(value).__module__.split(".")[0]
    try:
        if module == "pandas" and hasattr(value, "head") and hasattr(value, "describe"):
            lines = _pandas_detail(name, value)
        elif module == "numpy" and hasattr(value, "dtype") and hasattr(value, "shape") and hasattr(value, "ravel"):
            lines = _numpy_detail(name, value)
        else:
            lines = [f"{name}: {_type_name(value)}" + (f", {_shape(value)}" if _shape(value) else "")]
            lines.append(f"memory (shallow): {human_bytes(_memory(value))}")
            if isinstance(value, dict):
                keys = list(value)[:50]
                lines.append("keys: " + ", ".join(repr(k) for k in keys) + (" ..." if len(value) > 50 else ""))
            text = repr(value)
            lines.append("repr: " + (text if len(text) <= 2000 else text[:2000] + f"… ({len(text):,} characters)"))
            doc = getattr(value, "__doc__", None) if callable(value) else None
            if doc:
                lines.append("doc: " + doc.strip().splitlines()[0][:200])
    except Exception as exc:  # noqa: BLE001 - a misbehaving object must not break the tool
        lines = [f"{name}: {_type_name(value)} (could not describe it: {type(exc).__name__}: {exc})"]
    text = "\n".join(lines)
    return text if len(text) <= DETAIL_LIMIT else text[:DETAIL_LIMIT] + "\n… (truncated)"


class InspectVariablesInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str | None = Field(default=None, description="A variable to describe in detail; omit to list all variables")


_PROMPT = """\
Lists the variables in the user's Jupyter kernel (name, type, shape or length, memory), or describes one variable in detail when `name` is given: a DataFrame's columns, dtypes, head and summary statistics; an array's dtype, shape and statistics; other objects' repr.
It does not run user code and is cheap: use it before ExecuteCode to learn what data exists."""


class InspectVariables(Tool[InspectVariablesInput]):
    name = "InspectVariables"
    input_model = InspectVariablesInput
    search_hint = "list or describe variables dataframes arrays in the kernel namespace"

    def __init__(self, bridge: KernelBridge) -> None:
        self.bridge = bridge

    def prompt(self) -> str:
        return _PROMPT

    def is_read_only(self, input: InspectVariablesInput) -> bool:
        return True

    def is_concurrency_safe(self, input: InspectVariablesInput) -> bool:
        return True

    def interrupt_behavior(self) -> str:  # type: ignore[override]
        return "cancel"

    async def call(self, input: InspectVariablesInput, ctx: ToolUseContext, on_progress: ProgressCallback) -> ToolResult:
        shell = self.bridge.shell
        if input.name is None:
            return ToolResult(data=variables_table(shell))
        name = input.name.strip()
        if name not in shell.user_ns:
            known = ", ".join(n for n, _ in user_variables(shell)[:30]) or "none"
            raise ToolError(f"No variable named {name!r} in the kernel. Defined variables: {known}.")
        return ToolResult(data=describe_variable(name, shell.user_ns[name]))
