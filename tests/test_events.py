"""Events: plugins told what happened once it is durable (`automaton_event(event)`).

Each kind of change is told through status.py itself, with what the plugin sees: the
task's files already written and its lock given back. A listener that fails, prints or
hangs is a warning (stderr, `event_errors` in --json) and the change stands. The example
plugin rules/notify.py runs a configured command when a task reaches an approval gate.
With no listener nothing more loads.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import time
from datetime import timezone
from pathlib import Path
from typing import Any

import pytest
from helpers import PROMPT, ROOT, Project, awaiting, claude_prompt, history, run_hook, write_config

from automaton_rules import Event

NOTIFY = ROOT / "rules" / "notify.py"

# A listener that records what it is told, and what it finds on disk at that moment.
RECORDER = """
import json
from pathlib import Path

from automaton_rules import Event, hookimpl
from automaton_rules.core import store

LOG = Path(__file__).with_name("events.jsonl")


@hookimpl
def automaton_event(event: Event) -> None:
    seen = {
        "kind": event.kind,
        "task": event.task,
        "source": event.source,
        "target": event.target,
        "state": event.state,
        "actor": event.actor,
        "approver": event.approver,
        "via": event.via,
        "recovered": event.recovered,
        "awaiting_approval": event.awaiting_approval,
        "project": str(event.project),
        "time": event.time.isoformat(),
        "utc": event.time.utcoffset().total_seconds() == 0,
        "summary": dict(event.summary),
        "details": dict(event.details),
    }
    if event.task is not None:
        folder = event.project / ".automaton" / "tasks" / event.task
        seen["state_on_disk"] = (folder / ".state").read_text().strip()
        seen["last_history_to"] = json.loads(
            (folder / ".state.history").read_text().splitlines()[-1]
        )["to"]
        try:
            with store.locked(folder, timeout=0):
                seen["lock_free"] = True
        except Exception:
            seen["lock_free"] = False
    with LOG.open("a") as log:
        log.write(json.dumps(seen) + "\\n")
"""

FAILING = """
from automaton_rules import hookimpl


@hookimpl
def automaton_event(event):
    print("a listener's chatter")
    raise RuntimeError(f"webhook down ({event.kind})")
"""

HANGING = """
import time
from automaton_rules import hookimpl


@hookimpl
def automaton_event(event):
    while True:
        try:
            time.sleep(3600)
        except Exception:
            pass
