"""`status.py --audit` end to end: the specification's report, every rule, selection,
the report formats, plugins (entry point and path) and how a broken plugin is reported.

Projects are built with the `automaton_project` fixture of the package's own pytest
plugin. Transition times come from `.state.history`, which records whole seconds; to place
commits before or after a transition without racing the clock, tests move a task's
recorded past back with `backdate()` (rewriting the history chain as status.py would).
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from audit_helpers import install, section, with_code, write_config

from automaton_rules.testing import Audit, AutomatonProject

ROOT = Path(__file__).resolve().parent.parent
STATUS_PY = ROOT / "status.py"
REPO_CONFIG = str(ROOT / "automaton.toml")
TIME_FORMAT = "%Y-%m-%dT%H:%M:%SZ"
HOUR = 3600

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
    "AR301",
    "AR302",
    "AR401",
    "AR402",
)
BUILTIN_PLUGIN = {
    "AR101": "automaton_rules.builtin.out_of_order",
    **{f"AR20{n}": "automaton_rules.builtin.inconsistency" for n in range(1, 10)},
    "AR301": "automaton_rules.builtin.unauthorized",
    "AR302": "automaton_rules.builtin.unauthorized",
    "AR401": "automaton_rules.builtin.manual_folders",
    "AR402": "automaton_rules.builtin.manual_folders",
}
CATEGORY_HEADINGS = (
    "=== Category 1: Out-of-order Artifacts ===",
    "=== Category 2: State-Artifact Inconsistency ===",
    "=== Category 3: Unauthorized Modifications ===",
    "=== Category 4: Manually Created Task Folders ===",
)


# --------------------------------------------------------------------------- helpers


def _shift(stamp: str, seconds: int) -> str:
    moment = datetime.strptime(stamp, TIME_FORMAT) + timedelta(seconds=seconds)
    return moment.strftime(TIME_FORMAT)


def rewrite_history(folder: Path, lines: list[dict[str, Any]]) -> None:
    """Write history entries, chaining each line to the one before as status.py does."""
    out, prev = [], None
    for entry in lines:
        line = json.dumps({**entry, "prev": prev}, separators=(",", ":"))
        out.append(line)
        prev = hashlib.sha256(line.encode()).hexdigest()
    (folder / ".state.history").write_text("".join(f"{line}\n" for line in out))


def history(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (folder / ".state.history").read_text().splitlines()]


def shift_times(folder: Path, seconds: int) -> None:
    """Move a task's whole recorded past (history and approval log) by `seconds`."""
    rewrite_history(folder, [{**e, "time": _shift(e["time"], seconds)} for e in history(folder)])
    approvals = folder / ".state.approvals"
    lines = []
    for raw in approvals.read_text().splitlines():
        state, stamp, approver = raw.split("|")
        lines.append(f"{state}|{_shift(stamp, seconds)}|{approver}\n")
    approvals.write_text("".join(lines))


def backdate(project: AutomatonProject, seconds: int = HOUR) -> None:
    """Every task with a history happened `seconds` earlier than it did."""
    for folder in sorted(project.tasks_dir.iterdir()):
        if (folder / ".state.history").exists():
            shift_times(folder, -seconds)


def day(moment: int) -> str:
    return datetime.fromtimestamp(moment, timezone.utc).strftime(TIME_FORMAT)


def assert_clean(audit: Audit) -> None:
    assert audit.findings == [], audit.text
    assert audit.exit_code == 0, audit.text


def now() -> int:
    return int(time.time())


# ------------------------------------------------------- the specification's example


def spec_example(project: AutomatonProject, *, git: bool = True) -> tuple[str, int]:
    """Section 11's project; with git, src/auth.py is committed during research."""
    if git:
        project.git("status")  # initialises the repository
    project.task("add-user-auth", "research", files=["SPEC.md"])
    project.task("fix-login-bug", "research", files=["SPEC.md", "IMPLEMENTATION.md"])
    project.task("add-payment-api", "complete")
    backdate(project)
    if not git:
        return "", 0
    when = now() - 600
    sha = project.commit(
        {"src/auth.py": "def login():\n    return True\n"},
        "Fix the login bug",
        task="fix-login-bug",
        when=when,
    )
    return sha, when


def spec_report(root: Path, sha: str, when: int) -> list[str]:
    """Section 11's report, in its order. Two additions come from the issue, not the
    specification: category 4, and category 3's line for add-payment-api (the example
    shows two of its three tasks there). The commit/date part is ours."""
    return [
        f"Audit Report for {root}",
        "",
        "=== Category 1: Out-of-order Artifacts ===",
        "[PASS] add-user-auth: no violations",
        "[FAIL] fix-login-bug (phase: research): "
        "found IMPLEMENTATION.md (implement phase artifact)",
        "[PASS] add-payment-api: no violations",
        "",
        "=== Category 2: State-Artifact Inconsistency ===",
        '[PASS] add-user-auth: .state ("research") matches artifacts (SPEC.md exists)',
        '[WARN] fix-login-bug: .state says "research" but IMPLEMENTATION.md exists'
        " — suggested correction: implement",
        '[PASS] add-payment-api: .state ("complete") matches all artifacts',
        "",
        "=== Category 3: Unauthorized Modifications ===",
        "[PASS] add-user-auth: no code modifications outside implement phase",
        "[FAIL] fix-login-bug: src/auth.py was modified during research phase "
        f"(state: research, commit: {sha[:7]}, date: {day(when)})",
        "[PASS] add-payment-api: no code modifications outside implement phase",
        "",
        "=== Category 4: Manually Created Task Folders ===",
        "[PASS] add-user-auth: created with --create-task (.state present)",
        "[PASS] fix-login-bug: created with --create-task (.state present)",
        "[PASS] add-payment-api: created with --create-task (.state present)",
        "",
        "=== Summary ===",
        "3 tasks audited",
        "2 violations found",
        "  - fix-login-bug: out-of-order artifact (IMPLEMENTATION.md)",
        "  - fix-login-bug: state-artifact mismatch "
        "(.state says research, IMPLEMENTATION.md exists)",
        "  - fix-login-bug: unauthorized modification (src/auth.py during research phase)",
    ]


def test_spec_example_reproduces_the_report_line_for_line(
    automaton_project: AutomatonProject,
) -> None:
    """Line for line, with tasks listed by name inside each category (as --list lists them)."""
    sha, when = spec_example(automaton_project)
    audit = automaton_project.audit()
    assert audit.exit_code == 1
    expected = spec_report(automaton_project.root, sha, when)
    by_name = []
    for block in "\n".join(expected).split("\n\n"):
        lines = block.split("\n")
        if lines[0].startswith("=== Category"):
            lines = [lines[0], *sorted(lines[1:], key=lambda line: line.split("] ")[1])]
        by_name.append("\n".join(lines))
    assert audit.text.splitlines() == "\n\n".join(by_name).splitlines()


def _sections(lines: list[str]) -> list[list[str]]:
    out: list[list[str]] = [[]]
    for line in lines:
        if line == "":
            out.append([])
        else:
            out[-1].append(line)
    return out


def test_spec_example_report_has_the_specs_lines_in_every_section(
    automaton_project: AutomatonProject,
) -> None:
    """The same report with the order of tasks inside a section left free."""
    sha, when = spec_example(automaton_project)
    audit = automaton_project.audit()
    expected = spec_report(automaton_project.root, sha, when)
    got = _sections(audit.text.splitlines())
    want = _sections(expected)
    assert [s[:1] for s in got] == [s[:1] for s in want]  # headings, in order
    assert [sorted(s) for s in got] == [sorted(s) for s in want]
    summary = got[-1]
    assert summary == want[-1]  # the summary keeps the specification's order


def test_spec_example_json_agrees_with_the_text(automaton_project: AutomatonProject) -> None:
    sha, _ = spec_example(automaton_project)
    audit = automaton_project.audit()
    assert audit.codes == ["AR101", "AR202", "AR301"]
    assert {f["task"] for f in audit.findings} == {"fix-login-bug"}
    summary = audit.report["summary"]
    assert (summary["tasks"], summary["violations"], summary["exit_code"]) == (3, 2, 1)
    (commit,) = with_code(audit, "AR301")
    assert commit["path"] == "src/auth.py"
    assert sha[:7] in commit["message"]


