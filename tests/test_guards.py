"""The edit-time commands in depth: --can-edit, --scope-check, --same-session, --json.

Spec section 14 gives the texts and exit codes; DESIGN.md section 5 the v2.0 readings
(--can-edit without --task and with --file, framework files out of scope, paths resolved
first); docs/harness-integration.md the JSON shape. The last tests check that these
commands stay on the fast path: no typer, pluggy or click imported.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ENVELOPE, ROOT, STATUS_PY, Project, age_task, modules_imported, put

EDIT_RULE = "Code edits require implement or doc_review phase."
STATE_FILES = (".state", ".state.approvals", ".state.history", ".state.lock", ".state.tmp")


def root_of(project: Project) -> str:
    return str(project.root.resolve())


def wrong_phase(name: str, phase: str) -> str:
    return f"DENIED: Task '{name}' is in {phase} phase. {EDIT_RULE}\n"


@pytest.fixture
def source(project: Project) -> Path:
    """A source file of the project."""
    path = project.root / "src" / "app.py"
    path.parent.mkdir(parents=True)
    path.write_text("x = 1\n")
    return path


# --------------------------------------------------------------------------------------
# --can-edit without --task: project level (DESIGN.md section 5)
# --------------------------------------------------------------------------------------


def test_can_edit_without_task_denies_listing_tasks_and_phases(project: Project) -> None:
    put(project, "research", "alpha")
    put(project, "design:awaiting_approval", "beta")
    put(project, "complete", "done-one")
    result = project.run("--can-edit")
    assert result.rc == 1, result
    assert result.out == (
        f"DENIED: No task in project '{root_of(project)}' is in implement or doc_review phase "
        f"(alpha: research, beta: design). {EDIT_RULE}\n"
    )
    assert result.err == ""


def test_can_edit_without_task_allowed_when_some_task_is_in_an_edit_phase(
    project: Project,
) -> None:
    put(project, "research", "alpha")
    put(project, "doc_review", "beta")
    result = project.run("--can-edit")
    assert (result.rc, result.out, result.err) == (0, "ALLOWED\n", "")
    (project.task_dir("beta") / ".state").write_text("referee\n")
    assert project.run("--can-edit").rc == 1
    (project.task_dir("alpha") / ".state").write_text("implement\n")
    assert project.run("--can-edit").out == "ALLOWED\n"


def test_can_edit_without_task_counts_subtasks(project: Project) -> None:
    put(project, "decomposition:approved", "parent")
    put(project, "implement", "parent/part-a")
    assert project.run("--can-edit").out == "ALLOWED\n"


def test_can_edit_without_task_no_tasks_at_all(project: Project) -> None:
    project.tasks.mkdir(parents=True)
    result = project.run("--can-edit")
    assert result.rc == 1
    assert result.out == (
        f"DENIED: No task in project '{root_of(project)}' is in implement or doc_review "
        f"phase. {EDIT_RULE}\n"
    )


def test_can_edit_without_task_long_list_is_cut(project: Project) -> None:
    for index in range(7):
        put(project, "research", f"task-{index}")
    result = project.run("--can-edit")
    assert result.rc == 1
    assert "(task-0: research, task-1: research, task-2: research, task-3: research, " in (
        result.out
    )
    assert "task-4: research and 2 more)" in result.out
    assert "task-5" not in result.out


# --------------------------------------------------------------------------------------
# --can-edit --file
# --------------------------------------------------------------------------------------


def test_can_edit_file_in_scope_follows_the_task_phase(project: Project, source: Path) -> None:
    put(project, "research", "alpha")
    result = project.run("--can-edit", "--task", "alpha", "--file", str(source))
    assert (result.rc, result.out) == (1, wrong_phase("alpha", "research"))
    result = project.run("--can-edit", "--file", str(source))
    assert result.rc == 1
    assert result.out.startswith("DENIED: No task in project ")
    (project.task_dir("alpha") / ".state").write_text("implement\n")
    for args in (("--task", "alpha"), ()):
        result = project.run("--can-edit", *args, "--file", str(source))
        assert (result.rc, result.out, result.err) == (0, "ALLOWED\n", ""), args


def test_can_edit_file_out_of_scope_is_refused_even_in_implement(
    project: Project, tmp_path: Path
) -> None:
    put(project, "implement", "alpha")
    outside = tmp_path / "elsewhere.py"
    result = project.run("--can-edit", "--task", "alpha", "--file", str(outside))
    assert result.rc == 1
    assert result.out == (
        f"OUT_OF_SCOPE: File '{outside}' is outside project '{root_of(project)}'.\n"
    )


@pytest.mark.parametrize("filename", STATE_FILES)
@pytest.mark.parametrize("state", ["implement", "doc_review", "research"])
def test_can_edit_state_files_are_never_editable(
    project: Project, filename: str, state: str
) -> None:
    put(project, state, "alpha")
    target = project.task_dir("alpha") / filename
    for args in (("--task", "alpha"), ()):
        result = project.run("--can-edit", *args, "--file", str(target))
        assert result.rc == 1, (args, result)
        assert result.out == (
            f"DENIED: File '{target}' is workflow state: only status.py writes .state files.\n"
        )


def test_can_edit_state_file_of_a_subtask_is_never_editable(project: Project) -> None:
    put(project, "decomposition:approved", "parent")
    put(project, "implement", "parent/part-a")
    target = project.task_dir("parent/part-a") / ".state"
    result = project.run("--can-edit", "--task", "parent/part-a", "--file", str(target))
    assert result.rc == 1
    assert "is workflow state" in result.out


def test_can_edit_own_artifact_in_its_phase(project: Project) -> None:
    put(project, "research", "alpha")
    spec = project.task_dir("alpha") / "SPEC.md"
    result = project.run("--can-edit", "--task", "alpha", "--file", str(spec))
    assert (result.rc, result.out) == (0, "ALLOWED\n"), result
    # The file decides the task: no --task needed either.
    result = project.run("--can-edit", "--file", str(spec))
    assert (result.rc, result.out) == (0, "ALLOWED\n"), result


def test_can_edit_artifact_of_another_phase_is_denied(project: Project) -> None:
    put(project, "research", "alpha")
    implementation = project.task_dir("alpha") / "IMPLEMENTATION.md"
    for args in (("--task", "alpha"), ()):
        result = project.run("--can-edit", *args, "--file", str(implementation))
        assert result.rc == 1, result
        assert result.out == (
            "DENIED: IMPLEMENTATION.md belongs to the implement phase; "
            "task 'alpha' is in research phase.\n"
        )


def test_can_edit_earlier_artifact_is_denied_in_an_edit_phase(project: Project) -> None:
    put(project, "implement", "alpha")
    spec = project.task_dir("alpha") / "SPEC.md"
    result = project.run("--can-edit", "--task", "alpha", "--file", str(spec))
    assert result.rc == 1
    assert result.out == (
        "DENIED: SPEC.md belongs to the research phase; task 'alpha' is in implement phase.\n"
    )
    own = project.task_dir("alpha") / "IMPLEMENTATION.md"
    assert project.run("--can-edit", "--task", "alpha", "--file", str(own)).out == "ALLOWED\n"


def test_can_edit_subtask_artifact_follows_the_subtask(project: Project) -> None:
    put(project, "decomposition:approved", "parent")
    put(project, "research", "parent/part-a")
    folder = project.task_dir("parent/part-a")
    assert project.run("--can-edit", "--file", str(folder / "SPEC.md")).out == "ALLOWED\n"
    result = project.run("--can-edit", "--file", str(folder / "DESIGN.md"))
    assert result.rc == 1
    assert "task 'parent/part-a' is in research phase" in result.out


@pytest.mark.parametrize("filename", ["notes.md", "VRAM_CONFIG.md", "scratch.txt"])
def test_can_edit_other_files_in_a_task_folder_are_the_workflows(
    project: Project, filename: str
) -> None:
    """Issue 11: under .automaton/ only a task's own artifact, in its phase, is writable."""
    put(project, "implement", "alpha")
    note = project.task_dir("alpha") / filename
    result = project.run("--can-edit", "--task", "alpha", "--file", str(note))
    assert (result.rc, result.out) == (
        1,
        f"DENIED: File '{note}' is the workflow's own records under .automaton/; "
        "only the user changes it.\n",
    ), result


