"""GitHub Copilot CLI, the real binary, against the scripted model (Chat Completions)."""

from __future__ import annotations

import pytest

from harnesses.harness_lab import Copilot, CopilotAllowAll
from harnesses.model_server import Text

pytestmark = pytest.mark.harnesses

WRITE = "touch src/x.py"
UNJUDGED = "python3 -c \"open('src/app.py','a').write('x')\""


@pytest.fixture
def copilot(driver, lab):
    """A Copilot driver (COPILOT_ALLOW_ALL=true) and a project adopted for it."""
    return driver("copilot", Copilot), lab("copilot")


def test_a_shell_write_in_research_is_denied_and_the_model_reads_why(copilot) -> None:
    run_as, lab = copilot
    lab.phase("research")
    run = run_as.run(lab, [run_as.shell(WRITE), Text("ok")])
    assert run.rc == 0, run.explain()
    assert lab.file("src/x.py") is None
    [result] = run.tool_results
    assert result.startswith("Denied by preToolUse hook: DENIED: No task in project"), result
    assert "This shell command writes files." in result


def test_a_read_in_research_runs_inside_the_sandbox(copilot) -> None:
    run_as, lab = copilot
    lab.phase("research")
    run = run_as.run(lab, [run_as.shell("cat src/app.py"), Text("ok")])
    [result] = run.tool_results
    assert "print(1)" in result, run.explain()
    assert any(mark.endswith(".ran") for mark in lab.marks()), lab.marks()


def test_a_shell_write_in_implement_is_applied(copilot) -> None:
    """Under COPILOT_ALLOW_ALL=true alone (no --allow-all-paths) Copilot CLI refused every
    rewritten line whose words named the sandbox's paths outside the workspace
    (`/usr/bin/bwrap`, `~/.automaton/run`, the temporary folder): the rewrite now runs
    `automaton-sandbox` through the project's launcher, and names only project paths."""
    run_as, lab = copilot
    lab.phase("implement")
    run = run_as.run(lab, [run_as.shell(WRITE), Text("ok")])
    assert lab.file("src/x.py") == "", run.explain()
    assert any(mark.endswith(".ran") for mark in lab.marks()), lab.marks()
    [call] = run.tool_calls
    assert call["command"].startswith(f"sh -c 'refusal=run; . {lab.project}/.automaton/hook.sh'")


def test_code_the_reader_cannot_judge_runs_sandboxed_and_its_write_fails(copilot) -> None:
    """Under COPILOT_ALLOW_ALL=true alone too (its path check, above)."""
    run_as, lab = copilot
    lab.phase("research")
    run = run_as.run(lab, [run_as.shell(UNJUDGED), Text("ok")])
    [result] = run.tool_results
    assert lab.file("src/app.py") == "print(1)\n", run.explain()
    assert "Read-only file system" in result
    assert "ran inside the sandbox of this project's phase (t1: research)" in result


@pytest.fixture
def copilot_all(driver, lab):
    """A Copilot driver with --allow-all (tools, paths, URLs) and a project adopted for it."""
    return driver("copilot", CopilotAllowAll), lab("copilot")


def test_with_allow_all_a_write_in_implement_is_applied(copilot_all) -> None:
    run_as, lab = copilot_all
    lab.phase("implement")
    run = run_as.run(lab, [run_as.shell(WRITE), Text("ok")])
    assert lab.file("src/x.py") == "", run.explain()
    assert any(mark.endswith(".ran") for mark in lab.marks()), lab.marks()


def test_with_allow_all_code_the_reader_cannot_judge_runs_sandboxed_and_its_write_fails(
    copilot_all,
) -> None:
    """Copilot runs the modifiedArgs line (the sandboxed one), not the original: the write
    meets the read-only project, and the postToolUse hook's context reaches the model."""
    run_as, lab = copilot_all
    lab.phase("research")
    run = run_as.run(lab, [run_as.shell(UNJUDGED), Text("ok")])
    [result] = run.tool_results
    assert lab.file("src/app.py") == "print(1)\n", run.explain()
    assert "Read-only file system" in result
    assert "Additional guidance from postToolUse hooks:" in result
    assert "ran inside the sandbox of this project's phase (t1: research)" in result
    assert any(mark.endswith(".ran") for mark in lab.marks()), lab.marks()
    [call] = run.tool_calls
    assert " automaton-sandbox --project " in call["command"], call
