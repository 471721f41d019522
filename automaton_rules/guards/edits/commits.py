"""Git hooks: no source commit while no task may edit, no hand-edited `.state` or approval
log, a Task trailer.

The guard's own files (the configuration, harness hook settings, git hooks, `.automaton/`
records, the signers file) are not source: a person commits them in any phase, and the
audit reports the commits that change them. A `pyproject.toml` is source unless only its
`[tool.automaton]` table changed; an agent-instructions file (`CLAUDE.md`, `AGENTS.md`,
`GEMINI.md`) unless only automaton-install's section of it changed.

`automaton-git-hook pre-commit` (and `pre-merge-commit`, the same checks for a merge
commit) and `automaton-git-hook commit-msg FILE` are what the hook scripts
`automaton-install --git-hooks` writes (and this repository's `githooks/`) and
`.pre-commit-hooks.yaml` (for the pre-commit framework) run. Git is called with argument
lists, never through a shell.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any

from automaton_rules.core import guard_files, integrity, machine, store
from automaton_rules.core.config import Config, load_config
from automaton_rules.core.project import Project, find_project
from automaton_rules.guards.edits.checks import task_states
from automaton_rules.guards.edits.protected import guard_relpaths
from automaton_rules.support import git
from automaton_rules.support.console import Script
from automaton_rules.support.context import DEFAULT
from automaton_rules.support.errors import AutomatonError
from automaton_rules.support.git import TASK_TRAILER
from automaton_rules.support.output import printable
from automaton_rules.support.patterns import Lazy

_TRAILER = Lazy(rf"^{TASK_TRAILER}:\s*(\S+)\s*$", re.MULTILINE)


def read_staged(root: Path) -> list[str]:
    """Paths staged for the commit, relative to `root`."""
    out = git.output(
        root, "diff", "--cached", "--name-only", "--relative", "-z", "--diff-filter=ACMRD"
    )
    return [path for path in out.split("\0") if path]


def _read_staged_text(root: Path, path: str) -> str | None:
    proc = git.run(root, ["show", f":./{path}"])
    return proc.stdout.decode("utf-8", errors="replace") if proc.returncode == 0 else None


def source_files(project: Project, settings: Config, paths: Sequence[str]) -> list[str]:
    """The staged paths that are source: those the settings count, but the guard's files."""
    named = guard_relpaths(project, settings)
    source = []
    for path in paths:
        if not settings.is_source(path):
            continue
        kind = guard_files.kind_of_relpath(path, named)
        if kind == guard_files.TOOL_TABLE:
            if _beyond_table(project, path):
                source.append(path)
        elif kind is None and not _installer_section_only(project, path):
            source.append(path)
    return source


def _installer_section_only(project: Project, path: str) -> bool:
    """An agent-instructions file (`CLAUDE.md`...) whose staged change lies inside
    automaton-install's section: the installer's, whatever `source` says of Markdown."""
    if path not in guard_files.INSTRUCTION_FILES:
        return False
    staged = _read_staged_text(project.root, path)
    before = guard_files.without_section(_read_committed_text(project.root, path) or "")
    return guard_files.without_section(staged or "") == before


def _beyond_table(project: Project, path: str) -> bool:
    """Whether the staged pyproject.toml differs from HEAD's outside `[tool.automaton]`; a
    file either side cannot read is taken as changed."""
    texts = [_read_staged_text(project.root, path), _read_committed_text(project.root, path)]
    rest = [_without_table(text) for text in texts]
    return None in rest or rest[0] != rest[1]


def _read_committed_text(root: Path, path: str) -> str | None:
    proc = git.run(root, ["show", f"HEAD:./{path}"])
    return proc.stdout.decode("utf-8", errors="replace") if proc.returncode == 0 else ""


def _without_table(text: str | None) -> object:
    """A pyproject.toml's settings but `[tool.automaton]`; None when it cannot be read."""
    from automaton_rules.core.config import toml_module

    if text is None:
        return None
    try:
        data = toml_module().loads(text)
    except Exception:
        return None
    tool = data.get("tool")
    if isinstance(tool, dict):
        tool.pop("automaton", None)
        if not tool:
            del data["tool"]
    return data


def hand_edited_states(root: Path, paths: Sequence[str]) -> list[str]:
    """Staged `.state` files that do not say what the staged history says status.py wrote."""
    problems = []
    for path in paths:
        if Path(path).name.lower() != store.STATE:
            continue
        state = (_read_staged_text(root, path) or "").strip()
        history = _read_staged_text(root, str(Path(path).with_name(store.HISTORY))) or ""
        lines = [line for line in history.splitlines() if line.strip()]
        recorded = integrity.last_recorded(store.parse_history(lines[-1:]))
        if state != recorded:
            problems.append(
                printable(f"{path} says '{state}' but its history ends at '{recorded}'", None)
            )
    return problems


def forged_approvals(root: Path, paths: Sequence[str]) -> list[str]:
    """Staged approval logs that the staged history does not account for, line by line."""
    logs = (store.APPROVALS, store.HISTORY)
    folders = sorted({Path(path).parent for path in paths if Path(path).name in logs})
    problems = []
    for folder in folders:
        approvals = _read_staged_text(root, (folder / store.APPROVALS).as_posix()) or ""
        history = _read_staged_text(root, (folder / store.HISTORY).as_posix()) or ""
        entries = store.parse_history(line for line in history.splitlines() if line.strip())
        if not entries:
            continue  # a task from before histories: nothing to hold the log to
        lines = [store.Approval.parse(line) for line in approvals.splitlines() if line.strip()]
        problems += [
            printable(f"{(folder / store.APPROVALS).as_posix()}: {problem}", None)
            for problem in integrity.approval_log_problems(lines, entries)
        ]
    return problems


