"""Fuzzing with hypothesis: arbitrary bytes in the task files and arbitrary command lines.

Whatever a task's `.state`, `.state.history`, `.state.approvals`, `.state.lock` or the
project's `automaton.toml` hold, and whatever arguments status.py gets, a command ends
with exit 0, 1 or 2, never a traceback, an `ERROR:` line whenever it exits 2, nothing
written outside the tasks folder, and nothing written at all by a command that only reads.

Commands run in-process (as helpers' `Project.run` does), each example on a fresh copy
of a small project. `AUTOMATON_FUZZ=long` runs many more examples than CI's default.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import entries_below, path_to, sized
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from automaton_rules.cli import entry as cli
from automaton_rules.cli import parser
from automaton_rules.core import machine, store

# The suite's profile draws the same examples on every run (a failure is reproducible, never
# a flake); AUTOMATON_FUZZ=long explores afresh each time.
settings.register_profile(
    "ci",
    max_examples=sized(150, 500),
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "long",
    max_examples=5000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
PROFILE = os.environ.get("AUTOMATON_FUZZ", "ci")

TASK = "fuzzed"
READ_ONLY = (
    ("--task", TASK),
    ("--task", TASK, "--json"),
    ("--list",),
    ("--list", "--json"),
    ("--validate-folder",),
    ("--validate-folder", "--task", TASK),
    ("--audit",),
    ("--audit", "--format", "sarif"),
    ("--audit", "--format", "github"),
    ("--can-edit", "--task", TASK),
    ("--can-edit",),
    ("--same-session", "--task", TASK),
    ("--list-rules",),
)
WRITING = (
    ("--task", TASK, "--transition", "research:awaiting_approval"),
    ("--task", TASK, "--transition", "design"),
    ("--task", TASK, "--approve"),
    ("--task", TASK, "--claim", "--agent", "a1"),
    ("--upgrade",),
    ("--create-task", f"{TASK}/sub"),
)
WRITE_FLAGS = frozenset(
    {
        "--transition",
        "--approve",
        "--create-task",
        "--upgrade",
        "--claim",
        "--release",
        "--follow-up",
    }
)

SPECIAL = [
    b"",
    b"\n",
    b"\xef\xbb\xbfresearch:awaiting_approval\n",
    b"research:awaiting_approval\r\n",
    b"research:awaiting_approval\x00\n",
    b"research:awaiting_approval\nresearch:awaiting_approval\n",
    b"design\n",
    b"/etc/passwd\n",
    b"../../research\n",
    b"\x00" * 64,
    b"a" * 1_000_000,
    b'{"to": "implement", "from": null, "prev": null}\n',
    b"research:approved|2020-01-01T00:00:00Z|user\n",
    b"agent: a2\nphase: research\nclaimed: 2020-01-01T00:00:00Z\nexpires: 2999-01-01T00:00:00Z\n",
]
contents = st.one_of(st.sampled_from(SPECIAL), st.binary(max_size=600))
TARGETS = (store.STATE, store.HISTORY, store.APPROVALS, store.CLAIM, "automaton.toml")


def build_template(root: Path) -> None:
    """A project with one task awaiting approval of its SPEC.md."""
    assert run_main(root, "--create-task", TASK)[0] == 0
    folder = root / ".automaton" / "tasks" / TASK
    for target in path_to("research:awaiting_approval"):
        current = (folder / store.STATE).read_text().strip()
        artifact = machine.required_artifact(current)
        if artifact:
            (folder / artifact).write_text(f"# {artifact}\n")
        assert run_main(root, "--task", TASK, "--transition", target)[0] == 0


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("fuzz-template") / "proj"
    root.mkdir()
    build_template(root)
    return root


def run_main(root: Path, *args: str) -> tuple[int, str, str]:
    """status.py in-process against a project."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main([*args, "--project", str(root)])
    return code, out.getvalue(), err.getvalue()


@contextlib.contextmanager
def fresh_copy(template: Path) -> Iterator[Path]:
    """A copy of the template project beside a neighbour folder, which is the working
    directory too, so a write that misses the project is seen."""
    cwd = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "proj"
        shutil.copytree(template, root, symlinks=True)
        (Path(tmp) / "neighbour").mkdir()
        (Path(tmp) / "neighbour" / "keep.txt").write_text("keep\n")
        os.chdir(Path(tmp) / "neighbour")
        try:
            yield root
        finally:
            os.chdir(cwd)


