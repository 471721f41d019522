"""The state machine as data: states, edges, artifacts, guidance (no I/O).

The expected tables come from spec_tables.py, typed out from the specification.
"""

from __future__ import annotations

from collections import deque

import pytest
from spec_tables import (
    ALL_ARTIFACTS,
    APPROVAL_PHASES,
    FORBIDDEN_TABLE,
    LEGAL_EDGES,
    PHASES,
    REQUIRED,
    STATES,
    base,
)

from automaton_rules.core import machine


def successors(state: str) -> set[str]:
    """--transition targets plus the approval edge X:awaiting_approval -> X:approved."""
    nxt = set(machine.TRANSITIONS[state])
    if state.endswith(":awaiting_approval"):
        nxt.add(state.replace(":awaiting_approval", ":approved"))
    return nxt


def reachable_from(start: str) -> set[str]:
    seen = {start}
    queue = deque([start])
    while queue:
        for nxt in successors(queue.popleft()):
            if nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    return seen


# --- the states and the edges ------------------------------------------------------------


def test_states_are_the_phases_plus_approval_substates() -> None:
    expected = set(PHASES)
    expected |= {f"{p}:awaiting_approval" for p in APPROVAL_PHASES}
    expected |= {f"{p}:approved" for p in APPROVAL_PHASES}
    assert len(machine.STATES) == len(set(machine.STATES)) == 20
    assert set(machine.STATES) == expected


def test_every_state_has_an_entry_in_transitions() -> None:
    assert set(machine.TRANSITIONS) == set(STATES)


@pytest.mark.parametrize("state", STATES)
def test_every_target_is_a_known_state(state: str) -> None:
    for target in machine.TRANSITIONS[state]:
        assert machine.is_state(target), (state, target)
        assert target in STATES


def test_edges_are_exactly_the_specification_list() -> None:
    edges = {(s, t) for s, targets in machine.TRANSITIONS.items() for t in targets}
    assert edges == set(LEGAL_EDGES)


def test_no_self_loops_and_no_duplicate_targets() -> None:
    for state, targets in machine.TRANSITIONS.items():
        assert state not in targets
        assert len(targets) == len(set(targets)), state


@pytest.mark.parametrize("state", STATES)
def test_no_transition_edge_enters_an_approved_state(state: str) -> None:
    assert not [t for t in machine.TRANSITIONS[state] if t.endswith(":approved")]


@pytest.mark.parametrize("phase", APPROVAL_PHASES)
def test_no_transition_edge_leaves_an_awaiting_state(phase: str) -> None:
    state = f"{phase}:awaiting_approval"
    assert machine.TRANSITIONS[state] == ()
    assert machine.legal_targets(state) == ()
    assert machine.approval_target(state) == f"{phase}:approved"


@pytest.mark.parametrize("state", STATES)
def test_approval_target_only_for_awaiting_states(state: str) -> None:
    if state.endswith(":awaiting_approval"):
        assert machine.approval_target(state) == base(state) + ":approved"
    else:
        assert machine.approval_target(state) is None


def test_every_state_is_reachable_from_new() -> None:
    assert reachable_from("new") == set(STATES)


@pytest.mark.parametrize("state", [s for s in STATES if s != "complete"])
def test_complete_is_reachable_from_every_state(state: str) -> None:
    assert "complete" in reachable_from(state)


def test_complete_is_terminal() -> None:
    assert machine.TRANSITIONS["complete"] == ()
    assert reachable_from("complete") == {"complete"}


def test_predicates() -> None:
    assert machine.is_state("research:approved")
    for bogus in ("", "Research", "research:", "research:approved:x", "new\n", "implement "):
        assert not machine.is_state(bogus)
    assert machine.base_phase("design:awaiting_approval") == "design"
    assert machine.base_phase("bug_find") == "bug_find"
    assert machine.is_awaiting("design:awaiting_approval")
    assert not machine.is_awaiting("design:approved")
    assert machine.is_approved("design:approved")
    assert not machine.is_approved("design")
    for state in STATES:
        assert machine.needs_approval(state) == (base(state) in APPROVAL_PHASES)
        assert machine.is_edit_phase(state) == (state in ("implement", "doc_review"))


# --- artifacts ---------------------------------------------------------------------------


@pytest.mark.parametrize("state", STATES)
def test_required_artifact(state: str) -> None:
    assert machine.required_artifact(state) == REQUIRED.get(base(state))


def test_required_artifact_none_for_new_complete_and_human_intervention() -> None:
    for state in ("new", "complete", "human_intervention"):
        assert machine.required_artifact(state) is None


@pytest.mark.parametrize("state", STATES)
def test_forbidden_artifacts_follow_the_specification_table(state: str) -> None:
    assert machine.forbidden_artifacts(state) == frozenset(FORBIDDEN_TABLE[base(state)])


@pytest.mark.parametrize("state", STATES)
def test_own_artifact_and_earlier_ones_are_never_forbidden(state: str) -> None:
    forbidden = machine.forbidden_artifacts(state)
    own = machine.required_artifact(state)
    if own is not None:
        assert own not in forbidden
    if base(state) not in ("new", "research"):
        assert "SPEC.md" not in forbidden


