from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

import pytest

from nb_agent.checkpoints.namespace import CallRecord, NamespaceTracker, scan_code


def user_items(namespace: dict[str, Any]) -> list[tuple[str, Any]]:
    return [(k, v) for k, v in namespace.items() if not k.startswith("_") and k not in ("np", "pd")]


@pytest.fixture
def items() -> Callable[[dict[str, Any]], list[tuple[str, Any]]]:
    return user_items


@pytest.fixture
def run_call() -> Callable[[NamespaceTracker, dict[str, Any], str], CallRecord]:
    """One ExecuteCode-like call: scan, checkpoint, exec, compare."""

    def run(tracker: NamespaceTracker, namespace: dict[str, Any], code: str) -> CallRecord:
        pending = tracker.begin_call(user_items(namespace), scan_code(ast.parse(code)))
        exec(code, namespace)
        return tracker.end_call(pending, user_items(namespace))

    return run
