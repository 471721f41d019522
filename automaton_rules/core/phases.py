"""The workflow's order and the referee's verdict, as rules read them.

A *phase* is one of the workflow's steps, in `PHASES` (`new`, `research`, ...,
`complete`, `human_intervention`). A *state* is what a task's `.state` holds: a phase, or
for the four phases with an approval gate (research, decomposition, design, test_design)
`PHASE:awaiting_approval` or `PHASE:approved`. Every state belongs to exactly one phase
(`design:approved` to `design`), and states compare by their phase: the order says how
far a task has come along the workflow, not which path it took (a decomposed task never
passes through design). `complete` and `human_intervention` both end the referee's
phase, so neither comes after the other.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from automaton_rules.core import machine

PHASES: tuple[str, ...] = machine.PHASES

# The referee's three verdicts; `Task.verdict` reads VERDICT.md for one of them.
Verdict = Literal["PASS", "FAIL", "NEEDS_REVIEW"]
VERDICTS: tuple[Verdict, ...] = ("PASS", "FAIL", "NEEDS_REVIEW")

# Where each phase stands; the two ends of the referee's phase stand side by side.
_RANK: dict[str, int] = {
    **machine.PHASE_RANK,
    "human_intervention": machine.PHASE_RANK["complete"],
}

_VERDICT_LINE = re.compile(r"^\W*verdict\W*[:\-]\s*\W*(PASS|FAIL|NEEDS_REVIEW)\b", re.I | re.M)
_VERDICT_WORD = re.compile(r"\b(PASS|FAIL|NEEDS_REVIEW)\b")


def verdict_of(text: str) -> Verdict | None:
    """The verdict a `Verdict:` line names, else the first verdict word, else None: the
    one reading the workflow's gate, the follow-up command and rules share."""
    found = _VERDICT_LINE.search(text) or _VERDICT_WORD.search(text)
    if found is None:
        return None
    word = found.group(1).upper()
    return next(verdict for verdict in VERDICTS if verdict == word)


# A line that opens the referee's tie-breaks: `## Tie-Breaks`, `**Tie-breaks:** ...`,
# `Tiebreaks: none`; what follows on it, if anything, is group 1.
_TIE_BREAKS = re.compile(r"^[\s#>*_-]*tie[\s_-]?breaks?\b[\s*_]*:?[\s*_]*(.*)$", re.I)
_NOTHING = frozenset({"", "none", "n/a", "na", "no", "nil", "0", "-", "—", "none.", "(none)"})


def tie_breaks(text: str) -> bool:
    """Whether a VERDICT.md names tie-breaks: a `Tie-Breaks` line (or heading) with an
    entry on it or under it, before the next heading; "none" and the like are no entry.
    The v2.0 workflow pauses for the user on them, as on FAIL and NEEDS_REVIEW."""
    lines = text.splitlines()
    for index, line in enumerate(lines):
        found = _TIE_BREAKS.match(line)
        if found is None:
            continue
        if _said(found.group(1)):
            return True
        for below in lines[index + 1 :]:
            if below.lstrip().startswith("#"):
                break
            if _said(below):
                return True
    return False


def _said(line: str) -> bool:
    """A line that holds an entry: anything but white space, list marks and "none"."""
    return line.strip().strip("*_`-•").strip().lower() not in _NOTHING


def follow_up_cause(text: str) -> str | None:
    """What in a VERDICT.md calls for a follow-up task (a key of `machine.FOLLOW_UPS`):
    FAIL, NEEDS_REVIEW, or tie-breaks beside a PASS; None for a clean PASS or no verdict."""
    verdict = verdict_of(text)
    if verdict in machine.FOLLOW_UPS:
        return verdict
    return machine.TIE_BREAKS if verdict == "PASS" and tie_breaks(text) else None


def _unknown_phase(name: object) -> ValueError:
    """A name that is no phase, loudly: a misspelt phase would otherwise compare False
    forever; a state names its phase."""
    text = str(name)
    if isinstance(name, str) and machine.is_state(name):
        return ValueError(
            f"{text!r} is a state, not a phase: its phase is "
            f"{machine.base_phase(name)!r} (phases are {', '.join(PHASES)})"
        )
    import difflib  # only on the way to an error

    close = difflib.get_close_matches(text, PHASES, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return ValueError(f"unknown phase {text!r} (phases are {', '.join(PHASES)}){hint}")


@dataclass(frozen=True)
class Phase:
    """A phase, ordered as the workflow runs: `Phase("design") < Phase("implement")`, and
    `Phase.of(task.state) >= Phase("implement")` for "implement or later"."""

    name: str

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or self.name not in _RANK:
            raise _unknown_phase(self.name)

    @classmethod
    def of(cls, state: str) -> Phase:
        """The phase of a state (`design:approved` is in `design`); ValueError for no state."""
        if not isinstance(state, str) or not machine.is_state(state):
            raise ValueError(f"unknown state {state!r}")
        return cls(machine.base_phase(state))

    @property
    def rank(self) -> int:
        """Its place in the order; `complete` and `human_intervention` share one."""
        return _RANK[self.name]

    def __str__(self) -> str:
        return self.name

    def _other(self, other: object) -> Phase:
        return other if isinstance(other, Phase) else Phase(str(other))

    def __lt__(self, other: Phase | str) -> bool:
        return self.rank < self._other(other).rank

    def __le__(self, other: Phase | str) -> bool:
        phase = self._other(other)
        return self.rank < phase.rank or self.name == phase.name

    def __gt__(self, other: Phase | str) -> bool:
        return self._other(other) < self

    def __ge__(self, other: Phase | str) -> bool:
        return self._other(other) <= self


def reached(state: str | None, phase: str | Phase) -> bool:
    """Whether a task in `state` is in `phase` or past it: `reached(task.state,
    "implement")`. A state that is no state (None, or unknown) has reached nothing; a
    `phase` that is no phase is a ValueError, since it is the rule's own mistake."""
    wanted = phase if isinstance(phase, Phase) else Phase(phase)
    if state is None or not machine.is_state(state):
        return False
    return Phase.of(state) >= wanted


# What the other modules of the package use; the built-in rules import nothing else.
__all__ = [
    "PHASES",
    "Phase",
    "Verdict",
    "follow_up_cause",
    "reached",
    "verdict_of",
]
