"""Widget updates sent while a cell awaits get their ``idle`` status, as ipywidgets' page side
needs to send the next one (``nb_agent.jupyter.comm_status``); a kernel without nb_agent
publishes none (the ipykernel 7.4 behaviour the shim answers: if this ever changes, the
shim must go, or the page would count two idles per update)."""

from __future__ import annotations

from collections import Counter

import pytest

SETUP = """
import asyncio, ipywidgets as w
box = w.Text()
done = asyncio.Event()
box.observe(lambda change: done.set() if change["new"] == "Kee" else None, names="value")
print(box.model_id)
"""
WAIT = "await asyncio.wait_for(done.wait(), 60)\nprint(repr(box.value))"


def _idles_for_updates_during_a_cell(harness) -> tuple[list[int], str]:
    setup = harness.run(SETUP)
    assert setup.status == "ok", setup.errors
    comm_id = setup.stdout.strip()
    idles: Counter[str] = Counter()

    def count(message) -> None:
        if message["msg_type"] == "status" and message["content"]["execution_state"] == "idle":
            idles[message["parent_header"].get("msg_id", "")] += 1

    harness.observers.append(count)
    try:
        cell = harness.start(WAIT)
        sent = []
        for value in ("K", "Ke", "Kee"):
            message = harness.kc.session.msg("comm_msg", {"comm_id": comm_id, "data": {"method": "update", "state": {"value": value}, "buffer_paths": []}})
            harness.kc.shell_channel.send(message)
            sent.append(message["header"]["msg_id"])
        harness.wait(cell)
        assert cell.status == "ok", cell.errors
        # an idle for the last update is published before the cell can resume, but read on
        # until this update's idle or the next command's reply: whichever shows up first
        harness.run("pass")
    finally:
        harness.observers.remove(count)
    return [idles[msg_id] for msg_id in sent], cell.stdout.strip()


def test_each_update_during_a_running_cell_gets_one_idle(kernel):
    counts, seen = _idles_for_updates_during_a_cell(kernel)
    assert seen == "'Kee'"
    assert counts == [1, 1, 1]


def test_without_nb_agent_the_kernel_publishes_none(make_kernel):
    counts, seen = _idles_for_updates_during_a_cell(make_kernel("plain"))
    assert seen == "'Kee'"
    assert counts == [0, 0, 0], "ipykernel now publishes status for concurrent comm messages: remove nb_agent.jupyter.comm_status"


@pytest.mark.parametrize("loaded", [True, False])
def test_an_update_to_an_idle_kernel_gets_exactly_ipykernels_own_idle(kernel, make_kernel, loaded):
    harness = kernel if loaded else make_kernel("idle")
    setup = harness.run(SETUP)
    comm_id = setup.stdout.strip()
    message = harness.kc.session.msg("comm_msg", {"comm_id": comm_id, "data": {"method": "update", "state": {"value": "x"}, "buffer_paths": []}})
    harness.kc.shell_channel.send(message)
    statuses: list[str] = []

    def record(m) -> None:
        if m["msg_type"] == "status" and m["parent_header"].get("msg_id") == message["header"]["msg_id"]:
            statuses.append(m["content"]["execution_state"])

    harness.observers.append(record)
    try:
        harness.run("pass")  # handled after the update (one shell, in order)
    finally:
        harness.observers.remove(record)
    assert statuses == ["busy", "idle"]
