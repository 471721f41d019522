"""Gemini CLI, the real binary, against the scripted model (the Gemini API, streaming).

It asks a router model first (`generateContent` with a JSON schema, answered in that
shape: an answer it cannot read makes it retry with back-off for a minute and a half),
loads the project's hooks in a trusted folder (GEMINI_CLI_TRUST_WORKSPACE=true) and runs
`-p` with `--yolo`."""

from __future__ import annotations

import pytest

from harnesses.model_server import Text

pytestmark = pytest.mark.harnesses

WRITE = "touch src/x.py"
UNJUDGED = "python3 -c \"open('src/app.py','a').write('x')\""


@pytest.fixture
def gemini(driver, lab):
    """A Gemini CLI driver and a project adopted for it."""
    return driver("gemini"), lab("gemini")


def test_a_shell_write_in_research_is_denied_and_the_model_reads_why(gemini) -> None:
    run_as, lab = gemini
    lab.phase("research")
    run = run_as.run(lab, [run_as.shell(WRITE), Text("ok")])
    assert run.rc == 0, run.explain()
    assert lab.file("src/x.py") is None
    [result] = run.tool_results
    assert "Tool execution blocked: DENIED: No task in project" in result, result
    assert "This shell command writes files." in result


def test_a_read_in_research_runs_inside_the_sandbox(gemini) -> None:
    run_as, lab = gemini
    lab.phase("research")
    run = run_as.run(lab, [run_as.shell("cat src/app.py"), Text("ok")])
    [result] = run.tool_results
    assert "Output: print(1)" in result, run.explain()
    assert "[System] Tool input parameters were modified by a hook before execution." in result
    assert any(mark.endswith(".ran") for mark in lab.marks()), lab.marks()


def test_a_shell_write_in_implement_is_applied(gemini) -> None:
    run_as, lab = gemini
    lab.phase("implement")
    run = run_as.run(lab, [run_as.shell(WRITE), Text("ok")])
    assert lab.file("src/x.py") == "", run.explain()
    assert any(mark.endswith(".ran") for mark in lab.marks()), lab.marks()


def test_code_the_reader_cannot_judge_runs_sandboxed_and_its_write_fails(gemini) -> None:
    """Gemini runs the rewritten `tool_input`, keeps the original in the history, tells
    the model the input was modified, and adds the AfterTool context to the result."""
    run_as, lab = gemini
    lab.phase("research")
    run = run_as.run(lab, [run_as.shell(UNJUDGED), Text("ok")])
    [result] = run.tool_results
    assert lab.file("src/app.py") == "print(1)\n", run.explain()
    assert "Read-only file system" in result
    assert "<hook_context>automaton-rules: that command ran inside the sandbox" in result
    assert any(mark.endswith(".ran") for mark in lab.marks()), lab.marks()
    assert [call["command"] for call in run.tool_calls] == [UNJUDGED]
