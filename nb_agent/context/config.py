"""Context-management settings and the per-model token thresholds (SPEC §4).

effective window = context window − min(max output, 20,000)
autocompact      = effective − 13,000
warning / error  = effective − 20,000
blocking         = effective − 3,000

Settings live in ``EngineConfig.options.context`` (a :class:`ContextConfig`).
"""

from __future__ import annotations

from dataclasses import dataclass

from nb_agent.context.images import DEFAULT_IMAGE_BYTES_BUDGET, DEFAULT_KEEP_IMAGES
from nb_agent.model.models import model_info

AUTOCOMPACT_BUFFER_TOKENS = 13_000
WARNING_THRESHOLD_BUFFER_TOKENS = 20_000
ERROR_THRESHOLD_BUFFER_TOKENS = 20_000
MANUAL_COMPACT_BUFFER_TOKENS = 3_000
"""The blocking limit's distance from the effective window (room for a manual compact)."""
SUMMARY_OUTPUT_RESERVE_TOKENS = 20_000
"""Output room reserved for a compaction summary: min(model max output, this)."""

COMPACTABLE_TOOLS = frozenset(
    {"Read", "Bash", "Grep", "Glob", "WebSearch", "WebFetch", "Edit", "Write", "ExecuteCode", "InspectVariables"}
)
"""Tools whose old results microcompact may clear: Claude Code's eight (SPEC §4) plus the
notebook's code-execution and variable-inspection tools, whose output is as bulky and as
quickly stale as Bash's. MCP tools are left alone: their results may be the only copy."""

TOOL_RESULT_BUDGET_CHARS = 200_000
"""Per API message (one batch of tool results): Claude Code's per-message limit. The seeds
name the mechanism but no number; this is the value Claude Code ships with."""


@dataclass(frozen=True, kw_only=True)
class ContextConfig:
    auto_compact: bool = True
    context_window: int | None = None
    """Override the model table's context window (tests, proxies with smaller windows)."""
    max_output_tokens: int | None = None
    """Override the model table's maximum output tokens."""
    tool_result_budget: bool = True
    tool_result_budget_chars: int = TOOL_RESULT_BUDGET_CHARS
    microcompact: bool = True
    microcompact_keep_recent: int = 5
    """The most recent compactable results microcompact never clears."""
    microcompact_gap_minutes: float = 60.0
    """Time-based mode: clear when the last assistant message is older than this."""
    compactable_tools: frozenset[str] = COMPACTABLE_TOOLS
    image_window: bool = True
    """Keep only the last ``keep_images`` images of tool results in the window (``context.images``)."""
    keep_images: int = DEFAULT_KEEP_IMAGES
    """Images kept verbatim (3–8); older ones become a line saying where they are saved."""
    image_bytes_budget: int = DEFAULT_IMAGE_BYTES_BUDGET
    """Base64 bytes of images a request may carry; older images are evicted beyond it."""
    keep_recent_tokens: int = 20_000
    """After autocompact, up to this many tokens of the latest messages are kept verbatim."""
    snip_max_messages: int | None = None
    """History snip (feature-gated in Claude Code): off unless set."""
    compact_model: str | None = None
    """Model that writes compaction summaries (default: the session's model)."""
    tool_use_summaries: bool = False
    summary_model: str | None = None
    """Model of tool-use summaries (default: the small fast model, see
    :func:`nb_agent.model.model_ids.small_fast_model`)."""


@dataclass(frozen=True, kw_only=True)
class ContextThresholds:
    context_window: int
    max_output_tokens: int

    @property
    def effective_window(self) -> int:
        return self.context_window - min(self.max_output_tokens, SUMMARY_OUTPUT_RESERVE_TOKENS)

    @property
    def autocompact(self) -> int:
        return self.effective_window - AUTOCOMPACT_BUFFER_TOKENS

    @property
    def warning(self) -> int:
        return self.effective_window - WARNING_THRESHOLD_BUFFER_TOKENS

    @property
    def error(self) -> int:
        return self.effective_window - ERROR_THRESHOLD_BUFFER_TOKENS

    @property
    def blocking(self) -> int:
        return self.effective_window - MANUAL_COMPACT_BUFFER_TOKENS

    def warning_note(self, tokens: int, *, auto_compact: bool) -> str:
        """What the status line says once a window of ``tokens`` is past the warning level:
        how close it is and what compaction would do; empty below it."""
        if tokens < self.warning:
            return ""

        def share(limit: int) -> str:
            return f"{100 * limit / self.context_window:.0f}%"

        if auto_compact:
            return f"near the limit: summarized automatically at {share(self.autocompact)}; %agent compact summarizes it now"
        return f"near the limit: %agent compact summarizes the conversation to free it (runs stop at {share(self.blocking)})"

    def level(self, tokens: int) -> str:
        """The UI level of a window of ``tokens``: ``ok``, ``warning`` or ``blocking``."""
        if tokens >= self.blocking:
            return "blocking"
        if tokens >= self.warning:
            return "warning"
        return "ok"


def thresholds_for(model: str, config: ContextConfig | None = None) -> ContextThresholds:
    info = model_info(model)
    config = config or ContextConfig()
    return ContextThresholds(
        context_window=config.context_window or info.context_window,
        max_output_tokens=config.max_output_tokens or info.max_output_tokens,
    )


__all__ = [
    "AUTOCOMPACT_BUFFER_TOKENS",
    "COMPACTABLE_TOOLS",
    "ContextConfig",
    "ContextThresholds",
    "ERROR_THRESHOLD_BUFFER_TOKENS",
    "MANUAL_COMPACT_BUFFER_TOKENS",
    "TOOL_RESULT_BUDGET_CHARS",
    "WARNING_THRESHOLD_BUFFER_TOKENS",
    "thresholds_for",
]
