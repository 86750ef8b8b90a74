"""The model's side of subagents.ipynb (see _common.py and record.py).

Three subagents run side by side, so their requests reach the model in any order: the
script is a ``RoutedScript`` with one list of turns per subagent, chosen by a phrase of
the subagent's prompt, and the main agent's turns under the default route.
"""

from _common import text, tool_use, turn

from nb_agent.testing.routing import RoutedScript

SALES = "Check every CSV file in"
CUSTOMERS = "Profile the customer table"
NOTES = "Read the notes in"

SALES_REPORT = """\
- `sales/2025-01.csv`: 2025-01-01 to 2025-01-10, 20 rows, missing: none
- `sales/2025-02.csv`: 2025-02-01 to 2025-02-10, 18 rows, missing: 2025-02-06
- `sales/2025-03.csv`: 2025-03-01 to 2025-03-10, 16 rows, missing: 2025-03-03, 2025-03-04

Each present day has two rows (north and south)."""

CUSTOMERS_REPORT = """\
`customers.csv` has **12 customers** (columns id, name, region, signup_date, plan).

- region: 6 south, 5 north, **1 empty** (id 7, Gus)
- plan: 8 basic, 4 pro
- no other empty fields"""

NOTES_REPORT = """\
The sales files come from a monthly export of the shop's database: one file per month, one row \
per day and region, revenue in euros. The README says the export **did not run on days of \
database maintenance**, and `maintenance_log.txt` lists three such days: 2025-02-06, 2025-03-03 \
and 2025-03-04."""

SUMMARY = """\
Here is what the three agents found, combined:

| | finding |
|---|---|
| **sales/** | 3 monthly files, 54 rows; days missing: **2025-02-06**, **2025-03-03**, **2025-03-04** |
| **customers.csv** | 12 customers; 6 south, 5 north and **one without a region** (id 7); 8 basic, 4 pro |
| **notes/** | the export skips days of database maintenance; the log lists exactly those three days |

So the gaps in the sales data are **explained**: they are the maintenance days, not lost sales. \
Before analysing by region, fill in or drop customer 7, whose region is empty."""


def agent(description: str, prompt: str, kind: str, id: str) -> dict:
    return tool_use("Agent", {"description": description, "prompt": prompt, "subagent_type": kind}, id=id)


def turns() -> RoutedScript:
    return RoutedScript({
        "": [
            turn(lambda cwd: [
                text("I'll send three agents over the folder at once: one checks the sales files for missing days, "
                     "one profiles the customers, one reads the notes."),
                agent("Check sales dates", f"{SALES} {cwd}/sales/ for missing days: each file's date range, row count and missing dates.", "date-checker", "toolu_sa_01"),
                agent("Profile customers file", f"{CUSTOMERS} {cwd}/customers.csv: how many customers, the regions and plans with their counts, and any empty fields.", "Explore", "toolu_sa_02"),
                agent("Read the notes", f"{NOTES} {cwd}/notes/ and report what they say about how the sales data is produced and any known gaps, with dates.", "Explore", "toolu_sa_03"),
            ]),
            turn(lambda cwd: [text(SUMMARY)]),
        ],
        SALES: [
            turn(lambda cwd: [tool_use("Glob", {"pattern": "*.csv", "path": f"{cwd}/sales"}, id="toolu_sa_11")]),
            turn(lambda cwd: [
                tool_use("Read", {"file_path": f"{cwd}/sales/2025-01.csv"}, id="toolu_sa_12"),
                tool_use("Read", {"file_path": f"{cwd}/sales/2025-02.csv"}, id="toolu_sa_13"),
                tool_use("Read", {"file_path": f"{cwd}/sales/2025-03.csv"}, id="toolu_sa_14"),
            ]),
            turn(lambda cwd: [text(SALES_REPORT)]),
        ],
        CUSTOMERS: [
            turn(lambda cwd: [
                tool_use("Read", {"file_path": f"{cwd}/customers.csv"}, id="toolu_sa_21"),
                tool_use("Bash", {"command": "cut -d, -f3 customers.csv | sort | uniq -c", "description": "Count regions"}, id="toolu_sa_22"),
                tool_use("Bash", {"command": "cut -d, -f5 customers.csv | sort | uniq -c", "description": "Count plans"}, id="toolu_sa_23"),
            ]),
            turn(lambda cwd: [text(CUSTOMERS_REPORT)]),
        ],
        NOTES: [
            turn(lambda cwd: [tool_use("Glob", {"pattern": "*", "path": f"{cwd}/notes"}, id="toolu_sa_31")]),
            turn(lambda cwd: [
                tool_use("Read", {"file_path": f"{cwd}/notes/README.md"}, id="toolu_sa_32"),
                tool_use("Read", {"file_path": f"{cwd}/notes/maintenance_log.txt"}, id="toolu_sa_33"),
            ]),
            turn(lambda cwd: [text(NOTES_REPORT)]),
        ],
    })
