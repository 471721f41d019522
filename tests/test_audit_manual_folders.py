"""Audit category 4, manually created task folders (AR401, AR402): a task folder without
.state, and a folder whose name no task can have, reported by --audit and by
--validate-folder alike; hidden staging folders are not tasks.
"""

from __future__ import annotations

import pytest
from helpers import OUT_OF_ORDER_PASS, Project, section, with_code

from automaton_rules.testing import AutomatonProject


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


# ------------------------------------------------- folders with names no task can have


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
    assert result.out.rstrip().endswith("Validated 6 task folders: 4 failed")


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
