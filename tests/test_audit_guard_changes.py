"""The audit's fifth category, the guard's own history (issue 11, section 2), and the git
pre-commit hook that lets a person commit the guard's files (section 1).

Every audit runs `status.py --audit --json` (and the text report beside it) in a temporary
git repository, as CI does; the hooks run through git itself (`core.hooksPath`). Commit
times are fixed with `when`, so each finding's date is known without reading the clock
twice.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from helpers import ROOT, STATUS_PY, git_with_hooks

from automaton_rules.engine import gitlog
from automaton_rules.testing import Audit, AutomatonProject

WHEN = 1_750_000_000  # a fixed second: commits made at it carry a known date
DATE = datetime.fromtimestamp(WHEN, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
AUTHOR = "Mallory Agent"
HEADING = "=== Category 5: Changes to the Guard ==="


# --------------------------------------------------------------------------- helpers


def commit_as(
    project: AutomatonProject,
    files: dict[str, str | None],
    message: str,
    *,
    author: str = AUTHOR,
    when: int = WHEN,
) -> str:
    """Write (text) or delete (None) files and commit them as `author` at `when`."""
    for path, text in files.items():
        target = project.root / path
        if text is None:
            project.git("rm", "-r", "-q", "--", path)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
        project.git("add", "--", path)
    project.git(
        "commit",
        "-q",
        "--no-verify",
        f"--author={author} <m@example.com>",
        "-m",
        message,
        when=when,
    )
    return project.git("rev-parse", "HEAD").strip()


def start_repository(project: AutomatonProject) -> None:
    """A project (its tasks folder) in a repository with one source file, committed before
    anything the tests do."""
    project.tasks_dir.mkdir(parents=True, exist_ok=True)
    project.commit({"src/app.py": "x = 1\n"}, "init", when=WHEN - 3600)


def entered(project: AutomatonProject, name: str) -> int:
    """When a task entered its state, as its history recorded it."""
    line = (project.task_dir(name) / ".state.history").read_text().splitlines()[-1]
    moment = datetime.strptime(json.loads(line)["time"], "%Y-%m-%dT%H:%M:%SZ")
    return int(moment.replace(tzinfo=timezone.utc).timestamp())


def guard_findings(audit: Audit) -> list[dict[str, Any]]:
    return [f for f in audit.findings if f["category"] == "Changes to the Guard"]


def assert_signed(finding: dict[str, Any], sha: str) -> None:
    """The commit, its author and its date, in the data and in the message."""
    assert finding["data"]["commit"] == sha
    assert finding["data"]["author"] == AUTHOR
    assert finding["data"]["date"] == DATE
    assert f"on {DATE} in commit {sha[:7]} by {AUTHOR}" in finding["message"]


def category_5(text: str) -> list[str]:
    lines = text.splitlines()
    start = lines.index(HEADING) + 1
    return lines[start : lines.index("", start)]


# ------------------------------------------------------------------ AR501: guard files


def test_a_commit_to_automaton_toml_is_shown_with_commit_author_and_date(
    automaton_project: AutomatonProject,
) -> None:
    start_repository(automaton_project)
    sha = commit_as(automaton_project, {"automaton.toml": 'ignore = ["AR1"]\n'}, "quieter")
    audit = automaton_project.audit()
    (finding,) = guard_findings(audit)
    assert (finding["code"], finding["severity"], finding["path"]) == (
        "AR501",
        "warning",
        "automaton.toml",
    )
    assert finding["data"]["kind"] == "the workflow's configuration"
    assert_signed(finding, sha)
    assert audit.exit_code == 0  # a warning: a reviewer sees it, CI does not fail on it
    assert category_5(audit.text) == [f"[WARN] (project): {finding['message']}"]


def test_a_change_to_the_tool_automaton_table_is_shown_and_the_rest_of_pyproject_is_not(
    automaton_project: AutomatonProject,
) -> None:
    start_repository(automaton_project)
    base = '[project]\nname = "app"\n'
    commit_as(automaton_project, {"pyproject.toml": base}, "packaging", when=WHEN - 60)
    commit_as(
        automaton_project, {"pyproject.toml": base.replace("app", "app2")}, "rename", when=WHEN - 30
    )
    table = base.replace("app", "app2") + "\n[tool.automaton]\nsame-session-minutes = 45\n"
    sha = commit_as(automaton_project, {"pyproject.toml": table}, "settings")
    commit_as(
        automaton_project,
        {"pyproject.toml": table.replace("app2", "app3")},
        "rename again",
        when=WHEN + 30,
    )
    (finding,) = guard_findings(automaton_project.audit())
    assert (finding["code"], finding["path"]) == ("AR501", "pyproject.toml")
    assert finding["message"].startswith("the [tool.automaton] table of pyproject.toml")
    assert_signed(finding, sha)


def test_removing_the_tool_automaton_table_is_a_change_to_it(
    automaton_project: AutomatonProject,
) -> None:
    start_repository(automaton_project)
    table = '[project]\nname = "app"\n\n[tool.automaton]\nsame-session-minutes = 45\n'
    first = commit_as(automaton_project, {"pyproject.toml": table}, "settings", when=WHEN - 60)
    second = commit_as(
        automaton_project, {"pyproject.toml": '[project]\nname = "app"\n'}, "drop settings"
    )
    shas = [f["data"]["commit"] for f in guard_findings(automaton_project.audit())]
    assert sorted(shas) == sorted([first, second])


def test_a_harness_configuration_change_is_shown(automaton_project: AutomatonProject) -> None:
    start_repository(automaton_project)
    sha = commit_as(
        automaton_project,
        {".claude/settings.json": '{"disableAllHooks": true}\n', "src/app.py": "x = 2\n"},
        "hooks off",
    )
    (finding,) = guard_findings(automaton_project.audit())
    assert (finding["code"], finding["path"]) == ("AR501", ".claude/settings.json")
    assert finding["data"]["kind"] == "a harness setting that runs the workflow's hooks"
    assert_signed(finding, sha)


def test_a_deleted_harness_plugin_is_shown_as_deleted(automaton_project: AutomatonProject) -> None:
    start_repository(automaton_project)
    plugin = ".opencode/plugin/automaton-guard.js"
    commit_as(automaton_project, {plugin: "export default {}\n"}, "guard", when=WHEN - 60)
    sha = commit_as(automaton_project, {plugin: None}, "unguard")
    deleted = [f for f in guard_findings(automaton_project.audit()) if f["data"]["commit"] == sha]
    assert [f["message"].split(" was ")[1][:7] for f in deleted] == ["deleted"]


def test_a_committed_hooks_folder_named_by_core_hookspath_is_the_guards(
    automaton_project: AutomatonProject,
) -> None:
    start_repository(automaton_project)
    automaton_project.git("config", "core.hooksPath", "hooks")
    sha = commit_as(automaton_project, {"hooks/pre-commit": "#!/bin/sh\nexit 0\n"}, "no hook")
    commit_as(automaton_project, {"tools/pre-commit": "#!/bin/sh\n"}, "not a hook", when=WHEN + 1)
    (finding,) = guard_findings(automaton_project.audit())
    assert (finding["path"], finding["data"]["kind"]) == (
        "hooks/pre-commit",
        "where git's hooks live or which run",
    )
    assert_signed(finding, sha)


def test_the_signers_file_is_shown(automaton_project: AutomatonProject) -> None:
    start_repository(automaton_project)
    sha = commit_as(
        automaton_project, {".automaton/allowed_signers": "me ssh-ed25519 AAAA\n"}, "trust me"
    )
    (finding,) = guard_findings(automaton_project.audit())
    assert (finding["path"], finding["data"]["kind"]) == (
        ".automaton/allowed_signers",
        "the approval signers file",
    )
    assert_signed(finding, sha)


def test_a_guard_file_committed_during_research_is_shown_not_unauthorized(
    automaton_project: AutomatonProject,
) -> None:
    """The guard's files are not source: category 3 leaves them to category 5; the rest
    of a pyproject.toml is still source there."""
    start_repository(automaton_project)
    automaton_project.task("researching", "research", files=["SPEC.md"])
    automaton_project.git("add", "-A")
    automaton_project.git("commit", "-q", "--no-verify", "-m", "task", when=WHEN - 60)
    late = entered(automaton_project, "researching") + 60  # a commit made in research
    sha = commit_as(
        automaton_project,
        {"automaton.toml": "jobs = 1\n", ".claude/settings.json": "{}\n"},
        "settings",
        when=late,
    )
    commit_as(automaton_project, {"pyproject.toml": "[project]\n"}, "packaging", when=late + 1)
    audit = automaton_project.audit()
    assert [(f["code"], f["path"]) for f in audit.findings] == [
        ("AR301", "pyproject.toml"),
        ("AR501", ".claude/settings.json"),
        ("AR501", "automaton.toml"),
    ]
    assert {f["data"]["commit"] for f in audit.findings if f["code"] == "AR501"} == {sha}


def test_task_records_and_source_are_not_the_guards_history(
    automaton_project: AutomatonProject,
) -> None:
    """status.py writes `.automaton/` with every command; other categories hold those."""
    start_repository(automaton_project)
    automaton_project.task("building", "implement")
    commit_as(automaton_project, {"src/app.py": "x = 3\n", ".automaton/notes.md": "n\n"}, "work")
    automaton_project.git("add", "-A")
    automaton_project.git("commit", "-q", "--no-verify", "-m", "task files")
    audit = automaton_project.audit()
    assert guard_findings(audit) == []
    assert category_5(audit.text) == [
        "[PASS] (project): no commit changed the guard's files and no task folder was removed"
    ]


def test_a_project_below_the_repository_top_reads_its_own_pyproject(tmp_path: Path) -> None:
    """git names files from the repository's top; the table is read at the project's path."""
    project = AutomatonProject(tmp_path / "repo" / "app")
    project.tasks_dir.mkdir(parents=True)
    hook_git(tmp_path / "repo", "init", "-q")
    pyproject = project.root / "pyproject.toml"
    shas = []
    for number, text in enumerate(("", "[tool.automaton]\njobs = 1\n")):
        pyproject.write_text('[project]\nname = "a"\n' + text)
        hook_git(project.root, "add", "pyproject.toml")
        hook_git(project.root, "commit", "-q", "--no-verify", "-m", f"c{number}")
        shas.append(hook_git(project.root, "rev-parse", "HEAD").stdout.strip())
    (finding,) = guard_findings(project.audit())
    assert (finding["path"], finding["data"]["commit"]) == ("pyproject.toml", shas[1])


# ------------------------------------------------------------ AR502: evidence removed


def test_a_deleted_task_folder_is_an_error_with_commit_author_and_date(
    automaton_project: AutomatonProject,
) -> None:
    start_repository(automaton_project)
    automaton_project.task("t1", "implement")
    automaton_project.task("kept", "research")
    automaton_project.git("add", "-A")
    automaton_project.git("commit", "-q", "--no-verify", "-m", "tasks", when=WHEN - 60)
    sha = commit_as(automaton_project, {".automaton/tasks/t1": None}, "tidy up")
    audit = automaton_project.audit()
    (finding,) = guard_findings(audit)
    assert (finding["code"], finding["severity"], finding["task"], finding["path"]) == (
        "AR502",
        "error",
        "t1",
        ".automaton/tasks/t1",
    )
    assert finding["message"] == (
        f"task folder .automaton/tasks/t1 was deleted on {DATE} in commit {sha[:7]} "
        f"by {AUTHOR}: its evidence is gone"
    )
    assert finding["correction"] == f"restore it: git checkout {sha[:7]}^ -- .automaton/tasks/t1"
    assert_signed(finding, sha)
    assert audit.exit_code == 1
    assert any(line.startswith("[FAIL] t1: task folder") for line in category_5(audit.text))
    assert "  - t1: the guard's history (task folder removed in " + sha[:7] + ")" in (
        audit.text.splitlines()
    )


def test_the_correction_restores_the_folder(automaton_project: AutomatonProject) -> None:
    start_repository(automaton_project)
    automaton_project.task("t1", "research")
    automaton_project.task("kept", "research")
    automaton_project.git("add", "-A")
    automaton_project.git("commit", "-q", "--no-verify", "-m", "tasks", when=WHEN - 60)
    commit_as(automaton_project, {".automaton/tasks/t1": None}, "tidy up")
    (finding,) = guard_findings(automaton_project.audit())
    command = finding["correction"].removeprefix("restore it: ").split()
    automaton_project.git(*command[1:])
    assert guard_findings(automaton_project.audit()) == []
    assert automaton_project.run("--task", "t1").exit_code == 0


def test_a_moved_task_folder_is_reported_and_a_renamed_stray_folder_is_not(
    automaton_project: AutomatonProject,
) -> None:
    """A folder no task can be named (AR402) is renamed on that rule's advice: no loss."""
    start_repository(automaton_project)
    automaton_project.task("t1", "research")
    automaton_project.folder("Fix_Login", ["SPEC.md"])
    automaton_project.git("add", "-A")
    automaton_project.git("commit", "-q", "--no-verify", "-m", "tasks", when=WHEN - 60)
    automaton_project.git("mv", ".automaton/tasks/t1", ".automaton/tasks/t2")
    automaton_project.git("mv", ".automaton/tasks/Fix_Login", ".automaton/tasks/fix-login")
    automaton_project.git("commit", "-q", "--no-verify", "-m", "renames", when=WHEN)
    assert [f["task"] for f in guard_findings(automaton_project.audit())] == ["t1"]


