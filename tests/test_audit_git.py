"""How the audit reads git: a shallow clone or a missing git is an error while the other
categories still report, a folder outside any repository skips category 3, and when
git cannot be read no category that needs it passes.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from helpers import (
    CAT1,
    CAT3,
    ERRORS,
    ROOT,
    empty_project,
    git_project,
    run,
    section,
    status_py,
    walk,
)

from automaton_rules.testing import AutomatonProject


def test_shallow_clone_is_an_error_and_other_categories_still_report(
    automaton_project: AutomatonProject, tmp_path: Path
) -> None:
    source = automaton_project
    git_project(source)
    source.task("fix", "research", files=["SPEC.md", "IMPLEMENTATION.md"])
    source.git("add", "-A")
    source.git("commit", "-q", "-m", "tasks")
    full = source.audit()
    assert full.errors == [], full.text  # the full repository audits without error

    clone = tmp_path / "shallow-clone"
    subprocess.run(
        ["git", "clone", "-q", "--depth", "1", source.root.as_uri(), str(clone)],
        check=True,
        capture_output=True,
    )
    assert (clone / ".git" / "shallow").exists()
    audit = AutomatonProject(clone).audit(expect_errors=True)
    assert audit.exit_code == 2, audit.text
    shallow = [e for e in audit.errors if "shallow clone" in e]
    assert len(shallow) == 1, audit.errors
    assert "fetch-depth: 0" in shallow[0]
    assert any("shallow clone" in line for line in section(audit.text, ERRORS))
    assert audit.codes == ["AR101", "AR202"]
    assert (
        "[FAIL] fix (phase: research): found IMPLEMENTATION.md (implement phase artifact)"
        in section(audit.text, CAT1)
    )
    assert "Skipped: not a git repository" not in audit.text


def test_git_missing_from_path_is_an_error(
    automaton_project: AutomatonProject, tmp_path: Path
) -> None:
    git_project(automaton_project)
    automaton_project.task("demo", "research", files=["SPEC.md"])
    empty = tmp_path / "bin-without-git"
    empty.mkdir()
    env = {**os.environ, "PATH": str(empty), "PYTHONPATH": str(ROOT)}
    proc = status_py("--audit", "--project", str(automaton_project.root), env=env)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    assert "Cannot run git" in proc.stdout
    assert any("Cannot run git" in line for line in section(proc.stdout, ERRORS))
    assert "Skipped: not a git repository" not in proc.stdout


@pytest.mark.parametrize(("extra", "exit_code"), [((), 0), (("IMPLEMENTATION.md",), 1)])
def test_folder_that_is_not_a_repository_skips_category_3(
    automaton_project: AutomatonProject, extra: tuple[str, ...], exit_code: int
) -> None:
    automaton_project.task("demo", "research", files=["SPEC.md", *extra])
    assert not (automaton_project.root / ".git").exists()
    audit = automaton_project.audit()
    assert section(audit.text, CAT3) == ["Skipped: not a git repository"]
    assert audit.errors == []
    assert audit.exit_code == exit_code, audit.text


def test_git_failing_for_a_plugin_rule_leaves_no_false_pass(tmp_path: Path) -> None:
    """When git cannot be read, no category that needs it reports [PASS]."""
    root = empty_project(tmp_path)
    walk(root, "reading", "research")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "gitty.py").write_text(
        "from automaton_rules import hookimpl, rule\n\n"
        '@rule("XG101", summary="reads git", category="Team")\n'
        "def reads_git(project, git):\n"
        "    return iter(())\n\n"
        "@hookimpl\n"
        "def register_rules(register):\n"
        "    register(reads_git)\n"
    )
    (root / "automaton.toml").write_text('plugins = ["gitty.py"]\n')
    (root / ".git" / "shallow").write_text("0" * 40 + "\n")  # git now says: shallow
    code, text = run(root, "--audit")
    assert code == 2, text
    assert "shallow clone" in text
    category_3 = text.split("=== Category 3")[1].split("===")[1]
    assert "[PASS]" not in category_3, text
