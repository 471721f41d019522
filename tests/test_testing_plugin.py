"""The pytest plugin shipped for rule authors (`automaton_rules.testing`), tested the way
pytest tests its own plugins: a test file written into a pytester folder and run; and the
fixture's promises (issue 14): isolated from installed packages, files at their phase,
the path chosen with `via`, a clock the test moves, approvals in every `approval` mode,
and a `Project`/`Task` for a rule's unit test."""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from helpers import ROOT, history, make_key, signers_file

from automaton_rules import Project
from automaton_rules.cli import entry as cli
from automaton_rules.core import machine
from automaton_rules.testing import AutomatonProject, Clock, route, route_to

pytest_plugins = ["pytester"]


def _legal(source: str, target: str) -> bool:
    """A move --transition makes, or the approval only --approve makes."""
    if target in machine.TRANSITIONS[source]:
        return True
    return source.endswith(machine.AWAITING) and target == (
        source[: -len(machine.AWAITING)] + machine.APPROVED
    )


@pytest.mark.parametrize("state", machine.STATES)
def test_route_to_walks_only_legal_edges(state: str) -> None:
    route = ("new", *route_to(state))
    assert route[-1] == state
    assert len(set(route)) == len(route)  # no state twice: the shortest kind of walk
    for source, target in zip(route, route[1:]):
        assert _legal(source, target), f"{source} -> {target} on the way to {state}"


def test_route_to_refuses_an_unknown_state() -> None:
    with pytest.raises(ValueError, match="implemnt"):
        route_to("implemnt")


def test_route_to_covers_every_state() -> None:
    reached = {s for state in machine.STATES for s in ("new", *route_to(state))}
    assert reached == set(machine.STATES)


@pytest.mark.parametrize("state", machine.STATES)
def test_task_reaches_every_state(automaton_project: AutomatonProject, state: str) -> None:
    folder = automaton_project.task("walker", state)
    assert (folder / ".state").read_text() == f"{state}\n"
    history = (folder / ".state.history").read_text().splitlines()
    walked = route(state)
    assert len(history) == 1 + len(walked)  # every step went through status.py
    assert automaton_project.route_of("walker") == walked
    approvals = (folder / ".state.approvals").read_text().splitlines()
    assert len(approvals) == sum(machine.is_approved(s) for s in walked)
    # the default walk passes through test_design only to reach it: no TEST_PLAN.md
    planned = machine.base_phase(state) == "test_design" and state != "test_design"
    assert ("TEST_PLAN.md" in {p.name for p in folder.iterdir()}) == planned
    audit = automaton_project.audit()
    assert audit.exit_code == 0, audit.text  # the walk leaves a clean task


def test_task_files_of_the_reached_phase(automaton_project: AutomatonProject) -> None:
    folder = automaton_project.task(
        "writer", "research", files={"SPEC.md": "# Spec\n", "notes.txt": "n\n"}
    )
    assert (folder / "SPEC.md").read_text() == "# Spec\n"
    assert (folder / "notes.txt").read_text() == "n\n"
    named = automaton_project.task("lister", "design", files=["DESIGN.md"])
    assert (named / "DESIGN.md").read_text() == "# DESIGN.md\n"


def test_sub_task(automaton_project: AutomatonProject) -> None:
    automaton_project.task("payments", "decomposition:approved")
    folder = automaton_project.task("payments/stripe-client", "implement")
    assert folder == automaton_project.tasks_dir / "payments" / "subtasks" / "stripe-client"
    assert (folder / ".state").read_text() == "implement\n"


def test_task_refused_by_status_py_raises(automaton_project: AutomatonProject) -> None:
    automaton_project.task("twice")
    with pytest.raises(AssertionError, match="create-task"):
        automaton_project.task("twice")


def test_commit_time_and_trailer(automaton_project: AutomatonProject) -> None:
    sha = automaton_project.commit(
        {"src/a.py": "a = 1\n"}, "first", task="login", when=1_700_000_000
    )
    assert len(sha) == 40
    log = automaton_project.git("log", "-1", "--format=%ct|%at|%(trailers:key=Task,valueonly)")
    assert log.strip() == "1700000000|1700000000|login"
    untagged = automaton_project.commit({"src/b.py": "b = 1\n"}, "second")
    assert untagged != sha
    body = automaton_project.git("log", "-1", "--format=%B")
    assert "Task:" not in body


