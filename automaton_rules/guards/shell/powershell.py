"""A PowerShell line: plain reads of known cmdlets pass unread; any other line is opaque
code (PowerShell is another language, and half-reading it would err where no one sees).
"""

from __future__ import annotations

import re
from pathlib import Path

from automaton_rules.support.patterns import Lazy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from automaton_rules.core.project import Project

# Cmdlets and their aliases that only read or format what they are given.
_READERS = """
    get-childitem gci ls dir get-content gc cat type get-item gi get-itemproperty gp
    get-location gl pwd test-path resolve-path rvpa select-string sls measure-object measure
    select-object select where-object where sort-object sort group-object group
    format-list fl format-table ft format-wide fw out-string write-output echo write-host
    get-date get-command gcm get-help get-process gps ps get-filehash get-acl split-path
    join-path get-variable compare-object compare diff get-unique convertto-json
    convertfrom-json get-member gm
"""
READERS = frozenset(_READERS.split())
READ_GIT = "status diff log show blame grep ls-files ls-tree rev-parse describe"
# Programs a PowerShell line may run as reads, with the sub-commands that read.
READ_PROGRAMS = {"git": frozenset(READ_GIT.split())}
_QUOTED = Lazy(r"'[^']*'|\"[^\"$`]*\"")
_UNSAFE = Lazy(r"[<>$`&@{}()\[\]#]|\.\s|^\.|-(?:outfile|outvariable|filepath)\b", re.I)
_SEPARATORS = Lazy(r"[|;\n]")


def plain_read(command: str) -> bool:
    """Every command of the line a read-only cmdlet (or a reading git), with plain words."""
    if len(command) > 2000:
        return False
    bare = _QUOTED.sub("x", command)
    if _UNSAFE.search(bare):
        return False
    segments = [segment.split() for segment in _SEPARATORS.split(bare)]
    return all(segment and _reads(segment) for segment in segments)


def _reads(words: list[str]) -> bool:
    name = words[0].lower()
    if name in READ_PROGRAMS:
        return len(words) > 1 and words[1].lower() in READ_PROGRAMS[name]
    return name in READERS


def judge(
    command: str,
    cwd: Path | None,
    finder: Callable[[], Project | None],
    task: str | None,
    explicit: bool = False,
) -> str | None:
    """The refusal for one PowerShell line, or None when it may run."""
    if plain_read(command):
        return None
    from automaton_rules.guards.shell import verdict as shell_verdict

    return shell_verdict.judge_opaque(command, "a PowerShell line", cwd, finder, task, explicit)
