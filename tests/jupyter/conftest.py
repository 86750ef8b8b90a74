"""A real kernel driven through jupyter_client as a frontend would, against a fake model.

``kernel`` (one per test module) starts ``python -m ipykernel_launcher`` with this venv's
Python, ANTHROPIC_BASE_URL pointing at a :class:`FakeAnthropicServer` running in the test
process (ANTHROPIC_API_KEY=test) and a temporary working directory, then loads the
extension. Tests add the model's turns to ``kernel.server.script`` and read what the
kernel published: outputs, widget comm traffic, the execute reply.
"""

from __future__ import annotations

import json
import os
import queue
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from nb_agent.testing import FakeAnthropicServer

KERNEL_START_TIMEOUT = 60
# Only a hang detector: every wait ends at the event it waits for (idle status, a button, a
# message), so a generous bound costs nothing when things work. 20 s failed on a loaded
# 2-core machine (a fresh kernel's first %%agent imports the SDK and the widgets).
DEFAULT_TIMEOUT = 120
STOP_WITHIN_S = 15
"""Generous: only separates "the run waited for the 60 s stream / sleep / endless loop /
approval" from "it stopped" on a shared, slow machine; bench/hook_stop.py measures the
engine's Stop target."""


@dataclass
class Execution:
    msg_id: str
    messages: list[dict[str, Any]] = field(default_factory=list)
    reply: dict[str, Any] | None = None
    started: float = 0.0
    ended: float = 0.0

    def of_type(self, *types: str) -> list[dict[str, Any]]:
        return [m for m in self.messages if m["msg_type"] in types]

    @property
    def status(self) -> str:
        assert self.reply is not None
        return self.reply["content"]["status"]

    @property
    def stdout(self) -> str:
        return "".join(m["content"]["text"] for m in self.of_type("stream") if m["content"]["name"] == "stdout")

    @property
    def stderr(self) -> str:
        return "".join(m["content"]["text"] for m in self.of_type("stream") if m["content"]["name"] == "stderr")

    @property
    def errors(self) -> list[dict[str, Any]]:
        return [m["content"] for m in self.of_type("error")]

    @property
    def final_bundle(self) -> dict[str, Any]:
        """The data of the last update_display_data (the static rendering)."""
        updates = self.of_type("update_display_data")
        assert updates, f"no update_display_data among {[m['msg_type'] for m in self.messages]}"
        return updates[-1]["content"]["data"]

    def assert_ending_said_once(self, said: str) -> None:
        """The cell's one error line says ``said`` (how the run ended); the static rendering
        above it does not say it again (the trial saw each stop and failure said twice)."""
        (error,) = self.errors
        assert error["traceback"] == [error["traceback"][0]] and said in error["traceback"][0], error
        for mime, shown in self.final_bundle.items():
            assert said not in shown, (mime, shown)

    @property
    def payload(self) -> list[dict[str, Any]]:
        assert self.reply is not None
        return self.reply["content"].get("payload", [])

    @property
    def comm_messages(self) -> list[dict[str, Any]]:
        return self.of_type("comm_open", "comm_msg", "comm_close")


class WidgetTracker:
    """The state of every widget model the kernel opened, kept from iopub comm traffic."""

    def __init__(self) -> None:
        self.states: dict[str, dict[str, Any]] = {}
        """Open widgets."""
        self.closed: dict[str, dict[str, Any]] = {}
        """Widgets closed since (a finished run closes its live view)."""
        self.values: list[str] = []
        """Every ``value`` any widget took, in order, whichever request the message answered."""

    def feed(self, message: dict[str, Any]) -> None:
        kind = message["msg_type"]
        content = message["content"]
        if kind in ("comm_open", "comm_msg") and "value" in content.get("data", {}).get("state", {}):
            self.values.append(str(content["data"]["state"]["value"]))
        if kind == "comm_open" and content.get("target_name") == "jupyter.widget":
            self.states[content["comm_id"]] = dict(content["data"].get("state", {}))
        elif kind == "comm_msg":
            data = content.get("data", {})
            if data.get("method") == "update" and content["comm_id"] in self.states:
                self.states[content["comm_id"]].update(data.get("state", {}))
        elif kind == "comm_close" and content["comm_id"] in self.states:
            self.closed[content["comm_id"]] = self.states.pop(content["comm_id"])

    def state_of(self, comm_id: str) -> dict[str, Any]:
        return self.states.get(comm_id) or self.closed[comm_id]

    def ever(self, predicate: Callable[[dict[str, Any]], bool]) -> bool:
        """Did any widget, open or closed, reach a state matching ``predicate``?"""
        return any(predicate(s) for s in (*self.states.values(), *self.closed.values()))

    def find(self, **attrs: Any) -> list[str]:
        return [cid for cid, state in self.states.items() if all(state.get(k) == v for k, v in attrs.items())]


KERNEL_NAME = "nb-agent-test"