def test_spec_example_without_git_skips_category_3(automaton_project: AutomatonProject) -> None:
    spec_example(automaton_project, git=False)
    assert not (automaton_project.root / ".git").exists()
    audit = automaton_project.audit()
    lines = audit.text.splitlines()
    heading = lines.index("=== Category 3: Unauthorized Modifications ===")
    assert lines[heading + 1 : heading + 3] == ["Skipped: not a git repository", ""]
    assert "1 violations found" in lines
    assert audit.report["summary"]["skipped"] == {
        "Unauthorized Modifications": "not a git repository"
    }
    assert audit.exit_code == 1


def test_clean_project_exits_0(automaton_project: AutomatonProject) -> None:
    automaton_project.task("add-user-auth", "research", files=["SPEC.md"])
    automaton_project.task("add-payment-api", "complete")
    audit = automaton_project.audit()
    assert_clean(audit)
    assert "0 violations found" in audit.text.splitlines()
    for heading in CATEGORY_HEADINGS:
        assert heading in audit.text


# ------------------------------------------------------ category 1 and category 2


def test_ar101_out_of_order_artifact(automaton_project: AutomatonProject) -> None:
    automaton_project.task("fine", "design", files=["DESIGN.md"])
    automaton_project.task("skipper", "design", files=["BUG_REPORT.md"])
    audit = automaton_project.audit()
    assert [(f["code"], f["task"]) for f in audit.findings if f["severity"] == "error"] == [
        ("AR101", "skipper")
    ]
    (finding,) = with_code(audit, "AR101")
    assert finding["path"] == ".automaton/tasks/skipper/BUG_REPORT.md"
    assert (
        "[FAIL] skipper (phase: design): found BUG_REPORT.md (bug_find phase artifact)"
        in audit.text.splitlines()
    )
    assert "[PASS] fine: no violations" in audit.text.splitlines()
    assert audit.exit_code == 1


@pytest.mark.parametrize(
    ("state", "artifact", "leftover"),
    [
        ("design:approved", "DESIGN.md", None),
        ("bug_find", "IMPLEMENTATION.md", None),
        ("bug_find", "IMPLEMENTATION.md", "   \n"),
        ("referee", "SPEC.md", None),
    ],
)
def test_ar201_state_without_its_artifacts(
    automaton_project: AutomatonProject, state: str, artifact: str, leftover: str | None
) -> None:
    folder = automaton_project.task("login", state)
    assert with_code(automaton_project.audit(), "AR201") == []
    (folder / artifact).unlink()
    if leftover is not None:
        (folder / artifact).write_text(leftover)
    audit = automaton_project.audit()
    (finding,) = with_code(audit, "AR201")
    assert finding["task"] == "login"
    assert finding["severity"] == "error"
    assert finding["message"] == f'.state says "{state}" but {artifact} is missing or empty'
    assert f'[FAIL] login: .state says "{state}" but {artifact} is missing or empty' in (audit.text)
    assert audit.exit_code == 1


def test_ar201_decomposed_parent_completes_without_implementation(
    automaton_project: AutomatonProject,
) -> None:
    automaton_project.task("payments", "decomposition:approved")
    automaton_project.task("payments/stripe-client", "complete")
    result = automaton_project.run("--task", "payments", "--transition", "complete")
    assert result.exit_code == 0, result
    audit = automaton_project.audit()
    assert with_code(audit, "AR201") == [], audit.text


def test_ar202_artifact_ahead_of_the_state_is_a_warning_with_a_correction(
    automaton_project: AutomatonProject,
) -> None:
    automaton_project.task("ahead", "research", files=["SPEC.md", "IMPLEMENTATION.md"])
    audit = automaton_project.audit("--ignore", "AR101")
    (finding,) = audit.findings
    assert finding["code"] == "AR202"
    assert finding["severity"] == "warning"
    assert finding["correction"] == "implement"
    assert finding["category"] == "State-Artifact Inconsistency"
    assert (
        '[WARN] ahead: .state says "research" but IMPLEMENTATION.md exists'
        " — suggested correction: implement"
    ) in audit.text.splitlines()
    assert audit.exit_code == 0  # a warning alone does not fail the audit


def test_ar202_names_every_artifact_ahead(automaton_project: AutomatonProject) -> None:
    automaton_project.task("ahead", "design", files=["IMPLEMENTATION.md", "BUG_REPORT.md"])
    (finding,) = with_code(automaton_project.audit(), "AR202")
    assert finding["message"] == '.state says "design" but IMPLEMENTATION.md, BUG_REPORT.md exist'
    assert finding["correction"] == "bug_find"


def test_ar203_approved_state_without_approval_line(automaton_project: AutomatonProject) -> None:
    automaton_project.task("approved", "research:approved")
    folder = automaton_project.task("forged", "research:awaiting_approval")
    assert_clean(automaton_project.audit())
    (folder / ".state").write_text("research:approved\n")
    audit = automaton_project.audit()
    (finding,) = with_code(audit, "AR203")
    assert finding["task"] == "forged"
    assert finding["message"] == (
        '.state says "research:approved" but .state.approvals has no research:approved line'
    )
    assert automaton_project.audit().for_task("approved") == []
    assert audit.exit_code == 1


def test_ar204_state_edited_by_hand(automaton_project: AutomatonProject) -> None:
    folder = automaton_project.task("eager", "research:approved")
    automaton_project.task("honest", "implement")
    assert_clean(automaton_project.audit())
    (folder / ".state").write_text("implement\n")  # echo implement > .state
    audit = automaton_project.audit()
    (finding,) = with_code(audit, "AR204")
    assert finding["task"] == "eager"
    assert finding["path"] == ".automaton/tasks/eager/.state"
    assert 'ends at "research:approved"' in finding["message"]
    assert "changed outside status.py" in finding["message"]
    assert audit.for_task("honest") == []
    assert audit.exit_code == 1


def _edit_line(lines: list[str]) -> list[str]:
    entry = json.loads(lines[2])
    entry["actor"] = "someone-else"
    return [*lines[:2], json.dumps(entry, separators=(",", ":")), *lines[3:]]


@pytest.mark.parametrize(
    ("tamper", "line"),
    [
        pytest.param(_edit_line, 4, id="line-edited"),
        pytest.param(lambda lines: lines[:2] + lines[3:], 3, id="line-deleted"),
        pytest.param(lambda lines: lines[2:], 1, id="first-lines-truncated"),
    ],
)
def test_ar205_history_tampered(automaton_project: AutomatonProject, tamper, line: int) -> None:
    folder = automaton_project.task("chained", "design:approved")
    assert_clean(automaton_project.audit())
    path = folder / ".state.history"
    lines = path.read_text().splitlines()
    assert len(lines) == 7
    path.write_text("".join(f"{x}\n" for x in tamper(lines)))
    audit = automaton_project.audit()
    (finding,) = with_code(audit, "AR205")
    assert finding["message"].startswith(f".state.history line {line} ")
    assert finding["path"] == ".automaton/tasks/chained/.state.history"
    assert "AR204" not in audit.codes  # the last line still matches .state
    assert audit.exit_code == 1


def test_ar205_history_truncated_and_rechained(automaton_project: AutomatonProject) -> None:
    """Cutting the first lines and fixing up the chain still leaves a history without a start."""
    folder = automaton_project.task("chained", "design:approved")
    rewrite_history(folder, history(folder)[2:])
    audit = automaton_project.audit()
    (finding,) = with_code(audit, "AR205")
    assert finding["message"] == (
        ".state.history line 1 does not start the task's history (earlier lines were removed)"
    )


def _appended(source: str, target: str, command: str) -> dict[str, Any]:
    return {"time": day(now()), "from": source, "to": target, "actor": "a", "command": command}


