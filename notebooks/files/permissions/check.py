"""The project's checks. Exit status 0 when they all pass."""

import sys

import stats

CASES = [("mean([1, 2, 3])", lambda: stats.mean([1, 2, 3]), 2)]
if hasattr(stats, "median"):
    CASES += [
        ("median([3, 1, 2])", lambda: stats.median([3, 1, 2]), 2),
        ("median([4, 1, 3, 2])", lambda: stats.median([4, 1, 3, 2]), 2.5),
    ]

failures = []
for expression, run, expected in CASES:
    got = run()
    if got != expected:
        failures.append(f"{expression} returned {got!r}, expected {expected!r}")
for failure in failures:
    print(f"FAIL {failure}", file=sys.stderr)
if failures:
    sys.exit(1)
print(f"all {len(CASES)} checks passed")
