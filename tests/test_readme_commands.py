"""The README's commands exist and do what it says; it documents every option, subcommand
and setting the code has."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import nbformat

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text()
NBVAL = "--nbval --nbval-current-env --nbval-sanitize-with notebooks/sanitize.cfg notebooks"


def _first_bash_block() -> list[str]:
    block = re.search(r"```bash\n(.*?)```", README, re.DOTALL)
    assert block is not None
    return [line for line in block.group(1).splitlines() if line and not line.startswith("#")]


def test_the_two_commands_are_the_scripts_and_ci_runs_the_second() -> None:
    assert _first_bash_block() == ["bash scripts/demo.sh", "bash scripts/test.sh"]
    for script in ("demo.sh", "test.sh"):
        assert subprocess.run(["bash", "-n", str(REPO / "scripts" / script)]).returncode == 0
    demo = (REPO / "scripts" / "demo.sh").read_text()
    assert 'pip install -q -e ".[demo]"' in demo and "python -m nb_agent.jupyter.demo notebooks/quickstart.ipynb" in demo
    test = (REPO / "scripts" / "test.sh").read_text()
    assert 'pip install -q -e ".[test]"' in test and "pytest -q -p no:cacheprovider tests" in test and NBVAL in test
    ci = (REPO / ".ci" / "run").read_text()
    assert "python3 -m venv .venv" in ci and ci.rstrip().endswith("bash scripts/test.sh")
    pyproject = (REPO / "pyproject.toml").read_text()  # (tomllib is 3.11+; the project supports 3.10)
    extras = dict(re.findall(r"^(\w+) = \[(.*?)\]$", pyproject, re.MULTILINE | re.DOTALL))
    assert {"demo", "test", "jupyter", "tools", "mcp"} <= extras.keys()
    assert '"nbclient' in extras["demo"] and "jupyter,tools,mcp" in extras["demo"] and '"nbval' in extras["test"]


def test_the_demo_command_executes_the_quickstart_offline(tmp_path: Path) -> None:
    out = tmp_path / "executed.ipynb"
    run = subprocess.run(
        [sys.executable, "-m", "nb_agent.jupyter.demo", "notebooks/quickstart.ipynb", "--out", str(out)],
        cwd=REPO, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    assert f"Executed notebook written to {out}" in run.stdout
    assert "answered “allow” by --answer" in run.stdout  # the cells and their outputs are printed
    executed = nbformat.read(out, as_version=4)
    last = executed.cells[-1]
    assert last.source == "%agent cassette" and "replayed 10 of 10 recorded requests" in last.outputs[0].text


def test_readme_documents_every_option_subcommand_and_setting() -> None:
    from nb_agent.jupyter.commands import SUBCOMMANDS
    from nb_agent.jupyter.magics import AgentMagics
    from nb_agent.jupyter.options import cell_parser

    options = [o for action in cell_parser()._actions for o in action.option_strings if o.startswith("--") and o != "--help"]
    missing = [o for o in options if f"`{o}" not in README]
    missing += [f"%agent {s.name}" for s in SUBCOMMANDS if f"`%agent {s.name}" not in README]
    missing += [name for name in AgentMagics.class_traits(config=True) if f"`{name}`" not in README]
    assert not missing, f"README does not document: {missing}"


def test_readme_links_and_paths_exist() -> None:
    for target in re.findall(r"\]\(((?:notebooks|nb_agent|scripts|jupyter-config)/[^)#]+)\)", README):
        assert (REPO / target).exists(), target
    for notebook in sorted((REPO / "notebooks").glob("*.ipynb")):
        assert f"notebooks/{notebook.name}" in README, notebook.name
    assert (REPO / "jupyter-config" / "ipython_kernel_config.py").exists()
