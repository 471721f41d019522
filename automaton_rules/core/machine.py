"""The workflow as data: phases, sub-states, transitions, artifacts and guidance.

Nothing here touches the filesystem; every other module asks this one what the
workflow allows, so the rules of the game live in exactly one place.
"""

from __future__ import annotations

from automaton_rules.support.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

PHASES: tuple[str, ...] = (
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

APPROVAL_PHASES: tuple[str, ...] = ("research", "decomposition", "design", "test_design")
AWAITING = ":awaiting_approval"
APPROVED = ":approved"

STATES: tuple[str, ...] = tuple(
    state
    for phase in PHASES
    for state in (
        (phase, phase + AWAITING, phase + APPROVED) if phase in APPROVAL_PHASES else (phase,)
    )
)

EDIT_PHASES: frozenset[str] = frozenset({"implement", "doc_review"})

ARTIFACTS: dict[str, str] = {
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
ARTIFACT_PHASE: dict[str, str] = {artifact: phase for phase, artifact in ARTIFACTS.items()}

METADATA_FILES: frozenset[str] = frozenset({"VRAM_CONFIG.md", "PARENT_SPEC.md", "REVIEW.md"})
SUBTASKS_DIR = "subtasks"

_LATER_THAN_RESEARCH = (
    "DESIGN.md",
    "DECOMPOSITION.md",
    "TEST_PLAN.md",
    "IMPLEMENTATION.md",
    "BUG_REPORT.md",
    "ADVERSARIAL_BUG_REPORT.md",
    "DOC_REVIEW.md",
    "VERDICT.md",
)

FORBIDDEN: dict[str, frozenset[str]] = {
    "new": frozenset(("SPEC.md", *_LATER_THAN_RESEARCH)),
    "research": frozenset(_LATER_THAN_RESEARCH),
    "decomposition": frozenset(_LATER_THAN_RESEARCH) - {"DECOMPOSITION.md"},
    "design": frozenset(_LATER_THAN_RESEARCH) - {"DESIGN.md"},
    "test_design": frozenset(_LATER_THAN_RESEARCH) - {"DESIGN.md", "TEST_PLAN.md"},
    "implement": frozenset(
        {"BUG_REPORT.md", "ADVERSARIAL_BUG_REPORT.md", "DOC_REVIEW.md", "VERDICT.md"}
    ),
    "bug_find": frozenset({"ADVERSARIAL_BUG_REPORT.md", "DOC_REVIEW.md", "VERDICT.md"}),
    "adversarial_bug_find": frozenset({"DOC_REVIEW.md", "VERDICT.md"}),
    "doc_review": frozenset({"VERDICT.md"}),
    "referee": frozenset(),
    "complete": frozenset(),
    "human_intervention": frozenset(),
}

# Moves made with --transition. X:awaiting_approval -> X:approved is not here on
# purpose: only --approve makes it. Nor is X:approved -> X:awaiting_approval, open only
# once the approved artifact has changed (`reapproval_target`).
TRANSITIONS: dict[str, tuple[str, ...]] = {
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

# Where a parent in decomposition:approved stands while its sub-tasks run.
SUBTASK_PARENT_STATE = "decomposition:approved"
# Sub-tasks have no sub-tasks of their own, so they never enter decomposition.
SUBTASK_EXCLUDED: frozenset[str] = frozenset({"decomposition"})


def is_state(state: str) -> bool:
    """Tell a known state from anything else found in a .state file."""
    return state in _STATE_SET


def closest_state(name: str) -> str | None:
    """The known state a misspelt one most likely meant (`implemnt` -> `implement`), if any
    is close: for the error's "did you mean"."""
    import difflib  # only on the way to an error

    found = difflib.get_close_matches(name.strip().lower(), STATES, n=1, cutoff=0.75)
    return found[0] if found else None


def base_phase(state: str) -> str:
    """Strip the approval sub-state: most rules care about the phase alone."""
    return state.partition(":")[0]


def is_awaiting(state: str) -> bool:
    """An approval gate is open: only --approve may move the task on."""
    return state.endswith(AWAITING)


def is_approved(state: str) -> bool:
    """The user has signed off the phase's artifact."""
    return state.endswith(APPROVED)


def needs_approval(state: str) -> bool:
    """Phases with an approval gate; the others move on with --transition alone."""
    return base_phase(state) in APPROVAL_PHASES


def legal_targets(state: str, *, subtask: bool = False) -> tuple[str, ...]:
    """What --transition may move to from here; sub-tasks cannot be decomposed again."""
    targets = TRANSITIONS[state]
    if subtask:
        targets = tuple(t for t in targets if t not in SUBTASK_EXCLUDED)
    return targets


def approval_target(state: str) -> str | None:
    """The state --approve leads to, or None when no approval is pending."""
    return base_phase(state) + APPROVED if is_awaiting(state) else None


def reapproval_target(state: str) -> str | None:
    """The gate an `X:approved` task may go back to with --transition, only once the
    approved artifact has changed (the user approves the new one there); None elsewhere."""
    return base_phase(state) + AWAITING if is_approved(state) else None


def required_artifact(state: str) -> str | None:
    """The artifact that must exist, non-empty, before the task may leave this state."""
    return ARTIFACTS.get(base_phase(state))


def forbidden_artifacts(state: str) -> frozenset[str]:
    """Artifacts of phases this state has not reached; their presence means a skip."""
    return FORBIDDEN[base_phase(state)]


def is_artifact(name: str) -> bool:
    """Only phase deliverables count; notes, metadata and .state* files never do."""
    return name in ARTIFACT_PHASE


def is_edit_phase(state: str) -> bool:
    """Code may be edited only in these phases."""
    return base_phase(state) in EDIT_PHASES


def infer_phase(artifact_names: Iterable[str]) -> str:
    """Guess a phase from the latest artifact present, for folders with no .state."""
    present = set(artifact_names)
    latest = "new"
    for phase, artifact in ARTIFACTS.items():
        if artifact in present:
            latest = phase
    return latest


class Guidance(Record):
    """What an agent may do in a state and how the task moves on from it."""

    allowed: tuple[str, ...]
    forbidden: tuple[str, ...]
    next_artifact: str | None
    next_states: tuple[str, ...]
    via_approve: bool


_ALLOWED: dict[str, tuple[str, ...]] = {
    "new": ("Read project files", "Start research with --transition research, then write SPEC.md"),
    "research": ("Read project files", "Ask clarifying questions", "Write SPEC.md"),
    "decomposition": (
        "Read SPEC.md and project files",
        "Split the task into sub-tasks",
        "Write DECOMPOSITION.md",
    ),
    "design": ("Read SPEC.md and project files", "Write DESIGN.md"),
    "test_design": ("Read SPEC.md, DESIGN.md and project files", "Write TEST_PLAN.md"),
    "implement": ("Edit code", "Write and run tests", "Write IMPLEMENTATION.md"),
    "bug_find": ("Read code and run tests", "Write BUG_REPORT.md"),
    "adversarial_bug_find": (
        "Read code and run tests",
        "Try to break the implementation",
        "Write ADVERSARIAL_BUG_REPORT.md",
    ),
    "doc_review": ("Edit documentation and code comments", "Write DOC_REVIEW.md"),
    "referee": ("Read every artifact of the task", "Write VERDICT.md (PASS, FAIL or NEEDS_REVIEW)"),
    "complete": ("Read the task's artifacts",),
    "human_intervention": (
        "Explain the open question to the user",
        "Wait for the user's decision",
        "Before resuming at an earlier phase, archive the later artifacts "
        "(rename them, e.g. IMPLEMENTATION.md to IMPLEMENTATION.v1.md)",
    ),
}

_EXTRA_FORBIDDEN: dict[str, tuple[str, ...]] = {
    "new": ("Skip research",),
    "research": ("Skip to implementation",),
    "design": ("Skip to implementation",),
    "bug_find": ("Fix the bugs you find (report them instead)",),
    "adversarial_bug_find": ("Fix the bugs you find (report them instead)",),
    "complete": ("Reopen the task (create a follow-up task instead)",),
    "human_intervention": ("Resume work before the user decides",),
}


def guidance(state: str, *, subtask: bool = False) -> Guidance:
    """Allowed and forbidden actions, next artifact and next states for one state."""
    phase = base_phase(state)
    artifact = ARTIFACTS.get(phase)
    if is_awaiting(state):
        allowed: tuple[str, ...] = (
            f"Present {artifact} to the user for sign-off",
            f"Revise {artifact} on the user's feedback",
        )
        extra: tuple[str, ...] = (
            "Approve on the user's behalf",
            "Move on before the user approves",
        )
    elif is_approved(state):
        allowed = (f"Read {artifact}", "Move to the next phase with --transition")
        if state == SUBTASK_PARENT_STATE:
            allowed = (
                "Create the sub-tasks listed in DECOMPOSITION.md with --create-task",
                "Work on the sub-tasks",
                "Complete this task once every sub-task is complete",
            )
        extra = (f"Change {artifact} (it is approved)",)
    else:
        allowed = _ALLOWED[phase]
        extra = _EXTRA_FORBIDDEN.get(phase, ())
    forbidden: tuple[str, ...] = () if is_edit_phase(state) else ("Edit code",)
    forbidden += tuple(f"Create {name}" for name in ARTIFACTS.values() if name in FORBIDDEN[phase])
    forbidden += extra
    return Guidance(
        allowed=allowed,
        forbidden=forbidden,
        next_artifact=_next_artifact(state, subtask),
        next_states=(
            (approval_target(state) or "",)
            if is_awaiting(state)
            else legal_targets(state, subtask=subtask)
        ),
        via_approve=is_awaiting(state),
    )


def _next_artifact(state: str, subtask: bool) -> str | None:
    """The deliverable the agent should be producing now, if any."""
    if state == "new":
        return None
    if is_approved(state):
        targets = legal_targets(state, subtask=subtask)
        return ARTIFACTS.get(targets[0]) if len(targets) == 1 else None
    return ARTIFACTS.get(base_phase(state))


_STATE_SET = frozenset(STATES)
PHASE_RANK: dict[str, int] = {phase: rank for rank, phase in enumerate(PHASES)}
# Each known state's one string object, so thousands of tasks' timelines share them.
STATE_NAMES: dict[str, str] = {state: state for state in STATES}


# Phases every task passes through; decomposition, design and test design are optional.
MANDATORY_PHASES: tuple[str, ...] = (
    "research",
    "implement",
    "bug_find",
    "adversarial_bug_find",
    "doc_review",
    "referee",
)


def expected_artifacts(state: str) -> tuple[str, ...]:
    """Artifacts a state presumes: the mandatory phases' before it, and its own past a gate."""
    known = _EXPECTED.get(state)
    return known if known is not None else _expected_artifacts(state)


def _expected_artifacts(state: str) -> tuple[str, ...]:
    phase = base_phase(state)
    if phase in ("complete", "human_intervention"):
        before = MANDATORY_PHASES
    else:
        rank = PHASES.index(phase)
        before = tuple(p for p in MANDATORY_PHASES if PHASES.index(p) < rank)
        if phase == "test_design":
            before += ("design",)
    if is_awaiting(state) or is_approved(state):
        before += (phase,)
    return tuple(name for p, name in ARTIFACTS.items() if p in before)


# Worked out once per state: the audit asks for every task.
_EXPECTED: dict[str, tuple[str, ...]] = {state: _expected_artifacts(state) for state in STATES}


# A decomposed parent completes through its sub-tasks, so it presumes only these.
DECOMPOSED_ARTIFACTS: tuple[str, ...] = (ARTIFACTS["research"], ARTIFACTS["decomposition"])


# After a referee's verdict: what kind of follow-up task, starting where (v2.0 workflow:
# "fix/review/tiebreak tasks"), by what the referee said: FAIL, NEEDS_REVIEW, or
# tie-breaks beside a PASS (points the referee settled that the user has not).
TIE_BREAKS = "TIE_BREAKS"
FOLLOW_UPS: dict[str, tuple[str, str]] = {
    "FAIL": ("fix", "bug_find"),
    "NEEDS_REVIEW": ("review", "referee"),
    TIE_BREAKS: ("tiebreak", "referee"),
}
VERDICT_PHASES: frozenset[str] = frozenset({"referee", "complete", "human_intervention"})


def carried_artifacts(start: str) -> tuple[str, ...]:
    """The artifacts a follow-up task starting in `start` takes over: those before it, and
    the bug report in any case (v2.0: "copies relevant artifacts (SPEC.md, BUG_REPORT.md,
    etc.)"), which a fix task starting in bug_find revises rather than writes anew."""
    rank = PHASES.index(start)
    bugs = ARTIFACTS["bug_find"]
    return tuple(a for p, a in ARTIFACTS.items() if PHASES.index(p) < rank or a == bugs)


_ROUTE = (
    "research",
    "research:awaiting_approval",
    "research:approved",
    "design",
    "design:awaiting_approval",
    "design:approved",
    "test_design",
    "test_design:awaiting_approval",
    "test_design:approved",
    "implement",
    "bug_find",
    "adversarial_bug_find",
    "doc_review",
    "referee",
)
_DECOMPOSITION = ("decomposition", "decomposition:awaiting_approval", "decomposition:approved")


def route_to(state: str) -> tuple[str, ...]:
    """The usual states a task passes through from `new` to `state`, approvals included:
    how tests and the benchmark's generator walk a task to any state."""
    if not is_state(state):
        raise ValueError(f"unknown state {state!r}")
    if state == "new":
        return ()
    if state in _DECOMPOSITION:
        return (*_ROUTE[:3], *_DECOMPOSITION[: _DECOMPOSITION.index(state) + 1])
    if state in ("complete", "human_intervention"):
        return (*_ROUTE, state)
    return _ROUTE[: _ROUTE.index(state) + 1]


# What the other modules of the package use; the built-in rules import nothing else.
__all__ = [
    "APPROVAL_PHASES",
    "ARTIFACTS",
    "ARTIFACT_PHASE",
    "AWAITING",
    "DECOMPOSED_ARTIFACTS",
    "FOLLOW_UPS",
    "MANDATORY_PHASES",
    "PHASES",
    "PHASE_RANK",
    "STATES",
    "STATE_NAMES",
    "SUBTASKS_DIR",
    "SUBTASK_EXCLUDED",
    "SUBTASK_PARENT_STATE",
    "TIE_BREAKS",
    "VERDICT_PHASES",
    "Guidance",
    "approval_target",
    "base_phase",
    "carried_artifacts",
    "closest_state",
    "expected_artifacts",
    "forbidden_artifacts",
    "guidance",
    "infer_phase",
    "is_approved",
    "is_artifact",
    "is_awaiting",
    "is_edit_phase",
    "is_state",
    "legal_targets",
    "needs_approval",
    "reapproval_target",
    "required_artifact",
    "route_to",
]
