"""A pytest plugin for rule authors: temporary projects with tasks in any state, audited.

Installed with the package (entry point `pytest11`), it gives the fixture
`automaton_project`, the way `pytester` serves pytest's own plugin authors:

    def test_my_rule(automaton_project):
        automaton_project.task("login", "design", files={"DESIGN.md": "# no modules"})
        automaton_project.use_plugins("my_rules")
        audit = automaton_project.audit()
        assert audit.codes == ["ACME101"]

Each project is isolated: no installed rule package loads unless the test names it
(`use_packages`), and its commands record the time of the project's `clock`, which the
test sets and advances.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import time
from collections import deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Union

import pytest

from automaton_rules.cli import entry as cli
from automaton_rules.core import machine
from automaton_rules.support.context import Context, running

if TYPE_CHECKING:
    from automaton_rules.core.project import Project, Task

route_to = machine.route_to  # the usual walk `task()` makes, public for rule authors' tests
Moment = Union[datetime, float]  # a datetime (naive ones read as UTC) or POSIX seconds
APPROVAL_WAYS = ("cli", "prompt", "signed")


def route(
    state: str, via: Iterable[str] = (), *, subtask: bool = False, test_design: bool = False
) -> tuple[str, ...]:
    """The states a task passes through from `new` to `state`: without `via`, the usual
    route, passing through test_design (which writes a TEST_PLAN.md) only when
    `test_design` is true or `state` is in it; with `via`, the shortest legal route through
    each state `via` names in turn (entering decomposition only when a named state is
    one)."""
    stops = ((via,) if isinstance(via, str) else tuple(via)) + (state,)
    for stop in stops:
        _known(stop)
    if not stops[:-1]:
        usual = route_to(state)
        if test_design or machine.base_phase(state) == "test_design":
            return usual
        return tuple(step for step in usual if machine.base_phase(step) != "test_design")
    steps: list[str] = []
    here = "new"
    for stop in stops:
        steps += _shortest(here, stop, subtask)
        here = stop
    return tuple(steps)


def _known(state: str) -> None:
    if not machine.is_state(state):
        hint = machine.closest_state(state)
        raise ValueError(f"unknown state {state!r}" + (f"; did you mean {hint!r}?" if hint else ""))


def _next_states(state: str, subtask: bool) -> tuple[str, ...]:
    approved = machine.approval_target(state)
    targets = machine.legal_targets(state, subtask=subtask)
    return (*targets, approved) if approved else targets


def _shortest(start: str, goal: str, subtask: bool) -> list[str]:
    """Breadth first over the legal moves; decomposition is a parent's branch, never a way
    through, so it is entered only when the goal is one of its states."""
    branch = machine.base_phase(goal) == "decomposition"
    came_from: dict[str, str] = {}
    queue = deque([start])
    while queue and goal not in came_from and start != goal:
        here = queue.popleft()
        for state in _next_states(here, subtask):
            if state in came_from or state == start:
                continue
            if machine.base_phase(state) == "decomposition" and not branch:
                continue
            came_from[state] = here
            queue.append(state)
    if start == goal:
        return []
    if goal not in came_from:
        raise ValueError(f"no legal route from {start!r} to {goal!r}")
    steps = [goal]
    while came_from[steps[-1]] != start:
        steps.append(came_from[steps[-1]])
    return steps[::-1]


def _placeholder(artifact: str) -> str:
    """What the walk writes for an artifact: a heading, and for VERDICT.md a passing
    verdict, since only PASS lets a task complete."""
    verdict = "\nVerdict: PASS\n" if artifact == machine.ARTIFACTS["referee"] else ""
    return f"# {artifact}\n{verdict}"


def _contents(files: Mapping[str, str] | Iterable[str]) -> dict[str, str]:
    """Files as name to text; a bare name gets the walk's placeholder text."""
    if isinstance(files, Mapping):
        return dict(files)
    return {name: _placeholder(name) for name in files}


def _write(folder: Path, files: Mapping[str, str], when: float | None = None) -> None:
    """Write files; `when` (POSIX seconds) dates them, as the clock says they were written."""
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
        if when is not None:
            os.utime(folder / name, (when, when))