def test_git_failure_raises(automaton_project: AutomatonProject) -> None:
    with pytest.raises(AssertionError, match="git"):
        automaton_project.git("no-such-git-command")


def test_run_returns_exit_code_and_output(automaton_project: AutomatonProject) -> None:
    automaton_project.task("viewer", "research")
    shown = automaton_project.run("--task", "viewer")
    assert shown.exit_code == 0
    assert "Phase: research (from .state)" in shown.out
    missing = automaton_project.run("--task", "nope", "--json")
    assert missing.exit_code == 2
    assert missing.json()["error"]["code"]


def test_audit_object(automaton_project: AutomatonProject) -> None:
    automaton_project.task("fix", "research", files=["SPEC.md", "IMPLEMENTATION.md"])
    automaton_project.folder("hand-made", files=["SPEC.md"])
    automaton_project.task("fine", "implement")
    audit = automaton_project.audit()
    assert audit.exit_code == 1
    assert audit.codes == ["AR101", "AR202", "AR401"]
    assert [f["code"] for f in audit.for_task("fix")] == ["AR101", "AR202"]
    assert audit.for_task("fine") == []
    assert audit.errors == []
    assert audit.report["schema_version"] == 1
    assert audit.text.startswith(f"Audit Report for {automaton_project.root}")
    narrowed = automaton_project.audit("--select", "AR4")
    assert narrowed.codes == ["AR401"]


def test_use_plugins_accumulates(automaton_project: AutomatonProject) -> None:
    automaton_project.use_plugins("first_rules")
    automaton_project.use_plugins("second.py")
    text = (automaton_project.root / "automaton.toml").read_text()
    assert text == 'plugins = ["first_rules", "second.py"]\n'


INNER_TESTS = '''
import pytest

from automaton_rules.testing import AutomatonProject

RULES = """
from automaton_rules import Finding, hookimpl, rule


@rule("ACME101", summary="DESIGN.md names its modules", category="Acme Checks",
      severity="warning")
def design_names_modules(task):
    text = task.read("DESIGN.md")
    if text is not None and "## Modules" not in text:
        yield Finding("DESIGN.md has no Modules section", path=task.relpath("DESIGN.md"))


@hookimpl
def register_rules(register):
    register(design_names_modules)
"""


@pytest.mark.parametrize(
    "state", ["new", "research:awaiting_approval", "design", "implement", "referee", "complete"]
)
def test_task_in_state(automaton_project: AutomatonProject, state):
    folder = automaton_project.task("demo", state)
    assert (folder / ".state").read_text() == state + "\\n"
    assert automaton_project.audit().exit_code == 0


def test_hand_made_folder(automaton_project):
    automaton_project.folder("by-hand", files=["SPEC.md"])
    audit = automaton_project.audit()
    assert audit.codes == ["AR401"]
    assert audit.exit_code == 1


def test_my_rule(automaton_project):
    automaton_project.task("login", "design", files={"DESIGN.md": "# Design\\n"})
    automaton_project.task("signup", "design", files={"DESIGN.md": "## Modules\\n- auth\\n"})
    automaton_project.write_plugin(RULES, name="acme_rules")
    audit = automaton_project.audit()
    assert audit.codes == ["ACME101"]
    assert audit.for_task("login")[0]["severity"] == "warning"
    assert "=== Category 6: Acme Checks ===" in audit.text
    assert audit.exit_code == 0
    assert audit.exit_code == automaton_project.audit("--fail-on", "warning").exit_code - 1


def test_projects_are_independent(automaton_project, tmp_path):
    assert automaton_project.root.parent == tmp_path
    assert not automaton_project.tasks_dir.exists()
'''


def test_plugin_serves_a_rule_authors_test_file(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_acme_rules=INNER_TESTS)
    result = pytester.runpytest("-q")
    result.assert_outcomes(passed=9)


