"""The ``%%agent`` input transformer, the kernel permission policy, the import boundary."""

from __future__ import annotations

import ast
import asyncio
import subprocess
import sys
from types import SimpleNamespace

from IPython.core.async_helpers import _asyncio_runner, _trio_runner

from nb_agent.jupyter.transformer import AgentCellTransformer
from nb_agent.permissions.types import PermissionAllow, PermissionAsk, PermissionDeny


def _transform(lines, *, autoawait=True, runner=_asyncio_runner):
    return AgentCellTransformer(SimpleNamespace(autoawait=autoawait, loop_runner=runner))(lines)


def test_agent_cell_becomes_one_await():
    out = _transform(["\n", "%%agent --model x\n", "line one\n", ">>> not a prompt\n"])
    (code,) = out
    assert code.startswith("await __import__('nb_agent.jupyter.magics'")
    assert "_run_cell_entry('--model x', 'line one\\n>>> not a prompt\\n')" in code
    compile(code, "<cell>", "exec", flags=0x2000)  # PyCF_ALLOW_TOP_LEVEL_AWAIT


def test_body_with_quotes_and_backslashes_round_trips():
    body = "say \"hi\" and 'bye' \\n ''' \"\"\"\n"
    (code,) = _transform(["%%agent\n", body])
    call = ast.parse(code.removeprefix("await ")).body[0].value
    assert ast.literal_eval(call.args[1]) == body


def test_other_cells_untouched():
    assert _transform(["x = 1\n"]) == ["x = 1\n"]
    assert _transform(["%%agentx\n", "y\n"]) == ["%%agentx\n", "y\n"]
    assert _transform(["%agent status\n"]) == ["%agent status\n"]
    assert _transform(["%agent compact\n", "x = 1\n"]) == ["%agent compact\n", "x = 1\n"]


def test_compact_alone_is_awaited():
    (code,) = _transform(["%agent compact keep numbers\n"])
    assert "_run_line_entry('compact keep numbers')" in code


def test_no_rewrite_without_asyncio_autoawait():
    cell = ["%%agent\n", "hello\n"]
    assert _transform(cell, autoawait=False) == cell
    assert _transform(cell, runner=_trio_runner) == cell


def _ctx(tmp_path, mode="default"):
    from nb_agent.testing.harness import tool_context

    return tool_context([], session_dir=tmp_path, permission_mode=mode)


def test_execute_code_asks_until_always_allowed(tmp_path):
    from nb_agent.jupyter.tools import ExecuteCode, KernelBridge
    from nb_agent.permissions import RuleBasedPolicy

    tool = ExecuteCode(KernelBridge(shell=None))
    parsed = tool.parse_input({"code": "1"})

    def decide(policy, mode="default"):
        return asyncio.run(policy.decide(tool, parsed, _ctx(tmp_path, mode)))

    policy = RuleBasedPolicy(project_dir=tmp_path)
    decision = decide(policy)
    assert isinstance(decision, PermissionAsk) and decision.suggested_rule == "ExecuteCode"
    assert isinstance(decide(RuleBasedPolicy(project_dir=tmp_path, mode="acceptEdits")), PermissionAsk)
    policy.add_session_rule("allow", "ExecuteCode")  # what "Always allow" does
    assert isinstance(decide(policy), PermissionAllow)
    policy.add_session_rule("ask", "ExecuteCode")
    assert isinstance(decide(policy), PermissionAsk)
    assert isinstance(decide(RuleBasedPolicy(project_dir=tmp_path, mode="plan", allow=["ExecuteCode"])), PermissionDeny)
    assert isinstance(decide(RuleBasedPolicy(project_dir=tmp_path, mode="bypassPermissions")), PermissionAllow)


def test_malformed_configured_rules_are_left_out_with_a_warning(tmp_path, monkeypatch):
    from nb_agent.jupyter.engine_factory import valid_rules
    from nb_agent.jupyter.session import KernelAgentSession

    monkeypatch.chdir(tmp_path)
    settings = SimpleNamespace(allow=["Bash(", "Read"], deny=[])
    session = KernelAgentSession(SimpleNamespace(user_ns={}), settings)
    assert valid_rules(settings, "allow", session.warn) == ["Read"]
    assert len(session.warnings) == 1 and "Bash(" in session.warnings[0]


def test_engine_never_imports_the_jupyter_layer():
    code = (
        "import sys, nb_agent.engine, nb_agent.tools.files, nb_agent.tools.bash, nb_agent.permissions\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('IPython', 'ipywidgets', 'ipykernel') or m.startswith('nb_agent.jupyter')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_loading_the_extension_module_is_light():
    code = (
        "import sys, nb_agent.jupyter.extension\n"
        "print([m for m in ('anthropic', 'ipywidgets', 'markdown_it', 'nb_agent.engine', 'pandas') if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
