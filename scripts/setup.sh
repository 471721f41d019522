#!/usr/bin/env bash
# Create .venv and install the project into it (editable), with extras if asked:
#   bash scripts/setup.sh          # the tool
#   bash scripts/setup.sh test     # the tool, its test dependencies and the dashboard's
#   bash scripts/setup.sh board    # the tool and the dashboard (automaton-board)
# It says what it is doing as it goes, one line per package pip fetches or builds, so a
# first install (a minute or more) does not look hung; an up-to-date .venv prints two lines.
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-python3}
say() { printf 'setup.sh: %s\n' "$*" >&2; }
if [ ! -x .venv/bin/python ]; then
    say "creating .venv with $python"
    "$python" -m venv .venv
fi
spec="."
if [ "${1:-}" = "test" ]; then
    spec=".[test,board]"  # the suite tests the dashboard too
elif [ "${1:-}" != "" ]; then
    spec=".[$1]"
fi
say "installing $spec into .venv (editable)"
# pip's own lines, kept to those that show progress: each package collected, the build of
# this project, what was installed in the end. Should pip fail, its whole output follows.
log=$(mktemp "${TMPDIR:-/tmp}/automaton-setup.XXXXXX")
trap 'rm -f "$log"' EXIT
if ! .venv/bin/python -m pip install --disable-pip-version-check --progress-bar off \
    -e "$spec" 2>&1 | tee "$log" | while IFS= read -r line; do
        case "$line" in
            Collecting* | "Building editable"* | "Installing collected"* | Successfully*)
                printf '  %s\n' "$line" >&2 ;;
        esac
    done; then
    say "pip failed; its output:"
    cat "$log" >&2
    exit 1
fi
say "done in ${SECONDS}s"
