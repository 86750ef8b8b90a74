"""A page that renders an edits card it does not trust (a collaborator's output, which reaches
it through the shared document) asks the kernel whether the card is its own: the kernel
answers with the run's card as it made it, or with nothing for a card it did not make."""

from __future__ import annotations

import json
import types

from nb_agent.jupyter.live.edits_card import EDITS_MIME
from nb_agent.testing import Reply, text, tool_use
from nb_agent.testing.live_page import FakeLivePage


def _answer(kernel, page, run_id):
    """Ask, and read iopub (feeding the pages) until the kernel's answer arrives."""
    request_id = page.check_card(run_id)
    answered = lambda: [f for f in page.card_facts if f["request_id"] == request_id]  # noqa: E731
    kernel.wait_for(types.SimpleNamespace(msg_id="", messages=[]), answered, timeout=60)
    return answered()[0]


def test_the_kernel_vouches_for_its_own_card_only(live_case):
    case, kernel = live_case, live_case.kernel
    first = case.page()
    kernel.server.script.add(
        Reply(content=[tool_use("Read", {"file_path": str(case.path)})]),
        Reply(content=[tool_use("NotebookEdit", {"notebook_path": str(case.path), "cell_id": case.cells[1]["id"], "new_source": "x = 42"})]),
        Reply(content=[text("Done.")]),
    )
    run = case.run_agent(first, "set x")
    assert run.status == "ok", run.errors
    card = next(m["content"]["data"][EDITS_MIME] for m in run.of_type("display_data") if EDITS_MIME in m["content"]["data"])
    second = case.page()  # another page on the same notebook (another user, another window)

    facts = _answer(kernel, second, card["run_id"])
    assert facts["type"] == "card_facts" and facts["run_id"] == card["run_id"]
    assert facts["card"] == card  # the kernel's own: the edits, their diffs and inverse operations

    made_up = _answer(kernel, second, "0" * 32)  # a card someone wrote into the shared document
    assert made_up["card"] is None

    other = FakeLivePage(kernel.kc, notebook_path="another.ipynb", cells=json.loads(json.dumps(case.cells)))
    kernel.observers.append(other.feed)
    case.pages.append(other)
    other.open()
    copied = _answer(kernel, other, card["run_id"])  # the card copied into another notebook
    assert copied["card"] is None
