"""Audit category 3, unauthorized modifications (AR301, AR302): code committed, or left
uncommitted, while no task may edit, judged against each task's phases as its history
records them (trailers, complete tasks, rebased commits, side branches, source
patterns), and artifacts committed ahead of their phase. Commits are placed before or
after a transition by moving the task's recorded past (`backdate()`, `retime()`), and a
moment a test places several times against is read from the clock once.
"""

from __future__ import annotations

import json
import os
import subprocess
from datetime import datetime, timezone
from pathlib import Path

import pytest
from helpers import (
    HOUR,
    TIME_FORMAT,
    assert_clean,
    backdate,
    git_project,
    history,
    now,
    rewrite_history,
    seconds,
    stamp,
    with_code,
    write_config,
)

from automaton_rules.testing import AutomatonProject

# ----------------------------------------------------------------------------- helpers

# These tests walk tasks past implement with no commit of theirs, to judge AR301's view of
# an unattributed commit; AR304 (no code behind implement) rightly reports those tasks too
# and has tests of its own (test_audit_work_done.py).
AR301_ONLY = ("--ignore", "AR304")


def retime(folder: Path, times: list[int]) -> None:
    """Give history entry i the time times[i], and the approval log the matching times."""
    entries = history(folder)
    assert len(entries) == len(times)
    entries = [{**e, "time": stamp(t)} for e, t in zip(entries, times)]
    rewrite_history(folder, entries)
    approved = [e for e in entries if e.get("command") == "--approve"]
    approvals = folder / ".state.approvals"
    lines = approvals.read_text().splitlines()
    assert len(lines) == len(approved)
    approvals.write_text(
        "".join(f"{line.split('|')[0]}|{e['time']}|user\n" for line, e in zip(lines, approved))
    )


def commit_dated(
    project: AutomatonProject,
    files: dict[str, str],
    *,
    authored: int,
    committed: int,
    task: str | None = None,
) -> str:
    """Commit with separate author and committer dates (what a rebase leaves behind)."""
    for path, text in files.items():
        target = project.root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    project.git("add", "--", *files)
    message = f"change\n\nTask: {task}\n" if task else "change"
    env = {
        **os.environ,
        "GIT_AUTHOR_DATE": f"{authored} +0000",
        "GIT_COMMITTER_DATE": f"{committed} +0000",
    }
    subprocess.run(
        ["git", "commit", "-q", "-m", message],
        cwd=project.root,
        env=env,
        check=True,
        capture_output=True,
    )
    return project.git("rev-parse", "HEAD").strip()


# ---------------------------------------------------------------------- AR301: commits


def test_ar301_commit_with_trailer_during_research(automaton_project: AutomatonProject) -> None:
    git_project(automaton_project)
    automaton_project.task("researching", "research", files=["SPEC.md"])
    automaton_project.task("building", "implement")
    backdate(automaton_project)
    when = now() - 600
    sha = automaton_project.commit(
        {"src/app.py": "x = 2\n"}, "sneaky", task="researching", when=when
    )
    audit = automaton_project.audit()
    (finding,) = audit.findings
    assert (finding["code"], finding["task"], finding["path"]) == (
        "AR301",
        "researching",
        "src/app.py",
    )
    assert finding["message"] == (
        "src/app.py was modified during research phase "
        f"(state: research, file mtime: {stamp(when)[:10]}, commit: {sha[:7]})"
    )
    assert finding["data"]["date"] == stamp(when)  # the line has the day, the data the second
    assert audit.exit_code == 1


def test_ar301_commit_with_trailer_during_implement_is_fine(
    automaton_project: AutomatonProject,
) -> None:
    git_project(automaton_project)
    automaton_project.task("building", "implement")
    automaton_project.task("researching", "research", files=["SPEC.md"])
    backdate(automaton_project)
    automaton_project.commit({"src/app.py": "x = 2\n"}, "work", task="building", when=now() - 600)
    assert_clean(automaton_project.audit())


