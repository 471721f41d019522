"""The example rules in rules/, registered by this repository's automaton.toml: called
directly, through --audit and transitions, and the verdict reading they share with the
workflow; written against the public API only, as a team's rules are.
"""

from __future__ import annotations

import ast
import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from helpers import ROOT, TIME_FORMAT, Project, assert_clean, section, with_code

import automaton_rules
from automaton_rules import verdict_of
from automaton_rules.core.config import load_config
from automaton_rules.core.project import project_at
from automaton_rules.engine.runner import Engine
from automaton_rules.testing import AutomatonProject

REPO_CONFIG = str(ROOT / "automaton.toml")


def test_repository_config_registers_the_example_rule(project: Project) -> None:
    settings = load_config(ROOT)
    engine = Engine.create(settings.plugins, base=settings.base)
    assert engine.errors == []
    codes = {rule.code: plugin for plugin, rule in engine.rules}
    assert "EX101" in codes
    assert codes["EX101"].endswith("rules/spec_quality.py")


def test_spec_without_acceptance_criteria_is_warned_but_passes(project: Project) -> None:
    project.create("demo")
    project.run("--task", "demo", "--transition", "research")
    project.write("demo", "SPEC.md", "# Spec\n\nJust words.\n")
    result = project.run("--validate-folder", "--task", "demo", "--config", REPO_CONFIG)
    assert result.rc == 0, result
    assert "Folder validation: PASS — no out-of-order artifacts found" in result.out
    assert "[WARN] EX101: SPEC.md has no 'Acceptance criteria' heading" in result.out


def test_spec_with_acceptance_criteria_is_clean(project: Project) -> None:
    project.create("demo")
    project.run("--task", "demo", "--transition", "research")
    project.write("demo", "SPEC.md", "# Spec\n\n## Acceptance Criteria\n- it works\n")
    result = project.run("--validate-folder", "--task", "demo", "--config", REPO_CONFIG, "--json")
    assert result.rc == 0
    assert result.json["findings"] == []


def test_rule_called_directly_on_a_task(project: Project) -> None:
    from spec_quality import spec_has_acceptance_criteria

    project.create("demo")
    project.write("demo", "SPEC.md", "# Spec\n")
    task = project_at(project.root).load("demo")
    assert [f.path for f in spec_has_acceptance_criteria(task)] == [".automaton/tasks/demo/SPEC.md"]
    project.write("demo", "SPEC.md", "   \n")
    assert list(spec_has_acceptance_criteria(project_at(project.root).load("demo"))) == []


def test_example_rule_does_not_block_transitions(project: Project) -> None:
    project.create("demo")
    project.run("--task", "demo", "--transition", "research")
    project.write("demo", "SPEC.md", "# Spec\n")
    result = project.run(
        "--task", "demo", "--transition", "research:awaiting_approval", "--config", REPO_CONFIG
    )
    assert result.rc == 0, result


# --------------------------------------------------- the example rules through --audit


def test_ex201_verdict_must_decide(automaton_project: AutomatonProject) -> None:
    folder = automaton_project.task("judged", "referee", files={"VERDICT.md": "Looks fine.\n"})
    audit = automaton_project.audit("--config", REPO_CONFIG)
    (finding,) = with_code(audit, "EX201")
    assert finding["message"] == "VERDICT.md names no verdict (PASS, FAIL or NEEDS_REVIEW)"
    assert finding["category"] == "Artifact Quality"
    assert audit.exit_code == 1
    for verdict in ("PASS", "FAIL", "NEEDS_REVIEW"):
        (folder / "VERDICT.md").write_text(f"Verdict: {verdict}\n")
        assert with_code(automaton_project.audit("--config", REPO_CONFIG), "EX201") == []


def test_ex202_refuses_complete_without_a_pass_and_passes_on_pass(
    automaton_project: AutomatonProject,
) -> None:
    """The workflow's own gate now refuses a verdict that is not PASS before EX202 is asked;
    the rule still passes a PASS and finds nothing in the audit."""
    folder = automaton_project.task("judged", "referee", files={"VERDICT.md": "Looks fine.\n"})
    refused = automaton_project.run(
        "--task", "judged", "--transition", "complete", "--config", REPO_CONFIG
    )
    assert refused.exit_code == 1
    assert "VERDICT.md names no verdict" in refused.err
    assert (folder / ".state").read_text() == "referee\n"
    (folder / "VERDICT.md").write_text("Verdict: PASS\n")
    done = automaton_project.run(
        "--task", "judged", "--transition", "complete", "--config", REPO_CONFIG
    )
    assert done.exit_code == 0, done
    assert (folder / ".state").read_text() == "complete\n"
    assert with_code(automaton_project.audit("--config", REPO_CONFIG), "EX202") == []