def _kernel_specs(cwd: Path) -> Any:
    """A kernelspec that runs this very Python (the venv nb_agent is installed in)."""
    from jupyter_client.kernelspec import KernelSpecManager

    directory = cwd.parent / f"{cwd.name}-kernels" / KERNEL_NAME
    directory.mkdir(parents=True, exist_ok=True)
    spec = {"argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"], "display_name": "nb_agent test", "language": "python"}
    (directory / "kernel.json").write_text(json.dumps(spec))
    return KernelSpecManager(kernel_dirs=[str(directory.parent)])


class KernelHarness:
    def __init__(self, *, cwd: Path, server: FakeAnthropicServer, extra_env: dict[str, str] | None = None) -> None:
        from jupyter_client import KernelManager

        self.cwd = cwd
        self.server = server
        env = dict(os.environ)
        for name in ("ANTHROPIC_AUTH_TOKEN", "JPY_SESSION_NAME", "NB_AGENT_MODEL", "NB_AGENT_PERMISSION_MODE", "NB_AGENT_RENDER"):
            env.pop(name, None)
        env.update({"ANTHROPIC_BASE_URL": server.base_url, "ANTHROPIC_API_KEY": "test", "PYTHONUNBUFFERED": "1"})
        env.setdefault("MPLBACKEND", "agg")
        # Folder-trust answers go to a file of this kernel's, never the developer's ~/.nb_agent.
        env["NB_AGENT_TRUST_FILE"] = str(cwd.parent / f"{cwd.name}-trusted_folders.json")
        # File checkpoints go to this kernel's own place too, never the developer's ~/.nb_agent.
        env["NB_AGENT_CHECKPOINTS_DIR"] = str(cwd.parent / f"{cwd.name}-checkpoints")
        env.update(extra_env or {})
        self.km = KernelManager(kernel_name=KERNEL_NAME, kernel_spec_manager=_kernel_specs(cwd))
        self.km.start_kernel(env=env, cwd=str(cwd))
        self.kc = self.km.client()
        self.kc.start_channels()
        self.kc.wait_for_ready(timeout=KERNEL_START_TIMEOUT)
        self.widgets = WidgetTracker()
        self.observers: list[Callable[[dict[str, Any]], None]] = []
        """Called with every iopub message read (e.g. a fake live-notebook page)."""

    def _observe(self, message: dict[str, Any]) -> None:
        self.widgets.feed(message)
        for observer in list(self.observers):
            observer(message)

    # --- executing ------------------------------------------------------------------------
    def start(self, code: str, *, metadata: dict[str, Any] | None = None) -> Execution:
        """Send an execute request; ``metadata`` as JupyterLab adds it (``{"cellId": ...}``)."""
        if metadata is None:
            return Execution(msg_id=self.kc.execute(code), started=time.monotonic())
        content = {"code": code, "silent": False, "store_history": True, "user_expressions": {}, "allow_stdin": False}
        message = self.kc.session.msg("execute_request", content, metadata=metadata)
        self.kc.shell_channel.send(message)
        return Execution(msg_id=message["header"]["msg_id"], started=time.monotonic())

    def wait(
        self,
        execution: Execution,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        on_message: Callable[[dict[str, Any]], None] | None = None,
    ) -> Execution:
        """Read iopub until the execution goes idle, then its execute_reply."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"execution did not finish in {timeout}s; got {[m['msg_type'] for m in execution.messages]}")
            try:
                message = self.kc.get_iopub_msg(timeout=min(remaining, 1.0))
            except queue.Empty:
                continue
            self._observe(message)
            if message["parent_header"].get("msg_id") != execution.msg_id:
                continue
            execution.messages.append(message)
            if on_message is not None:
                on_message(message)
            if message["msg_type"] == "status" and message["content"]["execution_state"] == "idle":
                break
        execution.ended = time.monotonic()
        while True:
            reply = self.kc.get_shell_msg(timeout=max(1.0, deadline - time.monotonic()))
            if reply["parent_header"].get("msg_id") == execution.msg_id:
                execution.reply = reply
                return execution

    def run(self, code: str, **kwargs: Any) -> Execution:
        return self.wait(self.start(code), **kwargs)

    def wait_for(self, execution: Execution, predicate: Callable[[], bool], *, timeout: float = DEFAULT_TIMEOUT) -> None:
        """Read iopub (for ``execution``) until ``predicate()`` holds."""
        deadline = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() > deadline:
                raise TimeoutError(f"condition not met in {timeout}s; got {[m['msg_type'] for m in execution.messages]}")
            try:
                message = self.kc.get_iopub_msg(timeout=0.2)
            except queue.Empty:
                continue
            self._observe(message)
            if message["parent_header"].get("msg_id") == execution.msg_id:
                execution.messages.append(message)

    # --- acting as the frontend -------------------------------------------------------------
    def send_comm(self, comm_id: str, data: dict[str, Any]) -> None:
        message = self.kc.session.msg("comm_msg", {"comm_id": comm_id, "data": data})
        self.kc.shell_channel.send(message)

    def click(self, comm_id: str) -> None:
        self.send_comm(comm_id, {"method": "custom", "content": {"event": "click"}})

    def set_value(self, comm_id: str, value: Any) -> None:
        self.send_comm(comm_id, {"method": "update", "state": {"value": value}, "buffer_paths": []})

    def button(self, description: str) -> str | None:
        found = self.widgets.find(_model_name="ButtonModel", description=description, disabled=False)
        return found[-1] if found else None

    def restart(self) -> None:
        """Restart the kernel (a fresh process, same working directory) and reload nb_agent."""
        self.km.restart_kernel(now=True)
        self.kc.wait_for_ready(timeout=KERNEL_START_TIMEOUT)
        self.widgets = WidgetTracker()
        loaded = self.run("%load_ext nb_agent")
        assert loaded.status == "ok", loaded.errors

    def interrupt(self) -> None:
        self.km.interrupt_kernel()

    def shutdown(self) -> None:
        if not self.km.has_kernel:
            return
        try:
            self.kc.stop_channels()
        finally:
            self.km.shutdown_kernel(now=True)

    def shutdown_gracefully(self) -> None:
        """A shutdown request, as Jupyter sends when the user shuts the kernel down."""
        try:
            self.kc.stop_channels()
        finally:
            self.km.shutdown_kernel(now=False)


@pytest.fixture(scope="module")
def model_server() -> Iterator[FakeAnthropicServer]:
    server = FakeAnthropicServer([]).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def kernel_env(model_server: FakeAnthropicServer, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The environment a test kernel runs with (the fake model server, no real key, file
    checkpoints in a temporary directory)."""
    env = {k: v for k, v in os.environ.items() if k not in ("ANTHROPIC_AUTH_TOKEN", "JPY_SESSION_NAME", "NB_AGENT_RENDER")}
    env.update({"ANTHROPIC_BASE_URL": model_server.base_url, "ANTHROPIC_API_KEY": "test", "MPLBACKEND": "agg"})
    env["NB_AGENT_CHECKPOINTS_DIR"] = str(tmp_path_factory.mktemp("checkpoints"))
    return env


