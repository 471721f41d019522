"""opencode, the real binary, against the scripted model (Chat Completions, streaming).

`opencode run` with a provider through its bundled `@ai-sdk/openai-compatible`; the plugin
automaton-install wrote to `.opencode/plugin/automaton-guard.js` throws a denial (the model
reads the error), changes a shell command in place to run it inside the sandbox, and adds
the workflow's state to the system prompt."""

from __future__ import annotations

import json
import subprocess
import time
from typing import Any

import pytest

from harnesses.harness_lab import OpencodeServe
from harnesses.model_server import Text

pytestmark = pytest.mark.harnesses

WRITE = "touch src/x.py"
UNJUDGED = "python3 -c \"open('src/app.py','a').write('x')\""


def assert_sandboxed(calls: list[dict[str, Any]]) -> None:
    """The line ran inside the sandbox: opencode makes no mark (it cannot drop a rewrite,
    guards/hooks/witness.py), but the history it sends the model holds the changed arguments."""
    [call] = calls
    assert "bwrap" in call["command"] or "confine" in call["command"], call


@pytest.fixture
def opencode(driver, lab):
    """An opencode driver (`opencode run`) and a project adopted for it."""
    return driver("opencode"), lab("opencode")


def test_a_shell_write_in_research_is_denied_and_the_model_reads_why(opencode) -> None:
    run_as, lab = opencode
    lab.phase("research")
    run = run_as.run(lab, [run_as.shell(WRITE), Text("ok")])
    assert run.rc == 0, run.explain()
    assert lab.file("src/x.py") is None
    [result] = run.tool_results
    assert result.startswith("DENIED: No task in project"), result  # the thrown error alone
    assert result.endswith("This shell command writes files.")


def test_a_read_in_research_runs_inside_the_sandbox(opencode) -> None:
    run_as, lab = opencode
    lab.phase("research")
    run = run_as.run(lab, [run_as.shell("cat src/app.py"), Text("ok")])
    [result] = run.tool_results
    assert "print(1)" in result, run.explain()
    assert_sandboxed(run.tool_calls)


def test_a_shell_write_in_implement_is_applied(opencode) -> None:
    run_as, lab = opencode
    lab.phase("implement")
    run = run_as.run(lab, [run_as.shell(WRITE), Text("ok")])
    assert lab.file("src/x.py") == "", run.explain()
    assert_sandboxed(run.tool_calls)


def test_an_edit_tool_write_in_implement_is_applied(opencode) -> None:
    run_as, lab = opencode
    lab.phase("implement")
    calls = run_as.writes(lab.project / "src" / "app.py", "print(2)\n")
    run = run_as.run(lab, [*calls, Text("ok")])
    assert lab.file("src/app.py") == "print(2)\n", run.explain()


def test_code_the_reader_cannot_judge_runs_sandboxed_and_its_write_fails(opencode) -> None:
    """opencode runs the very arguments object its plugin changed in place: the sandboxed
    line runs, its write meets the read-only project, and the history shows that line."""
    run_as, lab = opencode
    lab.phase("research")
    run = run_as.run(lab, [run_as.shell(UNJUDGED), Text("ok")])
    [result] = run.tool_results
    assert lab.file("src/app.py") == "print(1)\n", run.explain()
    assert "Read-only file system" in result
    assert_sandboxed(run.tool_calls)


@pytest.fixture
def opencode_serve(driver, lab):
    """opencode as a long-lived server (`opencode serve`, the prompt through `run
    --attach`), as its TUI keeps the session, and a project adopted for it."""
    return driver("opencode", OpencodeServe), lab("opencode")


def test_a_long_lived_opencode_carries_on_with_the_users_request(opencode_serve) -> None:
    """`opencode run` exits at the first idle (test_scenarios.py, an xfail); the server
    outlives it, and the plugin's session.idle handler sends the Stop hook's text."""
    run_as, lab = opencode_serve
    lab.phase("research:awaiting_approval")
    lab.request_changes("Name the users.")
    run = run_as.run(lab, [Text("SPEC.md is ready"), Text("revising")])
    agent = [json.dumps(r.body) for r in run.requests if r.offers_tools]
    assert len(agent) == 2, run.explain()
    assert "The user requested changes to task 't1'" in agent[1]
    assert "Name the users." in agent[1]


def test_a_long_lived_opencode_carries_on_with_an_approval_given_while_it_waits(
    opencode_serve,
) -> None:
    run_as, lab = opencode_serve
    lab.phase("research:awaiting_approval")
    lab.stop_wait(90)

    def approve_once_waiting(serve: subprocess.Popen[str]) -> None:
        while serve.poll() is None and not lab.waiting():
            time.sleep(0.05)  # the hook's marker, as the board polls it
        if lab.waiting():
            approved = lab.status("--task", "t1", "--approve")
            assert approved.returncode == 0, approved.stdout + approved.stderr

    run = run_as.run(
        lab, [Text("SPEC.md is ready"), Text("designing")], meanwhile=approve_once_waiting
    )
    assert lab.state() == "research:approved", run.explain()
    agent = [json.dumps(r.body) for r in run.requests if r.offers_tools]
    assert len(agent) == 2, run.explain()
    assert "approved task 't1' while you waited (research:approved, via cli)" in agent[1]
