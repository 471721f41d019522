"""Work marked done has work behind it: AR304 (a task past implement with no code
committed under it) and AR211 (a complete sub-task tree whose sub-task did not pass),
through the audit as CI runs it, on a git history dated by the fixture's clock."""

from __future__ import annotations

from helpers import CAT2, CAT3, section, with_code

from automaton_rules.testing import AutomatonProject

PAST = ["bug_find"]


def _repository(project: AutomatonProject) -> None:
    """A repository whose first commit predates every task."""
    project.commit({"README.txt": "hello\n", "src/app.py": "x = 1\n"}, "init")
    project.clock.advance(minutes=5)


def _implementing(project: AutomatonProject, name: str) -> None:
    """A task walked to implement, a minute after the last commit."""
    project.task(name, "implement")
    project.clock.advance(minutes=1)


def test_ar303_a_task_past_implement_with_no_code_is_reported(
    automaton_project: AutomatonProject,
) -> None:
    _repository(automaton_project)
    _implementing(automaton_project, "hollow")
    automaton_project.clock.advance(minutes=10)
    automaton_project.advance("hollow", PAST)
    audit = automaton_project.audit()
    (finding,) = with_code(audit, "AR304")
    assert finding["task"] == "hollow"
    assert finding["path"] == ".automaton/tasks/hollow/.state"
    assert finding["message"] == (
        "moved past implement (it is in bug_find) with no code committed under it: no commit "
        "names it (Task: hollow) and no source change was committed while it was in "
        "implement or doc_review"
    )
    assert audit.exit_code == 1
    assert "  - hollow: no code behind implement (no code behind implement)" in audit.text
    assert any(
        line.startswith("[FAIL] hollow: moved past implement") for line in section(audit.text, CAT3)
    )


def test_ar303_a_commit_naming_the_task_is_code_behind_it(
    automaton_project: AutomatonProject,
) -> None:
    """Whenever it was made: a commit with the task's trailer is work done under it."""
    _repository(automaton_project)
    _implementing(automaton_project, "named")
    automaton_project.advance("named", PAST)
    automaton_project.clock.advance(minutes=1)
    automaton_project.commit({"src/named.py": "y = 1\n"}, "late but named", task="named")
    assert with_code(automaton_project.audit(), "AR304") == []


def test_ar303_a_source_change_committed_while_in_implement_is_code_behind_it(
    automaton_project: AutomatonProject,
) -> None:
    """Without a trailer, a commit counts for the task that was implementing then, unless
    it names another task; one committed after the task left implement does not count."""
    _repository(automaton_project)
    for name in ("plain", "claimed", "after"):
        _implementing(automaton_project, name)
    automaton_project.commit({"src/plain.py": "p = 1\n"}, "no trailer")  # all three implement
    automaton_project.clock.advance(minutes=1)
    automaton_project.advance("plain", PAST)
    automaton_project.advance("after", PAST)
    automaton_project.clock.advance(minutes=1)
    automaton_project.commit({"src/after.py": "a = 1\n"}, "once it left implement")
    automaton_project.commit({"src/other.py": "o = 1\n"}, "someone else's", task="claimed")
    automaton_project.advance("claimed", PAST)
    audit = automaton_project.audit()
    assert [f["task"] for f in with_code(audit, "AR304")] == []  # plain: in its span
    # Without the commit made while they implemented, a later commit without a trailer
    # is nothing behind them, and one naming another task neither.
    automaton_project.git("reset", "-q", "--hard", "HEAD~3")
    automaton_project.commit({"src/after.py": "a = 1\n"}, "once they left implement")
    automaton_project.commit({"src/other.py": "o = 1\n"}, "someone else's", task="claimed")
    assert [f["task"] for f in with_code(automaton_project.audit(), "AR304")] == ["after", "plain"]


def test_ar303_a_commit_of_task_records_alone_is_no_code(
    automaton_project: AutomatonProject,
) -> None:
    _repository(automaton_project)
    _implementing(automaton_project, "records")
    automaton_project.git("add", ".automaton")
    automaton_project.git("commit", "-q", "-m", "records\n\nTask: records")
    automaton_project.advance("records", PAST)
    assert [f["task"] for f in with_code(automaton_project.audit(), "AR304")] == ["records"]


def test_ar303_judges_only_what_the_history_read_can_show(
    automaton_project: AutomatonProject,
) -> None:
    """With --since, a task implemented before the commits read is not judged; a task sent
    back to implement is not judged until it leaves again; no repository, no finding."""
    assert with_code(_outside_git(automaton_project), "AR304") == []
    _repository(automaton_project)
    _implementing(automaton_project, "early")
    automaton_project.advance("early", PAST)
    automaton_project.clock.advance(minutes=1)
    base = automaton_project.commit({"notes.txt": "n\n"}, "a pull request's base")
    automaton_project.clock.advance(minutes=1)
    automaton_project.commit({"more.txt": "m\n"}, "the pull request")
    assert [f["task"] for f in with_code(automaton_project.audit(), "AR304")] == ["early"]
    assert with_code(automaton_project.audit("--since", base), "AR304") == []
    automaton_project.advance(
        "early", ["adversarial_bug_find", "doc_review", "referee", "human_intervention"]
    )
    (automaton_project.task_dir("early") / "BUG_REPORT.md").rename(
        automaton_project.task_dir("early") / "BUG_REPORT.v1.md"
    )
    for later in ("ADVERSARIAL_BUG_REPORT.md", "DOC_REVIEW.md", "VERDICT.md"):
        (automaton_project.task_dir("early") / later).unlink()
    automaton_project.advance("early", ["implement"])
    assert with_code(automaton_project.audit(), "AR304") == []  # back at work


def _outside_git(project: AutomatonProject) -> object:
    project.task("nowhere", "bug_find")
    audit = project.audit()
    assert section(audit.text, CAT3) == ["Skipped: not a git repository"]
    return audit


def test_ar211_a_complete_tree_with_a_sub_task_that_did_not_pass_is_reported(
    automaton_project: AutomatonProject,
) -> None:
    automaton_project.task("pay-api", "decomposition:approved")
    automaton_project.task("pay-api/client", "complete")
    automaton_project.task("pay-api/hooks", "referee")
    verdict = automaton_project.task_dir("pay-api/hooks") / "VERDICT.md"
    verdict.write_text("Verdict: FAIL\nRetries lose events.\n")
    automaton_project.advance("pay-api/hooks", ["human_intervention", "complete"])
    automaton_project.advance("pay-api", ["complete"])  # the workflow lets it: all complete
    audit = automaton_project.audit()
    (finding,) = with_code(audit, "AR211")
    assert (finding["task"], finding["path"]) == (
        "pay-api",
        ".automaton/tasks/pay-api/subtasks/hooks/VERDICT.md",
    )
    assert finding["message"] == (
        "is complete, but VERDICT.md of sub-task pay-api/hooks says FAIL: the tree is marked "
        "done while part of its work did not pass review"
    )
    assert finding["correction"].startswith("follow the sub-task up: ")
    assert finding["correction"].endswith(
        f"--task pay-api/hooks --follow-up --project {automaton_project.root.resolve()}"
    )
    assert audit.exit_code == 1
    assert any(line.startswith("[FAIL] pay-api: is complete") for line in section(audit.text, CAT2))
    verdict.write_text("Verdict: PASS\n")  # the control: every sub-task passed
    assert with_code(automaton_project.audit(), "AR211") == []
