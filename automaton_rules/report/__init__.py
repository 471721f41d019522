"""Audit reports: the renderers by format name; the data they share is in `model`."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

from automaton_rules.report.model import AuditReport, named, plural

__all__ = ["FORMATS", "AuditReport", "named", "plural", "renderer", "written"]

FORMATS: tuple[str, ...] = (
    "text",
    "json",
    "sarif",
    "github",
    "markdown",
    "junit",
    "gitlab",
    "html",
)
# A format whose module is not named after it.
_MODULES = {"json": "json_format"}


def _module(name: str) -> ModuleType:
    """A format's module, imported only when that format is asked for."""
    from importlib import import_module

    if name not in FORMATS:
        raise KeyError(name)
    return import_module(f"automaton_rules.report.{_MODULES.get(name, name)}")


def renderer(name: str) -> Callable[[AuditReport], str]:
    """The function that renders a report in a format: `render` of its module."""
    render: Callable[[AuditReport], str] = _module(name).render
    return render


def written(name: str, report: AuditReport, path: str, entries: int) -> str:
    """What `--write-baseline` prints, in the chosen format: how many findings it recorded.
    A format's module says it with its own `written` (JSON's envelope, SARIF's log, GitHub's
    notice); a document format (Markdown, JUnit, GitLab, HTML) would be empty: one line."""
    from automaton_rules.support.output import printable

    count = len(report.result.findings)
    held = plural(entries, "entry", "entries")
    text = (
        f"Wrote baseline {path}: {plural(count, 'finding')} as {held} "
        "(fingerprint: rule code, task, path, commit)"
    )
    own: Callable[[AuditReport, str, int, str], str] | None = getattr(
        _module(name), "written", None
    )
    return own(report, path, entries, text) if own is not None else printable(text, None)
