"""How a configuration a team commits runs the guard's console scripts: the lookup.

Nothing a project commits names a path of one machine. A harness's hook is a short
`sh -c 'PROLOGUE' automaton-hook --harness NAME`: the prologue finds the launcher
`automaton-install` writes into the project (`.automaton/hook.sh`, committed, a guard file
like the rest of `.automaton/`) and sources it; the launcher runs the tool on `PATH`, else
the per-user launcher in `~/.automaton/bin`, and turns whatever cannot answer (not
installed, crashed, killed) into one `ERROR:` line and a refusal. Where the launcher itself
cannot be read, the prologue refuses the same way. The git hooks (not committed: they live
in `.git/hooks`) keep the whole lookup inline (`LOOKUP`). The harness table
(`guards/hooks/harnesses.py`) builds each harness's hooks with `hook_command`, the installer
writes `launcher()` and the git hooks. Text only: no I/O.
"""

from __future__ import annotations

INSTALL_HINT = (
    "pip install automaton-rules, then automaton-install --project . in this project "
    "(automaton-rules: docs/adopting.md)"
)
# The launcher, relative to the project's folder.
LAUNCHER = ".automaton/hook.sh"

# POSIX sh, run as `sh -c 'LOOKUP' TOOL ARGS...` ($0 is TOOL): the tool on PATH, else the
# per-user launcher; neither there: how to install, and exit 2. It never reads stdin
# itself, so it cannot hang on it. No single quote: the script is single-quoted.
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
# The same for an agent harness, on one line, for opencode's plugin (a JavaScript file,
# not a hook command): 0 and 2 pass with the tool's own output, anything else is one
# `ERROR:` line and 2. The launcher below says the same in many lines.
_CAUSE = (
    'exec 3>&1; e="$("$h" "$@" 2>&1 >&3 3>&-)" 2>/dev/null; s="$?"; exec 3>&-; '
    'case "$s" in 0|2) [ -z "$e" ] || printf "%s\\n" "$e" >&2; exit "$s";; esac; '
    'if [ "$s" -gt 128 ]; then c="was stopped by signal $((s - 128))"; '
    'elif [ "$s" -ge 126 ]; then c="could not run (exit status $s)"; '
    'else c="failed (exit status $s)"; fi; '
    'l="$(printf "%s\\n" "$e" | grep . | tail -n 1)"; '
)
HOOK_LOOKUP = (
    f'{_FIND}; if [ ! -x "$h" ]; then {_MISSING}; fi; {_CAUSE}'
    'printf "ERROR: %s %s%s; refused, since a hook that fails must not let the action '
    'through.\\n" "$0" "$c" "${l:+: $l}" >&2; exit 2'
)

# The prologue's own refusal, its first word given as an argument: Claude Code shows the
# model the command before a failing hook's stderr, and that command must not read as an
# error line of its own.
# The prologue's refusal, `$l` the launcher's path (set by the prologue), `%s` ERROR.
_NO_LAUNCHER = "%s: no readable $l in this project (automaton-install writes it); refused."
NO_LAUNCHER = (_NO_LAUNCHER % "ERROR").replace("$l", LAUNCHER)


