#!/usr/bin/env bash
# Install nb_agent and run the headless example against the local fake Messages API.
set -euo pipefail
cd "$(dirname "$0")/.."
python -m pip install -q -e ".[tools]"
python -m nb_agent.examples.headless
