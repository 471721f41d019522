"""Best-effort reading of one shell line: does it write files, approve, skip git hooks?

Only the adapter's shell commands need these patterns, so they are compiled when the
first shell command is judged, never for a file edit.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_WRITE_COMMANDS = re.compile(
    r"(^|[;&|(`\n]\s*|\$\(\s*)((sudo|env|command|nohup|xargs|exec)\s+(-\S+\s+)*)*"
    r"(\\|\S*/)?"
    r"(tee|cp|mv|rm|rmdir|mkdir|touch|truncate|dd|install|ln|chmod|chown|unlink|rsync|patch|"
    r"shred|curl\s+[^|;&]*-o|wget)\b",
    re.MULTILINE,
)
_IN_PLACE = re.compile(r"\b(sed|perl|ruby)\b[^;&|\n]*(\s-[a-zA-Z]*i(\s|\.|$)|--in-place)")
_GIT_WRITES = re.compile(
    r"\bgit\s+(-C\s+\S+\s+|-c\s+\S+\s+)*"
    r"(apply|checkout(?!\s+-b\b)|restore|reset|stash(?!\s+(list|show)\b)|merge|rebase|am|mv|rm)\b"
)
_FIND_WRITES = re.compile(r"\bfind\b[^|;&\n]*\s-(delete|exec)\b")
_INTERPRETER_WRITES = re.compile(
    r"\b(python[\d.]*|perl|ruby|node)\s+(-\S+\s+)*-[ce]\b.*"
    r"(open\(|write|unlink|remove|rename|rmtree|replace\()"
)
_REDIRECT = re.compile(r"(?<![<>])(\d*>>?\|?|&>>?)\s*(?!&)(\S+)")
_NO_VERIFY = re.compile(r"\bgit\b[^|;&\n]*\b(commit|merge|push)\b[^|;&\n]*(--no-verify|\s-n\b)")
_APPROVE = re.compile(r"--approve\b")
_STATE_FILE = re.compile(r"\.st[\w*?\[\]]*")
_PATCH_FILE = re.compile(r"^\*\*\* (?:(?:Add|Update|Delete) File|Move to): (.+)$", re.MULTILINE)


def unquoted(command: str) -> str:
    """The command with quote characters taken out, so `--appr""ove` reads as written."""
    return command.replace('"', "").replace("'", "").replace("\\", "")


def outside_quotes(command: str) -> str:
    """The command with quoted strings blanked, so `grep "a>b"` is not a redirection."""
    return re.sub(r"'[^']*'|\"(?:\\.|[^\"\\])*\"", "''", command)


def redirect_targets(command: str) -> list[str]:
    """Files a command's output redirections write to (`/dev/null` and fds excluded)."""
    return [
        target
        for _, target in _REDIRECT.findall(outside_quotes(command))
        if target != "/dev/null" and not target.startswith("&")
    ]


def shell_writes(command: str, inside: Any = None) -> bool:
    """Best effort: does this shell line write files? Reads and status.py calls do not.

    `inside(path)` tells whether a redirection target is in the project; writes to
    scratch files elsewhere (`git diff > /tmp/x.diff`) are not the project's business.
    """
    bare = outside_quotes(command)
    targets = redirect_targets(command)
    if inside is not None:
        targets = [t for t in targets if inside(t)]
    return bool(
        _WRITE_COMMANDS.search(bare)
        or _IN_PLACE.search(command)
        or _GIT_WRITES.search(bare)
        or _FIND_WRITES.search(bare)
        or _INTERPRETER_WRITES.search(command)
        or targets
    )


def approves(plain: str) -> bool:
    """The line runs `status.py --approve` (quotes already taken out)."""
    return _APPROVE.search(plain) is not None


def skips_hooks(plain: str) -> bool:
    """The line commits, merges or pushes with `--no-verify`."""
    return _NO_VERIFY.search(plain) is not None


def names_state_file(plain: str) -> bool:
    """The line mentions a `.state*` file, also through a glob."""
    return _STATE_FILE.search(plain) is not None


def patch_files(text: str) -> list[str]:
    """The files an `apply_patch` body adds, updates, deletes or moves to."""
    return [match.strip() for match in _PATCH_FILE.findall(text)]
