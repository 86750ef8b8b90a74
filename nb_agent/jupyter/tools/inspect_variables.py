"""InspectVariables: what is in the user's namespace, without running their code.

Without a name: every user variable with its type, shape or length and (shallow)
memory. With a name: a detailed view (a DataFrame's columns, dtypes, head and
describe; an array's dtype, shape and statistics; a lazy frame's columns, types, partitions
and plan, never computed; a container's first items).
IPython internals, modules and underscored names are left out. Looking never calls
anything that could be slow or change state beyond well-known containers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from nb_agent.errors import ToolError
from nb_agent.jupyter.user_namespace import user_variables
from nb_agent.objects import describe_one_line, human_bytes, kind_of, memory, shape_text, type_name
from nb_agent.objects.lazy_frames import MAX_TYPED_COLUMNS
from nb_agent.tools.base import ProgressCallback, Tool, ToolResult, ToolUseContext

if TYPE_CHECKING:
    from nb_agent.jupyter.tools.bridge import KernelBridge

MAX_LISTED = 200
SUMMARY_LIMIT = 2_000
DETAIL_LIMIT = 12_000
# describe() on a huge frame is slow; above this many rows it runs on a seeded sample.
DESCRIBE_FULL_ROWS = 1_000_000
DESCRIBE_SAMPLE_ROWS = 100_000


def variables_table(shell: Any) -> str:
    rows = [("name", "type", "shape/len", "memory")]
    variables = user_variables(shell)
    for name, value in variables[:MAX_LISTED]:
        rows.append((name, type_name(value), shape_text(value), human_bytes(memory(value))))
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

    lines = [f"{name}: {type_name(value)}, shape {shape_text(value)}, memory {human_bytes(memory(value))}"]
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

    lines = [f"{name}: numpy.ndarray, dtype {value.dtype}, shape {value.shape}, {human_bytes(memory(value))}"]
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


LAZY_PLAN_CHARS = 2_000


def _lazy_frame_detail(name: str, value: Any, column_types: list[tuple[str, str]]) -> list[str]:
    """A Dask, Polars or Spark lazy frame from its metadata: nothing here runs its plan."""
    lines = [f"{name}: {type_name(value)}, {shape_text(value)}"]
    lines.append("Not computed: its rows, size and values are what running it gives (.head(), len(), .compute(), .collect(), .count() run it).")
    lines.append(f"\ncolumns and dtypes ({len(column_types)}{'+' if len(column_types) >= MAX_TYPED_COLUMNS else ''}):")
    lines.extend(f"  {column}: {dtype}" for column, dtype in column_types[:100])
    if len(column_types) > 100:
        lines.append(f"  ... and {len(column_types) - 100} more columns")
    plan = kind_of(value).plan(value) or repr(value)
    lines.append("\nplan:\n" + (plan if len(plan) <= LAZY_PLAN_CHARS else plan[:LAZY_PLAN_CHARS] + f"… ({len(plan):,} characters)"))
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
        elif (column_types := kind_of(value).column_types(value)) is not None:
            lines = _lazy_frame_detail(name, value, column_types)
        else:
            lines = [f"{name}: {type_name(value)}" + (f", {shape_text(value)}" if shape_text(value) else "")]
            lines.append(f"memory (shallow): {human_bytes(memory(value))}")
            if isinstance(value, dict):
                keys = list(value)[:50]
                lines.append("keys: " + ", ".join(repr(k) for k in keys) + (" ..." if len(value) > 50 else ""))
            text = repr(value)
            lines.append("repr: " + (text if len(text) <= 2000 else text[:2000] + f"… ({len(text):,} characters)"))
            doc = getattr(value, "__doc__", None) if callable(value) else None
            if doc:
                lines.append("doc: " + doc.strip().splitlines()[0][:200])
    except Exception as exc:  # noqa: BLE001 - a misbehaving object must not break the tool
        lines = [f"{name}: {type_name(value)} (could not describe it: {type(exc).__name__}: {exc})"]
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
    repeats_its_content = True  # the structured output is its text again: kept once
    search_hint = "list or describe variables dataframes arrays in the kernel namespace"

    def __init__(self, bridge: KernelBridge) -> None:
        self.bridge = bridge

    def prompt(self) -> str:
        return _PROMPT

    def is_read_only(self, input: InspectVariablesInput) -> bool:
        return True

    def is_concurrency_safe(self, input: InspectVariablesInput) -> bool:
        return True

    def interrupt_behavior(self) -> str:
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
