"""A kernel restarted while a run waits for an approval: before it goes, the cell's live view
is replaced by the run's static rendering so far, saying it was stopped by a kernel restart
and pointing to ``%agent resume``; in the new kernel ``%agent resume`` brings the
conversation back."""

from __future__ import annotations

import json

from nb_agent.jupyter.kernel_restart import LIVE_VIEW_TEXT
from nb_agent.testing import Reply, text, tool_use


def test_restart_during_an_approval_leaves_the_partial_answer_and_says_how_to_go_on(make_kernel):
    harness = make_kernel("restart")
    assert harness.run("%load_ext nb_agent").status == "ok"
    harness.server.script.add(
        Reply(content=[text("First I look at the folder."), tool_use("Bash", {"command": "touch made_by_agent"})]),
        Reply(content=[text("Resumed: where were we?")]),
    )
    run = harness.start("%%agent\nclean up the folder")
    harness.wait_for(run, lambda: harness.button("Allow") is not None, timeout=60)
    (shown,) = run.of_type("display_data")
    assert shown["content"]["data"]["text/plain"] == LIVE_VIEW_TEXT  # what a killed kernel leaves
    display_id = shown["content"]["transient"]["display_id"]
    # the update comes from the thread handling the shutdown request: the page matches it to
    # the cell by its display id, whatever message it answers
    updates: list[dict] = []
    harness.observers.append(lambda m: updates.append(m) if m["msg_type"] == "update_display_data" and m["content"]["transient"].get("display_id") == display_id else None)
    harness.km.restart_kernel(now=False)  # as Jupyter does: shutdown_request first, then a new process
    harness.wait_for(run, lambda: bool(updates), timeout=30)  # the old kernel's last words, still in the iopub queue
    harness.kc.wait_for_ready(timeout=60)  # (it empties the iopub queue: read it first)
    final = updates[-1]["content"]["data"]
    for form in ("text/markdown", "text/plain", "text/html"):
        assert "First I look at the folder." in final[form] and "Stopped by a kernel restart" in final[form] and "%agent resume" in final[form]
    assert "Bash" in final["text/plain"] and "interrupted" in final["text/plain"]
    assert not (harness.cwd / "made_by_agent").exists()
    harness.widgets = type(harness.widgets)()
    assert harness.run("%load_ext nb_agent").status == "ok"
    resumed = harness.run("%agent resume")
    assert resumed.status == "ok", resumed.errors
    assert "Resumed session" in resumed.stdout
    follow = harness.run("%%agent\ngo on")
    assert follow.status == "ok", follow.errors
    request = json.dumps(harness.server.requests[-1]["messages"])
    assert "clean up the folder" in request  # the conversation came back
