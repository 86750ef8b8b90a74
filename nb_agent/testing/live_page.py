"""A fake notebook page for the live-notebook comm (``labextension/PROTOCOL.md``).

It speaks the protocol over a real kernel connection (a ``jupyter_client`` client): opens
its comm, sends snapshots before ``%%agent`` cells, applies the kernel's edits to its own
cells with the same checks as the extension, and acknowledges them (at once, or later when
``defer_acks`` is set, as a kernel that handles browser messages only after the cell would).
Like the extension's inbox it handles each numbered message once and in order, and asks to
resume on a gap; ``lose`` drops messages as a closing websocket does.
Feed it every iopub message the test reads (:meth:`feed`).
"""

from __future__ import annotations

import copy
import uuid
from dataclasses import dataclass, field
from typing import Any

TARGET_NAME = "nb_agent.live"


class _Refused(Exception):
    def __init__(self, code: str, cell_id: str | None, message: str) -> None:
        super().__init__(message)
        self.detail = {"code": code, "cell_id": cell_id, "message": message}


def cell(source: str, *, cell_type: str = "code", id: str | None = None, execution_count: int | None = None, outputs: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """A cell as a page reports it."""
    return {
        "id": id or uuid.uuid4().hex[:8],
        "cell_type": cell_type,
        "source": source,
        "execution_count": execution_count,
        "outputs": outputs or [],
        "metadata": {},
        "running": False,
    }


@dataclass
class FakeLivePage:
    client: Any
    """A started ``jupyter_client`` kernel client."""
    notebook_path: str
    cells: list[dict[str, Any]]
    frontend: str = "fake page"
    server_root: str | None = None
    """The Jupyter server's root folder the page reports (``None``: an older page that does not)."""
    widgets: int = 0
    """The version of the extension's widgets the page says it registered (``hello``'s
    ``widgets``; 0: none). With it the kernel shows runs with them (appended text); a test
    or a bench that announces it reads those widgets' messages, as a page's manager would."""
    comm_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    editing_cell_id: str | None = None
    defer_acks: bool = False
    applied: list[str] = field(default_factory=list)
    refused: list[dict[str, Any]] = field(default_factory=list)
    received: list[dict[str, Any]] = field(default_factory=list)
    run_active: bool = False
    answer_reverts: bool = True
    """Answer the kernel's ``revert`` (False: a page that applies nothing and never answers)."""
    rewind_replies: list[dict[str, Any]] = field(default_factory=list)
    card_facts: list[dict[str, Any]] = field(default_factory=list)
    """The kernel's ``card_facts`` answers, in order."""
    last_seq: int = 0
    """The last numbered kernel message handled (the extension's inbox)."""
    lose: list[str] = field(default_factory=list)
    """Drop the next kernel messages of these types, in this order, as a websocket that closes
    loses what is in flight (by type, not count: what arrives before them is not the test's to time)."""
    lost: list[dict[str, Any]] = field(default_factory=list)
    gaps: int = 0
    """Messages that arrived after a missing one (each makes the page ask to resume)."""
    _seq: int = 0
    _held: list[dict[str, Any]] = field(default_factory=list)
    _acks: dict[str, dict[str, Any]] = field(default_factory=dict)

    # --- sending ----------------------------------------------------------------------------
    def _send(self, msg_type: str, content: dict[str, Any]) -> None:
        self.client.shell_channel.send(self.client.session.msg(msg_type, content))

    def snapshot(self, reason: str = "execute", executing_cell_id: str | None = None, request_id: str | None = None) -> dict[str, Any]:
        self._seq += 1
        return {
            "type": "snapshot",
            "seq": self._seq,
            "reason": reason,
            "request_id": request_id,
            "notebook_path": self.notebook_path,
            "executing_cell_id": executing_cell_id,
            "active_cell_id": executing_cell_id,
            "editing_cell_id": self.editing_cell_id,
            "dirty": True,
            "nbformat": 4,
            "nbformat_minor": 5,
            "language": "python",
            "cells": copy.deepcopy(self.cells),
        }

    def open(self, *, executing_cell_id: str | None = None) -> None:
        hello = {"type": "hello", "protocol": 1, "frontend": self.frontend, "notebook_path": self.notebook_path}
        if self.server_root is not None:
            hello["server_root"] = self.server_root
        if self.widgets:
            hello["widgets"] = self.widgets
        hello["snapshot"] = self.snapshot("execute" if executing_cell_id else "open", executing_cell_id)
        self._send("comm_open", {"comm_id": self.comm_id, "target_name": TARGET_NAME, "data": hello})

    def before_agent_cell(self, cell_id: str) -> None:
        """What the extension does right before the execute request of a ``%%agent`` cell."""
        self.send(self.snapshot("execute", cell_id))

    def send(self, data: dict[str, Any]) -> None:
        self._send("comm_msg", {"comm_id": self.comm_id, "data": data})

    def user_edits(self, cell_id: str, source: str) -> None:
        """The user changes a cell (and, during a run, the page reports it)."""
        self.find(cell_id)["source"] = source
        if self.run_active:
            self.send(self.snapshot("change"))

    def resume(self) -> None:
        """What the extension sends when its websocket came back, or on a gap."""
        snapshot = self.snapshot("change") if self.run_active else None
        self.send({"type": "resume", "last_seq": self.last_seq, "acks": list(self._acks.values()), "snapshot": snapshot})

    def flush_acks(self) -> None:
        held, self._held = self._held, []
        for ack in held:
            self.send(ack)

    # --- receiving ----------------------------------------------------------------------------
    def feed(self, message: dict[str, Any]) -> None:
        if message.get("msg_type") != "comm_msg" or message["content"].get("comm_id") != self.comm_id:
            return
        data = message["content"].get("data") or {}
        if self.lose and data.get("type") == self.lose[0]:
            self.lose.pop(0)
            self.lost.append(data)
            return
        seq = data.get("seq")
        if isinstance(seq, int):
            if seq <= self.last_seq:  # handled already: acknowledge an edit again
                if data.get("type") == "edit" and data.get("edit_id") in self._acks and not self.defer_acks:
                    self.send(self._acks[data["edit_id"]])
                return
            if seq > self.last_seq + 1:
                self.gaps += 1
                self.resume()
                return
            self.last_seq = seq
        self.received.append(data)
        kind = data.get("type")
        if kind == "edit":
            self._on_edit(data)
        elif kind == "run":
            self.run_active = data.get("phase") == "start"
        elif kind == "request_snapshot" and not self.defer_acks:
            self.send(self.snapshot("request", request_id=data.get("request_id")))
        elif kind == "revert" and self.answer_reverts:
            reverted, refused, ops = self._revert(data["edits"])
            self.send({"type": "reverted", "revert_id": data["revert_id"], "run_id": data.get("run_id"), "edit_ids": reverted, "ops": ops,
                       "refused": [{"edit_id": r.pop("edit_id"), "error": r} for r in refused]})  # fmt: skip
        elif kind == "rewind_reply":
            self.rewind_replies.append(data)
        elif kind == "card_facts":
            self.card_facts.append(data)

    def ask_rewind(self, action: str, checkpoint_id: str, prompt: str = "") -> str:
        """What the run card's button sends; returns the request id (the reply lands in
        :attr:`rewind_replies`)."""
        request_id = uuid.uuid4().hex
        self.send({"type": "rewind_request", "request_id": request_id, "action": action, "checkpoint_id": checkpoint_id, "prompt": prompt})
        return request_id

    def check_card(self, run_id: str) -> str:
        """What the extension sends for an edits card it does not trust; returns the request
        id (the answer lands in :attr:`card_facts`)."""
        request_id = uuid.uuid4().hex
        self.send({"type": "card_check", "request_id": request_id, "run_id": run_id})
        return request_id

    def ask_heard(self) -> str:
        """Send a message the kernel answers (a card check of no run): the kernel handles a
        page's messages in order, so once :meth:`heard` holds for the returned id it has
        handled everything this page sent before (an event to wait for, not a delay)."""
        return self.check_card("")

    def heard(self, request_id: str) -> bool:
        """The kernel has answered :meth:`ask_heard`'s message ``request_id``."""
        return any(facts.get("request_id") == request_id for facts in self.card_facts)

    def _on_edit(self, edit: dict[str, Any]) -> None:
        try:
            self._check(edit)
        except _Refused as refused:
            self.refused.append(refused.detail)
            ack = {"type": "ack", "edit_id": edit["edit_id"], "ok": False, "error": refused.detail}
        else:
            for op in edit["ops"]:
                self._apply(op)
            self.applied.append(edit["edit_id"])
            ack = {"type": "ack", "edit_id": edit["edit_id"], "ok": True, "error": None}
        self._acks[edit["edit_id"]] = ack
        if self.defer_acks:
            self._held.append(ack)
        else:
            self.send(ack)

    def revert(self, card: dict[str, Any], *, tell_kernel: bool = True) -> tuple[list[str], list[dict[str, Any]]]:
        """What the edits card's "Revert this run's edits" does (``card``: the
        ``application/vnd.nb-agent.edits+json`` data): each edit's ``revert`` operations,
        newest edit first, each checked like an edit; then the page tells the kernel what it
        reverted (``tell_kernel``; an older page did not). Returns (reverted ids, refusals)."""
        reverted, refused, applied_ops = self._revert(card["edits"])
        if reverted and tell_kernel:
            self.send({"type": "reverted", "run_id": card.get("run_id"), "edit_ids": reverted, "ops": applied_ops})
        return reverted, refused

    def _revert(self, edits: list[dict[str, Any]]) -> tuple[list[str], list[dict[str, Any]], list[dict[str, Any]]]:
        """``edits`` (oldest first) reverted newest first, each checked like an edit."""
        reverted, refused, applied_ops = [], [], []
        for record in reversed(edits):
            if not record["revert"]:
                continue
            try:
                self._check({"ops": record["revert"]})
            except _Refused as refusal:
                refused.append({"edit_id": record["edit_id"], **refusal.detail})
                continue
            for op in record["revert"]:
                self._apply(op)
            applied_ops += record["revert"]
            reverted.append(record["edit_id"])
        return reverted, refused, applied_ops

    # --- the document -------------------------------------------------------------------------
    def ids(self) -> list[str]:
        return [c["id"] for c in self.cells]

    def find(self, cell_id: str) -> dict[str, Any]:
        return next(c for c in self.cells if c["id"] == cell_id)

    def _index(self, ids: list[str], cell_id: str) -> int:
        if cell_id not in ids:
            raise _Refused("missing", cell_id, f"Cell {cell_id} is not in the notebook.")
        return ids.index(cell_id)

    def _move_target(self, ids: list[str], op: dict[str, Any]) -> int:
        """Where a moved cell goes in ``ids`` (which no longer hold it)."""
        if op.get("before_cell_id") is not None:
            return self._index(ids, op["before_cell_id"])
        return 0 if op["after_cell_id"] is None else self._index(ids, op["after_cell_id"]) + 1

    def _check(self, edit: dict[str, Any]) -> None:
        ids = self.ids()
        guarded = set(edit.get("guard_cell_ids") or [])
        for op in edit["ops"]:
            kind = op["op"]
            if kind == "insert":
                if op["cell"]["id"] in ids:
                    raise _Refused("invalid", op["cell"]["id"], f"Cell id {op['cell']['id']} already exists.")
                at = 0 if op["after_cell_id"] is None else self._index(ids, op["after_cell_id"]) + 1
                ids.insert(at, op["cell"]["id"])
                continue
            index = self._index(ids, op["cell_id"])
            if op["cell_id"] in self.ids():
                current = self.find(op["cell_id"])
                if op["cell_id"] in guarded or current.get("running"):
                    raise _Refused("running", op["cell_id"], f"Cell {op['cell_id']} is running.")
                if kind in ("replace", "delete", "move"):
                    if self.editing_cell_id == op["cell_id"]:
                        raise _Refused("editing", op["cell_id"], "The user is editing it.")
                    expected = op.get("expected_source")
                    if isinstance(expected, str) and current["source"] != expected:
                        raise _Refused("changed", op["cell_id"], "Changed since read.")
            if kind == "delete":
                ids.pop(index)
            elif kind == "move":
                ids.pop(index)
                ids.insert(self._move_target(ids, op), op["cell_id"])

    def _apply(self, op: dict[str, Any]) -> None:
        kind = op["op"]
        if kind == "replace":
            target = self.find(op["cell_id"])
            target["source"] = op["source"]
            target["cell_type"] = op.get("cell_type") or target["cell_type"]
            target["outputs"], target["execution_count"] = [], None
        elif kind == "insert":
            new = cell(op["cell"]["source"], cell_type=op["cell"]["cell_type"], id=op["cell"]["id"])
            new["metadata"] = op["cell"].get("metadata") or {}
            new["outputs"] = op["cell"].get("outputs") or []
            new["execution_count"] = op["cell"].get("execution_count")
            at = 0 if op["after_cell_id"] is None else self.ids().index(op["after_cell_id"]) + 1
            self.cells.insert(at, new)
        elif kind == "delete":
            self.cells.pop(self.ids().index(op["cell_id"]))
        elif kind == "move":
            moved = self.cells.pop(self.ids().index(op["cell_id"]))
            self.cells.insert(self._move_target(self.ids(), op), moved)
        elif kind == "set_outputs":
            target = self.find(op["cell_id"])
            target["outputs"], target["execution_count"] = op.get("outputs") or [], op.get("execution_count")
