"""The permission chain is a tuple of named steps; families add theirs, the generic
steps know no family."""

from __future__ import annotations

import ast
import inspect

import nb_agent.permissions.policy as policy_module
import nb_agent.permissions.steps as steps_module
from nb_agent.permissions.chain import chain_for

GENERIC = ["deny_rule", "plan_mode", "ask_rule", "tool_check", "tool_asks", "bypass_mode", "allow_rule",
           "read_only_allows", "tool_vouches"]


def _names(family: str) -> list[str]:
    return [step.__name__ for step in chain_for(family)]  # type: ignore[arg-type]


def test_the_generic_chain_in_order() -> None:
    assert _names("other") == GENERIC
    assert _names("web_fetch") == GENERIC


def test_each_family_puts_its_steps_in_place() -> None:
    assert _names("shell") == ["deny_rule", "plan_mode", "ask_rule", "tool_check", "shell_guard_step", "tool_asks",
                               "bypass_mode", "shell_allow_rule", "shell_read_only", "tool_vouches"]
    assert _names("file_edit") == ["deny_rule", "plan_mode", "ask_rule", "tool_check", "write_safety", "tool_asks",
                                   "bypass_mode", "accept_edits_mode", "allow_rule", "read_only_allows", "tool_vouches"]
    assert _names("file_read") == [*GENERIC[:-2], "read_within_directories", "tool_vouches"]


def test_every_step_says_which_step_it_is() -> None:
    for family in ("other", "shell", "file_edit", "file_read"):
        for step in chain_for(family):  # type: ignore[arg-type]
            doc = inspect.getdoc(step) or ""
            assert doc[:2].rstrip(".").isdigit(), step.__name__


def test_the_policy_and_the_generic_steps_have_no_family_branch() -> None:
    for module in (policy_module, steps_module):
        tree = ast.parse(inspect.getsource(module))
        families = [
            node.comparators[0].value
            for node in ast.walk(tree)
            if isinstance(node, ast.Compare) and len(node.comparators) == 1
            and isinstance(node.comparators[0], ast.Constant)
            and node.comparators[0].value in ("shell", "file_edit", "file_read", "web_fetch")
        ]
        assert families == [], (module.__name__, families)
