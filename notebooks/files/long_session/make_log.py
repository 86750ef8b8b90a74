"""Write app.log: a day of a web shop's log, 6,000 lines (deterministic)."""

ERRORS = ["payment gateway timeout", "database connection reset", "invalid JSON in request body"]
PAGES = ["GET /api/orders 200", "GET /api/stock 200", "POST /api/orders 201", "GET /health 200"]

with open("app.log", "w") as log:
    for i in range(6000):
        hour, minute, second = 8 + i // 600, (i // 10) % 60, (i * 7) % 60
        if i % 13 == 0:
            kind = ERRORS[0] if hour == 11 else ERRORS[(i // 13) % 3]
            text = f"ERROR {kind} (request {i})"
        else:
            text = f"INFO {PAGES[i % 4]} in {5 + i % 50} ms"
        log.write(f"2025-03-14 {hour:02d}:{minute:02d}:{second:02d} {text}\n")