def _seconds(moment: Moment) -> float:
    if isinstance(moment, datetime):
        aware = moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)
        return aware.timestamp()
    return float(moment)


class Clock:
    """The time a project's commands record in its history and approval log.

    Live (the system's time) until set or advanced; then frozen, so each command of a
    test records exactly the time the test chose.
    """

    def __init__(self, start: Moment | None = None) -> None:
        self._moment = None if start is None else _seconds(start)

    @property
    def frozen(self) -> bool:
        """Whether the test controls the time (set or advanced), rather than the system."""
        return self._moment is not None

    @property
    def now(self) -> datetime:
        """The time commands record now, in UTC."""
        return datetime.fromtimestamp(self.time(), timezone.utc)

    def time(self) -> float:
        """The time as POSIX seconds, what `automaton_rules.support.clock` reads."""
        return time.time() if self._moment is None else self._moment

    def set(self, moment: Moment) -> datetime:
        """Stop the clock at `moment` (a datetime, naive ones read as UTC, or POSIX seconds)."""
        self._moment = _seconds(moment)
        return self.now

    def advance(
        self,
        seconds: float | timedelta = 0,
        *,
        minutes: float = 0,
        hours: float = 0,
        days: float = 0,
    ) -> datetime:
        """Move the clock on by a `timedelta` or seconds, and `minutes=`, `hours=`,
        `days=` (`clock.advance(days=3)`); a live clock stops at the current second first."""
        step = seconds.total_seconds() if isinstance(seconds, timedelta) else seconds
        start = self._moment if self._moment is not None else float(int(time.time()))
        self._moment = start + step + 60 * minutes + 3600 * hours + 86400 * days
        return self.now

    def stamp(self) -> float | None:
        """The time a file written now is dated by: the clock's, once the test controls it."""
        return self._moment


@dataclass
class Run:
    """One status.py call: exit code and what it printed."""

    exit_code: int
    out: str
    err: str

    def json(self) -> Any:
        """stdout parsed as the one JSON object --json prints."""
        return json.loads(self.out)


class AuditError(str):
    """One error the audit met, as the report words it (it is that string) and as data:
    `plugin` and `code` (the rule) for a plugin's failure, `task` the first task it failed
    on and `tasks` all of them, `exception` what it raised (`RuntimeError: kaput`), `where`
    the `file:line` it failed at; a task that could not be read has `task` alone."""

    plugin: str | None
    code: str | None
    task: str | None
    tasks: tuple[str, ...]
    exception: str | None
    where: str | None

    @classmethod
    def of(cls, text: str, **fields: Any) -> AuditError:
        """The error `text` with what is known of it (every field else None)."""
        error = cls(text)
        error.plugin = fields.get("plugin")
        error.code = fields.get("code")
        error.task = fields.get("task")
        error.tasks = tuple(fields.get("tasks", ()))
        error.exception = fields.get("exception")
        error.where = fields.get("where")
        return error


@dataclass
class Audit:
    """One audit: its JSON report, the text report beside it for eyes and assertions, and
    the report in the format asked for (`output`), all from the same run."""

    exit_code: int
    report: dict[str, Any]
    text: str
    findings: list[dict[str, Any]] = field(default_factory=list)
    format: str = "text"
    output: str = ""
    failures: list[AuditError] = field(default_factory=list)

    @property
    def codes(self) -> list[str]:
        """Rule codes of the findings, in report order."""
        return [f["code"] for f in self.findings]

    @property
    def errors(self) -> list[AuditError]:
        """Broken plugins and broken tasks: each as the report words it, with its
        plugin, code, task and exception (`AuditError`)."""
        if self.failures:
            return list(self.failures)
        return [AuditError.of(str(error)) for error in self.report.get("errors", [])]

    def for_task(self, name: str) -> list[dict[str, Any]]:
        """The findings of one task."""
        return [f for f in self.findings if f["task"] == name]