def test_ar301_commit_before_the_task_left_implement_is_fine(
    automaton_project: AutomatonProject,
) -> None:
    """Phase intervals come from the history: a commit made in implement stays fine later."""
    git_project(automaton_project)
    folder = automaton_project.task("done", "bug_find")
    entries = history(folder)
    moment = now()  # read once: every time below is placed against this second
    base = moment - 2 * HOUR
    for number, entry in enumerate(entries):  # one minute per step, bug_find an hour ago
        entry["time"] = datetime.fromtimestamp(base + 60 * number, timezone.utc).strftime(
            TIME_FORMAT
        )
    entries[-1]["time"] = datetime.fromtimestamp(moment - HOUR, timezone.utc).strftime(TIME_FORMAT)
    rewrite_history(folder, entries)
    approvals = (folder / ".state.approvals").read_text().splitlines()
    approved = [e for e in entries if e.get("command") == "--approve"]
    (folder / ".state.approvals").write_text(
        "".join(f"{line.split('|')[0]}|{e['time']}|user\n" for line, e in zip(approvals, approved))
    )
    assert_clean(automaton_project.audit(*AR301_ONLY))
    automaton_project.commit(
        {"src/app.py": "x = 2\n"}, "in implement", when=moment - 2 * HOUR + 3000
    )
    assert_clean(automaton_project.audit(*AR301_ONLY))
    sha = automaton_project.commit({"src/app.py": "x = 3\n"}, "in bug_find", when=moment - 600)
    (finding,) = automaton_project.audit(*AR301_ONLY).findings
    assert finding["code"] == "AR301"
    assert "(state: bug_find, file mtime: " in finding["message"]
    assert finding["message"].endswith(f", commit: {sha[:7]})")


def test_ar301_attributed_commit_is_judged_against_its_task_only(
    automaton_project: AutomatonProject,
) -> None:
    git_project(automaton_project)
    automaton_project.task("researching", "research", files=["SPEC.md"])
    automaton_project.task("designing", "design", files=["DESIGN.md"])
    backdate(automaton_project)
    automaton_project.commit({"src/app.py": "x = 2\n"}, "w", task="designing", when=now() - 600)
    audit = automaton_project.audit()
    assert [(f["code"], f["task"]) for f in audit.findings] == [("AR301", "designing")]
    assert "during design phase (state: design," in audit.findings[0]["message"]


def test_ar301_unattributed_commit_while_another_task_implements(
    automaton_project: AutomatonProject,
) -> None:
    git_project(automaton_project)
    automaton_project.task("researching", "research", files=["SPEC.md"])
    automaton_project.task("building", "implement")
    backdate(automaton_project)
    automaton_project.commit({"src/app.py": "x = 2\n"}, "no trailer", when=now() - 600)
    assert_clean(automaton_project.audit())


def test_ar301_unattributed_commit_while_no_task_may_edit(
    automaton_project: AutomatonProject,
) -> None:
    git_project(automaton_project)
    automaton_project.task("researching", "research", files=["SPEC.md"])
    automaton_project.task("designing", "design:awaiting_approval")
    automaton_project.task("finished", "complete")
    backdate(automaton_project)
    automaton_project.commit(
        {"src/app.py": "x = 2\n", "src/new.py": "y = 1\n"}, "w", when=now() - 600
    )
    audit = automaton_project.audit(*AR301_ONLY)
    assert {f["code"] for f in audit.findings} == {"AR301"}
    assert sorted((f["task"], f["path"]) for f in audit.findings) == [
        ("designing", "src/app.py"),
        ("designing", "src/new.py"),
        ("researching", "src/app.py"),
        ("researching", "src/new.py"),
    ]
    assert audit.for_task("finished") == []
    assert "(state: design:awaiting_approval," in audit.for_task("designing")[0]["message"]
    assert audit.exit_code == 1


def test_ar301_commit_before_any_task_existed_is_fine(automaton_project: AutomatonProject) -> None:
    git_project(automaton_project)  # committed three hours before the tasks
    automaton_project.task("researching", "research", files=["SPEC.md"])
    backdate(automaton_project)
    assert_clean(automaton_project.audit())


