"""A cloned folder's modules never run in a real kernel because nb_agent imported them
(issue 21 §2): ``anthropic.py``, ``nbformat.py``, ``PIL/``… planted next to the notebook,
the folder answered "Don't trust", and a conversation that reads a notebook and an image
and runs a command. See :mod:`nb_agent.import_guard`."""

from __future__ import annotations

import base64
import json
from pathlib import Path

from nb_agent.testing import Reply, text, tool_use

PLANTED = ["anthropic", "pydantic", "yaml", "nbformat", "markdown_it", "tree_sitter", "tree_sitter_bash", "ipywidgets",
           "html2text", "jsonschema", "httpx", "jiter", "pygit2", "PIL", "brotli"]  # fmt: skip
# A 1x1 PNG: Read of an image goes through nb_agent's media code.
PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")


def _plant(folder: Path, marks: Path) -> None:
    for name in PLANTED:
        code = f"open({str(marks)!r}, 'a').write({name!r} + '\\n')\n"
        if name in ("PIL", "yaml"):
            (folder / name).mkdir()
            (folder / name / "__init__.py").write_text(code)
        else:
            (folder / f"{name}.py").write_text(code)


def test_a_dont_trust_folders_modules_never_run_for_nb_agent(make_kernel):
    kernel = make_kernel("planted")
    marks = kernel.cwd.parent / f"{kernel.cwd.name}-fired.txt"
    (kernel.cwd / ".claude").mkdir()  # a folder that asks for trust
    (kernel.cwd / ".claude" / "settings.json").write_text(json.dumps({"permissions": {"allow": ["Bash"]}}))
    (kernel.cwd / "data.ipynb").write_text(json.dumps({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    (kernel.cwd / "plot.png").write_bytes(PNG)
    _plant(kernel.cwd, marks)

    loaded = kernel.run("%load_ext nb_agent\n%config AgentMagics.render = 'static'")
    assert loaded.status == "ok", loaded.errors
    assert kernel.run("%agent untrust").status == "ok"
    kernel.server.script.add(
        Reply(content=[tool_use("Read", {"file_path": str(kernel.cwd / "data.ipynb")})]),
        Reply(content=[tool_use("Read", {"file_path": str(kernel.cwd / "plot.png")})]),
        Reply(content=[tool_use("Bash", {"command": "ls -la | wc -l"})]),
        Reply(content=[text("Done.")]),
    )
    run = kernel.run("%%agent --answer deny\nlook around", timeout=120)
    assert run.status == "ok", run.errors
    assert len(kernel.server.requests) >= 4, "the conversation reached its end"
    assert not marks.exists(), marks.read_text()

    # The user's own import of an installed name gets the installed module too.
    own = kernel.run("import nbformat, yaml\nprint(nbformat.__file__, yaml.__file__)")
    assert own.status == "ok" and str(kernel.cwd) not in own.stdout, own.stdout
    assert not marks.exists(), marks.read_text()


def test_a_module_imported_from_the_folder_before_loading_stops_the_load(make_kernel):
    kernel = make_kernel("planted-before")
    (kernel.cwd / "html2text.py").write_text("PLANTED = True\n")
    assert kernel.run("import html2text").status == "ok"
    loaded = kernel.run("%load_ext nb_agent")
    shown = "".join(e.get("evalue", "") for e in loaded.errors) + loaded.stdout + loaded.stderr
    assert "nb_agent was not loaded" in shown and "html2text" in shown, shown


def test_the_extension_registers_the_kernels_connection_file_as_a_secret(make_kernel):
    kernel = make_kernel("connection-file")
    assert kernel.run("%load_ext nb_agent").status == "ok"
    shown = kernel.run(
        "from nb_agent import hidden_paths\n"
        "print(any(p == __import__('pathlib').Path(get_ipython().kernel.parent.abs_connection_file) for p in hidden_paths.registered_secrets()))"
    )
    assert shown.stdout.strip() == "True", (shown.stdout, shown.errors)
