"""Planning a run: which rules are called, where and at what severity, with no project."""

from __future__ import annotations

from automaton_rules import rule
from automaton_rules.engine.plan import Plan, Registered, Selection
from automaton_rules.engine.plugins import BUILTIN_PLUGINS

BUILTIN = BUILTIN_PLUGINS[0]


@rule("T101", summary="per task", category="Cat A")
def per_task(task):
    return []


@rule("T201", summary="whole project", category="Cat B", when=("audit", "validate"))
def whole(project):
    return []


@rule("T301", summary="reads git per task", category="Cat A", severity="warning")
def with_git(task, git):
    return []


@rule("T401", summary="reads every task", category="Cat C")
def over_tasks(tasks):
    return []


RULES = [
    Registered(BUILTIN, per_task),
    Registered(BUILTIN, whole),
    Registered(BUILTIN, with_git),
    Registered("team_rules", over_tasks),
]


def test_task_rules_and_project_rules_are_told_apart() -> None:
    plan = Plan.build(RULES, "audit", Selection(), whole_project=True)
    assert [s.rule.code for s in plan.per_task] == ["T101", "T301"]
    assert [s.rule.code for s in plan.per_project] == ["T201", "T401"]
    assert plan.categories == ("Cat A", "Cat B", "Cat C")


def test_project_rules_wait_for_the_whole_project() -> None:
    plan = Plan.build(RULES, "validate", Selection(), whole_project=False)
    assert [s.rule.code for s in plan.per_task] == []
    assert plan.per_project == ()
    assert plan.categories == ("Cat B",), "a selected rule's category shows even when idle"


def test_helpers_take_only_pure_builtin_task_rules() -> None:
    plan = Plan.build(RULES, "audit", Selection(), whole_project=True)
    assert [s.rule.code for s in plan.shared] == ["T101"]
    assert [s.rule.code for s in plan.kept] == ["T301"], "git is read in the command"
    assert [s.rule.code for s in plan.early] == ["T201"], "T401 reads tasks; a plugin's waits"
    assert not plan.project_reads_git


def test_selection_and_severity_overrides_are_applied() -> None:
    selection = Selection(select=("T",), ignore=("T2",), severity={"T101": "note"})
    plan = Plan.build(RULES, "audit", selection, whole_project=True)
    assert [(s.rule.code, s.severity) for s in plan.per_task] == [
        ("T101", "note"),
        ("T301", "warning"),
    ]
    assert [s.rule.code for s in plan.per_project] == ["T401"]
    assert selection.unknown(["T101", "T201", "T301", "T401"]) == []
    assert Selection(select=("X9",)).unknown(["T101"]) == ["X9"]
