"""%agent rewind in a real kernel: the variables (real pandas), the files the agent's code and
Bash wrote, deleted and appended to, and the conversation go back to before the run; what
the user changed after it is kept; --list, --code, --conversation, --redo; bad input."""

from __future__ import annotations

from nb_agent.testing import Reply, text, tool_use

AGENT = "%%agent --permission-mode bypassPermissions\n"


def _run_agent(kernel, prompt: str, *steps) -> None:
    kernel.server.script.add(*[Reply(content=[step]) for step in steps], Reply(content=[text("Done.")]))
    run = kernel.run(AGENT + prompt)
    assert run.status == "ok", run.errors


def _value(kernel, expression: str) -> str:
    out = kernel.run(f"print(repr(({expression})))")
    assert out.status == "ok", out.errors
    return out.stdout.strip()


def test_a_run_is_undone_variables_files_and_conversation(kernel, requests_since):
    (kernel.cwd / "rw_log.txt").write_text("line 1\n")
    (kernel.cwd / "rw_old.txt").write_text("old\n")
    setup = kernel.run(
        "import warnings, numpy as np, pandas as pd\nwarnings.simplefilter('ignore')\n"
        "rw_sales = pd.DataFrame({'v': [1.0, None, 3.0, None]})\nrw_alias = rw_sales\nrw_cfg = {'mode': 'slow'}"
    )
    assert setup.status == "ok", setup.errors
    _run_agent(
        kernel, "clean rw_sales and save it",
        tool_use("ExecuteCode", {"code": "rw_sales.dropna(inplace=True)\nrw_cfg['mode'] = 'fast'\nrw_sales.to_csv('rw_clean.csv')\nrw_made = 1"}),
        tool_use("Bash", {"command": "echo 'line 2' >> rw_log.txt && rm rw_old.txt"}),
    )
    assert (kernel.cwd / "rw_clean.csv").exists() and _value(kernel, "len(rw_sales)") == "2"
    rewound = kernel.run("%agent rewind")
    assert rewound.status == "ok", rewound.errors
    report = rewound.stdout
    assert report.startswith('Rewound to before run') and "clean rw_sales and save it" in report
    assert "files: rw_log.txt back to its earlier version; rw_old.txt brought back; rw_clean.csv removed" in report
    variables = next(line for line in report.splitlines() if line.startswith("variables: "))
    assert "rw_cfg — back to dict" in variables and "rw_made — removed (the agent created it)" in variables
    assert "conversation: back to before" in report
    assert _value(kernel, "len(rw_sales), rw_alias is rw_sales, rw_cfg['mode'], 'rw_made' in globals()") == "(4, True, 'slow', False)"
    assert not (kernel.cwd / "rw_clean.csv").exists()
    assert (kernel.cwd / "rw_log.txt").read_text() == "line 1\n" and (kernel.cwd / "rw_old.txt").read_text() == "old\n"
    start = len(kernel.server.requests)
    kernel.server.script.add(Reply(content=[text("Hi again.")]))
    kernel.run(AGENT + "what now?")
    assert "clean rw_sales and save it" not in str(kernel.server.requests[start]["messages"])


def test_list_redo_and_what_the_user_changed_is_kept(kernel):
    kernel.run("import pandas as pd\nkp_frame = pd.DataFrame({'a': [1, 2]})\nkp_list = [1]")
    _run_agent(kernel, "extend them", tool_use("ExecuteCode", {"code": "kp_frame['b'] = 0\nkp_list.append(2)\nopen('kp_out.txt', 'w').write('x')"}))
    listed = kernel.run("%agent checkpoints").stdout
    assert "Checkpoints of this conversation" in listed and '"extend them"' in listed and "variables: kp_frame, kp_list" in listed and "files: 1" in listed
    kernel.run("kp_list.append('mine')")  # the user goes on after the run
    report = kernel.run("%agent rewind").stdout
    assert "kept: kp_list — you changed it after the run" in report
    assert _value(kernel, "list(kp_frame.columns), kp_list") == "(['a'], [1, 2, 'mine'])"
    assert not (kernel.cwd / "kp_out.txt").exists()
    assert "%agent rewind --redo undoes the rewind" in kernel.run("%agent rewind --list").stdout
    redone = kernel.run("%agent rewind --redo").stdout
    assert redone.startswith("Undid the rewind") and (kernel.cwd / "kp_out.txt").exists()
    assert _value(kernel, "list(kp_frame.columns)") == "['a', 'b']"
    assert "Nothing to redo" in kernel.run("%agent rewind --redo").stdout


def test_code_only_and_conversation_only(kernel, requests_since):
    _run_agent(kernel, "set co_x", tool_use("ExecuteCode", {"code": "co_x = 41"}))
    code = kernel.run("%agent rewind --code").stdout
    assert "(code only)" in code and _value(kernel, "'co_x' in globals()") == "False"
    start = len(kernel.server.requests)
    kernel.server.script.add(Reply(content=[text("ok")]))
    kernel.run(AGENT + "and now?")
    sent = str(kernel.server.requests[start]["messages"])
    assert "set co_x" in sent and "The user rewound the kernel" in sent
    _run_agent(kernel, "set cv_y", tool_use("ExecuteCode", {"code": "cv_y = 7"}))
    conversation = kernel.run("%agent rewind --conversation").stdout
    assert "(conversation only)" in conversation and _value(kernel, "cv_y") == "7"


def test_bad_input_says_what_it_can_do(kernel):
    assert "usage: %agent rewind" in kernel.run("%agent rewind --code --conversation").stdout
    assert "usage: %agent rewind" in kernel.run("%agent rewind --frobnicate").stdout
    _run_agent(kernel, "anything")
    unknown = kernel.run("%agent rewind 999").stdout
    assert "No checkpoint '999' in this conversation" in unknown and "%agent rewind --list" in unknown


def test_changes_the_code_does_not_show_are_rewound(kernel):
    """In place through ``exec`` of a file (the call's code names nothing it changes): the
    array, dict and DataFrame were snapshotted before the call and are put back. Through a
    method of the user's own class: nb_agent does not copy objects of unknown kinds (a user
    ``__deepcopy__`` may be slow or have effects), so that one is said, and left as it is."""
    (kernel.cwd / "ex_mutate.py").write_text("ex_prices *= 2\nex_settings['mode'] = 'fast'\nex_frame.drop(index=[0, 1], inplace=True)\n")
    kernel.run(
        "import numpy as np, pandas as pd\nex_prices = np.ones(5)\nex_settings = {'mode': 'slow'}\nex_frame = pd.DataFrame({'a': range(4)})\n"
        "class Basket:\n    def __init__(self):\n        self.items = ['apple']\n    def add(self, item):\n        self.items.append(item)\n"
        "ex_basket = Basket()"
    )
    _run_agent(kernel, "double the prices", tool_use("ExecuteCode", {"code": "exec(open('ex_mutate.py').read())\nex_basket.add('pear')"}))
    assert _value(kernel, "ex_prices.sum(), ex_settings['mode'], len(ex_frame), ex_basket.items") == "(np.float64(10.0), 'fast', 2, ['apple', 'pear'])"
    report = kernel.run("%agent rewind --code").stdout
    assert "variables: ex_prices — back to numpy.ndarray" in report and "ex_settings — back to dict" in report, report
    assert "not restored: ex_basket — no way to copy a Basket" in report
    assert _value(kernel, "ex_prices.sum(), ex_settings['mode'], len(ex_frame), ex_basket.items") == "(np.float64(5.0), 'slow', 4, ['apple', 'pear'])"
