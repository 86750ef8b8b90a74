"""The demo notebooks are complete and portable: each has its model script and cassette,
chooses the cassette relative to itself, was saved from a real execution that replayed
the whole cassette, and nothing in them names the machine they were recorded on. (nbval
re-executes them: scripts/test.sh.)"""

from __future__ import annotations

import configparser
import json
import re
from pathlib import Path

import nbformat
import pytest

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = REPO / "notebooks"
NAMES = sorted(p.stem for p in NOTEBOOKS.glob("*.ipynb"))


def test_every_notebook_has_a_script_and_a_cassette() -> None:
    assert len(NAMES) >= 5
    assert sorted(p.stem for p in (NOTEBOOKS / "scripts").glob("*.py") if not p.stem.startswith("_")) == NAMES
    assert sorted(p.stem for p in (NOTEBOOKS / "cassettes").glob("*.json")) == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_notebook_was_saved_from_a_full_replay(name: str) -> None:
    notebook = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
    nbformat.validate(notebook)
    assert notebook.cells[0].cell_type == "markdown" and notebook.cells[0].source.startswith("# ")
    code = [c for c in notebook.cells if c.cell_type == "code"]
    assert code[0].source.splitlines() == ["%load_ext nb_agent", f"%agent cassette cassettes/{name}.json"]
    assert [c.execution_count for c in code] == list(range(1, len(code) + 1)), "saved from one top-to-bottom execution"
    for cell in code:
        for output in cell.outputs:
            assert output.output_type != "error", cell.source
            assert not (output.output_type == "stream" and output.name == "stderr"), (cell.source, output.text)
    interactions = json.loads((NOTEBOOKS / "cassettes" / f"{name}.json").read_text())["interactions"]
    assert code[-1].source == "%agent cassette"
    assert f"replayed {len(interactions)} of {len(interactions)} recorded requests" in code[-1].outputs[0].text


@pytest.mark.parametrize("name", NAMES)
def test_nothing_names_the_recording_machine(name: str) -> None:
    cassette = (NOTEBOOKS / "cassettes" / f"{name}.json").read_text()
    saved = (NOTEBOOKS / f"{name}.ipynb").read_text()
    for text in (cassette, saved):
        assert str(REPO) not in text
        assert str(Path.home()) not in text or str(Path.home()) in ("/", "")
    assert "nb_agent-demo-" not in cassette  # the scratch directory is stored as <CWD>


def test_sanitize_config_is_valid_and_named() -> None:
    parser = configparser.ConfigParser()
    parser.read(NOTEBOOKS / "sanitize.cfg")
    assert parser.sections(), "no patterns"
    for section in parser.sections():
        re.compile(parser[section]["regex"])
        assert parser[section]["replace"].strip()