@pytest.mark.parametrize(
    ("state", "extra", "words"),
    [
        pytest.param(
            "research",
            _appended("research", "implement", "--transition implement"),
            "'research' to 'implement' is not a legal transition",
            id="skips-the-gates",
        ),
        pytest.param(
            "design:awaiting_approval",
            _appended(
                "design:awaiting_approval", "design:approved", "--transition design:approved"
            ),
            "'design:awaiting_approval' to 'design:approved' is not a legal transition",
            id="approval-as-a-transition",
        ),
        pytest.param(
            "research",
            _appended("research", "research:approved", "--approve"),
            "approves 'research:approved' from 'research'",
            id="approval-of-a-gate-not-reached",
        ),
        pytest.param(
            "research",
            _appended("implement", "bug_find", "--transition bug_find"),
            "starts at 'implement' but the line before ends at 'research'",
            id="does-not-follow",
        ),
        pytest.param(
            "research",
            _appended("research", "research:awaiting_approval", "--edit"),
            "command '--edit' does not change a task's state",
            id="unknown-command",
        ),
    ],
)
def test_ar209_a_rechained_line_that_is_no_move(
    automaton_project: AutomatonProject, state: str, extra: dict[str, Any], words: str
) -> None:
    """A line appended by hand with a correct digest passes AR205, and not AR209."""
    folder = automaton_project.task("forged", state)
    assert_clean(automaton_project.audit())
    entries = history(folder)
    rewrite_history(folder, [*entries, extra])
    (folder / ".state").write_text(f"{extra['to']}\n")  # and .state to match: AR204 is silent
    audit = automaton_project.audit()
    assert "AR205" not in audit.codes and "AR204" not in audit.codes, audit.text
    (finding,) = with_code(audit, "AR209")
    assert finding["message"] == (
        f".state.history line {len(entries) + 1} is not a move status.py makes: {words}"
    )
    assert audit.exit_code == 1


def test_an_approval_line_of_no_phase_is_reported_not_a_crash(
    automaton_project: AutomatonProject,
) -> None:
    """A forged `--approve` line naming no phase is a finding (AR209), never a rule error."""
    folder = automaton_project.task("forged", "research:approved")
    bogus = {
        **history(folder)[-1],
        "from": "research:approved",
        "to": "bogus:approved",
        "artifact_sha256": "0" * 64,
    }
    rewrite_history(folder, [*history(folder), bogus])
    audit = automaton_project.audit()
    assert audit.exit_code == 1, audit.text
    assert "AR209" in audit.codes
    assert json.loads(automaton_project.run("--audit", "--json").out)["errors"] == []


def test_ar209_every_move_status_py_makes_is_one(automaton_project: AutomatonProject) -> None:
    """Approvals, transitions back from human_intervention, sub-tasks, restores: all clean."""
    automaton_project.task("whole", "complete")
    folder = automaton_project.task("back", "human_intervention")
    for artifact in ("DESIGN.md", "TEST_PLAN.md", "IMPLEMENTATION.md", "BUG_REPORT.md"):
        (folder / artifact).rename(folder / artifact.replace(".md", ".v1.md"))
    for artifact in ("ADVERSARIAL_BUG_REPORT.md", "DOC_REVIEW.md", "VERDICT.md"):
        (folder / artifact).rename(folder / artifact.replace(".md", ".v1.md"))
    assert automaton_project.run("--task", "back", "--transition", "design").exit_code == 0
    automaton_project.task("parent", "decomposition:approved")
    automaton_project.task("parent/sub", "implement")
    restored = automaton_project.task("restored", "design")
    (restored / ".state").write_text("garbage\n")
    assert automaton_project.run("--upgrade").exit_code == 0
    audit = automaton_project.audit()
    assert "AR209" not in audit.codes, audit.text
    assert_clean(audit)


def test_ar205_history_line_that_is_not_json(automaton_project: AutomatonProject) -> None:
    folder = automaton_project.task("chained", "design")
    path = folder / ".state.history"
    lines = path.read_text().splitlines()
    lines[1] = "not json"
    path.write_text("".join(f"{x}\n" for x in lines))
    (finding,) = with_code(automaton_project.audit(), "AR205")
    assert finding["message"] == ".state.history line 2 is not a JSON object"


def _forge(text: str) -> str:
    return text + "design:approved|2026-01-01T00:00:00Z|mallory\n"


@pytest.mark.parametrize(
    ("tamper", "words"),
    [
        pytest.param(_forge, "was not written by --approve", id="forged"),
        pytest.param(
            lambda text: text.replace("|user", "|mallory"),
            "differs from the approval recorded in .state.history",
            id="approver-edited",
        ),
        pytest.param(
            lambda text: text.replace(text[18:22], "1999"),
            "differs from the approval recorded in .state.history",
            id="time-edited",
        ),
        pytest.param(lambda text: "", "is missing from .state.approvals", id="deleted"),
    ],
)
def test_ar206_approval_log_tampered(automaton_project: AutomatonProject, tamper, words) -> None:
    folder = automaton_project.task("gated", "design")
    assert_clean(automaton_project.audit())
    path = folder / ".state.approvals"
    original = path.read_text()
    assert original.startswith("research:approved|")
    path.write_text(tamper(original))
    audit = automaton_project.audit()
    found = with_code(audit, "AR206")
    assert len(found) == 1, audit.text
    assert words in found[0]["message"]
    assert found[0]["path"] == ".automaton/tasks/gated/.state.approvals"
    assert audit.exit_code == 1


def test_ar207_approved_artifact_rewritten(automaton_project: AutomatonProject) -> None:
    folder = automaton_project.task("signed", "design")
    assert_clean(automaton_project.audit())
    (folder / "SPEC.md").write_text("# A different spec\n")
    audit = automaton_project.audit()
    (finding,) = with_code(audit, "AR207")
    assert finding["message"].startswith("SPEC.md changed after its approval at ")
    assert finding["path"] == ".automaton/tasks/signed/SPEC.md"
    assert audit.exit_code == 1


def test_ar207_approved_artifact_removed(automaton_project: AutomatonProject) -> None:
    folder = automaton_project.task("signed", "design:approved")
    (folder / "DESIGN.md").unlink()
    (finding,) = with_code(automaton_project.audit(), "AR207")
    assert finding["message"].startswith("DESIGN.md was removed after its approval at ")


def _reopen_at_research(project: AutomatonProject) -> Path:
    """A task taken to human_intervention, its SPEC.md rewritten, resumed at research after
    the later artifacts were archived (as docs/decisions.md asks); SPEC.md rewritten again."""
    folder = project.task("reopened", "human_intervention")
    (folder / "SPEC.md").write_text("# The spec, rethought\n")
    assert "AR207" in project.audit().codes  # still under the old approval
    for artifact in (
        "DESIGN.md",
        "TEST_PLAN.md",
        "IMPLEMENTATION.md",
        "BUG_REPORT.md",
        "ADVERSARIAL_BUG_REPORT.md",
        "DOC_REVIEW.md",
        "VERDICT.md",
    ):
        (folder / artifact).rename(folder / artifact.replace(".md", ".v1.md"))
    result = project.run("--task", "reopened", "--transition", "research")
    assert result.exit_code == 0, result
    (folder / "SPEC.md").write_text("# The spec, rethought again\n")
    return folder


def test_ar207_reopened_phase_is_not_held_to_its_old_approval(
    automaton_project: AutomatonProject,
) -> None:
    _reopen_at_research(automaton_project)
    audit = automaton_project.audit()
    assert [f for f in with_code(audit, "AR207") if f["path"].endswith("/SPEC.md")] == []


def test_ar207_not_reported_after_the_task_is_reopened(
    automaton_project: AutomatonProject,
) -> None:
    """human_intervention → research reopens research and every phase after it: the old
    sign-offs of DESIGN.md and TEST_PLAN.md no longer hold either (those files had to be
    archived for the transition to be allowed at all)."""
    _reopen_at_research(automaton_project)
    audit = automaton_project.audit()
    assert "AR207" not in audit.codes, audit.text
    assert_clean(audit)


def test_ar208_deleted_history_of_a_task_made_by_status_py_is_an_error(
    automaton_project: AutomatonProject,
) -> None:
    folder = automaton_project.task("made", "design:approved")
    (folder / ".state").write_text("implement\n")
    (folder / ".state.history").unlink()
    audit = automaton_project.audit()
    assert audit.exit_code == 1
    (finding,) = [f for f in audit.findings if f["code"] == "AR208"]
    assert finding["severity"] == "error"
    assert finding["message"].startswith(".state.history was deleted")


