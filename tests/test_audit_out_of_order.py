"""Audit category 1, out-of-order artifacts (AR101): an artifact of a phase the task has
not reached is an error naming that phase; the tasks without one pass.
"""

from __future__ import annotations

from helpers import with_code

from automaton_rules.testing import AutomatonProject


def test_ar101_out_of_order_artifact(automaton_project: AutomatonProject) -> None:
    automaton_project.task("fine", "design", files=["DESIGN.md"])
    automaton_project.task("skipper", "design", files=["BUG_REPORT.md"])
    audit = automaton_project.audit()
    assert [(f["code"], f["task"]) for f in audit.findings if f["severity"] == "error"] == [
        ("AR101", "skipper")
    ]
    (finding,) = with_code(audit, "AR101")
    assert finding["path"] == ".automaton/tasks/skipper/BUG_REPORT.md"
    assert (
        "[FAIL] skipper (phase: design): found BUG_REPORT.md (bug_find phase artifact)"
        in audit.text.splitlines()
    )
    assert "[PASS] fine: no violations" in audit.text.splitlines()
    assert audit.exit_code == 1