def test_a_removed_sub_task_is_named_parent_slash_sub(automaton_project: AutomatonProject) -> None:
    start_repository(automaton_project)
    automaton_project.task("parent", "decomposition:approved")
    automaton_project.task("parent/child", "research")
    automaton_project.task("parent/other", "research")
    automaton_project.git("add", "-A")
    automaton_project.git("commit", "-q", "--no-verify", "-m", "tasks", when=WHEN - 60)
    sha = commit_as(automaton_project, {".automaton/tasks/parent/subtasks/child": None}, "drop")
    (finding,) = guard_findings(automaton_project.audit())
    assert (finding["task"], finding["path"]) == (
        "parent/child",
        ".automaton/tasks/parent/subtasks/child",
    )
    assert_signed(finding, sha)


def test_a_removed_parent_is_reported_once_for_its_sub_tasks(
    automaton_project: AutomatonProject,
) -> None:
    start_repository(automaton_project)
    automaton_project.task("parent", "decomposition:approved")
    automaton_project.task("parent/child", "research")
    automaton_project.task("kept", "research")
    automaton_project.git("add", "-A")
    automaton_project.git("commit", "-q", "--no-verify", "-m", "tasks", when=WHEN - 60)
    commit_as(automaton_project, {".automaton/tasks/parent": None}, "drop")
    assert [f["task"] for f in guard_findings(automaton_project.audit())] == ["parent"]


