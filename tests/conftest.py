"""Shared fixtures and helpers: temporary projects, ways to run status.py, an audit's past.

`Project` is the shipped pytest plugin's `AutomatonProject` (automaton_rules/testing.py)
with the shorthands these tests were written with, so each helper has one home. The audit
helpers move a task's recorded past (history and approval log, the digest chain rewritten
as status.py writes it) instead of racing the clock, and read the clock once per test.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from automaton_rules.core import store
from automaton_rules.testing import Audit, AutomatonProject, Run, route_to

ROOT = Path(__file__).resolve().parent.parent
STATUS_PY = ROOT / "status.py"
# The documents several test modules hold the code to.
README = (ROOT / "README.md").read_text(encoding="utf-8")
WRITING_RULES = (ROOT / "docs" / "writing-rules.md").read_text(encoding="utf-8")
BIN = Path(sys.executable).parent  # the console scripts of the installation under test
HOOK = BIN / "automaton-hook"
INSTALL = BIN / "automaton-install"
PACKAGE = ROOT / "automaton_rules"

# ------------------------------------------------------------ how big the sized suites run

# The suites that draw many random cases or kill many processes run at a size fit for CI
# (the whole suite within five minutes on two cores); AUTOMATON_TESTS=full runs each at its
# full size (docs/reliability.md gives both). Any other value is refused, never ignored.
SIZES = ("ci", "full")
SIZE = os.environ.get("AUTOMATON_TESTS") or "ci"
if SIZE not in SIZES:
    raise pytest.UsageError(f"AUTOMATON_TESTS={SIZE!r}: use one of {', '.join(SIZES)}")


def sized(ci: int, full: int) -> int:
    """A suite's size: `ci` by default, `full` with AUTOMATON_TESTS=full."""
    return full if SIZE == "full" else ci


