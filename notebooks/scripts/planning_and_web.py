"""The model's side of planning_and_web.ipynb (see _common.py and record.py).

The agent plans in plan mode: it reads the data dictionary with WebFetch (the small fast
model answers about the page in a side call, the turn marked ``side call``), asks which
metric to use, writes a todo list and presents the plan; once approved it works through
the list."""

from _common import Reply, text, tool_use, turn

DICTIONARY_URL = "http://127.0.0.1:47811/data_dictionary.html"
SMALL_FAST_MODEL = "claude-haiku-4-5"

PAGE_ANSWER = """\
- `month`: month of 2025, 1 = January … 12 = December
- `units`: units shipped (returns not deducted)
- `revenue`: net revenue in thousands of USD, after refunds and discounts
- `ad_spend`: advertising spend in thousands of USD, booked in the month it ran

Caveat from the page: a few very large B2B orders make monthly revenue spiky (outliers); finance reports medians."""

QUESTION = {
    "question": "Which metric should the quarterly summary use for revenue?",
    "header": "Metric",
    "options": [
        {"label": "Median per month", "description": "Robust to the large B2B orders the data dictionary warns about"},
        {"label": "Mean per month", "description": "Uses every order at full weight, so outliers move it"},
        {"label": "Quarterly total", "description": "Sum of the three months: what was earned, not what is typical"},
    ],
    "multiSelect": False,
}

TODOS = [
    {"content": "Read the data dictionary", "status": "completed", "activeForm": "Reading the data dictionary"},
    {"content": "Agree on the revenue metric", "status": "completed", "activeForm": "Agreeing on the revenue metric"},
    {"content": "Compute the median monthly revenue per quarter", "status": "pending", "activeForm": "Computing the quarterly medians"},
    {"content": "Compare with ad spend per quarter", "status": "pending", "activeForm": "Comparing with ad spend"},
]

PLAN = """\
## Quarterly revenue summary

1. Add a `quarter` column to `df` (months 1–3 → Q1, …).
2. Per quarter: **median** monthly revenue (k$) — robust to the B2B outliers the data dictionary warns about — and total ad spend (k$).
3. Show one small table and say which quarter stands out.

No files are written; everything happens in your `df`."""

QUARTERS = """\
df["quarter"] = "Q" + ((df["month"] - 1) // 3 + 1).astype(str)
summary = df.groupby("quarter").agg(median_revenue=("revenue", "median"), ad_spend=("ad_spend", "sum"))
print(summary.round(2).to_string())"""

ANSWER = """\
| quarter | median monthly revenue (k$) | ad spend (k$) |
|---|---|---|
| Q1 | 61.5 | 21.5 |
| Q2 | 70.5 | 24.5 |
| Q3 | 81.0 | 31.5 |
| Q4 | 89.7 | 32.0 |

The median monthly revenue rises every quarter, from 61.5 k$ in Q1 to 89.7 k$ in Q4 (+46%), and ad spend rises \
with it (21.5 → 32.0 k$); Q3 shows the biggest step (+10.5 k$). `df` now has a `quarter` column; the todo list is done."""


def turns() -> list:
    side_call = Reply(content=[text(PAGE_ANSWER)], model=SMALL_FAST_MODEL, input_tokens=420)
    return [
        turn(lambda cwd: [
            text("First, what the columns mean: I'll read the data dictionary."),
            tool_use("WebFetch", {"url": DICTIONARY_URL, "prompt": "What does each column mean, in which unit, and are there caveats?"}, id="toolu_pw_01"),
        ]),
        side_call,
        turn(lambda cwd: [
            text("Revenue has outliers, so the choice of metric matters. Let me ask."),
            tool_use("AskUserQuestion", {"questions": [QUESTION]}, id="toolu_pw_02"),
        ]),
        turn(lambda cwd: [tool_use("TodoWrite", {"todos": TODOS}, id="toolu_pw_03")]),
        turn(lambda cwd: [tool_use("ExitPlanMode", {"plan": PLAN}, id="toolu_pw_04")]),
        turn(lambda cwd: [text("The plan is approved; say **go** and I'll work through the todo list.")]),
        turn(lambda cwd: [
            tool_use("TodoWrite", {"todos": [TODOS[0], TODOS[1], {**TODOS[2], "status": "in_progress"}, TODOS[3]]}, id="toolu_pw_05"),
        ]),
        turn(lambda cwd: [
            tool_use("ExecuteCode", {"code": QUARTERS, "description": "Median monthly revenue and ad spend per quarter"}, id="toolu_pw_06"),
        ]),
        turn(lambda cwd: [tool_use("TodoWrite", {"todos": [{**t, "status": "completed"} for t in TODOS]}, id="toolu_pw_07")]),
        turn(lambda cwd: [text(ANSWER)]),
    ]