def test_metadata_files_are_not_artifacts() -> None:
    for name in (
        ".state",
        ".state.approvals",
        ".state.history",
        ".state.lock",
        "VRAM_CONFIG.md",
        "PARENT_SPEC.md",
        "REVIEW.md",
        "NOTES.md",
        "subtasks",
        "spec.md",
    ):
        assert not machine.is_artifact(name), name
    for name in ALL_ARTIFACTS:
        assert machine.is_artifact(name)
    for names in FORBIDDEN_TABLE.values():
        for name in names:
            assert machine.is_artifact(name)


@pytest.mark.parametrize("phase,artifact", sorted(REQUIRED.items()))
def test_infer_phase_single_artifact(phase: str, artifact: str) -> None:
    assert machine.infer_phase([artifact]) == phase


@pytest.mark.parametrize(
    "artifacts,expected",
    [
        ([], "new"),
        (["NOTES.md", "REVIEW.md", ".state", "VRAM_CONFIG.md"], "new"),
        (["SPEC.md", "IMPLEMENTATION.md"], "implement"),
        (["IMPLEMENTATION.md", "SPEC.md"], "implement"),
        (["VERDICT.md", "SPEC.md"], "referee"),
        (["SPEC.md", "DESIGN.md", "DECOMPOSITION.md"], "design"),
        (["TEST_PLAN.md", "DECOMPOSITION.md"], "test_design"),
        (["BUG_REPORT.md", "ADVERSARIAL_BUG_REPORT.md", "SPEC.md"], "adversarial_bug_find"),
        (["DOC_REVIEW.md", "README.md"], "doc_review"),
        (list(ALL_ARTIFACTS), "referee"),
    ],
)
def test_infer_phase_latest_artifact_wins(artifacts: list[str], expected: str) -> None:
    assert machine.infer_phase(artifacts) == expected
    assert machine.infer_phase(reversed(artifacts)) == expected
    assert machine.infer_phase(iter(artifacts)) == expected


# --- guidance ----------------------------------------------------------------------------


@pytest.mark.parametrize("state", STATES)
def test_guidance_lists_are_non_empty_strings(state: str) -> None:
    info = machine.guidance(state)
    assert info.allowed and info.forbidden
    for item in (*info.allowed, *info.forbidden):
        assert isinstance(item, str) and item.strip()
    assert not set(info.allowed) & set(info.forbidden)


@pytest.mark.parametrize("state", STATES)
def test_edit_code_forbidden_exactly_outside_edit_phases(state: str) -> None:
    info = machine.guidance(state)
    if state in ("implement", "doc_review"):
        assert "Edit code" not in info.forbidden
    else:
        assert "Edit code" in info.forbidden
        assert "Edit code" not in info.allowed


def test_edit_code_allowed_in_implement() -> None:
    assert "Edit code" in machine.guidance("implement").allowed


@pytest.mark.parametrize("state", STATES)
def test_guidance_next_states_match_legal_targets(state: str) -> None:
    info = machine.guidance(state)
    if state.endswith(":awaiting_approval"):
        assert info.via_approve is True
        assert info.next_states == (base(state) + ":approved",)
    else:
        assert info.via_approve is False
        assert info.next_states == machine.legal_targets(state) == machine.TRANSITIONS[state]
    for nxt in info.next_states:
        assert nxt in successors(state)


@pytest.mark.parametrize("state", STATES)
def test_guidance_forbids_creating_exactly_the_forbidden_artifacts(state: str) -> None:
    info = machine.guidance(state)
    created = {item[len("Create ") :] for item in info.forbidden if item.startswith("Create ")}
    assert created == set(machine.forbidden_artifacts(state))


@pytest.mark.parametrize(
    "state,expected",
    [
        ("new", None),
        ("research", "SPEC.md"),
        ("research:awaiting_approval", "SPEC.md"),
        ("design", "DESIGN.md"),
        ("test_design:approved", "IMPLEMENTATION.md"),
        ("decomposition:approved", None),
        ("implement", "IMPLEMENTATION.md"),
        ("referee", "VERDICT.md"),
        ("complete", None),
    ],
)
def test_guidance_next_artifact(state: str, expected: str | None) -> None:
    assert machine.guidance(state).next_artifact == expected


def test_guidance_research_matches_the_specification_example() -> None:
    info = machine.guidance("research")
    assert info.allowed == ("Read project files", "Ask clarifying questions", "Write SPEC.md")
    for item in ("Edit code", "Create IMPLEMENTATION.md", "Create DESIGN.md"):
        assert item in info.forbidden
    assert "Skip to implementation" in info.forbidden


def test_guidance_awaiting_forbids_self_approval() -> None:
    info = machine.guidance("design:awaiting_approval")
    assert any("DESIGN.md" in item for item in info.allowed)
    assert "Approve on the user's behalf" in info.forbidden
