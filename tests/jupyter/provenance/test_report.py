"""The provenance note from a history and cells (no kernel): fallbacks without the ledger,
bounds, what is not said."""

from __future__ import annotations

from nb_agent.jupyter.live.protocol import LiveCell
from nb_agent.jupyter.provenance import CellLedger, KernelHistory, provenance, report


def history(*inputs: str, ids: list[str | None] | None = None) -> KernelHistory:
    ledger = None
    if ids is not None:
        ledger = CellLedger()
        ledger.cells = {count: cell_id for count, cell_id in enumerate(ids, start=1)}
    return KernelHistory(raw=["", *inputs], parsed=["", *inputs], ledger=ledger)


def code(cell_id: str, source: str, count: int | None = None) -> LiveCell:
    return LiveCell(id=cell_id, source=source, execution_count=count)


def test_without_the_ledger_a_changed_cell_may_also_be_an_earlier_kernels():
    found = provenance([code("a", "x = 2", 1)], history("x = 1"), ["x"])
    assert found.stale[0].text == "cell a (#1) [1] (or its count is from an earlier kernel): ran `x = 1`, now `x = 2`"


def test_without_the_ledger_a_count_that_ran_another_cells_code_is_an_earlier_kernels():
    found = provenance([code("a", "y = 1", 1), code("b", "x = 1", 2)], history("x = 1", "z = 0"), [])
    assert [e.cell_id for e in found.earlier] == ["a"]


def test_with_the_ledger_a_count_another_cell_ran_is_an_earlier_kernels_and_a_changed_cell_is_stale():
    cells = [code("a", "x = 1", 2), code("b", "y = 2", 1)]
    found = provenance(cells, history("y = 1", "x = 1", ids=["b", "other"]), [])
    assert [e.cell_id for e in found.earlier] == ["a"]
    assert found.stale[0].text == "cell b (#2) [1]: ran `y = 1`, now `y = 2`"


def test_a_variable_no_cell_sets_is_said_unless_a_star_import_may_have_made_it():
    text_of = lambda found: [e.text for e in found.hidden]  # noqa: E731
    assert text_of(provenance([code("a", "print(1)", 1)], history("print(1)"), ["mystery"])) == [
        "mystery: no cell the kernel ran sets it (made by your ExecuteCode, %run, or code outside this notebook)"
    ]
    assert text_of(provenance([code("a", "from m import *", 1)], history("from m import *"), ["mystery"])) == []


def test_past_the_history_bound_nothing_is_claimed(monkeypatch):
    monkeypatch.setattr(report, "MAX_HISTORY", 2)
    found = provenance([], history("old = 1", "pass", "pass"), ["old"])
    assert found.hidden == []


def test_each_kind_is_bounded_and_each_line_cut():
    cells = [code(f"c{i}", f"value_{i} = {'9' * 300}") for i in range(30)]
    text = provenance(cells, history(), []).text()
    assert text is not None and "Never run (and 22 more):" in text
    assert max(len(line) for line in text.splitlines()[1:]) <= report.MAX_LINE_CHARS + 4
    assert text.count("\n  - ") == report.MAX_ENTRIES


def test_markdown_agent_and_skipped_cells_are_left_out():
    cells = [
        LiveCell(id="m", cell_type="markdown", source="# Title"),
        code("agent", "%%agent\nhelp"),
        code("run", "%%agent\nnow"),
        code("mine", "made = 1", None).model_copy(update={"metadata": {"nb_agent": {"agent_made": True}}}),
        code("blank", "   "),
    ]
    assert provenance(cells, history(), [], skip={"run"}).text() is None
