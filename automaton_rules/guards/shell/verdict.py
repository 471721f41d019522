"""May this shell line run? The adapter's answer from the line's reading: approvals,
computed calls and code, hook skips and the guard's files first, then the phase.
"""

from __future__ import annotations

import os
from pathlib import Path

from automaton_rules.core import machine
from automaton_rules.core.config import CONFIG_FILE, load_config
from automaton_rules.core.project import Project, find_project, framework_home, inside, task_file
from automaton_rules.guards.edits import checks, protected
from automaton_rules.guards.shell import reader
from automaton_rules.support.errors import AutomatonError
from automaton_rules.support.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from automaton_rules.core.config import Config
    from automaton_rules.guards.shell.reader import Computed, ShellLine, Write

APPROVAL = (
    "DENIED: Approval is the user's decision. Ask the user to approve: to type "
    "`approve TASK` in the chat, or to run status.py --approve themselves; agents never "
    "run status.py --approve."
)
PROMPT_HOOK = (
    "DENIED: automaton-hook answers the harness for the user's own prompts, and "
    "automaton-board approves for whoever opens the address it prints; run by an agent "
    "either could approve in the user's name. Ask the user to approve (in prompt mode they "
    "type `approve TASK` in the chat)."
)
COMPUTED_CALL = (
    "DENIED: This command runs status.py with arguments only known when it runs ({shown}); "
    "they could approve. Run status.py with literal arguments."
)
COMPUTED_CODE = (
    "DENIED: This command runs shell or interpreter code only known when it runs ({shown}); "
    "it could run status.py --approve. Run the commands themselves, with literal arguments."
)
HOOKS = (
    "DENIED: This command skips or reroutes the workflow's git hooks ({shown}); "
    "only the user changes them."
)
STATE = (
    "DENIED: This command would write workflow state (.state files); only status.py "
    "writes them. Use status.py --transition."
)
WRITES = " This shell command writes files."
WRITES_COMPUTED = " This shell command writes files it names only when it runs ({shown})."
RUNS_COMPUTED = " This shell command runs a program it names only when it runs ({shown})."
UNKNOWN = (
    " This shell command runs {shown}, a program the guard's shell reader does not know, "
    "so only running it shows what it writes."
)
TYPED = (
    " This command starts a shell or an interpreter that reads what is typed into it ({shown}), "
    "which the guard cannot judge as lines of a script; give it a script or -c CODE instead."
)
PYPROJECT = (
    " A shell command cannot show that it leaves [tool.automaton] alone; "
    "edit pyproject.toml with the edit tool."
)


class Ruling(Record):
    """A line's answer: the refusal (None: it may run), and whether a sandbox would hold
    what made the reader refuse it (a write or a program only running decides)."""

    refusal: str | None
    held: bool = False


def rule(
    command: str,
    cwd: Path | None,
    finder: Callable[[], Project | None],
    task: str | None,
    explicit: bool = False,
    typed: bool = False,
) -> Ruling:
    """The refusal for one shell line (None: it may run), and whether a sandbox makes it
    unnecessary. `typed`: the harness lets the agent type into a shell the line leaves
    running, and shows no hook what it types."""
    if reader.plain_read(command):
        return Ruling(None)
    cwd = cwd or Path.cwd()  # a harness that sends no folder runs the line here
    line = reader.read(command, cwd)
    refusal = _always(line)
    if refusal is not None:
        return Ruling(refusal, not line.approves and not line.hooks)
    judged = _Judge(line, cwd, finder, task, explicit)
    if typed and line.interactive:
        refusal = judged.phase(None, TYPED.format(shown=_short(line.interactive[0])))
        if refusal is not None:
            return Ruling(refusal, True)
    if not line.writes_files and not line.programs and not line.unknown:
        return Ruling(None)
    return Ruling(judged.verdict(), judged.held)


