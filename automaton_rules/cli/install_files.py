"""What `automaton-install` writes besides the harness settings: the per-user launchers,
the git hook scripts, the project's hook launcher (`.automaton/hook.sh`, which the
harnesses' hook commands source), and its own sections of the agent instructions
(`CLAUDE.md`, `AGENTS.md`, `GEMINI.md`: the file each harness record names) and of
`.automaton/.gitignore`. The portable hook command is `guards/hooks/lookup.py`'s.

Nothing it writes into a project names a path of this machine, so a team commits those
files as they are: each machine finds the tool by itself, on `PATH`, else through the
launcher `automaton-install` writes to `~/.automaton/bin`. Where neither is there, the
command says how to install and exits 2, which every harness and git take as a refusal.
"""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

from automaton_rules.core import guard_files, machine
from automaton_rules.core.project import FRAMEWORK_HOME, framework_home
from automaton_rules.guards.edits.checks import EDIT_PHASES_TEXT
from automaton_rules.guards.hooks import lookup
from automaton_rules.guards.hooks.lookup import HOOK_LOOKUP as HOOK_LOOKUP
from automaton_rules.guards.hooks.lookup import INSTALL_HINT
from automaton_rules.guards.hooks.lookup import LAUNCHER as LAUNCHER
from automaton_rules.guards.hooks.lookup import LOOKUP as LOOKUP
from automaton_rules.guards.hooks.lookup import hook_command as hook_command
from automaton_rules.support.context import STATUS_SCRIPT
from automaton_rules.support.errors import AutomatonError

MARKER = "# installed by automaton-install"

# automaton-sandbox: the rewritten shell lines of a harness whose own path check refuses
# paths outside the project run it through the project's launcher (GitHub Copilot CLI).
LAUNCHED = ("automaton-hook", "automaton-git-hook", "automaton-sandbox")


def launcher_path(home: Path | None, tool: str) -> Path:
    """`~/.automaton/bin/TOOL`, where `LOOKUP` looks when `PATH` has no `TOOL`."""
    return framework_home(home) / "bin" / tool


def launcher(tool: str) -> str | None:
    """The launcher running this installation's `tool`; None when it has none."""
    target = Path(sys.executable).parent / tool
    if not target.exists():
        return None
    return f"""#!/bin/sh
{MARKER}: runs the {tool} of the installation below,
# for the hook commands a project commits (they look on PATH first, then here).
h={shlex.quote(str(target))}
[ -x "$h" ] && exec "$h" "$@"
printf "ERROR: %s is gone (moved or uninstalled). Reinstall: {INSTALL_HINT}\\n" "$h" >&2
exit 2
"""


def hook_launcher() -> str:
    """`.automaton/hook.sh`, which every harness hook command of the project sources."""
    return lookup.launcher(MARKER)


def git_hook_script(command: str) -> str:
    """A git hook running `automaton-git-hook ...` as the harness settings run theirs."""
    tool, _, args = command.partition(" ")
    return (
        f"#!/bin/sh\n{MARKER}\n"
        f"# automaton-rules: {tool} from PATH, else ~/.automaton/bin; where it is not\n"
        "# installed, the commit is refused with how to install it.\n"
        f"exec {hook_command(tool, args, script=LOOKUP)}\n"
    )


GITIGNORE = f"{FRAMEWORK_HOME}/.gitignore"
# What status.py makes and removes again on one machine. `.state.mutex` is not here: it
# is committed, an empty file that never changes, which the audit reads as "made by
# status.py" (AR208) in a fresh clone too.
IGNORED = (
    (".state.tmp", "`.state` being replaced"),
    (".state.lock", "a multi-agent claim: a lease of agents sharing this work tree"),
    (".state.lock.tmp", "a claim being replaced"),
    (".*.creating/", "a task folder --create-task is still building"),
)


def _phase_line() -> str:
    """The phases in order, from the workflow's own data."""
    main = [p for p in machine.PHASES if p not in ("decomposition", "human_intervention")]
    return " → ".join(main)