"""


def listen(project: Project, *sources: str, extra: str = "") -> None:
    """Write each listener as a plugin of the project, listed in automaton.toml."""
    names = []
    for index, source in enumerate(sources):
        path = project.root / f"listener{index}.py"
        path.write_text(source)
        names.append(path.name)
    write_config(project, f"plugins = {json.dumps(names)}\n{extra}")


def told(project: Project) -> list[dict[str, Any]]:
    log = project.root / "events.jsonl"
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines()]


def to_gate(project: Project, name: str = "login") -> None:
    """A task in research with its SPEC.md, one move from its approval gate."""
    project.create(name)
    assert project.run("--task", name, "--transition", "research").rc == 0
    project.write(name, "SPEC.md")


# ------------------------------------------------------------- what each event says


def test_a_listener_is_told_of_an_awaiting_approval_transition(project: Project) -> None:
    listen(project, RECORDER)
    to_gate(project)
    result = project.run("--task", "login", "--transition", "research:awaiting_approval")
    assert result.rc == 0 and result.err == "", result
    event = told(project)[-1]
    assert event["kind"] == "transitioned"
    assert (event["task"], event["source"], event["target"]) == (
        "login",
        "research",
        "research:awaiting_approval",
    )
    assert event["awaiting_approval"] is True
    assert event["project"] == str(project.root)
    assert event["actor"] == history(project.task_dir("login"))[-1]["actor"]
    assert event["time"].replace("+00:00", "Z") == history(project.task_dir("login"))[-1]["time"]
    assert event["utc"] is True


def test_the_event_comes_once_the_change_is_durable_and_the_lock_is_free(
    project: Project,
) -> None:
    listen(project, RECORDER)
    to_gate(project)
    project.run("--task", "login", "--transition", "research:awaiting_approval")
    project.run("--task", "login", "--approve")
    for event in told(project):
        assert event["state_on_disk"] == event["target"], event
        assert event["last_history_to"] == event["target"], event
        assert event["lock_free"] is True, event


def test_every_change_of_a_task_is_an_event(project: Project) -> None:
    listen(project, RECORDER)
    to_gate(project)
    project.run("--task", "login", "--transition", "research:awaiting_approval")
    assert project.run("--task", "login", "--approve", "--approver", "alice").rc == 0
    kinds = [(e["kind"], e["source"], e["target"]) for e in told(project)]
    assert kinds == [
        ("created", None, "new"),
        ("transitioned", "new", "research"),
        ("transitioned", "research", "research:awaiting_approval"),
        ("approved", "research:awaiting_approval", "research:approved"),
    ]
    approved = told(project)[-1]
    assert (approved["approver"], approved["via"], approved["actor"]) == ("alice", "cli", "alice")
    assert approved["awaiting_approval"] is False
    assert [e["awaiting_approval"] for e in told(project)] == [False, False, True, False]


def test_a_plain_function_named_like_the_hook_listens_too(project: Project) -> None:
    plain = (
        "from pathlib import Path\n"
        "def automaton_event(event):\n"
        "    with Path(__file__).with_name('plain.log').open('a') as log:\n"
        "        log.write(f'{event.kind} {event.task}\\n')\n"
    )
    listen(project, plain)
    project.create("login")
    assert project.run("--task", "login", "--transition", "research").rc == 0
    lines = (project.root / "plain.log").read_text().splitlines()
    assert lines == ["created login", "transitioned login"]


def test_claims_and_releases_are_events(project: Project) -> None:
    listen(project, RECORDER, extra='mode = "multi-agent"\n')
    project.create("login")
    assert project.run("--task", "login", "--claim", "--agent", "agent-1").rc == 0
    assert project.run("--task", "login", "--release", "--agent", "agent-1").rc == 0
    claimed, released = told(project)[-2:]
    assert (claimed["kind"], claimed["actor"], claimed["state"]) == ("claimed", "agent-1", "new")
    assert (claimed["source"], claimed["target"]) == (None, None)
    assert claimed["details"] == {"previous_holder": None}
    assert (released["kind"], released["actor"], released["state"]) == (
        "released",
        "agent-1",
        "new",
    )


def test_a_follow_up_is_an_event_of_the_new_task(project: Project) -> None:
    project.task("login", "referee")
    project.write("login", "VERDICT.md", "Verdict: FAIL\n")
    listen(project, RECORDER)
    result = project.run("--task", "login", "--follow-up")
    assert result.rc == 0, result
    event = told(project)[-1]
    assert (event["kind"], event["task"], event["target"]) == (
        "followed_up",
        "login-fix",
        "bug_find",
    )
    assert event["details"] == {"origin": "login", "verdict": "FAIL", "kind": "fix"}


def test_an_upgrade_tells_one_event_per_adopted_task(project: Project) -> None:
    project.folder("legacy", ["SPEC.md"])
    project.folder("older", [])
    listen(project, RECORDER)
    assert project.run("--upgrade").rc == 0
    events = {e["task"]: e for e in told(project)}
    assert set(events) == {"legacy", "older"}
    assert events["legacy"]["kind"] == "upgraded"
    assert (events["legacy"]["source"], events["legacy"]["target"]) == (None, "research")
    assert events["legacy"]["details"] == {"inferred_from": "SPEC.md"}
    assert project.run("--upgrade").rc == 0  # nothing adopted: nothing told
    assert len(told(project)) == 2


def test_a_finished_audit_is_an_event_with_its_counts(project: Project) -> None:
    project.create("login")
    project.folder("by-hand", ["SPEC.md"])
    listen(project, RECORDER)
    audit = project.run("--audit", "--json")
    event = told(project)[-1]
    assert event["kind"] == "audited" and event["task"] is None
    report = json.loads(audit.out)["summary"]
    assert event["summary"]["tasks"] == report["tasks"] == 2
    assert event["summary"]["violations"] == report["violations"] > 0
    assert event["summary"]["by_severity"] == report["by_severity"]
    assert event["summary"]["exit_code"] == audit.rc == 1


def test_an_approval_typed_in_the_chat_is_an_event(project: Project) -> None:
    name = awaiting(project)
    listen(project, RECORDER, extra=PROMPT)
    proc = run_hook("claude", claude_prompt(project.root, f"approve {name}"))
    assert proc.returncode == 0, proc.stderr
    event = told(project)[-1]
    assert (event["kind"], event["task"], event["via"]) == ("approved", name, "prompt")
    assert event["target"] == "design:approved" and event["lock_free"] is True


def test_a_failing_listener_in_the_chat_is_said_and_the_approval_stands(
    project: Project,
) -> None:
    name = awaiting(project)
    listen(project, FAILING, extra=PROMPT)
    proc = run_hook("claude", claude_prompt(project.root, f"approve {name}"))
    assert proc.returncode == 0, proc.stderr
    context = json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
    assert f"The user approved task '{name}'" in context
    assert "WARNING: plugin" in context and "webhook down (approved)" in context
    assert "the approval stands" in context
    assert project.state(name) == "design:approved\n"


# ------------------------------------------------------- failing and hung listeners


def test_a_failing_listener_is_a_warning_and_the_move_stands(project: Project) -> None:
    to_gate(project)
    listen(project, FAILING, RECORDER)
    result = project.run("--task", "login", "--transition", "research:awaiting_approval")
    assert result.rc == 0
    assert project.state("login") == "research:awaiting_approval\n"
    warnings = [line for line in result.err.splitlines() if line.startswith("WARNING:")]
    assert warnings == [
        "WARNING: plugin "
        f"{project.root / 'listener0.py'}: automaton_event (transitioned of task 'login') "
        "failed: RuntimeError: webhook down (transitioned)"
    ]
    assert "Traceback" not in result.err
    assert told(project)[-1]["target"] == "research:awaiting_approval"  # the others still hear


def test_a_failing_listener_is_listed_in_json_and_stdout_stays_json(project: Project) -> None:
    to_gate(project)
    listen(project, FAILING)
    result = project.run("--task", "login", "--transition", "research:awaiting_approval", "--json")
    answer = json.loads(result.out)
    assert (answer["ok"], answer["exit_code"], result.rc) == (True, 0, 0)
    assert answer["to"] == "research:awaiting_approval"
    assert answer["event_errors"] == [
        {
            "plugin": str(project.root / "listener0.py"),
            "event": "transitioned",
            "task": "login",
            "message": "RuntimeError: webhook down (transitioned)",
        }
    ]
    assert "a listener's chatter" in result.err  # what a listener prints goes to stderr


def test_no_event_errors_key_without_a_failure(project: Project) -> None:
    listen(project, RECORDER)
    result = project.run("--create-task", "login", "--json")
    assert result.rc == 0 and "event_errors" not in json.loads(result.out)


def test_a_failing_audit_listener_keeps_the_exit_code_and_the_report(project: Project) -> None:
    project.create("login")
    listen(project, FAILING)
    clean = project.run("--audit", "--json")
    assert clean.rc == 0
    report = json.loads(clean.out)
    assert report["exit_code"] == 0 and report["errors"] == []
    assert report["event_errors"][0]["event"] == "audited"
    assert report["event_errors"][0]["task"] is None
    sarif = project.run("--audit", "--format", "sarif")
    assert sarif.rc == 0 and json.loads(sarif.out)["version"] == "2.1.0"
    assert "automaton_event (audited) failed: RuntimeError" in sarif.err


def test_a_hung_listener_is_stopped_and_the_move_stands(project: Project) -> None:
    to_gate(project)
    listen(project, HANGING, RECORDER, extra="plugin-timeout-seconds = 0.3\n")
    result = project.run("--task", "login", "--transition", "research:awaiting_approval")
    assert result.rc == 0
    assert "automaton_event (transitioned of task 'login') failed: PluginTimeout: did not " in (
        result.err
    )
    assert "did not finish within 0.3 seconds" in result.err
    assert project.state("login") == "research:awaiting_approval\n"
    assert told(project)[-1]["target"] == "research:awaiting_approval"
    assert project.run("--task", "login", "--approve").rc == 0  # the lock was given back


def test_a_plugin_that_cannot_load_is_a_warning_of_a_command_that_runs_no_rule(
    project: Project,
) -> None:
    (project.root / "broken.py").write_text("raise ImportError('no such webhook library')\n")
    write_config(project, 'plugins = ["broken.py"]\n')
    result = project.run("--create-task", "login", "--json")
    assert result.rc == 0 and project.state("login") == "new\n"
    errors = json.loads(result.out)["event_errors"]
    assert errors == [
        {
            "plugin": str(project.root / "broken.py"),
            "event": None,
            "task": None,
            "message": "failed to import at broken.py:1: ImportError: no such webhook library",
        }
    ]
    assert project.run("--create-task", "other").err.startswith("WARNING: plugin ")


# ------------------------------------------------------------- the example: notify.py

RECORD_ARGS = """
import json, os, sys
from pathlib import Path

