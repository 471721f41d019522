"""The README's first command: the demo walks its project through status.py and ends with
the audit CI would run. Each call in it states the exit code it expects, so the demo
itself fails on any answer that changed."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

from helpers import ROOT


def test_the_demo_runs_to_its_audit(tmp_path: Path) -> None:
    project = tmp_path / "demo"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "demo.py"), "--keep", str(project)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr
    out = proc.stdout
    # The views of issue 15 and the audit's four categories, in the order the demo tells.
    assert out.index("$ status.py --list") < out.index("$ status.py --stats --task add-user-auth")
    assert "approvals: research by user via cli" in out
    audit = out[out.index("$ status.py --audit") :]
    categories = (
        "out-of-order artifact",
        "state-artifact mismatch",
        "unauthorized modification",
        "manually created task folder",
    )
    for category in categories:
        assert category in audit
    assert audit.rstrip().endswith(f"(exit 1)\n\nDemo project left in {project}")
    assert (project / ".automaton" / "tasks" / "add-user-auth" / ".state").read_text() == (
        "complete\n"
    )
    # What the demo shows it writes is what it wrote: every `printf` line, byte for byte.
    writes = [shlex.split(line) for line in out.splitlines() if line.startswith("$ printf ")]
    assert len(writes) >= 15
    shown = {path: _printed(text) for _, _, text, _, path in writes}
    assert "Verdict: PASS\n" in shown[".automaton/tasks/add-user-auth/VERDICT.md"]
    assert {path: (project / path).read_text() for path in shown} == shown


def _printed(fmt: str) -> str:
    """What `printf FMT` prints, for the escapes the demo uses."""
    return fmt.replace("\\\\", "\0").replace("\\n", "\n").replace("%%", "%").replace("\0", "\\")
