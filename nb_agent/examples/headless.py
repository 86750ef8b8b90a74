"""A headless nb_agent run, offline: the real anthropic SDK talks to the bundled fake
Messages API server, which plays a scripted model that lists files, reads one, counts
its rows with Bash and answers. Everything else (loop, tools, permissions, transcript)
is the real thing.

    python -m nb_agent.examples.headless [--workdir DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from pathlib import Path

from nb_agent.agent import create_engine
from nb_agent.console import ConsoleRenderer
from nb_agent.engine import EngineResult
from nb_agent.model.transport import AnthropicTransport
from nb_agent.testing import FakeAnthropicServer, Reply, text, tool_use

SALES_CSV = "month,revenue\n2026-01,120\n2026-02,135\n2026-03,128\n2026-04,150\n2026-05,141\n2026-06,160\n"


def script(workdir: Path) -> list[Reply]:
    csv = str(workdir / "sales.csv")
    return [
        Reply(content=[text("I'll look at the data first."), tool_use("Glob", {"pattern": "*.csv"})]),
        Reply(content=[tool_use("Read", {"file_path": csv}), tool_use("Bash", {"command": "wc -l sales.csv"})]),
        Reply(
            content=[
                text(
                    "`sales.csv` has 6 months of revenue (7 lines with the header).\n\n"
                    "| month | revenue | change |\n|---|---|---|\n"
                    "| 2026-03 | 128 | −7 |\n| 2026-05 | 141 | −9 |\n\n"
                    "Revenue dropped in **March** and **May**."
                )
            ]
        ),
    ]


async def main(workdir: Path) -> int:
    (workdir / "sales.csv").write_text(SALES_CSV)
    async with FakeAnthropicServer(script(workdir)) as server:
        engine, warnings = create_engine(cwd=workdir, transport=AnthropicTransport(client=server.client()))
        for warning in warnings:
            print(f"[settings] {warning}")
        render = ConsoleRenderer()
        prompt = "load sales.csv and find the months where revenue dropped"
        print(f"> {prompt}\n")
        result: EngineResult | None = None
        async for event in engine.submit_message(prompt):
            render(event)
            if isinstance(event, EngineResult):
                result = event
        engine.close()
        print(f"transcript: {engine.transcript_path}")
        return 0 if result is not None and not result.is_error else 1


def cli() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").strip().splitlines()[0])
    parser.add_argument("--workdir", type=Path, default=None, help="where to put sales.csv (default: a temp dir)")
    args = parser.parse_args()
    if args.workdir is None:
        with tempfile.TemporaryDirectory() as tmp:
            raise SystemExit(asyncio.run(main(Path(tmp))))
    args.workdir.mkdir(parents=True, exist_ok=True)
    raise SystemExit(asyncio.run(main(args.workdir.resolve())))


if __name__ == "__main__":
    cli()
