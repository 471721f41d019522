"""The state core: the workflow as data, the task files, the project and its configuration.

It owns `.state`, `.state.history`, `.state.approvals` and `.state.lock` (only `store`
writes them), the state machine (`machine`, pure data with no I/O), finding the project
and its tasks, and reading `automaton.toml`. It imports nothing from the rest of the
package, so every other layer may build on it and the edit-time guards can load it cheaply.
"""
