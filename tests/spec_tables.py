"""The specification's workflow tables, typed out once for the tests.

The tests compare the code with the specification, so these tables are copied by
hand from the specification (sections 3, 5, 5b, 6 and 10, and its acceptance criteria;
DESIGN.md section 2) and must never be imported from `automaton_rules`: a mistake in the
code's tables would otherwise be checked against itself. The specification's tests
(test_status.py and test_status_*.py) and test_machine.py share this one copy instead of
typing out their own.
"""

from __future__ import annotations

import re

# Section 3: the phases, and the four that pass an approval gate.
APPROVAL_PHASES = ("research", "decomposition", "design", "test_design")
PHASES = (
    "new",
    "research",
    "decomposition",
    "design",
    "test_design",
    "implement",
    "bug_find",
    "adversarial_bug_find",
    "doc_review",
    "referee",
    "complete",
    "human_intervention",
)
# Every state a .state file may hold: a phase, or an approval phase's two sub-states.
STATES = tuple(
    s
    for p in PHASES
    for s in ((p, f"{p}:awaiting_approval", f"{p}:approved") if p in APPROVAL_PHASES else (p,))
)

# Section 5 "Legal transitions", as made with --transition. X:awaiting_approval ->
# X:approved is "ONLY via --approve, not --transition", so it is not listed here.
# decomposition:approved -> complete once every sub-task is complete, and the exits of
# human_intervention, are DESIGN.md's reading of what the specification leaves open.
LEGAL: dict[str, tuple[str, ...]] = {
    "new": ("research",),
    "research": ("research:awaiting_approval",),
    "research:awaiting_approval": (),
    "research:approved": ("decomposition", "design", "implement"),
    "decomposition": ("decomposition:awaiting_approval",),
    "decomposition:awaiting_approval": (),
    "decomposition:approved": ("complete",),
    "design": ("design:awaiting_approval",),
    "design:awaiting_approval": (),
    "design:approved": ("test_design", "implement"),
    "test_design": ("test_design:awaiting_approval",),
    "test_design:awaiting_approval": (),
    "test_design:approved": ("implement",),
    "implement": ("bug_find",),
    "bug_find": ("adversarial_bug_find",),
    "adversarial_bug_find": ("doc_review",),
    "doc_review": ("referee",),
    "referee": ("complete", "human_intervention"),
    "complete": (),
    "human_intervention": ("research", "design", "implement", "bug_find", "complete"),
}
LEGAL_EDGES = [(source, target) for source in STATES for target in LEGAL[source]]
ILLEGAL_PAIRS = [
    (source, target) for source in STATES for target in STATES if target not in LEGAL[source]
]

# Section 6: the artifact that must exist, non-empty, before leaving a phase.
REQUIRED = {
    "research": "SPEC.md",
    "decomposition": "DECOMPOSITION.md",
    "design": "DESIGN.md",
    "test_design": "TEST_PLAN.md",
    "implement": "IMPLEMENTATION.md",
    "bug_find": "BUG_REPORT.md",
    "adversarial_bug_find": "ADVERSARIAL_BUG_REPORT.md",
    "doc_review": "DOC_REVIEW.md",
    "referee": "VERDICT.md",
}
OWNER = {artifact: phase for phase, artifact in REQUIRED.items()}
ALL_ARTIFACTS = tuple(REQUIRED.values())

# Section 5b: one line of the approval log, `{phase}:approved|{ISO timestamp}|{who}`.
APPROVAL_LINE = re.compile(
    r"^(?P<state>[a-z_]+:approved)\|(?P<time>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)\|(?P<who>.+)$"
)

# Section 10: phase-to-forbidden-artifacts mapping, copied from the specification's table,
# one row a phase (split into tuples below).
_FORBIDDEN_ROWS = {
    "new": "SPEC.md DESIGN.md DECOMPOSITION.md TEST_PLAN.md IMPLEMENTATION.md "
    "BUG_REPORT.md ADVERSARIAL_BUG_REPORT.md DOC_REVIEW.md VERDICT.md",
    "research": "DESIGN.md DECOMPOSITION.md TEST_PLAN.md IMPLEMENTATION.md "
    "BUG_REPORT.md ADVERSARIAL_BUG_REPORT.md DOC_REVIEW.md VERDICT.md",
    "decomposition": "DESIGN.md TEST_PLAN.md IMPLEMENTATION.md "
    "BUG_REPORT.md ADVERSARIAL_BUG_REPORT.md DOC_REVIEW.md VERDICT.md",
    "design": "DECOMPOSITION.md TEST_PLAN.md IMPLEMENTATION.md "
    "BUG_REPORT.md ADVERSARIAL_BUG_REPORT.md DOC_REVIEW.md VERDICT.md",
    "test_design": "DECOMPOSITION.md IMPLEMENTATION.md "
    "BUG_REPORT.md ADVERSARIAL_BUG_REPORT.md DOC_REVIEW.md VERDICT.md",
    "implement": "BUG_REPORT.md ADVERSARIAL_BUG_REPORT.md DOC_REVIEW.md VERDICT.md",
    "bug_find": "ADVERSARIAL_BUG_REPORT.md DOC_REVIEW.md VERDICT.md",
    "adversarial_bug_find": "DOC_REVIEW.md VERDICT.md",
    "doc_review": "VERDICT.md",
    "referee": "",
    "complete": "",
    "human_intervention": "",
}
FORBIDDEN_TABLE: dict[str, tuple[str, ...]] = {
    phase: tuple(row.split()) for phase, row in _FORBIDDEN_ROWS.items()
}


def base(state: str) -> str:
    """The phase of a state: X:awaiting_approval and X:approved belong to phase X."""
    return state.split(":", 1)[0]


