"""Claude Code, the real binary, against the scripted model (Messages API, streaming)."""

from __future__ import annotations

import json

import pytest

from harnesses.model_server import Text

pytestmark = pytest.mark.harnesses

WRITE = "touch src/x.py"
UNJUDGED = "python3 -c \"open('src/app.py','a').write('x')\""


@pytest.fixture
def claude(driver, lab):
    """A Claude Code driver (-p, --dangerously-skip-permissions) and a project for it."""
    return driver("claude"), lab("claude")


def test_a_shell_write_in_research_is_denied_and_the_model_reads_why(claude) -> None:
    run_as, lab = claude
    lab.phase("research")
    run = run_as.run(lab, [run_as.shell(WRITE), Text("ok")])
    assert run.rc == 0, run.explain()
    assert lab.file("src/x.py") is None
    [result] = run.tool_results
    assert "PreToolUse:Bash hook error: DENIED: No task in project" in result, result
    assert "This shell command writes files." in result
    [denial] = json.loads(run.stdout)["permission_denials"]
    assert denial["tool_input"]["command"] == WRITE


def test_a_read_in_research_runs_inside_the_sandbox(claude) -> None:
    run_as, lab = claude
    lab.phase("research")
    run = run_as.run(lab, [run_as.shell("cat src/app.py"), Text("ok")])
    [result] = run.tool_results
    assert result.startswith("print(1)"), run.explain()
    assert any(mark.endswith(".ran") for mark in lab.marks()), lab.marks()


def test_a_shell_write_in_implement_is_applied(claude) -> None:
    run_as, lab = claude
    lab.phase("implement")
    run = run_as.run(lab, [run_as.shell(WRITE), Text("ok")])
    assert lab.file("src/x.py") == "", run.explain()
    assert any(mark.endswith(".ran") for mark in lab.marks()), lab.marks()


def test_code_the_reader_cannot_judge_runs_sandboxed_and_its_write_fails(claude) -> None:
    """Claude runs the updatedInput line (the .ran mark only the rewrite makes); the
    history it sends the model keeps the original command."""
    run_as, lab = claude
    lab.phase("research")
    run = run_as.run(lab, [run_as.shell(UNJUDGED), Text("ok")])
    [result] = run.tool_results
    assert lab.file("src/app.py") == "print(1)\n", run.explain()
    assert "Read-only file system" in result
    assert any(mark.endswith(".ran") for mark in lab.marks()), lab.marks()
    assert [call["command"] for call in run.tool_calls] == [UNJUDGED]


def test_the_model_is_told_a_failed_line_met_the_boundary(claude) -> None:
    """Claude Code 2.1.332 sends a shell line that exits non-zero to PostToolUseFailure
    (with `error`), not PostToolUse: the installer hooks both, so the model is told."""
    run_as, lab = claude
    lab.phase("research")
    run = run_as.run(lab, [run_as.shell(UNJUDGED), Text("ok")])
    assert "ran inside the sandbox of this project's phase" in run.model_saw
