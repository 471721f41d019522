"""The scenarios every harness in the lab runs, each through the real binary: what the
guard refuses in every phase, what reaches the model, the user's approval typed in the
chat, a crashing hook. Where a harness words a refusal its own way, the test checks the
guard's own sentence inside it."""

from __future__ import annotations

import json
import subprocess
import time

import pytest

from harnesses.model_server import Text

pytestmark = pytest.mark.harnesses

HARNESSES = ("copilot", "claude", "codex", "gemini", "opencode", "droid", "qwen")
STATUS = "python3 ~/.automaton/scripts/status.py"
STOP_WAIT = 90  # stop-wait-seconds: ample, since the approval ends the wait at once


@pytest.fixture(params=HARNESSES)
def harness(request, driver, lab):
    """Each harness's driver, with a project adopted for it."""
    return driver(request.param), lab(request.param)


def test_an_edit_tool_write_in_research_is_denied(harness) -> None:
    run_as, lab = harness
    calls = run_as.writes(lab.project / "src" / "app.py", "changed\n")
    if calls is None:
        pytest.skip(f"{run_as.name} gives a custom model provider no file-writing tool")
    lab.phase("research")
    run = run_as.run(lab, [*calls, Text("ok")])
    result = run.tool_results[-1]
    assert "DENIED: No task in project" in result, run.explain()
    assert lab.file("src/app.py") == "print(1)\n"


def test_after_the_agent_changes_folder_its_hooks_still_guard(harness) -> None:
    """Claude Code runs its hooks in the folder the agent `cd`ed into (`src/`): the
    committed command finds the project's launcher from the project folder the harness
    names, and the write is denied as from the project's own folder."""
    run_as, lab = harness
    lab.phase("research")
    run = run_as.run(lab, [run_as.shell("cd src"), run_as.shell("touch x.py"), Text("ok")])
    results = run.tool_results
    assert len(results) == 2, run.explain()
    assert "DENIED: No task in project" in results[1], run.explain()
    assert lab.file("src/x.py") is None and lab.file("x.py") is None


def test_writing_state_by_shell_is_denied_in_implement(harness) -> None:
    run_as, lab = harness
    lab.phase("implement")
    run = run_as.run(lab, [run_as.shell("echo complete > .automaton/tasks/t1/.state"), Text("ok")])
    [result] = run.tool_results
    assert "DENIED: This command would write workflow state (.state files)" in result, run.explain()
    assert lab.state() == "implement"


def test_writing_state_by_edit_tool_is_denied_in_implement(harness) -> None:
    run_as, lab = harness
    state = lab.project / ".automaton" / "tasks" / "t1" / ".state"
    lab.phase("implement")
    calls = run_as.writes(state, "complete\n")
    if calls is None:
        pytest.skip(f"{run_as.name} gives a custom model provider no file-writing tool")
    run = run_as.run(lab, [*calls, Text("ok")])
    result = run.tool_results[-1]
    assert f"DENIED: File '{state}' is workflow state: only status.py writes" in result, (
        run.explain()
    )
    assert lab.state() == "implement"


def test_the_agent_running_approve_is_denied(harness) -> None:
    run_as, lab = harness
    lab.phase("research:awaiting_approval")
    run = run_as.run(lab, [run_as.shell(f"{STATUS} --task t1 --approve"), Text("ok")])
    [result] = run.tool_results
    assert "DENIED: Approval is the user's decision." in result, run.explain()
    assert lab.state() == "research:awaiting_approval"


def test_the_configuration_is_refused_in_implement(harness) -> None:
    run_as, lab = harness
    lab.phase("implement")
    before = lab.file("automaton.toml")
    line = "echo 'approval = \"open\"' >> automaton.toml"
    run = run_as.run(lab, [run_as.shell(line), Text("ok")])
    [result] = run.tool_results
    assert "DENIED: File 'automaton.toml'" in result, run.explain()
    assert "only the user changes it" in result
    assert lab.file("automaton.toml") == before


def test_session_start_gives_the_model_the_tasks_phase(harness) -> None:
    run_as, lab = harness
    lab.phase("research")
    run = run_as.run(lab, [Text("ok")])
    assert "automaton-rules guards this project" in run.model_saw, run.explain()
    assert "t1: research phase (state research)" in run.model_saw


# Where the headless run the lab drives never sends the user's prompt to its hook.
NO_PROMPT_HOOK = {
    "droid": "Factory Droid 0.215.0 runs UserPromptSubmit hooks only in its sessions "
    "(executeUserPromptSubmitHooks; test_droid.py drives a JSON-RPC one); `droid exec "
    "PROMPT` runs none",
}