def test_ar301_markdown_only_commit_is_ignored(automaton_project: AutomatonProject) -> None:
    git_project(automaton_project)
    automaton_project.task("researching", "research", files=["SPEC.md"])
    backdate(automaton_project)
    automaton_project.commit(
        {"docs/notes.md": "# notes\n"}, "docs", task="researching", when=now() - 900
    )
    assert_clean(automaton_project.audit())
    automaton_project.commit(
        {"src/app.py": "x = 5\n"}, "code", task="researching", when=now() - 600
    )
    assert [f["path"] for f in automaton_project.audit().findings] == ["src/app.py"]


def test_ar301_task_files_are_not_source(automaton_project: AutomatonProject) -> None:
    git_project(automaton_project)
    automaton_project.task("researching", "research", files={"SPEC.md": "# spec\n"})
    backdate(automaton_project)
    automaton_project.git("add", ".automaton")
    automaton_project.git("commit", "-q", "-m", "task files", when=now() - 600)
    assert_clean(automaton_project.audit())


def test_ar301_source_exclude_in_automaton_toml(automaton_project: AutomatonProject) -> None:
    git_project(automaton_project)
    automaton_project.task("researching", "research", files=["SPEC.md"])
    backdate(automaton_project)
    write_config(automaton_project, "")
    automaton_project.commit({"automaton.toml": ""}, "config", when=now() - 2 * HOUR)
    automaton_project.commit(
        {"vendor/lib.py": "v = 1\n", "src/app.py": "x = 2\n"},
        "w",
        task="researching",
        when=now() - 600,
    )
    assert sorted(f["path"] for f in with_code(automaton_project.audit(), "AR301")) == [
        "src/app.py",
        "vendor/lib.py",
    ]
    write_config(automaton_project, 'source-exclude = [".automaton/*", "*.md", "vendor/*"]\n')
    automaton_project.commit(
        {"automaton.toml": (automaton_project.root / "automaton.toml").read_text()},
        "cfg",
        when=now() - 2 * HOUR + 10,
    )
    assert [f["path"] for f in with_code(automaton_project.audit(), "AR301")] == ["src/app.py"]


def test_ar301_source_patterns_in_automaton_toml(automaton_project: AutomatonProject) -> None:
    git_project(automaton_project)
    automaton_project.task("researching", "research", files=["SPEC.md"])
    backdate(automaton_project)
    write_config(automaton_project, 'source = ["src/*"]\n')
    automaton_project.commit(
        {"tools/build.py": "b = 1\n", "src/app.py": "x = 2\n"},
        "w",
        task="researching",
        when=now() - 600,
    )
    audit = automaton_project.audit()
    assert [f["path"] for f in audit.findings if f["code"] == "AR301"] == ["src/app.py"]


@pytest.mark.parametrize("trailer", [True, False], ids=["with-trailer", "no-trailer"])
def test_commit_authored_in_implement_but_committed_later_is_not_reported(
    automaton_project: AutomatonProject, trailer: bool
) -> None:
    git_project(automaton_project)
    folder = automaton_project.task("moving", "bug_find")
    count = len(history(folder))
    moment = now()  # read once: `left` and `base` are an hour apart to the second
    base, left = moment - 2 * HOUR, moment - HOUR
    retime(folder, [base + 60 * i for i in range(count - 1)] + [left])
    entries = history(folder)
    assert [e["to"] for e in entries[-2:]] == ["implement", "bug_find"]
    entered_implement = seconds(entries[-2]["time"])
    assert with_code(automaton_project.audit(), "AR301") == []
    task = "moving" if trailer else None

    commit_dated(
        automaton_project,
        {"src/app.py": "x = 2\n"},
        authored=entered_implement + 30,  # written in implement...
        committed=left + 600,  # ...and rebased after the task moved on
        task=task,
    )
    audit = automaton_project.audit()
    assert with_code(audit, "AR301") == [], audit.text

    sha = commit_dated(
        automaton_project,
        {"src/app.py": "x = 3\n"},
        authored=left + 900,
        committed=left + 1200,
        task=task,
    )
    audit = automaton_project.audit()
    (finding,) = with_code(audit, "AR301")
    assert finding["task"] == "moving"
    assert "(state: bug_find, file mtime: " in finding["message"]
    assert finding["message"].endswith(f", commit: {sha[:7]})")
    assert audit.exit_code == 1


