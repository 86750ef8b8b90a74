"""Kernel memory over a long session and after ``%agent new``, in a real kernel.

A kernel (jupyter_client) loads nb_agent and talks to the fake Messages API server of
this process (its prompt-cache simulation reports realistic context sizes, so microcompact
clears old results as it would). ``--cells`` cells of 10 turns each (300 turns by default);
each turn is an ExecuteCode call printing 20 KB (nothing stays in the user's namespace).
Reported: the kernel's RSS (``/proc/PID/status``) at the baseline (after a warm-up cell
and ``%agent new``: every module loaded, an empty conversation), after the session, and
after ``%agent new``.

    python bench/kernel_memory.py [--cells 30]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from compare import main, module_of_this_tree

MODEL = "claude-sonnet-4-6"
TURNS_PER_CELL = 10
CODE = "print(('row,' * 10 + '\\n') * 400)"  # about 20 KB of output


class CodeModel:
    """Ten ExecuteCode calls per cell, then an answer; summarizes when asked."""

    def __init__(self, server: Any) -> None:
        self.server = server
        self.turn = 0
        self.in_cell = 0

    def __call__(self, body: dict[str, Any]) -> Any:
        from nb_agent.context.compact import SUMMARY_SYSTEM_PROMPT
        from nb_agent.testing import Reply, text, tool_use

        self.server.requests.clear()
        if body.get("system") == SUMMARY_SYSTEM_PROMPT:
            return Reply(content=[text(f"<summary>Printed {self.turn} tables.</summary>")], model=MODEL)
        last = body["messages"][-1]["content"]
        if any(b.get("type") == "text" and "cell " in b.get("text", "") for b in last):
            self.in_cell = 0
        if self.in_cell < TURNS_PER_CELL:
            self.in_cell += 1
            self.turn += 1
            return Reply(content=[tool_use("ExecuteCode", {"code": CODE, "description": f"table {self.turn}"})], model=MODEL)
        return Reply(content=[text(f"Printed {self.turn} tables.")], model=MODEL)


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def _execute(kc: Any, code: str, timeout: float = 600) -> str:
    msg_id = kc.execute(code)
    while True:
        reply = kc.get_shell_msg(timeout=timeout)
        if reply["parent_header"].get("msg_id") == msg_id:
            return reply["content"]["status"]


def _drain(kc: Any) -> None:
    while True:
        try:
            kc.get_iopub_msg(timeout=0.2)
        except Exception:  # noqa: BLE001 - queue.Empty: nothing left
            return


def _settle(kc: Any, pid: int) -> float:
    """RSS once the kernel is idle (two readings a second apart agree within 1 MB)."""
    _drain(kc)
    previous = _rss_mb(pid)
    for _ in range(10):
        time.sleep(1.0)
        now = _rss_mb(pid)
        if abs(now - previous) < 1.0:
            return now
        previous = now
    return previous


def measure(args: argparse.Namespace) -> dict[str, Any]:
    from jupyter_client import KernelManager
    from jupyter_client.kernelspec import KernelSpecManager

    from nb_agent.testing import FakeAnthropicServer

    simulator = module_of_this_tree("nb_agent/testing/prompt_cache.py").PromptCacheSimulator()
    with tempfile.TemporaryDirectory() as tmp, FakeAnthropicServer([], prompt_cache=simulator) as server:
        workdir = Path(tmp)
        model = CodeModel(server)
        server.script.add(*[model] * (args.cells * (TURNS_PER_CELL + 3) + 20))
        spec_dir = workdir / "kernels" / "nb-agent-bench"
        spec_dir.mkdir(parents=True)
        argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
        (spec_dir / "kernel.json").write_text(json.dumps({"argv": argv, "display_name": "bench", "language": "python"}))
        km = KernelManager(kernel_name="nb-agent-bench", kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(spec_dir.parent)]))
        env = dict(os.environ, ANTHROPIC_BASE_URL=server.base_url, ANTHROPIC_API_KEY="test", NB_AGENT_MODEL=MODEL)
        km.start_kernel(env=env, cwd=str(workdir))
        kc = km.client()
        kc.start_channels()
        try:
            kc.wait_for_ready(timeout=60)
            pid = km.provisioner.pid
            assert _execute(kc, "%load_ext nb_agent") == "ok"
            assert _execute(kc, "%%agent --allow ExecuteCode\ncell warm-up: print a table") == "ok"
            assert _execute(kc, "%agent new") == "ok"
            baseline = _settle(kc, pid)
            started = time.monotonic()
            for cell in range(args.cells):
                assert _execute(kc, f"%%agent --allow ExecuteCode\ncell {cell}: print the next tables") == "ok"
            seconds = time.monotonic() - started
            after_session = _settle(kc, pid)
            assert _execute(kc, "%agent new") == "ok"
            after_new = _settle(kc, pid)
        finally:
            kc.stop_channels()
            km.shutdown_kernel(now=True)
    return {
        "turns": model.turn - TURNS_PER_CELL,
        "session seconds": seconds,
        "kernel RSS baseline MB": baseline,
        "kernel RSS after the session MB": after_session,
        "kernel RSS after %agent new MB": after_new,
        "after %agent new - baseline MB": after_new - baseline,
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", type=int, default=30)
    main(measure, parser, targets={"after %agent new - baseline MB": "<= 5"})