def phase_refusal(
    finder: Callable[[], Project | None], task: str | None, cwd: Path, suffix: str
) -> str | None:
    """The phase's refusal of code only running can judge (None: the phase allows it)."""
    from automaton_rules.guards.shell.reader import ShellLine

    return _Judge(ShellLine(), cwd, finder, task, False).phase(None, suffix)


def judge_opaque(
    text: str,
    shown: str,
    cwd: Path | None,
    finder: Callable[[], Project | None],
    task: str | None,
    explicit: bool = False,
) -> str | None:
    """A line the reader does not parse (PowerShell): opaque code, judged on what it names."""
    cwd = cwd or Path.cwd()
    line = reader.scan(text, cwd, shown)
    return _always(line) or _Judge(line, cwd, finder, task, explicit).verdict()


def _always(line: ShellLine) -> str | None:
    """What no phase allows: approving, hook skips, computed status.py calls or code."""
    if line.approves:
        return PROMPT_HOOK if any(call.hook for call in line.calls) else APPROVAL
    if line.hooks:
        return HOOKS.format(shown=_short(line.hooks[0]))
    computed = [call for call in line.calls if call.computed]
    if computed:
        return COMPUTED_CALL.format(shown=_short(" ".join(computed[0].argv)))
    if line.code:
        return COMPUTED_CODE.format(shown=_short(line.code[0]))
    return None


def _short(text: str) -> str:
    """A command as a refusal quotes it: one line, at most 80 characters."""
    text = text.replace("\x00", "…").replace("\n", " ")
    return text if len(text) <= 80 else text[:77] + "..."


