"""The status line: model, turn, tokens, context used, session cost, elapsed."""

from __future__ import annotations

from dataclasses import dataclass, replace

from nb_agent.jupyter.html import Html, el
from nb_agent.jupyter.view import theme
from nb_agent.model.pricing import Usage

DEFAULT_CONTEXT_WINDOW = 200_000


@dataclass(frozen=True, kw_only=True)
class StatusSnapshot:
    model: str
    turn: int
    input_tokens: int
    """This run's input tokens (cache reads and writes included)."""
    output_tokens: int
    output_estimated: bool = False
    """The output count includes a response still streaming, estimated from its text."""
    context_tokens: int
    """The last request's input size: what the conversation occupies."""
    context_window: int = DEFAULT_CONTEXT_WINDOW
    session_cost_usd: float = 0.0
    elapsed_s: float = 0.0
    phase: str = "running"
    """running, waiting for approval, done, interrupted, error."""
    permission_mode: str = "default"
    """The session's permission mode now (plan approval and EnterPlanMode change it)."""
    todo: str = ""
    """The todo list in brief (``2/5 · Drawing the chart``), empty without a list."""
    context_note: str = ""
    """Past the context warning level: how close the limit is and what compaction does."""

    @property
    def context_percent(self) -> float:
        return 100.0 * self.context_tokens / self.context_window if self.context_window else 0.0


def estimate_only(shown: StatusSnapshot, now: StatusSnapshot) -> bool:
    """Whether the line of ``now`` differs from the line of ``shown`` only by the estimate of
    the output still streaming (and the elapsed time, which is not on the line)."""
    return now.output_estimated and replace(now, output_tokens=shown.output_tokens, elapsed_s=shown.elapsed_s) == shown


def tokens(n: int) -> str:
    if n >= 1_000_000:
        return f"{n / 1_000_000:.1f}M"
    if n >= 10_000:
        return f"{n / 1000:.0f}k"
    if n >= 1_000:
        return f"{n / 1000:.1f}k"
    return str(n)


def duration(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes}m{secs:02d}s"


MODE_LABELS = {"plan": "plan mode", "acceptEdits": "accept edits", "bypassPermissions": "bypass permissions"}
"""Words, not ⏵⏵ / ⏸ (Debian's default fonts have no such glyphs: they showed as boxes)."""


def status_text(s: StatusSnapshot, *, clock: bool = True) -> str:
    """The line's text; ``clock=False``: without the elapsed time (the live view shows it
    apart, see :func:`clock_html`)."""
    parts = [
        *([MODE_LABELS.get(s.permission_mode, s.permission_mode)] if s.permission_mode != "default" else []),
        *([f"☑ {s.todo}"] if s.todo else []),
        *([s.model] if s.model else []),
        f"turn {s.turn}" if s.turn else "starting",
        f"{tokens(s.input_tokens)} in / {'~' if s.output_estimated else ''}{tokens(s.output_tokens)} out",
        f"context {s.context_percent:.0f}%" + (f" ⚠ {s.context_note}" if s.context_note else ""),
        f"${s.session_cost_usd:.4f} session",
        *([duration(s.elapsed_s)] if clock else []),
    ]
    if s.phase != "running":
        parts.append(s.phase)
    return " · ".join(parts)


def run_summary(*, model: str, usage: Usage, cost_usd: float, elapsed_s: float) -> str:
    """A finished run in one line, for what stays below the cell (the status line goes):
    ``claude-sonnet-4-5 · 12k in (cache: 9.8k read, 1.2k written) / 456 out · $0.0123 · 4.2s``."""
    cache = [f"{tokens(n)} {what}" for n, what in ((usage.cache_read_input_tokens, "read"), (usage.cache_creation_input_tokens, "written")) if n]
    cached = f" (cache: {', '.join(cache)})" if cache else ""
    return f"{model} · {tokens(usage.context_tokens)} in{cached} / {tokens(usage.output_tokens)} out · ${cost_usd:.4f} · {duration(elapsed_s)}"


_PHASE_TONES = {
    "running": theme.INFO,
    "waiting for approval": theme.WARN,
    "waiting for you": theme.WARN,
    "done": theme.SUCCESS,
    "interrupted": theme.MUTED,
    "error": theme.ERROR,
}


def status_html(s: StatusSnapshot) -> Html:
    """The line's markup but its clock: classes only (the live view's stylesheet styles
    them). Re-sent when a figure changes (a request's usage, the phase, the mode)."""
    dot = el("span", "●", cls=theme.tone_class(_PHASE_TONES.get(s.phase, theme.MUTED)))
    return el("div", dot, " ", status_text(s, clock=False), cls=theme.STATUS_CLASS)


def clock_html(s: StatusSnapshot) -> Html:
    """The elapsed time after the line, the one part that changes every second: a widget
    of its own, so what is re-sent each second is a few bytes, not the whole line."""
    return el("div", f"· {duration(s.elapsed_s)}", cls=theme.CLOCK_CLASS)
