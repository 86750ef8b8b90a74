"""The comm targets and protocol version (kept apart so ``%load_ext`` imports nothing heavy)."""

TARGET_NAME = "nb_agent.live"
"""Comm target the extension opens (one comm per notebook page)."""
HELLO_TARGET_NAME = "nb_agent.live.hello"
"""Comm target the kernel opens when nb_agent loads: pages then open their own comm."""
PROTOCOL_VERSION = 1
WIDGETS_VERSION = 1
"""The version of the extension's widgets (``StreamText``, ``PageClock``: appended text and a
clock the page ticks) a page announces in its ``hello`` when it registered them with its
widget manager; the kernel shows a run with them only when every connected page has them."""
WIDGET_MODULE = "nb-agent-live"
"""The widget module name the extension registers them under (with version ``WIDGETS_VERSION.0.0``)."""

__all__ = ["HELLO_TARGET_NAME", "PROTOCOL_VERSION", "TARGET_NAME", "WIDGETS_VERSION", "WIDGET_MODULE"]
