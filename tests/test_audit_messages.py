"""The audit says what it means (issue 13): the summary's counts agree with its lists,
GitHub annotations and SARIF locations point at files that exist, a folder adopted by
--upgrade is not "created with --create-task", and --list offers `complete` to a parent
whose sub-tasks are all complete.
"""

from __future__ import annotations

import json
import re

from helpers import CAT4, Project, backdate, git_project, now, section, write_config

from automaton_rules.testing import AutomatonProject

# ------------------------------------------------------------------------- the summary


def many_findings(project: AutomatonProject) -> None:
    """Errors and warnings in several categories, as the issue's project had them."""
    git_project(project)
    project.task("skipper", "research", files=["SPEC.md", "IMPLEMENTATION.md"])
    project.task("leaper", "new", files=["DESIGN.md"])
    project.task("coder", "research", files=["SPEC.md"])
    project.folder("by-hand", files=["SPEC.md"])
    backdate(project)
    project.commit({"src/app.py": "x = 2\n"}, "code", task="coder", when=now() - 600)
    project.commit({"automaton.toml": "fail-on = 'error'\n"}, "configure")
    project.commit({"automaton.toml": "fail-on = 'error'\n\n"}, "configure again")


def counted_blocks(summary: list[str]) -> dict[str, tuple[int, int]]:
    """Each count line of a summary: the number it says, and the bullets under it."""
    blocks: dict[str, tuple[int, int]] = {}
    current = None
    for line in summary:
        if line.startswith("  - ") and current is not None:
            said, listed = blocks[current]
            blocks[current] = (said, listed + 1)
            continue
        match = re.fullmatch(r"(\d+) (violations found|warnings?|notes?)( .*)?", line)
        current = (
            match.group(2).rstrip("s").replace("violations found", "violation") if match else None
        )
        if match:
            blocks[current] = (int(match.group(1)), 0)
    return blocks


def test_the_count_agrees_with_the_bullets(automaton_project: AutomatonProject) -> None:
    """The issue: "4 violations found" followed by 9 bullets, 5 of them warnings."""
    many_findings(automaton_project)
    audit = automaton_project.audit()
    severities = [f["severity"] for f in audit.findings]
    errors, warnings = severities.count("error"), severities.count("warning")
    assert errors >= 3 and warnings >= 3, audit.text
    summary = section(audit.text, "=== Summary ===")
    assert f"{errors} violations found" in summary  # the specification's line, errors only
    assert counted_blocks(summary) == {
        "violation": (errors, errors),
        "warning": (warnings, warnings),
    }
    after = summary.index(f"{warnings} warnings")
    assert (
        summary[after + 1 :][:warnings]
        == [line for line in summary if line.startswith("  - ")][errors:]
    )


def test_with_fail_on_warning_the_warnings_are_violations(
    automaton_project: AutomatonProject,
) -> None:
    many_findings(automaton_project)
    audit = automaton_project.audit("--fail-on", "warning")
    summary = section(audit.text, "=== Summary ===")
    total = len(audit.findings)
    assert counted_blocks(summary) == {"violation": (total, total)}


def test_notes_are_counted_and_left_in_their_categories(
    automaton_project: AutomatonProject,
) -> None:
    automaton_project.task("skipper", "research", files=["SPEC.md", "IMPLEMENTATION.md"])
    write_config(automaton_project, 'severity = { AR202 = "note" }\n')
    audit = automaton_project.audit()
    summary = section(audit.text, "=== Summary ===")
    assert summary[1:] == [
        "1 violation found",
        "  - skipper: out-of-order artifact (IMPLEMENTATION.md)",
        "1 note (listed in their categories above)",
    ]


def test_a_clean_summary_is_unchanged(automaton_project: AutomatonProject) -> None:
    automaton_project.task("fine", "research", files=["SPEC.md"])
    summary = section(automaton_project.run("--audit").out, "=== Summary ===")
    assert summary == ["1 task audited", "0 violations found"]


# ----------------------------------------------------------------- annotated files


def removed_things(project: AutomatonProject) -> None:
    """Findings about files and folders that do not exist, or that are folders."""
    git_project(project)
    project.task("gone", "research", files=["SPEC.md"])
    project.git("add", "-A")
    project.git("commit", "-q", "-m", "a task")
    project.git("rm", "-r", "-q", ".automaton/tasks/gone")
    project.git("commit", "-q", "-m", "remove it")  # AR502 about a folder that is gone
    project.commit({"automaton.toml": "fail-on = 'error'\n"}, "configure")
    project.git("rm", "-q", "automaton.toml")
    project.git("commit", "-q", "-m", "unconfigure")  # AR501 twice, the file now gone
    project.folder("empty-by-hand")  # AR401 about a .state that does not exist
    project.folder("by-hand", files=["SPEC.md"])
    (project.tasks_dir / "Bad Name").mkdir()  # AR402 about a folder