def test_can_edit_relative_file_resolves_against_the_project_given(
    project: Project, source: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`project.run` passes --project: a relative path is the project's, wherever the
    command runs (without --project, the current folder's: tests/test_status_paths.py)."""
    put(project, "implement", "alpha")
    monkeypatch.chdir(project.root / "src")
    assert project.run("--can-edit", "--task", "alpha", "--file", "src/app.py").out == ("ALLOWED\n")
    result = project.run("--can-edit", "--task", "alpha", "--file", ".automaton/tasks/alpha/.state")
    assert result.rc == 1
    assert "is workflow state" in result.out


def test_can_edit_state_file_reached_through_a_symlink_is_denied(project: Project) -> None:
    put(project, "implement", "alpha")
    link = project.root / "innocent.txt"
    link.symlink_to(project.task_dir("alpha") / ".state")
    result = project.run("--can-edit", "--task", "alpha", "--file", str(link))
    assert result.rc == 1
    assert "workflow state" in result.out


# --------------------------------------------------------------------------------------
# --scope-check: `..` and symlinks resolved first; the framework's own files
# --------------------------------------------------------------------------------------


def out_of_scope(file: str | Path, project: Project) -> str:
    return f"OUT_OF_SCOPE: File '{file}' is outside project '{root_of(project)}'.\n"


def test_scope_check_resolves_dot_dot(project: Project, source: Path) -> None:
    put(project, "implement", "alpha")
    escaping = f"{project.root}/src/../../outside.txt"
    result = project.run("--scope-check", "--file", escaping)
    assert (result.rc, result.out) == (1, out_of_scope(escaping, project))
    staying = f"{project.root}/src/../README.md"
    result = project.run("--scope-check", "--file", staying)
    assert (result.rc, result.out) == (0, "IN_SCOPE\n")


def test_scope_check_sibling_with_common_prefix_is_out(project: Project, tmp_path: Path) -> None:
    put(project, "implement", "alpha")
    sibling = tmp_path / f"{project.root.name}-evil" / "x.py"
    sibling.parent.mkdir()
    result = project.run("--scope-check", "--file", str(sibling))
    assert (result.rc, result.out) == (1, out_of_scope(sibling, project))


def test_scope_check_symlink_inside_pointing_outside_is_out(
    project: Project, tmp_path: Path
) -> None:
    put(project, "implement", "alpha")
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "key.txt").write_text("k\n")
    (project.root / "link-to-secret").symlink_to(secret)
    (project.root / "file-link").symlink_to(secret / "key.txt")
    for file in (project.root / "link-to-secret" / "key.txt", project.root / "file-link"):
        result = project.run("--scope-check", "--task", "alpha", "--file", str(file))
        assert (result.rc, result.out) == (1, out_of_scope(file, project)), file
        result = project.run("--can-edit", "--task", "alpha", "--file", str(file))
        assert (result.rc, result.out) == (1, out_of_scope(file, project)), file


def test_scope_check_symlink_outside_pointing_inside_is_in(
    project: Project, tmp_path: Path, source: Path
) -> None:
    put(project, "implement", "alpha")
    link = tmp_path / "shortcut.py"
    link.symlink_to(source)
    result = project.run("--scope-check", "--file", str(link))
    assert (result.rc, result.out) == (0, "IN_SCOPE\n")


def test_scope_check_relative_and_tilde_paths(
    project: Project, source: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    put(project, "implement", "alpha")
    monkeypatch.chdir(project.root / "src")
    # With --project (which `project.run` passes), a relative path is the project's: the
    # current folder has no say, and the refusal names the path as read.
    assert project.run("--scope-check", "--file", "src/app.py").out == "IN_SCOPE\n"
    result = project.run("--scope-check", "--file", "../x.py")
    assert (result.rc, result.out) == (1, out_of_scope(f"{project.root}/../x.py", project))
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    result = project.run("--scope-check", "--file", "~/notes.txt")
    assert (result.rc, result.out) == (1, out_of_scope("~/notes.txt", project))


def run_with_home(home: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HOME": str(home)}
    return subprocess.run(
        [sys.executable, str(STATUS_PY), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )


def test_framework_files_under_home_automaton_are_out_of_scope(tmp_path: Path) -> None:
    """v2.0 (DESIGN.md section 5): while working on a project, ~/.automaton is not in scope."""
    home = tmp_path / "home"
    framework = home / ".automaton" / "scripts" / "status.py"
    framework.parent.mkdir(parents=True)
    framework.write_text("# framework\n")
    project = tmp_path / "proj"
    (project / ".automaton" / "tasks").mkdir(parents=True)
    proc = run_with_home(
        home, "--scope-check", "--file", str(framework), "--project", str(project), cwd=project
    )
    assert proc.returncode == 1, proc
    assert proc.stdout == (
        f"OUT_OF_SCOPE: File '{framework}' is outside project '{project.resolve()}'.\n"
    )


def test_framework_files_inside_the_project_tree_are_still_out_of_scope(tmp_path: Path) -> None:
    """A project folder that holds HOME: the framework's files are in it, yet out of scope."""
    project = tmp_path / "proj"
    (project / ".automaton" / "tasks").mkdir(parents=True)
    home = project / "users" / "me"
    framework = home / ".automaton" / "rules.md"
    framework.parent.mkdir(parents=True)
    framework.write_text("# rules\n")
    ordinary = project / "users" / "me" / "code.py"
    ordinary.write_text("x = 1\n")
    proc = run_with_home(
        home, "--scope-check", "--file", str(framework), "--project", str(project), cwd=project
    )
    assert proc.returncode == 1, proc
    assert proc.stdout.startswith("OUT_OF_SCOPE: ")
    proc = run_with_home(
        home, "--scope-check", "--file", str(ordinary), "--project", str(project), cwd=project
    )
    assert (proc.returncode, proc.stdout) == (0, "IN_SCOPE\n"), proc


def test_framework_files_are_in_scope_when_working_on_the_framework(tmp_path: Path) -> None:
    home = tmp_path / "home"
    framework = home / ".automaton" / "scripts" / "status.py"
    framework.parent.mkdir(parents=True)
    framework.write_text("# framework\n")
    (home / ".automaton" / "tasks").mkdir()
    proc = run_with_home(
        home,
        "--scope-check",
        "--file",
        str(framework),
        "--project",
        str(home / ".automaton"),
        cwd=tmp_path,
    )
    assert (proc.returncode, proc.stdout) == (0, "IN_SCOPE\n"), proc


# --------------------------------------------------------------------------------------
# --same-session: window configurable
# --------------------------------------------------------------------------------------


def test_same_session_default_window_is_30_minutes(project: Project) -> None:
    project.create("alpha")
    age_task(project, "alpha", 25)
    assert project.run("--same-session", "--task", "alpha").out == "SAME_SESSION\n"
    age_task(project, "alpha", 35)
    result = project.run("--same-session", "--task", "alpha")
    assert (result.rc, result.out) == (0, "DIFFERENT_SESSION\n")


def test_same_session_minutes_config_is_honoured(project: Project) -> None:
    project.create("alpha")
    age_task(project, "alpha", 60)
    assert project.run("--same-session", "--task", "alpha").rc == 0
    (project.root / "automaton.toml").write_text("same-session-minutes = 120\n")
    result = project.run("--same-session", "--task", "alpha")
    assert (result.rc, result.out) == (1, "SAME_SESSION\n")
    (project.root / "automaton.toml").write_text("same-session-minutes = 1\n")
    age_task(project, "alpha", 5)
    result = project.run("--same-session", "--task", "alpha")
    assert (result.rc, result.out) == (0, "DIFFERENT_SESSION\n")


def test_same_session_minutes_config_through_the_script(project: Project) -> None:
    project.create("alpha")
    age_task(project, "alpha", 60)
    (project.root / "automaton.toml").write_text("same-session-minutes = 90\n")
    result = project.script("--same-session", "--task", "alpha", "--project", str(project.root))
    assert (result.rc, result.out) == (1, "SAME_SESSION\n"), result


def test_same_session_bad_window_is_a_config_error(project: Project) -> None:
    project.create("alpha")
    (project.root / "automaton.toml").write_text("same-session-minutes = 0\n")
    result = project.run("--same-session", "--task", "alpha")
    assert result.rc == 2
    assert "same-session-minutes" in result.err


# --------------------------------------------------------------------------------------
# --json
# --------------------------------------------------------------------------------------

DECISION = {"decision", "allowed", "reason", "message"}


def one_object(result) -> dict:
    data = json.loads(result.out)
    assert isinstance(data, dict)
    assert result.err == ""
    assert set(data) >= set(ENVELOPE) | DECISION, data
    assert data["schema_version"] == 1
    assert data["tool"] == "automaton-rules"
    assert data["exit_code"] == result.rc
    assert data["ok"] is (result.rc == 0)
    return data


def test_json_can_edit_denied_and_allowed(project: Project) -> None:
    put(project, "research", "alpha")
    result = project.run("--can-edit", "--task", "alpha", "--json")
    assert result.rc == 1
    data = one_object(result)
    assert data["command"] == "can-edit"
    assert (data["decision"], data["allowed"], data["reason"]) == ("DENIED", False, "wrong-phase")
    assert data["message"] == wrong_phase("alpha", "research").rstrip("\n")
    assert (data["task"], data["state"]) == ("alpha", "research")

    (project.task_dir("alpha") / ".state").write_text("implement\n")
    result = project.run("--can-edit", "--task", "alpha", "--json")
    data = one_object(result)
    assert (result.rc, data["decision"], data["allowed"]) == (0, "ALLOWED", True)
    assert (data["reason"], data["message"]) == ("allowed", "ALLOWED")


@pytest.mark.parametrize(
    ("state", "file", "reason"),
    [
        ("implement", ".automaton/tasks/alpha/.state", "state-file"),
        ("research", ".automaton/tasks/alpha/IMPLEMENTATION.md", "artifact-phase"),
        ("research", None, "no-edit-phase"),
    ],
)
def test_json_can_edit_reasons(project: Project, state: str, file: str | None, reason: str):
    put(project, state, "alpha")
    args = ("--file", str(project.root / file)) if file else ()
    result = project.run("--can-edit", *args, "--json")
    data = one_object(result)
    assert (result.rc, data["decision"], data["allowed"], data["reason"]) == (
        1,
        "DENIED",
        False,
        reason,
    )
    assert data["message"].startswith("DENIED: ")


def test_json_scope_check(project: Project, tmp_path: Path) -> None:
    put(project, "research", "alpha")
    result = project.run("--scope-check", "--file", str(tmp_path / "x"), "--json")
    data = one_object(result)
    assert data["command"] == "scope-check"
    assert (result.rc, data["decision"], data["allowed"], data["reason"]) == (
        1,
        "OUT_OF_SCOPE",
        False,
        "out-of-scope",
    )
    assert data["message"] == out_of_scope(tmp_path / "x", project).rstrip("\n")
    result = project.run("--scope-check", "--file", str(project.root / "a.py"), "--json")
    data = one_object(result)
    assert (result.rc, data["decision"], data["reason"]) == (0, "IN_SCOPE", "in-scope")


def test_json_same_session_and_can_create_task(project: Project) -> None:
    project.create("alpha")
    result = project.run("--same-session", "--task", "alpha", "--json")
    data = one_object(result)
    assert data["command"] == "same-session"
    assert (result.rc, data["decision"], data["allowed"], data["reason"]) == (
        1,
        "SAME_SESSION",
        False,
        "same-session",
    )
    age_task(project, "alpha", 60)
    data = one_object(project.run("--same-session", "--task", "alpha", "--json"))
    assert (data["decision"], data["reason"]) == ("DIFFERENT_SESSION", "different-session")

    result = project.run("--can-create-task", "--json")
    data = one_object(result)
    assert data["command"] == "can-create-task"
    assert (result.rc, data["decision"], data["allowed"]) == (0, "ALLOWED", True)


def test_json_through_the_script_is_one_object(project: Project) -> None:
    put(project, "research", "alpha")
    result = project.script(
        "--can-edit", "--task", "alpha", "--json", "--project", str(project.root)
    )
    assert result.rc == 1, result
    assert one_object(result)["reason"] == "wrong-phase"


# --------------------------------------------------------------------------------------
# Bad input: exit 2
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--can-edit", "--task", "nope"), "ERROR: Task 'nope' not found"),
        (("--same-session", "--task", "nope"), "ERROR: Task 'nope' not found"),
        (("--scope-check", "--task", "nope", "--file", "x.py"), "ERROR: Task 'nope' not found"),
        (("--scope-check",), "ERROR: --scope-check needs --file PATH."),
        (("--scope-check", "--task", "alpha"), "ERROR: --scope-check needs --file PATH."),
        (("--same-session",), "ERROR: --same-session needs --task NAME."),
        (("--can-edit", "--task", "Bad Name"), "ERROR: Invalid task name"),
        (("--can-edit", "--task", "../alpha"), "ERROR: Invalid task name"),
        (("--can-edit", "--scope-check", "--task", "alpha"), "ERROR: "),
        (("--can-edit", "--task"), "ERROR: "),
        (("--list", "--file", "x.py"), "ERROR: --file goes with --can-edit or --scope-check."),
    ],
)
def test_bad_input_exits_2(project: Project, args: tuple[str, ...], message: str) -> None:
    put(project, "research", "alpha")
    result = project.run(*args)
    assert result.rc == 2, result
    assert result.out == ""
    assert result.err.startswith(message), result
    assert "Traceback" not in result.err


def test_bad_input_with_json_is_one_error_object(project: Project) -> None:
    put(project, "research", "alpha")
    result = project.run("--can-edit", "--task", "nope", "--json")
    assert result.rc == 2
    data = json.loads(result.out)
    assert (data["ok"], data["exit_code"], data["error"]["code"]) == (
        False,
        2,
        "task-not-found",
    )


def test_untracked_task_is_exit_2_with_the_upgrade_hint(project: Project) -> None:
    folder = project.task_dir("hand-made")
    folder.mkdir(parents=True)
    (folder / "IMPLEMENTATION.md").write_text("# impl\n")
    result = project.run("--can-edit", "--task", "hand-made")
    assert result.rc == 2
    assert "'implement'" in result.err and "--upgrade" in result.err
    assert not (folder / ".state").exists()


def test_untracked_task_with_infer_is_adopted_by_the_hook(project: Project) -> None:
    (project.root / "automaton.toml").write_text('untracked = "infer"\n')
    folder = project.task_dir("hand-made")
    folder.mkdir(parents=True)
    (folder / "IMPLEMENTATION.md").write_text("# impl\n")
    result = project.run("--can-edit", "--task", "hand-made")
    assert (result.rc, result.out) == (0, "ALLOWED\n"), result
    assert (folder / ".state").read_text() == "implement\n"


def test_no_project_is_exit_2(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    result = Project(empty).run("--can-edit", "--task", "alpha")
    assert result.rc == 2
    assert result.err.startswith("ERROR: No .automaton/tasks/ folder found in ")


# --------------------------------------------------------------------------------------
# The fast path: no typer, pluggy or click on an edit-time command
# --------------------------------------------------------------------------------------

HEAVY = ("typer", "pluggy", "click")


def imported(*args: str, cwd: Path | None = None) -> tuple[int, str, set[str]]:
    """`status.py ARGS` under `-X importtime`: its exit code, stdout and the top-level
    names of the modules it imported."""
    code, out, names = modules_imported([str(STATUS_PY), *args], cwd or ROOT)
    return code, out, {name.split(".")[0] for name in names}


def test_the_import_parser_sees_typer_on_the_full_path(project: Project) -> None:
    """Sanity check of the check below: a line typer reads (`--task=NAME`: the hand reader
    takes a flag and its value as two words only) imports typer, and the rules of a project
    that lists plugins run through pluggy (click may be vendored by typer, so it is not
    required here)."""
    put(project, "research", "alpha")
    (project.root / "rules.py").write_text(
        "from automaton_rules import hookimpl\n\n\n"
        "@hookimpl\ndef register_rules(register):\n    pass\n"
    )
    (project.root / "automaton.toml").write_text('plugins = ["rules.py"]\n')
    code, out, names = imported("--task=alpha", "--project", str(project.root))
    assert code == 0, out
    assert {"typer", "pluggy"} <= names


@pytest.mark.parametrize(
    "args",
    [
        ("--can-edit", "--task", "alpha"),
        ("--can-edit",),
        ("--can-edit", "--task", "alpha", "--file", "src/app.py", "--json"),
        ("--scope-check", "--task", "alpha", "--file", "src/app.py"),
        ("--scope-check", "--file", "/etc/passwd"),
        ("--same-session", "--task", "alpha"),
        ("--can-create-task",),
    ],
)
def test_fast_path_imports_neither_typer_nor_pluggy_nor_click(
    project: Project, args: tuple[str, ...]
) -> None:
    put(project, "research", "alpha")
    (project.root / "src").mkdir()
    code, out, names = imported(*args, "--project", str(project.root), cwd=project.root)
    assert code in (0, 1), out
    assert out.splitlines()[0].split(":")[0] in (
        "ALLOWED",
        "DENIED",
        "IN_SCOPE",
        "OUT_OF_SCOPE",
        "SAME_SESSION",
        "DIFFERENT_SESSION",
        "{",
    ), out
    assert not (names & set(HEAVY)), sorted(names & set(HEAVY))


def test_fast_path_answers_as_the_full_path_does(project: Project) -> None:
    put(project, "research", "alpha")
    code, out, _ = imported("--can-edit", "--task", "alpha", "--project", str(project.root))
    assert (code, out) == (1, wrong_phase("alpha", "research"))


def test_can_edit_help_still_uses_the_full_parser(project: Project) -> None:
    result = project.script("--can-edit", "--help")
    assert result.rc == 0, result
    assert "Usage:" in result.out
    assert "--can-edit" in result.out and "--scope-check" in result.out
    assert "Traceback" not in result.out + result.err
