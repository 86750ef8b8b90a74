#!/usr/bin/env bash
# Install nb_agent with its test dependencies into the active Python and run every test:
# the test suite, then each demo notebook under nbval (re-executed offline from its
# cassette, outputs compared with the saved ones after notebooks/sanitize.cfg).
set -euo pipefail
cd "$(dirname "$0")/.."
python -m pip install -q -e ".[test]"
python -m pytest -q -p no:cacheprovider tests
python -m pytest -q -p no:cacheprovider --nbval --nbval-current-env --nbval-sanitize-with notebooks/sanitize.cfg notebooks
