"""The workflow drawn for the board: Graphviz's layout when `dot` is installed, else the
report's own drawing, whose edges run between the boxes and never through one."""

from __future__ import annotations

import re
import shutil
import subprocess
from collections import Counter

from automaton_rules.report.graph import Graph, dot
from automaton_rules.report.html import svg

_PROLOG = re.compile(r"\A.*?(?=<svg\b)", re.DOTALL)


def draw(graph: Graph) -> tuple[str, str]:
    """(inline SVG, what drew it)."""
    program = shutil.which("dot")
    if program is not None:
        try:
            proc = subprocess.run(
                [program, "-Tsvg"],
                input=dot(graph).encode(),
                capture_output=True,
                timeout=20,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired):
            proc = None
        if proc is not None and proc.returncode == 0 and b"<svg" in proc.stdout:
            return _PROLOG.sub("", proc.stdout.decode("utf-8", errors="replace")), "Graphviz dot"
    held = Counter({graph.current: 1}) if graph.current else Counter()
    return svg(graph, held), "automaton-rules (Graphviz dot is not installed)"
