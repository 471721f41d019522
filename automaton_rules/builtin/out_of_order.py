"""Category 1: artifacts of phases the task has not reached mean a phase was skipped."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from automaton_rules.core import machine
from automaton_rules.core.project import Task
from automaton_rules.engine.findings import OUT_OF_ORDER, Finding
from automaton_rules.engine.rule import Rule, Transition, rule


@rule(
    "AR101",
    summary="No artifact of a phase the task has not reached yet",
    category=OUT_OF_ORDER,
    when=("audit", "validate", "transition"),
)
def out_of_order_artifacts(task: Task, transition: Transition | None) -> Iterator[Finding]:
    """Before a transition both ends are checked, so no move lands in a skipped state."""
    if task.phase is None:
        return
    states = (task.state,) if transition is None else (transition.source, transition.target)
    forbidden = frozenset().union(*(machine.forbidden_artifacts(s) for s in states if s))
    for artifact in task.artifacts:
        if artifact in forbidden:
            phase = machine.ARTIFACT_PHASE[artifact]
            yield Finding(
                f"{artifact} belongs to the {phase} phase, which task state "
                f"'{task.state}' has not reached",
                path=task.relpath(artifact),
                correction=machine.infer_phase(task.artifacts),
                data={"artifact": artifact, "phase": phase},
            )


def register_rules(register: Callable[[Rule], None]) -> None:
    """The out-of-order check."""
    register(out_of_order_artifacts)