def test_ar208_task_without_history_is_a_note_not_tampering(
    automaton_project: AutomatonProject,
) -> None:
    folder = automaton_project.task("legacy", "research:approved")
    (folder / ".state.history").unlink()
    (folder / ".state.mutex").unlink()  # a task from an older version has neither
    audit = automaton_project.audit()
    assert audit.codes == ["AR208"]
    (finding,) = audit.findings
    assert finding["severity"] == "note"
    assert finding["path"] == ".automaton/tasks/legacy/.state.history"
    assert not {"AR203", "AR204", "AR205", "AR206", "AR207"} & set(audit.codes)
    assert audit.exit_code == 0
    lines = audit.text.splitlines()
    assert any(line.startswith("[NOTE] legacy: no .state.history") for line in lines)
    assert "0 violations found" in lines
    assert not any(line.startswith("  - legacy") for line in lines)  # notes stay out


# ---------------------------------------------------------------- category 3 (git)


def _git_project(project: AutomatonProject) -> None:
    """A repository whose first commit predates every task."""
    project.commit(
        {"README.txt": "hello\n", "src/app.py": "x = 1\n"}, "init", when=now() - 3 * HOUR
    )


def test_ar301_commit_with_trailer_during_research(automaton_project: AutomatonProject) -> None:
    _git_project(automaton_project)
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
        f"(state: research, commit: {sha[:7]}, date: {day(when)})"
    )
    assert audit.exit_code == 1


def test_ar301_commit_with_trailer_during_implement_is_fine(
    automaton_project: AutomatonProject,
) -> None:
    _git_project(automaton_project)
    automaton_project.task("building", "implement")
    automaton_project.task("researching", "research", files=["SPEC.md"])
    backdate(automaton_project)
    automaton_project.commit({"src/app.py": "x = 2\n"}, "work", task="building", when=now() - 600)
    assert_clean(automaton_project.audit())


def test_ar301_commit_before_the_task_left_implement_is_fine(
    automaton_project: AutomatonProject,
) -> None:
    """Phase intervals come from the history: a commit made in implement stays fine later."""
    _git_project(automaton_project)
    folder = automaton_project.task("done", "bug_find")
    entries = history(folder)
    base = now() - 2 * HOUR
    for number, entry in enumerate(entries):  # one minute per step, bug_find an hour ago
        entry["time"] = datetime.fromtimestamp(base + 60 * number, timezone.utc).strftime(
            TIME_FORMAT
        )
    entries[-1]["time"] = datetime.fromtimestamp(now() - HOUR, timezone.utc).strftime(TIME_FORMAT)
    rewrite_history(folder, entries)
    approvals = (folder / ".state.approvals").read_text().splitlines()
    approved = [e for e in entries if e.get("command") == "--approve"]
    (folder / ".state.approvals").write_text(
        "".join(f"{line.split('|')[0]}|{e['time']}|user\n" for line, e in zip(approvals, approved))
    )
    assert_clean(automaton_project.audit())
    automaton_project.commit(
        {"src/app.py": "x = 2\n"}, "in implement", when=now() - 2 * HOUR + 3000
    )
    assert_clean(automaton_project.audit())
    sha = automaton_project.commit({"src/app.py": "x = 3\n"}, "in bug_find", when=now() - 600)
    (finding,) = automaton_project.audit().findings
    assert finding["code"] == "AR301"
    assert f"(state: bug_find, commit: {sha[:7]}" in finding["message"]


def test_ar301_attributed_commit_is_judged_against_its_task_only(
    automaton_project: AutomatonProject,
) -> None:
    _git_project(automaton_project)
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
    _git_project(automaton_project)
    automaton_project.task("researching", "research", files=["SPEC.md"])
    automaton_project.task("building", "implement")
    backdate(automaton_project)
    automaton_project.commit({"src/app.py": "x = 2\n"}, "no trailer", when=now() - 600)
    assert_clean(automaton_project.audit())


def test_ar301_unattributed_commit_while_no_task_may_edit(
    automaton_project: AutomatonProject,
) -> None:
    _git_project(automaton_project)
    automaton_project.task("researching", "research", files=["SPEC.md"])
    automaton_project.task("designing", "design:awaiting_approval")
    automaton_project.task("finished", "complete")
    backdate(automaton_project)
    automaton_project.commit(
        {"src/app.py": "x = 2\n", "src/new.py": "y = 1\n"}, "w", when=now() - 600
    )
    audit = automaton_project.audit()
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
    _git_project(automaton_project)  # committed three hours before the tasks
    automaton_project.task("researching", "research", files=["SPEC.md"])
    backdate(automaton_project)
    assert_clean(automaton_project.audit())


def test_ar301_markdown_only_commit_is_ignored(automaton_project: AutomatonProject) -> None:
    _git_project(automaton_project)
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
    _git_project(automaton_project)
    automaton_project.task("researching", "research", files={"SPEC.md": "# spec\n"})
    backdate(automaton_project)
    automaton_project.git("add", ".automaton")
    automaton_project.git("commit", "-q", "-m", "task files", when=now() - 600)
    assert_clean(automaton_project.audit())


def test_ar301_source_exclude_in_automaton_toml(automaton_project: AutomatonProject) -> None:
    _git_project(automaton_project)
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
    assert sorted(f["path"] for f in automaton_project.audit().findings) == [
        "src/app.py",
        "vendor/lib.py",
    ]
    write_config(automaton_project, 'source-exclude = [".automaton/*", "*.md", "vendor/*"]\n')
    automaton_project.commit(
        {"automaton.toml": (automaton_project.root / "automaton.toml").read_text()},
        "cfg",
        when=now() - 2 * HOUR + 10,
    )
    assert [f["path"] for f in automaton_project.audit().findings] == ["src/app.py"]


def test_ar301_source_patterns_in_automaton_toml(automaton_project: AutomatonProject) -> None:
    _git_project(automaton_project)
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


def test_ar301_uncommitted_change_while_no_task_may_edit(
    automaton_project: AutomatonProject,
) -> None:
    _git_project(automaton_project)
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
    assert "uncommitted" in finding["message"]
    assert "(state: research, uncommitted" in finding["message"]
    assert audit.exit_code == 1


def test_ar301_uncommitted_change_while_a_task_implements(
    automaton_project: AutomatonProject,
) -> None:
    _git_project(automaton_project)
    automaton_project.task("researching", "research", files=["SPEC.md"])
    automaton_project.task("building", "implement")
    backdate(automaton_project)
    (automaton_project.root / "src" / "app.py").write_text("x = 99\n")
    assert_clean(automaton_project.audit())


def test_ar301_uncommitted_markdown_is_ignored(automaton_project: AutomatonProject) -> None:
    _git_project(automaton_project)
    automaton_project.task("researching", "research", files=["SPEC.md"])
    backdate(automaton_project)
    (automaton_project.root / "README.md").write_text("# notes\n")
    assert_clean(automaton_project.audit())


def test_ar301_task_without_history_falls_back_to_state_mtime(
    automaton_project: AutomatonProject,
) -> None:
    _git_project(automaton_project)
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
    assert f"(state: research, commit: {sha[:7]}" in finding["message"]


def test_ar301_commit_in_the_second_of_a_transition_gets_the_benefit(
    automaton_project: AutomatonProject,
) -> None:
    _git_project(automaton_project)
    folder = automaton_project.task("moving", "bug_find")
    leaving = store_time(history(folder)[-1]["time"])
    automaton_project.commit({"src/app.py": "x = 2\n"}, "w", task="moving", when=leaving)
    assert with_code(automaton_project.audit(), "AR301") == []
    automaton_project.commit({"src/app.py": "x = 3\n"}, "w", task="moving", when=leaving + 2)
    assert len(with_code(automaton_project.audit(), "AR301")) == 1


def store_time(stamp: str) -> int:
    return int(datetime.strptime(stamp, TIME_FORMAT).replace(tzinfo=timezone.utc).timestamp())


def test_ar301_reads_git_once_whatever_the_number_of_tasks(
    automaton_project: AutomatonProject, monkeypatch: pytest.MonkeyPatch
) -> None:
    from automaton_rules.core import git

    _git_project(automaton_project)
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


# ------------------------------------------------------------------------- category 4


def test_ar401_folder_made_by_hand(automaton_project: AutomatonProject) -> None:
    automaton_project.task("proper", "research", files=["SPEC.md"])
    automaton_project.folder("hand-made", files=["SPEC.md"])
    audit = automaton_project.audit()
    (finding,) = with_code(audit, "AR401")
    assert finding["task"] == "hand-made"
    assert finding["correction"] == "run --upgrade (inferred phase: research)"
    lines = section(audit.text, "=== Category 4: Manually Created Task Folders ===")
    assert (
        "[FAIL] hand-made: task was created manually (no .state file)"
        " — suggested correction: run --upgrade (inferred phase: research)"
    ) in lines
    assert "[PASS] proper: created with --create-task (.state present)" in lines
    assert audit.exit_code == 1
    assert "2 tasks audited" in audit.text.splitlines()
    result = automaton_project.run("--upgrade")
    assert result.exit_code == 0, result
    assert "AR401" not in automaton_project.audit().codes


