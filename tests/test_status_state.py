"""Specification section 3, "State determination logic" (seeds/000): .state first, then
the artifact heuristic, then "unknown".

The acceptance criterion "Fallback to artifact heuristic when .state doesn't exist", and
the section's third step, reporting "unknown", each test named after what it checks.
DESIGN.md section 5 says which reading is the default: a folder made by hand is refused
and adopted with --upgrade, and `untracked = "infer"` gives the specification's fallback.
"""

from __future__ import annotations

from helpers import SCRIPT_CALL


def test_fallback_to_artifact_heuristic_when_state_doesnt_exist(project):
    """Criterion: "Fallback to artifact heuristic when .state doesn't exist" -- with
    `untracked = "infer"` (DESIGN.md section 5, the specification's reading), --task on a
    folder made by hand infers the phase of its latest artifact, writes .state and shows it.
    """
    (project.root / "automaton.toml").write_text('untracked = "infer"\n')
    folder = project.task_dir("hand-made")
    folder.mkdir(parents=True)
    (folder / "SPEC.md").write_text("# spec\n")
    (folder / "IMPLEMENTATION.md").write_text("# implementation\n")
    result = project.run("--task", "hand-made")
    assert result.rc == 0, result
    assert (folder / ".state").read_text() == "implement\n"
    assert "Phase: implement (from .state)" in result.out.splitlines()
    assert not (folder / ".state.tmp").exists()


def test_fallback_to_artifact_heuristic_default_refuses_naming_phase_and_upgrade(project):
    """Criterion: "Fallback to artifact heuristic when .state doesn't exist" -- by default
    (v2.0, DESIGN.md section 5) the untracked folder is refused with exit 2, an error that
    names the inferred phase and the --upgrade command, and nothing is written."""
    folder = project.task_dir("hand-made")
    folder.mkdir(parents=True)
    (folder / "SPEC.md").write_text("# spec\n")
    (folder / "IMPLEMENTATION.md").write_text("# implementation\n")
    result = project.run("--task", "hand-made")
    assert result.rc == 2, result
    assert result.out == ""
    assert result.err.startswith("ERROR: "), result
    assert "'implement'" in result.err
    assert f"--upgrade --project {project.root.resolve()}" in result.err
    assert sorted(p.name for p in folder.iterdir()) == ["IMPLEMENTATION.md", "SPEC.md"]


# --------------------------------------------------------------------------------------
# Step 3: report "unknown"
# --------------------------------------------------------------------------------------


def test_report_unknown_if_neither_state_nor_enough_artifacts_exist_to_determine_state(
    project,
):
    """Spec section 3: "Report "unknown" -- if neither .state nor enough artifacts exist to
    determine state". Even with the specification's fallback (`untracked = "infer"`), a
    folder with no artifact is not given a phase: it is reported unknown, nothing written."""
    (project.root / "automaton.toml").write_text('untracked = "infer"\n')
    empty = project.task_dir("empty-hand-made")
    empty.mkdir(parents=True)
    upgrade = f"{SCRIPT_CALL} --upgrade --project {project.root.resolve()}"
    for args in (
        ("--task", "empty-hand-made"),
        ("--task", "empty-hand-made", "--transition", "research"),
    ):
        result = project.run(*args)
        assert result.rc == 2, result
        assert result.err == (
            "ERROR: Task 'empty-hand-made' is untracked (no .state file) and has no artifacts: "
            f"its phase is unknown. Run '{upgrade}' to adopt it in phase 'new'.\n"
        )
    answer = project.run("--task", "empty-hand-made", "--json").json
    assert answer["next"]["phase"] == "unknown"
    assert list(empty.iterdir()) == []  # nothing inferred, nothing written
    validated = project.run("--validate-folder", "--task", "empty-hand-made")
    assert "Phase: unknown (no .state file found)" in validated.out.splitlines()
