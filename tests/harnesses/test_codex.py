"""Codex, the real binary, against the scripted model (Responses API, streaming).

Codex 0.171 refuses `wire_api = "chat"`, gives a custom provider `exec_command` (its
unified exec, `cmd`) and no `apply_patch`, loads the project's `.codex/hooks.json` only in
a trusted project (`--trust`) and runs them only once trusted
(`--dangerously-bypass-hook-trust`); its own sandbox is off
(`--dangerously-bypass-approvals-and-sandbox`), since the lab's home lies in a temporary
folder, where Codex will not create the helper its sandbox runs."""

from __future__ import annotations

import pytest

from harnesses.model_server import Text

pytestmark = pytest.mark.harnesses

WRITE = "touch src/x.py"
UNJUDGED = "python3 -c \"open('src/app.py','a').write('x')\""


@pytest.fixture
def codex(driver, lab):
    """A Codex driver (`codex exec`) and a project adopted for it."""
    return driver("codex"), lab("codex")


def test_a_shell_write_in_research_is_denied_and_the_model_reads_why(codex) -> None:
    run_as, lab = codex
    lab.phase("research")
    run = run_as.run(lab, [run_as.shell(WRITE), Text("ok")])
    assert run.rc == 0, run.explain()
    assert lab.file("src/x.py") is None
    [result] = run.tool_results
    assert result.startswith("Command blocked by PreToolUse hook: DENIED: No task in"), result
    assert result.endswith("This shell command writes files.. Command: touch src/x.py")


def test_a_read_in_research_runs_inside_the_sandbox(codex) -> None:
    run_as, lab = codex
    lab.phase("research")
    run = run_as.run(lab, [run_as.shell("cat src/app.py"), Text("ok")])
    [result] = run.tool_results
    assert result.endswith("Output:\nprint(1)\n"), run.explain()
    assert any(mark.endswith(".ran") for mark in lab.marks()), lab.marks()


def test_a_shell_write_in_implement_is_applied(codex) -> None:
    run_as, lab = codex
    lab.phase("implement")
    run = run_as.run(lab, [run_as.shell(WRITE), Text("ok")])
    assert lab.file("src/x.py") == "", run.explain()
    assert any(mark.endswith(".ran") for mark in lab.marks()), lab.marks()


def test_code_the_reader_cannot_judge_runs_sandboxed_and_its_write_fails(codex) -> None:
    """Codex runs the updatedInput line, keeps the original in the history, and adds the
    PostToolUse hook's context as a developer message."""
    run_as, lab = codex
    lab.phase("research")
    run = run_as.run(lab, [run_as.shell(UNJUDGED), Text("ok")])
    [result] = run.tool_results
    assert lab.file("src/app.py") == "print(1)\n", run.explain()
    assert "Permission denied: 'src/app.py'" in result or "Read-only file system" in result
    assert any(mark.endswith(".ran") for mark in lab.marks()), lab.marks()
    assert [call["cmd"] for call in run.tool_calls] == [UNJUDGED]
    assert "ran inside the sandbox of this project's phase (t1: research)" in run.model_saw