def test_trailer_naming_a_complete_task_is_reported(automaton_project: AutomatonProject) -> None:
    git_project(automaton_project)
    automaton_project.task("finished", "complete")
    automaton_project.task("building", "implement")  # someone may edit: no excuse for a trailer
    backdate(automaton_project)
    sha = automaton_project.commit(
        {"src/app.py": "x = 2\n"}, "late fix", task="finished", when=now() - 600
    )
    audit = automaton_project.audit()
    (finding,) = with_code(audit, "AR301")
    assert finding["task"] == "finished"
    assert finding["path"] == "src/app.py"
    assert "(state: complete, file mtime: " in finding["message"]
    assert finding["message"].endswith(f", commit: {sha[:7]})")
    assert audit.exit_code == 1


def test_unattributed_commit_is_not_held_against_a_complete_task(
    automaton_project: AutomatonProject,
) -> None:
    git_project(automaton_project)
    automaton_project.task("finished", "complete")
    automaton_project.task("researching", "research", files=["SPEC.md"])
    backdate(automaton_project)
    automaton_project.commit({"src/app.py": "x = 2\n"}, "no trailer", when=now() - 600)
    audit = automaton_project.audit(*AR301_ONLY)
    assert [(f["code"], f["task"]) for f in audit.findings] == [("AR301", "researching")]
    assert audit.for_task("finished") == []


def test_unattributed_commit_with_only_a_complete_task_is_fine(
    automaton_project: AutomatonProject,
) -> None:
    git_project(automaton_project)
    automaton_project.task("finished", "complete")
    backdate(automaton_project)
    automaton_project.commit({"src/app.py": "x = 2\n"}, "no trailer", when=now() - 600)
    audit = automaton_project.audit(*AR301_ONLY)
    assert audit.findings == [], audit.text
    assert audit.exit_code == 0


def test_ar301_task_without_history_falls_back_to_state_mtime(
    automaton_project: AutomatonProject,
) -> None:
    git_project(automaton_project)
    folder = automaton_project.task("legacy", "research", files=["SPEC.md"])
    (folder / ".state.history").unlink()
    (folder / ".state.mutex").unlink()  # a task from an older version has neither
    written = now() - HOUR
    os.utime(folder / ".state", (written, written))
    automaton_project.commit(
        {"src/early.py": "e = 1\n"}, "before", task="legacy", when=written - 600
    )
    audit = automaton_project.audit()
    assert audit.codes == ["AR208"]  # before .state was written the task is not judged
    sha = automaton_project.commit(
        {"src/late.py": "l = 1\n"}, "after", task="legacy", when=written + 600
    )
    audit = automaton_project.audit()
    (finding,) = with_code(audit, "AR301")
    assert finding["path"] == "src/late.py"
    assert "(state: research, file mtime: " in finding["message"]
    assert finding["message"].endswith(f", commit: {sha[:7]})")


def test_ar301_commit_in_the_second_of_a_transition_gets_the_benefit(
    automaton_project: AutomatonProject,
) -> None:
    git_project(automaton_project)
    folder = automaton_project.task("moving", "bug_find")
    leaving = seconds(history(folder)[-1]["time"])
    automaton_project.commit({"src/app.py": "x = 2\n"}, "w", task="moving", when=leaving)
    assert with_code(automaton_project.audit(), "AR301") == []
    automaton_project.commit({"src/app.py": "x = 3\n"}, "w", task="moving", when=leaving + 2)
    assert len(with_code(automaton_project.audit(), "AR301")) == 1


def test_ar301_reads_git_once_whatever_the_number_of_tasks(
    automaton_project: AutomatonProject, monkeypatch: pytest.MonkeyPatch
) -> None:
    from automaton_rules.support import git

    git_project(automaton_project)
    for number in range(6):
        automaton_project.task(f"task-{number}", "research", files=["SPEC.md"])
    backdate(automaton_project)
    for number in range(4):
        automaton_project.commit(
            {f"src/f{number}.py": "x\n"}, "w", task=f"task-{number}", when=now() - 600 + number
        )
    calls: list[list[str]] = []
    real = git.argv

    def counting(root: Path, args):
        calls.append(list(args))
        return real(root, args)

    monkeypatch.setattr(git, "argv", counting)
    result = automaton_project.run("--audit", "--json")
    assert result.exit_code == 1
    assert len(json.loads(result.out)["findings"]) == 4
    assert [args[0] for args in calls].count("log") == 1
    assert len(calls) <= 4