def outside_tasks(entries: dict[str, bytes | str]) -> dict[str, bytes | str]:
    """The entries that are not below the tasks folder."""
    return {k: v for k, v in entries.items() if not k.startswith("proj/.automaton/tasks/")}


def says_error(out: str, err: str) -> bool:
    """An exit 2 explains itself: an ERROR line, a JSON error, a SARIF or GitHub error."""
    lines = (out + err).splitlines()
    if any(line.startswith(("ERROR: ", "::error title=automaton-rules::")) for line in lines):
        return True
    try:
        body = json.loads(out)
    except ValueError:
        return False
    if "runs" in body:  # SARIF: the errors are the run's notifications
        notes = body["runs"][0]["invocations"][0]["toolExecutionNotifications"]
        return any(note["level"] == "error" for note in notes)
    return bool(body.get("error") or body.get("errors"))


def asked_to_write(args: tuple[str, ...], code: int) -> set[str]:
    """The files a command line names for a report to be written to, as the snapshot keys
    them (relative to the neighbour folder the command runs in)."""
    named = set()
    for number, arg in enumerate(args):
        flag, eq, value = arg.partition("=")
        if flag == "--write-baseline":
            value = value if eq else (args[number + 1] if number + 1 < len(args) else "")
            named.add(os.path.normpath(f"neighbour/{value}"))
    return named if code == 0 else set()


def check(base: Path, root: Path, args: tuple[str, ...], before: dict[str, bytes | str]) -> None:
    """Run one command and hold it to the contract."""
    code, out, err = run_main(root, *args)
    assert code in (0, 1, 2), (args, code, out, err)
    assert "Traceback" not in out + err, (args, out, err)
    if code == 2:
        assert says_error(out, err), (args, out, err)
    after = entries_below(base)
    for asked in asked_to_write(args, code):
        after.pop(asked, None)  # `--write-baseline F` writes F where it was told to
    assert outside_tasks(after) == outside_tasks(before), args
    if not WRITE_FLAGS & {arg.split("=", 1)[0] for arg in args}:
        assert after == before, ("a read-only command wrote", args)


@settings(settings.get_profile(PROFILE))
@given(
    files=st.lists(st.tuples(st.sampled_from(TARGETS), contents), min_size=1, max_size=3),
    command=st.sampled_from(READ_ONLY + WRITING),
)
def test_fuzzed_task_files(
    template: Path, files: list[tuple[str, bytes]], command: tuple[str, ...]
) -> None:
    with fresh_copy(template) as root:
        folder = root / ".automaton" / "tasks" / TASK
        for name, data in files:
            (root / name if name == "automaton.toml" else folder / name).write_bytes(data)
        base = root.parent
        check(base, root, command, entries_below(base))


FLAGS = sorted(
    {
        opt
        for param in parser.command().params
        for opt in param.opts
        # --install-completion writes the user's shell start-up file, as it is asked to.
        if opt.startswith("-") and opt not in ("--project", "--install-completion")
    }
)
VALUES = st.one_of(
    st.sampled_from(
        [
            TASK,
            f"{TASK}/sub",
            "nope",
            "..",
            "../../etc",
            "research:approved",
            "research:awaiting_approval",
            "design",
            "implemnt",
            "json",
            "sarif",
            "github",
            "AR1",
            "warning",
            "a1",
            "/etc/passwd",
            "automaton.toml",
            "",
            "-",
            "=",
        ]
    ),
    st.text(max_size=40),
    st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-/:.", max_size=30),
)
ARGUMENT = st.one_of(
    st.sampled_from(FLAGS),
    VALUES,
    st.builds(lambda f, v: f"{f}={v}", st.sampled_from(FLAGS), VALUES),
)


@settings(settings.get_profile(PROFILE))
@given(argv=st.lists(ARGUMENT, min_size=1, max_size=7))
def test_fuzzed_command_lines(template: Path, argv: list[str]) -> None:
    if "\x00" in "".join(argv):
        argv = [arg.replace("\x00", "") for arg in argv]  # no real command line holds NUL
    with fresh_copy(template) as root:
        base = root.parent
        check(base, root, tuple(argv), entries_below(base))
