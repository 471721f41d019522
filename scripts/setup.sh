#!/usr/bin/env bash
# Create .venv and install the project into it (editable), with extras if asked:
#   bash scripts/setup.sh          # the tool
#   bash scripts/setup.sh test     # the tool, its test dependencies and the dashboard's
#   bash scripts/setup.sh board    # the tool and the dashboard (automaton-board)
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    "$python" -m venv .venv
fi
spec="."
if [ "${1:-}" = "test" ]; then
    spec=".[test,board]"  # the suite tests the dashboard too
elif [ "${1:-}" != "" ]; then
    spec=".[$1]"
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e "$spec"
