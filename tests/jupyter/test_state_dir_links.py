"""In the kernel: a notebook folder whose ``.nb_agent/sessions`` links out of it does not get
nb_agent's transcripts written through the link; ``%agent status`` names where they went."""

from __future__ import annotations

from nb_agent.testing import Reply, text


def test_a_planted_sessions_link_is_not_followed(make_kernel):
    kernel = make_kernel("state-link")
    outside = kernel.cwd.parent / f"{kernel.cwd.name}-bashrc.d"
    outside.mkdir()
    (kernel.cwd / ".nb_agent").mkdir(exist_ok=True)
    (kernel.cwd / ".nb_agent" / "sessions").symlink_to(outside)
    assert kernel.run("%load_ext nb_agent\n%config AgentMagics.render = 'static'").status == "ok"
    kernel.server.script.add(Reply(content=[text("Done. $(touch /tmp/should-never-be-sourced)")]))
    assert kernel.run("%%agent\nhello", timeout=60).status == "ok"
    assert list(outside.iterdir()) == []
    status = kernel.run("%agent status").stdout
    assert "links outside" in status and "nb_agent-state-" in status, status
