"""The memory budget with a 1 GB DataFrame in a real kernel: a change in place costs only the
changed column (copy-on-write) and stays restorable; a rebinding that would keep the old
1 GB frame alive beyond the budget lets it go and says it cannot be restored."""

from __future__ import annotations

import pytest

from nb_agent.testing import Reply, text, tool_use

pytestmark = pytest.mark.timeout(600)  # building and copying a 1 GB frame on a loaded machine


def test_a_one_gigabyte_frame_under_the_budget_rule(make_kernel, helpers):
    kernel = make_kernel("budget")
    assert kernel.run("%load_ext nb_agent\n%config AgentMagics.checkpoint_memory = 512 * 1024 * 1024").status == "ok"
    built = kernel.run(
        "import numpy as np, pandas as pd\n"
        "sales = pd.DataFrame({f'v{i}': np.ones(8_400_000) for i in range(16)})\n"
        "sales['flag'] = np.zeros(8_400_000, dtype='int8')\n"
        "print(round(sales.memory_usage().sum() / 1e9, 2))",
        timeout=300,
    )
    assert built.status == "ok", built.errors
    assert float(built.stdout) >= 1.0
    kernel.server.script.add(
        Reply(content=[tool_use("ExecuteCode", {"code": "sales.loc[0, 'flag'] = 1"})]),
        Reply(content=[tool_use("ExecuteCode", {"code": "sales = sales[sales['v0'] > 0].copy()"})]),
        Reply(content=[text("Done.")]),
    )
    start = len(kernel.server.requests)
    run = kernel.run("%%agent --permission-mode bypassPermissions\nflag and filter", timeout=300)
    assert run.status == "ok", run.errors
    first = helpers.last_user_text(kernel.server.requests[start + 1])
    second = helpers.last_user_text(kernel.server.requests[start + 2])
    assert "sales: changed in place (values)" in first and "not restorable" not in first
    assert "sales: rebound" in second and "not restorable (keeping it would exceed the memory budget of 512.0 MB)" in second
    report = kernel.run("%agent rewind --code", timeout=300).stdout
    assert "not restored: sales — keeping it would exceed the memory budget of 512.0 MB" in report, report
