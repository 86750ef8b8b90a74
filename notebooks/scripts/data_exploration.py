"""The model's side of data_exploration.ipynb (see _common.py and record.py)."""

from _common import text, tool_use, turn

FIND_DROPS = """\
df["revenue_change"] = df["revenue"].diff()
drops = df[df["revenue_change"] < 0]
print(drops[["month", "revenue", "revenue_change", "ad_spend"]].to_string(index=False))
print("correlation of revenue and ad spend:", round(df["revenue"].corr(df["ad_spend"]), 2))"""

PLOT = """\
import matplotlib.pyplot as plt

fig, ax = plt.subplots(figsize=(8, 4))
ax.bar(df["month"], df["ad_spend"], color="tab:gray", alpha=0.4, label="ad spend (k$)")
ax.plot(df["month"], df["revenue"], marker="o", label="revenue (k$)")
ax.scatter(drops["month"], drops["revenue"], color="tab:red", zorder=3, s=80, label="revenue dropped")
ax.set_xticks(range(1, 13))
ax.set_xlabel("month of 2025")
ax.set_title("Revenue and ad spend by month")
ax.legend(loc="upper left")
fig.tight_layout()"""

ANSWER = """\
Revenue dropped in three months:

| month | revenue (k$) | change | ad spend (k$) |
|---|---|---|---|
| March | 59.70 | −7.05 | 5.0 |
| June | 68.25 | −7.05 | 6.0 |
| October | 78.00 | −6.90 | 7.0 |

**Ad spend explains it well.** Each drop falls in a month where ad spend was cut (from 8.5 to 5.0, from 9.5 to \
6.0 and from 11.0 to 7.0), and revenue recovered as soon as spend went back up. In the chart the three red points \
sit right above the three short ad-spend bars, and otherwise both lines climb together through the year; the \
correlation between revenue and ad spend is **0.86**.

With twelve months this is a strong pattern, not proof: a seasonal effect that happens to coincide with the cuts \
would look the same. I added the monthly change to your `df` as `revenue_change`."""


NORMALIZE = """\
df["revenue"] = df["revenue"] / 1000
df.to_csv("sales_k.csv", index=False)
df["revenue"].head(3).tolist()"""


def turns() -> list:
    return [
        turn(lambda cwd: [
            text("Let me look at `df` first."),
            tool_use("InspectVariables", {"name": "df"}, id="toolu_de_01"),
        ]),
        turn(lambda cwd: [
            text("Twelve months, no missing values. I'll compute the month-over-month change."),
            tool_use("ExecuteCode", {"code": FIND_DROPS, "description": "Find the months where revenue dropped"}, id="toolu_de_02"),
        ]),
        turn(lambda cwd: [
            text("Three drops. Now the chart, with the drops marked:"),
            tool_use("ExecuteCode", {"code": PLOT, "description": "Plot revenue and ad spend by month"}, id="toolu_de_03"),
        ]),
        turn(lambda cwd: [text(ANSWER)]),
        # The second cell: something to take back with %agent rewind.
        turn(lambda cwd: [
            tool_use("ExecuteCode", {"code": NORMALIZE, "description": "Revenue in millions, saved to sales_k.csv"}, id="toolu_de_04"),
        ]),
        turn(lambda cwd: [text("Done: `df.revenue` is now in millions of dollars, and the table is saved as `sales_k.csv`.")]),
    ]
