"""Baselines: the findings a project accepts today, so that an audit fails only on new ones.

A finding is known by its fingerprint — rule code, task, path and commit — and never by
its message, a line number or a time, which change while the problem stays the same.
The file is JSON with a version, written atomically; each fingerprint carries how many
findings had it, so a second finding of the same kind is new.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from automaton_rules.engine.findings import Finding
from automaton_rules.support.errors import AutomatonError
from automaton_rules.support.output import json_text, printable

VERSION = 1
KIND = "automaton-rules baseline"
KEYS = ("code", "task", "path", "commit")


class Fingerprint(NamedTuple):
    """What stays the same while a finding stays the same problem."""

    code: str
    task: str | None
    path: str | None
    commit: str | None

    def as_dict(self, count: int) -> dict[str, Any]:
        """One entry of the baseline file."""
        return {**self._asdict(), "count": count}

    def digest(self, occurrence: int = 1) -> str:
        """The fingerprint hashed, for the formats whose readers match findings across runs
        by one string (SARIF, GitLab Code Quality); a later finding with the same
        fingerprint (`occurrence` 2, 3...) gets a string of its own, as GitLab keeps one
        item per string."""
        parts = [part or "" for part in self]
        if occurrence > 1:
            parts.append(str(occurrence))
        text = "\0".join(parts).encode("utf-8", "surrogateescape")
        return hashlib.sha256(text).hexdigest()[:32]


def fingerprint(finding: Finding) -> Fingerprint:
    """A finding's fingerprint; `commit` is the full SHA a git rule records in its data."""
    commit = finding.data.get("commit")
    return Fingerprint(
        finding.code, finding.task, finding.path, commit if isinstance(commit, str) else None
    )


def _sorted(counts: Counter[Fingerprint]) -> list[tuple[Fingerprint, int]]:
    """Entries in a stable order, so a baseline's diff shows only what changed."""
    return sorted(counts.items(), key=lambda item: tuple(part or "" for part in item[0]))


def document(findings: Iterable[Finding]) -> dict[str, Any]:
    """The baseline file's content for these findings."""
    counts = Counter(fingerprint(f) for f in findings)
    return {
        "kind": KIND,
        "version": VERSION,
        "fingerprint": list(KEYS),
        "findings": [entry.as_dict(count) for entry, count in _sorted(counts)],
    }


def write(path: Path, findings: Sequence[Finding]) -> int:
    """Write the baseline atomically (a temporary file beside it, then a rename); returns
    how many entries it holds."""
    content = document(findings)
    folder = path.parent if str(path.parent) else Path(".")
    shown = printable(str(path), None)
    try:
        handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise AutomatonError(
            "baseline-unwritable", f"Cannot write the baseline {shown}: {exc.strerror or exc}"
        ) from None
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(json_text(content) + "\n")
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException as exc:
        with suppress(OSError):
            os.unlink(temporary)  # nothing half written is left behind
        if not isinstance(exc, OSError):
            raise
        raise AutomatonError(
            "baseline-unwritable", f"Cannot write the baseline {shown}: {exc.strerror or exc}"
        ) from None
    return len(content["findings"])


def read(path: Path) -> Counter[Fingerprint]:
    """The fingerprints a baseline file accepts, with their counts; a missing or invalid
    file is an error (exit 2), never an empty baseline that would pass everything."""
    shown = printable(str(path), None)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise AutomatonError(
            "baseline-missing",
            f"Baseline {shown} not found. Write one with --audit --write-baseline {shown}.",
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8"
        raise AutomatonError(
            "baseline-invalid", f"Cannot read baseline {shown}: {reason}"
        ) from None
    try:
        return _entries(json.loads(text))
    except (ValueError, TypeError) as exc:
        raise AutomatonError(
            "baseline-invalid",
            f"Baseline {shown} is not a baseline this version reads ({printable(str(exc), None)}). "
            f"Write it again with --audit --write-baseline {shown}.",
        ) from None


def _entries(content: Any) -> Counter[Fingerprint]:
    """The entries of a parsed baseline file, every field checked."""
    if not isinstance(content, dict) or content.get("kind") != KIND:
        raise ValueError(f'no "kind": "{KIND}"')
    if content.get("version") != VERSION:
        raise ValueError(f"version {content.get('version')!r}, expected {VERSION}")
    entries = content.get("findings")
    if not isinstance(entries, list):
        raise ValueError('"findings" is not a list')
    counts: Counter[Fingerprint] = Counter()
    for number, entry in enumerate(entries, start=1):
        if not isinstance(entry, dict) or not isinstance(entry.get("code"), str):
            raise ValueError(f"entry {number} has no rule code")
        parts = [entry.get(key) for key in KEYS[1:]]
        count = entry.get("count", 1)
        if any(part is not None and not isinstance(part, str) for part in parts):
            raise ValueError(f"entry {number}: task, path and commit are strings or null")
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            raise ValueError(f"entry {number}: count is a positive integer")
        counts[Fingerprint(entry["code"], *parts)] += count
    return counts


@dataclass
class Compared:
    """An audit's findings against a baseline: what is new, what the baseline knew, and
    the baseline's entries that no longer occur."""

    new: list[Finding] = field(default_factory=list)
    known: list[Finding] = field(default_factory=list)
    gone: list[tuple[Fingerprint, int]] = field(default_factory=list)


def compare(
    findings: Iterable[Finding],
    baseline: Counter[Fingerprint],
    commits: Collection[str] | None = None,
) -> Compared:
    """Each finding is known while its fingerprint has count left in the baseline. With
    `commits` (the range `--since` reads), an entry for a commit outside it was not looked
    for, so it is not gone."""
    left = Counter(baseline)
    compared = Compared()
    for finding in findings:
        key = fingerprint(finding)
        if left[key] > 0:
            left[key] -= 1
            compared.known.append(finding)
        else:
            compared.new.append(finding)
    compared.gone = [
        (key, count)
        for key, count in _sorted(left)
        if count > 0 and (commits is None or key.commit is None or key.commit in commits)
    ]
    return compared
