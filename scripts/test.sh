#!/usr/bin/env bash
# Install nb_agent with its test dependencies into the active Python, check that the shipped
# JupyterLab extension bundle is the build of its source (needs node/npm), and run every test:
# the test suite (the browser tests drive /usr/bin/chromium), then each demo notebook under
# nbval (re-executed offline from its cassette, outputs compared with the saved ones after
# notebooks/sanitize.cfg).
set -euo pipefail
cd "$(dirname "$0")/.."
python -m pip install -q -e ".[test]"
bash scripts/check_labextension.sh
python -m pytest -q -p no:cacheprovider tests
python -m pytest -q -p no:cacheprovider --nbval --nbval-current-env --nbval-sanitize-with notebooks/sanitize.cfg notebooks
