#!/usr/bin/env bash
# Install nb_agent with its test dependencies into the active Python and run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
python -m pip install -q -e ".[test]"
python -m pytest -q -p no:cacheprovider tests
