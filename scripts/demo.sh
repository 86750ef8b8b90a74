#!/usr/bin/env bash
# Install nb_agent and run the quickstart notebook headlessly and offline (its model
# replies are replayed from notebooks/cassettes/quickstart.json); prints the cells and
# their outputs, and where the executed notebook was written.
set -euo pipefail
cd "$(dirname "$0")/.."
python -m pip install -q -e ".[demo]"
python -m nb_agent.jupyter.demo notebooks/quickstart.ipynb "$@"
