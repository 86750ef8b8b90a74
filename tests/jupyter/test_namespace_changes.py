"""Between runs, the model is told which variables the user's code added, changed or deleted."""

from __future__ import annotations

from nb_agent.testing import Reply, text, tool_use

NOTE = "Since your last turn the user's code changed the kernel's variables:"


def _attached(request):
    return "\n".join(str(block) for message in request["messages"] for block in (message["content"] if isinstance(message["content"], list) else [message["content"]]))


def test_new_changed_and_deleted_variables_since_the_last_run(kernel, requests_since):
    kernel.run("import pandas as pd\nns_keep = 1\nns_retype = 2\nns_rebind = [1]\nns_gone = 3")
    kernel.server.script.add(
        Reply(content=[tool_use("ExecuteCode", {"code": "ns_by_agent = 41"})]),
        Reply(content=[text("first")]),
    )
    first = kernel.run("%%agent --permission-mode bypassPermissions\nmake a variable")
    assert first.status == "ok", first.errors
    kernel.run("ns_frame = pd.DataFrame({'price': [1.0], 'qty': [2]})\nns_retype = 'two'\nns_rebind = [1]\ndel ns_gone")
    kernel.server.script.add(Reply(content=[text("second")]))
    second = kernel.run("%%agent\nwhat changed?")
    assert second.status == "ok", second.errors
    requests = requests_since()
    assert NOTE not in _attached(requests[0])  # the first run has nothing to compare with
    sent = _attached(requests[-1])
    note = sent[sent.rindex(NOTE) :].split("</system-reminder>")[0]
    assert "ns_frame: pandas.DataFrame" in note and "columns price, qty" in note
    assert "ns_retype: str" in note and "(was int)" in note
    assert "ns_rebind: list" in note and "(reassigned)" in note
    assert "Deleted variables" in note and "ns_gone" in note
    assert "ns_keep" not in note and "ns_by_agent" not in note  # unchanged, and the agent's own


def test_the_note_is_bounded(kernel, requests_since):
    kernel.server.script.add(Reply(content=[text("first")]))
    kernel.run("%%agent\nhello")
    kernel.run("for many_i in range(50):\n    globals()[f'many_{many_i}'] = 'x' * 500\ndel many_i")
    kernel.server.script.add(Reply(content=[text("second")]))
    kernel.run("%%agent\nagain")
    sent = _attached(requests_since()[-1])
    note = sent[sent.rindex(NOTE) :].split("</system-reminder>")[0]
    assert "New variables (and 40 more):" in note
    assert len(note) < 2_500
