"""The model's side of long_session.ipynb (see _common.py and record.py)."""

from _common import Reply, text, tool_use, turn

COUNT_ERRORS = "grep ERROR app.log | cut -d' ' -f4- | sed 's/ (request [0-9]*)//' | sort | uniq -c | sort -rn"
TIMEOUTS_BY_HOUR = "grep 'payment gateway timeout' app.log | cut -c12-13 | sort | uniq -c"

SUMMARY = """\
<analysis>
The user is investigating app.log, a day of a web shop's log. We counted the errors by type and by hour.
</analysis>
<summary>
1. Primary request: find out which errors app.log contains, how often, and when.
2. Key findings:
   - app.log has 6,000 lines from 2025-03-14, 08:00 to 17:59; 462 are ERROR lines.
   - By type: payment gateway timeout 185, invalid JSON in request body 139, database connection reset 138.
   - Payment gateway timeouts run at about 15-16 an hour, except 11:00-11:59: 46, where every error is a timeout.
   - The full Grep output of all ERROR lines was saved to disk (tool-results) because it exceeded the output limit.
3. Files: app.log (read only; nothing was changed).
4. Pending: nothing; the user may ask what to fix first.
</summary>"""


def turns() -> list:
    return [
        # 1. A broad search whose output is persisted, then a narrower one
        turn(lambda cwd: [
            text("Let me search the log for errors."),
            tool_use("Grep", {"pattern": "ERROR", "path": "app.log", "output_mode": "content"}, id="toolu_ls_01"),
        ]),
        turn(lambda cwd: [
            text("462 lines is too many to read; the full output is saved to disk. I'll count them by type instead."),
            tool_use("Bash", {"command": COUNT_ERRORS, "description": "Count the errors by type"}, id="toolu_ls_02"),
        ]),
        turn(lambda cwd: [text(
            "app.log has **462 errors** of three kinds:\n\n"
            "| error | count |\n|---|---|\n"
            "| payment gateway timeout | 185 |\n| invalid JSON in request body | 139 |\n| database connection reset | 138 |"
        )]),
        # When did the timeouts happen?
        turn(lambda cwd: [tool_use("Bash", {"command": TIMEOUTS_BY_HOUR, "description": "Payment timeouts by hour"}, id="toolu_ls_03")]),
        turn(lambda cwd: [text(
            "Steadily through the day, 15 or 16 an hour, **except between 11:00 and 12:00: 46**, about three times "
            "the usual rate. In that hour every error in the log is a payment gateway timeout, which points to an "
            "outage of the payment provider rather than a bug of ours."
        )]),
        # %agent compact (a non-streaming request)
        Reply(content=[text(SUMMARY)], input_tokens=9_000),
        # After compaction: answered from the summary
        turn(lambda cwd: [text(
            "The **payment gateway timeouts**: they are the most common error (185 of 462), and the spike between "
            "11:00 and 12:00 (46 in one hour) looks like a provider outage, so the fix is likely on the payments "
            "side: retries with backoff and an alert when timeouts exceed about 20 an hour."
        )]),
        # After the resume: the compacted history came back from the transcript
        turn(lambda cwd: [text(
            "app.log has 462 errors, mostly payment gateway timeouts (185), which spiked to 46 between 11:00 and "
            "12:00, likely an outage of the payment provider."
        )]),
    ]