@pytest.fixture
def kernel_spec_manager(tmp_path: Path) -> Any:
    """A KernelSpecManager whose ``nb-agent-test`` kernel runs this Python."""
    return _kernel_specs(tmp_path / "specs")


@pytest.fixture(scope="module")
def make_kernel(tmp_path_factory: pytest.TempPathFactory, model_server: FakeAnthropicServer) -> Iterator[Callable[..., KernelHarness]]:
    """Start more kernels (nb_agent not loaded), shut down with the module."""
    made: list[KernelHarness] = []

    def make(name: str = "kernel", **kwargs: Any) -> KernelHarness:
        harness = KernelHarness(cwd=tmp_path_factory.mktemp(name), server=model_server, **kwargs)
        made.append(harness)
        return harness

    try:
        yield make
    finally:
        for harness in made:
            harness.shutdown()


@pytest.fixture(scope="module")
def kernel(tmp_path_factory: pytest.TempPathFactory, model_server: FakeAnthropicServer) -> Iterator[KernelHarness]:
    harness = KernelHarness(cwd=tmp_path_factory.mktemp("kernel"), server=model_server)
    try:
        loaded = harness.run("%load_ext nb_agent")
        assert loaded.status == "ok", loaded.errors
        # Pay the first run's heavy imports here, once per module, not inside a timed test.
        warm = harness.run("import nb_agent.engine, nb_agent.jupyter.view.agent_view, nb_agent.jupyter.engine_factory as s\ns.default_tools", timeout=60)
        assert warm.status == "ok", warm.errors
        yield harness
    finally:
        harness.shutdown()


@pytest.fixture
def requests_since(kernel: KernelHarness) -> Callable[[], list[dict[str, Any]]]:
    """The model requests made since the test started."""
    start = len(kernel.server.requests)
    return lambda: kernel.server.requests[start:]


def last_user_text(request: dict[str, Any]) -> str:
    """All text in the request's last user message (tool results included)."""
    content = request["messages"][-1]["content"]
    parts: list[str] = []
    for block in content if isinstance(content, list) else [{"type": "text", "text": content}]:
        if block.get("type") == "text":
            parts.append(block["text"])
        elif block.get("type") == "tool_result":
            inner = block.get("content")
            if isinstance(inner, str):
                parts.append(inner)
            else:
                parts.extend(b.get("text", "") for b in inner or [] if b.get("type") == "text")
    return "\n".join(parts)


@pytest.fixture
def helpers() -> Any:
    class Helpers:
        last_user_text = staticmethod(last_user_text)

    return Helpers
