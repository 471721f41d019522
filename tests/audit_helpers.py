"""Helpers shared by the audit tests: configuration, findings, report sections, fake installs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from automaton_rules.testing import Audit, AutomatonProject


def write_config(project: AutomatonProject, text: str) -> None:
    (project.root / "automaton.toml").write_text(text)


def with_code(audit: Audit, code: str) -> list[dict[str, Any]]:
    return [f for f in audit.findings if f["code"] == code]


def section(text: str, heading: str) -> list[str]:
    """The lines of one report section, up to the blank line that ends it."""
    lines = text.splitlines()
    start = lines.index(heading) + 1
    end = lines.index("", start) if "" in lines[start:] else len(lines)
    return lines[start:end]


def install(site: Path, module: str, source: str, entry_point: str = "acme") -> None:
    """What `pip install` leaves on sys.path: the module and its dist-info with an entry point."""
    site.mkdir(exist_ok=True)
    (site / f"{module}.py").write_text(source)
    info = site / f"{module}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {module.replace('_', '-')}\nVersion: 1.0\n"
    )
    (info / "entry_points.txt").write_text(f"[automaton_rules]\n{entry_point} = {module}\n")