def test_a_task_folder_removed_and_not_committed_is_reported(
    automaton_project: AutomatonProject,
) -> None:
    start_repository(automaton_project)
    automaton_project.task("t1", "research")
    automaton_project.task("kept", "research")
    automaton_project.git("add", "-A")
    automaton_project.git("commit", "-q", "--no-verify", "-m", "tasks", when=WHEN - 60)
    shutil.rmtree(automaton_project.task_dir("t1"))  # what `rm -rf .automaton/tasks/t1` does
    (finding,) = guard_findings(automaton_project.audit())
    assert (finding["code"], finding["task"]) == ("AR502", "t1")
    assert finding["message"] == (
        "task folder .automaton/tasks/t1 was deleted and not committed yet: its evidence is gone"
    )
    assert finding["correction"] == "restore it: git checkout HEAD -- .automaton/tasks/t1"


def test_a_task_folder_that_lost_a_file_is_not_gone(automaton_project: AutomatonProject) -> None:
    start_repository(automaton_project)
    automaton_project.task("t1", "research", files=["SPEC.md"])
    automaton_project.git("add", "-A")
    automaton_project.git("commit", "-q", "--no-verify", "-m", "tasks", when=WHEN - 60)
    commit_as(automaton_project, {".automaton/tasks/t1/SPEC.md": None}, "drop one file")
    assert [f for f in guard_findings(automaton_project.audit()) if f["code"] == "AR502"] == []


