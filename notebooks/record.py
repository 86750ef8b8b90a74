"""Re-record a demo notebook's cassette and outputs, offline:

    python notebooks/record.py quickstart            # or several names, or --all

For each notebook ``NAME.ipynb`` this

1. runs the notebook against nb_agent's ``FakeAnthropicServer`` playing the model script
   ``scripts/NAME.py`` (real SDK, real HTTP; its simulated prompt cache reports the cache
   reads and writes the requests earn), with ``NB_AGENT_CASSETTE_MODE=record``: the
   notebook's ``%agent cassette cassettes/NAME.json`` line writes every request and
   response to the cassette; the script must be used up exactly;
2. runs it again with no server and no API key, replaying the cassette (what nbval and
   ``python -m nb_agent.jupyter.demo`` do), and saves that execution's outputs into ``NAME.ipynb``.

To record against the real model instead, run the notebook yourself with
``ANTHROPIC_API_KEY`` set and ``NB_AGENT_CASSETTE_MODE=record``, then run step 2 with
``python notebooks/record.py --replay-only NAME``.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path

import nbformat
from nbclient.exceptions import CellExecutionError

from nb_agent.jupyter.demo import execute_notebook, kernel_env
from nb_agent.testing import FakeAnthropicServer

HERE = Path(__file__).resolve().parent
SCRIPTS = HERE / "scripts"
RECORDING_KEY = "fake-key-the-fake-server-ignores"


def notebook_names() -> list[str]:
    return sorted(p.stem for p in SCRIPTS.glob("*.py") if not p.stem.startswith("_"))


def load_script(name: str) -> list:
    sys.path.insert(0, str(SCRIPTS))
    try:
        spec = importlib.util.spec_from_file_location(f"nb_agent_demo_script_{name}", SCRIPTS / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(SCRIPTS))
    return module.turns()


def record(name: str) -> None:
    notebook = HERE / f"{name}.ipynb"
    cassette = HERE / "cassettes" / f"{name}.json"
    cassette.unlink(missing_ok=True)
    with FakeAnthropicServer(load_script(name), prompt_cache=True) as server:  # usage split as the API's cache would
        env = kernel_env({
            "NB_AGENT_CASSETTE_MODE": "record",
            "ANTHROPIC_API_KEY": RECORDING_KEY,
            "ANTHROPIC_BASE_URL": server.base_url,
        })  # fmt: skip
        execute_notebook(notebook, env=env)
        server.script.assert_exhausted()
    print(f"  recorded {cassette.relative_to(HERE)} ({len(server.requests)} requests)")


def replay(name: str) -> None:
    notebook = HERE / f"{name}.ipynb"
    started = time.monotonic()
    executed = execute_notebook(notebook, env=kernel_env())
    nbformat.write(executed, notebook)
    print(f"  replayed offline in {time.monotonic() - started:.1f}s; outputs saved to {notebook.name}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Re-record demo notebooks' cassettes and outputs.")
    parser.add_argument("names", nargs="*", help=f"notebooks to record: {', '.join(notebook_names())}")
    parser.add_argument("--all", action="store_true", help="record every notebook")
    parser.add_argument("--replay-only", action="store_true", help="keep the cassette; only re-execute and save outputs")
    args = parser.parse_args(argv)
    names = notebook_names() if args.all else args.names
    unknown = sorted(set(names) - set(notebook_names()))
    if not names or unknown:
        parser.error(f"name one or more of {', '.join(notebook_names())} (unknown: {', '.join(unknown) or 'none'})")
    for name in names:
        print(f"{name}:")
        try:
            if not args.replay_only:
                record(name)
            replay(name)
        except CellExecutionError as exc:
            print(f"  a cell failed:\n{exc}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
