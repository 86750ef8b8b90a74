"""Stop hook: the agent may only finish when the project's checks pass.

Exit code 2 keeps the agent going, with stderr as its instructions. (A hook that can fail
forever should look at "stop_hook_active" in its JSON input, true when the agent is
already continuing because of a Stop hook, and give up at some point.)"""

import contextlib
import io
import os
import runpy
import sys

sys.path.insert(0, os.getcwd())  # the project directory (the hook's working directory)
output = io.StringIO()
try:
    with contextlib.redirect_stdout(output), contextlib.redirect_stderr(output):
        runpy.run_path("check.py", run_name="__main__")
    passed = True
except SystemExit as exit:
    passed = exit.code in (0, None)
if not passed:
    print("The project's checks fail (python3 check.py); fix the code before you finish:", file=sys.stderr)
    print(output.getvalue(), file=sys.stderr)
    sys.exit(2)
