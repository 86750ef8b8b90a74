"""Widget traffic and rendering overhead of a fast stream, in a real kernel.

A 20,000-character answer is streamed in 2-character chunks as fast as the fake model
server can send them. Reported: comm messages per second reaching iopub during the
run (target <= 30), and the run's wall time with the live view versus the same run
with rendering off (``AgentMagics.render = "static"``: only the final display), target
ratio <= 1.10. Figures are printed; nothing is asserted.

    python bench/widget_rate.py [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from jupyter_client import KernelManager
from jupyter_client.kernelspec import KernelSpecManager

from nb_agent.testing import FakeAnthropicServer, Reply, text

ANSWER_CHARS = 20_000
CHUNK = 2
COMM_TYPES = ("comm_open", "comm_msg", "comm_close")
PACED_S = 5.0


def answer_text() -> str:
    words = []
    size = 0
    i = 0
    while size < ANSWER_CHARS:
        piece = f"Word{i} " + ("\n\n" if i % 60 == 59 else "")
        words.append(piece)
        size += len(piece)
        i += 1
    return "".join(words)[:ANSWER_CHARS]


def start_kernel(workdir: Path, server: FakeAnthropicServer) -> tuple[Any, Any]:
    spec_dir = workdir / "kernels" / "nb-agent-bench"
    spec_dir.mkdir(parents=True)
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    (spec_dir / "kernel.json").write_text(json.dumps({"argv": argv, "display_name": "bench", "language": "python"}))
    km = KernelManager(kernel_name="nb-agent-bench", kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(spec_dir.parent)]))
    env = dict(os.environ, ANTHROPIC_BASE_URL=server.base_url, ANTHROPIC_API_KEY="test")
    km.start_kernel(env=env, cwd=str(workdir))
    kc = km.client()
    kc.start_channels()
    kc.wait_for_ready(timeout=60)
    return km, kc


def execute(kc: Any, code: str, timeout: float = 120) -> dict[str, Any]:
    """Run ``code``; returns wall time (request to reply), comm message count and the
    time from the first to the last iopub message of the cell."""
    started = time.perf_counter()
    msg_id = kc.execute(code)
    comms = 0
    first = last = None
    status = None
    while True:
        message = kc.get_iopub_msg(timeout=timeout)
        if message["parent_header"].get("msg_id") != msg_id:
            continue
        now = time.perf_counter()
        if message["msg_type"] == "execute_input":
            first = now
        if message["msg_type"] in COMM_TYPES:
            comms += 1
        if message["msg_type"] == "status" and message["content"]["execution_state"] == "idle":
            last = now
            break
    while True:
        reply = kc.get_shell_msg(timeout=timeout)
        if reply["parent_header"].get("msg_id") == msg_id:
            status = reply["content"]["status"]
            break
    wall = time.perf_counter() - started
    return {"wall": wall, "comms": comms, "busy": (last or now) - (first or started), "status": status}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    reply = Reply(content=[text(answer_text())], chunk_size=CHUNK)
    with tempfile.TemporaryDirectory() as tmp, FakeAnthropicServer([]) as server:
        km, kc = start_kernel(Path(tmp), server)
        try:
            assert execute(kc, "%load_ext nb_agent")["status"] == "ok"
            server.script.add(reply)
            execute(kc, "%%agent\nwarm up")  # first-run imports, not measured
            results: dict[str, list[dict[str, Any]]] = {"widgets": [], "static": []}
            for _ in range(args.runs):
                for mode in ("widgets", "static"):
                    execute(kc, f'%config AgentMagics.render = "{mode}"')
                    server.script.add(reply)
                    outcome = execute(kc, "%%agent --new\nwrite the long answer")
                    assert outcome["status"] == "ok", outcome
                    results[mode].append(outcome)
            # The same answer spread over PACED_S seconds: the sustained rate while streaming.
            execute(kc, '%config AgentMagics.render = "widgets"')
            server.script.add(Reply(content=reply.content, chunk_size=CHUNK, stream_duration=PACED_S))
            paced = execute(kc, "%%agent --new\nwrite the long answer slowly")
        finally:
            kc.stop_channels()
            km.shutdown_kernel(now=True)

    live, static = results["widgets"], results["static"]
    live_wall = statistics.median(r["wall"] for r in live)
    static_wall = statistics.median(r["wall"] for r in static)
    rates = [r["comms"] / r["busy"] for r in live]
    print(f"answer: {ANSWER_CHARS:,} characters in {ANSWER_CHARS // CHUNK:,} deltas of {CHUNK}; {args.runs} runs per mode")
    def walls(runs: list[dict[str, Any]]) -> str:
        return ", ".join(f"{r['wall']:.3f}" for r in runs)

    print(f"live view:     wall median {live_wall:.3f}s  (runs: {walls(live)})")
    print(f"rendering off: wall median {static_wall:.3f}s  (runs: {walls(static)})")
    print(f"wall time ratio live/off: {live_wall / static_wall:.3f}  (target <= 1.10)")
    print(
        f"comm messages per run: median {statistics.median(r['comms'] for r in live):.0f} "
        f"(opens and closes included) over a median {statistics.median(r['busy'] for r in live):.3f}s busy cell; "
        f"rate median {statistics.median(rates):.1f}/s, max {max(rates):.1f}/s  (target <= 30/s)"
    )
    print(
        f"paced over {PACED_S:.0f}s: {paced['comms']} comm messages in {paced['busy']:.2f}s = "
        f"{paced['comms'] / paced['busy']:.1f}/s  (target <= 30/s)"
    )


if __name__ == "__main__":
    main()
