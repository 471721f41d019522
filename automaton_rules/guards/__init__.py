"""The edit-time guards: may this file be edited, may this shell command run, may this commit land.

The specification's hook flags (`--can-edit`, `--scope-check`, ...), the harness adapter
behind `automaton-hook`, its shell-command reader and the git hooks. Agents call these
before every edit, so their imports are budgeted (tests/test_import_budget.py): they use
the core, and import the engine only when a project lists plugins with edit rules.
"""