def test_a_folder_removed_and_made_again_is_not_gone(automaton_project: AutomatonProject) -> None:
    start_repository(automaton_project)
    automaton_project.task("t1", "research")
    automaton_project.task("kept", "research")
    automaton_project.git("add", "-A")
    automaton_project.git("commit", "-q", "--no-verify", "-m", "tasks", when=WHEN - 60)
    commit_as(automaton_project, {".automaton/tasks/t1": None}, "drop")
    automaton_project.task("t1", "new")
    assert guard_findings(automaton_project.audit()) == []


def test_a_file_name_cannot_hide_a_commit_from_the_log(automaton_project: AutomatonProject) -> None:
    """A file named like the log's record marker is read as a name, not as a commit."""
    start_repository(automaton_project)
    automaton_project.task("t1", "research")
    automaton_project.task("kept", "research")
    automaton_project.git("add", "-A")
    automaton_project.git("commit", "-q", "--no-verify", "-m", "tasks", when=WHEN - 60)
    decoy = "\x1e" + "0" * 40 + " x y\nfake\n"
    (automaton_project.root / decoy).write_text("x\n")
    automaton_project.git("add", "--", decoy)
    sha = commit_as(automaton_project, {".automaton/tasks/t1": None}, "hide it")
    (finding,) = guard_findings(automaton_project.audit())
    assert finding["data"]["commit"] == sha


