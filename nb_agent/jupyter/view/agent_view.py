"""The live widget view of a run: a VBox of text blocks, thinking, tool cards, notices and
the status line, fed by a :class:`RunState` and paced by an :class:`UpdateScheduler`.

State changes only mark widgets dirty; the run's ticker calls :meth:`tick` (about every
40 ms), which renders what is due within the comm-message budget. When the run ends,
:meth:`finish` replaces the whole view, under the same display id, by the static
rendering and closes the widgets.

With ``page_widgets`` (every connected page has the nb-agent-live extension's widgets) a
streamed answer is one :class:`~nb_agent.jupyter.view.page_widgets.StreamText` sent as
appends and the clock is one the page ticks; otherwise answers are pages of stock HTML
widgets (:mod:`nb_agent.jupyter.view.text_pages`) and the kernel sends the clock each second.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

from nb_agent.jupyter.html import stylesheet
from nb_agent.jupyter.view.appended_text import AppendedText
from nb_agent.jupyter.view.approval import ApprovalRow, WidgetApprover
from nb_agent.jupyter.view.run_state import Item, Notice, RunState, TextBlock, ToolCall
from nb_agent.jupyter.view.status_line import StatusSnapshot, clock_html, estimate_only, status_html
from nb_agent.jupyter.view.text_pages import TextPages, set_value
from nb_agent.jupyter.view.theme import live_rules
from nb_agent.jupyter.view.throttle import WIDGET_COST, CommBudget, UpdateScheduler
from nb_agent.jupyter.view.tool_card import card_html, notice_html
from nb_agent.jupyter.view.trust_card import TrustRow

STATUS_KEY = "status"
STRUCTURE_KEY = "structure"
STATUS_INTERVAL_S = 1.0
ESTIMATE_INTERVAL_S = 5.0
"""While only the estimate of the output streaming changes, the line is re-sent this often
(it changes about every second at a model's pace: as much traffic as the clock was)."""
CARD_INTERVAL_S = 0.2
CARD_TIMER_S = 1.0


_SHARED: dict[str, Any] = {}


def _shared_widgets() -> tuple[dict[str, Any], int]:
    """Layouts and styles every view shares, made once per kernel (never closed), so a
    run costs no comm messages for them. Returns them and how many were (re)made now."""
    import ipywidgets as w
    from ipywidgets.widgets.widget_string import HTMLStyle, TextStyle

    factories = {
        "layout": w.Layout,
        "row_layout": lambda: w.Layout(flex_flow="row wrap", align_items="center"),
        "html_style": HTMLStyle,
        "button_style": w.ButtonStyle,
        "text_style": TextStyle,
        "hidden_layout": lambda: w.Layout(display="none"),
        # as wide as what it shows: ipywidgets gives a button a short fixed width and cuts its label
        "fit_layout": lambda: w.Layout(width="auto"),
    }
    created = 0
    for name, factory in factories.items():
        widget = _SHARED.get(name)
        if widget is None or getattr(widget, "comm", None) is None:
            _SHARED[name] = factory()
            created += 1
    return _SHARED, created


@dataclass(eq=False)
class _ItemWidgets:
    outer: Any
    """What goes into the view's children."""
    content: Any
    """The HTML widget whose value is updated."""
    extra: list[Any] = field(default_factory=list)
    pages: TextPages | AppendedText | None = None
    """A streamed answer's widgets (``outer`` holds their box, ``content`` is the first)."""

    def all(self) -> list[Any]:
        return [self.outer, self.content, *self.extra, *(self.pages.widgets if self.pages else [])]


class WidgetAgentView:
    """Renders a :class:`RunState` into widgets; its :attr:`approver` asks on the cards."""

    def __init__(
        self,
        state: RunState,
        *,
        status: Callable[[], StatusSnapshot],
        max_updates_per_s: float = 25.0,
        max_messages_per_s: float = 25.0,
        clock: Callable[[], float] = time.monotonic,
        page_widgets: bool = False,
    ) -> None:
        import ipywidgets as w

        self._w = w
        self.state = state
        self._status = status
        self._clock = clock
        self.page_widgets = page_widgets
        """Every connected page draws the extension's widgets: appended text, a page-ticked clock."""
        self._shared, created = _shared_widgets()
        snapshot = status()
        self._status_sent = (snapshot, clock())
        self.status_widget = w.HTML(value=status_html(snapshot), layout=self._shared["layout"], style=self._shared["html_style"])
        self.clock_widget: Any
        """The status line's elapsed time: all that changes every second while text streams."""
        if page_widgets:
            from nb_agent.jupyter.view.page_widgets import PageClock

            self.clock_widget = PageClock(elapsed=state.elapsed, layout=self._shared["layout"])  # any thread may ask
        else:
            self.clock_widget = w.HTML(value=clock_html(snapshot), layout=self._shared["layout"], style=self._shared["html_style"])
        self.status_row = w.HBox(children=[self.status_widget, self.clock_widget], layout=self._shared["layout"])
        self.stylesheet = w.HTML(value=stylesheet(live_rules()), layout=self._shared["hidden_layout"], style=self._shared["html_style"])
        """The classes of what is re-sent often (status line, thinking), defined once per view."""
        self.root = w.VBox(children=[self.stylesheet, self.status_row], layout=self._shared["layout"])
        self.scheduler = UpdateScheduler(
            self._render,
            max_flushes_per_s=max_updates_per_s,
            budget=CommBudget(rate=max_messages_per_s, clock=clock),
            clock=clock,
        )
        # Charged now: the shared widgets' opens, and the root's, stylesheet's and status line's (row,
        # line, clock) opens and eventual closes, so a short run's traffic is bounded too.
        self.scheduler.budget.spend(created + 5 * WIDGET_COST)
        self._items: dict[int, Item] = {}
        self._widgets: dict[int, _ItemWidgets] = {}
        self._approvals: dict[int, Any] = {}
        """The panel under each waiting card: an ApprovalRow, a question or a plan form."""
        self._closing: list[Any] = []
        self.handle: Any = None
        self.shown: dict[str, Any] | None = None
        """The MIME bundle :meth:`show` displayed (the root widget's view)."""
        self.finished = False
        state.listeners.append(self._on_change)

    # --- display ----------------------------------------------------------------------
    def show(self) -> None:
        from IPython.display import display

        from nb_agent.jupyter.kernel_restart import LIVE_VIEW_TEXT

        self.shown = {**(self.root._repr_mimebundle_() or {}), "text/plain": LIVE_VIEW_TEXT}  # not VBox(children=(HTML(...
        self.handle = display(self.shown, raw=True, display_id=True)

    def reshow(self) -> int:
        """The page lost some of this view's messages (its websocket closed and came back
        during the run): every widget again, with its state now, and the view again under its
        display id (:mod:`nb_agent.jupyter.view.reshow`). Returns the messages sent."""
        if self.finished or self.handle is None or self.shown is None:
            return 0
        from nb_agent.jupyter.view.reshow import reopen, widget_tree

        self.flush_now()
        sent = reopen(widget_tree(self.root))
        self.handle.update(self.shown, raw=True)
        self.scheduler.budget.spend(sent + 1)
        return sent + 1

    def finish(self, bundle: dict[str, Any]) -> None:
        """Replace the live view by ``bundle`` (same display id) and close the widgets."""
        if self.finished:
            return
        self.finished = True
        if self._on_change in self.state.listeners:
            self.state.listeners.remove(self._on_change)
        if self.handle is not None:
            self.handle.update(bundle, raw=True)
        else:
            from IPython.display import display

            display(bundle, raw=True)
        self.close()

    def close(self) -> None:
        widgets: list[Any] = [self.root, self.stylesheet, self.status_row, self.status_widget, self.clock_widget, *self._closing]
        for item_widgets in self._widgets.values():
            widgets += item_widgets.all()
        for row in self._approvals.values():
            widgets += row.widgets
        seen: set[int] = set()
        for widget in widgets:
            if id(widget) in seen:
                continue
            seen.add(id(widget))
            try:
                widget.close()
            except Exception:  # noqa: BLE001 - closing is best effort
                pass
        self._widgets.clear()
        self._approvals.clear()
        self.scheduler.stop()

    @property
    def approver(self) -> WidgetApprover:
        """The permission callback that asks on this view's cards (not kept by the view: it
        holds the view, and the two would make a cycle)."""
        return WidgetApprover(self)

    # --- pacing -----------------------------------------------------------------------
    def tick(self) -> int:
        """Called by the run's ticker: schedule the timers, render what is due."""
        if self.finished:
            return 0
        now = self._clock()
        self.scheduler.mark(STATUS_KEY, min_interval=STATUS_INTERVAL_S)
        for card in self.state.cards:
            if not card.finished and card.key in self._widgets and now - self.scheduler.last_rendered(card.key) >= CARD_TIMER_S:
                self.scheduler.mark(card.key)
        for key, widgets in self._widgets.items():
            if widgets.pages is not None and widgets.pages.behind:
                self.scheduler.mark(key)  # held back for too little new text: due again by MAX_WAIT_S
        return self.scheduler.tick(now)

    def flush_now(self) -> None:
        """Render everything pending now, whatever the pacing (before a blocking wait)."""
        self.scheduler.tick(force=True)

    def _on_change(self, what: str, item: Item) -> None:
        if what == "remove":
            self._items.pop(item.key, None)
            self.scheduler.forget(item.key)
            widgets = self._widgets.pop(item.key, None)
            if widgets is not None:
                self._closing += widgets.all()
            self.scheduler.mark(STRUCTURE_KEY)
            return
        self._items[item.key] = item
        self.scheduler.mark(item.key, min_interval=CARD_INTERVAL_S if isinstance(item, ToolCall) else 0.0)
        if isinstance(item, ToolCall) and item.finished:
            self.scheduler.mark(STATUS_KEY)  # a finished call may have changed the mode or the todos

    # --- rendering --------------------------------------------------------------------
    def _render(self, key: Hashable) -> int:
        if key == STATUS_KEY:
            return self._render_status()
        if key == STRUCTURE_KEY:
            return self._sync_children()
        item = self._items.get(key)  # type: ignore[arg-type]
        if item is None:
            return 0
        widgets = self._widgets.get(item.key)
        if widgets is None:
            return self._create(item) + self._sync_children()
        if widgets.pages is not None and isinstance(item, TextBlock):
            return widgets.pages.render(item.stream)
        widgets.content.value = self._html(item)
        sent = 1
        if isinstance(item, ToolCall):
            sent += self._sync_approval(item, widgets)
        return sent

    def _render_status(self) -> int:
        snapshot, now = self._status(), self._clock()
        sent = 0 if self.page_widgets else set_value(self.clock_widget, clock_html(snapshot))
        shown, shown_at = self._status_sent
        if estimate_only(shown, snapshot) and now - shown_at < ESTIMATE_INTERVAL_S:
            return sent
        self._status_sent = (snapshot, now)
        return sent + set_value(self.status_widget, status_html(snapshot))

    def _html(self, item: Item) -> str:
        if isinstance(item, TextBlock):
            return item.stream.html()
        if isinstance(item, ToolCall):
            return card_html(item, self._clock())
        assert isinstance(item, Notice)
        return notice_html(item.level, item.text)

    def _new_html(self, value: str) -> Any:
        return self._w.HTML(value=value, layout=self._shared["layout"], style=self._shared["html_style"])

    def _create(self, item: Item) -> int:
        w = self._w
        if isinstance(item, TextBlock):  # an answer or thinking: appended, or paged (see TextPages)
            pages = self._text_widgets()
            outer = pages.box
            if item.kind == "thinking":
                outer = w.Accordion(children=[pages.box], titles=("Thinking",), selected_index=None, layout=self._shared["layout"])
            self._widgets[item.key] = _ItemWidgets(outer=outer, content=pages.widgets[-1], pages=pages)
            opened = len(pages.widgets) + (outer is not pages.box)
            return opened * WIDGET_COST + pages.render(item.stream)
        content = self._new_html(self._html(item))
        if isinstance(item, ToolCall):
            outer = w.VBox(children=[content], layout=self._shared["layout"])
            self._widgets[item.key] = _ItemWidgets(outer=outer, content=content)
            return 2 * WIDGET_COST + self._sync_approval(item, self._widgets[item.key])
        self._widgets[item.key] = _ItemWidgets(outer=content, content=content)
        return WIDGET_COST

    def _text_widgets(self) -> TextPages | AppendedText:
        if self.page_widgets:
            from nb_agent.jupyter.view.page_widgets import StreamText

            return AppendedText(widget=StreamText(layout=self._shared["layout"]), clock=self._clock)
        return TextPages(
            new_html=self._new_html,
            new_box=lambda children: self._w.VBox(children=children, layout=self._shared["layout"]),
            clock=self._clock,
        )

    def _sync_children(self) -> int:
        children = [self.stylesheet, *(self._widgets[i.key].outer for i in self.state.items if i.key in self._widgets)]
        children.append(self.status_row)
        sent = 0
        if tuple(children) != tuple(self.root.children):
            self.root.children = children
            sent += 1
        for widget in self._closing:  # their closes were charged when they were made
            try:
                widget.close()
            except Exception:  # noqa: BLE001
                pass
        self._closing.clear()
        return sent

    # --- approvals --------------------------------------------------------------------
    def _sync_approval(self, card: ToolCall, widgets: _ItemWidgets) -> int:
        row = self._approvals.get(card.key)
        if card.approval is None or row is None:
            return 0
        if row.answered:  # settled: the card's own line says who decided what; the controls go
            if row.box in widgets.outer.children:
                widgets.outer.children = [widgets.content]
                return 1
            return 0
        if row.box not in widgets.outer.children:
            widgets.outer.children = [widgets.content, row.box]
            widgets.extra = row.widgets
            return 1 + len(row.widgets) * WIDGET_COST
        return 0

    @property
    def shared_widgets(self) -> dict[str, Any]:
        """The layouts and styles every widget of the view shares (for panels made elsewhere)."""
        return self._shared

    def show_approval(self, card: ToolCall, deliver: Callable[[Any, str], None]) -> ApprovalRow:
        row = ApprovalRow(
            suggested_rule=card.approval.suggested_rule if card.approval else None,
            on_answer=deliver,
            shared=self._shared,
            loop=asyncio.get_running_loop(),
        )
        return self.show_panel(card, row)

    def show_panel(self, card: ToolCall, panel: Any) -> Any:
        """Put ``panel`` (an approval row, a question form, a plan form: anything with ``box``,
        ``widgets`` and ``disable()``) under the card and show it now."""
        self._approvals[card.key] = panel
        self._items[card.key] = card
        self.scheduler.mark(card.key)
        self.scheduler.mark(STATUS_KEY)
        self.flush_now()  # the user must see the buttons now, whatever the pacing
        return panel

    def approval_row(self, tool_use_id: str) -> ApprovalRow | None:
        card = self.state.card(tool_use_id)
        return self._approvals.get(card.key) if card is not None else None

    def approval_answered(self, card: ToolCall, answer: Any, feedback: str) -> None:
        self.state.answer(card, answer, feedback)
        row = self._approvals.get(card.key)
        if row is not None:
            self.scheduler.budget.spend(row.disable())
        self.scheduler.mark(card.key)  # the card collapses to its line (see _sync_approval)
        self.scheduler.mark(STATUS_KEY)
        self.flush_now()  # the answer shows on the card at once

    def approval_cancelled(self, card: ToolCall) -> None:
        row = self._approvals.get(card.key)
        if row is not None and not self.finished:
            self.scheduler.budget.spend(row.disable())

    # --- the folder-trust question -------------------------------------------------------
    def show_trust_question(self, notice: Notice, deliver: Callable[[bool], object]) -> TrustRow:
        """Put the Trust / Don't trust buttons under ``notice`` (already in the state)."""
        self.flush_now()  # the notice's widget exists from here on
        widgets = self._widgets[notice.key]
        row = TrustRow(on_answer=deliver, shared=self._shared)
        outer = self._w.VBox(children=[widgets.content, row.box], layout=self._shared["layout"])
        self._widgets[notice.key] = _ItemWidgets(outer=outer, content=widgets.content, extra=row.widgets)
        self.scheduler.budget.spend((1 + TrustRow.WIDGETS) * WIDGET_COST)
        self._sync_children()
        return row

    # --- live output while the loop is blocked ----------------------------------------
    def push_live_output(self, tool_name: str, progress: dict[str, Any]) -> None:
        for card in reversed(self.state.cards):
            if card.name == tool_name and card.status == "running":
                card.progress = dict(progress)
                self.state.changed(card)
                self.scheduler.tick()
                return