def test_github_annotations_name_only_files_that_exist(
    automaton_project: AutomatonProject,
) -> None:
    removed_things(automaton_project)
    result = automaton_project.run("--audit", "--format", "github")
    lines = [line for line in result.out.splitlines() if line.startswith("::")]
    codes = {re.search(r"title=(\w+)", line).group(1) for line in lines}
    assert {"AR401", "AR402", "AR501", "AR502"} <= codes, result.out
    for line in lines:
        found = re.search(r"file=([^,]*),", line)
        if found:
            assert (automaton_project.root / found.group(1)).is_file(), line
    by_task = {line.split("::")[2].split(":")[0]: line for line in lines if "AR40" in line}
    assert by_task["by-hand"].startswith(
        "::error file=.automaton/tasks/by-hand/SPEC.md,title=AR401::by-hand: task was created "
        "manually (no .state file) (.automaton/tasks/by-hand/.state: no such file)"
    )
    assert by_task["empty-by-hand"] == (
        "::error title=AR401::empty-by-hand: task was created manually (no .state file) "
        "(.automaton/tasks/empty-by-hand/.state: no such file) — suggested correction: run "
        "--upgrade (inferred phase: new)"
    )
    assert by_task["Bad Name"].startswith("::error title=AR402::Bad Name: folder 'Bad Name'")
    assert by_task["Bad Name"].endswith("(.automaton/tasks/Bad Name: a folder)")
    (removed,) = [line for line in lines if "title=AR502" in line]
    assert removed.startswith("::error title=AR502::gone: task folder .automaton/tasks/gone")
    for line in (line for line in lines if "title=AR501" in line):
        assert "file=" not in line
        assert line.endswith("(automaton.toml: no such file)")


def test_sarif_locations_are_files_that_exist_or_named_in_the_message(
    automaton_project: AutomatonProject,
) -> None:
    removed_things(automaton_project)
    (run,) = json.loads(automaton_project.run("--audit", "--format", "sarif").out)["runs"]
    for result in run["results"]:
        (location,) = result["locations"]  # code scanning refuses a result without one
        uri = location["physicalLocation"]["artifactLocation"]["uri"]
        path = result["properties"]["path"]
        if not (automaton_project.root / path).is_file():
            assert result["message"]["text"].endswith(
                (f"({path}: no such file)", f"({path}: a folder)")
            ), result
        elif uri != path:
            raise AssertionError(result)
    by_hand = [r for r in run["results"] if r["properties"]["task"] == "by-hand"]
    uri = by_hand[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri == ".automaton/tasks/by-hand/SPEC.md"


# ------------------------------------------------------------ category 4's PASS line


def test_a_folder_adopted_by_upgrade_says_so(automaton_project: AutomatonProject) -> None:
    """The issue: a folder made with mkdir and adopted by --upgrade was reported as
    "created with --create-task"."""
    automaton_project.task("proper", "research", files=["SPEC.md"])
    automaton_project.folder("by-hand", files=["SPEC.md"])
    assert automaton_project.run("--upgrade").exit_code == 0
    lines = section(automaton_project.run("--audit").out, CAT4)
    assert lines == [
        "[PASS] by-hand: adopted with --upgrade (.state present)",
        "[PASS] proper: created with --create-task (.state present)",
    ]


def test_a_follow_up_task_says_how_it_was_made(project: Project) -> None:
    project.task("judged", "referee")
    (project.task_dir("judged") / "VERDICT.md").write_text("Verdict: FAIL\n")
    assert project.run("--task", "judged", "--follow-up").rc == 0
    lines = section(project.run("--audit").out, CAT4)
    assert "[PASS] judged-fix: created with --follow-up (.state present)" in lines
    assert "[PASS] judged: created with --create-task (.state present)" in lines


# ---------------------------------------------------------------------------- --list


def test_list_offers_complete_once_every_sub_task_is_complete(project: Project) -> None:
    """The issue: --list still showed "sub-tasks, then complete" for a parent whose
    sub-tasks were all complete."""
    project.task("big", "decomposition:approved")
    project.task("big/part-a", "complete")
    project.task("big/part-b", "implement")

    def step(name: str) -> str:
        listed = project.run("--list", "--json").json
        return next(t["next_step"] for t in listed["tasks"] if t["name"] == name)

    assert step("big") == "sub-tasks, then complete"
    project.advance("big/part-b", ["bug_find", "adversarial_bug_find", "doc_review"])
    project.advance("big/part-b", ["referee", "complete"])
    assert step("big") == "complete"
    rows = project.run("--list").out.splitlines()
    (line,) = [row for row in rows if row.startswith("big ")]
    assert line.split() == ["big", "decomposition:approved", "complete"]
    assert project.run("--task", "big", "--transition", "complete").rc == 0


def test_list_keeps_sub_tasks_then_complete_without_sub_tasks(project: Project) -> None:
    project.task("lonely", "decomposition:approved")
    rows = project.run("--list").out.splitlines()
    (line,) = [row for row in rows if row.startswith("lonely ")]
    assert line.endswith("sub-tasks, then complete")
