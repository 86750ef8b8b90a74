"""Which cells and lines the reproducibility check runs (read, never run)."""

from __future__ import annotations

import nbformat

from nb_agent.jupyter.reproduce.check import cells_to_run


def test_the_agents_cells_and_lines_are_left_out_and_positions_kept():
    cells = [
        nbformat.v4.new_code_cell("%load_ext nb_agent\n%agent cassette cassettes/x.json"),
        nbformat.v4.new_markdown_cell("# Title"),
        nbformat.v4.new_code_cell("import math\n%agent reproduce\nroot = math.sqrt(2)"),
        nbformat.v4.new_code_cell("%%agent\nexplain root"),
        nbformat.v4.new_code_cell("   "),
        nbformat.v4.new_code_cell("%matplotlib inline\nprint(root)  # %agent in a comment stays", execution_count=3),
    ]
    found = [(c.position, c.source, c.ran) for c in cells_to_run(cells)]
    assert found == [
        (3, "import math\n\nroot = math.sqrt(2)", False),
        (6, "%matplotlib inline\nprint(root)  # %agent in a comment stays", True),
    ]


def test_live_cells_as_dicts_with_list_sources_and_output_kinds():
    live = [{"cell_type": "code", "id": "a1", "source": ["x = 1\n", "x"], "execution_count": 1, "outputs": [
        {"output_type": "execute_result", "data": {"text/plain": "1"}, "metadata": {}, "execution_count": 1},
        {"output_type": "stream", "name": "stderr", "text": "a warning"},
    ]}]  # fmt: skip
    (only,) = cells_to_run(live)
    assert (only.cell_id, only.source, only.kinds) == ("a1", "x = 1\nx", frozenset({"text"}))