def launcher(marker: str) -> str:
    """`.automaton/hook.sh`: what every hook command of the project runs, readable."""
    return f"""{marker}: the guard's hook launcher (automaton-rules).
# Commit it with the harness settings; automaton-install writes it and --uninstall
# removes it. Each hook command in those settings is a short `sh -c '...'` that finds
# this file in the project folder and sources it, with $0 the tool (automaton-hook) and
# "$@" its arguments, so nothing committed names a path of one machine. It never reads
# stdin itself: the tool does.
#
# Agent harnesses let an action through on every status but 2 (GitHub Copilot CLI: but
# 0), and on a crash: so whatever keeps the tool from answering becomes a refusal with
# one ERROR line naming the cause, never a pass.

# A refusal: exit 2 with the reason on stderr (refusal=exit, or run); with refusal=json
# (set by Copilot's hook command, which shows the model only "hook exited with code 2"),
# a JSON deny on exit 0 whose reason it reads. The reason loses double quotes,
# backslashes and unprintable bytes there, so the JSON is always well formed.
refuse() {{
    printf '%s\\n' "$1" >&2
    if [ "$refusal" = json ]; then
        r=$(printf '%s' "$1" | tr -d '"\\\\' | tr -c '[:print:]' ' ')
        printf '{{"permissionDecision": "deny", "permissionDecisionReason": "%s"}}\\n' "$r"
        exit 0
    fi
    exit 2
}}

# The tool on PATH, else the per-user launcher automaton-install writes.
h=$(command -v "$0") || h=$HOME/.automaton/bin/$0
if [ ! -x "$h" ]; then
    refuse "ERROR: $0 is not installed on this machine (not on PATH, not in \\
~/.automaton/bin). Install it: {INSTALL_HINT}"
fi
# refusal=run: a command run through the launcher (a shell line the adapter rewrote to
# run inside the sandbox, `automaton-sandbox`): its own output and exit status.
[ "$refusal" != run ] || exec "$h" "$@"

# Run it: stdout straight through, stderr kept to name a failure's cause (the shell's
# own word on a killed tool, "Killed", goes nowhere: the cause says it).
exec 3>&1
e=$("$h" "$@" 2>&1 >&3 3>&-) 2>/dev/null
s=$?
exec 3>&-
case $s in
    0 | 2)  # its answers, with what it said
        [ -z "$e" ] || printf '%s\\n' "$e" >&2
        exit "$s" ;;
esac
if [ "$s" -gt 128 ]; then
    cause="was stopped by signal $((s - 128))"
elif [ "$s" -ge 126 ]; then
    cause="could not run (exit status $s)"
else
    cause="failed (exit status $s)"
fi
last=$(printf '%s\\n' "$e" | grep . | tail -n 1)  # a traceback's last line
refuse "ERROR: $0 $cause${{last:+: $last}}; refused, since a hook that fails must not \\
let the action through."
"""


def prologue(project_env: str = "", deny: bool = False) -> str:
    """The committed command's own script: the project's launcher, sourced; none readable,
    a refusal. Where the harness names the project folder (`project_env`, absolute), the
    launcher there and nowhere else; where it names none, the outermost one from the hook's
    working folder up, short of a shared temporary folder (sticky, as /tmp and /dev/shm
    are): a folder inside the project is one the agent may write in an edit phase, and a
    shared one anyone may, while the project's own launcher is a guard file. A project
    variable that is not absolute is a refusal. `deny`: refusals as GitHub Copilot CLI reads
    them, a JSON deny on exit 0."""
    walk = (
        'd=$PWD; while [ -n "$d" ] && [ ! -k "$d" ]; do [ -f "$d/$l" ] && f=$d/$l; d=${d%/*}; done'
    )
    if project_env:
        walk = f'p=${project_env}; case $p in /*) f=$p/$l;; "") {walk};; esac'
    refusal = "json" if deny else "exit"
    find = f'refusal={refusal} f= l={LAUNCHER}; {walk}; [ -r "$f" ] && . "$f"; '
    if not deny:
        return f'{find}printf "{_NO_LAUNCHER}\\n" ERROR >&2; exit 2'
    reason = f'\\"permissionDecisionReason\\": \\"{_NO_LAUNCHER}\\"'
    return f'{find}printf "{{\\"permissionDecision\\": \\"deny\\", {reason}}}\\n" ERROR; exit 0'


def through_launcher(root: str, tool: str, *args: str) -> list[str]:
    """The words of a command line running `tool` through the project's launcher (the
    launcher at `root`, the project's folder), with its own output and exit status."""
    from shlex import quote

    return ["sh", "-c", f"refusal=run; . {quote(f'{root}/{LAUNCHER}')}", tool, *args]


def hook_command(tool: str, *args: str, script: str | None = None) -> str:
    """The command a committed configuration runs `tool` with: no path of this machine.
    `script`: the `sh -c` script (the prologue of a harness with no project variable)."""
    return " ".join(("sh", "-c", f"'{script or prologue()}'", tool, *args))
