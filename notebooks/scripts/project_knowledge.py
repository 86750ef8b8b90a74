"""The model's side of project_knowledge.ipynb (see _common.py and record.py)."""

from _common import text, tool_use, turn

TIDY_DONE = """\
The notebook is tidy and runs from top to bottom:

- a title and a one-line purpose at the top;
- `import pandas as pd` once, in the first code cell (the duplicate import is gone);
- **Loading** before **Analysis**: `sales` is defined before `monthly` uses it;
- the empty cell and the scratch cell (`# old attempt`, `sales.head()`) are deleted;
- a **Findings** cell at the end.

I changed no computation: every code cell computes what it did before."""

STYLE_ANSWER = """\
Use the project's house style (the `chart-style` skill):

- `figsize=(8, 4)`, one chart per figure;
- Harbour in `#1f77b4`, Station in `#ff7f0e`, always in that order;
- revenue in thousands of euros on an axis labelled **Revenue (k€)**;
- a title that states the finding, e.g. *Revenue fell in March*."""

DATA_ANSWER = """\
`data/sales_2024.csv` is an export from the till system: one row per shop and month, \
January to April 2024, for the **Harbour** and **Station** shops, with the revenue in euros.

Read it with `pd.read_csv("data/sales_2024.csv", sep=";", decimal=",")`: the file uses `;` \
between fields and `,` as the decimal mark. It is read-only; derived tables go to `out/`."""

SUMMARY = """\
- **What happened:** revenue dropped in March at both shops (Harbour −25 %, Station −25 % on February).
- **The figure:** €29,155.85 in March against €38,800.10 in February.
- **What we suggest:** check the March opening hours and staffing before the April plan."""


def _edit(cwd, id, **fields):
    return tool_use("NotebookEdit", {"notebook_path": f"{cwd}/report.ipynb", **fields}, id=id)


def turns() -> list:
    return [
        # 1. /tidy-notebook report.ipynb: read it, then fix it one cell per call
        turn(lambda cwd: [
            text("I'll read the notebook and the skill's checklist first."),
            tool_use("Read", {"file_path": f"{cwd}/report.ipynb"}, id="toolu_pk_01"),
            tool_use("Read", {"file_path": f"{cwd}/.claude/skills/tidy-notebook/checklist.md"}, id="toolu_pk_02"),
        ]),
        turn(lambda cwd: [
            text("Now the edits, one cell at a time."),
            _edit(cwd, "toolu_pk_03", cell_id="c-empty", edit_mode="delete"),
            _edit(cwd, "toolu_pk_04", cell_id="c-scratch", edit_mode="delete"),
            _edit(cwd, "toolu_pk_05", cell_id="c-import", edit_mode="move", before_cell_id="c-monthly"),
            _edit(cwd, "toolu_pk_06", cell_id="c-load", edit_mode="move", after_cell_id="c-import"),
            _edit(cwd, "toolu_pk_07", cell_id="c-change", new_source="monthly.pct_change().round(3)"),
        ]),
        turn(lambda cwd: [
            _edit(cwd, "toolu_pk_08", edit_mode="insert", cell_type="markdown",
                  new_source="# Monthly sales, 2024\n\nRevenue of the Harbour and Station shops per month, from the till export."),
            _edit(cwd, "toolu_pk_09", cell_id="c-import", edit_mode="insert", cell_type="markdown", new_source="## Loading"),
            _edit(cwd, "toolu_pk_10", cell_id="c-load", edit_mode="insert", cell_type="markdown", new_source="## Analysis"),
            _edit(cwd, "toolu_pk_11", cell_id="c-change", edit_mode="insert", cell_type="markdown",
                  new_source="## Findings\n\nRevenue fell by about a quarter in March and recovered in April."),
        ]),
        turn(lambda cwd: [text(TIDY_DONE)]),
        # 2. The model loads a skill by itself
        turn(lambda cwd: [
            text("There is a skill for this project's chart style; I'll load it."),
            tool_use("Skill", {"skill": "chart-style"}, id="toolu_pk_12"),
        ]),
        turn(lambda cwd: [text(STYLE_ANSWER)]),
        # 3. A read in data/ brings data/CLAUDE.md and the rule about CSV files
        turn(lambda cwd: [tool_use("Read", {"file_path": f"{cwd}/data/sales_2024.csv"}, id="toolu_pk_13")]),
        turn(lambda cwd: [text(DATA_ANSWER)]),
        # 4. /summarize the March dip
        turn(lambda cwd: [text(SUMMARY)]),
    ]
