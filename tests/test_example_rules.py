"""The example rules in rules/, registered by this repository's automaton.toml."""

from __future__ import annotations

from conftest import ROOT, Project

from automaton_rules import Engine
from automaton_rules.core.config import load_config
from automaton_rules.core.project import project_at

CONFIG = str(ROOT / "automaton.toml")


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
    result = project.run("--validate-folder", "--task", "demo", "--config", CONFIG)
    assert result.rc == 0, result
    assert "Folder validation: PASS — no out-of-order artifacts found" in result.out
    assert "[WARN] EX101: SPEC.md has no 'Acceptance criteria' heading" in result.out


def test_spec_with_acceptance_criteria_is_clean(project: Project) -> None:
    project.create("demo")
    project.run("--task", "demo", "--transition", "research")
    project.write("demo", "SPEC.md", "# Spec\n\n## Acceptance Criteria\n- it works\n")
    result = project.run("--validate-folder", "--task", "demo", "--config", CONFIG, "--json")
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
        "--task", "demo", "--transition", "research:awaiting_approval", "--config", CONFIG
    )
    assert result.rc == 0, result