# The longest tests (seconds each: processes killed, venvs built, mypy, a browser), run
# first so that parallel workers finish together: pytest-xdist deals out the short ones
# while these run. They are marked `slow`, so `-m "not slow"` leaves them out of a quick
# run. tests/test_architecture.py checks every name here is a test that exists.
LONG_TESTS = (
    "test_kill_storm.py::test_kill_storm_leaves_every_task_whole",
    "test_demo.py::test_the_demo_runs_to_its_audit",
    "test_crash.py::test_sigkill_during_approve_is_always_recoverable",
    "test_testing_plugin.py::test_the_guides_examples_pass_with_another_rule_package_installed",
    "test_example_package.py::test_the_template_type_checks_under_mypy_strict",
    "test_example_package.py::test_the_templates_tests_pass_where_it_is_installed",
    "test_public_api.py::test_a_plugin_naming_every_argument_type_checks_under_mypy_strict",
    "test_public_api.py::test_mypy_strict_sees_the_real_types",
    "test_tool_safety.py::test_python_files_in_the_project_and_tasks_are_never_imported",
    "test_cli.py::test_status_py_runs_from_the_checkout",
    "test_docs.py::test_the_rule_writing_guide_works_as_written",
    "test_fuzz.py::test_fuzzed_task_files",
    "test_fuzz.py::test_fuzzed_command_lines",
    "test_properties.py::test_random_command_sequences_keep_the_invariants",
    "test_shell.py::test_deep_nesting_is_unreadable_code_not_a_crash",
    "test_html_report.py::test_the_board_in_headless_chromium",
    "test_store.py::test_racing_transitions_exactly_one_wins",
    "test_store.py::test_racing_transitions_to_different_targets",
    "test_store.py::test_racing_create_task_exactly_one_wins",
    "test_store.py::test_racing_approvals_exactly_one_line",
    "test_store.py::test_racing_commands_on_different_tasks_all_succeed",
)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--harnesses", nargs="?", const="pinned", default=None, choices=("pinned", "latest"),
        help="run the harness lab (tests/harnesses) on the pinned or the latest releases",
    )  # fmt: skip


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: one of the longest tests (conftest.LONG_TESTS)")
    config.addinivalue_line(
        "markers", "harnesses: a harness lab test, run only with --harnesses (tests/harnesses)"
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The harness lab only when asked (--harnesses: it runs real binaries, seconds each);
    the long tests first, longest first, marked `slow`; the rest in their order."""
    if not config.getoption("harnesses"):
        lab = [item for item in items if item.get_closest_marker("harnesses")]
        if lab:
            config.hook.pytest_deselected(items=lab)
            items[:] = [item for item in items if not item.get_closest_marker("harnesses")]

    def rank(item: pytest.Item) -> int | None:
        path = item.nodeid.split("[")[0]
        return next((n for n, name in enumerate(LONG_TESTS) if path.endswith(name)), None)

    ranked = [(rank(item), n, item) for n, item in enumerate(items)]
    long = [item for place, _, item in sorted(r for r in ranked if r[0] is not None)]
    for item in long:
        item.add_marker(pytest.mark.slow)
    chosen = set(map(id, long))
    items[:] = long + [item for item in items if id(item) not in chosen]


# --------------------------------------------------------------- running status.py


class Result(Run):
    """One status.py call, with `.rc` and `.json` read as the tests were written."""

    @property
    def rc(self) -> int:
        return self.exit_code

    @property
    def json(self) -> Any:
        return json.loads(self.out)


class Project(AutomatonProject):
    """A temporary project folder with helpers to drive and inspect its tasks."""

    @property
    def tasks(self) -> Path:
        return self.tasks_dir

    def run(self, *args: str) -> Result:
        """Call status.py in-process (fast), with --project pointing here."""
        result = super().run(*args)
        return Result(result.exit_code, result.out, result.err)

    def script(self, *args: str, cwd: Path | None = None) -> Result:
        """Call `python status.py` in a subprocess, exactly as an agent does."""
        proc = status_py(*args, cwd=cwd or self.root)
        return Result(proc.returncode, proc.stdout, proc.stderr)

    def write(self, name: str, filename: str, text: str | None = None) -> Path:
        """An artifact with some content; a VERDICT.md's passes, as only PASS completes."""
        path = self.task_dir(name) / filename
        if text is None:
            text = "content\nVerdict: PASS\n" if filename == "VERDICT.md" else "content\n"
        path.write_text(text)
        return path

    def state(self, name: str) -> str:
        return (self.task_dir(name) / store.STATE).read_text()

    def approvals(self, name: str) -> list[str]:
        return (self.task_dir(name) / store.APPROVALS).read_text().splitlines()

    def create(self, name: str) -> None:
        self._ok("--create-task", name)


# The states a task passes through from `new` to a state: the same walk rule authors use.
path_to = route_to


@pytest.fixture(autouse=True, scope="session")
def _person() -> Iterator[None]:
    """The person history lines and approvals name (support/person.py) is `user` here, as the
    specification's examples write it, on any machine: its git settings never leak in.
    Set for the whole session, so a test's `monkeypatch.undo()` keeps it;
    tests/test_person.py sets its own."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GIT_CONFIG_COUNT", "1")
        patch.setenv("GIT_CONFIG_KEY_0", "automaton.person")
        patch.setenv("GIT_CONFIG_VALUE_0", "user")
        yield


@pytest.fixture(autouse=True)
def _plain_text(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tests read status.py's plain text: a FORCE_COLOR set for pytest's own colours
    must not colour what a status.py subprocess prints (tests/test_terminal.py sets it)."""
    monkeypatch.delenv("FORCE_COLOR", raising=False)


@pytest.fixture
def project(tmp_path: Path) -> Project:
    root = tmp_path / "proj"
    root.mkdir()
    return Project(root)


@pytest.fixture
def task_in(project: Project):
    """Create a task and walk it to any state through status.py itself."""

    def make(state: str, name: str = "demo-task") -> str:
        project.create(name)
        project.advance(name, path_to(state))
        assert project.state(name) == f"{state}\n"
        return name

    return make


@pytest.fixture
def guarded(project: Project, task_in) -> Project:
    """A project whose only task, `guarded`, is in research, with a source file to edit."""
    (project.root / "src").mkdir()
    (project.root / "src" / "app.py").write_text("x = 1\n")
    task_in("research", name="guarded")
    return project


@pytest.fixture
def hooked_repo(project: Project, task_in) -> Project:
    """A git repository with the package's git hooks in force (core.hooksPath), its source
    committed, and its one task, `guarded`, in research and committed through the hooks."""
    git_with_hooks(project.root, "init", "-q")
    git_with_hooks(project.root, "config", "core.hooksPath", str(ROOT / "githooks"))
    return commit_source_and_task(project, task_in)


def commit_source_and_task(project: Project, task_in, *hooks_skipped: str) -> Project:
    """Commit `src/app.py` (hooks skipped), then task `guarded` in research (`hooks_skipped`
    adds `--no-verify`, for a repository whose hooks are not installed yet)."""
    (project.root / "src").mkdir()
    (project.root / "src" / "app.py").write_text("x = 1\n")
    git_with_hooks(project.root, "add", "src")
    git_with_hooks(project.root, "commit", "-q", "--no-verify", "-m", "initial")
    task_in("research", name="guarded")
    git_with_hooks(project.root, "add", ".automaton")
    git_with_hooks(project.root, "commit", "-q", *hooks_skipped, "-m", "track the task")
    return project


def implement(project: AutomatonProject, name: str) -> None:
    """Take task `name` from research through its approval into implement."""
    project.advance(name, ["research:awaiting_approval", "research:approved", "implement"])


def put(
    project: AutomatonProject, state: str, name: str = "demo-task", artifacts: tuple = ()
) -> str:
    """A task folder laid out as --create-task makes it, set to `state`, with artifacts.

    Written directly (not through --create-task) to keep the several hundred parametrized
    cases fast; --create-task itself is tested in tests/test_status.py.
    """
    folder = project.task_dir(name)
    folder.mkdir(parents=True)
    (folder / ".state").write_text(f"{state}\n")
    (folder / ".state.approvals").write_bytes(b"")
    for artifact in artifacts:
        verdict = "Verdict: PASS\n" if artifact == "VERDICT.md" else ""
        (folder / artifact).write_text(f"# {artifact}\n\nsome content\n{verdict}")
    return name


PROMPT = 'approval = "prompt"\n'
# The two phases the guard's tests try each case in: one where it refuses writes to the
# project's source (research), one where it allows them (implement).
GUARD_PHASES = ("research", "implement")
# The keys every JSON answer begins with, in order (DESIGN.md §7).
ENVELOPE = ["schema_version", "tool", "command", "ok", "exit_code"]


def awaiting(project: AutomatonProject, name: str = "login") -> str:
    """A task at design's gate, walked there before any approval mode or listener (the
    configuration is set aside for the walk and put back)."""
    config = project.root / "automaton.toml"
    saved = config.read_text() if config.exists() else None
    config.unlink(missing_ok=True)
    project.task(name, "design:awaiting_approval")
    if saved is not None:
        config.write_text(saved)
    return name


def current_state(project: AutomatonProject, name: str) -> str:
    """The state a task's .state holds, without its newline."""
    return (project.task_dir(name) / store.STATE).read_text().strip()


def status_env(**extra: str) -> dict[str, str]:
    """The environment status.py runs in from this checkout, with `extra` variables."""
    return {**os.environ, "PYTHONPATH": str(ROOT), **extra}


def status_py(
    *args: str, cwd: Path = ROOT, env: dict[str, str] | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    """`python status.py ARGS` in a fresh interpreter, as an agent or CI runs it."""
    return subprocess.run(
        [sys.executable, str(STATUS_PY), *args],
        cwd=cwd,
        env=status_env() if env is None else env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def empty_project(tmp_path: Path, name: str = "proj") -> Path:
    """A project folder with an empty tasks folder, made by hand."""
    root = tmp_path / name
    (root / ".automaton" / "tasks").mkdir(parents=True)
    return root


def run(root: Path, *args: str) -> tuple[int, str]:
    """status.py in-process against the project at `root`; stdout and stderr together."""
    result = AutomatonProject(root).run(*args)
    return result.exit_code, result.out + result.err


def walk(root: Path, name: str, state: str) -> None:
    """Create a task and take it to `state` through status.py."""
    AutomatonProject(root).task(name, state)


# ------------------------------------------------------------------ reading output

OUT_OF_ORDER_PASS = "Folder validation: PASS — no out-of-order artifacts found"
# How the commands status.py suggests call it: the installed script, as the spec installs it.
SCRIPT_CALL = "python3 ~/.automaton/scripts/status.py"


def no_traceback(result: Run) -> None:
    """Nothing status.py printed is a Python traceback."""
    assert "Traceback" not in result.out + result.err, result


def one_line(text: str, prefix: str) -> str:
    """The one line of `text` that starts with `prefix`."""
    found = [line for line in text.splitlines() if line.startswith(prefix)]
    assert len(found) == 1, (prefix, text)
    return found[0]


def entries_below(folder: Path) -> dict[str, bytes | str]:
    """Every entry below a folder: file bytes, link targets, folders, to prove nothing
    changed."""
    found: dict[str, bytes | str] = {}
    for path in sorted(folder.rglob("*")):
        key = str(path.relative_to(folder))
        if path.is_symlink():
            found[key] = f"-> {os.readlink(path)}"
        elif path.is_file():
            found[key] = path.read_bytes()
        else:
            found[key] = "dir"
    return found


def files_below(folder: Path) -> dict[str, bytes]:
    """Every file below a folder with its bytes, to prove a command wrote nothing."""
    return {
        str(path.relative_to(folder)): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file() and not path.is_symlink()
    }


# ----------------------------------------------------------------------- the audit

CAT1 = "=== Category 1: Out-of-order Artifacts ==="
CAT2 = "=== Category 2: State-Artifact Inconsistency ==="
CAT3 = "=== Category 3: Unauthorized Modifications ==="
CAT4 = "=== Category 4: Manually Created Task Folders ==="
CAT5 = "=== Category 5: Changes to the Guard ==="
CATEGORY_HEADINGS = (CAT1, CAT2, CAT3, CAT4, CAT5)
ERRORS = "=== Errors ==="
BUILTIN_CODES = (
    "AR101",
    "AR201",
    "AR202",
    "AR203",
    "AR204",
    "AR205",
    "AR206",
    "AR207",
    "AR208",
    "AR209",
    "AR212",  # builtin/inconsistency.py's last rule, before builtin/approvals.py's
    "AR210",
    "AR301",
    "AR302",
    "AR303",
    "AR211",  # registration order: builtin/work_done.py loads after builtin/unauthorized.py
    "AR304",
    "AR401",
    "AR402",
    "AR501",
    "AR502",
    "AR503",
    "AR504",
)


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


def assert_clean(audit: Audit) -> None:
    assert audit.findings == [], audit.text
    assert audit.exit_code == 0, audit.text


# ------------------------------------------------------------------ an audit's past

TIME_FORMAT = "%Y-%m-%dT%H:%M:%SZ"
HOUR = 3600


def now() -> int:
    return int(time.time())


def stamp(moment: int | datetime) -> str:
    """A moment (seconds, or a datetime in UTC) as the task files write it."""
    if not isinstance(moment, datetime):
        moment = datetime.fromtimestamp(moment, timezone.utc)
    return moment.strftime(TIME_FORMAT)


def seconds(text: str) -> int:
    """A time stamp of the task files as a moment."""
    return int(datetime.strptime(text, TIME_FORMAT).replace(tzinfo=timezone.utc).timestamp())


def history(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (folder / ".state.history").read_text().splitlines()]


def chained_history(task_dir: Path) -> list[dict[str, Any]]:
    """A task's history entries ([] before it has one), after checking the digest chain
    line by line and that each entry leaves the state the one before it entered."""
    path = task_dir / store.HISTORY
    if not path.exists():
        return []
    lines = path.read_text().splitlines()
    entries = [json.loads(line) for line in lines]
    assert entries[0]["prev"] is None
    for before, entry in zip(lines, entries[1:]):
        assert entry["prev"] == hashlib.sha256(before.encode()).hexdigest()
    for before, entry in zip(entries, entries[1:]):
        assert entry["from"] == before["to"], "a history line is duplicated or missing"
    return entries


def age_task(project: AutomatonProject, name: str, minutes: float) -> None:
    """Move the time of the task's first history line (its creation) `minutes` into the
    past, the digest chain left as it was (the lines after it are not rewritten)."""
    path = project.task_dir(name) / store.HISTORY
    lines = path.read_text().splitlines()
    first = json.loads(lines[0])
    then = datetime.now(timezone.utc) - timedelta(minutes=minutes)
    first["time"] = then.strftime(TIME_FORMAT)
    lines[0] = json.dumps(first, separators=(",", ":"))
    path.write_text("\n".join(lines) + "\n")


def rewrite_history(folder: Path, entries: list[dict[str, Any]]) -> None:
    """Write history entries, each chained to the line before as status.py chains them."""
    out, prev = [], None
    for entry in entries:
        line = json.dumps({**entry, "prev": prev}, separators=(",", ":"))
        out.append(line)
        prev = hashlib.sha256(line.encode()).hexdigest()
    (folder / ".state.history").write_text("".join(f"{line}\n" for line in out))


def _shift(text: str, by: int) -> str:
    moment = datetime.strptime(text, TIME_FORMAT) + timedelta(seconds=by)
    return moment.strftime(TIME_FORMAT)


def shift_times(folder: Path, by: int) -> None:
    """Move a task's whole recorded past (history and approval log) by `by` seconds."""
    rewrite_history(folder, [{**e, "time": _shift(e["time"], by)} for e in history(folder)])
    approvals = folder / ".state.approvals"
    lines = []
    for raw in approvals.read_text().splitlines():
        state, when, *rest = raw.split("|")
        lines.append("|".join([state, _shift(when, by), *rest]) + "\n")
    approvals.write_text("".join(lines))


def backdate(project: AutomatonProject, by: int = HOUR) -> None:
    """Every task with a history happened `by` seconds earlier than it did."""
    for folder in sorted(project.tasks_dir.iterdir()):
        if (folder / ".state.history").exists():
            shift_times(folder, -by)


def git_project(project: AutomatonProject) -> None:
    """A repository whose first commit predates every task by hours."""
    project.commit(
        {"README.txt": "hello\n", "src/app.py": "x = 1\n"}, "init", when=now() - 3 * HOUR
    )


def git_with_hooks(
    root: Path, *args: str, check: bool = True, author: tuple[str, str] = ("T", "t@example.com")
) -> subprocess.CompletedProcess[str]:
    """git with the package's hooks on PATH, as a person's shell has them."""
    bin_dir = Path(sys.executable).parent
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    name, email = author
    return subprocess.run(
        ["git", "-c", f"user.email={email}", "-c", f"user.name={name}", *args],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=check,
        timeout=60,
    )


# ------------------------------------------------------------------ system tools

APT_TIMEOUT = 900  # seconds for one apt-get call: a browser is a large download


def _apt_install(package: str) -> str:
    """`apt-get install PACKAGE`, with `apt-get update` first if the lists lack it; what
    went wrong, or ''."""
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    install = ["apt-get", "install", "-y", "-q", package]
    options: dict[str, Any] = dict(capture_output=True, text=True, env=env, check=False)
    try:
        done = subprocess.run(install, timeout=APT_TIMEOUT, **options)
        if done.returncode != 0:
            subprocess.run(["apt-get", "update", "-q"], timeout=APT_TIMEOUT, **options)
            done = subprocess.run(install, timeout=APT_TIMEOUT, **options)
    except subprocess.TimeoutExpired:
        return f"apt-get took more than {APT_TIMEOUT} s"
    return "" if done.returncode == 0 else (done.stderr.strip().splitlines() or ["failed"])[-1]


def system_tool(package: str, *commands: str) -> str:
    """The first of `commands` on PATH, installed with apt-get (Debian's `package`) where
    the tests run as root; otherwise the test is skipped, saying why."""
    import shutil

    def found() -> str | None:
        return next((path for name in commands if (path := shutil.which(name))), None)

    named = " or ".join(commands)
    if found() is None:
        if os.geteuid() != 0 or not shutil.which("apt-get"):
            why = "not root" if shutil.which("apt-get") else "no apt-get"
            pytest.skip(f"{named} is not installed, and apt-get cannot install it here ({why})")
        # Parallel test processes install one at a time (apt-get holds dpkg's lock, and a
        # second one would fail on it); the one that waited finds the tool installed.
        from filelock import FileLock

        with FileLock(Path(tempfile.gettempdir()) / "automaton-rules-tests-apt.lock"):
            problem = "" if found() is not None else _apt_install(package)
        if found() is None:
            problem = problem or f"no {named} after it"
            pytest.skip(f"{named} is not installed: apt-get install {package}: {problem}")
    path = found()
    assert path is not None
    return path


@pytest.fixture(scope="session")
def ssh_keygen() -> str:
    """The ssh-keygen to use, installed here if the machine allows."""
    return system_tool("openssh-client", "ssh-keygen")


def make_key(folder: Path, name: str) -> Path:
    """A passphrase-less ed25519 key pair; the private key's path."""
    key = folder / name
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", str(key)], check=True
    )
    return key


def signers_file(path: Path, **keys: Path) -> Path:
    """An allowed-signers file at `path` naming each principal's public key."""
    lines = []
    for principal, key in keys.items():
        kind, blob = Path(f"{key}.pub").read_text().split()[:2]
        lines.append(f"{principal} {kind} {blob}")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("# who may approve\n" + "\n".join(lines) + "\n")
    return path


# The example rules of rules/ are importable by module name in tests.
sys.path.insert(0, str(ROOT / "rules"))


# ------------------------------------------------------------------- harness answers


def run_hook(
    harness: str, payload: object, *args: str, home: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """automaton-hook fed one input (a text, or an object sent as JSON), as a harness runs
    it; with `home`, HOME is that folder."""
    text = payload if isinstance(payload, str) else json.dumps(payload)
    return subprocess.run(
        [str(HOOK), "--harness", harness, *args],
        input=text,
        capture_output=True,
        text=True,
        env={**os.environ, "HOME": str(home)} if home is not None else None,
        timeout=60,
        check=False,
    )


def claude_prompt(root: Path, prompt: str) -> dict[str, object]:
    """A Claude Code UserPromptSubmit input, as its hooks documentation shows it."""
    return {
        "session_id": "abc123",
        "transcript_path": "/home/u/.claude/projects/p/abc123.jsonl",
        "cwd": str(root),
        "permission_mode": "default",
        "hook_event_name": "UserPromptSubmit",
        "prompt": prompt,
    }


def replay(
    harness_name: str, fixture: str, root: Path, *args: str
) -> subprocess.CompletedProcess[str]:
    """The adapter's answer to a recorded event of the harness, for the project at `root`,
    as its installed command runs it."""
    payload, given = recorded(harness_name, fixture, root)
    return run_hook(harness_name, payload, *given, *args)


def shell_event(project: AutomatonProject, line: str, **extra: object) -> str:
    """Claude Code's input for a Bash call running `line` in the project."""
    return json.dumps(
        {
            "hook_event_name": "PreToolUse",
            "cwd": str(project.root),
            "tool_name": "Bash",
            "tool_input": {"command": line, "description": "d", "timeout": 5000, **extra},
        }
    )


def edit_event(project: AutomatonProject, relative: str) -> str:
    """Claude Code's input for an Edit of the file at `relative` in the project."""
    return json.dumps(
        {
            "cwd": str(project.root),
            "tool_name": "Edit",
            "tool_input": {"file_path": str(project.root / relative)},
        }
    )


def hook_command(
    harness: str,
    payload: str,
    *args: str,
    cwd: Path | None = None,
    home: Path | None = None,
    extra_env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run the hook command automaton-install commits, with `sh -c`, as a harness runs it."""
    from automaton_rules.cli import install_files

    command = install_files.hook_command("automaton-hook", "--harness", harness, *args)
    env = {"PATH": f"{BIN}:/usr/bin:/bin", "HOME": str(home or ""), **(extra_env or {})}
    pinned = os.environ.get("AUTOMATON_SANDBOX_MECHANISM")  # the suite run under one
    if pinned is not None:
        env.setdefault("AUTOMATON_SANDBOX_MECHANISM", pinned)
    return subprocess.run(
        ["sh", "-c", command],
        input=payload,
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=60,
    )


def rewritten(harness_name: str, proc: subprocess.CompletedProcess[str]) -> str | None:
    """The command an allowed shell call runs instead (inside the sandbox), in the harness's
    own protocol; None when it runs as it is, or is denied."""
    if proc.returncode != 0 or not proc.stdout.strip().startswith("{"):
        return None
    body = json.loads(proc.stdout)
    specific = body.get("hookSpecificOutput") or {}
    found = (
        (specific.get("updatedInput") or {}).get("command")
        or (specific.get("tool_input") or {}).get("command")
        or (body.get("rewrite") or {}).get("command")
        or (body.get("modifiedArgs") or {}).get("command")
    )
    if specific.get("permissionDecision") == "deny":
        return None
    return str(found) if found is not None else None


# What the tests know of each harness's protocol, from its own documentation, is a fixture
# beside its recorded events (tests/fixtures/hooks/NAME/protocol.json), never the code's.
HOOK_FIXTURES = ROOT / "tests" / "fixtures" / "hooks"


def protocol(harness_name: str) -> dict[str, Any]:
    """How the harness's answers look: `allow`, `deny`, `context`, `no-context`."""
    return json.loads((HOOK_FIXTURES / harness_name / "protocol.json").read_text())


def recorded(harness_name: str, fixture: str, root: Path) -> tuple[str, list[str]]:
    """A recorded event, for the project at `root`, and the arguments the installed
    command adds for it (`--event`, for a harness whose input names no event)."""
    text = (HOOK_FIXTURES / harness_name / fixture).read_text().replace("__PROJECT__", str(root))
    event = protocol(harness_name).get("events", {}).get(fixture)
    return text, (["--event", event] if event else [])


def _matches(template: Any, value: Any, found: dict[str, str]) -> bool:
    """`value` is `template`, each `$NAME` of it a text captured (the same text each time)."""
    if isinstance(template, str) and template.startswith("$"):
        return isinstance(value, str) and found.setdefault(template, value) == value
    if isinstance(template, dict):
        return (
            isinstance(value, dict)
            and set(template) == set(value)
            and all(_matches(template[key], value[key], found) for key in template)
        )
    return bool(template == value)


def answered(
    harness_name: str, kind: str, proc: subprocess.CompletedProcess[str]
) -> dict[str, str] | None:
    """The texts an answer of `kind` in the harness's protocol captures; None when the
    process did not answer that way."""
    shape, found = protocol(harness_name)[kind], {}
    if proc.returncode != shape["exit"]:
        return None
    stdout = shape["stdout"]
    if isinstance(stdout, dict):
        try:
            body = json.loads(proc.stdout)
        except ValueError:
            return None
        if not _matches(stdout, body, found):
            return None
    elif not _matches(stdout, proc.stdout.strip(), found):
        return None
    if "stderr" in shape and not _matches(shape["stderr"], proc.stderr.strip(), found):
        return None
    return {name[1:]: text for name, text in found.items()}


def denied(harness_name: str, proc: subprocess.CompletedProcess[str]) -> str | None:
    """The deny reason in the harness's own protocol, or None when the call is allowed (as
    it is, or rewritten to run inside the sandbox); anything else fails the test."""
    if rewritten(harness_name, proc) is not None:
        return None
    refused = answered(harness_name, "deny", proc)
    if refused is not None:
        return refused["REASON"]
    assert answered(harness_name, "allow", proc) is not None, (harness_name, proc)
    return None


def context_of(harness_name: str, proc: subprocess.CompletedProcess[str]) -> str:
    """The context a session start got, in the harness's own format ('' for none)."""
    if answered(harness_name, "no-context", proc) is not None:
        return ""
    given = answered(harness_name, "context", proc)
    assert given is not None, (harness_name, proc)
    return given["TEXT"]


def reader_only(root: Path) -> None:
    """Judge the project's shell lines by the reader alone (`sandbox = "off"`), as on a
    machine where no sandbox works: what the reader cannot judge is refused."""
    config = root / "automaton.toml"
    text = config.read_text(encoding="utf-8") if config.exists() else ""
    config.write_text(text + 'sandbox = "off"\n', encoding="utf-8")


# ------------------------------------------------------------------- the installer


def clean_env(home: Path) -> dict[str, str]:
    """This environment as a person's shell has it, with `home` as HOME: none of the
    variables the tests or a re-executed command set."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("PYTHONPATH", "AUTOMATON_REEXEC", "AUTOMATON_AGENT", "PYTHONHOME")
    }
    env["HOME"] = str(home)
    return env


def run_install(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """automaton-install as a person runs it, from `home`."""
    return subprocess.run(
        [str(INSTALL), *args],
        capture_output=True,
        text=True,
        env=clean_env(home),
        cwd=home,
        timeout=60,
    )


# ----------------------------------------------------------------- what a command imports

IMPORT_LINE = re.compile(r"^import time:\s+\d+ \|\s+\d+ \|(?P<name>\s*\S+)\s*$")


def modules_imported(command: list[str], cwd: Path, stdin: str = "") -> tuple[int, str, set[str]]:
    """Run `python -X importtime COMMAND`; its exit code, stdout and every module imported."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", *command],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=60,
    )
    names = set()
    for line in proc.stderr.splitlines():
        match = IMPORT_LINE.match(line)
        if match:
            names.add(match.group("name").strip())
    assert names, proc.stderr[:2000]
    return proc.returncode, proc.stdout, names


# ------------------------------------------------------------------- the dashboard


class Board:
    """A dashboard served from a thread of the test process, on a free port of 127.0.0.1,
    with a session opened the way a person opens it: the printed address, then its cookie."""

    def __init__(self, roots: list[Path], *, approving: bool = True, person: str = "user"):
        from automaton_rules.board.projects import open_projects
        from automaton_rules.board.server import make_server

        with pytest.MonkeyPatch.context() as patch:  # whom git names where it starts
            patch.setenv("GIT_CONFIG_VALUE_0", person)
            self.server, self.sock, self.board, self.url = make_server(
                open_projects(list(roots)), port=0, approving=approving
            )
        self.port = self.sock.getsockname()[1]
        self.base = f"http://127.0.0.1:{self.port}"
        import threading

        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True
        )
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started and time.monotonic() < deadline:
            time.sleep(0.02)
        assert self.server.started, "the board did not start"
        answer = self.request("GET", "/?token=" + self.board.guard.secret)
        cookie = answer.headers["set-cookie"]
        self.cookie = cookie.split(";")[0]
        self.csrf = self.board.guard.csrf(self.cookie.split("=", 1)[1])

    def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
        *,
        host: str | None = None,
    ) -> Any:
        """One request, every header as given (`host` None: the board's own)."""
        import http.client

        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        conn.putheader("Host", f"127.0.0.1:{self.port}" if host is None else host)
        for name, value in (headers or {}).items():
            conn.putheader(name, value)
        if body is not None:
            conn.putheader("Content-Length", str(len(body)))
        conn.endheaders(body)
        answer = conn.getresponse()
        answer.text = answer.read().decode("utf-8", errors="replace")
        conn.close()
        return answer

    def get(self, path: str, **headers: str) -> Any:
        """A page, with the session."""
        return self.request("GET", path, headers={"Cookie": self.cookie, **headers})

    def post(self, path: str, fields: dict[str, str], **headers: str) -> Any:
        """A change, sent the way the board's own page sends it (override any header)."""
        from urllib.parse import urlencode

        sent = {
            "Cookie": self.cookie,
            "Origin": self.base,
            "Content-Type": "application/x-www-form-urlencoded",
            **headers,
        }
        sent = {k: v for k, v in sent.items() if v}
        return self.request("POST", path, urlencode({"csrf": self.csrf, **fields}).encode(), sent)

    def stop(self) -> None:
        self.board.hub.close()
        self.server.should_exit = True
        self.thread.join(10)
        self.sock.close()