def test_ex202_audit_finds_a_failed_task_marked_complete(
    automaton_project: AutomatonProject,
) -> None:
    folder = automaton_project.task("judged", "complete")
    (folder / "VERDICT.md").write_text("Verdict: NEEDS_REVIEW\n")
    audit = automaton_project.audit("--config", REPO_CONFIG)
    (finding,) = with_code(audit, "EX202")
    assert finding["correction"] == "human_intervention"
    assert audit.exit_code == 1


def test_ex301_expired_claim(automaton_project: AutomatonProject) -> None:
    automaton_project.use_plugins(str(ROOT / "rules" / "claims.py"))
    folder = automaton_project.task("claimed", "implement")
    claim = "agent: agent-7\nphase: implement\nclaimed: {t}\nexpires: {t}\n"
    future = (datetime.now(timezone.utc) + timedelta(hours=1)).strftime(TIME_FORMAT)
    (folder / ".state.lock").write_text(claim.format(t=future))
    clean = automaton_project.audit()
    assert_clean(clean)
    # a plugin's category prints even when none of its rules found anything
    assert section(clean.text, "=== Category 6: Multi-agent Claims ===") == [
        "[PASS] claimed: no violations"
    ]
    past = (datetime.now(timezone.utc) - timedelta(hours=1)).strftime(TIME_FORMAT)
    (folder / ".state.lock").write_text(claim.format(t=past))
    audit = automaton_project.audit()
    (finding,) = audit.findings
    assert finding["code"] == "EX301"
    assert finding["severity"] == "warning"
    assert finding["message"] == f"claim by agent 'agent-7' expired at {past}"
    assert finding["path"] == ".automaton/tasks/claimed/.state.lock"
    assert "=== Category 6: Multi-agent Claims ===" in audit.text.splitlines()
    assert audit.exit_code == 0


def test_example_rules_registered_by_the_repository_config(
    automaton_project: AutomatonProject,
) -> None:
    automaton_project.task("demo")
    result = automaton_project.run("--list-rules", "--json", "--config", REPO_CONFIG)
    assert result.exit_code == 0, result
    codes = {row["code"] for row in json.loads(result.out)["rules"]}
    assert {"EX101", "EX201", "EX202", "EX301"} <= codes


# -------------------------------------------------------------------- rules/verdict.py


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("tests did not FAIL.\nVerdict: PASS\n", "PASS"),
        ("## Verdict\nverdict - needs_review", "NEEDS_REVIEW"),
        ("Looks fine.\n", None),
    ],
)
def test_verdict_of(text: str, expected: str | None) -> None:
    assert verdict_of(text) == expected


def test_task_verdict_reads_verdict_md_as_the_gate_does(project: Project) -> None:
    project.create("judged")
    assert project_at(project.root).load("judged").verdict is None  # no VERDICT.md
    project.write("judged", "VERDICT.md", "## Verdict\nverdict - needs_review\n")
    assert project_at(project.root).load("judged").verdict == "NEEDS_REVIEW"


def test_ex301_claim_with_no_readable_expiry(automaton_project: AutomatonProject) -> None:
    automaton_project.use_plugins(str(ROOT / "rules" / "claims.py"))
    folder = automaton_project.task("claimed", "implement")
    (folder / ".state.lock").write_text("agent: agent-7\nphase: implement\nexpires: soon\n")
    (finding,) = automaton_project.audit().findings
    assert finding["code"] == "EX301"
    assert finding["message"] == ".state.lock has no readable 'expires:' time"


# ------------------------------------------------------- rules/ uses the public API only


@pytest.mark.parametrize("path", sorted((ROOT / "rules").glob("*.py")), ids=lambda p: p.name)
def test_example_rules_import_only_the_public_api(path: Path) -> None:
    """A team copies these: every name they take from automaton_rules is a public one."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    imported = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("automaton_rules"):
            imported.append((node.module, [alias.name for alias in node.names]))
        elif isinstance(node, ast.Import):
            assert not any(a.name.startswith("automaton_rules") for a in node.names), path
    assert imported, f"{path.name} imports nothing from automaton_rules"
    for module, names in imported:
        assert module == "automaton_rules", f"{path.name} imports {module}"
        assert set(names) <= set(automaton_rules.__all__), names
