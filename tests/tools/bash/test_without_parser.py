"""Audit defect 3: without tree-sitter (the ``tools`` extra) Bash is not offered, and says
why, instead of being offered and failing every call with ModuleNotFoundError."""

from __future__ import annotations

import json
import subprocess
import sys

_PROBE = r"""
import importlib.abc, json, sys

class NoTreeSitter(importlib.abc.MetaPathFinder):  # as if the tools extra were not installed
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("tree_sitter", "tree_sitter_bash"):
            raise ModuleNotFoundError(f"No module named {name!r}")
        return None

sys.meta_path.insert(0, NoTreeSitter())
from nb_agent.agent import builtin_tools
from nb_agent.tools.pool import assemble_tool_pool

tools = builtin_tools()
offered = [t.name for t in assemble_tool_pool(tools, [], lambda t: False)]
reasons = {t.name: t.unavailable_reason() for t in tools if t.name in ("Bash", "BashOutput", "KillShell")}
print(json.dumps({"offered": offered, "reasons": reasons}))
"""


def test_bash_is_not_offered_without_its_parser_and_says_why() -> None:
    done = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, timeout=120)  # separates "ran" from "hung"
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert {"Read", "Write", "Grep"} <= set(found["offered"])
    assert not {"Bash", "BashOutput", "KillShell"} & set(found["offered"])
    for reason in found["reasons"].values():
        assert reason == "the Bash parser needs tree-sitter, which is not installed (pip install 'nb_agent[tools]')"


def test_with_its_parser_bash_is_offered() -> None:
    from nb_agent.tools.bash import bash_tools

    assert [t.unavailable_reason() for t in bash_tools()] == [None, None, None]
