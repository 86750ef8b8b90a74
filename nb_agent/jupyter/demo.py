"""Run a demo notebook headlessly and offline: ``python -m nb_agent.jupyter.demo [NOTEBOOK] [--out PATH]``.

The notebook runs in a real Jupyter kernel (this Python, through nbclient), with nb_agent
loaded by its first cell. The demo notebooks choose their cassette with
``%agent cassette cassettes/NAME.json``, so the model's side of the conversation is
replayed from the recording (``NB_AGENT_CASSETTE_MODE=replay``, no API key needed) while
everything else (the engine, tools, permissions, hooks, MCP servers, the kernel's
namespace) runs for real. With no widget frontend nobody can click, so the run uses
``NB_AGENT_RENDER=static`` (only the final rendering, the same that replaces the live view
in JupyterLab) and the notebooks pre-answer approvals with ``%%agent --answer``.

A kernel's ``set_next_input`` payload (the code the agent ran, offered as a new cell) is
applied the way JupyterLab applies it: the cell is inserted below (tagged
``nb_agent.inserted``) and then runs like any other; a re-run updates that cell instead
of inserting another.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

DEFAULT_NOTEBOOK = Path("notebooks") / "quickstart.ipynb"
DEFAULT_OUT_DIR = Path("build") / "demo"
CELL_TIMEOUT_S = 120
HEADLESS_ENV = {"NB_AGENT_RENDER": "static", "NB_AGENT_CASSETTE_MODE": "replay"}
"""What a headless replay sets for the kernel (see the module docstring)."""
INSERTED_KEY = "inserted"
CLEARED_ENV = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "JPY_SESSION_NAME", "MPLBACKEND")
"""Left out of the kernel's environment, with every ``NB_AGENT_*`` setting: credentials, a
notebook name set elsewhere, and a matplotlib backend (the kernel's inline backend shows
figures in the saved notebook). The replay must not depend on the caller's settings."""


def kernel_env(overrides: Mapping[str, str] | None = None) -> dict[str, str]:
    """This process's environment without credentials, plus the headless settings."""
    env = {k: v for k, v in os.environ.items() if k not in CLEARED_ENV and not k.startswith("NB_AGENT_")}
    env.update(HEADLESS_ENV)
    env.update(overrides or {})
    return env


def this_python_kernels() -> Any:
    """A KernelSpecManager whose every kernel is ipykernel on this Python (not whatever
    ``python3`` kernelspec the machine has installed)."""
    from ipykernel.kernelspec import get_kernel_dict
    from jupyter_client.kernelspec import KernelSpec, KernelSpecManager

    class ThisPython(KernelSpecManager):
        def get_kernel_spec(self, kernel_name: str) -> KernelSpec:
            spec = get_kernel_dict()
            return KernelSpec(argv=spec["argv"], display_name=spec["display_name"], language="python", name=kernel_name)

    return ThisPython()


def _apply_next_input(notebook: Any, index: int, execute_reply: Mapping[str, Any]) -> None:
    import nbformat

    payloads = execute_reply.get("content", {}).get("payload", []) or []
    texts = [p.get("text", "") for p in payloads if p.get("source") == "set_next_input" and not p.get("replace")]
    if not texts:
        return
    text = texts[-1].rstrip("\n")
    following = notebook.cells[index + 1] if index + 1 < len(notebook.cells) else None
    if following is not None and following.get("metadata", {}).get("nb_agent", {}).get(INSERTED_KEY):
        following.source = text
        return
    cell = nbformat.v4.new_code_cell(text, metadata={"nb_agent": {INSERTED_KEY: True}})
    notebook.cells.insert(index + 1, cell)


