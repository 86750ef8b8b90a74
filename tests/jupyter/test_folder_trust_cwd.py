"""Folder trust when the kernel's cwd moves: an answer for the agent's folder never applies
another folder's files (``%cd`` into a cloned repository, then ``%agent trust``)."""

from __future__ import annotations

import json

from nb_agent.testing import Reply, text

from .test_folder_trust import _fired, _hostile_folder


def test_trusting_the_agents_folder_after_a_cd_does_not_use_the_new_cwds_files(make_kernel):
    kernel = make_kernel("trust-cd")
    (kernel.cwd / ".claude").mkdir()
    (kernel.cwd / ".claude" / "settings.json").write_text(json.dumps({"permissions": {"allow": ["Read"]}}))
    cloned = kernel.cwd / "cloned"
    cloned.mkdir()
    markers = _hostile_folder(cloned)  # a UserPromptSubmit hook and an allow rule
    assert kernel.run("%load_ext nb_agent\n%config AgentMagics.render = 'static'").status == "ok"
    kernel.server.script.add(Reply(content=[text("One.")]))
    assert kernel.run("%%agent\nhello", timeout=60).status == "ok"  # untrusted (headless), in the kernel's folder

    assert kernel.run("%cd cloned").status == "ok"
    trusted = kernel.run("%agent trust")
    assert trusted.status == "ok", trusted.errors
    hooks = kernel.run("%agent hooks").stdout
    assert str(markers) not in hooks, hooks
    status = kernel.run("%agent status").stdout
    assert "trust      trusted" in status and "cloned" not in status.split("trust      ", 1)[1].splitlines()[0], status

    kernel.server.script.add(Reply(content=[text("Two.")]))
    assert kernel.run("%%agent\nhello again", timeout=60).status == "ok"
    assert _fired(markers) == 0
