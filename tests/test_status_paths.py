"""Specification section 8, "Project path resolution" (seeds/000), as DESIGN.md section 4
reads it with the v2.0 workflow (seeds/001): no silent fallback to ~/.automaton/.

The acceptance criterion "Project path resolution (defaults to CWD, handles
~/.automaton/)", in-process from a changed working folder and through `python status.py`.
"""

from __future__ import annotations

import pytest
from helpers import entries_below, no_traceback, put

from automaton_rules.cli import entry as cli


def run_here(capsys, *args: str):
    """Call status.py in-process without --project (the current directory decides)."""
    capsys.readouterr()
    rc = cli.main(list(args))
    captured = capsys.readouterr()
    return rc, captured.out, captured.err


@pytest.fixture
def fake_home(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    return home


def test_project_path_resolution_defaults_to_cwd(project, fake_home, monkeypatch):
    """Criterion: "Project path resolution (defaults to CWD, ...)" -- `python status.py`
    run in the project folder without --project finds its tasks."""
    put(project, "research", name="add-user-auth")
    result = project.script("--task", "add-user-auth", cwd=project.root)
    assert result.rc == 0, result
    assert "Phase: research (from .state)" in result.out.splitlines()
    no_traceback(result)


def test_project_path_resolution_walks_up_to_parents(project, fake_home, monkeypatch, capsys):
    """Criterion: "Project path resolution (defaults to CWD, ...)" -- from a sub-folder of the
    project, the nearest parent holding .automaton/tasks/ is used (DESIGN.md section 4)."""
    put(project, "implement", name="add-user-auth")
    deep = project.root / "src" / "pkg" / "deep"
    deep.mkdir(parents=True)
    monkeypatch.chdir(deep)
    rc, out, err = run_here(capsys, "--task", "add-user-auth")
    assert rc == 0, err
    assert "Phase: implement (from .state)" in out.splitlines()
    state_file = project.root.resolve() / ".automaton" / "tasks" / "add-user-auth" / ".state"
    assert f"State file: {state_file}" in out.splitlines()


def test_project_path_resolution_explicit_project_wins(
    project, tmp_path, fake_home, monkeypatch, capsys
):
    """Criterion: "Project path resolution" -- --project wins over the current directory."""
    put(project, "new", name="same-name")
    other = tmp_path / "other"
    (other / ".automaton" / "tasks" / "same-name").mkdir(parents=True)
    (other / ".automaton" / "tasks" / "same-name" / ".state").write_text("implement\n")
    monkeypatch.chdir(other)
    rc, out, _ = run_here(capsys, "--task", "same-name")
    assert rc == 0
    assert "Phase: implement (from .state)" in out.splitlines()
    rc, out, _ = run_here(capsys, "--task", "same-name", "--project", str(project.root))
    assert rc == 0
    assert "Phase: new (from .state)" in out.splitlines()


def test_project_path_resolution_no_project_found(tmp_path, fake_home, monkeypatch, capsys):
    """Criterion: "Project path resolution" -- nothing found: DESIGN.md section 4's v2.0
    error, exit 2, no silent fallback."""
    empty = tmp_path / "empty" / "inner"
    empty.mkdir(parents=True)
    monkeypatch.chdir(empty)
    for args in (("--task", "x"), ("--list",)):
        rc, out, err = run_here(capsys, *args)
        assert rc == 2
        assert out == ""
        assert err.splitlines() == [
            f"ERROR: No .automaton/tasks/ folder found in {empty.resolve()} or its parents. "
            "Pass --project or create a task with --create-task."
        ]
    assert set(entries_below(tmp_path / "empty")) == {"inner"}


def test_project_path_resolution_never_uses_home_automaton_from_a_project(
    tmp_path, fake_home, monkeypatch, capsys
):
    """Criterion: "Project path resolution (..., handles ~/.automaton/)" -- ~/.automaton is
    the framework's home, not the project of a folder below $HOME (DESIGN.md section 4)."""
    (fake_home / ".automaton" / "tasks" / "framework-task").mkdir(parents=True)
    (fake_home / ".automaton" / "tasks" / "framework-task" / ".state").write_text("new\n")
    work = fake_home / "code" / "app"
    work.mkdir(parents=True)
    monkeypatch.chdir(work)
    rc, _, err = run_here(capsys, "--task", "framework-task")
    assert rc == 2
    assert err.startswith(f"ERROR: No .automaton/tasks/ folder found in {work.resolve()}")


def test_project_path_resolution_handles_home_automaton(project, tmp_path, monkeypatch):
    """Criterion: "Project path resolution (defaults to CWD, handles ~/.automaton/)" -- spec
    8: "If running from ~/.automaton/, use ~/.automaton/tasks/". Real subprocess, HOME set
    to a temporary folder."""
    home = tmp_path / "home"
    scripts = home / ".automaton" / "scripts"
    scripts.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    result = project.script("--create-task", "framework-task", cwd=scripts)
    assert result.rc == 0, result
    folder = home / ".automaton" / "tasks" / "framework-task"
    assert (folder / ".state").read_text() == "new\n"
    assert not (scripts / ".automaton").exists()

    result = project.script("--task", "framework-task", cwd=home / ".automaton")
    assert result.rc == 0, result
    assert f"State file: {folder.resolve() / '.state'}" in result.out.splitlines()
    result = project.script("--list", cwd=scripts)
    assert result.rc == 0, result
    assert "framework-task" in result.out


def test_relative_file_is_read_from_project_when_project_is_given(project, task_in, tmp_path):
    """Issue 32: a harness that passes `--project` and a project-relative `--file` from
    another folder gets the answer for the project's file, as for its absolute path."""
    task_in("implement")
    (project.root / "src").mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "src").mkdir()  # a folder of the same name here must not be the one read
    absolute = str(project.root / "src" / "a.py")
    for file in ("src/a.py", absolute):
        for hook, answer in (("--can-edit", "ALLOWED"), ("--scope-check", "IN_SCOPE")):
            result = project.script(hook, "--file", file, "--project", "../proj", cwd=elsewhere)
            assert (result.rc, result.out) == (0, f"{answer}\n"), (hook, file, result)
    escaping = project.script(
        "--scope-check", "--file", "../elsewhere/src/a.py", "--project", "../proj", cwd=elsewhere
    )
    assert escaping.rc == 1
    assert escaping.out.startswith("OUT_OF_SCOPE: File '../proj/../elsewhere/src/a.py' is ")
    state = project.script(
        "--can-edit",
        "--file",
        ".automaton/tasks/demo-task/.state",
        "--project",
        "../proj",
        cwd=elsewhere,
    )
    assert state.rc == 1
    assert "is workflow state: only status.py writes .state files." in state.out


def test_relative_file_without_project_is_read_from_the_current_folder(project, task_in):
    """Without `--project` the project is found from the current folder, and so is the
    file: from `src/`, `a.py` is `src/a.py`, and `../..` leaves the project."""
    task_in("implement")
    (project.root / "src").mkdir()
    inside = project.script("--can-edit", "--file", "a.py", cwd=project.root / "src")
    assert (inside.rc, inside.out) == (0, "ALLOWED\n"), inside
    outside = project.script("--scope-check", "--file", "../../a.py", cwd=project.root / "src")
    assert outside.rc == 1
    assert outside.out.startswith("OUT_OF_SCOPE: File '../../a.py' is outside project ")