def test_ar402_folder_without_a_task_name(automaton_project: AutomatonProject) -> None:
    automaton_project.task("proper", "research", files=["SPEC.md"])
    (automaton_project.tasks_dir / "My Task").mkdir()
    (automaton_project.tasks_dir / ".staging.creating").mkdir()  # hidden: not a task
    audit = automaton_project.audit()
    (finding,) = with_code(audit, "AR402")
    assert finding["task"] == "My Task"
    assert finding["path"] == ".automaton/tasks/My Task"
    assert "is not a task" in finding["message"]
    assert any(
        line.startswith("[FAIL] My Task: folder 'My Task' is not a task")
        for line in section(audit.text, "=== Category 4: Manually Created Task Folders ===")
    )
    assert audit.codes == ["AR402"]
    assert audit.exit_code == 1


# -------------------------------------------------------------------------- selection


@pytest.fixture
def warned(automaton_project: AutomatonProject) -> AutomatonProject:
    """One AR101 error and one AR202 warning (the specification's example, no git)."""
    spec_example(automaton_project, git=False)
    return automaton_project


@pytest.mark.parametrize(
    ("args", "codes", "exit_code"),
    [
        ((), ["AR101", "AR202"], 1),
        (("--select", "AR1"), ["AR101"], 1),
        (("--select", "AR2"), ["AR202"], 0),
        (("--select", "AR202,AR101"), ["AR101", "AR202"], 1),
        (("--ignore", "AR2"), ["AR101"], 1),
        (("--ignore", "AR101"), ["AR202"], 0),
        (("--ignore", "AR101", "--fail-on", "warning"), ["AR202"], 1),
        (("--fail-on", "warning", "--select", "AR3,AR4"), [], 0),
    ],
)
def test_selection_on_the_command_line(
    warned: AutomatonProject, args: tuple[str, ...], codes: list[str], exit_code: int
) -> None:
    audit = warned.audit(*args)
    assert audit.codes == codes
    assert audit.exit_code == exit_code
    assert audit.report["summary"]["exit_code"] == exit_code


@pytest.mark.parametrize(
    ("config", "args", "codes", "exit_code"),
    [
        ('select = ["AR2"]\n', (), ["AR202"], 0),
        ('ignore = ["AR101"]\n', (), ["AR202"], 0),
        ('ignore = ["AR101"]\nseverity = { AR202 = "error" }\n', (), ["AR202"], 1),
        ('ignore = ["AR101"]\nfail-on = "warning"\n', (), ["AR202"], 1),
        ('ignore = ["AR101"]\nfail-on = "warning"\n', ("--fail-on", "error"), ["AR202"], 0),
        ('severity = { AR101 = "note" }\n', (), ["AR101", "AR202"], 0),
        ('select = ["AR2"]\n', ("--select", "AR1"), ["AR101"], 1),  # --select replaces
        ('ignore = ["AR2"]\n', ("--ignore", "AR1"), [], 0),  # --ignore adds
    ],
)
def test_selection_in_automaton_toml(
    warned: AutomatonProject, config: str, args: tuple[str, ...], codes: list[str], exit_code: int
) -> None:
    write_config(warned, config)
    audit = warned.audit(*args)
    assert audit.codes == codes
    assert audit.exit_code == exit_code


def test_severity_override_shows_in_every_format(warned: AutomatonProject) -> None:
    write_config(warned, 'ignore = ["AR101"]\nseverity = { AR202 = "error" }\n')
    audit = warned.audit()
    assert audit.findings[0]["severity"] == "error"
    assert any(
        line.startswith("[FAIL] fix-login-bug: .state says") for line in audit.text.splitlines()
    )
    assert "1 violations found" in audit.text.splitlines()
    sarif = json.loads(warned.run("--audit", "--format", "sarif").out)
    assert [r["level"] for r in sarif["runs"][0]["results"]] == ["error"]
    github = warned.run("--audit", "--format", "github").out
    assert github.startswith("::error file=.automaton/tasks/fix-login-bug/.state,title=AR202::")


@pytest.mark.parametrize(
    "args", [("--select", "XX1"), ("--ignore", "AR9"), ("--select", "AR1,AR9")]
)
def test_unknown_rule_code_on_the_command_line(warned: AutomatonProject, args) -> None:
    result = warned.run("--audit", *args)
    assert result.exit_code == 2
    assert "Unknown rule code or prefix" in result.err
    assert args[1].split(",")[-1] in result.err
    assert result.out == ""


@pytest.mark.parametrize(
    "config",
    ['select = ["ZZ1"]\n', 'ignore = ["AR9"]\n', 'severity = { AR999 = "error" }\n'],
)
def test_unknown_rule_code_in_automaton_toml(warned: AutomatonProject, config: str) -> None:
    write_config(warned, config)
    result = warned.run("--audit")
    assert result.exit_code == 2
    assert "Unknown rule code or prefix" in result.err


@pytest.mark.parametrize(
    ("config", "key"),
    [
        ('selct = ["AR1"]\n', "selct"),
        ('fail-on = "fatal"\n', "fail-on"),
        ('source-exclude = "*.md"\n', "source-exclude"),
        ('severity = { AR202 = "loud" }\n', "severity"),
    ],
)
def test_bad_configuration_stops_the_audit(warned: AutomatonProject, config: str, key: str) -> None:
    write_config(warned, config)
    result = warned.run("--audit", "--json")
    assert result.exit_code == 2
    assert f"'{key}'" in (result.err + result.out)
    assert "automaton.toml" in (result.err + result.out)


def test_unknown_fail_on_value(warned: AutomatonProject) -> None:
    result = warned.run("--audit", "--fail-on", "fatal")
    assert result.exit_code == 2
    assert "fatal" in result.err


def test_broken_task_is_an_error_and_the_rest_is_still_audited(warned: AutomatonProject) -> None:
    (warned.task_dir("add-user-auth") / ".state").write_text("implemnt\n")
    audit = warned.audit()
    assert audit.exit_code == 2
    assert any("add-user-auth" in e and "implemnt" in e for e in audit.errors)
    assert audit.codes == ["AR101", "AR202"]
    assert "=== Errors ===" in audit.text


# ---------------------------------------------------------------------------- formats


def test_json_and_format_json_are_the_same_object(warned: AutomatonProject) -> None:
    by_flag = warned.run("--audit", "--json")
    by_format = warned.run("--audit", "--format", "json")
    assert by_flag.exit_code == by_format.exit_code == 1
    assert json.loads(by_flag.out) == json.loads(by_format.out)


def test_json_report_shape(warned: AutomatonProject) -> None:
    result = warned.run("--audit", "--json")
    report = json.loads(result.out)  # exactly one JSON object on stdout
    assert report["schema_version"] == 1
    assert report["tool"] == "automaton-rules"
    assert report["summary"]["exit_code"] == result.exit_code == 1
    assert report["summary"]["tasks"] == 3
    assert report["summary"]["violations"] == 1
    assert report["errors"] == []
    keys = {"code", "category", "severity", "task", "message", "path", "correction"}
    for finding in report["findings"]:
        assert keys <= set(finding)
    ahead = report["findings"][1]
    assert ahead["code"] == "AR202"
    assert ahead["category"] == "State-Artifact Inconsistency"
    assert ahead["severity"] == "warning"
    assert ahead["task"] == "fix-login-bug"
    assert ahead["path"] == ".automaton/tasks/fix-login-bug/.state"
    assert ahead["correction"] == "implement"
    assert result.err == ""


def _sarif(project: AutomatonProject, *args: str) -> tuple[int, dict[str, Any]]:
    result = project.run("--audit", "--format", "sarif", *args)
    return result.exit_code, json.loads(result.out)


