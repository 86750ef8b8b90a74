"""After a kernel restart: %agent rewind says what it can no longer do; once the session is
resumed, its files and conversation are rewound (not its variables: they went with the old
kernel), and it says so."""

from __future__ import annotations

from nb_agent.testing import Reply, text, tool_use


def test_rewind_after_a_restart(make_kernel):
    kernel = make_kernel("restart")
    assert kernel.run("%load_ext nb_agent").status == "ok"
    kernel.server.script.add(
        Reply(content=[tool_use("ExecuteCode", {"code": "rs_made = 1\nopen('rs_notes.txt', 'w').write('agent')"})]),
        Reply(content=[text("Done.")]),
    )
    # generous: only tells a slow first run on a loaded machine from one that never ends
    run = kernel.run("%%agent --permission-mode bypassPermissions\nmake notes", timeout=300)
    assert run.status == "ok", run.errors
    assert (kernel.cwd / "rs_notes.txt").exists()
    kernel.restart()
    fresh = kernel.run("%agent rewind").stdout
    assert "Nothing to rewind: no %%agent run in this kernel yet. After a kernel restart, %agent resume" in fresh
    assert (kernel.cwd / "rs_notes.txt").exists()
    resumed = kernel.run("%agent resume", timeout=300)
    assert resumed.status == "ok" and "Resumed session" in resumed.stdout, resumed.stdout
    listed = kernel.run("%agent checkpoints").stdout
    assert '"make notes"' in listed and "made in another kernel" in listed
    report = kernel.run("%agent rewind", timeout=300).stdout
    assert "files: rs_notes.txt removed" in report, report
    assert "variables and notebook edits: not restorable (this checkpoint was made in another kernel" in report
    assert "conversation: back to before run 1" in report
    assert not (kernel.cwd / "rs_notes.txt").exists()
