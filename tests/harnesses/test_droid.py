"""Factory Droid, the real binary, against the scripted model (Chat Completions).

`droid exec` runs with a custom model (BYOK) from the lab's ~/.factory/settings.json and
no Factory login; the project's `.factory/hooks.json` runs as it is, with no trust step."""

from __future__ import annotations

import json

import pytest

from harnesses.harness_lab import DroidSession
from harnesses.model_server import Text

pytestmark = pytest.mark.harnesses

WRITE = "touch src/x.py"
UNJUDGED = "python3 -c \"open('src/app.py','a').write('x')\""


@pytest.fixture
def droid(driver, lab):
    """A Factory Droid driver (exec, --skip-permissions-unsafe) and a project for it."""
    return driver("droid"), lab("droid")


def test_a_shell_write_in_research_is_denied_and_the_model_reads_why(droid) -> None:
    run_as, lab = droid
    lab.phase("research")
    run = run_as.run(lab, [run_as.shell(WRITE), Text("ok")])
    assert run.rc == 0, run.explain()
    assert lab.file("src/x.py") is None
    [result] = run.tool_results
    assert "DENIED: No task in project" in result, result
    assert "This shell command writes files." in result


def test_a_read_in_research_runs_inside_the_sandbox(droid) -> None:
    run_as, lab = droid
    lab.phase("research")
    run = run_as.run(lab, [run_as.shell("cat src/app.py"), Text("ok")])
    [result] = run.tool_results
    assert "print(1)" in result, run.explain()
    assert any(mark.endswith(".ran") for mark in lab.marks()), lab.marks()


def test_a_shell_write_in_implement_is_applied(droid) -> None:
    run_as, lab = droid
    lab.phase("implement")
    run = run_as.run(lab, [run_as.shell(WRITE), Text("ok")])
    assert lab.file("src/x.py") == "", run.explain()
    assert any(mark.endswith(".ran") for mark in lab.marks()), lab.marks()


def test_code_the_reader_cannot_judge_runs_sandboxed_and_its_write_fails(droid) -> None:
    """Droid runs the updatedInput line (the .ran mark only the rewrite makes); the
    history it sends the model keeps the original command."""
    run_as, lab = droid
    lab.phase("research")
    run = run_as.run(lab, [run_as.shell(UNJUDGED), Text("ok")])
    [result] = run.tool_results
    assert lab.file("src/app.py") == "print(1)\n", run.explain()
    assert "Read-only file system" in result
    assert any(mark.endswith(".ran") for mark in lab.marks()), lab.marks()
    assert [call["command"] for call in run.tool_calls] == [UNJUDGED]


def test_approve_typed_in_a_json_rpc_session_approves(driver, lab) -> None:
    """`droid exec PROMPT` runs no UserPromptSubmit hook (the shared scenario's strict
    xfail); a JSON-RPC session, as Droid's own clients drive it, does."""
    run_as, project = driver("droid", DroidSession), lab("droid")
    project.phase("research:awaiting_approval")
    run = run_as.run(project, [Text("ok")], prompt="approve t1")
    assert project.state() == "research:approved", run.explain()
    history = (project.project / ".automaton" / "tasks" / "t1" / ".state.history").read_text()
    last = json.loads(history.splitlines()[-1])
    assert (last["via"], last["harness"]) == ("prompt", "droid")
    assert "The user approved task 't1'" in run.model_saw
