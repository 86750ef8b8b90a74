"""The built extension is installed with the package where JupyterLab finds it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import nb_agent

BUNDLE = Path(nb_agent.__file__).parent / "jupyter" / "live" / "labextension"
INSTALLED = Path(sys.prefix) / "share" / "jupyter" / "labextensions" / "nb-agent-live"


def test_jupyter_labextension_list_shows_it_enabled_and_ok():
    proc = subprocess.run(
        [sys.executable, "-m", "jupyterlab.labextensions", "list"], capture_output=True, text=True, timeout=120
    )
    listing = proc.stdout + proc.stderr
    line = next((entry for entry in listing.splitlines() if "nb-agent-live" in entry), "")
    assert "enabled" in line and "OK" in line and "(python, nb_agent)" in line, listing


def test_the_installed_copy_is_the_shipped_bundle():
    shipped = sorted(p.relative_to(BUNDLE).as_posix() for p in BUNDLE.rglob("*") if p.is_file())
    assert "package.json" in shipped and any(name.startswith("static/remoteEntry.") for name in shipped)
    for name in shipped:
        assert (INSTALLED / name).read_bytes() == (BUNDLE / name).read_bytes(), f"{name}: reinstall nb_agent (pip install -e .)"
    meta = json.loads((BUNDLE / "package.json").read_text())
    assert meta["name"] == "nb-agent-live" and meta["jupyterlab"]["_build"]["load"].startswith("static/remoteEntry.")