def test_plugin_reports_a_failing_rule_test(pytester: pytest.Pytester) -> None:
    """The fixture does not hide failures: a wrong expectation fails the inner test."""
    pytester.makepyfile(
        test_wrong="""
def test_expects_a_clean_audit(automaton_project):
    automaton_project.task("fix", "research", files=["SPEC.md", "IMPLEMENTATION.md"])
    assert automaton_project.audit().codes == []
"""
    )
    result = pytester.runpytest("-q")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*AR101*"])


CRASHING_RULE_TESTS = '''
from automaton_rules import Finding, hookimpl, rule

CRASHING = """
from automaton_rules import Finding, hookimpl, rule

@rule("ACME201", summary="never crashes, it says", category="Acme Checks")
def crashes(task):
    return 1 / 0

@rule("ACME202", summary="returns one finding", category="Acme Checks")
def bare(task):
    return Finding("one")

@hookimpl
def register_rules(register):
    register(crashes)
    register(bare)
"""


def test_a_crashing_rule_fails_the_documented_test(automaton_project):
    automaton_project.task("login", "research")
    automaton_project.write_plugin(CRASHING, name="crashing_rules")
    assert automaton_project.audit().codes == []


def test_errors_a_test_asks_for(automaton_project):
    automaton_project.task("login", "research")
    automaton_project.write_plugin(CRASHING, name="crashing_rules")
    audit = automaton_project.audit(expect_errors=True)
    assert audit.exit_code == 2
    assert [e.split(": ")[1] for e in audit.errors] == [
        "rule ACME201 failed on task 'login' at crashing_rules.py:6",
        "rule ACME202 failed on task 'login'",
    ]
    assert "returned Finding; yield Findings" in audit.errors[1]
'''


def test_the_fixtures_audit_fails_a_test_whose_rule_crashes(pytester: pytest.Pytester) -> None:
    """`assert audit().codes == []` cannot pass while the rule under test raises: the
    audit's errors fail the test, named, unless the test asks for them."""
    pytester.makepyfile(test_crashing=CRASHING_RULE_TESTS)
    result = pytester.runpytest("-q")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*the audit met 2 error(s); pass expect_errors=True to test them:",
            "*crashing_rules.py: rule ACME201 failed on task 'login' at crashing_rules.py:6: "
            "ZeroDivisionError: division by zero",
            "*crashing_rules.py: rule ACME202 failed on task 'login': returned Finding; "
            "yield Findings (or return a list of them)",
        ]
    )


