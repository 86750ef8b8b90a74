"""Paths this process registered as secrets for every sandboxed command to be denied.

Kept apart from the sandbox package (stdlib only) so ``%load_ext nb_agent`` can register
the kernel's connection file without importing the engine.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["register_secret", "registered_secrets"]

_registered: list[Path] = []


def register_secret(path: Path) -> None:
    """Hide ``path`` from every sandboxed command of this process (the Jupyter layer
    registers the kernel's own connection file, wherever its frontend put it)."""
    if path not in _registered:
        _registered.append(path)


def registered_secrets() -> list[Path]:
    return list(_registered)