# ------------------------------------------------------------- the category and CLI


def test_the_fifth_category_prints_after_the_specifications_four(
    automaton_project: AutomatonProject,
) -> None:
    start_repository(automaton_project)
    commit_as(automaton_project, {"automaton.toml": "jobs = 1\n"}, "settings")
    text = automaton_project.run("--audit").out
    headings = [line for line in text.splitlines() if line.startswith("=== Category")]
    assert headings[-1] == HEADING
    assert len(headings) == 5
    report = automaton_project.audit().report
    assert list(report["summary"]["by_category"])[-1] == "Changes to the Guard"
    assert report["summary"]["by_category"]["Changes to the Guard"] == 1


def test_outside_git_the_git_rules_skip_and_ar504_still_judges(
    automaton_project: AutomatonProject,
) -> None:
    automaton_project.task("t1", "research")
    audit = automaton_project.audit()
    assert "Changes to the Guard" not in audit.report["summary"]["skipped"]
    skipped = audit.report["summary"]["skipped_rules"]
    assert [code for code in skipped if code.startswith("AR5")] == ["AR501", "AR502", "AR503"]
    assert category_5(audit.text) == [
        "[SKIP] (project): AR501 skipped: not a git repository",
        "[SKIP] (project): AR502 skipped: not a git repository",
        "[SKIP] (project): AR503 skipped: not a git repository",
        "[PASS] (project): no violations (AR504)",
    ]


def test_list_rules_names_ar501_and_ar502(automaton_project: AutomatonProject) -> None:
    start_repository(automaton_project)
    lines = automaton_project.run("--list-rules").out.splitlines()
    codes = {
        line.split()[0]: (line, lines[n + 1]) for n, line in enumerate(lines) if line[:2] == "AR"
    }
    assert codes["AR501"][0].split()[1:5] == ["warning", "Changes", "to", "the"]
    assert codes["AR502"][0].split()[1] == "error"
    for code in ("AR501", "AR502"):
        assert "plugin automaton_rules.builtin.guard_changes" in codes[code][1]