def test_fixture_is_registered_by_the_pytest11_entry_point(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--fixtures", "-q")
    result.stdout.fnmatch_lines(["*automaton_project*"])


# ------------------------------------------------ isolated from installed rule packages

NOISY_RULES = """
from automaton_rules import Finding, hookimpl, rule


@rule("NOISY101", summary="every task is noisy", category="Noise")
def noisy(task):
    yield Finding("noisy", path=task.relpath(".state"))


@hookimpl
def register_rules(register):
    register(noisy)
"""


def _install(site: Path, module: str, source: str, entry_point: str) -> Path:
    """What `pip install` leaves on sys.path: the module and its dist-info with an entry point."""
    site.mkdir(exist_ok=True)
    (site / f"{module}.py").write_text(source)
    info = site / f"{module}-1.0.dist-info"
    info.mkdir()
    name = module.replace("_", "-")
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[automaton_rules]\n{entry_point} = {module}\n")
    return site


@pytest.fixture
def noisy_installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A rule package installed in this interpreter whose rule fails every task."""
    site = _install(tmp_path / "site", "noisy_rules", NOISY_RULES, "noisy")
    monkeypatch.syspath_prepend(str(site))
    yield site
    sys.modules.pop("noisy_rules", None)


def test_installed_packages_do_not_load_in_the_fixture(
    automaton_project: AutomatonProject, noisy_installed: Path
) -> None:
    automaton_project.task("login", "design")
    plain = cli.main(["--audit", "--json", "--project", str(automaton_project.root)])
    assert plain == 1  # outside the fixture, as a user runs it, the package loads
    assert automaton_project.audit().codes == []
    listed = automaton_project.run("--list-rules", "--json").json()
    assert "NOISY101" not in [row["code"] for row in listed["rules"]]


@pytest.mark.parametrize("name", ["noisy_rules", "noisy", "noisy-rules", "Noisy_Rules"])
def test_use_packages_opts_a_package_in_by_name(
    automaton_project: AutomatonProject, noisy_installed: Path, name: str
) -> None:
    automaton_project.task("login", "design")
    automaton_project.use_packages(name)
    audit = automaton_project.audit()
    assert audit.codes == ["NOISY101"]
    plugins = {rule["code"]: rule["plugin"] for rule in audit.report["rules"]}
    assert plugins["NOISY101"] == "noisy"  # loaded through its entry point, as installed
    assert not (automaton_project.root / "automaton.toml").exists()


def test_use_packages_refuses_a_name_nothing_installed_answers_to(
    automaton_project: AutomatonProject, noisy_installed: Path
) -> None:
    with pytest.raises(ValueError, match=r"no installed rule package named acme_rules .*noisy"):
        automaton_project.use_packages("acme_rules")
    assert automaton_project.packages == []


DOCS = (ROOT / "docs" / "writing-rules.md").read_text()


def test_the_guides_examples_pass_with_another_rule_package_installed(tmp_path: Path) -> None:
    """Every rule and test the page shows, copied out, pass under pytest in a venv where a
    package whose rule fails every task is installed: the fixture loads only what it is
    given (the docs' own `assert automaton_project.audit().codes == []` included)."""
    blocks = re.findall(r"```python\n(.*?)```", DOCS, flags=re.S)
    files = {
        block.split("\n", 1)[0][2:]: block
        for block in blocks
        if re.match(r"# (acme_rules|tests)/\w+\.py\n", block)
    }
    assert {"acme_rules/__init__.py", "tests/test_acme.py", "tests/test_timing.py"} <= set(files)
    for name, source in files.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(source)
    site = _install(tmp_path / "site", "noisy_rules", NOISY_RULES, "noisy")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(site), str(ROOT)])}
    probe = "from automaton_rules.engine.plugins import installed_packages as i; print(i())"
    seen = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=False
    )
    assert "noisy" in seen.stdout, seen.stderr  # the package is installed there
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    tests = sum(source.count("\ndef test_") for source in files.values())
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"{tests} passed" in proc.stdout


# --------------------------------------------------- files at the phase they belong to

ROLLBACK_RULES = """
from automaton_rules import Finding, hookimpl, rule


@rule("ACME301", summary="DESIGN.md has a rollback plan before approval", category="Acme",
      when=("transition",))
def rollback_plan(task, transition):
    if transition.target == "design:awaiting_approval":
        if "## Rollback plan" not in (task.read("DESIGN.md") or ""):
            yield Finding("DESIGN.md has no '## Rollback plan' section")


@hookimpl
def register_rules(register):
    register(rollback_plan)
"""


def test_a_custom_design_is_the_one_approved(automaton_project: AutomatonProject) -> None:
    design = "# Design\n\n## Rollback plan\nRevert the migration.\n"
    folder = automaton_project.task("login", "implement", files={"DESIGN.md": design})
    assert (folder / "DESIGN.md").read_text() == design
    approval = next(e for e in history(folder) if e.get("to") == "design:approved")
    assert approval["artifact_sha256"] == hashlib.sha256(design.encode()).hexdigest()
    audit = automaton_project.audit()
    assert audit.codes == [], audit.text  # no AR207: the approved DESIGN.md is unchanged


def test_a_transition_rule_reads_the_content_the_test_gave(
    automaton_project: AutomatonProject,
) -> None:
    automaton_project.write_plugin(ROLLBACK_RULES, name="acme_rules")
    design = "## Rollback plan\nRevert.\n"
    folder = automaton_project.task("planned", "implement", files={"DESIGN.md": design})
    assert (folder / ".state").read_text() == "implement\n"
    with pytest.raises(AssertionError, match=r"Rollback plan.*ACME301"):
        automaton_project.task("unplanned", "implement")  # the placeholder has no plan


def test_other_files_are_there_from_the_start(automaton_project: AutomatonProject) -> None:
    folder = automaton_project.task(
        "noted", "design", files={"notes/why.txt": "because\n", "SPEC.md": "# Spec\n"}
    )
    created = history(folder)[0]["time"]
    assert (folder / "notes" / "why.txt").read_text() == "because\n"
    assert (folder / "SPEC.md").read_text() == "# Spec\n"
    assert created and automaton_project.audit().codes == []


