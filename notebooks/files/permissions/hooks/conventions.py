"""UserPromptSubmit hook: add the project's conventions to every prompt, and refuse a
prompt that contains what looks like an API key (it is never sent to the model)."""

import json
import re
import sys

event = json.load(sys.stdin)
if re.search(r"\bsk-[A-Za-z0-9_-]{12,}", event["prompt"]):
    reason = "This prompt contains what looks like an API key, so it was not sent. Remove the key and ask again."
    print(json.dumps({"decision": "block", "reason": reason}))
    sys.exit(0)
print("Project conventions: every function in stats.py has a docstring, "
      "and `python3 check.py` must pass before you finish.")