def _audit_errors(report: Any) -> list[AuditError]:
    """The errors of an `AuditReport`, typed: the broken tasks, then the plugins' failures."""
    found = []
    for text in report.task_errors:
        named = text[len("task ") :].partition(": ")[0] if text.startswith("task ") else None
        found.append(AuditError.of(text, task=named))
    for error in report.result.errors:
        found.append(
            AuditError.of(
                str(error),
                plugin=error.plugin,
                code=error.code,
                task=error.task,
                tasks=error.tasks,
                exception=error.details[0] if error.details else None,
                where=error.where,
            )
        )
    return found


class ProjectSetup:
    """What a test sets up around its tasks: configuration, installed packages, approvers,
    git history, and the project as rules see it."""

    def __init__(
        self, root: Path, *, clock: Clock | None = None, packages: Iterable[str] = ()
    ) -> None:
        self.root = root
        self.tasks_dir = root / ".automaton" / "tasks"
        self.plugins: list[str] = []
        self.packages: list[str] = list(packages)
        self.settings: dict[str, Any] = {}
        self.clock = clock if clock is not None else Clock()
        self.signer: tuple[str, Path] | None = None
        self.routes: dict[str, list[str]] = {}  # the states each task was walked through

    def sign_with(self, approver: str, key: Path) -> None:
        """The approver (as the allowed signers file names them) and private key that sign
        this project's approvals when its `approval` is `signed`."""
        self.signer = (approver, key)

    def write_plugin(self, source: str, name: str = "project_rules") -> str:
        """Write a plugin module into the project and register it by path."""
        path = self.root / f"{name}.py"
        path.write_text(source)
        self.use_plugins(path.name)
        return path.name

    def use_plugins(self, *plugins: str) -> None:
        """Register plugins (module names or .py paths) in the project's automaton.toml."""
        self.plugins += plugins
        self.configure()

    def use_packages(self, *names: str) -> None:
        """Let installed rule packages load, named by entry point, module or distribution
        (`acme`, `acme_rules`, `acme-rules`); the project loads none it was not given."""
        __tracebackhide__ = True
        from automaton_rules.engine import plugins

        installed = plugins.installed_packages()
        known = {name for ep in installed for name in plugins.package_names(ep)}
        missing = [name for name in names if plugins.canonical_name(name) not in known]
        if missing:
            listed = ", ".join(ep.name for ep in installed) or "none"
            raise ValueError(
                f"no installed rule package named {', '.join(missing)} (entry points in the "
                f"{plugins.ENTRY_POINT_GROUP!r} group: {listed})"
            )
        self.packages += names

    def configure(self, **settings: Any) -> None:
        """Write automaton.toml: the plugins registered, and these settings (`fail_on=` for
        `fail-on`), kept across calls."""
        self.settings.update({key.replace("_", "-"): value for key, value in settings.items()})
        table = {"plugins": self.plugins} if self.plugins else {}
        lines = [f"{key} = {_toml(value)}\n" for key, value in {**table, **self.settings}.items()]
        (self.root / "automaton.toml").write_text("".join(lines))

    def configure_plugin(self, table: str, **settings: Any) -> None:
        """Set a plugin's settings in its own table of automaton.toml (`_` for `-`), kept
        across calls: `configure_plugin("acme", wip_limit=5)` writes `[acme] wip-limit = 5`."""
        given = dict(self.settings.get(table) or {})
        given.update({key.replace("_", "-"): value for key, value in settings.items()})
        self.settings[table] = given
        self.configure()

    @property
    def project(self) -> Project:
        """The project as rules see it (`automaton_rules.Project`), for a rule's unit test."""
        from automaton_rules.core.project import Project

        return Project(self.root)

    def load(self, name: str) -> Task:
        """A task as rules see it (`automaton_rules.Task`): call a rule on it directly."""
        return self.project.load(name)

    def git(self, *args: str, when: int | None = None) -> str:
        """Run git in the project (initialising it on first use); `when` fixes commit time."""
        __tracebackhide__ = True
        if not (self.root / ".git").exists():
            _run_git(self.root, "init", "-q")
            _run_git(self.root, "config", "user.email", "rules@example.com")
            _run_git(self.root, "config", "user.name", "Rule Author")
        return _run_git(self.root, *args, when=when)

    def commit(
        self,
        files: Mapping[str, str],
        message: str = "change",
        *,
        task: str | None = None,
        when: int | None = None,
    ) -> str:
        """Write files and commit them; `task` adds the `Task:` trailer the audit reads,
        `when` the time (by default the clock's, once it is set or advanced)."""
        __tracebackhide__ = True
        _write(self.root, files)  # dated by the system: git compares a file's time to its index
        self.git("add", "--", *files)
        body = f"{message}\n\nTask: {task}\n" if task else message
        if when is None and self.clock.frozen:
            when = int(self.clock.time())
        self.git("commit", "-q", "-m", body, when=when)
        return self.git("rev-parse", "HEAD").strip()