def test_the_audit_as_ci_runs_it(automaton_project: AutomatonProject) -> None:
    """`python status.py --audit --json` in a subprocess: the JSON CI reads."""
    start_repository(automaton_project)
    automaton_project.task("t1", "research")
    automaton_project.task("kept", "research")
    automaton_project.git("add", "-A")
    automaton_project.git("commit", "-q", "--no-verify", "-m", "tasks", when=WHEN - 60)
    config = commit_as(automaton_project, {"automaton.toml": "jobs = 1\n"}, "settings")
    removed = commit_as(automaton_project, {".automaton/tasks/t1": None}, "gone", when=WHEN + 1)
    proc = subprocess.run(
        [
            sys.executable,
            str(STATUS_PY),
            "--audit",
            "--json",
            "--project",
            str(automaton_project.root),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 1, proc.stderr
    found = {
        f["code"]: f["data"]["commit"]
        for f in json.loads(proc.stdout)["findings"]
        if f["category"] == "Changes to the Guard"
    }
    assert found == {"AR501": config, "AR502": removed}


def test_the_git_log_parse_gives_author_and_deletions() -> None:
    """The Python API: one pass over `git log -z --name-status` in gitlog's format."""
    header = "\x1e" + "a" * 40 + " 200 100\nAnn Author\nt1,t2"
    output = f"{header}\0\nM\0src/x.py\0D\0.automaton/tasks/t1/SPEC.md\0" + (
        "\x1e" + "b" * 40 + " 100 100\nBob\n\0"
    )
    older, newer = gitlog.parse_log(output)
    assert (older.sha, older.files, older.author) == ("b" * 40, (), "Bob")
    assert newer.files == ("src/x.py", ".automaton/tasks/t1/SPEC.md")
    assert newer.deleted == (".automaton/tasks/t1/SPEC.md",)
    assert (newer.author, newer.tasks, newer.times) == ("Ann Author", ("t1", "t2"), (200, 100))


@pytest.mark.parametrize(
    ("relpath", "kind"),
    [
        ("automaton.toml", "the workflow's configuration"),
        ("pyproject.toml", "the workflow's configuration ([tool.automaton] of pyproject.toml)"),
        (".claude/settings.local.json", "a harness setting that runs the workflow's hooks"),
        (".opencode/plugins/x.js", "a harness setting that runs the workflow's hooks"),
        ("githooks/pre-commit", "where git's hooks live or which run"),
        (".automaton/allowed_signers", "the approval signers file"),
        (".automaton/tasks/t1/SPEC.md", "the workflow's own records under .automaton/"),
        ("src/app.py", None),
        ("sub/automaton.toml", None),
        (".claude/commands/x.md", None),
        ("githooks-old/pre-commit", None),
    ],
)
def test_kind_of_relpath(tmp_path: Path, relpath: str, kind: str | None) -> None:
    """The Python API both the audit and the pre-commit hook classify git's paths with."""
    from automaton_rules.core import guard_files
    from automaton_rules.core.config import Config
    from automaton_rules.core.project import project_at

    project = project_at(tmp_path)
    settings = Config(path=tmp_path / "automaton.toml")
    named = guard_files.named_relpaths(project, settings, [tmp_path / "githooks"])
    assert guard_files.kind_of_relpath(relpath, named) == kind


# ------------------------------------------------------ the pre-commit hook (section 1)


def hook_git(root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """git as a person runs it, with the package's hooks on PATH."""
    return git_with_hooks(root, *args, check=check, author=("Person", "p@example.com"))


GUARD_FILES = {
    "automaton.toml": "jobs = 1\n",
    ".claude/settings.json": "{}\n",
    ".claude/settings.local.json": "{}\n",
    ".codex/hooks.json": "{}\n",
    ".gemini/settings.json": "{}\n",
    ".cursor/hooks.json": "{}\n",
    ".opencode/plugin/automaton-guard.js": "export default {}\n",
    ".automaton/allowed_signers": "me ssh-ed25519 AAAA\n",
    ".automaton/notes.md": "notes\n",
}


@pytest.mark.parametrize("path", GUARD_FILES)
def test_a_person_commits_a_guard_file_while_no_task_may_edit(
    hooked_repo: AutomatonProject, path: str
) -> None:
    target = hooked_repo.root / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(GUARD_FILES[path])
    hook_git(hooked_repo.root, "add", "--", path)
    proc = hook_git(hooked_repo.root, "commit", "-m", "settings", check=False)
    assert proc.returncode == 0, proc.stderr
    message = hook_git(hooked_repo.root, "log", "-1", "--format=%B").stdout
    assert "Task:" not in message  # no task's work: commit-msg asks for no trailer


def test_a_person_commits_a_change_to_the_tool_automaton_table(
    hooked_repo: AutomatonProject,
) -> None:
    base = '[project]\nname = "app"\n'
    (hooked_repo.root / "pyproject.toml").write_text(base)
    hook_git(hooked_repo.root, "add", "pyproject.toml")
    hook_git(hooked_repo.root, "commit", "-q", "--no-verify", "-m", "packaging")
    (hooked_repo.root / "pyproject.toml").write_text(base + "[tool.automaton]\njobs = 1\n")
    hook_git(hooked_repo.root, "add", "pyproject.toml")
    proc = hook_git(hooked_repo.root, "commit", "-m", "settings", check=False)
    assert proc.returncode == 0, proc.stderr


def test_the_rest_of_pyproject_is_still_source(hooked_repo: AutomatonProject) -> None:
    (hooked_repo.root / "pyproject.toml").write_text('[project]\nname = "app"\n')
    hook_git(hooked_repo.root, "add", "pyproject.toml")
    proc = hook_git(hooked_repo.root, "commit", "-m", "packaging", check=False)
    assert proc.returncode != 0
    assert "refusing to commit source files while no task is in implement" in proc.stderr
    assert "  - pyproject.toml" in proc.stderr


def test_a_guard_file_does_not_carry_source_along(hooked_repo: AutomatonProject) -> None:
    (hooked_repo.root / "automaton.toml").write_text("jobs = 1\n")
    (hooked_repo.root / "src" / "app.py").write_text("x = 2\n")
    hook_git(hooked_repo.root, "add", "-A")
    proc = hook_git(hooked_repo.root, "commit", "-m", "both", check=False)
    assert proc.returncode != 0
    assert "  - src/app.py" in proc.stderr
    assert "automaton.toml" not in proc.stderr


def test_a_committed_hooks_folder_is_the_persons_to_commit(hooked_repo: AutomatonProject) -> None:
    hooks = hooked_repo.root / "githooks"
    shutil.copytree(ROOT / "githooks", hooks)
    hook_git(hooked_repo.root, "config", "core.hooksPath", "githooks")
    with (hooks / "pre-commit").open("a") as handle:
        handle.write("# reviewed\n")
    hook_git(hooked_repo.root, "add", "githooks")
    proc = hook_git(hooked_repo.root, "commit", "-m", "hooks", check=False)
    assert proc.returncode == 0, proc.stderr


def test_a_hand_edited_state_is_still_refused_beside_guard_files(
    hooked_repo: AutomatonProject,
) -> None:
    (hooked_repo.task_dir("guarded") / ".state").write_text("implement\n")
    (hooked_repo.root / "automaton.toml").write_text("jobs = 1\n")
    hook_git(hooked_repo.root, "add", "-A")
    proc = hook_git(hooked_repo.root, "commit", "-m", "skip ahead", check=False)
    assert proc.returncode != 0
    assert "refusing to commit hand-edited workflow state" in proc.stderr


# ---------------------------------------- AR503, AR504: changes no commit holds, hard links


def test_an_uncommitted_change_to_a_guard_file_is_an_error(
    automaton_project: AutomatonProject,
) -> None:
    start_repository(automaton_project)
    automaton_project.task("t1", "research")
    signers = ".automaton/allowed_signers"
    automaton_project.commit(
        {"automaton.toml": 'approval = "open"\n', signers: "a@x ssh-ed25519 AAAA\n"}, "adopt"
    )
    (automaton_project.root / signers).write_text("a@x ssh-ed25519 AAAA\nagent ssh-ed25519 BBBB\n")
    (automaton_project.root / "automaton.toml").write_text('approval = "prompt"\n')
    found = {f["path"]: f for f in automaton_project.audit().findings if f["code"] == "AR503"}
    assert sorted(found) == [signers, "automaton.toml"]
    finding = found[signers]
    assert (finding["severity"], finding["task"]) == ("error", None)
    assert finding["message"] == (
        f"{signers} (the approval signers file) has changes no commit holds: the audit read "
        "what no reviewer saw"
    )
    assert finding["correction"] == (
        "commit it (AR501 shows the commit to a reviewer), or restore it: "
        f"git checkout HEAD -- {signers}"
    )


def test_a_committed_change_to_a_guard_file_is_only_shown(
    automaton_project: AutomatonProject,
) -> None:
    start_repository(automaton_project)
    automaton_project.task("t1", "research")
    automaton_project.commit({"automaton.toml": 'approval = "open"\n'}, "adopt")
    codes = {f["code"] for f in automaton_project.audit().findings}
    assert "AR503" not in codes and "AR501" in codes


def test_a_pyproject_change_outside_the_tool_table_is_not_a_guard_change(
    automaton_project: AutomatonProject,
) -> None:
    start_repository(automaton_project)
    automaton_project.task("t1", "implement")
    text = '[project]\nname = "x"\n\n[tool.automaton]\napproval = "open"\n'
    automaton_project.commit({"pyproject.toml": text}, "adopt")
    (automaton_project.root / "pyproject.toml").write_text(text.replace('"x"', '"y"'))
    assert [f for f in automaton_project.audit().findings if f["code"] == "AR503"] == []
    (automaton_project.root / "pyproject.toml").write_text(text.replace('"open"', '"prompt"'))
    (finding,) = [f for f in automaton_project.audit().findings if f["code"] == "AR503"]
    assert finding["message"].startswith("the [tool.automaton] table of pyproject.toml")


def test_a_guard_file_with_a_second_hard_link_is_an_error(
    automaton_project: AutomatonProject, tmp_path: Path
) -> None:
    """The signers file linked from outside before the guard was there: a key appended
    through the link lands in it, unseen by any check made on the signers file's name."""
    start_repository(automaton_project)
    folder = automaton_project.task("t1", "research")
    signers = automaton_project.root / ".automaton" / "allowed_signers"
    signers.write_text("a@x ssh-ed25519 AAAA\n")
    automaton_project.commit({"automaton.toml": 'approval = "open"\n'}, "adopt")
    os.link(signers, tmp_path / "innocent")
    os.link(folder / ".state.history", tmp_path / "history")
    found = {f["path"]: f for f in automaton_project.audit().findings if f["code"] == "AR504"}
    assert sorted(found) == [".automaton/allowed_signers", ".automaton/tasks/t1/.state.history"]
    assert found[".automaton/tasks/t1/.state.history"]["task"] == "t1"
    assert found[".automaton/allowed_signers"]["message"] == (
        ".automaton/allowed_signers has 2 hard links: through another name it can be changed "
        "from anywhere, past every check of this file"
    )
    (tmp_path / "innocent").unlink()
    (tmp_path / "history").unlink()
    assert [f for f in automaton_project.audit().findings if f["code"] == "AR504"] == []
