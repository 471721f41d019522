#!/usr/bin/env bash
# Set up .venv with the test dependencies, lint, type-check, and run the whole test suite.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test || exit 2
.venv/bin/ruff check . || exit 1
.venv/bin/mypy || exit 1
.venv/bin/python -m pytest "$@"
rc=$?
if [ "$rc" -eq 5 ]; then
    echo "ERROR: pytest collected no tests; the suite is broken." >&2
    exit 1
fi
exit "$rc"
