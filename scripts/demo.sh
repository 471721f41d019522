#!/usr/bin/env bash
# Set up .venv and walk a demo project through status.py (see README).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/python scripts/demo.py "$@"