def test_approve_typed_by_the_user_approves(harness, request) -> None:
    run_as, lab = harness
    if run_as.name in NO_PROMPT_HOOK:
        request.applymarker(pytest.mark.xfail(strict=True, reason=NO_PROMPT_HOOK[run_as.name]))
    lab.phase("research:awaiting_approval")
    run = run_as.run(lab, [Text("ok")], prompt="approve t1")
    assert lab.state() == "research:approved", run.explain()
    history = (lab.project / ".automaton" / "tasks" / "t1" / ".state.history").read_text()
    last = json.loads(history.splitlines()[-1])
    assert (last["via"], last["harness"]) == ("prompt", run_as.name)


# `opencode run` leaves its event loop at the session's first idle status and exits; the
# plugin's session.idle handler runs the Stop hook, but the prompt it then sends with the
# hook's text comes too late for that process (`opencode serve` carries on: test_opencode).
STOP_REASON = (
    "opencode run 1.18.33 exits at the session's first idle status (its loop breaks on "
    "session.status idle); the plugin's session.idle prompt with the Stop hook's text "
    "comes after, so a headless run never carries on"
)


def test_the_stop_hook_carries_the_agent_on_with_the_users_request(harness, request) -> None:
    """The agent ends its turn while its task waits at the gate with a request for changes
    made on the dashboard: the stop hook makes the harness go on with the request as the
    next prompt, and the second stop (its loop guard set) lets it end."""
    run_as, lab = harness
    if run_as.name == "opencode":
        request.applymarker(pytest.mark.xfail(strict=True, reason=STOP_REASON))
    lab.phase("research:awaiting_approval")
    lab.request_changes("Name the users.")
    run = run_as.run(lab, [Text("SPEC.md is ready"), Text("revising")])
    agent = [json.dumps(r.body) for r in run.requests if r.offers_tools]
    assert len(agent) == 2, run.explain()
    assert "The user requested changes to task 't1'" in agent[1]
    assert "Name the users." in agent[1]
    assert run.rc == 0, run.explain()


def test_the_stop_hook_carries_the_agent_on_with_an_approval_given_while_it_waits(
    harness,
) -> None:
    """The agent ends its turn while its task awaits approval and nothing is decided yet:
    the stop hook waits (its marker on the board says so); the person approves at a
    terminal meanwhile, and the harness goes on with the approval and the next step as
    its next prompt."""
    run_as, lab = harness
    if run_as.name == "opencode":  # the run above proves it; this one would only wait
        pytest.xfail(STOP_REASON)
    lab.phase("research:awaiting_approval")
    lab.stop_wait(STOP_WAIT)

    def approve_once_waiting(process: subprocess.Popen[str]) -> None:
        while process.poll() is None and not lab.waiting():
            time.sleep(0.05)  # the hook's marker, as the board polls it
        if lab.waiting():
            approved = lab.status("--task", "t1", "--approve")
            assert approved.returncode == 0, approved.stdout + approved.stderr

    replies = [Text("SPEC.md is ready"), Text("designing")]
    run = run_as.run(lab, replies, meanwhile=approve_once_waiting)
    assert lab.state() == "research:approved", run.explain()
    agent = [json.dumps(r.body) for r in run.requests if r.offers_tools]
    assert len(agent) == 2, run.explain()
    assert "approved task 't1' while you waited (research:approved, via cli)" in agent[1]
    assert "Continue: " in agent[1]
    assert not lab.waiting()  # the wait ended with the decision
    assert run.rc == 0, run.explain()


def test_a_crashing_hook_blocks_the_action(harness) -> None:
    run_as, lab = harness
    lab.phase("implement")
    lab.crash_tool_hooks()
    run = run_as.run(lab, [run_as.shell("touch src/x.py"), Text("ok")])
    [result] = run.tool_results
    assert lab.file("src/x.py") is None, run.explain()
    assert "hook" in result


def test_a_crashing_hook_shows_the_model_the_error_and_no_script(harness) -> None:
    """Copilot CLI showed only 'Denied by preToolUse hook: hook exited with code 2' until
    its committed command answered a crash with a JSON deny; Claude Code shows the model
    the installed command before the hook's stderr, which was the whole ~900-character
    lookup: now it is the short command that finds `.automaton/hook.sh`, with no error
    line of its own (guards/hooks/lookup.py)."""
    run_as, lab = harness
    lab.phase("implement")
    lab.crash_tool_hooks()
    run = run_as.run(lab, [run_as.shell("touch src/x.py"), Text("ok")])
    [result] = run.tool_results
    error = "ERROR: automaton-hook failed (exit status 1): RuntimeError: lab crash"
    assert error in result, run.explain()
    before = result[: result.index(error)]
    assert "ERROR:" not in before, before
    assert "command -v" not in before  # the lookup is in the launcher, not the command
    assert len(before) < 400, before
