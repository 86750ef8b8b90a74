#!/usr/bin/env bash
# Install nb_agent with its test dependencies into the active Python, lint nb_agent/ and
# tests/ (ruff) and type-check nb_agent/ (pyright; both configured in pyproject.toml), check
# that the shipped JupyterLab extension bundle is the build of its source (needs node/npm),
# and run every test:
# the test suite (the browser tests drive /usr/bin/chromium), then each demo notebook under
# nbval (re-executed offline from its cassette, outputs compared with the saved ones after
# notebooks/sanitize.cfg).
set -euo pipefail
cd "$(dirname "$0")/.."
# Say at once what the machine lacks, rather than failing half an hour in.
missing=()
command -v npm >/dev/null 2>&1 || missing+=("npm (node and npm: the extension is rebuilt from labextension/)")
[ -x "${NB_AGENT_CHROMIUM:-/usr/bin/chromium}" ] || missing+=("chromium (Debian's package, at /usr/bin/chromium or \$NB_AGENT_CHROMIUM: the browser tests)")
command -v java >/dev/null 2>&1 || missing+=("java (17 or later, e.g. Debian's default-jre-headless: Spark, in the lazy-frame tests)")
if [ "$(uname -s)" = Linux ]; then
    command -v bwrap >/dev/null 2>&1 || missing+=("bwrap (the bubblewrap package: the Bash sandbox's tests)")
    command -v strace >/dev/null 2>&1 || missing+=("strace (the read scope's differential test runs each allowed reader under it)")
fi
if [ ${#missing[@]} -gt 0 ]; then
    printf 'scripts/test.sh: missing system packages:\n' >&2
    printf '  - %s\n' "${missing[@]}" >&2
    printf 'On Debian or Ubuntu (as root, or with sudo in front of each apt-get):\n  apt-get update && apt-get install -y chromium bubblewrap strace default-jre-headless && (command -v npm >/dev/null || apt-get install -y nodejs npm)\n' >&2
    exit 2
fi
python -m pip install -q -e ".[test]"
python -m ruff check nb_agent tests
python -m pyright
bash scripts/check_labextension.sh
python -m pytest -q -p no:cacheprovider tests
python -m pytest -q -p no:cacheprovider --nbval --nbval-current-env --nbval-sanitize-with notebooks/sanitize.cfg notebooks