def test_sarif_report(warned: AutomatonProject) -> None:
    legacy = warned.task("legacy", "research", files=["SPEC.md"])
    (legacy / ".state.history").unlink()  # an AR208 note
    (legacy / ".state.mutex").unlink()
    exit_code, log = _sarif(warned)
    assert exit_code == 1
    assert log["version"] == "2.1.0"
    assert "sarif" in log["$schema"] and log["$schema"].endswith(".json")
    (run,) = log["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "automaton-rules"
    ids = [rule["id"] for rule in driver["rules"]]
    assert len(ids) == len(set(ids))
    assert ids == list(BUILTIN_CODES)
    for rule in driver["rules"]:
        assert rule["shortDescription"]["text"]
        assert rule["defaultConfiguration"]["level"] in ("error", "warning", "note")
    results = run["results"]
    assert [r["ruleId"] for r in results] == ["AR101", "AR202", "AR208"]
    assert [r["level"] for r in results] == ["error", "warning", "note"]
    for result in results:
        assert result["ruleId"] in ids
        assert driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"]
        assert result["message"]["text"]
        (location,) = result["locations"]
        artifact = location["physicalLocation"]["artifactLocation"]
        assert artifact["uriBaseId"] == "%SRCROOT%"
        assert artifact["uri"].startswith(".automaton/tasks/")
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"].endswith("/")
    (invocation,) = run["invocations"]
    assert invocation["executionSuccessful"] is True
    assert invocation["toolExecutionNotifications"] == []


def test_sarif_rules_are_the_enabled_rules(warned: AutomatonProject) -> None:
    _, log = _sarif(warned, "--select", "AR2", "--ignore", "AR208")
    ids = [rule["id"] for rule in log["runs"][0]["tool"]["driver"]["rules"]]
    assert ids == [*(f"AR20{n}" for n in range(1, 8)), "AR209"]
    (result,) = log["runs"][0]["results"]
    assert ids[result["ruleIndex"]] == result["ruleId"] == "AR202"


def test_sarif_rule_ids_are_stable_across_runs(warned: AutomatonProject) -> None:
    _, first = _sarif(warned)
    warned.task("another", "implement")
    _, second = _sarif(warned)
    rules = [r["id"] for r in first["runs"][0]["tool"]["driver"]["rules"]]
    assert rules == [r["id"] for r in second["runs"][0]["tool"]["driver"]["rules"]]


def test_github_annotations(warned: AutomatonProject) -> None:
    legacy = warned.task("legacy", "research", files=["SPEC.md"])
    (legacy / ".state.history").unlink()
    (legacy / ".state.mutex").unlink()
    result = warned.run("--audit", "--format", "github")
    assert result.exit_code == 1
    lines = result.out.splitlines()
    assert lines[0] == (
        "::error file=.automaton/tasks/fix-login-bug/IMPLEMENTATION.md,title=AR101::"
        "fix-login-bug: IMPLEMENTATION.md belongs to the implement phase, which task state "
        "'research' has not reached"
    )
    assert lines[1] == (
        "::warning file=.automaton/tasks/fix-login-bug/.state,title=AR202::"
        'fix-login-bug: .state says "research" but IMPLEMENTATION.md exists'
    )
    assert lines[2].startswith(
        "::notice file=.automaton/tasks/legacy/.state.history,title=AR208::legacy: "
    )
    assert len([line for line in lines if line.startswith("::")]) == 3


ODD_PLUGIN = """
from automaton_rules import Finding, hookimpl, rule


@rule("ODD101", summary="odd characters", category="Odd Checks")
def odd(task):
    yield Finding("100% bad,\\nreally: yes", path="src/a,b:c%.py")


@hookimpl
def register_rules(register):
    register(odd)
"""


def test_github_annotations_escape_data_and_properties(
    automaton_project: AutomatonProject,
) -> None:
    automaton_project.task("odd", "research", files=["SPEC.md"])
    automaton_project.write_plugin(ODD_PLUGIN)
    result = automaton_project.run("--audit", "--format", "github")
    assert result.exit_code == 1
    assert result.out.splitlines()[0] == (
        "::error file=src/a%2Cb%3Ac%25.py,title=ODD101::odd: 100%25 bad,%0Areally: yes"
    )


def test_github_reports_plugin_errors(automaton_project: AutomatonProject) -> None:
    automaton_project.task("odd", "research", files=["SPEC.md"])
    automaton_project.write_plugin("raise RuntimeError('100%\\nbroken')\n", name="broken_rules")
    result = automaton_project.run("--audit", "--format", "github")
    assert result.exit_code == 2
    errors = [line for line in result.out.splitlines() if line.startswith("::error")]
    assert len(errors) == 1
    assert "broken_rules" in errors[0]
    assert "100%25%0Abroken" in errors[0]


def test_unknown_format(warned: AutomatonProject) -> None:
    result = warned.run("--audit", "--format", "xml")
    assert result.exit_code == 2
    assert "xml" in result.err


# ----------------------------------------------------------------------------- plugins

ACME_RULES = '''
"""A rule package installed from an index, found through its entry point."""
from automaton_rules import Finding, hookimpl, rule


@rule("ACME101", summary="DESIGN.md names its modules", category="Acme Checks")
def design_names_modules(task):
    text = task.read("DESIGN.md")
    if text is not None and "## Modules" not in text:
        yield Finding("DESIGN.md has no Modules section", path=task.relpath("DESIGN.md"))


@hookimpl
def register_rules(register):
    register(design_names_modules)
'''

LOCAL_RULES = '''
"""A rule of this project only, registered by path in automaton.toml."""
from automaton_rules import Finding, hookimpl, rule


@rule("LOC201", summary="SPEC.md is signed", category="Local Checks", severity="warning")
def spec_signed(task):
    text = task.read("SPEC.md")
    if text is not None and "Signed-off-by" not in text:
        yield Finding("SPEC.md is not signed", path=task.relpath("SPEC.md"))


@hookimpl
def register_rules(register):
    register(spec_signed)
'''


def status(site: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """status.py in a fresh interpreter, as CI runs it, with `site` installed."""
    return subprocess.run(
        [sys.executable, str(STATUS_PY), *args],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)])},
        timeout=60,
        check=False,
    )


@pytest.fixture
def third_party(automaton_project: AutomatonProject, tmp_path: Path) -> Path:
    """An entry-point plugin installed in `site`, and a path plugin in automaton.toml."""
    automaton_project.task("login", "design:approved")  # DESIGN.md has no Modules section
    site = tmp_path / "site"
    install(site, "acme_rules", ACME_RULES)
    rules = automaton_project.root / "rules"
    rules.mkdir()
    (rules / "local.py").write_text(LOCAL_RULES)
    write_config(automaton_project, 'plugins = ["rules/local.py"]\n')
    return site


def test_third_party_rules_in_the_text_report(
    automaton_project: AutomatonProject, third_party: Path
) -> None:
    proc = status(third_party, "--audit", "--project", str(automaton_project.root))
    assert proc.returncode == 1, proc.stderr
    lines = proc.stdout.splitlines()
    headings = [line for line in lines if line.startswith("=== Category")]
    assert headings == [
        *CATEGORY_HEADINGS,
        "=== Category 5: Acme Checks ===",
        "=== Category 6: Local Checks ===",
    ]
    assert section(proc.stdout, "=== Category 5: Acme Checks ===") == [
        "[FAIL] login: DESIGN.md has no Modules section"
    ]
    assert section(proc.stdout, "=== Category 6: Local Checks ===") == [
        "[WARN] login: SPEC.md is not signed"
    ]
    assert "1 violations found" in lines
    assert proc.stderr == ""


