"""Audit reports: the renderers by format name; the data they share is in `model`."""

from __future__ import annotations

from collections.abc import Callable

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


def renderer(name: str) -> Callable[[AuditReport], str]:
    """The function that renders a report in a format: `render` of its module, imported
    only when that format is asked for."""
    from importlib import import_module

    if name not in FORMATS:
        raise KeyError(name)
    module = import_module(f"automaton_rules.report.{_MODULES.get(name, name)}")
    render: Callable[[AuditReport], str] = module.render
    return render


def written(name: str, report: AuditReport, path: str, entries: int) -> str:
    """What `--write-baseline` prints, in the chosen format: how many findings it recorded."""
    from automaton_rules.support.output import printable

    count = len(report.result.findings)
    held = plural(entries, "entry", "entries")
    text = (
        f"Wrote baseline {path}: {plural(count, 'finding')} as {held} "
        "(fingerprint: rule code, task, path, commit)"
    )
    if name == "github":
        from automaton_rules.report.github import _data

        return f"::notice title=automaton-rules baseline::{_data(text)}"
    if name in ("json", "sarif"):
        from automaton_rules.report import json_format, sarif

        return (json_format if name == "json" else sarif).written(report, path, entries, text)
    # A document (Markdown, JUnit, GitLab, HTML) of a baseline would be empty: one line.
    return printable(text, None)
