"""``%%agent [OPTIONS] /NAME ARGS``: where the options end and the invocation begins."""

from __future__ import annotations

import pytest

from nb_agent.jupyter.options import parse_cell_options, split_invocation


@pytest.mark.parametrize(
    ("line", "options", "invocation"),
    [
        ("/tidy-notebook report.ipynb", "", "/tidy-notebook report.ipynb"),
        ('--model haiku /summarize "the March dip"', "--model haiku", '/summarize "the March dip"'),
        ("--answer allow --answer allow /check-data data/sales.csv", "--answer allow --answer allow", "/check-data data/sales.csv"),
        ('--answer "deny:write to /tmp instead" /x', '--answer "deny:write to /tmp instead"', "/x"),
        ("--model /opt/models/local", "--model /opt/models/local", None),
        ("--new", "--new", None),
        ("", "", None),
    ],
)
def test_the_options_end_where_the_invocation_begins(line, options, invocation) -> None:
    assert split_invocation(line) == (options, invocation)
    parse_cell_options(split_invocation(line)[0])  # what is left parses as options