def _git_at(where: Path, *args: str, when: int | None = None) -> str:
    env = dict(os.environ)
    if when is not None:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = f"{when} +0000"
    proc = subprocess.run(
        ["git", "-C", str(where), *args], env=env, capture_output=True, text=True, check=True
    )
    return proc.stdout


@pytest.mark.parametrize("layout", ["project at the top", "project below the top"])
def test_ar301_reads_side_branches_a_merge_left_out_wherever_the_project_sits(
    automaton_project: AutomatonProject, layout: str
) -> None:
    """A research-phase commit on a branch merged with `-s ours` left no trace in the tree,
    but it was made: the audit reports it whether the project is the repository or a
    folder in one, and ignores commits outside the project's folder."""
    below = layout == "project below the top"
    repo = automaton_project.root.parent if below else automaton_project.root
    inside = "project/" if below else ""
    _git_at(repo, "init", "-q", "-b", "main")
    _git_at(repo, "config", "user.email", "rules@example.com")
    _git_at(repo, "config", "user.name", "Rule Author")
    for path, text in {f"{inside}src/app.py": "x = 1\n", "other/lib.py": "y = 1\n"}.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text)
    _git_at(repo, "add", "-A", "--", f"{inside}src", "other")
    _git_at(repo, "commit", "-q", "-m", "init", when=now() - 3 * HOUR)
    automaton_project.task("researching", "research", files=["SPEC.md"])
    backdate(automaton_project)

    _git_at(repo, "checkout", "-q", "-b", "side")
    (repo / f"{inside}src/app.py").write_text("x = 2\n")
    _git_at(repo, "commit", "-q", "-am", "sneaky\n\nTask: researching", when=now() - 900)
    _git_at(repo, "checkout", "-q", "main")
    (repo / "other/lib.py").write_text("y = 2\n")
    _git_at(repo, "commit", "-q", "-am", "elsewhere\n\nTask: researching", when=now() - 800)
    _git_at(repo, "merge", "-q", "-s", "ours", "side", "-m", "merge", when=now() - 700)

    audit = automaton_project.audit()
    expected = {"src/app.py"} if below else {"src/app.py", "other/lib.py"}
    assert {f["path"] for f in audit.findings} == expected, audit.text
    assert {(f["code"], f["task"]) for f in audit.findings} == {("AR301", "researching")}
    assert audit.exit_code == 1


# ---------------------------------------------------------- AR301: uncommitted changes


def test_ar301_uncommitted_change_while_no_task_may_edit(
    automaton_project: AutomatonProject,
) -> None:
    git_project(automaton_project)
    automaton_project.task("researching", "research", files=["SPEC.md"])
    backdate(automaton_project)
    assert_clean(automaton_project.audit())
    (automaton_project.root / "src" / "app.py").write_text("x = 99\n")
    audit = automaton_project.audit()
    (finding,) = audit.findings
    assert (finding["code"], finding["task"], finding["path"]) == (
        "AR301",
        "researching",
        "src/app.py",
    )
    mtime = int((automaton_project.root / "src" / "app.py").stat().st_mtime)
    assert finding["message"] == (
        "src/app.py was modified during research phase "
        f"(state: research, file mtime: {stamp(mtime)[:10]}, uncommitted)"
    )
    assert finding["data"]["date"] == stamp(mtime)
    assert audit.exit_code == 1


def test_ar301_uncommitted_deletion_has_no_file_mtime(automaton_project: AutomatonProject) -> None:
    git_project(automaton_project)
    automaton_project.task("researching", "research", files=["SPEC.md"])
    backdate(automaton_project)
    (automaton_project.root / "src" / "app.py").unlink()
    (finding,) = automaton_project.audit().findings
    assert finding["message"] == (
        "src/app.py was modified during research phase (state: research, uncommitted)"
    )
    assert "date" not in finding["data"]