class _Walks(ProjectSetup):
    """Walking tasks through the workflow with status.py's own commands (the part of
    `AutomatonProject` that makes the states a test asks for)."""

    if TYPE_CHECKING:

        def run(self, *args: str) -> Run: ...
        def approve(
            self, name: str, *, via: str | None = None, approver: str | None = None
        ) -> Run: ...
        def task_dir(self, name: str) -> Path: ...
        def _ok(self, *args: str) -> None: ...

    def task(
        self,
        name: str,
        state: str = "new",
        files: Mapping[str, str] | Iterable[str] = (),
        *,
        via: Iterable[str] = (),
        approver: str | None = None,
        approval_delay: float | timedelta = 0,
    ) -> Path:
        """Create a task and walk it to `state` with real transitions and approvals.

        The walk takes the usual route, through test_design only when `files` holds a
        TEST_PLAN.md or `state` is in it, or the shortest through the states `via` names;
        `route_of(name)` says which it took. `files` (name to text, or names for
        placeholder text) are written at the phase they belong to: an artifact when the
        walk enters its phase (so it is the one approved, and the one transition rules
        read), an artifact of a phase the walk skips once `state` is reached, any other
        file at creation. Each approval is given by `approver` (None: as `approve` gives
        it), `approval_delay` (seconds or a timedelta) after it was requested.
        """
        __tracebackhide__ = True
        contents = _contents(files)
        planned = machine.ARTIFACTS["test_design"] in contents
        steps = route(state, via, subtask="/" in name, test_design=planned)
        self._ok("--create-task", name)
        self.routes[name] = []
        folder = self.task_dir(name)
        phases = {machine.base_phase(step) for step in steps}
        walked = {f: t for f, t in contents.items() if machine.ARTIFACT_PHASE.get(f) in phases}
        others = {f: t for f, t in contents.items() if not machine.is_artifact(f)}
        _write(folder, others, self.clock.stamp())
        self._walk(name, steps, walked, approver, approval_delay)
        skipped = {f: t for f, t in contents.items() if machine.is_artifact(f) and f not in walked}
        _write(folder, skipped, self.clock.stamp())
        return folder

    def advance(
        self,
        name: str,
        states: Iterable[str],
        *,
        approver: str | None = None,
        approval_delay: float | timedelta = 0,
    ) -> None:
        """Walk an existing task through `states` with real transitions and approvals,
        writing a placeholder for each phase's artifact the walk needs; `approver` and
        `approval_delay` as for `task`."""
        __tracebackhide__ = True
        self._walk(name, tuple(states), {}, approver, approval_delay)

    def route_of(self, name: str) -> tuple[str, ...]:
        """The states `task` and `advance` walked this task through, in order."""
        return tuple(self.routes.get(name, ()))

    def write(self, name: str, filename: str, text: str) -> Path:
        """Write a file into a task's folder, dated by the clock (what `Task.changed_at`
        reads without git), as an agent would write it now."""
        _write(self.task_dir(name), {filename: text}, self.clock.stamp())
        return self.task_dir(name) / filename

    def _walk(
        self,
        name: str,
        states: Iterable[str],
        given: dict[str, str],
        approver: str | None,
        delay: float | timedelta,
    ) -> None:
        __tracebackhide__ = True
        folder = self.task_dir(name)
        states = tuple(states)
        taken = self.routes.setdefault(name, [])
        for target in states:
            current = (folder / ".state").read_text().strip()
            artifact = machine.required_artifact(current)
            if artifact and not (folder / artifact).exists():
                _write(folder, {artifact: _placeholder(artifact)}, self.clock.stamp())
            if machine.is_approved(target):
                if delay:
                    self.clock.advance(delay)
                done = self.approve(name, approver=approver)
            else:
                done = self.run("--task", name, "--transition", target)
            if done.exit_code != 0:
                walk = " -> ".join(("new", *states)) if states else "(no states)"
                raise AssertionError(
                    f"walking task {name!r} ({walk}) failed moving from {current!r} to "
                    f"{target!r}: status.py said: {done.err or done.out}"
                )
            taken.append(target)
            entered = machine.required_artifact(target)
            if entered in given:
                _write(folder, {entered: given.pop(entered)}, self.clock.stamp())


