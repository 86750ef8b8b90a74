"""Showing a live view again to a page that lost some of its messages.

A kernel websocket that closes (JupyterHub's proxy closes idle ones; a gateway reconnects)
loses the messages in flight: a card's new state, an approval's buttons, a new card's
widgets. JupyterLab reconnects, but the page's widgets keep the state they had when the
socket closed (seen through Kernel Gateway: a card answered meanwhile still showed its
Allow, the next card never came; tests/browser/test_gateway.py fails without this). So when
the page says it lacks messages (the live notebook's ``resume``), every widget of the view
is opened again, with its current state and the same id (``comm_open`` for a known id makes
the page build a fresh model for it), the widgets a parent names before the parent, and the
view is shown again under its display id, so the page draws it from those models: the state
the kernel has, the buttons that answer.
"""

from __future__ import annotations

from typing import Any


def widget_tree(root: Any) -> list[Any]:
    """Every widget ``root`` refers to through its traits (children, layout, style...),
    each once, each after the widgets it refers to, ``root`` last."""
    from ipywidgets import Widget

    ordered: list[Any] = []
    seen: set[str] = set()

    def visit(widget: Any) -> None:
        if widget.model_id in seen:
            return
        seen.add(widget.model_id)
        for key in widget.keys:
            value = getattr(widget, key, None)
            for item in value if isinstance(value, (list, tuple)) else (value,):
                if isinstance(item, Widget) and item.comm is not None:
                    visit(item)
        ordered.append(widget)

    visit(root)
    return ordered


def reopen(widgets: list[Any]) -> int:
    """Send each widget's ``comm_open`` again with its current state; returns how many."""
    from ipywidgets import __protocol_version__

    sent = 0
    for widget in widgets:
        comm = widget.comm
        state = widget.get_state()
        if comm is None or any(isinstance(v, (bytes, bytearray, memoryview)) for v in state.values()):
            continue  # closed, or binary state (no widget of a view has any)
        comm.open(data={"state": state, "buffer_paths": []}, metadata={"version": __protocol_version__})
        sent += 1
    return sent


__all__ = ["reopen", "widget_tree"]
