"""The hook adapter: every harness's events read, decided and answered in its own format.

`harnesses` is the table (one record per harness, read by the adapter and the installer),
`events` reads an event strictly, `adapter` is `automaton-hook`, `shell_plan` the answer to a
shell line (refuse, carry out its workflow moves, or run it sandboxed), `witness` whether the
harness ran the rewritten line; `session`, `prompt`, `stop` and `settings_change` answer the
other events; `moves` carries out status.py moves; `permissions` reads the user's own rules;
`settings` and `lookup` are the installer's view of a settings file and the committed
command. It is the top room: it may import the edit checks, the shell reader and the
sandbox, and none of them imports it.
"""
