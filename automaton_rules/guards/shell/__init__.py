"""The shell reader: what a shell line writes and which status.py calls it makes, read as
bash reads it.

`parse` walks tree-sitter-bash's tree into simple commands of `words`; `table` holds one row
per program, read by the one interpreter in `programs` (with `handlers` and `git` for the
programs a row cannot say); `reading` collects what the line does; `reader` is the entry,
`verdict` the answer for a phase, `powershell` the plainly-read subset of PowerShell. It
imports the edit checks, the core and support; never the sandbox or the hook adapter: it
says what a line does, not how it runs.
"""
