#!/usr/bin/env bash
# Create .venv and install the project into it (editable), with extras if asked:
#   bash scripts/setup.sh          # the tool
#   bash scripts/setup.sh test     # the tool, its test dependencies and the dashboard's
#   bash scripts/setup.sh board    # the tool and the dashboard (automaton-board)
#   bash scripts/setup.sh harnesses [latest]  # the harness lab's binaries, with npm
# It says what it is doing as it goes, one line per package pip fetches or builds, so a
# first install (a minute or more) does not look hung; an up-to-date .venv prints two lines.
# `test` also installs the system programs some tests need (chromium, ssh-keygen, dot,
# bwrap, tmux) with apt-get, as root, saying so first; AUTOMATON_SYSTEM_TOOLS=skip leaves
# them out. The tests never install anything: without a program, its tests skip, naming it.
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-python3}
say() { printf 'setup.sh: %s\n' "$*" >&2; }
if [ "${1:-}" = "harnesses" ]; then
    # The real harnesses the lab drives (tests/harnesses/versions.toml), each installed with
    # npm into its own folder of the cache, outside the repository: NAME-VERSION, and for
    # `latest` the newest release, which NAME-latest then points at. An installed version
    # is not fetched again. Without node or npm nothing is installed and the lab skips.
    mode=${2:-pinned}
    case "$mode" in pinned | latest) ;; *) say "ERROR: harnesses takes pinned or latest, not $mode"; exit 2 ;; esac
    if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
        say "no node or npm on PATH: the harness lab will skip (install Node.js 20 or later)"
        exit 0
    fi
    [ -x .venv/bin/python ] && python=.venv/bin/python  # it reads TOML on every Python
    cache=$("$python" -c 'import sys; sys.path[:0] = ["tests/harnesses"]; import cache; print(cache.root())')
    mkdir -p "$cache"
    failed=0
    while read -r name package version bin; do
        if [ "$mode" = latest ]; then
            version=$(npm view "$package" version 2>/dev/null) || { say "$package: npm view failed"; failed=1; continue; }
        fi
        folder="$cache/$name-$version"
        if [ -x "$folder/node_modules/.bin/$bin" ]; then
            say "$name $version: installed in $folder"
        else
            say "$name $version: npm install $package@$version into $folder"
            if ! npm install --prefix "$folder" --no-save --no-audit --no-fund --loglevel=error \
                "$package@$version" >&2; then
                say "$name $version: npm install failed; its lab tests will skip"
                rm -rf "$folder"
                failed=1
                continue
            fi
        fi
        if [ "$mode" = latest ]; then ln -sfn "$name-$version" "$cache/$name-latest"; fi
    done < <("$python" tests/harnesses/cache.py)
    say "harnesses done in ${SECONDS}s"
    exit "$failed"
fi
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
