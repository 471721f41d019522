"""The dashboard: a live board of every project's tasks, served on this machine.

`automaton-board` (or `status.py --serve`) serves one or many projects, each root fixed
when it starts. A person sees the tasks by phase, reads their artifacts, approves or asks
for changes; every change on disk reaches each open page within a second. The top layer,
beside `cli`: it imports the core, the engine, the workflow and the reports, and nothing
imports it. Its libraries (Starlette, uvicorn, watchfiles, markdown-it-py) are the
optional extra `automaton-rules[board]`; the edit-time path never loads them.
"""
