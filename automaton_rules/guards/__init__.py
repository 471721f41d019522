"""The edit-time guards: may this file be edited, may this shell command run, may this commit land.

Four rooms, each importing only those before it (tests/test_architecture.py):
`edits` (may this file change: the checks behind `--can-edit` and the git hooks), `shell`
(what a shell line writes, read as bash reads it), `sandbox` (the boundary of the agent's
shell and the kernel keeping it) and `hooks` (the harness adapter behind `automaton-hook`:
each harness's record, its events, its answers, and the installer's view of its settings).
Agents call these before every edit, so their imports are budgeted
(tests/test_import_budget.py): they use the core, and import the engine only when a
project lists plugins with edit rules.
"""