def own_artifacts(state: str) -> list[str]:
    """The artifact the phase of `state` must write (section 6), if it has one."""
    return [REQUIRED[base(state)]] if base(state) in REQUIRED else []


# The specification's "Acceptance Criteria" (its second, complete list, after section 14),
# word for word, each with the name the tests that check it start with. The tests live in
# tests/test_status.py and tests/test_status_*.py, one file per section of the
# specification; test_status.py's test_tests_in_tests_test_status_py holds this list to them.
ACCEPTANCE_CRITERIA: tuple[tuple[str, str], ...] = (
    ("status.py exists in ~/.automaton/scripts/", "test_status_py_exists"),
    (
        "--task flag shows current phase (including approval sub-states), allowed actions, "
        "forbidden actions, next artifact, next phase",
        "test_task_flag_shows_current_phase",
    ),
    (
        "--task shows approval status for phases with :awaiting_approval or :approved sub-states",
        "test_task_shows_approval_status",
    ),
    (
        "--transition flag validates and writes .state transitions (including approval sub-states)",
        "test_transition_flag_validates_and_writes",
    ),
    (
        "--transition refuses transition from :awaiting_approval to anything other than :approved",
        "test_transition_refuses_transition_from_awaiting_approval",
    ),
    (
        "--transition refuses transition past :awaiting_approval without approval",
        "test_transition_refuses_transition_past_awaiting_approval",
    ),
    (
        "--approve command transitions :awaiting_approval to :approved",
        "test_approve_command_transitions",
    ),
    (
        "--approve refuses if current phase is not :awaiting_approval",
        "test_approve_refuses_if_current_phase_is_not_awaiting_approval",
    ),
    ("--approve records approval in .state.approvals log", "test_approve_records_approval"),
    (
        "--approve refuses for phases that don't require approval",
        "test_approve_refuses_for_phases_that_dont_require_approval",
    ),
    (
        "--create-task creates task folder with .state = new and empty .state.approvals",
        "test_create_task_creates_task_folder",
    ),
    ("--create-task validates kebab-case task names", "test_create_task_validates_kebab_case"),
    (
        "--create-task refuses if task already exists",
        "test_create_task_refuses_if_task_already_exists",
    ),
    (
        "--transition refuses transition if forbidden artifacts exist in task folder",
        "test_transition_refuses_transition_if_forbidden_artifacts",
    ),
    (
        "--transition refuses transition if required artifact is missing or empty",
        "test_transition_refuses_transition_if_required_artifact",
    ),
    (
        "--list flag shows all tasks with their current phase and approval status",
        "test_list_flag_shows_all_tasks",
    ),
    (
        "--validate-folder flag checks for out-of-order artifacts per phase",
        "test_validate_folder_flag_checks",
    ),
    (
        "--validate-folder flags task folders without .state as manually created",
        "test_validate_folder_flags_task_folders_without_state",
    ),
    (
        "--validate-folder uses the phase-to-forbidden-artifacts mapping",
        "test_validate_folder_uses_the_phase_to_forbidden_artifacts_mapping",
    ),
    (
        "--validate-folder excludes non-artifact files (.state, .state.approvals, "
        "VRAM_CONFIG.md, PARENT_SPEC.md, REVIEW.md)",
        "test_validate_folder_excludes_non_artifact_files",
    ),
    (
        "--audit flag runs all categories of checks across all tasks",
        "test_audit_flag_runs_all_categories",
    ),
    ("--audit Category 1: out-of-order artifacts per phase", "test_audit_category_1_"),
    (
        "--audit Category 2: state-artifact inconsistency (including approval sub-states)",
        "test_audit_category_2_state_artifact_inconsistency",
    ),
    (
        "--audit Category 3: unauthorized git modifications (with graceful skip if no git repo)",
        "test_audit_category_3_",
    ),
    (
        "--audit Category 4: manually created task folders (no .state file)",
        "test_audit_category_4_",
    ),
    (
        "--audit outputs structured report with exit codes (0=clean, 1=violations, 2=error)",
        "test_audit_outputs_structured_report",
    ),
    (
        "--can-edit returns ALLOWED/DENIED based on current phase (optional, for tool integration)",
        "test_can_edit_returns_allowed_denied",
    ),
    (
        "--can-create-task returns ALLOWED (optional, reserved for future tool integration)",
        "test_can_create_task_returns_allowed",
    ),
    (
        "--scope-check returns IN_SCOPE/OUT_OF_SCOPE (optional, for tool integration)",
        "test_scope_check_returns_in_scope_out_of_scope",
    ),
    (
        "--same-session returns SAME_SESSION/DIFFERENT_SESSION heuristic (optional, for tool "
        "integration)",
        "test_same_session_returns",
    ),
    (
        "Fallback to artifact heuristic when .state doesn't exist",
        "test_fallback_to_artifact_heuristic",
    ),
    ("Atomic writes for .state file", "test_atomic_writes_for_state_file"),
    (
        "Approval log (.state.approvals) is created and maintained",
        "test_approval_log_is_created_and_maintained",
    ),
    (
        "Transition validation (only legal transitions allowed, including approval sub-states)",
        "test_transition_validation_only_legal_transitions_allowed",
    ),
    (
        "Clear error messages for invalid states, illegal transitions, missing artifacts, "
        "out-of-order artifacts, approval violations",
        "test_clear_error_messages",
    ),
    ("Sub-task support (reading .state from sub-task folder)", "test_subtask_support"),
    (
        "Project path resolution (defaults to CWD, handles ~/.automaton/)",
        "test_project_path_resolution",
    ),
    ("Tests in tests/test_status.py", "test_tests_in_tests_test_status_py"),
)