def execute_notebook(path: Path, *, env: Mapping[str, str], timeout: int = CELL_TIMEOUT_S) -> Any:
    """Execute the notebook at ``path`` (kernel cwd: its directory) and return it with outputs."""
    import tempfile

    import nbformat
    from jupyter_client.manager import KernelManager
    from nbclient import NotebookClient

    notebook = nbformat.read(path, as_version=4)
    with tempfile.TemporaryDirectory(prefix="nb_agent-kernel-") as sockets:
        # IPC sockets where the platform has them: local-only, so ipykernel has no reason
        # to warn about unencrypted TCP.
        where = {} if sys.platform == "win32" else {"transport": "ipc", "ip": str(Path(sockets) / "kernel")}
        km = KernelManager(kernel_name="python3", kernel_spec_manager=this_python_kernels(), **where)
        client = NotebookClient(
            notebook,
            km=km,
            timeout=timeout,
            record_timing=False,
            resources={"metadata": {"path": str(path.parent)}},
            on_cell_executed=lambda cell, cell_index, execute_reply: _apply_next_input(notebook, cell_index, execute_reply),
        )
        try:
            client.execute(env=dict(env), cwd=str(path.parent))
        finally:  # nbclient leaves a kernel it did not start running
            if client.kc is not None:
                client.kc.stop_channels()
            if km.has_kernel:
                km.shutdown_kernel(now=True)
    return notebook


def _text_outputs(cell: Any) -> list[str]:
    texts = []
    for output in cell.get("outputs", []):
        if output.output_type == "stream":
            texts.append(output.text)
        elif output.output_type in ("display_data", "execute_result"):
            data = output.get("data", {})
            if "text/plain" in data:
                texts.append(data["text/plain"])
        elif output.output_type == "error":
            texts.append(f"{output.ename}: {output.evalue}")
    return texts


def summary(notebook: Any, *, max_lines: int = 40) -> str:
    """The executed notebook as terminal text: each code cell and its text output."""
    parts = []
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        count = cell.get("execution_count") or " "
        head = f"In [{count}]: "
        lines = cell.source.rstrip("\n").splitlines() or [""]
        parts.append("\n".join([head + lines[0], *(" " * len(head) + line for line in lines[1:])]))
        for text in _text_outputs(cell):
            lines = text.rstrip("\n").splitlines()
            if len(lines) > max_lines:
                lines = lines[:max_lines] + [f"… ({len(lines) - max_lines} more lines)"]
            parts.append("\n".join(f"   │ {line}".rstrip() for line in lines))
        parts.append("")
    return "\n".join(parts)


def _find(notebook: Path) -> Path:
    if notebook.exists():
        return notebook.resolve()
    repo = Path(__file__).resolve().parent.parent  # an editable install of the repository
    if (repo / notebook).exists():
        return (repo / notebook).resolve()
    raise SystemExit(f"{notebook} not found: run this from the nb_agent repository root, or give the notebook's path")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m nb_agent.jupyter.demo", description=(__doc__ or "").strip().splitlines()[0])
    parser.add_argument("notebook", nargs="?", type=Path, default=DEFAULT_NOTEBOOK, help=f"default: {DEFAULT_NOTEBOOK}")
    parser.add_argument("--out", type=Path, default=None, help=f"where to write the executed notebook (default: {DEFAULT_OUT_DIR}/NAME)")
    parser.add_argument("--quiet", action="store_true", help="do not print the cells and their outputs")
    args = parser.parse_args(argv)
    source = _find(args.notebook)
    out = args.out or DEFAULT_OUT_DIR / source.name
    print(f"Executing {source} offline (model replies replayed from its cassette)…", flush=True)
    from nbclient.exceptions import CellExecutionError

    try:
        executed = execute_notebook(source, env=kernel_env())
    except CellExecutionError as exc:
        print(f"A cell failed:\n{exc}", file=sys.stderr)
        return 1
    import nbformat

    out.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(executed, out)
    if not args.quiet:
        print()
        print(summary(executed))
    print(f"Executed notebook written to {out.resolve()}")
    print("Open it in JupyterLab or any notebook viewer; to run the demo yourself, open the original notebook.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