def _hand_edited(task_dir: Path, state: str | None) -> bool:
    """A `.state` that says other than the history's last line (none: an older task)."""
    return integrity.last_recorded(store.read_history(task_dir)) not in (None, state)


def pre_commit(project: Project) -> tuple[int, str]:
    """Refuse hand-edited state and source commits while no task is in an edit phase."""
    settings = load_config(project.root)
    paths = read_staged(project.root)
    edited = hand_edited_states(project.root, paths)
    if edited:
        return 1, (
            "automaton-rules: refusing to commit hand-edited workflow state "
            "(only status.py writes .state):\n" + "\n".join(f"  - {p}" for p in edited)
        )
    forged = forged_approvals(project.root, paths)
    if forged:
        return 1, (
            "automaton-rules: refusing to commit an approval log its history does not record "
            "(only status.py --approve writes .state.approvals; stage .state.history with it):\n"
            + "\n".join(f"  - {p}" for p in forged)
        )
    source = source_files(project, settings, paths)
    if not source:
        return 0, ""
    tasks = task_states(project)
    command = partial(DEFAULT.command, project=project.root)
    forged = [t.name for t in tasks if _hand_edited(t.path, t.state)]
    if forged:
        return 1, (
            "automaton-rules: refusing to commit source files while a task's .state was "
            f"changed outside status.py: {', '.join(forged)}\n"
            f"Next: restore it from its history with {command('--upgrade')}, then commit."
        )
    if any(machine.is_edit_phase(t.state or "") for t in tasks):
        return 0, ""
    open_tasks = [t for t in tasks if t.state != "complete"]
    listed = ", ".join(f"{t.name} ({t.state})" for t in open_tasks) or "none"
    task = open_tasks[0].name if len(open_tasks) == 1 else "NAME"
    return 1, (
        "automaton-rules: refusing to commit source files while no task is in implement or "
        f"doc_review phase (tasks: {listed}):\n"
        + "\n".join(f"  - {printable(p, None)}" for p in source[:20])
        + "\nNext: take the task this change belongs to through its phases to implement "
        f"({command('--task', task)} shows the next step), or start one for it "
        f"({command('--create-task', 'NAME')}); to commit the rest now, unstage the source "
        "files (git restore --staged FILE)."
    )


def commit_msg(project: Project, message_file: Path) -> tuple[int, str]:
    """Name the task a source commit belongs to with a `Task:` trailer the audit reads."""
    settings = load_config(project.root)
    if not source_files(project, settings, read_staged(project.root)):
        return 0, ""
    text = message_file.read_text(encoding="utf-8", errors="replace")
    names = {t.name: t.state for t in task_states(project)}
    named = _TRAILER.findall(text)
    unknown = [n for n in named if n not in names]
    if unknown:
        return (
            1,
            "automaton-rules: the Task trailer names no task of this project: "
            + ", ".join(printable(name) for name in unknown),
        )
    if named:
        return 0, ""
    editing = [n for n, s in names.items() if machine.is_edit_phase(s or "")]
    if len(editing) == 1:
        trailer = f"{TASK_TRAILER}: {editing[0]}"
        git.output(
            project.root,
            "interpret-trailers",
            "--in-place",
            "--trailer",
            trailer,
            str(message_file),
        )
        return 0, ""
    choices = ", ".join(editing) or "none in an edit phase"
    return 1, (
        f"automaton-rules: add a '{TASK_TRAILER}: <name>' trailer naming the task this commit "
        f"belongs to (tasks in an edit phase: {choices})"
    )


USAGE = """\
usage: automaton-git-hook pre-commit | pre-merge-commit | commit-msg MESSAGE_FILE [--project DIR]

git's hooks for a project under automaton-rules. pre-commit and pre-merge-commit refuse
(exit 1) source changes while no task may edit, and hand-edited workflow records; the
guard's own files (configuration, harness settings, .automaton/) a person commits in any
phase. commit-msg adds the `Task: NAME` trailer the audit reads. Outside a project with
tasks it lets git go on. automaton-install --git-hooks puts them in .git/hooks.

Examples:
  automaton-git-hook pre-commit
  automaton-git-hook commit-msg .git/COMMIT_EDITMSG
"""
CHECKS = ("pre-commit", "pre-merge-commit")
SCRIPT = Script("automaton-git-hook", USAGE, valued=("--project",), positionals=2)


def main(argv: Sequence[str] | None = None) -> int:
    """Console script `automaton-git-hook`; exit 0 lets git go on, 1 stops it, 2 is an error."""
    return SCRIPT.run(argv, _run)


def _run(options: dict[str, Any], words: list[str]) -> int:
    hook = words[0] if words else None
    wanted = 2 if hook == "commit-msg" else 1
    if hook not in (*CHECKS, "commit-msg") or len(words) != wanted:
        sys.stderr.write(f"ERROR: automaton-git-hook: name one hook\n{USAGE.splitlines()[0]}\n")
        return 2
    project_dir = Path(str(options["project"])) if "project" in options else None
    try:
        try:
            project = find_project(project_dir)
        except AutomatonError as exc:
            if exc.code == "no-project" and project_dir is None:
                return 0  # a repository without automaton tasks: nothing to guard
            raise
        if hook in CHECKS:
            code, text = pre_commit(project)
        else:
            code, text = commit_msg(project, Path(words[1]))
    except AutomatonError as exc:
        code, text = 2, exc.text
    except Exception as exc:  # never let a crash pass for a refusal, nor a refusal for a pass
        code, text = 2, f"ERROR: automaton-git-hook failed: {type(exc).__name__}: {exc}"
    if text:
        sys.stderr.write(text + "\n")
    return code


if __name__ == "__main__":
    sys.exit(main())
