"""The support layer: what every layer shares that is not the state of a task.

It owns the package's version, the JSON envelope and the escaping of untrusted text
(`output`), the two ways a command fails and their catalogue (`errors`), time as the task
files write it (`clock`), who did a thing (`person`), running git (`git`), OpenSSH
signatures (`signing`), the console scripts' argument reading (`console`), light records
(`record`), patterns compiled on first use (`patterns`), the version (`version`) and
what one run of a command was given (`context`). It imports only the
standard library, so the edit-time guards load it for nearly nothing and every layer,
the core included, may build on it.
"""
