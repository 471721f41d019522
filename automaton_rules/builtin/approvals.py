"""Category 2, continued: every approval was given the way the project's `approval` asks.

In `signed` mode each `--approve` line of the history is verified with `ssh-keygen -Y
verify` against the allowed-signers file, the same check the gate runs; a task in an
approved state with no such line at all (an approval and `.state` written by hand) is
reported too. In `prompt` mode an approval given on a plain command line is reported.
`open` accepts any approval, so the rule reports nothing there.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from automaton_rules.core import policy, store
from automaton_rules.core.config import Config
from automaton_rules.core.project import Project, Task
from automaton_rules.engine.findings import INCONSISTENCY, Finding
from automaton_rules.engine.rule import Rule, rule


def _finding(task: Task, state: str, time: object, reason: str, mode: str) -> Finding:
    return Finding(
        f'the {state} approval of {time} does not stand under approval = "{mode}": '
        f"{policy.describe(reason)}",
        path=task.relpath(store.HISTORY),
        data={"detail": "approval not given the way the project asks", "reason": reason},
    )


@rule(
    "AR210",
    summary="Every approval was given the way the project's approval setting asks",
    category=INCONSISTENCY,
    when=("audit", "validate"),
)
def approvals_not_proven(task: Task, project: Project, config: Config) -> Iterator[Finding]:
    """A forged, unsigned or wrongly signed approval, reported as the gate refuses it."""
    if not policy.Policy(config.approval).checks_approvals:
        return
    # Only here: signing runs ssh-keygen, whose modules `open` projects never load.
    from automaton_rules.support import signing

    rules = policy.Policy.of(config, project.root)
    for entry in task.history:
        if entry.get("command") != "--approve":
            continue
        reason = policy.unproven(project, task, rules, entry)
        if reason is not None:
            yield _finding(task, str(entry.get("to")), entry.get("time"), reason, rules.mode)
    if policy.approval_entry(task) is None and policy.gate_problem(project, task, rules):
        yield _finding(task, str(task.state), "no record", signing.MISSING, rules.mode)


def register_rules(register: Callable[[Rule], None]) -> None:
    """The approval-setting check."""
    register(approvals_not_proven)