class _Judge:
    """One line's writes, judged against the project each lies in."""

    def __init__(
        self,
        line: ShellLine,
        cwd: Path | None,
        finder: Callable[[], Project | None],
        task: str | None,
        explicit: bool,
    ) -> None:
        self.line = line
        self.cwd = cwd
        self.task = task
        self.explicit = explicit
        self.home = Path.home().resolve()
        self.project = finder()
        self.settings: dict[Path, Config] = {}
        self.held = False  # the refusal is the phase's, for what only running decides

    def config(self, project: Project) -> Config:
        """A project's configuration, read once per line."""
        if project.root not in self.settings:
            self.settings[project.root] = load_config(project.root)
        return self.settings[project.root]

    def owner(self, path: Path) -> Project | None:
        """The project a path lies in: the line's own, or (unless one was named) another."""
        if self.project is not None and inside(path, self.project.root.resolve()):
            return self.project
        if self.explicit:
            return self.project
        folder = path
        while not folder.is_dir() and folder != folder.parent:
            folder = folder.parent
        try:
            return find_project(None, cwd=folder)
        except AutomatonError as exc:
            if exc.code == "no-project":
                return self.project
            raise

    def verdict(self) -> str | None:
        """Named writes first, then computed ones, computed programs and unknown programs."""
        for write in self.line.writes:
            refusal = self.literal(write)
            if refusal is not None:
                return refusal
        for computed in self.line.computed:
            refusal = self.computed(computed)
            if refusal is not None:
                return refusal
        if self.line.programs:
            return self.phase(None, RUNS_COMPUTED.format(shown=_short(self.line.programs[0])))
        if self.line.unknown:  # not a read: what it does, only running tells
            return self.phase(None, UNKNOWN.format(shown=_short(self.line.unknown[0])))
        return None

    def literal(self, write: Write) -> str | None:
        """One written path: state, guard file, outside the project, or the phase."""
        project = self.owner(write.path)
        if project is None:
            return None
        root = project.root.resolve()
        if inside(write.path, root) and write.path.name.lower().startswith(reader.STATE_PREFIX):
            return STATE
        refusal = self.guarded(project, write.path, write.by)
        if refusal is None and write.removes:
            refusal = self.guard_below(project, write.path)
        if refusal is not None or not inside(write.path, root):
            return refusal or None  # "": a task's artifact in its phase; outside: not ours
        return self.phase(write.path, WRITES, project)

    def guarded(self, project: Project, path: Path, by: str = "") -> str | None:
        """The refusal for a guard file, "" for a task's artifact in its phase, else None."""
        settings = self.config(project)
        what = protected.reason(project, path, settings)
        shown = _shown(project, path)
        if what is None and self.holds_configuration(project, path, settings, by):
            return protected.denial(shown, protected.TOOL_TABLE) + PYPROJECT
        if what is None:
            return None
        if what == protected.RECORDS and self.artifact(project, path):
            decision = checks.can_edit(project, self.task, file=path, cwd=self.cwd)
            return "" if decision.allowed else decision.text + WRITES
        return protected.denial(shown, what)

    def holds_configuration(self, project: Project, path: Path, settings: Config, by: str) -> bool:
        """A pyproject.toml that holds (or could hold) `[tool.automaton]`; not for a manager."""
        if not protected.is_pyproject(project, path, settings) or by in _manifest_writers():
            return False
        return settings.path == path or not (project.root / CONFIG_FILE).is_file()

    def artifact(self, project: Project, path: Path) -> bool:
        """A file a phase writes, directly in a task's folder."""
        tasks = project.tasks_dir.resolve()
        if not inside(path, tasks) or path == tasks:
            return False
        found = task_file(path.relative_to(tasks).parts)
        return found is not None and found[1] in machine.ARTIFACT_PHASE

    def guard_below(self, project: Project, folder: Path) -> str | None:
        """Removing or moving a folder takes the guard's files below it along."""
        for candidate in _guard_files(project, self.config(project), self.home):
            if candidate != folder and inside(candidate, folder) and os.path.lexists(candidate):
                what = protected.reason(project, candidate, self.config(project))
                if what is not None:
                    return protected.denial(_shown(project, candidate), what)
        return None

    def computed(self, write: Computed) -> str | None:
        """A write only running decides: its known folder, named paths, or the phase."""
        if reader.names_state(write.name) or (self.line.states and self.project is not None):
            return STATE
        for path in (*write.mentions, *self.line.named):
            project = self.owner(path)
            if project is not None:
                refusal = self.guarded(project, path)
                if refusal:
                    return refusal
        suffix = WRITES_COMPUTED.format(shown=_short(write.by))
        if write.within is None:
            return self.phase(None, suffix)
        project = self.owner(write.within)
        if project is None:
            return None
        refusal = self.guarded(project, write.within)
        if refusal or not inside(write.within, project.root.resolve()):
            return refusal or None
        return self.phase(None, suffix, project)

    def phase(self, path: Path | None, suffix: str, project: Project | None = None) -> str | None:
        """The phase decides, as for an edit of `path` (None: a file only running names)."""
        project = project or self.project
        if project is None:
            return None
        settings = self.config(project)
        decision = checks.can_edit(project, self.task, path, cwd=self.cwd, first=True)
        decision = checks.edit_rules(decision, project, settings, path, self.cwd)
        self.held = path is None and decision.code != "edit-rule"  # a team's rule stays
        return None if decision.allowed else decision.text + suffix


def _manifest_writers() -> frozenset[str]:
    """Package managers' add and remove, which leave `[tool.automaton]` alone."""
    from automaton_rules.guards.shell.table import MANIFEST_WRITERS

    return MANIFEST_WRITERS


def _shown(project: Project, path: Path) -> str:
    """A path as the refusal names it: relative to the project when inside it."""
    root = project.root.resolve()
    return path.relative_to(root).as_posix() if inside(path, root) else str(path)


def _guard_files(project: Project, settings: Config, home: Path) -> list[Path]:
    """Where the guard's files are, to see which a removed folder holds."""
    root = project.root.resolve()
    bases = (root, home)
    found = [root / CONFIG_FILE, root / ".automaton", protected.signers_file(project, settings)]
    found += [base / name for base in bases for name in protected.HARNESS_FILES]
    found += [base / name for base in bases for name in protected.HARNESS_FOLDERS]
    found += [framework_home(home).joinpath(*protected.INSTALLED_SCRIPT)]
    found += protected.hooks_paths(root)
    if settings.path is not None:
        found.append(settings.path.resolve())
    return found
