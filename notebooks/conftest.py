"""nbval runs the demo notebooks headlessly and offline, as ``python -m nb_agent.jupyter.demo`` does:
no API key, cassettes replayed (``NB_AGENT_CASSETTE_MODE=replay``) and only the final
rendering of each run (``NB_AGENT_RENDER=static``: nbval has no widget frontend, and it
ignores display updates). The settings apply to these notebooks' kernels only."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator

import pytest

from nb_agent.jupyter.demo import kernel_env


collect_ignore_glob = ["files/*"]
"""The example folders' own notebooks (a messy report the demo tidies) are not demos."""

CHECKPOINTS = tempfile.mkdtemp(prefix="nb_agent-demo-checkpoints-")
"""The demo kernels' file checkpoints: not the developer's ~/.nb_agent."""


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(kernel_env({"NB_AGENT_CHECKPOINTS_DIR": CHECKPOINTS}))  # nbval starts the notebook's kernel during this setup
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)