class AutomatonProject(_Walks):
    """A throwaway project driven through status.py's own commands, in-process: isolated
    from installed rule packages unless `use_packages` names them, on its own `clock`."""

    def run(self, *args: str) -> Run:
        """Run status.py in-process against this project, in this project's `context`."""
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            code = cli.main([*args, "--project", str(self.root)], self.context())
        return Run(code, out.getvalue(), err.getvalue())

    def context(self) -> Context:
        """What this project's commands run with: its clock, and only the installed
        packages named (`use_packages`); passed to each command, no global changed."""
        from automaton_rules.engine.plugins import canonical_name

        return Context(self.clock.time, (canonical_name(name) for name in self.packages))

    def task_dir(self, name: str) -> Path:
        """The folder of a task (`parent/sub` for a sub-task)."""
        parent, _, sub = name.partition("/")
        folder = self.tasks_dir / parent
        return folder / machine.SUBTASKS_DIR / sub if sub else folder

    def approve(self, name: str, *, via: str | None = None, approver: str | None = None) -> Run:
        """Approve a task awaiting approval as the project's `approval` setting accepts, or
        as `via` says: `cli` (`--approve`, by `approver` when given), `prompt` (the user
        types `approve NAME` in the agent's chat, through automaton-hook: the approver is
        the person git names) or `signed` (with the key of `sign_with`, its approver)."""
        __tracebackhide__ = True
        way = via or _approval_way(self.root)
        if way == "cli":
            named = ("--approver", approver) if approver is not None else ()
            return self.run("--task", name, "--approve", *named)
        if way not in APPROVAL_WAYS:
            raise ValueError(f"via takes {', '.join(APPROVAL_WAYS)}, not {way!r}")
        if way == "prompt":
            if approver is not None:
                raise ValueError(
                    "an approval typed in the chat is the person's git names "
                    "(automaton.person): approver= applies to via='cli'"
                )
            return _typed_in_chat(self.root, self.task_dir(name), name, self.context())
        if self.signer is None:
            raise ValueError(
                'approval = "signed": name the approver and key with '
                "automaton_project.sign_with(approver, key) first"
            )
        signer, key = self.signer
        if approver is not None and approver != signer:
            raise ValueError(
                f"a signed approval is {signer!r}'s, who holds the key: not {approver!r}"
            )
        return self.run("--task", name, "--approve", "--approver", signer, "--key", str(key))

    def folder(self, name: str, files: Mapping[str, str] | Iterable[str] = ()) -> Path:
        """A task folder made by hand, without status.py (what category 4 catches)."""
        folder = self.task_dir(name)
        folder.mkdir(parents=True)
        _write(folder, files if isinstance(files, Mapping) else {f: f"# {f}\n" for f in files})
        return folder

    def audit(
        self,
        *args: str,
        expect_errors: bool = False,
        format: str = "text",
    ) -> Audit:
        """Run `--audit` as CI does, once: the JSON report, the text report, and the report
        in `format` (`sarif`, `junit`, ...: `Audit.output`), all of that one run.

        An audit that meets an error (a plugin that fails to load, a rule that raises, a
        task that cannot be read) fails the test with the errors, unless the test expects
        them (`expect_errors=True`) to look at them in `Audit.errors`: a crashing rule must
        never pass a test that asks only for its findings.
        """
        __tracebackhide__ = True
        formats = list(dict.fromkeys(["json", "text", format]))
        argv = ["--audit", *args, "--project", str(self.root)]
        once = cli.audit_once(argv, self.context(), formats)
        if once is None:  # no audit ran (a usage error, a broken configuration): say why
            failed = self.run("--audit", *args)
            said = (failed.err or failed.out).strip()
            report: dict[str, Any] = {"errors": [said]}
            audit = Audit(failed.exit_code, report, failed.out, [], format, failed.out)
        else:
            result, printed = once
            runs = {fmt: Run(*answer) for fmt, answer in zip(formats, printed)}
            report = json.loads(runs["json"].out)
            audit = Audit(
                runs["json"].exit_code,
                report,
                runs["text"].out,
                list(report.get("findings", [])),
                format,
                runs[format].out,
                _audit_errors(result),
            )
        errors = audit.errors
        if errors and not expect_errors:
            listed = "\n".join(f"  {error}" for error in errors)
            pytest.fail(
                f"the audit met {len(errors)} error(s); pass expect_errors=True to test "
                f"them:\n{listed}",
                pytrace=False,
            )
        return audit

    def _ok(self, *args: str) -> None:
        __tracebackhide__ = True
        self._check(self.run(*args), " ".join(args))

    def _check(self, result: Run, what: str) -> None:
        __tracebackhide__ = True
        if result.exit_code != 0:
            raise AssertionError(f"status.py {what} failed: {result.err or result.out}")