def test_third_party_rules_in_json_and_sarif(
    automaton_project: AutomatonProject, third_party: Path
) -> None:
    root = str(automaton_project.root)
    report = json.loads(status(third_party, "--audit", "--json", "--project", root).stdout)
    assert [(f["code"], f["category"], f["severity"]) for f in report["findings"]] == [
        ("ACME101", "Acme Checks", "error"),
        ("LOC201", "Local Checks", "warning"),
    ]
    plugins = {rule["code"]: rule["plugin"] for rule in report["rules"]}
    assert plugins["ACME101"] == "acme"
    assert plugins["LOC201"].endswith("rules/local.py")
    assert report["errors"] == []

    proc = status(third_party, "--audit", "--format", "sarif", "--project", root)
    assert proc.returncode == 1
    run = json.loads(proc.stdout)["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    ids = [rule["id"] for rule in rules]
    assert ids == [*BUILTIN_CODES, "ACME101", "LOC201"]
    assert rules[ids.index("ACME101")]["properties"]["plugin"] == "acme"
    assert rules[ids.index("LOC201")]["defaultConfiguration"]["level"] == "warning"
    assert [(r["ruleId"], ids[r["ruleIndex"]]) for r in run["results"]] == [
        ("ACME101", "ACME101"),
        ("LOC201", "LOC201"),
    ]
    uris = [
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"]
    ]
    assert uris == [".automaton/tasks/login/DESIGN.md", ".automaton/tasks/login/SPEC.md"]

    listed = status(third_party, "--list-rules", "--project", root)
    assert listed.returncode == 0, listed.stderr
    assert "plugin acme" in listed.stdout
    assert "rules/local.py" in listed.stdout


def test_entry_point_that_fails_to_import(
    automaton_project: AutomatonProject, tmp_path: Path
) -> None:
    automaton_project.task("fix", "research", files=["SPEC.md", "IMPLEMENTATION.md"])
    site = tmp_path / "site"
    install(site, "broken_rules", "raise ImportError('missing dependency acme-core')\n", "broken")
    proc = status(site, "--audit", "--json", "--project", str(automaton_project.root))
    assert proc.returncode == 2
    report = json.loads(proc.stdout)
    assert [f["code"] for f in report["findings"]] == ["AR101", "AR202"]
    (error,) = report["errors"]
    assert "broken" in error and "missing dependency acme-core" in error


BROKEN_PLUGINS = {
    "fails-to-import": "import acme_core_that_does_not_exist\n",
    "syntax-error": "def broken(:\n",
    "register-raises": """
from automaton_rules import hookimpl

@hookimpl
def register_rules(register):
    raise ValueError("cannot register today")
""",
    "registers-garbage": """
from automaton_rules import hookimpl

@hookimpl
def register_rules(register):
    register("AR999")
""",
    "rule-raises": """
from automaton_rules import Finding, hookimpl, rule

@rule("BRK101", summary="raises", category="Broken Checks")
def raises(task):
    raise KeyError("oops")

@hookimpl
def register_rules(register):
    register(raises)
""",
    "rule-yields-a-string": """
from automaton_rules import hookimpl, rule

@rule("BRK101", summary="garbage", category="Broken Checks")
def garbage(task):
    yield "not a finding"

@hookimpl
def register_rules(register):
    register(garbage)
""",
    "rule-returns-a-number": """
from automaton_rules import hookimpl, rule

@rule("BRK101", summary="garbage", category="Broken Checks")
def garbage(task):
    return 42

@hookimpl
def register_rules(register):
    register(garbage)
""",
    "finding-with-unknown-severity": """
from automaton_rules import Finding, hookimpl, rule

@rule("BRK101", summary="garbage", category="Broken Checks")
def garbage(task):
    yield Finding("bad severity", severity="fatal")

@hookimpl
def register_rules(register):
    register(garbage)
""",
    "finding-with-a-number-for-path": """
from automaton_rules import Finding, hookimpl, rule

@rule("BRK101", summary="garbage", category="Broken Checks")
def garbage(task):
    yield Finding("bad path", path=123)

@hookimpl
def register_rules(register):
    register(garbage)
""",
}


@pytest.mark.parametrize("kind", list(BROKEN_PLUGINS))
def test_broken_plugin_is_named_and_the_other_rules_still_report(
    automaton_project: AutomatonProject, kind: str
) -> None:
    automaton_project.task("fix", "research", files=["SPEC.md", "IMPLEMENTATION.md"])
    automaton_project.write_plugin(LOCAL_RULES, name="good_rules")
    automaton_project.write_plugin(BROKEN_PLUGINS[kind], name="broken_rules")

    text = automaton_project.run("--audit")
    assert text.exit_code == 2, text
    assert "Traceback" not in text.err
    assert "=== Errors ===" in text.out.splitlines(), text.err
    errors = section(text.out, "=== Errors ===")
    assert len(errors) == 1, text.out
    assert errors[0].startswith("ERROR: plugin ") and "broken_rules" in errors[0]
    assert "good_rules" not in errors[0]
    assert "[FAIL] fix (phase: research): found IMPLEMENTATION.md (implement phase artifact)" in (
        text.out.splitlines()
    )

    report = json.loads(automaton_project.run("--audit", "--json").out)
    assert report["summary"]["exit_code"] == 2
    assert [f["code"] for f in report["findings"]] == ["AR101", "AR202", "LOC201"]
    (error,) = report["errors"]
    assert "broken_rules" in error

    sarif = json.loads(automaton_project.run("--audit", "--format", "sarif").out)
    (invocation,) = sarif["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is False
    (note,) = invocation["toolExecutionNotifications"]
    assert note["level"] == "error" and "broken_rules" in note["message"]["text"]
    assert [r["ruleId"] for r in sarif["runs"][0]["results"]] == ["AR101", "AR202", "LOC201"]


def test_broken_rule_leaves_the_plugins_other_rules_working(
    automaton_project: AutomatonProject,
) -> None:
    automaton_project.task("fix", "research", files=["SPEC.md"])
    automaton_project.write_plugin(
        """
from automaton_rules import Finding, hookimpl, rule

@rule("MIX101", summary="raises", category="Mixed Checks")
def raises(task):
    raise RuntimeError("kaput")

@rule("MIX102", summary="works", category="Mixed Checks", severity="warning")
def works(task):
    yield Finding("still here")

@hookimpl
def register_rules(register):
    register(raises)
    register(works)
"""
    )
    audit = automaton_project.audit()
    assert audit.exit_code == 2
    assert audit.codes == ["MIX102"]
    (error,) = audit.errors
    assert "MIX101" in error and "fix" in error and "kaput" in error


def test_plugin_rule_code_clashing_with_a_builtin(automaton_project: AutomatonProject) -> None:
    automaton_project.task("fix", "research", files=["SPEC.md", "IMPLEMENTATION.md"])
    automaton_project.write_plugin(
        """
from automaton_rules import Finding, hookimpl, rule

@rule("AR101", summary="impostor", category="Impostor Checks")
def impostor(task):
    yield Finding("impostor")

@hookimpl
def register_rules(register):
    register(impostor)
""",
        name="impostor_rules",
    )
    audit = automaton_project.audit()
    assert audit.exit_code == 2
    assert audit.codes == ["AR101", "AR202"]
    assert all(f["message"] != "impostor" for f in audit.findings)
    assert any("impostor_rules" in e and "AR101" in e for e in audit.errors)


# -------------------------------------------------------------------------- --list-rules


def _listed(output: str) -> dict[str, str]:
    """Rule code to plugin, from the two lines --list-rules prints per rule."""
    lines = output.splitlines()
    found = {}
    for first, second in zip(lines, lines[1:]):
        code = first.split(" ", 1)[0]
        if code and not first.startswith(" ") and "; plugin " in second:
            found[code] = second.rsplit("; plugin ", 1)[1]
    return found


def test_list_rules_names_every_rule_and_its_plugin(automaton_project: AutomatonProject) -> None:
    automaton_project.task("demo")
    automaton_project.write_plugin(LOCAL_RULES, name="local_rules")
    result = automaton_project.run("--list-rules")
    assert result.exit_code == 0, result
    listed = _listed(result.out)
    assert list(listed) == [*BUILTIN_CODES, "LOC201"]
    for code, plugin in BUILTIN_PLUGIN.items():
        assert listed[code] == plugin
    assert listed["LOC201"].endswith("local_rules.py")
    assert "State-Artifact Inconsistency" in result.out
    assert "SPEC.md is signed" in result.out


def test_list_rules_json(automaton_project: AutomatonProject) -> None:
    automaton_project.task("demo")
    automaton_project.write_plugin(LOCAL_RULES, name="local_rules")
    write_config(
        automaton_project,
        'plugins = ["local_rules.py"]\nseverity = { LOC201 = "error" }\n',
    )
    result = automaton_project.run("--list-rules", "--json")
    assert result.exit_code == 0
    report = json.loads(result.out)
    assert report["schema_version"] == 1
    rows = {row["code"]: row for row in report["rules"]}
    assert list(rows) == [*BUILTIN_CODES, "LOC201"]
    assert rows["AR202"]["severity"] == "warning"
    assert rows["LOC201"]["severity"] == "error"  # as configured
    assert rows["AR101"]["plugin"] == "automaton_rules.builtin.out_of_order"
    assert rows["LOC201"]["category"] == "Local Checks"
    assert set(rows["AR101"]["when"]) == {"audit", "validate", "transition"}
    for row in report["rules"]:
        assert {"code", "severity", "category", "plugin", "summary"} <= set(row)


def test_list_rules_with_a_broken_plugin(automaton_project: AutomatonProject) -> None:
    automaton_project.task("demo")
    automaton_project.write_plugin("raise RuntimeError('no')\n", name="broken_rules")
    result = automaton_project.run("--list-rules")
    assert result.exit_code == 2
    assert "broken_rules" in result.out + result.err
    assert "AR101" in result.out


def test_list_rules_never_reads_the_current_directorys_config(
    automaton_project: AutomatonProject,
) -> None:
    """--project names a folder with no task yet: its configuration is used, or the command
    says the project was not found; the current directory's automaton.toml (here the
    repository's, which lists the EX rules) is never read instead."""
    automaton_project.write_plugin(LOCAL_RULES, name="local_rules")
    result = automaton_project.run("--list-rules", "--json")
    report = json.loads(result.out)
    codes = [row["code"] for row in report.get("rules", [])]
    assert not any(code.startswith("EX") for code in codes)
    if result.exit_code == 0:
        assert "LOC201" in codes
    else:
        assert result.exit_code == 2
        assert report["error"]["message"]


# -------------------------------------------------------------- example rules (rules/)


def test_ex201_verdict_must_decide(automaton_project: AutomatonProject) -> None:
    folder = automaton_project.task("judged", "referee", files={"VERDICT.md": "Looks fine.\n"})
    audit = automaton_project.audit("--config", REPO_CONFIG)
    (finding,) = with_code(audit, "EX201")
    assert finding["message"] == "VERDICT.md names no verdict (PASS, FAIL or NEEDS_REVIEW)"
    assert finding["category"] == "Artifact Quality"
    assert audit.exit_code == 1
    for verdict in ("PASS", "FAIL", "NEEDS_REVIEW"):
        (folder / "VERDICT.md").write_text(f"Verdict: {verdict}\n")
        assert with_code(automaton_project.audit("--config", REPO_CONFIG), "EX201") == []


def test_ex202_refuses_complete_on_fail_and_passes_on_pass(
    automaton_project: AutomatonProject,
) -> None:
    folder = automaton_project.task("judged", "referee", files={"VERDICT.md": "Verdict: FAIL\n"})
    refused = automaton_project.run(
        "--task", "judged", "--transition", "complete", "--config", REPO_CONFIG
    )
    assert refused.exit_code == 1
    assert "VERDICT.md says FAIL" in refused.err and "EX202" in refused.err
    assert (folder / ".state").read_text() == "referee\n"
    (folder / "VERDICT.md").write_text("Verdict: PASS\n")
    done = automaton_project.run(
        "--task", "judged", "--transition", "complete", "--config", REPO_CONFIG
    )
    assert done.exit_code == 0, done
    assert (folder / ".state").read_text() == "complete\n"
    assert with_code(automaton_project.audit("--config", REPO_CONFIG), "EX202") == []


def test_ex202_audit_finds_a_failed_task_marked_complete(
    automaton_project: AutomatonProject,
) -> None:
    folder = automaton_project.task("judged", "complete")
    (folder / "VERDICT.md").write_text("Verdict: NEEDS_REVIEW\n")
    audit = automaton_project.audit("--config", REPO_CONFIG)
    (finding,) = with_code(audit, "EX202")
    assert finding["correction"] == "human_intervention"
    assert audit.exit_code == 1


def test_ex301_expired_claim(automaton_project: AutomatonProject) -> None:
    automaton_project.use_plugins(str(ROOT / "rules" / "claims.py"))
    folder = automaton_project.task("claimed", "implement")
    claim = "agent: agent-7\nphase: implement\nclaimed: {t}\nexpires: {t}\n"
    future = (datetime.now(timezone.utc) + timedelta(hours=1)).strftime(TIME_FORMAT)
    (folder / ".state.lock").write_text(claim.format(t=future))
    clean = automaton_project.audit()
    assert_clean(clean)
    # a plugin's category prints even when none of its rules found anything
    assert section(clean.text, "=== Category 5: Multi-agent Claims ===") == [
        "[PASS] claimed: no violations"
    ]
    past = (datetime.now(timezone.utc) - timedelta(hours=1)).strftime(TIME_FORMAT)
    (folder / ".state.lock").write_text(claim.format(t=past))
    audit = automaton_project.audit()
    (finding,) = audit.findings
    assert finding["code"] == "EX301"
    assert finding["severity"] == "warning"
    assert finding["message"] == f"claim by agent 'agent-7' expired at {past}"
    assert finding["path"] == ".automaton/tasks/claimed/.state.lock"
    assert "=== Category 5: Multi-agent Claims ===" in audit.text.splitlines()
    assert audit.exit_code == 0


def test_example_rules_registered_by_the_repository_config(
    automaton_project: AutomatonProject,
) -> None:
    automaton_project.task("demo")
    result = automaton_project.run("--list-rules", "--json", "--config", REPO_CONFIG)
    assert result.exit_code == 0, result
    codes = {row["code"] for row in json.loads(result.out)["rules"]}
    assert {"EX101", "EX201", "EX202", "EX301"} <= codes


# ------------------------------------------------------------------------------ docs


def audit_finding_keys(project: AutomatonProject) -> list[str]:
    (project.task_dir("demo") / "IMPLEMENTATION.md").write_text("# early\n")
    findings = project.audit().findings
    (project.task_dir("demo") / "IMPLEMENTATION.md").unlink()
    return list(findings[0])


def test_audit_json_is_documented(automaton_project: AutomatonProject) -> None:
    """The issue: the JSON object's fields are documented in the docs."""
    automaton_project.task("demo", "research", files=["SPEC.md"])
    report = automaton_project.audit().report
    docs = "\n".join(p.read_text() for p in (ROOT / "docs").glob("*.md"))
    docs += (ROOT / "README.md").read_text()

    def documented(key: str) -> bool:
        return f"`{key}`" in docs or f'"{key}"' in docs

    keys = [*report, *report["summary"], *audit_finding_keys(automaton_project)]
    assert [key for key in keys if not documented(key)] == []


def test_every_configuration_key_is_shown_in_the_repository_config() -> None:
    """DESIGN §8: the repository's automaton.toml shows each key with a comment."""
    from automaton_rules.core import config

    text = (ROOT / "automaton.toml").read_text()
    missing = [key for key in config._KEYS if f"{key} =" not in text]
    assert missing == []


def test_readme_has_a_ci_example() -> None:
    """The issue: a CI example with `--audit --json` and a SARIF upload (README or its docs)."""
    text = (ROOT / "README.md").read_text()
    text += "".join(p.read_text() for p in sorted((ROOT / "docs").glob("*.md")))
    assert "--audit --json" in text
    assert "--format sarif" in text
    assert "upload-sarif" in text


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


def test_ar302_future_artifact_committed_then_deleted_before_the_transition(
    automaton_project: AutomatonProject,
) -> None:
    """Tamper: IMPLEMENTATION.md written during research, committed, then deleted so the
    research gate passes; no file is left for AR101, the commit is."""
    _git_project(automaton_project)
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
        f"IMPLEMENTATION.md was committed during research phase (state: research, commit: "
        f"{sha[:7]}, date: {day(ahead)}); it belongs to the implement phase"
    )
    assert "AR101" not in audit.codes
    assert audit.exit_code == 1


def test_ar302_artifacts_committed_in_their_phase_are_fine(
    automaton_project: AutomatonProject,
) -> None:
    _git_project(automaton_project)
    automaton_project.task("parent", "decomposition:approved")
    automaton_project.task("parent/part", "implement")
    automaton_project.task("whole", "bug_find")
    backdate(automaton_project)
    automaton_project.git("add", "-A", "--", ".automaton")
    automaton_project.git("commit", "-q", "-m", "tasks", when=now() - 60)
    audit = automaton_project.audit()
    assert "AR302" not in audit.codes, audit.text


def test_ar302_a_subtask_artifact_ahead_of_its_phase(automaton_project: AutomatonProject) -> None:
    _git_project(automaton_project)
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
