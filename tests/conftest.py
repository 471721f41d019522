"""The suite's fixtures and its pytest hooks; the helpers the test modules share are in
tests/helpers/ (`from helpers import NAME`), as pytest keeps fixtures in conftest and
helpers in an importable module.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import (
    LONG_TESTS,
    ROOT,
    STARTUP,
    USER_CLAUDE,
    USER_GEMINI,
    Project,
    commit_source_and_task,
    git_output,
    git_with_hooks,
    path_to,
    spec_example,
    system_tool,
)

from automaton_rules.testing import AutomatonProject

# The example rules of rules/ are importable by module name in tests.
sys.path.insert(0, str(ROOT / "rules"))


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--harnesses", nargs="?", const="pinned", default=None, choices=("pinned", "latest"),
        help="run the harness lab (tests/harnesses) on the pinned or the latest releases",
    )  # fmt: skip


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: one of the longest tests (helpers.LONG_TESTS)")
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


@pytest.fixture(scope="session")
def ssh_keygen() -> str:
    """The ssh-keygen to use; the tests that sign skip without it."""
    return system_tool("openssh-client", "ssh-keygen")


# ------------------------------------------------------- the installer's projects


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """An empty home folder, the installer's HOME: the real one is never touched."""
    folder = tmp_path / "home"
    folder.mkdir()
    return folder


@pytest.fixture
def user_repo(tmp_path: Path) -> Path:
    """A git project with the user's own Claude and Gemini settings already there."""
    folder = tmp_path / "proj"
    folder.mkdir()
    subprocess.run(["git", "init", "-q", str(folder)], check=True, timeout=60)
    (folder / ".claude").mkdir()
    (folder / ".claude" / "settings.json").write_text(json.dumps(USER_CLAUDE, indent=4) + "\n")
    (folder / ".gemini").mkdir()
    (folder / ".gemini" / "settings.json").write_text(json.dumps(USER_GEMINI) + "\n")
    (folder / ".automaton" / "tasks").mkdir(parents=True)
    return folder


# ------------------------------------------------------------ the audit's projects


@pytest.fixture
def warned(automaton_project: AutomatonProject) -> AutomatonProject:
    """One AR101 error and one AR202 warning (the specification's example, no git)."""
    spec_example(automaton_project, git=False)
    return automaton_project


@pytest.fixture
def board(project: Project) -> Iterator[object]:
    """The dashboard serving `project` (a module's own `project` fixture, where it has one)
    from a thread of this process; modules that need a person or a scope define their own."""
    from helpers import Board

    served = Board([project.root])
    yield served
    served.stop()


# --------------------------------------------------------- the sandbox's projects


@pytest.fixture
def startup_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home folder with start-up files an agent would love to change."""
    folder = tmp_path / "home"
    for name, text in STARTUP.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    (folder / ".cache").mkdir()
    monkeypatch.setenv("HOME", str(folder))
    return folder


@pytest.fixture
def repo(project: Project, task_in, startup_home: Path) -> Project:
    """A git project with code committed, its one task in research (tests/test_witness.py
    has its own)."""
    (project.root / "src").mkdir()
    (project.root / "src" / "app.py").write_text("x = 1\n")
    (project.root / "automaton.toml").write_text("# the workflow's settings\n")
    git_output(project.root, "init", "-q")
    git_output(project.root, "add", "-A")
    git_output(project.root, "commit", "-q", "-m", "initial")
    task_in("research", name="t1")
    return project