def test_ar301_uncommitted_change_while_a_task_implements(
    automaton_project: AutomatonProject,
) -> None:
    git_project(automaton_project)
    automaton_project.task("researching", "research", files=["SPEC.md"])
    automaton_project.task("building", "implement")
    backdate(automaton_project)
    (automaton_project.root / "src" / "app.py").write_text("x = 99\n")
    assert_clean(automaton_project.audit())


def test_ar301_uncommitted_markdown_is_ignored(automaton_project: AutomatonProject) -> None:
    git_project(automaton_project)
    automaton_project.task("researching", "research", files=["SPEC.md"])
    backdate(automaton_project)
    (automaton_project.root / "README.md").write_text("# notes\n")
    assert_clean(automaton_project.audit())


def test_untracked_file_is_not_an_uncommitted_change_by_default(
    automaton_project: AutomatonProject,
) -> None:
    git_project(automaton_project)
    automaton_project.task("researching", "research", files=["SPEC.md"])
    backdate(automaton_project)
    (automaton_project.root / "src" / "new.py").write_text("n = 1\n")
    audit = automaton_project.audit()
    assert with_code(audit, "AR301") == [], audit.text
    assert audit.exit_code == 0


def test_untracked_file_counts_with_source_untracked(
    automaton_project: AutomatonProject,
) -> None:
    automaton_project.commit(  # the configuration is committed, so it is not untracked
        {
            "README.txt": "hello\n",
            "src/app.py": "x = 1\n",
            "automaton.toml": "source-untracked = true\n",
        },
        "init",
        when=now() - 3 * HOUR,
    )
    automaton_project.task("researching", "research", files=["SPEC.md"])
    backdate(automaton_project)
    assert with_code(automaton_project.audit(), "AR301") == []
    (automaton_project.root / "src" / "new.py").write_text("n = 1\n")
    audit = automaton_project.audit()
    (finding,) = with_code(audit, "AR301")
    assert (finding["task"], finding["path"]) == ("researching", "src/new.py")
    assert "uncommitted" in finding["message"]
    assert audit.exit_code == 1


def test_modified_and_staged_tracked_files_are_reported_by_default(
    automaton_project: AutomatonProject,
) -> None:
    git_project(automaton_project)
    automaton_project.task("researching", "research", files=["SPEC.md"])
    backdate(automaton_project)
    (automaton_project.root / "src" / "app.py").write_text("x = 99\n")  # modified
    (automaton_project.root / "src" / "staged.py").write_text("s = 1\n")
    automaton_project.git("add", "src/staged.py")  # staged, new
    (automaton_project.root / "src" / "loose.py").write_text("u = 1\n")  # untracked
    audit = automaton_project.audit()
    found = with_code(audit, "AR301")
    assert sorted(f["path"] for f in found) == ["src/app.py", "src/staged.py"]
    assert all("uncommitted" in f["message"] for f in found)
    assert audit.exit_code == 1


# ------------------------------------- AR302: artifacts committed ahead of their phase


def test_ar302_future_artifact_committed_then_deleted_before_the_transition(
    automaton_project: AutomatonProject,
) -> None:
    """Tamper: IMPLEMENTATION.md written during research, committed, then deleted so the
    research gate passes; no file is left for AR101, the commit is."""
    git_project(automaton_project)
    folder = automaton_project.task("sneaky", "research", files=["SPEC.md"])
    backdate(automaton_project)
    rel = ".automaton/tasks/sneaky"
    (folder / "IMPLEMENTATION.md").write_text("# done already\n")
    automaton_project.git("add", "-A", "--", rel)
    ahead = now() - 900  # read once: the message below gives this second
    automaton_project.git("commit", "-q", "-m", "ahead", when=ahead)
    sha = automaton_project.git("rev-parse", "HEAD").strip()
    (folder / "IMPLEMENTATION.md").unlink()
    automaton_project.git("add", "-A", "--", rel)
    automaton_project.git("commit", "-q", "-m", "hide it", when=ahead + 100)
    for step in ("research:awaiting_approval",):
        assert automaton_project.run("--task", "sneaky", "--transition", step).exit_code == 0
    assert automaton_project.run("--task", "sneaky", "--approve").exit_code == 0

    audit = automaton_project.audit()
    (finding,) = with_code(audit, "AR302")
    assert (finding["task"], finding["path"]) == ("sneaky", f"{rel}/IMPLEMENTATION.md")
    assert finding["message"] == (
        "IMPLEMENTATION.md was committed during research phase (state: research, file mtime: "
        f"{stamp(ahead)[:10]}, commit: {sha[:7]}); it belongs to the implement phase"
    )
    assert finding["data"]["date"] == stamp(ahead)
    assert "AR101" not in audit.codes
    assert audit.exit_code == 1


