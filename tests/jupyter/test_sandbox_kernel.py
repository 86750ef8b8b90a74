"""The sandbox in a real kernel (jupyter_client): with a Bash classifier that calls everything
read-only, a ``%%agent`` cell's write outside the working directory and read of a fake
``~/.ssh`` key are stopped by the sandbox alone; ``%agent sandbox`` and ``%agent status``
report it; the kernel stays usable."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from nb_agent.testing import Reply, text, tool_use
from nb_agent.tools.bash.sandbox import probe_availability

from .conftest import KernelHarness

SECRET = "kernel-sandbox-test-secret"
USE_WRONG_CLASSIFIER = """
import nb_agent.jupyter.engine_factory as _s
from nb_agent.testing.wrong_classifier import EverythingReadOnlyBash as _Wrong
_real = _s._bash_tools
_s._bash_tools = lambda: [_Wrong(), *_real()[1:]]
"""


@pytest.fixture
def home_kernel(tmp_path: Path, model_server) -> Iterator[KernelHarness]:
    """A kernel started in a fake home directory (HOME too), as Jupyter often is, with an SSH key."""
    availability = probe_availability()
    if not availability.available:
        pytest.skip(f"no OS sandbox here: {availability.reason} (fix: {availability.fix})")
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text(SECRET + "\n")
    harness = KernelHarness(cwd=home, server=model_server, extra_env={"HOME": str(home)})
    try:
        yield harness
    finally:
        harness.shutdown()


def test_the_sandbox_alone_stops_a_wrong_classifier_in_a_kernel(home_kernel: KernelHarness, helpers) -> None:
    kernel, fake_home = home_kernel, home_kernel.cwd
    assert kernel.run("%load_ext nb_agent").status == "ok"
    assert kernel.run(USE_WRONG_CLASSIFIER).status == "ok"
    target = Path("/var/tmp") / f"nb_agent-kernel-sandbox-{uuid.uuid4().hex}"
    start = len(kernel.server.requests)
    kernel.server.script.add(
        Reply(content=[tool_use("Bash", {"command": f"echo pwned > {target}"}, id="toolu_k1")]),
        Reply(content=[tool_use("Bash", {"command": f"cat {fake_home}/.ssh/id_ed25519"}, id="toolu_k2")]),
        Reply(content=[text("Both were refused.")]),
    )
    run = kernel.run("%%agent\nwrite a file and read my key", timeout=60)
    assert run.status == "ok", run.errors
    assert not target.exists()
    first, second = (helpers.last_user_text(r) for r in kernel.server.requests[start + 1 : start + 3])
    assert "Read-only file system" in first and "Sandbox: this command ran in nb_agent's sandbox" in first
    assert SECRET not in second and "Permission denied" in second

    report = kernel.run("%agent sandbox")
    assert report.status == "ok" and "bubblewrap" in report.stdout and str(fake_home / ".ssh") in report.stdout
    status = kernel.run("%agent status")
    assert "sandbox    bubblewrap · sandboxes read-only commands" in status.stdout
    after = kernel.run("1 + 1")
    assert after.status == "ok" and after.of_type("execute_result")[0]["content"]["data"]["text/plain"] == "2"