Path(sys.argv[1]).write_text(json.dumps({
    "argv": sys.argv[2:],
    "task": os.environ.get("AUTOMATON_TASK"),
    "state": os.environ.get("AUTOMATON_STATE"),
    "project": os.environ.get("AUTOMATON_PROJECT"),
}))
"""


@pytest.fixture
def notifying(project: Project, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """The project lists rules/notify.py; the command it runs records what it was given."""
    script = tmp_path / "record args.py"
    script.write_text(RECORD_ARGS)
    out = tmp_path / "notified.json"
    command = shlex.join([sys.executable, str(script), str(out), "--title", "Approval needed"])
    monkeypatch.setenv("AUTOMATON_NOTIFY_COMMAND", command)
    write_config(project, f"plugins = [{json.dumps(str(NOTIFY))}]\n")
    return out


def test_notify_runs_its_command_when_a_task_reaches_a_gate(
    project: Project, notifying: Path
) -> None:
    to_gate(project)
    assert not notifying.exists()  # created and moved to research: no gate yet
    result = project.run("--task", "login", "--transition", "research:awaiting_approval")
    assert result.rc == 0 and result.err == "", result
    said = json.loads(notifying.read_text())
    assert said == {
        "argv": ["--title", "Approval needed", "login", "research:awaiting_approval"],
        "task": "login",
        "state": "research:awaiting_approval",
        "project": str(project.root),
    }
    notifying.unlink()
    assert project.run("--task", "login", "--approve").rc == 0
    assert not notifying.exists()  # approved: nobody to call


def test_notify_without_a_command_does_nothing(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("AUTOMATON_NOTIFY_COMMAND", raising=False)
    write_config(project, f"plugins = [{json.dumps(str(NOTIFY))}]\n")
    to_gate(project)
    result = project.run("--task", "login", "--transition", "research:awaiting_approval")
    assert result.rc == 0 and result.err == ""


def test_a_failing_notify_command_is_a_warning_and_the_move_stands(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_config(project, f"plugins = [{json.dumps(str(NOTIFY))}]\n")
    to_gate(project)
    fails = "import sys; sys.stderr.write('webhook refused\\n'); sys.exit(3)"
    monkeypatch.setenv("AUTOMATON_NOTIFY_COMMAND", shlex.join([sys.executable, "-c", fails]))
    result = project.run("--task", "login", "--transition", "research:awaiting_approval")
    assert result.rc == 0
    assert project.state("login") == "research:awaiting_approval\n"
    assert "exited with status 3: webhook refused" in result.err
    assert result.err.startswith("WARNING: plugin ")


def test_a_hung_notify_command_is_stopped(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_config(project, f"plugins = [{json.dumps(str(NOTIFY))}]\nplugin-timeout-seconds = 0.3\n")
    to_gate(project)
    hangs = "import time; time.sleep(3600)"
    monkeypatch.setenv("AUTOMATON_NOTIFY_COMMAND", shlex.join([sys.executable, "-c", hangs]))
    result = project.run("--task", "login", "--transition", "research:awaiting_approval")
    assert result.rc == 0
    assert "did not finish within 0.3 seconds" in result.err
    assert project.state("login") == "research:awaiting_approval\n"


def test_the_guides_metrics_listener_works_as_written(project: Project) -> None:
    guide = (ROOT / "docs" / "writing-rules.md").read_text()
    blocks = re.findall(r"```python\n(# acme_metrics\.py\n.*?)```", guide, flags=re.S)
    assert len(blocks) == 1
    listen(project, blocks[0])
    to_gate(project)
    project.run("--task", "login", "--transition", "research:awaiting_approval")
    assert project.run("--task", "login", "--approve").rc == 0
    lines = (project.root / "metrics.jsonl").read_text().splitlines()
    moves = [(line["task"], line["to"]) for line in map(json.loads, lines)]
    assert moves == [
        ("login", "research"),
        ("login", "research:awaiting_approval"),
        ("login", "research:approved"),
    ]


# ---------------------------------------------------------------- the cost of none


def loads_events(project: Project, *args: str) -> tuple[int, bool]:
    """Run status.py in a fresh interpreter: its exit code, and whether events loaded."""
    probe = (
        "import sys\n"
        "from automaton_rules.cli.entry import main\n"
        f"code = main({[*args, '--project', str(project.root)]!r})\n"
        "print(code, 'automaton_rules.engine.events' in sys.modules)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=60,
        check=False,
    )
    code, loaded = proc.stdout.split()[-2:]
    return int(code), loaded == "True"


def test_without_a_listener_a_transition_loads_no_event_machinery(project: Project) -> None:
    to_gate(project)
    write_config(project, f"plugins = [{json.dumps(str(ROOT / 'rules' / 'spec_quality.py'))}]\n")
    target = "research:awaiting_approval"
    assert loads_events(project, "--task", "login", "--transition", target) == (0, False)
    write_config(project, f"plugins = [{json.dumps(str(NOTIFY))}]\n")  # the control
    assert loads_events(project, "--task", "login", "--approve") == (0, True)


def test_an_edit_decision_loads_no_event_machinery_even_with_a_listener(
    project: Project,
) -> None:
    to_gate(project)
    write_config(project, f"plugins = [{json.dumps(str(NOTIFY))}]\n")
    source = str(project.root / "src" / "app.py")
    assert loads_events(project, "--can-edit", "--task", "login", "--file", source)[1] is False


def test_event_is_public_and_typed() -> None:
    import automaton_rules
    from automaton_rules.engine.events import KINDS

    assert "Event" in automaton_rules.__all__
    event = Event(
        "transitioned",
        Path("/p"),
        store_time("2024-05-01T10:00:00Z"),
        task="t",
        source="design",
        target="design:awaiting_approval",
    )
    assert event.awaiting_approval and event.time.tzinfo == timezone.utc
    assert event.kind in KINDS
    with pytest.raises(AttributeError):
        event.kind = "created"  # type: ignore[misc]


def store_time(text: str) -> Any:
    from automaton_rules.support import clock

    moment = clock.parse_time(text)
    assert moment is not None
    return moment


def _alive(pid: int) -> bool:
    """The process runs (a zombie waiting for its parent to reap it does not)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    return "\nState:\tZ" not in status


@pytest.mark.skipif(not hasattr(os, "killpg"), reason="no process groups on this system")
def test_a_stopped_notify_command_leaves_nothing_running(
    project: Project, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Found by a review: the time limit killed the command but not what it had started."""
    write_config(project, f"plugins = [{json.dumps(str(NOTIFY))}]\nplugin-timeout-seconds = 0.5\n")
    to_gate(project)
    pidfile = tmp_path / "child.pid"
    starts_a_child = (
        "import subprocess, sys, time; "
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(3600)']); "
        f"open({str(pidfile)!r}, 'w').write(str(child.pid)); time.sleep(3600)"
    )
    command = shlex.join([sys.executable, "-c", starts_a_child])
    monkeypatch.setenv("AUTOMATON_NOTIFY_COMMAND", command)
    result = project.run("--task", "login", "--transition", "research:awaiting_approval")
    assert result.rc == 0
    assert "did not finish within 0.5 seconds" in result.err
    child = int(pidfile.read_text())
    for _ in range(50):  # SIGKILL is delivered at once; give the kernel a moment
        if not _alive(child):
            break
        time.sleep(0.1)
    assert not _alive(child)
