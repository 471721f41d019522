"""Recently fixed behaviours: each test pins one hole that was closed, so it stays closed."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, STATUS_PY, Project, path_to

from automaton_rules.cli import entry as cli

OUT_OF_ORDER_PASS = "Folder validation: PASS — no out-of-order artifacts found"
LATER_THAN_RESEARCH = (
    "DESIGN.md",
    "TEST_PLAN.md",
    "IMPLEMENTATION.md",
    "BUG_REPORT.md",
    "ADVERSARIAL_BUG_REPORT.md",
    "DOC_REVIEW.md",
    "VERDICT.md",
)


def _env(**extra: str) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), **extra}


def _script(
    *args: str, cwd: Path, timeout: float = 20, **env: str
) -> subprocess.CompletedProcess[str]:
    """`python status.py ARGS` in a subprocess with its own environment and a short timeout."""
    return subprocess.run(
        [sys.executable, str(STATUS_PY), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=_env(**env),
        timeout=timeout,
    )


def _line(text: str, prefix: str) -> str:
    """The one line of `text` that starts with `prefix`."""
    found = [line for line in text.splitlines() if line.startswith(prefix)]
    assert len(found) == 1, (prefix, text)
    return found[0]


def _snapshot(folder: Path) -> dict[str, bytes]:
    """Every file below a folder with its bytes, to prove a command wrote nothing."""
    return {
        str(path.relative_to(folder)): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file() and not path.is_symlink()
    }


# 1. A sub-task never enters decomposition.


@pytest.fixture
def subtask_at_research_approved(project: Project, task_in) -> str:
    task_in("decomposition:approved", name="p")
    project.create("p/a")
    project.advance("p/a", path_to("research:approved"))
    assert project.state("p/a") == "research:approved\n"
    return "p/a"


def test_subtask_transition_to_decomposition_is_refused(
    project: Project, subtask_at_research_approved: str
) -> None:
    result = project.run("--task", "p/a", "--transition", "decomposition")
    assert result.rc == 1
    assert result.err == (
        "ERROR: Cannot transition from 'research:approved' to 'decomposition'. "
        "Legal transitions from 'research:approved' are: design, implement\n"
    )
    assert project.state("p/a") == "research:approved\n"


def test_subtask_view_does_not_offer_decomposition(
    project: Project, subtask_at_research_approved: str
) -> None:
    result = project.run("--task", "p/a")
    assert result.rc == 0
    assert _line(result.out, "Next phase:") == "Next phase: design or implement"
    assert "decomposition" not in _line(result.out, "Command to proceed:")
    assert _line(result.out, "Command to proceed:").endswith("(PHASE: design or implement)")


def test_subtask_list_json_excludes_decomposition(
    project: Project, subtask_at_research_approved: str
) -> None:
    result = project.run("--list", "--json")
    assert result.rc == 0
    rows = {row["name"]: row for row in result.json["tasks"]}
    assert rows["p/a"]["next_states"] == ["design", "implement"]
    assert rows["p/a"]["next_step"] == "design or implement"


def test_top_level_task_may_still_decompose(project: Project, task_in) -> None:
    task_in("research:approved", name="top")
    listed = {row["name"]: row for row in project.run("--list", "--json").json["tasks"]}
    assert listed["top"]["next_states"] == ["decomposition", "design", "implement"]
    view = project.run("--task", "top")
    assert _line(view.out, "Next phase:") == "Next phase: decomposition, design or implement"
    result = project.run("--task", "top", "--transition", "decomposition")
    assert result.rc == 0, result
    assert project.state("top") == "decomposition\n"


# 2. Folders with names no task can have are reported.

STRAY = ("Fix_Login", "UPPER", "café", "p/subtasks/Bad_Sub")


@pytest.fixture
def stray_folders(project: Project) -> Project:
    project.create("good")
    project.create("p")
    for name in STRAY:
        (project.tasks / name).mkdir(parents=True)
        (project.tasks / name / "SPEC.md").write_text("# hidden work\n")
    (project.tasks / ".x.creating").mkdir()
    return project


def test_validate_folder_reports_invalid_folder_names(stray_folders: Project) -> None:
    result = stray_folders.run("--validate-folder")
    assert result.rc == 1
    blocks = result.out.split("\n\n")
    for name in STRAY:
        block = f"Folder: {name}\nFolder validation: FAIL — folder '{name}' is not a task"
        assert any(b.startswith(block) for b in blocks), (name, result.out)
    assert "Task: good\nPhase: new (from .state)\n" + OUT_OF_ORDER_PASS in result.out
    assert ".x.creating" not in result.out
    assert result.out.rstrip().endswith("Validated 6 task folder(s): 4 failed")


def test_audit_reports_invalid_folder_names_under_category_4(stray_folders: Project) -> None:
    result = stray_folders.run("--audit")
    assert result.rc == 1
    section = result.out.split("=== Category 4: ")[1].split("\n\n")[0]
    assert section.startswith("Manually Created Task Folders ===")
    for name in STRAY:
        assert f"[FAIL] {name}: folder '{name}' is not a task" in section, (name, section)
    assert ".x.creating" not in result.out

    body = stray_folders.run("--audit", "--json").json
    stray = sorted(f["task"] for f in body["findings"] if f["code"] == "AR402")
    assert stray == sorted(STRAY)
    assert body["summary"]["by_category"]["Manually Created Task Folders"] == len(STRAY)
    assert body["exit_code"] == 1


def test_hidden_folders_are_not_reported(project: Project) -> None:
    project.create("good")
    (project.tasks / ".x.creating").mkdir()
    (project.tasks / ".x.creating" / "SPEC.md").write_text("# staging\n")
    validate = project.run("--validate-folder")
    assert validate.rc == 0, validate
    assert ".x.creating" not in validate.out
    audit = project.run("--audit", "--json")
    assert [f for f in audit.json["findings"] if f["code"] == "AR402"] == []


# 3. Task files must be regular files.


def test_state_symlink_is_refused(project: Project, tmp_path: Path) -> None:
    project.create("x")
    outside = tmp_path / "outside.txt"
    outside.write_text("research\n")
    state = project.task_dir("x") / ".state"
    state.unlink()
    state.symlink_to(outside)
    for args in (("--task", "x"), ("--task", "x", "--transition", "research")):
        result = project.run(*args)
        assert result.rc == 2, (args, result)
        assert result.err == f"ERROR: Cannot read {state}: a symbolic link\n"
    assert outside.read_text() == "research\n"
    assert state.is_symlink()


def test_planted_state_tmp_link_is_not_followed(project: Project, tmp_path: Path) -> None:
    project.create("x")
    outside = tmp_path / "outside.txt"
    outside.write_text("precious\n")
    tmp = project.task_dir("x") / ".state.tmp"
    tmp.symlink_to(outside)
    result = project.run("--task", "x", "--transition", "research")
    assert result.rc == 0, result
    assert outside.read_text() == "precious\n"
    state = project.task_dir("x") / ".state"
    assert not state.is_symlink()
    assert state.read_text() == "research\n"
    assert not tmp.exists() and not tmp.is_symlink()


def test_history_symlink_changes_nothing(project: Project, tmp_path: Path) -> None:
    project.create("x")
    folder = project.task_dir("x")
    outside = tmp_path / "outside.txt"
    original = (folder / ".state.history").read_bytes()
    outside.write_bytes(original)
    (folder / ".state.history").unlink()
    (folder / ".state.history").symlink_to(outside)
    result = project.run("--task", "x", "--transition", "research")
    assert result.rc == 2
    assert outside.read_bytes() == original
    assert project.state("x") == "new\n"
    assert result.err.startswith("ERROR: ")
    assert result.err.rstrip().endswith(".state.history: a symbolic link")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs os.mkfifo")
def test_fifo_artifact_does_not_hang_and_counts_as_missing(project: Project, task_in) -> None:
    name = task_in("research")
    os.mkfifo(project.task_dir(name) / "SPEC.md")
    proc = _script("--task", name, "--transition", "research:awaiting_approval", cwd=project.root)
    assert proc.returncode == 1, proc
    assert "Required artifact 'SPEC.md' is missing or empty" in proc.stderr
    assert project.state(name) == "research\n"


def test_artifact_linked_to_dev_zero_counts_as_missing(project: Project, task_in) -> None:
    name = task_in("research")
    (project.task_dir(name) / "SPEC.md").symlink_to("/dev/zero")
    proc = _script("--task", name, "--transition", "research:awaiting_approval", cwd=project.root)
    assert proc.returncode == 1, proc
    assert "Required artifact 'SPEC.md' is missing or empty" in proc.stderr
    assert project.state(name) == "research\n"


# 4. --project must name a project.

NEEDS_PROJECT = [
    ("--task", "x"),
    ("--task", "x", "--transition", "research"),
    ("--task", "x", "--approve"),
    ("--list",),
    ("--list", "--json"),
    ("--validate-folder",),
    ("--validate-folder", "--task", "x"),
    ("--audit",),
    ("--upgrade",),
    ("--list-rules",),
]


@pytest.mark.parametrize("args", NEEDS_PROJECT, ids=" ".join)
def test_project_without_tasks_folder_is_an_error(project: Project, args: tuple[str, ...]) -> None:
    result = project.run(*args)
    assert result.rc == 2
    message = (
        f"No .automaton/tasks/ folder found in {project.root.resolve()}. "
        "Pass --project or create a task with --create-task."
    )
    if "--json" in args:
        assert result.json["error"]["message"] == message
    else:
        assert result.err == f"ERROR: {message}\n"
        assert result.out == ""
    assert list(project.root.iterdir()) == []


def test_project_naming_a_file_or_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    afile = tmp_path / "afile"
    afile.write_text("x\n")
    missing = tmp_path / "missing"
    for where, problem in ((afile, "is not a folder"), (missing, "does not exist")):
        for args in (("--list",), ("--create-task", "x")):
            capsys.readouterr()
            assert cli.main([*args, "--project", str(where)]) == 2
            err = capsys.readouterr().err
            assert err == f"ERROR: Project folder '{where}' {problem}.\n", (args, err)
    assert not missing.exists()
    assert afile.read_text() == "x\n"


def test_create_task_in_an_empty_folder_makes_the_project(project: Project) -> None:
    result = project.run("--create-task", "x")
    assert result.rc == 0, result
    assert project.state("x") == "new\n"
    assert project.run("--list").rc == 0


# 5. The home folder is not a project.


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    (home / ".automaton" / "scripts").mkdir(parents=True)
    return home


def test_home_folder_is_not_a_project(home: Path) -> None:
    before = _snapshot(home)
    proc = _script("--create-task", "x", cwd=home, HOME=str(home))
    assert proc.returncode == 2, proc
    assert proc.stderr.startswith("ERROR: ")
    assert "is the home folder" in proc.stderr
    assert not (home / ".automaton" / "tasks").exists()
    assert _snapshot(home) == before


@pytest.mark.parametrize("args", [("--create-task", "x"), ("--list",)], ids=" ".join)
def test_project_flag_naming_home_is_refused(
    home: Path, tmp_path: Path, args: tuple[str, ...]
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    proc = _script(*args, "--project", str(home), cwd=elsewhere, HOME=str(home))
    assert proc.returncode == 2, proc
    assert "is the home folder" in proc.stderr
    assert not (home / ".automaton" / "tasks").exists()


def test_inside_framework_home_its_tasks_folder_is_used(home: Path) -> None:
    work = home / ".automaton" / "work"
    work.mkdir()
    proc = _script("--create-task", "x", cwd=work, HOME=str(home))
    assert proc.returncode == 0, proc
    assert (home / ".automaton" / "tasks" / "x" / ".state").read_text() == "new\n"
    assert not (work / ".automaton").exists()


# 6. --upgrade restores from history before it guesses from artifacts.


def test_upgrade_restores_deleted_state_from_history(project: Project, task_in) -> None:
    name = task_in("design:approved", name="x")
    (project.task_dir(name) / ".state").unlink()
    result = project.run("--upgrade")
    assert result.rc == 0, result
    assert result.out == (
        "Upgraded task 'x': .state restored to 'design:approved' from .state.history\n"
    )
    assert project.state(name) == "design:approved\n"


def test_upgrade_restores_corrupt_state_from_history(project: Project, task_in) -> None:
    name = task_in("design:approved", name="x")
    (project.task_dir(name) / ".state").write_text("implemnt\n")
    result = project.run("--upgrade")
    assert result.rc == 0, result
    assert result.out == (
        "Upgraded task 'x': .state restored to 'design:approved' from .state.history\n"
    )
    assert project.state(name) == "design:approved\n"
    assert project.run("--task", name).rc == 0


def test_upgrade_reports_unrestorable_state_and_adopts_the_rest(project: Project, task_in) -> None:
    name = task_in("design", name="x")
    (project.task_dir(name) / ".state").write_text("implemnt\n")
    (project.task_dir(name) / ".state.history").unlink()
    (project.tasks / "hand-a").mkdir()
    (project.tasks / "hand-a" / "SPEC.md").write_text("# spec\n")
    (project.tasks / "hand-b").mkdir()
    result = project.run("--upgrade")
    assert result.rc == 2
    assert result.err.startswith("ERROR: task x: Unknown phase 'implemnt'")
    assert "no .state.history to restore it from" in result.err
    assert project.state("hand-a") == "research\n"
    assert project.state("hand-b") == "new\n"
    assert project.state("x") == "implemnt\n"
    assert "Upgraded task 'hand-a': .state set to 'research' (inferred from SPEC.md)" in result.out
    assert "Upgraded task 'hand-b': .state set to 'new' (no artifacts)" in result.out


def test_upgrade_is_idempotent(project: Project, task_in) -> None:
    name = task_in("design:approved", name="x")
    (project.task_dir(name) / ".state").unlink()
    (project.tasks / "hand").mkdir()
    first = project.run("--upgrade")
    assert first.rc == 0, first
    history = (project.task_dir(name) / ".state.history").read_bytes()
    second = project.run("--upgrade")
    assert second.rc == 0, second
    assert second.out == f"No untracked tasks in {project.tasks.resolve()}/\n"
    assert (project.task_dir(name) / ".state.history").read_bytes() == history
    assert project.state(name) == "design:approved\n"
    assert project.state("hand") == "new\n"


# 7. --approve consults the transition rules.


def test_approve_refuses_with_a_forbidden_artifact(project: Project, task_in) -> None:
    name = task_in("design:awaiting_approval")
    project.write(name, "IMPLEMENTATION.md", "# skipped ahead\n")
    folder = project.task_dir(name)
    approvals = (folder / ".state.approvals").read_bytes()
    history = (folder / ".state.history").read_bytes()
    result = project.run("--task", name, "--approve")
    assert result.rc == 1
    assert "Found forbidden artifact 'IMPLEMENTATION.md'" in result.err
    assert result.err.startswith("ERROR: ")
    assert (folder / ".state.approvals").read_bytes() == approvals
    assert (folder / ".state.history").read_bytes() == history
    assert project.state(name) == "design:awaiting_approval\n"


# 8. Resuming an earlier phase from human_intervention.


def test_resume_at_research_needs_later_artifacts_archived(project: Project, task_in) -> None:
    name = task_in("human_intervention")
    result = project.run("--task", name, "--transition", "research")
    assert result.rc == 1
    prefix = "ERROR: Cannot transition from 'human_intervention' to 'research'."
    assert (
        f"{prefix} Found artifact 'IMPLEMENTATION.md' of a later phase in task folder. "
        "To resume at 'research', archive it first (rename it, e.g. to IMPLEMENTATION.v1.md)."
    ) in result.err.splitlines()
    for artifact in LATER_THAN_RESEARCH:
        assert f"Found artifact '{artifact}' of a later phase" in result.err, artifact
    assert "phase-skipping" not in result.err
    assert project.state(name) == "human_intervention\n"

    folder = project.task_dir(name)
    for artifact in LATER_THAN_RESEARCH:
        (folder / artifact).rename(folder / artifact.replace(".md", ".v1.md"))
    result = project.run("--task", name, "--transition", "research")
    assert result.rc == 0, result
    assert project.state(name) == "research\n"

    validate = project.run("--validate-folder", "--task", name)
    assert ".v1.md" not in validate.out
    assert OUT_OF_ORDER_PASS in validate.out.splitlines()
    assert validate.rc == 0, validate


# 9. --task ends with the folder's validation.


def test_task_view_ends_with_folder_validation_pass(project: Project, task_in) -> None:
    name = task_in("research")
    result = project.run("--task", name)
    assert result.rc == 0
    assert result.out.splitlines()[-1] == OUT_OF_ORDER_PASS


def test_task_view_ends_with_folder_validation_fail(project: Project, task_in) -> None:
    name = task_in("research")
    project.write(name, "IMPLEMENTATION.md")
    result = project.run("--task", name)
    assert result.rc == 0
    assert result.out.splitlines()[-1] == (
        "Folder validation: FAIL — found out-of-order artifacts: IMPLEMENTATION.md "
        "(see --validate-folder)"
    )


def test_task_view_in_new_needs_no_artifact(project: Project, task_in) -> None:
    name = task_in("new")
    result = project.run("--task", name)
    assert result.rc == 0
    assert _line(result.out, "Next artifact needed:") == "Next artifact needed: —"
    assert result.out.splitlines()[-1] == OUT_OF_ORDER_PASS


# 10. Suggested commands start the way the process was started.


def test_suggested_command_follows_the_script_invocation(project: Project, task_in) -> None:
    name = task_in("new")
    result = project.script("--task", name)
    assert result.rc == 0, result
    invocation = f"{shlex.quote(sys.executable)} {shlex.quote(str(ROOT / 'status.py'))}"
    root = shlex.quote(str(project.root.resolve()))
    assert _line(result.out, "Command to proceed:") == (
        f"Command to proceed: {invocation} --task {name} --transition research --project {root}"
    )


def test_in_process_suggestions_keep_the_specification_path(project: Project, task_in) -> None:
    name = task_in("new")
    result = project.run("--task", name)
    root = shlex.quote(str(project.root.resolve()))
    assert _line(result.out, "Command to proceed:") == (
        "Command to proceed: python ~/.automaton/scripts/status.py "
        f"--task {name} --transition research --project {root}"
    )


# 11. Options that belong to another action.


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--task", "x", "--approver", "bob"), "ERROR: --approver goes with --approve.\n"),
        (
            ("--task", "x", "--transition", "research", "--approver", "bob"),
            "ERROR: --approver goes with --approve.\n",
        ),
        (("--list", "--select", "AR1"), "ERROR: --select goes with --audit.\n"),
        (("--list", "--ignore", "AR1"), "ERROR: --ignore goes with --audit.\n"),
        (("--validate-folder", "--fail-on", "warning"), "ERROR: --fail-on goes with --audit.\n"),
        (
            ("--list", "--format", "sarif"),
            "ERROR: --format goes with --audit (use --json elsewhere).\n",
        ),
    ],
)
def test_option_without_its_action(
    project: Project, task_in, args: tuple[str, ...], message: str
) -> None:
    task_in("new", name="x")
    result = project.run(*args)
    assert result.rc == 2
    assert result.err == message
    assert result.out == ""
    assert project.state("x") == "new\n"


# 12. Closed, narrow and vanished streams.


def test_closed_stderr_keeps_exit_2(project: Project) -> None:
    project.create("x")
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(STATUS_PY))} --task nope "
    command += f"--project {shlex.quote(str(project.root))} 2>&-"
    proc = subprocess.run(
        ["sh", "-c", command], capture_output=True, text=True, env=_env(), timeout=20
    )
    assert proc.returncode == 2, proc


@pytest.fixture
def dash_project(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Project:
    """A project whose path holds an em dash, with a complete task (Next Step '—')."""
    other = Project(tmp_path / "proj—dash", capsys)
    other.root.mkdir()
    other.create("done")
    other.advance("done", path_to("complete"))
    return other


def test_ascii_terminal_list_does_not_crash(dash_project: Project) -> None:
    proc = _script(
        "--list",
        "--project",
        str(dash_project.root),
        cwd=dash_project.root,
        PYTHONIOENCODING="ascii",
    )
    assert proc.returncode == 0, proc
    assert "Traceback" not in proc.stderr
    assert _line(proc.stdout, "done").split() == ["done", "complete", "\\u2014"]


def test_ascii_terminal_list_json_does_not_crash(dash_project: Project) -> None:
    proc = _script(
        "--list",
        "--json",
        "--project",
        str(dash_project.root),
        cwd=dash_project.root,
        PYTHONIOENCODING="ascii",
    )
    assert proc.returncode == 0, proc
    assert "Traceback" not in proc.stderr
    body = json.loads(proc.stdout)
    assert body["project"] == str(dash_project.root.resolve())
    assert "—" in body["project"]


def test_reader_closing_the_pipe_is_not_an_error(project: Project) -> None:
    project.create("a-first")
    # Enough rows to overflow a pipe buffer, so the writer really meets a closed pipe.
    for number in range(1500):
        folder = project.tasks / f"task-{number:05d}"
        folder.mkdir()
        (folder / ".state").write_text("new\n")
    proc = subprocess.Popen(
        [sys.executable, str(STATUS_PY), "--list", "--project", str(project.root)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=_env(),
    )
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()
    proc.stdout.close()
    try:
        err = proc.stderr.read().decode()
        returncode = proc.wait(timeout=20)
    finally:
        proc.kill()
    assert first.decode().startswith("Task ")
    assert returncode == 0, err
    assert "Traceback" not in err
    assert "BrokenPipeError" not in err


def test_pipe_closed_before_the_first_write_is_not_an_error(project: Project) -> None:
    project.create("x")
    proc = subprocess.Popen(
        [sys.executable, str(STATUS_PY), "--list", "--project", str(project.root)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=_env(),
    )
    assert proc.stdout is not None and proc.stderr is not None
    # The reader is gone before the process has even imported its modules.
    proc.stdout.close()
    try:
        err = proc.stderr.read().decode()
        returncode = proc.wait(timeout=20)
    finally:
        proc.kill()
    assert returncode == 0, err
    assert err == ""


# 13. A bare sub-task name.


def test_bare_subtask_name_suggests_the_full_name(project: Project, task_in) -> None:
    task_in("decomposition:approved", name="pay")
    project.create("pay/stripe")
    result = project.run("--task", "stripe")
    assert result.rc == 2
    assert result.err == (
        f"ERROR: Task 'stripe' not found in {project.tasks.resolve()}/ Did you mean 'pay/stripe'?\n"
    )


# 14. A broken automaton.toml fails every command.


@pytest.mark.parametrize(
    "args",
    [
        ("--task", "x"),
        ("--task", "x", "--approve"),
        ("--task", "x", "--transition", "research:approved"),
        ("--list",),
        ("--create-task", "y"),
        ("--upgrade",),
        ("--audit",),
        ("--validate-folder",),
    ],
    ids=" ".join,
)
def test_broken_config_fails_every_command(
    project: Project, task_in, args: tuple[str, ...]
) -> None:
    task_in("research:awaiting_approval", name="x")
    (project.tasks / "hand").mkdir()
    config = project.root / "automaton.toml"
    config.write_text('fail-on = "fatal"\n')
    before = _snapshot(project.root)
    result = project.run(*args)
    assert result.rc == 2, result
    assert result.err.startswith("ERROR: ")
    assert f"Key 'fail-on' in {config}" in result.err
    assert len(result.err.strip().splitlines()) == 1
    assert _snapshot(project.root) == before
    assert not (project.tasks / "y").exists()
    assert not (project.tasks / "hand" / ".state").exists()
