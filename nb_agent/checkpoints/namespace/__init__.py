"""Namespace checkpoints: what each ExecuteCode call changed in the user's variables, kept
so the calls can be undone (within a memory budget)."""

from __future__ import annotations

from nb_agent.checkpoints.namespace.code_scan import CodeScan, scan_code
from nb_agent.checkpoints.namespace.lines import call_lines
from nb_agent.checkpoints.namespace.records import ABSENT, CallRecord, Held, NameChange, Proof
from nb_agent.checkpoints.namespace.restore import NamespaceOutcome, NamespacePlan, apply_plan, apply_redo, plan_rewind
from nb_agent.checkpoints.namespace.tracker import NamespaceTracker, PendingCall

__all__ = [
    "ABSENT",
    "CallRecord",
    "CodeScan",
    "Held",
    "NameChange",
    "NamespaceOutcome",
    "NamespacePlan",
    "NamespaceTracker",
    "PendingCall",
    "Proof",
    "apply_plan",
    "apply_redo",
    "call_lines",
    "plan_rewind",
    "scan_code",
]
