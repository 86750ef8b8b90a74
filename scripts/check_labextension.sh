#!/usr/bin/env bash
# Rebuild the nb-agent-live JupyterLab extension from labextension/ (npm ci from the
# committed package-lock.json; the comm's TypeScript interfaces, src/protocol.ts, generated
# from the JSON schema of nb_agent/jupyter/live/protocol.py's models (protocol.schema.json) by
# json-schema-to-typescript; tsc; @jupyterlab/builder against the installed JupyterLab's core
# metadata) into nb_agent/jupyter/live/labextension/, then fail when the result differs from
# what is committed: the schema, the interfaces and the shipped bundle must be the build of
# the committed source. After changing a message in protocol.py, run this and commit what it
# rewrote. Needs node and npm, and nb_agent with JupyterLab installed in the active Python
# (pip install -e ".[test]").
set -euo pipefail
cd "$(dirname "$0")/.."
out=nb_agent/jupyter/live/labextension
generated=(labextension/protocol.schema.json labextension/src/protocol.ts)
core=$(python -c 'import jupyterlab, os; print(os.path.join(os.path.dirname(jupyterlab.__file__), "staging"))')
python -m nb_agent.jupyter.live.protocol_schema >labextension/protocol.schema.json
(
    cd labextension
    npm ci --no-audit --no-fund --loglevel=error
    npx json2ts --input protocol.schema.json --output src/protocol.ts \
        --no-additionalProperties --unknownAny --style.singleQuote --bannerComment \
        "/* Generated from protocol.schema.json (nb_agent/jupyter/live/protocol.py) by scripts/check_labextension.sh: do not edit. */"
    rm -rf lib tsconfig.tsbuildinfo "../$out"
    npx tsc
    node node_modules/@jupyterlab/builder/lib/build-labextension.js --core-path "$core" . >/dev/null
)
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    echo "check_labextension: rebuilt $out (not a git checkout: nothing to compare with)"
    exit 0
fi
changes=$(git status --porcelain -- "$out" "${generated[@]}")
if [ -n "$changes" ]; then
    echo "check_labextension: what is committed is not the build of labextension/src and protocol.py:" >&2
    echo "$changes" >&2
    echo "Commit the rebuilt files (this script left them in place)." >&2
    exit 1
fi
echo "check_labextension: ${generated[*]} and $out are the build of labextension/src and protocol.py"
