#!/usr/bin/env bash
# Rebuild the nb-agent-live JupyterLab extension from labextension/ (npm ci from the
# committed package-lock.json, tsc, @jupyterlab/builder against the installed JupyterLab's
# core metadata) into nb_agent/jupyter/live/labextension/, then fail when the result differs
# from what is committed: the shipped bundle must be the build of the committed source.
# Needs node and npm, and JupyterLab installed in the active Python (pip install -e ".[test]").
set -euo pipefail
cd "$(dirname "$0")/.."
out=nb_agent/jupyter/live/labextension
core=$(python -c 'import jupyterlab, os; print(os.path.join(os.path.dirname(jupyterlab.__file__), "staging"))')
(
    cd labextension
    npm ci --no-audit --no-fund --loglevel=error
    rm -rf lib tsconfig.tsbuildinfo "../$out"
    npx tsc
    node node_modules/@jupyterlab/builder/lib/build-labextension.js --core-path "$core" . >/dev/null
)
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    echo "check_labextension: rebuilt $out (not a git checkout: nothing to compare with)"
    exit 0
fi
changes=$(git status --porcelain -- "$out")
if [ -n "$changes" ]; then
    echo "check_labextension: the shipped bundle in $out is stale (it is not the build of labextension/src):" >&2
    echo "$changes" >&2
    echo "Commit the rebuilt bundle (this script left it in place)." >&2
    exit 1
fi
echo "check_labextension: $out is the build of labextension/src"
