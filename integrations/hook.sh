# installed by automaton-install: the guard's hook launcher (automaton-rules).
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
refuse() {
    printf '%s\n' "$1" >&2
    if [ "$refusal" = json ]; then
        r=$(printf '%s' "$1" | tr -d '"\\' | tr -c '[:print:]' ' ')
        printf '{"permissionDecision": "deny", "permissionDecisionReason": "%s"}\n' "$r"
        exit 0
    fi
    exit 2
}

# The tool on PATH, else the per-user launcher automaton-install writes.
h=$(command -v "$0") || h=$HOME/.automaton/bin/$0
if [ ! -x "$h" ]; then
    refuse "ERROR: $0 is not installed on this machine (not on PATH, not in \
~/.automaton/bin). Install it: pip install automaton-rules, then automaton-install --project . in this project (automaton-rules: docs/adopting.md)"
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
        [ -z "$e" ] || printf '%s\n' "$e" >&2
        exit "$s" ;;
esac
if [ "$s" -gt 128 ]; then
    cause="was stopped by signal $((s - 128))"
elif [ "$s" -ge 126 ]; then
    cause="could not run (exit status $s)"
else
    cause="failed (exit status $s)"
fi
last=$(printf '%s\n' "$e" | grep . | tail -n 1)  # a traceback's last line
refuse "ERROR: $0 $cause${last:+: $last}; refused, since a hook that fails must not \
let the action through."
