"""An interrupt while the run's first file checkpoint is being taken (a folder of many files
the first snapshot reads once): the run stops before its prompt joins the conversation,
nothing is half-recorded, and the kernel goes on."""

from __future__ import annotations

from nb_agent.testing import Reply, text


def test_an_interrupt_during_the_first_checkpoint(make_kernel):
    kernel = make_kernel("slow-checkpoint")
    for d in range(40):
        folder = kernel.cwd / f"d{d:02d}"
        folder.mkdir()
        for f in range(500):
            (folder / f"f{f:03d}.txt").write_text(f"{d} {f} " * 40)
    assert kernel.run("%load_ext nb_agent").status == "ok"
    store = kernel.cwd.parent / f"{kernel.cwd.name}-checkpoints"
    execution = kernel.start("%%agent --permission-mode bypassPermissions\nthe prompt that never ran")
    kernel.wait_for(execution, lambda: any(store.glob("*/nb_agent.lock")), timeout=120)
    kernel.interrupt()
    kernel.wait(execution, timeout=120)
    assert "interrupted" in str(execution.messages).lower()
    listed = kernel.run("%agent checkpoints").stdout
    assert "No checkpoints yet" in listed, listed
    kernel.server.script.add(Reply(content=[text("Hello.")]))
    start = len(kernel.server.requests)
    again = kernel.run("%%agent\nhello", timeout=300)
    assert again.status == "ok", again.errors
    assert "the prompt that never ran" not in str(kernel.server.requests[start]["messages"])
