"""Comm traffic of a streamed answer: bytes of widget messages per byte of answer.

The 20,000-character answer of ``bench/widget_rate.py`` (paragraphs of words, streamed in
2-character deltas), once as fast as the fake server sends it, once spread over 10 seconds
(2,000 characters a second: more, smaller flushes) and once at a real model's pace
(``--real-pace`` characters a second, 400 by default: 50 seconds, where the view's
once-a-second refresh of the status line and of the page being written dominates). A real
kernel renders it with the live widget view; every comm message (open, update, close) the
cell sends on iopub is counted with its JSON content and binary buffers. Target: at most
3× the answer's own size.

Each pace is run on both of the view's paths:

- ``stock widgets``: no notebook page is connected (nbclient, VS Code, a JupyterLab without
  the extension): the answer is pages of ipywidgets HTML widgets and the kernel sends the clock;
- ``page widgets``: a page connected that announced the extension's widgets in its ``hello``
  (``nb_agent.testing.live_page.FakeLivePage`` says what the extension says; there is no
  browser here): the answer is sent as appends and the page ticks the clock. The page is this
  tree's fake, for both versions: a version without those widgets ignores what it announces.

    python bench/widget_bytes.py [--real-pace 400] [--before REF]
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path
from typing import Any

from compare import main, module_of_this_tree
from widget_rate import ANSWER_CHARS, CHUNK, COMM_TYPES, answer_text, start_kernel

PACED_S = 10.0


def _comm_bytes(kc: Any, code: str, timeout: float = 180) -> tuple[int, int, str]:
    """Run ``code``; returns (comm messages, their bytes, status)."""
    msg_id = kc.execute(code)
    count = size = 0
    while True:
        message = kc.get_iopub_msg(timeout=timeout)
        if message["parent_header"].get("msg_id") != msg_id:
            continue
        if message["msg_type"] in COMM_TYPES:
            count += 1
            size += len(json.dumps(message["content"])) + sum(len(b) for b in message.get("buffers") or [])
        if message["msg_type"] == "status" and message["content"]["execution_state"] == "idle":
            break
    while True:
        reply = kc.get_shell_msg(timeout=timeout)
        if reply["parent_header"].get("msg_id") == msg_id:
            return count, size, reply["content"]["status"]


PATHS = ("stock widgets", "page widgets")


def paces(args: argparse.Namespace) -> tuple[tuple[str, float], ...]:
    """Each pace's label and the stream's duration in seconds (0: as fast as it comes)."""
    real_pace_s = ANSWER_CHARS / args.real_pace
    return (("fast", 0.0), (f"paced {PACED_S:.0f}s", PACED_S), (f"real pace {args.real_pace:.0f}/s", real_pace_s))


def measure(args: argparse.Namespace) -> dict[str, Any]:
    from nb_agent.testing import FakeAnthropicServer, Reply, text

    answer = answer_text()
    figures: dict[str, Any] = {"answer characters": len(answer)}
    with tempfile.TemporaryDirectory() as tmp, FakeAnthropicServer([]) as server:
        km, kc = start_kernel(Path(tmp), server)
        try:
            assert _comm_bytes(kc, "%load_ext nb_agent")[2] == "ok"
            server.script.add(Reply(content=[text("warm")]))
            _comm_bytes(kc, "%%agent\nwarm up")  # first-run imports and widgets, not measured
            for path in PATHS:
                page = None
                if path == "page widgets":
                    page = module_of_this_tree("nb_agent/testing/live_page.py").FakeLivePage(kc, "bench.ipynb", [], widgets=1)
                    page.open()
                for label, duration in paces(args):
                    server.script.add(Reply(content=[text(answer)], chunk_size=CHUNK, stream_duration=duration))
                    count, size, status = _comm_bytes(kc, "%%agent --new\nwrite the long answer")
                    assert status == "ok", status
                    figures[f"{path}, {label}: comm messages"] = count
                    figures[f"{path}, {label}: comm KB"] = size / 1000
                    figures[f"{path}, {label}: comm bytes / answer bytes"] = size / len(answer.encode())
                if page is not None:
                    page._send("comm_close", {"comm_id": page.comm_id, "data": {}})
        finally:
            kc.stop_channels()
            km.shutdown_kernel(now=True)
    return figures


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--real-pace", type=float, default=400.0, help="characters a second of the real-pace run")
    args, _ = parser.parse_known_args()
    targets = {f"{path}, {label}: comm bytes / answer bytes": "<= 3" for path in PATHS for label, _ in paces(args)}
    main(measure, parser, targets=targets)
