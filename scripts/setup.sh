#!/usr/bin/env bash
# Create .venv and install the project into it (editable), with extras if asked:
#   bash scripts/setup.sh          # the tool
#   bash scripts/setup.sh test     # the tool, its test dependencies and the dashboard's
#   bash scripts/setup.sh board    # the tool and the dashboard (automaton-board)
# It says what it is doing as it goes, one line per package pip fetches or builds, so a
# first install (a minute or more) does not look hung; an up-to-date .venv prints two lines.
# `test` also installs the system programs some tests need (chromium, ssh-keygen, dot,
# bwrap, tmux) with apt-get, as root, saying so first; AUTOMATON_SYSTEM_TOOLS=skip leaves
# them out. The tests never install anything: without a program, its tests skip, naming it.
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
    spec=".[test,board]"  # the suite tests the dashboard too (webauthn: its passkeys)
elif [ "${1:-}" != "" ]; then
    spec=".[$1]"
fi
say "installing $spec into .venv (editable)"
# pip's own lines, kept to those that show progress: each package collected, the build of
# this project, what was installed in the end. Should pip fail, its whole output follows.
log=$(mktemp "${TMPDIR:-/tmp}/automaton-setup.XXXXXX")
aptlog=""
trap 'rm -f "$log" ${aptlog:+"$aptlog"}' EXIT
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

# The system programs the tests use, each as `programs...:Debian package`: a browser for
# the HTML report and the board (tests/test_board_browser.py drives it with playwright and
# its virtual passkey authenticator), ssh-keygen for signed approvals, dot, the sandbox's
# bwrap, and tmux.
TOOLS=(
    "chromium chromium-browser google-chrome:chromium"
    "ssh-keygen:openssh-client"
    "dot:graphviz"
    "bwrap:bubblewrap"
    "tmux:tmux"
)

missing_tools() {
    local entry program
    for entry in "${TOOLS[@]}"; do
        for program in ${entry%%:*}; do
            if command -v "$program" >/dev/null 2>&1; then continue 2; fi
        done
        printf '%s\n' "${entry##*:}"
    done
}

apt_get() {
    # One apt-get call: its output kept in $aptlog, a line shown per package set up.
    apt-get "$@" 2>&1 | tee -a "$aptlog" | while IFS= read -r line; do
        case "$line" in "Setting up"*) printf '  %s\n' "$line" >&2 ;; esac
    done
}

apt_install() {
    # `apt-get install`, with `apt-get update` first if the lists lack a package; apt-get's
    # whole output should it fail.
    aptlog=$(mktemp "${TMPDIR:-/tmp}/automaton-setup-apt.XXXXXX")
    export DEBIAN_FRONTEND=noninteractive
    if apt_get install -y -q "$@" || { apt_get update -q && apt_get install -y -q "$@"; }; then
        return 0
    fi
    say "apt-get failed; its output:"
    cat "$aptlog" >&2
    return 1
}

missing=""
if [ "${1:-}" = "test" ]; then
    missing=$(missing_tools | tr '\n' ' ')
    missing=${missing% }
fi
if [ -z "$missing" ]; then
    :
elif [ "${AUTOMATON_SYSTEM_TOOLS:-}" = "skip" ]; then
    say "not installing $missing (AUTOMATON_SYSTEM_TOOLS=skip): the tests that need it skip"
elif [ "$(id -u)" != "0" ] || ! command -v apt-get >/dev/null 2>&1; then
    say "no $missing here, and no apt-get as root to install it: the tests that need it" \
        "skip (on Debian, as root: apt-get install $missing)"
else
    say "installing with apt-get what some tests need: $missing" \
        "(AUTOMATON_SYSTEM_TOOLS=skip leaves it out)"
    # shellcheck disable=SC2086 # one word per package
    apt_install $missing || say "the tests that need $missing skip"
fi
say "done in ${SECONDS}s"
