"""The comm targets and protocol version (kept apart so ``%load_ext`` imports nothing heavy)."""

TARGET_NAME = "nb_agent.live"
"""Comm target the extension opens (one comm per notebook page)."""
HELLO_TARGET_NAME = "nb_agent.live.hello"
"""Comm target the kernel opens when nb_agent loads: pages then open their own comm."""
PROTOCOL_VERSION = 1

__all__ = ["HELLO_TARGET_NAME", "PROTOCOL_VERSION", "TARGET_NAME"]