def test_ar302_artifacts_committed_in_their_phase_are_fine(
    automaton_project: AutomatonProject,
) -> None:
    git_project(automaton_project)
    automaton_project.task("parent", "decomposition:approved")
    automaton_project.task("parent/part", "implement")
    automaton_project.task("whole", "bug_find")
    backdate(automaton_project)
    automaton_project.git("add", "-A", "--", ".automaton")
    automaton_project.git("commit", "-q", "-m", "tasks", when=now() - 60)
    audit = automaton_project.audit()
    assert "AR302" not in audit.codes, audit.text


def test_ar302_a_subtask_artifact_ahead_of_its_phase(automaton_project: AutomatonProject) -> None:
    git_project(automaton_project)
    automaton_project.task("parent", "decomposition:approved")
    sub = automaton_project.task("parent/part", "design")
    backdate(automaton_project)
    (sub / "VERDICT.md").write_text("Verdict: PASS\n")
    automaton_project.git("add", "-A", "--", ".automaton")
    automaton_project.git("commit", "-q", "-m", "verdict first", when=now() + 30)
    (finding,) = with_code(automaton_project.audit(), "AR302")
    assert finding["task"] == "parent/part"
    assert finding["path"] == ".automaton/tasks/parent/subtasks/part/VERDICT.md"
    assert "during design phase" in finding["message"]


# -------------------------------------------------------------- the helpers themselves


def test_helpers_keep_the_history_chain_valid(automaton_project: AutomatonProject) -> None:
    """backdate() and retime() rewrite history as status.py would: the audit stays clean."""
    automaton_project.task("gated", "design:approved")
    backdate(automaton_project, 2 * HOUR)
    audit = automaton_project.audit()
    assert audit.findings == [], audit.text
    first = seconds(history(automaton_project.task_dir("gated"))[0]["time"])
    assert first < now() - HOUR


# --------------------------------------------------- AR303: dates the history contradicts


