"""Audit reports: the formats, one record each; the data they share is in `model`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType

from automaton_rules.report.model import AuditReport, named, plural

__all__ = [
    "ANSWER",
    "DEFAULT",
    "FORMATS",
    "TABLE",
    "AuditReport",
    "Format",
    "format_named",
    "named",
    "plural",
    "renderer",
    "written",
]


@dataclass(frozen=True)
class Format:
    """One output format of `--audit`: the name `--format` takes, its module under
    `report/` (imported only when the format is asked for), and whether it is the
    command's JSON answer, which `--json` selects and which carries the errors of the
    audit's listeners."""

    name: str
    module: str
    answer: bool = False

    def loaded(self) -> ModuleType:
        """The format's module: its `render`, and its `written` where it has one."""
        from importlib import import_module

        return import_module(f"automaton_rules.report.{self.module}")

    def render(self, report: AuditReport) -> str:
        """The report in this format."""
        render: Callable[[AuditReport], str] = self.loaded().render
        return render(report)

    def written(self, report: AuditReport, path: str, entries: int) -> str:
        """What `--write-baseline` prints in this format: how many findings it recorded.
        The module says it with its own `written` (JSON's envelope, SARIF's log, GitHub's
        notice); a document format (Markdown, JUnit, GitLab, HTML) would be empty: one
        line."""
        from automaton_rules.support.output import printable

        count = len(report.result.findings)
        held = plural(entries, "entry", "entries")
        text = (
            f"Wrote baseline {path}: {plural(count, 'finding')} as {held} "
            "(fingerprint: rule code, task, path, commit)"
        )
        own: Callable[[AuditReport, str, int, str], str] | None = getattr(
            self.loaded(), "written", None
        )
        return own(report, path, entries, text) if own is not None else printable(text, None)


TABLE: tuple[Format, ...] = (
    Format("text", "text"),
    Format("json", "json_format", answer=True),
    Format("sarif", "sarif"),
    Format("github", "github"),
    Format("markdown", "markdown"),
    Format("junit", "junit"),
    Format("gitlab", "gitlab"),
    Format("html", "html"),
)
FORMATS: tuple[str, ...] = tuple(chosen.name for chosen in TABLE)  # what --format takes
DEFAULT = TABLE[0]  # the report printed without --format
ANSWER = next(chosen for chosen in TABLE if chosen.answer)  # what --json selects


def format_named(name: str) -> Format:
    """The format `--format NAME` chose (the command line has checked the name)."""
    for chosen in TABLE:
        if chosen.name == name:
            return chosen
    raise KeyError(name)


def renderer(name: str) -> Callable[[AuditReport], str]:
    """The function that renders a report in a named format."""
    return format_named(name).render


def written(name: str, report: AuditReport, path: str, entries: int) -> str:
    """What `--write-baseline` prints in a named format."""
    return format_named(name).written(report, path, entries)
