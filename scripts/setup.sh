#!/usr/bin/env bash
# Create .venv and install the project into it (editable), with extras if asked:
#   bash scripts/setup.sh          # the tool
#   bash scripts/setup.sh test     # the tool, its test dependencies and the dashboard's;
#                                  # also Debian's chromium for the browser tests
#   bash scripts/setup.sh board    # the tool and the dashboard (automaton-board)
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    "$python" -m venv .venv
fi
spec="."
if [ "${1:-}" = "test" ]; then
    spec=".[test,board]"  # the suite tests the dashboard too (webauthn: its passkeys)
elif [ "${1:-}" != "" ]; then
    spec=".[$1]"
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e "$spec"
if [ "${1:-}" = "test" ]; then
    # tests/test_board_browser.py drives Debian's chromium with playwright (installed above
    # from the test extra) and its virtual passkey authenticator; without it they skip.
    if ! command -v chromium >/dev/null && ! command -v chromium-browser >/dev/null; then
        if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
            echo "setup.sh: installing Debian's chromium for the browser tests (apt-get)"
            if ! apt-get install -y -qq chromium >/dev/null 2>&1; then
                apt-get update -qq >/dev/null 2>&1
                apt-get install -y -qq chromium >/dev/null 2>&1 \
                    || echo "setup.sh: chromium could not be installed; the browser tests will skip"
            fi
        else
            echo "setup.sh: no chromium, and apt-get cannot install it here; the browser tests will skip"
        fi
    fi
fi
