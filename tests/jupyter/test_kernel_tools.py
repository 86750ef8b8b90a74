"""The kernel tools inside a real kernel: ExecuteCode's namespace, images, errors, live
output; the variables summary attached to each prompt."""

from __future__ import annotations

import json

from nb_agent.testing import Reply, text, tool_use

BYPASS = "%%agent --permission-mode bypassPermissions\n"


def _tool_result_blocks(request):
    return [b for b in request["messages"][-1]["content"] if b.get("type") == "tool_result"]


def test_execute_code_creates_a_variable_the_next_cell_uses(kernel):
    kernel.server.script.add(
        Reply(content=[tool_use("ExecuteCode", {"code": "import math\nshared_total = sum(range(10))\nprint('computed', shared_total)"})]),
        Reply(content=[text("Stored shared_total.")]),
    )
    run = kernel.run(BYPASS + "compute a total")
    assert run.status == "ok", run.errors
    follow = kernel.run("shared_total * 2")
    assert follow.status == "ok"
    (result,) = follow.of_type("execute_result")
    assert result["content"]["data"]["text/plain"] == "90"
    # the agent's own print went to the tool result, not to the cell
    assert "computed" not in run.stdout


def test_a_plot_reaches_the_model_as_an_image(kernel, requests_since):
    code = "import matplotlib.pyplot as plt\nfig, ax = plt.subplots()\nax.plot([1, 3, 2])\nax.set_title('demo')"
    kernel.server.script.add(Reply(content=[tool_use("ExecuteCode", {"code": code})]), Reply(content=[text("A line plot.")]))
    run = kernel.run(BYPASS + "plot something")
    assert run.status == "ok", run.errors
    (result,) = _tool_result_blocks(requests_since()[-1])
    images = [b for b in result["content"] if b.get("type") == "image"]
    assert len(images) == 1
    assert images[0]["source"]["media_type"] == "image/png"
    assert images[0]["source"]["data"].startswith("iVBORw0KGgo")  # PNG magic, base64
    # the figure was closed: it does not also land in the cell's output
    assert not [m for m in run.of_type("display_data") if "image/png" in m["content"]["data"]]
    assert kernel.run("import matplotlib.pyplot as plt; print(len(plt.get_fignums()))").stdout.strip() == "0"


def test_exceptions_come_back_as_error_results_with_the_traceback(kernel, requests_since):
    code = "def broken():\n    return 1 / 0\nbroken()"
    kernel.server.script.add(Reply(content=[tool_use("ExecuteCode", {"code": code})]), Reply(content=[text("It failed.")]))
    run = kernel.run(BYPASS + "run the broken thing")
    assert run.status == "ok", run.errors
    (result,) = _tool_result_blocks(requests_since()[-1])
    assert result.get("is_error") is True
    body = result["content"] if isinstance(result["content"], str) else json.dumps(result["content"])
    assert "ZeroDivisionError" in body and "return 1 / 0" in body and "\x1b[" not in body
    assert "error" in run.final_bundle["text/markdown"]


def test_dataframes_and_ipython_syntax(kernel, requests_since, helpers):
    code = "import pandas as pd\nframe_for_agent = pd.DataFrame({'a': [1, 2], 'b': [3.5, 4.5]})\n%time _ = 1\nframe_for_agent"
    kernel.server.script.add(Reply(content=[tool_use("ExecuteCode", {"code": code})]), Reply(content=[text("ok")]))
    run = kernel.run(BYPASS + "make a frame")
    assert run.status == "ok", run.errors
    result_text = helpers.last_user_text(requests_since()[-1])
    assert "[result]" in result_text and "3.5" in result_text and "4.5" in result_text
    assert "Wall time" in result_text  # %time ran, its output captured


def test_print_output_shows_live_on_the_card(kernel):
    code = "import time\nfor i in range(4):\n    print('tick', i, flush=True)\n    time.sleep(0.3)"
    kernel.server.script.add(Reply(content=[tool_use("ExecuteCode", {"code": code})]), Reply(content=[text("ok")]))
    run = kernel.start(BYPASS + "count slowly")
    kernel.wait_for(run, lambda: kernel.widgets.ever(lambda s: "tick 1" in str(s.get("value", "")) and "running" in str(s.get("value", ""))))
    kernel.wait(run)
    assert run.status == "ok", run.errors


def test_variables_summary_is_attached_to_the_prompt(kernel, requests_since):
    assert kernel.run("summary_df_rows = list(range(7))\nsummary_flag = True").status == "ok"
    kernel.server.script.add(Reply(content=[text("I see them.")]))
    assert kernel.run("%%agent\nwhat do I have?").status == "ok"
    last = json.dumps(requests_since()[-1]["messages"][-1])
    assert "summary_df_rows: list, len 7" in last and "summary_flag: bool" in last
    assert "system-reminder" in last


def test_inspect_variables_tool(kernel, requests_since, helpers):
    assert kernel.run("import numpy as np\ninspect_me = np.arange(12).reshape(3, 4)").status == "ok"
    kernel.server.script.add(
        Reply(content=[tool_use("InspectVariables", {"name": "inspect_me"})]), Reply(content=[text("ok")])
    )
    assert kernel.run("%%agent\ndescribe inspect_me").status == "ok"  # read-only: no approval needed
    result = helpers.last_user_text(requests_since()[-1])
    assert "shape (3, 4)" in result and "max 11" in result