def plumbing_commit(
    project: AutomatonProject, files: dict[str, str], when: int, task: str = ""
) -> str:
    """A commit made as an agent would skip the hooks and pick its date: `hash-object`,
    `update-index`, `write-tree`, `commit-tree`, `update-ref`, with both dates set."""
    for path, text in files.items():
        blob = subprocess.run(
            ["git", "hash-object", "-w", "--stdin"],
            cwd=project.root,
            input=text,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        project.git("update-index", "--add", "--cacheinfo", f"100644,{blob},{path}")
    tree = project.git("write-tree").strip()
    parent = project.git("rev-parse", "HEAD").strip()
    message = f"tidy\n\nTask: {task}\n" if task else "tidy"
    sha = project.git("commit-tree", tree, "-p", parent, "-m", message, when=when).strip()
    project.git("update-ref", "HEAD", sha)
    return sha


def commit_task_records(project: AutomatonProject, when: int) -> str:
    """The task's records, committed as the workflow moves."""
    project.git("add", "-A", ".automaton")
    project.git("commit", "-q", "--no-verify", "-m", "records", when=when)
    return project.git("rev-parse", "HEAD").strip()


@pytest.mark.parametrize("how", ["plumbing", "no-verify"])
def test_a_commit_dated_before_the_history_it_builds_on_is_placed_by_that_history(
    automaton_project: AutomatonProject, how: str
) -> None:
    """Code committed in research with a date from before the task existed: the audit
    judges it no earlier than the commit it builds on, and reports the date as AR303."""
    git_project(automaton_project)  # three hours ago
    automaton_project.task("researching", "research", files=["SPEC.md"])
    backdate(automaton_project)  # the task was made, and moved to research, an hour ago
    moment = now()
    recorded = commit_task_records(automaton_project, moment - 1800)
    forged = moment - 2 * HOUR  # before the task existed, after the first commit
    if how == "plumbing":
        sha = plumbing_commit(automaton_project, {"src/app.py": "x = 2\n"}, forged)
    else:
        sha = automaton_project.commit({"src/app.py": "x = 2\n"}, "tidy", when=forged)
    audit = automaton_project.audit()
    found = {(f["code"], f["task"]): f for f in audit.findings}
    assert set(found) == {("AR301", "researching"), ("AR303", None)}
    assert found["AR303", None]["message"] == (
        f"commit {sha[:7]} is dated {stamp(forged)}, before the commit it builds on was made "
        f"({stamp(moment - 1800)}): its date was set by hand or its machine's clock is wrong; "
        f"the audit judges it no earlier than {stamp(moment - 1800)}"
    )
    assert found["AR303", None]["data"]["commit"] == sha
    assert "(state: research," in found["AR301", "researching"]["message"]
    assert recorded != sha and audit.exit_code == 1


def test_a_commit_naming_its_task_is_never_placed_before_the_task(
    automaton_project: AutomatonProject,
) -> None:
    """No commit records the task, so only its trailer places the commit: no earlier than
    the task's creation, in the phase the task then had."""
    git_project(automaton_project)
    automaton_project.task("researching", "research", files=["SPEC.md"])
    backdate(automaton_project)
    forged = now() - 2 * HOUR
    sha = plumbing_commit(automaton_project, {"src/app.py": "x = 2\n"}, forged, "researching")
    audit = automaton_project.audit()
    found = {(f["code"], f["task"]) for f in audit.findings}
    assert found == {("AR301", "researching"), ("AR303", "researching")}
    (dated,) = [f for f in audit.findings if f["code"] == "AR303"]
    assert (
        f"commit {sha[:7]} is dated {stamp(forged)}, before task researching was created"
        in (dated["message"])
    )


def test_a_few_minutes_of_clock_skew_is_not_reported_but_still_placed(
    automaton_project: AutomatonProject,
) -> None:
    """Two machines' clocks may disagree by minutes: up to five, AR303 stays quiet; the
    commit is judged at its parent's date all the same."""
    git_project(automaton_project)
    automaton_project.task("building", "implement")
    backdate(automaton_project)
    moment = now()
    commit_task_records(automaton_project, moment - 600)
    automaton_project.commit({"src/app.py": "x = 2\n"}, "work", when=moment - 600 - 240)
    assert_clean(automaton_project.audit())


def test_an_honest_history_has_no_dated_commits(automaton_project: AutomatonProject) -> None:
    git_project(automaton_project)
    automaton_project.task("building", "implement")
    backdate(automaton_project)
    moment = now()
    commit_task_records(automaton_project, moment - 900)
    automaton_project.commit({"src/app.py": "x = 2\n"}, "work", task="building", when=moment - 600)
    assert [f["code"] for f in automaton_project.audit().findings] == []


def test_commit_floors_walk_parents_however_deep() -> None:
    """A long history is placed without recursion, each commit no earlier than its parents."""
    from automaton_rules.engine.gitlog import Commit, commit_floors

    chain = [
        Commit(f"c{n}", 1000 + n, (), parents=(f"c{n - 1}",) if n else ()) for n in range(5000)
    ]
    chain[2500] = Commit("c2500", 10, (), parents=("c2499",))  # a backdated one in the middle
    merge = Commit("m", 5, (), parents=("c4999", "side"))
    side = Commit("side", 9000, ())
    floors = commit_floors([merge, *reversed(chain), side])
    assert floors["c0"] == 0
    assert floors["c2500"] == 1000 + 2499
    assert floors["c2501"] == 1000 + 2499  # its parent's own date is older than its floor
    assert floors["m"] == 9000