# ------------------------------------------------------------------- the path chosen


def test_via_skips_design_and_test_design(automaton_project: AutomatonProject) -> None:
    folder = automaton_project.task("quick", "implement", via=["research", "implement"])
    assert [e["to"] for e in history(folder)] == [
        "new",
        "research",
        "research:awaiting_approval",
        "research:approved",
        "implement",
    ]
    assert not (folder / "DESIGN.md").exists()
    assert automaton_project.audit().codes == []


def test_via_takes_the_shortest_route_through_each_named_state() -> None:
    assert route("implement", via=["design"]) == (
        "research",
        "research:awaiting_approval",
        "research:approved",
        "design",
        "design:awaiting_approval",
        "design:approved",
        "implement",
    )
    assert "decomposition" not in route("complete", via=["research"])
    assert route("complete", via=["decomposition:approved"])[-2:] == (
        "decomposition:approved",
        "complete",
    )
    back = route("implement", via=["referee", "human_intervention"])
    assert back[-3:] == ("referee", "human_intervention", "implement")
    assert route("design") == route_to("design")  # without via, the usual route


def test_via_refuses_unknown_states_and_impossible_routes() -> None:
    with pytest.raises(ValueError, match=r"unknown state 'desgin'; did you mean 'design'\?"):
        route("implement", via=["desgin"])
    with pytest.raises(ValueError, match="no legal route from 'complete' to 'implement'"):
        route("implement", via=["complete"])
    with pytest.raises(ValueError, match="no legal route from 'research' to 'decomposition'"):
        route("decomposition", via=["research"], subtask=True)


# --------------------------------------------------------------------------- the clock


def test_the_clock_sets_the_times_of_history_and_approvals(
    automaton_project: AutomatonProject,
) -> None:
    start = automaton_project.clock.set(datetime(2030, 1, 2, 3, 4, 5, tzinfo=timezone.utc))
    assert (
        start == automaton_project.clock.now == datetime(2030, 1, 2, 3, 4, 5, tzinfo=timezone.utc)
    )
    folder = automaton_project.task("timed", "research:awaiting_approval")
    assert automaton_project.clock.advance(90) == start + timedelta(seconds=90)
    automaton_project.advance("timed", ["research:approved"])
    times = [e["time"] for e in history(folder)]
    assert times == ["2030-01-02T03:04:05Z"] * 3 + ["2030-01-02T03:05:35Z"]
    approvals = (folder / ".state.approvals").read_text()
    assert approvals == "research:approved|2030-01-02T03:05:35Z|user\n"
    automaton_project.clock.advance(minutes=1, hours=1)
    automaton_project.commit({"src/app.py": "x = 1\n"}, "code")
    assert automaton_project.git("log", "-1", "--format=%ct").strip() == str(
        int(start.timestamp()) + 90 + 3660
    )
    audit = automaton_project.audit()  # src/ committed while the task was not in implement
    assert audit.codes == ["AR301"]
    assert audit.findings[0]["data"]["date"] == "2030-01-02T04:06:35Z"
    assert "file mtime: 2030-01-02, commit: " in audit.findings[0]["message"]


def test_the_fixture_clock_stands_still_and_a_hand_made_one_is_live(tmp_path: Path) -> None:
    frozen = Clock(1_900_000_000)
    assert frozen.frozen and frozen.time() == frozen.time() == 1_900_000_000
    assert frozen.set(datetime(2031, 5, 6)) == datetime(2031, 5, 6, tzinfo=timezone.utc)
    live = AutomatonProject(tmp_path).clock
    assert not live.frozen
    live.advance(10)  # a live clock stops at the current second, then moves on
    assert live.frozen and live.time() % 1 == 0


