"""The shell reader: what a shell line writes and which status.py calls it makes, read as
bash reads it. `parse` walks the tree into `words`; `table` holds a typed row (`row`) per
program, read by the one interpreter in `programs` (with `handlers` and `git`); `reading`
collects, `reader` is the entry, `verdict` the answer, `powershell` PowerShell's plain
reads. It imports the edit checks, the core and support; never the sandbox or the hooks.
"""