def instructions_section() -> str:
    """What an agent reads before any hook denies it anything."""
    *first, last = machine.APPROVAL_PHASES
    gates = f"{', '.join(first)} and {last}"
    script = STATUS_SCRIPT
    return f"""<!-- {guard_files.SECTION_BEGIN} (automaton-install writes this section; \
automaton-install --uninstall removes it) -->
## Workflow: automaton-rules

Every code change belongs to a task, and a task moves one phase at a time: \
{_phase_line()} (design and test_design may be skipped; decomposition after research \
splits a task into sub-tasks). {gates} each end at `PHASE:awaiting_approval`, which only \
the user opens.

- Where a task stands and the command that moves it on: `{script} --task NAME` \
(every task: `{script} --list`; new work: `{script} --create-task NAME`).
- Forbidden: editing code while no task is in {EDIT_PHASES_TEXT}; writing `.state` or \
anything else under `.automaton/` by hand (only status.py writes the records); running \
`status.py --approve`; changing automaton.toml, the hook settings or the git hooks.
- At an approval gate, stop and ask the user to approve: the user types `approve TASK` \
in this chat. The project's `approval` setting (`open`, `prompt` or `signed`) decides \
which approvals count (automaton-rules: docs/approvals.md).
<!-- {guard_files.SECTION_END} -->
"""


def gitignore_section() -> str:
    """`.automaton/.gitignore`'s lines: the per-machine files status.py makes."""
    lines = [
        f"# {guard_files.SECTION_BEGIN} (automaton-install writes this section; "
        "automaton-install --uninstall removes it)",
        "# Per-machine files status.py makes and removes. Commit everything else under",
        "# .automaton/, .state.mutex included (the audit reads it).",
    ]
    for pattern, what in IGNORED:
        lines += [f"# {what}", pattern]
    return "\n".join([*lines, f"# {guard_files.SECTION_END}", ""])


def _read(path: Path) -> str | None:
    """The file's text exactly as its bytes are (no newline translation); None: no file."""
    try:
        return path.read_bytes().decode("utf-8", errors="surrogateescape")
    except FileNotFoundError:
        return None


def _replace(path: Path, text: str) -> bool:
    """Write when the content differs, keeping the file's mode; True when it changed."""
    if _read(path) == text:
        return False
    mode = path.stat().st_mode & 0o7777 if path.exists() else 0o644
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(text.encode("utf-8", errors="surrogateescape"))
    os.chmod(tmp, mode)
    os.replace(tmp, path)
    return True


def _target(path: Path) -> Path:
    """A linked file (`CLAUDE.md -> AGENTS.md`) is written through its link."""
    return path.resolve() if path.is_symlink() else path


def check_section(path: Path) -> None:
    """Refuse a file whose section has a begin line and no end line: what to replace or
    remove would be a guess."""
    text = _read(_target(path)) or ""
    if guard_files.SECTION_BEGIN in text and guard_files.section_span(text) is None:
        raise AutomatonError(
            "install-failed",
            f"{path} has a line with {guard_files.SECTION_BEGIN} and none with "
            f"{guard_files.SECTION_END} after it: fix or remove that line, then run again",
        )


def add_section(path: Path, section: str) -> bool:
    """Put the installer's section into `path` (made if missing); True when it changed."""
    check_section(path)
    target = _target(path)
    return _replace(target, guard_files.with_section(_read(target), section))


def remove_section(path: Path) -> str | None:
    """Take the installer's section out of `path`, and the file when it held nothing
    else (install made it); what was done, or None when there was nothing to do."""
    target = _target(path)
    text = _read(target)
    span = None if text is None else guard_files.section_span(text)
    if text is None or span is None:
        return None
    rest = guard_files.without_section(text)
    if span[0] == 0 and not rest and target == path:
        path.unlink()
        return "removed"
    _replace(target, rest)
    return "updated"
