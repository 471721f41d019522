"""The sandbox: the boundary of the agent's shell in its phase, and the kernel keeping it.

`boundary` computes what a command may write, read and reach now; `mechanisms` is the table
of ways to keep it (bubblewrap, Landlock, macOS's `sandbox-exec`) and the shell text a
harness's command is rewritten to; `confine` is the exec shim every sandboxed command
starts through, with `landlock` and `seccomp` (standard library only, so the shim runs
with `python -I -S`); `runner` is `automaton-sandbox`. It imports the core, the edit checks
(`guards.edits.checks`, `guards.edits.protected`) and support; nothing here reads a shell line or a
harness's event: the hook adapter decides what runs, this room how it is held.
"""
