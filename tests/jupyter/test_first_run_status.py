"""While the first ``%%agent`` of a kernel waits for the warm-up's imports, its status line
names the real model and its clock keeps counting (issue 22: it read ``model · starting ·
0.1s``, frozen, until the request went out)."""

from __future__ import annotations

import re

from nb_agent.testing import Reply, text

CLOCK = re.compile(r"· ([\d.]+)s<")


def test_the_status_line_counts_with_the_real_model_while_the_imports_finish(make_kernel, model_server, tmp_path):
    kernel = make_kernel("first-run-status")
    gate = tmp_path / "imports-done"
    # The warm-up's real imports first, then a stand-in warm-up thread that ends when the
    # test says so: the cell waits for it as it waits for slow imports.
    setup = kernel.run(
        "%load_ext nb_agent\n"
        "import threading, time, pathlib\n"
        "from nb_agent.jupyter import warm\n"
        "from nb_agent.model.model_ids import main_model\n"
        "warm.start().join()\n"
        f"_gate = pathlib.Path({str(gate)!r})\n"
        "def _imports():\n"
        "    while not _gate.exists():\n"
        "        time.sleep(0.02)\n"
        "warm._thread = threading.Thread(target=_imports, daemon=True)\n"
        "warm._thread.start()\n"
        "print(main_model())"
    )
    assert setup.status == "ok", setup.errors
    model = setup.stdout.strip()
    model_server.script.add(Reply(content=[text("Hello.")]))
    sent_before = len(model_server.requests)
    run = kernel.start("%%agent\nSay hello.")

    def clock_values() -> set[str]:
        return {m.group(1) for v in kernel.widgets.values if len(v) < 80 for m in CLOCK.finditer(v)}

    def counting_with_the_model() -> bool:
        named = any(model in v and "starting" in v for v in kernel.widgets.values)
        return named and len(clock_values()) >= 2

    kernel.wait_for(run, counting_with_the_model)
    assert len(model_server.requests) == sent_before  # still waiting for the imports
    gate.touch()
    finished = kernel.wait(run)
    assert finished.status == "ok", finished.errors
    assert any("Hello." in v for v in kernel.widgets.values) or "Hello." in str(finished.final_bundle)
