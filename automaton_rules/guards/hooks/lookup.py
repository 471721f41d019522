"""How a configuration a team commits runs the guard's console scripts: the lookup.

Nothing a project commits names a path of one machine, so every hook is
`sh -c 'LOOKUP' TOOL ARGS...`: the tool on `PATH`, else the per-user launcher
`automaton-install` writes to `~/.automaton/bin`; where neither is there, it says how to
install and exits 2, which every harness and git take as a refusal. The harness table
(`guards/hooks/harnesses.py`) builds each harness's hooks with it, the installer the git hooks.
Text only: no I/O.
"""

from __future__ import annotations

# POSIX sh, run as `sh -c 'LOOKUP' TOOL ARGS...` ($0 is TOOL): the tool on PATH, else the
# per-user launcher; neither there: how to install, and exit 2. It never reads stdin
# itself, so it cannot hang on it. No single quote: the script is single-quoted.
INSTALL_HINT = (
    "pip install automaton-rules, then automaton-install --project . in this project "
    "(automaton-rules: docs/adopting.md)"
)
_FIND = 'h="$(command -v "$0")" || h="$HOME"/.automaton/bin/"$0"'
_MISSING = (
    'printf "ERROR: %s is not installed on this machine (not on PATH, not in '
    f'~/.automaton/bin). Install it: {INSTALL_HINT}\\n" "$0" >&2; exit 2'
)
# For git, which refuses a commit on any status but 0: the status is passed on, but one
# that says the tool could not run (126, 127) or was killed (128 and up) becomes 2.
LOOKUP = (
    f"{_FIND}; "
    'if [ -x "$h" ]; then "$h" "$@"; s="$?"; [ "$s" -lt 126 ] || s=2; exit "$s"; fi; '
    f"{_MISSING}"
)
# For an agent harness, which lets the action through on every status but 2 (and on a
# timeout): 0 and 2 pass with the tool's own output; anything else (a crash, an install
# that cannot import, a signal) is one `ERROR:` line naming the cause, and 2. The tool's
# stderr is kept to name the cause (a traceback's last line) and given back when it
# answered; its stdout goes straight through. automaton-hook keeps its own deadline, below
# the timeout the installer gives the harness (guards/hooks/adapter.py, DEADLINE).
_CAUSE = (
    'exec 3>&1; e="$("$h" "$@" 2>&1 >&3 3>&-)" 2>/dev/null; s="$?"; exec 3>&-; '
    'case "$s" in 0|2) [ -z "$e" ] || printf "%s\\n" "$e" >&2; exit "$s";; esac; '
    'if [ "$s" -gt 128 ]; then c="was stopped by signal $((s - 128))"; '
    'elif [ "$s" -ge 126 ]; then c="could not run (exit status $s)"; '
    'else c="failed (exit status $s)"; fi; '
    'l="$(printf "%s\\n" "$e" | grep . | tail -n 1)"; '
)
_FAILED = (
    'printf "ERROR: %s %s%s; refused, since a hook that fails must not let the action '
    'through.\\n" "$0" "$c" "${l:+: $l}" >&2; exit 2'
)
HOOK_LOOKUP = f'{_FIND}; if [ ! -x "$h" ]; then {_MISSING}; fi; {_CAUSE}{_FAILED}'
# GitHub Copilot CLI denies on every status but 0, and then tells the model only "hook
# exited with code 2" (issue 28): the same refusals as a JSON deny on exit 0, whose reason
# the model reads. The message loses its double quotes and backslashes and every byte
# that is not printable, so the JSON is always well formed (one that is not would let the
# action through).
_AS_DENY = (
    'printf "%s\\n" "$m" >&2; '
    'm="$(printf "%s" "$m" | tr -d "\\"\\\\\\\\" | tr -c "[:print:]" " ")"; '
    'printf "{\\"permissionDecision\\": \\"deny\\", \\"permissionDecisionReason\\": \\"%s\\"}\\n" '
    '"$m"; exit 0'
)
DENY_LOOKUP = (
    f'{_FIND}; if [ ! -x "$h" ]; then m="$(printf "ERROR: %s is not installed on this machine '
    f'(not on PATH, not in ~/.automaton/bin). Install it: {INSTALL_HINT}" "$0")"; {_AS_DENY}; '
    f"fi; {_CAUSE}"
    'm="$(printf "ERROR: %s %s%s; refused, since a hook that fails must not let the action '
    f'through." "$0" "$c" "${{l:+: $l}}")"; {_AS_DENY}'
)


def hook_command(tool: str, *args: str, script: str = HOOK_LOOKUP) -> str:
    """The command a committed configuration runs `tool` with: no path of this machine."""
    return " ".join(("sh", "-c", f"'{script}'", tool, *args))
