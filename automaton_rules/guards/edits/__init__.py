"""The edit checks: may this file change now, is it in scope, may this commit land.

`checks` decides an edit from the task's phase and scope, `protected` names the guard's own
files no agent may change, `flags` is the specification's `--can-edit`/`--scope-check`
family on the command line, `commits` the git hooks. It imports the core, the workflow and
support, and the engine only for a project's edit rules; nothing else under guards/.
"""
