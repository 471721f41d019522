"""The specification's workflow tables, typed out once for the tests.

The tests compare the code with the specification, so these tables are copied by
hand from the specification (sections 3, 5, 6 and 10; DESIGN.md section 2) and must
never be imported from `automaton_rules`: a mistake in the code's tables would
otherwise be checked against itself. test_status.py and test_machine.py share this
one copy instead of typing out their own.
"""

from __future__ import annotations

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
