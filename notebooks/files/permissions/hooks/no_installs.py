"""PreToolUse hook for Bash: refuse commands that install packages.

Claude Code's hook protocol: the tool call arrives as JSON on stdin; exit code 2 blocks
the call and whatever is printed on stderr goes back to the model."""

import json
import re
import sys

call = json.load(sys.stdin)
command = call.get("tool_input", {}).get("command", "")
if re.search(r"\b(pip|pip3|uv pip|conda|poetry)\s+(install|add)\b", command):
    print(
        "Blocked by the project's PreToolUse hook: this project does not install packages. "
        "Its dependencies are pinned by the maintainers; use the standard library.",
        file=sys.stderr,
    )
    sys.exit(2)
