"""The colours and shared styles of every card, status line and static rendering.

Colours are JupyterLab's theme variables (light, dark and high-contrast alike; Notebook 7
and nbconvert's lab template define them too), with a fallback for pages without them.
A status colour used for *text* is mixed 30 % toward the theme's content colour (black in a
light theme, white in a dark one), so it reads at 4.5:1 or better on both backgrounds;
JupyterLab's own shades are tuned for icons and borders, not text.
"""

from __future__ import annotations

from nb_agent.jupyter.html import Style, merge, style


def _var(name: str, fallback: str) -> str:
    return f"var(--jp-{name}, {fallback})"


def _text_color(color: str, fallback: str) -> Style:
    mixed = f"color-mix(in srgb, {color} 70%, {_var('content-font-color0', '#000')})"
    return merge(style(color=fallback), style(color=mixed))  # the plain one for browsers without color-mix


ERROR = "error"
WARN = "warn"
SUCCESS = "success"
INFO = "info"
MUTED = "muted"
ACCENT = "accent"
Tone = str
"""One of the names above."""

_BASE: dict[Tone, tuple[str, str]] = {
    ERROR: (_var("error-color1", "#d32f2f"), "#b00020"),
    WARN: (_var("warn-color0", "#e65100"), "#b24400"),
    SUCCESS: (_var("success-color1", "#388e3c"), "#2e7d32"),
    INFO: (_var("brand-color1", "#1976d2"), "#1565c0"),
    ACCENT: ("#8e24aa", "#6a1b9a"),  # subagents; JupyterLab has no purple of its own
}
"""Each tone's colour and the plain text colour used where ``color-mix`` is unknown."""

BORDER: dict[Tone, str] = {tone: color for tone, (color, _) in _BASE.items()}
BORDER[MUTED] = _var("border-color1", "#9e9e9e")
"""A tone as a border or mark colour (not text)."""

TEXT: dict[Tone, Style] = {tone: _text_color(color, fallback) for tone, (color, fallback) in _BASE.items()}
TEXT[MUTED] = style(color=_var("ui-font-color2", "#616161"))
"""A tone as a text colour (readable on the page's background in either theme)."""

UI_FONT = style(font_family=_var("ui-font-family", "sans-serif"))
SMALL = style(font_size="0.85em")
CODE_BACKGROUND = _var("layout-color2", "#eeeeee")
SOFT_BORDER = _var("border-color2", "#e0e0e0")


def text(tone: Tone, *more: Style) -> Style:
    """The text colour of ``tone`` plus ``more``."""
    return merge(TEXT[tone], *more)


def small(tone: Tone) -> Style:
    return merge(TEXT[tone], SMALL)


def pre(*, wrap: bool = True, max_height: str = "24em") -> Style:
    """A block of tool output or code."""
    return style(
        white_space="pre-wrap" if wrap else "pre",
        margin="4px 0",
        padding="4px 6px",
        background=CODE_BACKGROUND,
        color=_var("content-font-color1", "#212121"),
        max_height=max_height,
        overflow="auto",
        font_size="0.85em",
    )


FOLLOW = style(display="flex", flex_direction="column-reverse")
"""On a scrolling block whose text is one child element: it opens scrolled to its end, so
output that is still coming shows its newest lines (a block otherwise opens at its top)."""


def card(tone: Tone) -> Style:
    """The frame of a card whose left border says its state."""
    return merge(style(border_left=f"3px solid {BORDER[tone]}", padding="2px 8px", margin="4px 0"), UI_FONT)


CHIP = style(
    background=CODE_BACKGROUND,
    color=_var("ui-font-color1", "#212121"),
    border_radius="3px",
    padding="0 4px",
    font_size="0.8em",
)
"""A short label in a box (a question's header)."""

BOXED = style(border=f"1px solid {SOFT_BORDER}", border_radius="4px", padding="2px 10px", margin="4px 0")
"""A framed block (the plan)."""

DIFF_ADDED = style(background="color-mix(in srgb, var(--jp-success-color1, #388e3c) 18%, transparent)")
DIFF_REMOVED = style(background="color-mix(in srgb, var(--jp-error-color1, #d32f2f) 15%, transparent)")
IMAGE = style(max_width="100%")


# --- classes of the live view ----------------------------------------------------------
# What the live view re-sends many times (the status line every second, streamed thinking)
# names a class instead of carrying its inline style: the view's stylesheet (:func:`live_rules`,
# shown once per view) defines them. Static renderings keep inline styles (a saved
# notebook's sanitizer drops <style>).
STATUS_CLASS = "nb-agent-status"
CLOCK_CLASS = "nb-agent-clock"
"""The status line's elapsed time, a widget of its own after the line."""
THINKING_CLASS = "nb-agent-thinking"


def tone_class(tone: Tone) -> str:
    """The class giving text the colour of ``tone`` (see :data:`TEXT`)."""
    return f"nb-agent-tone-{tone}"


def live_rules() -> dict[str, Style]:
    """Every class of the live view and its declarations."""
    return {
        STATUS_CLASS: merge(TEXT[MUTED], SMALL, UI_FONT, style(padding="2px 4px")),
        CLOCK_CLASS: merge(TEXT[MUTED], SMALL, UI_FONT, style(padding="2px 4px 2px 0")),
        THINKING_CLASS: text(MUTED, style(font_size="0.9em", white_space="pre-wrap")),
        **{tone_class(tone): TEXT[tone] for tone in TEXT},
    }