def _toml(value: Any) -> str:
    """A setting's value as TOML: JSON's strings, numbers, booleans and arrays are TOML's."""
    if isinstance(value, Mapping):
        return "{ " + ", ".join(f"{json.dumps(k)} = {_toml(v)}" for k, v in value.items()) + " }"
    if isinstance(value, Path):
        return json.dumps(str(value))
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml(item) for item in value) + "]"
    return json.dumps(value)


def _approval_way(root: Path) -> str:
    """How the project's `approval` setting accepts an approval from a test."""
    from automaton_rules.core.config import load_config
    from automaton_rules.core.policy import Policy
    from automaton_rules.support.errors import AutomatonError

    try:
        mode = load_config(root).approval
    except AutomatonError:  # the command itself reports the broken configuration
        return "cli"
    # Under `prompt` and `signed` the way named like the mode stands: typed, or signed.
    return mode if Policy(mode).checks_approvals else "cli"


def _typed_in_chat(root: Path, folder: Path, name: str, context: Context) -> Run:
    """`approve NAME` typed by the user in the agent's chat, as the user-prompt hook takes
    it; exit code 0 when the task moved to its approved state (the hook never fails)."""
    from automaton_rules.guards.hooks import adapter as harness

    payload = {
        "hook_event_name": "UserPromptSubmit",
        "prompt": f"approve {name}",
        "session_id": "automaton-project",
        "cwd": str(root),
    }
    before = (folder / ".state").read_text()
    with running(context):  # a listener told of the approval reads the project's clock
        out, err, _ = harness.answer(payload, "claude", {"project": str(root)}, context)
    after = (folder / ".state").read_text()
    moved = after != before and machine.is_approved(after.strip())
    return Run(0 if moved else 1, out, err)


def _run_git(root: Path, *args: str, when: int | None = None) -> str:
    __tracebackhide__ = True
    env = dict(os.environ)
    if when is not None:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = f"{when} +0000"
    proc = subprocess.run(
        ["git", *args], cwd=root, env=env, capture_output=True, text=True, check=False
    )
    if proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {proc.stderr}")
    return proc.stdout


@pytest.fixture
def automaton_project(tmp_path: Path) -> Iterator[AutomatonProject]:
    """A temporary project; build tasks with `.task(name, state)` and check them with
    `.audit()`. No installed rule package loads unless named (`.use_packages`), and the
    clock stands at the second the test started until the test moves it (`.clock`): the
    time its commands record, and `automaton_rules.now()` throughout the test."""
    root = tmp_path / "project"
    root.mkdir()
    project = AutomatonProject(root, clock=Clock(int(time.time())))
    with running(project.context()):
        yield project


__all__: Sequence[str] = (
    "Audit",
    "AuditError",
    "AutomatonProject",
    "Clock",
    "Run",
    "automaton_project",
    "route",
    "route_to",
)
