"""The plugin tests' shared pieces: a rule registered by path, and a plugin installed as
`pip install` leaves it, for status.py run in a fresh interpreter."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from helpers.checkout import ROOT
from helpers.projects import status_py

LOCAL_RULES = '''
"""A rule of this project only, registered by path in automaton.toml."""
from automaton_rules import Finding, hookimpl, rule


@rule("LOC201", summary="SPEC.md is signed", category="Local Checks", severity="warning")
def spec_signed(task):
    text = task.read("SPEC.md")
    if text is not None and "Signed-off-by" not in text:
        yield Finding("SPEC.md is not signed", path=task.relpath("SPEC.md"))


@hookimpl
def register_rules(register):
    register(spec_signed)
'''


def install_plugin(site: Path, module: str, source: str, entry_point: str = "acme") -> None:
    """What `pip install` leaves on sys.path: the module and its dist-info with an entry point."""
    site.mkdir(exist_ok=True)
    (site / f"{module}.py").write_text(source)
    info = site / f"{module}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {module.replace('_', '-')}\nVersion: 1.0\n"
    )
    (info / "entry_points.txt").write_text(f"[automaton_rules]\n{entry_point} = {module}\n")


def status_with_site(site: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """status.py in a fresh interpreter, as CI runs it, with `site` installed."""
    return status_py(
        *args, env={**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)])}
    )