RUSHED_RULES = """
from automaton_rules import Finding, hookimpl, rule


@rule("ACME401", summary="research took at least a minute", category="Acme")
def research_not_rushed(task):
    entered = {entry.target: entry.time for entry in task.entries}
    start, asked = entered.get("research"), entered.get("research:awaiting_approval")
    if start and asked and (asked - start).total_seconds() < 60:
        yield Finding("less than a minute between research and its approval request",
                      path=task.relpath("SPEC.md"))


@hookimpl
def register_rules(register):
    register(research_not_rushed)
"""


def test_a_time_based_rule(automaton_project: AutomatonProject) -> None:
    """Less than a minute between research and its approval request, written without
    touching `.state.history`: the clock moves between the fixture's commands."""
    automaton_project.write_plugin(RUSHED_RULES, name="acme_rules")
    automaton_project.task("rushed", "research")
    automaton_project.task("thorough", "research")
    automaton_project.clock.advance(59)
    automaton_project.advance("rushed", ["research:awaiting_approval"])
    automaton_project.clock.advance(1)
    automaton_project.advance("thorough", ["research:awaiting_approval"])
    audit = automaton_project.audit()
    assert audit.codes == ["ACME401"]
    assert [f["task"] for f in audit.findings] == ["rushed"]


# ---------------------------------------------------- approvals a person must give


def test_the_walk_approves_through_the_chat_in_a_prompt_project(
    automaton_project: AutomatonProject,
) -> None:
    automaton_project.configure(approval="prompt")
    folder = automaton_project.task("login", "implement")
    approvals = [e for e in history(folder) if e.get("command") == "--approve"]
    assert [(e["to"], e["via"]) for e in approvals] == [
        ("research:approved", "prompt"),
        ("design:approved", "prompt"),
    ]
    assert automaton_project.audit().codes == []
    automaton_project.task("waiting", "research:awaiting_approval")
    refused = automaton_project.approve("waiting", via="cli")
    assert refused.exit_code == 1 and "approve waiting" in refused.err
    typed = automaton_project.approve("waiting")
    assert typed.exit_code == 0, typed.out
    assert "The user approved task 'waiting'" in typed.out
    again = automaton_project.approve("waiting", via="prompt")
    assert again.exit_code == 1 and "did not record" in again.out
    with pytest.raises(ValueError, match="via takes cli, prompt, signed, not 'terminal'"):
        automaton_project.approve("waiting", via="terminal")


def test_the_walk_signs_approvals_in_a_signed_project(
    automaton_project: AutomatonProject, ssh_keygen: str, tmp_path: Path
) -> None:
    key = make_key(tmp_path, "alice")
    signers_file(automaton_project.root / ".automaton" / "allowed_signers", alice=key)
    automaton_project.configure(approval="signed")
    with pytest.raises(ValueError, match=r"sign_with\(approver, key\)"):
        automaton_project.task("unsigned", "research:approved")
    automaton_project.sign_with("alice", key)
    folder = automaton_project.task("signed", "design:approved", via=["design"])
    approvals = [e for e in history(folder) if e.get("command") == "--approve"]
    assert [(e["via"], e["approver"]) for e in approvals] == [("signed", "alice")] * 2
    assert automaton_project.audit().for_task("signed") == []


def test_configure_keeps_settings_and_plugins(automaton_project: AutomatonProject) -> None:
    automaton_project.configure(approval="prompt", fail_on="warning")
    automaton_project.use_plugins("acme_rules")
    automaton_project.configure(severity={"AR101": "warning"})
    assert (automaton_project.root / "automaton.toml").read_text() == (
        'plugins = ["acme_rules"]\n'
        'approval = "prompt"\n'
        'fail-on = "warning"\n'
        'severity = { "AR101" = "warning" }\n'
    )


# ---------------------------------------------------------- a rule's unit test


def test_project_and_task_for_a_unit_test(automaton_project: AutomatonProject) -> None:
    automaton_project.task("login", "design", files={"DESIGN.md": "# Design\n"})
    project = Project(automaton_project.root)
    assert project.tasks_dir == automaton_project.tasks_dir
    assert Project(str(automaton_project.root)) == project
    task = project.load("login")
    assert (task.name, task.state, task.phase) == ("login", "design", "design")
    assert task.read("DESIGN.md") == "# Design\n"
    assert automaton_project.load("login") == task
    assert automaton_project.project == project
    assert project.names() == ["login"]
