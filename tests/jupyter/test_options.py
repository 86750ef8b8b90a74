"""Parsing the ``%%agent`` option line and ``%agent`` subcommands (no kernel)."""

from __future__ import annotations

import pytest

from nb_agent.jupyter.commands import LineCommand, parse_line_command
from nb_agent.jupyter.options import CellOptions, OptionsError, parse_cell_options


def test_cell_options_all_set():
    options = parse_cell_options('--model claude-x --permission-mode plan --allow "Bash(git status:*)" --allow Read --deny Bash(rm:*) --max-turns 3 --new')
    assert options == CellOptions(
        model="claude-x", permission_mode="plan", allow=["Bash(git status:*)", "Read"], deny=["Bash(rm:*)"], max_turns=3, new=True
    )


def test_cell_options_default():
    assert parse_cell_options("") == CellOptions()


@pytest.mark.parametrize(
    "line, fragment",
    [
        ("--frob", "unrecognized arguments: --frob"),
        ("--permission-mode sideways", "invalid choice"),
        ("--max-turns 0", "must be at least 1"),
        ("--max-turns many", "expected a whole number"),
        ("--model", "expected one argument"),
        ('--allow "unbalanced', "No closing quotation"),
        ("positional words", "unrecognized arguments"),
    ],
)
def test_bad_cell_options_raise_with_usage(line, fragment):
    with pytest.raises(OptionsError) as caught:
        parse_cell_options(line)
    rendered = caught.value.render()
    assert "usage: %%agent" in rendered and fragment in rendered


def test_help_is_an_options_error_carrying_the_usage():
    with pytest.raises(OptionsError) as caught:
        parse_cell_options("--help")
    assert "--permission-mode" in caught.value.render()


@pytest.mark.parametrize(
    "line, expected",
    [
        ("", LineCommand(name="status")),
        ("status", LineCommand(name="status")),
        ("  new ", LineCommand(name="new")),
        ("resume", LineCommand(name="resume")),
        ("resume 3f2a", LineCommand(name="resume", arg="3f2a")),
        ("allow Bash(git status:*)", LineCommand(name="allow", arg="Bash(git status:*)")),
        ('deny "Bash(rm -rf:*)"', LineCommand(name="deny", arg="Bash(rm -rf:*)")),
        ("mode acceptEdits", LineCommand(name="mode", arg="acceptEdits")),
        ("model claude-opus-4-5", LineCommand(name="model", arg="claude-opus-4-5")),
        ("notebook /tmp/a b.ipynb", LineCommand(name="notebook", arg="/tmp/a b.ipynb")),
        ("compact keep the numbers", LineCommand(name="compact", arg="keep the numbers")),
        ("--help", LineCommand(name="help")),
        ("COST", LineCommand(name="cost")),
    ],
)
def test_line_commands(line, expected):
    assert parse_line_command(line) == expected


@pytest.mark.parametrize(
    "line, fragment",
    [
        ("frobnicate", "unknown subcommand 'frobnicate'"),
        ("allow", "allow needs RULE"),
        ("mode", "mode needs MODE"),
        ("mode sideways", "unknown permission mode 'sideways'"),
        ("cost now", "cost takes no argument"),
    ],
)
def test_bad_line_commands(line, fragment):
    with pytest.raises(OptionsError) as caught:
        parse_line_command(line)
    rendered = caught.value.render()
    assert fragment in rendered and "usage: %agent" in rendered


@pytest.mark.parametrize(("line", "expected"), [("--sandbox on", True), ("--sandbox off", False), ("", None)])
def test_sandbox_option(line, expected):
    assert parse_cell_options(line).sandbox is expected


def test_sandbox_option_rejects_other_values():
    with pytest.raises(OptionsError) as caught:
        parse_cell_options("--sandbox maybe")
    assert "invalid choice" in caught.value.render()
    assert parse_line_command("sandbox") == LineCommand(name="sandbox")


def test_sandbox_option_holds_for_the_cell_only(tmp_path):
    from types import SimpleNamespace

    from nb_agent.engine import EngineConfig, EngineOptions
    from nb_agent.jupyter.cell_run import apply_overrides
    from nb_agent.jupyter.engine_factory import sandbox_runtime
    from nb_agent.tools.bash.sandbox import SandboxRuntime

    runtime = SandboxRuntime(project_dir=tmp_path)
    engine = SimpleNamespace(config=EngineConfig(cwd=tmp_path, options=EngineOptions(sandbox=runtime)), permission_policy=object())
    assert sandbox_runtime(engine) is runtime
    restore = apply_overrides(engine, parse_cell_options("--sandbox on"), sandbox_runtime(engine))
    assert runtime.enabled and runtime.override is True
    restore()
    assert not runtime.enabled and runtime.override is None


def test_an_unknown_option_says_so_first_and_guesses_the_typo():
    with pytest.raises(OptionsError) as caught:
        parse_cell_options("--permision-mode plan")
    rendered = caught.value.render()
    first, *rest = rendered.splitlines()
    assert first.startswith("error: unrecognized arguments: --permision-mode") and "→ --permission-mode" in first
    assert len(rendered.splitlines()) < 12 and "--help lists every option" in rendered  # not 40 lines of help


def test_the_parser_is_shared_but_each_cells_options_are_its_own():
    from nb_agent.jupyter.options import cell_parser, parse_cell_options

    first = parse_cell_options("--allow Read")
    first.allow.append("Bash")
    assert parse_cell_options("").allow == [] and parse_cell_options("--allow Edit").allow == ["Edit"]
    assert cell_parser() is cell_parser()
