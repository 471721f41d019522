"""Write integrations/ and githooks/ from what automaton-install installs: run after
changing a harness's hooks or the lookup (tests/test_install.py and tests/test_githooks.py
fail while they differ)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from automaton_rules.cli import install_files
from automaton_rules.guards.hooks import harnesses

ROOT = Path(__file__).resolve().parent.parent
PLUGIN = ROOT / "automaton_rules" / "guards" / "hooks" / "opencode_plugin.js"


def write_integrations() -> None:
    """Each harness's settings file, from the harness table, the launcher their commands
    run (`.automaton/hook.sh` in a project), and the opencode plugin with today's lookup."""
    for record in harnesses.HARNESSES.values():
        ours = record.hooks()
        if not ours:  # a plugin, not a settings file (opencode): below
            continue
        path = ROOT / "integrations" / record.name / Path(record.settings_file).name
        path.parent.mkdir(exist_ok=True)
        path.write_text(json.dumps(ours, indent=2) + "\n", encoding="utf-8")
    launcher = install_files.hook_launcher()
    (ROOT / "integrations" / "hook.sh").write_text(launcher, encoding="utf-8")
    lookup = f"const LOOKUP = {json.dumps(install_files.HOOK_LOOKUP)};"
    text = re.sub(r"^const LOOKUP = .*;$", lambda _: lookup, PLUGIN.read_text(), flags=re.M)
    PLUGIN.write_text(text, encoding="utf-8")
    (ROOT / "integrations" / "opencode" / "automaton-guard.js").write_text(text, encoding="utf-8")
    for hook in (ROOT / "githooks").iterdir():
        lines = hook.read_text(encoding="utf-8").splitlines(keepends=True)
        hook.write_text("".join(_relooked(line) for line in lines), encoding="utf-8")


def _relooked(line: str) -> str:
    """A git hook's `exec sh -c 'LOOKUP' automaton-git-hook ...` line with today's lookup."""
    if not line.startswith("exec sh -c '"):
        return line
    tail = line[line.rindex("' automaton-git-hook") :]
    return f"exec sh -c '{install_files.LOOKUP}{tail}"


if __name__ == "__main__":
    write_integrations()
