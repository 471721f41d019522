#!/usr/bin/env bash
# Set up .venv with the test dependencies, lint, type-check, and run the whole test suite,
# one test process per CPU (pytest-xdist). Arguments go to pytest: `-n 0` runs in one
# process; AUTOMATON_TESTS=full runs the sized suites at full size (see README).
#   bash scripts/test.sh --harnesses [pinned|latest]
# runs the harness lab instead (tests/harnesses: the real Claude Code, Copilot CLI ...
# against a scripted model), on the releases tests/harnesses/versions.toml pins or on the
# newest, installing what is missing with `scripts/setup.sh harnesses` first, and prints
# the lab's own time.
set -uo pipefail
cd "$(dirname "$0")/.."
lab=""
if [ "${1:-}" = "--harnesses" ]; then
    lab=pinned
    shift
    case "${1:-}" in pinned | latest) lab=$1; shift ;; esac
fi
bash scripts/setup.sh test || exit 2
if [ -z "$lab" ]; then
    .venv/bin/ruff check . || exit 1
    .venv/bin/mypy || exit 1
fi
parallel=(-n auto --dist worksteal)
for arg in "$@"; do
    case "$arg" in
        -n | -n* | --numprocesses | --numprocesses=* | --dist | --dist=* | no:xdist) parallel=() ;;
    esac
done
# The tests' temporary projects go to memory where the machine has it: status.py fsyncs
# every record it writes, which on a disk is most of a test's time and proves nothing
# more (no test can pull the power). TMPDIR set by the caller is kept.
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then
    scratch=$(mktemp -d /dev/shm/automaton-rules-tests.XXXXXX) && export TMPDIR="$scratch"
    trap 'rm -rf "${scratch:-/nonexistent}"' EXIT
fi
if [ -n "$lab" ]; then
    # A harness that could not be installed is skipped with the reason, never silently.
    bash scripts/setup.sh harnesses "$lab" || echo "== setup.sh harnesses failed: the lab skips what is not installed"
    start=$SECONDS
    .venv/bin/python -m pytest ${parallel[@]+"${parallel[@]}"} --harnesses="$lab" tests/harnesses "$@"
    rc=$?
    echo "== the harness lab ($lab releases) took $((SECONDS - start)) s"
    exit "$rc"
fi
.venv/bin/python -m pytest ${parallel[@]+"${parallel[@]}"} "$@"
rc=$?
if [ "$rc" -eq 5 ]; then
    echo "ERROR: pytest collected no tests; the suite is broken." >&2
    exit 1
fi
# A machine without bubblewrap gets Landlock: the whole run (no arguments) then runs the
# tests whose answers depend on the mechanism once more, under Landlock alone, as such a
# machine would (AUTOMATON_SANDBOX_MECHANISM narrows the choice; docs/sandbox.md).
if [ "$rc" -eq 0 ] && [ "$#" -eq 0 ]; then
    if .venv/bin/python -c 'import sys; from automaton_rules.guards.sandbox import landlock; sys.exit(landlock.abi() < 1)'; then
        echo "== the sandbox's tests again, under Landlock alone (as without bubblewrap)"
        AUTOMATON_SANDBOX_MECHANISM=landlock .venv/bin/python -m pytest ${parallel[@]+"${parallel[@]}"} -q \
            tests/test_sandbox.py tests/test_sandbox_rewrites.py tests/test_sandbox_escapes.py \
            tests/test_witness.py tests/test_session_start.py \
            "tests/test_shell.py::test_each_corpus_line_through_the_sandbox"
        rc=$?
    else
        echo "== no Landlock in this kernel: the sandbox's tests ran under bubblewrap only"
    fi
fi
exit "$rc"
