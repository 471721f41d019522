"""The workflow: the operations that move a task, and the checks each move must pass.

`operations` holds create, transition, approve, follow-up, claim and upgrade; `gates` what
must hold before a move; `approvals` how the project's `approval` mode lets an approval be
given, and checks it at the gate; `journal` the history written before `.state`, so a killed
command's change is finished by the next; `claims` multi-agent mode; `changes` what an
operation did, for the command line to show and, once durable, to `announce` to the plugins
that listen to events. It builds on the core and the engine's types (a transition consults
the rules through an engine handed in); nothing below it imports it, and the edit-time path
loads it only for `untracked = "infer"`.
"""

from automaton_rules.core.policy import OPEN, Policy
from automaton_rules.workflow.approvals import BY_COMMAND_LINE, Given
from automaton_rules.workflow.changes import (
    Adopted,
    Change,
    ClaimChanged,
    Created,
    FollowedUp,
    Moved,
    announce,
)
from automaton_rules.workflow.claims import SINGLE_AGENT, Claims, claim, release
from automaton_rules.workflow.gates import verdict_of
from automaton_rules.workflow.journal import default_actor
from automaton_rules.workflow.operations import (
    approve,
    create_task,
    follow_up,
    infer_untracked,
    transition,
    upgrade,
)

__all__ = [
    "BY_COMMAND_LINE",
    "OPEN",
    "SINGLE_AGENT",
    "Adopted",
    "Change",
    "ClaimChanged",
    "Claims",
    "Created",
    "FollowedUp",
    "Given",
    "Moved",
    "Policy",
    "announce",
    "approve",
    "claim",
    "create_task",
    "default_actor",
    "follow_up",
    "infer_untracked",
    "release",
    "transition",
    "upgrade",
    "verdict_of",
]
