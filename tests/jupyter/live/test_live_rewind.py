"""Rewinding a live run: its notebook edits are reverted by the page (a cell the user changed
since is kept), together with the variables and the conversation; the run card's button
asks for a preview and then rewinds; a redo applies the edits again; an interrupt while
the kernel waits for the page leaves the rest rewound and says so."""

from __future__ import annotations

import copy
import types

from nb_agent.jupyter.rewind_card import REWIND_MIME
from nb_agent.testing import Reply, text, tool_use


def _edit_and_compute(case, kernel, page, name: str):
    a, b = case.cells[0]["id"], case.cells[1]["id"]
    kernel.server.script.add(
        Reply(content=[tool_use("Read", {"file_path": str(case.path)})]),
        Reply(content=[tool_use("NotebookEdit", {"notebook_path": str(case.path), "cell_id": a, "new_source": "# Setup", "cell_type": "markdown", "edit_mode": "insert"})]),
        Reply(content=[tool_use("NotebookEdit", {"notebook_path": str(case.path), "cell_id": b, "new_source": "x = 42"})]),
        Reply(content=[tool_use("ExecuteCode", {"code": f"{name} = [1, 2, 3]"})]),
        Reply(content=[text("Done.")]),
    )
    run = case.run_agent(page, f"tidy up and make {name}", options="--permission-mode bypassPermissions")
    assert run.status == "ok", run.errors
    cards = [m["content"]["data"][REWIND_MIME] for m in run.of_type("display_data") if REWIND_MIME in m["content"]["data"]]
    assert len(cards) == 1
    return cards[0]


def _sources(cells):
    return [(c["id"], c["cell_type"], c["source"]) for c in cells if not c.get("metadata", {}).get("nb_agent")]


def _pump(kernel, until, timeout=60):
    """Read iopub (feeding the fake page) until ``until()`` holds: no cell runs meanwhile."""
    kernel.wait_for(types.SimpleNamespace(msg_id="", messages=[]), until, timeout=timeout)


def test_rewind_reverts_the_runs_edits_through_the_page(live_case, requests_since):
    case, kernel = live_case, live_case.kernel
    page = case.page()
    before = copy.deepcopy(page.cells)
    card = _edit_and_compute(case, kernel, page, "lr_made")
    assert card["changes"] and any(c.startswith("notebook: ") for c in card["changes"])
    assert page.cells[1]["source"] == "# Setup"  # inserted after the first cell
    rewound = kernel.run("%agent rewind")
    assert rewound.status == "ok", rewound.errors
    assert "reverted inserted markdown cell" in rewound.stdout, rewound.stdout
    page.find(case.agent_id)["source"] = before[2]["source"]
    assert _sources(page.cells) == _sources(before)  # the agent's code cells are gone too
    out = kernel.run("print('lr_made' in globals())")
    assert out.stdout.strip() == "False"
    kernel.server.script.add(Reply(content=[text("ok")]))
    run = case.run_agent(page, "and now?")
    assert run.status == "ok", run.errors
    notes = "\n".join(b["text"] for b in requests_since()[-1]["messages"][-1]["content"] if b.get("type") == "text")
    assert "tidy up and make lr_made" not in str(requests_since()[-1]["messages"])
    header = "Since your last turn the user changed the notebook:"
    user_changes = notes.split(header, 1)[1].split("</system-reminder>")[0] if header in notes else ""
    assert "The user reverted" not in notes and case.cells[1]["id"] not in user_changes  # the rewind's revert is not the user's change


def test_a_cell_the_user_changed_after_the_run_is_kept_and_a_redo_applies_the_edits_again(live_case):
    case, kernel = live_case, live_case.kernel
    page = case.page()
    _edit_and_compute(case, kernel, page, "lk_made")
    b = case.cells[1]["id"]
    page.find(b)["source"] = "x = 43  # the user's fix"
    report = kernel.run("%agent rewind").stdout
    assert f"kept: replaced cell {b} — cell {b} was changed after the agent's edit, so it was left as it is" in report, report
    assert page.find(b)["source"].startswith("x = 43") and page.ids()[0] == case.cells[0]["id"]
    first = next(m for m in page.received if m.get("type") == "edit")
    redone = kernel.run("%agent rewind --redo").stdout
    assert "notebook: applied again inserted markdown cell" in redone, redone
    assert page.cells[1]["source"] == "# Setup"
    again = [m for m in page.received if m.get("type") == "edit" and m.get("redo_of")]
    earlier = {m["edit_id"] for m in page.received if m.get("type") == "edit" and not m.get("redo_of")}
    assert again[0]["redo_of"] == first["edit_id"] and {m["redo_of"] for m in again} <= earlier  # the card tells each applied again
    # made without asking, so marked for review: applied again, they are marked again
    review = {m["edit_id"]: m["review"] for m in page.received if m.get("type") == "edit" and not m.get("redo_of")}
    assert any(review.values()) and all(m["review"] == review[m["redo_of"]] for m in again), (review, again)
    assert not {m["edit_id"] for m in again} & earlier
    assert kernel.run("print(lk_made)").stdout.strip() == "[1, 2, 3]"


def test_the_run_cards_button_previews_then_rewinds(live_case):
    case, kernel = live_case, live_case.kernel
    page = case.page()
    card = _edit_and_compute(case, kernel, page, "lb_made")
    page.ask_rewind("preview", card["checkpoint_id"], "a run of another conversation")
    _pump(kernel, lambda: len(page.rewind_replies) == 1)
    assert "belongs to another one" in page.rewind_replies[0]["error"]
    page.ask_rewind("preview", card["checkpoint_id"], card["prompt"])
    _pump(kernel, lambda: len(page.rewind_replies) == 2)
    preview = page.rewind_replies[1]
    assert preview["error"] is None and "variables: lb_made: removed (the agent created it)" in preview["lines"], preview
    assert any(line.startswith("notebook: revert inserted markdown cell") for line in preview["lines"])
    assert kernel.run("print('lb_made' in globals() and 'still here')").stdout.strip() == "still here"  # a preview changes nothing
    page.ask_rewind("rewind", card["checkpoint_id"], card["prompt"])
    _pump(kernel, lambda: len(page.rewind_replies) == 3)
    done = page.rewind_replies[2]
    assert done["error"] is None and done["lines"][0].startswith("Rewound to before run"), done
    assert kernel.run("print('lb_made' in globals())").stdout.strip() == "False"
    assert page.ids()[0] == case.cells[0]["id"]


def test_an_interrupt_while_waiting_for_the_page_leaves_the_rest_rewound(live_case):
    case, kernel = live_case, live_case.kernel
    page = case.page()
    _edit_and_compute(case, kernel, page, "li_made")
    page.answer_reverts = False  # a page that never answers
    execution = kernel.start("%agent rewind")
    kernel.wait_for(execution, lambda: any(m.get("type") == "revert" for m in page.received))
    kernel.interrupt()
    kernel.wait(execution)
    assert "Rewind interrupted" in execution.stdout, execution.stdout
    assert kernel.run("print('li_made' in globals())").stdout.strip() == "False"  # the variables were rewound with the rest
    assert "Checkpoints of this conversation" in kernel.run("%agent checkpoints").stdout  # and the kernel goes on
