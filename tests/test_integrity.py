"""Issue 11, section 3: live commands trust nothing they can check.

A `.state` edited by hand is refused by every command that decides on the task (and
reported by those that only list), an approved artifact changed after its approval does
not pass its gate, a referee's FAIL does not complete the task, `--validate-folder`
reports a state its files contradict, and white space of any kind is no content.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
from pathlib import Path

import pytest
from helpers import HOOK, STATUS_PY, Project, modules_imported, recorded

from automaton_rules import workflow
from automaton_rules.core import integrity, store
from automaton_rules.core.project import HAND_EDITED, load_tracked, project_at
from automaton_rules.engine.runner import Engine
from automaton_rules.guards.hooks.harnesses import NAMES as HARNESSES
from automaton_rules.support.errors import AutomatonError, Refusal

CHANGED_BY_HAND = ".state was changed outside status.py"


def hand_edit(project: Project, name: str, state: str) -> None:
    """What the issue did: `echo implement > .automaton/tasks/q/.state`."""
    (project.task_dir(name) / store.STATE).write_text(f"{state}\n")


def history_lines(project: Project, name: str) -> list[str]:
    return (project.task_dir(name) / store.HISTORY).read_text().splitlines()


@pytest.fixture
def tampered(project: Project, task_in) -> Project:
    """Task `q` approved through research, then `.state` set to implement by hand."""
    (project.root / "src").mkdir()
    (project.root / "src" / "app.py").write_text("x = 1\n")
    task_in("research:approved", name="q")
    hand_edit(project, "q", "implement")
    return project


def assert_refused_as_hand_edit(result, recorded: str = "research:approved") -> None:
    assert result.rc == 2, result
    assert "ALLOWED" not in result.out and "PASS" not in result.out
    assert result.err.startswith("ERROR: Task 'q': .state says 'implement' but ")
    assert f".state.history says '{recorded}'" in result.err
    assert CHANGED_BY_HAND in result.err
    assert "--upgrade" in result.err and f"restore .state to '{recorded}'" in result.err


# --------------------------------------------------------------------------------------
# 1. `.state` against the history's last line
# --------------------------------------------------------------------------------------


def test_can_edit_refuses_a_hand_edited_state_as_status_py_is_called(tampered) -> None:
    """The issue: after `echo implement > .state`, `--can-edit` said ALLOWED."""
    for args in (("--can-edit",), ("--can-edit", "--task", "q")):
        result = tampered.script(*args, "--project", str(tampered.root))
        assert_refused_as_hand_edit(result)
    result = tampered.script("--can-edit", "--file", "src/app.py")
    assert_refused_as_hand_edit(result)


def test_can_edit_json_names_the_recorded_state_and_the_way_back(tampered) -> None:
    result = tampered.run("--can-edit", "--task", "q", "--json")
    assert result.rc == 2
    body = result.json
    assert body["error"]["code"] == HAND_EDITED
    assert body["next"]["state"] == "implement"
    assert body["next"]["recorded"] == "research:approved"
    assert body["next"]["command"].endswith(f"--upgrade --project {tampered.root}")


def test_transition_refuses_a_hand_edited_state_and_writes_nothing(tampered) -> None:
    """The issue: `--transition bug_find` moved on."""
    tampered.write("q", "IMPLEMENTATION.md")
    before = history_lines(tampered, "q")
    assert_refused_as_hand_edit(tampered.run("--task", "q", "--transition", "bug_find"))
    assert tampered.state("q") == "implement\n"
    assert history_lines(tampered, "q") == before


def test_validate_folder_of_the_task_refuses_instead_of_passing(tampered) -> None:
    """The issue: `--validate-folder` said PASS."""
    assert_refused_as_hand_edit(tampered.run("--validate-folder", "--task", "q"))


def test_every_command_that_decides_on_the_task_refuses_it(tampered) -> None:
    for args in (
        ("--task", "q"),
        ("--task", "q", "--approve"),
        ("--task", "q", "--follow-up"),
    ):
        assert_refused_as_hand_edit(tampered.run(*args))


def test_claim_refuses_a_hand_edited_state(tampered) -> None:
    (tampered.root / "automaton.toml").write_text('mode = "multi-agent"\n')
    result = tampered.run("--task", "q", "--claim", "--agent", "agent-1")
    assert_refused_as_hand_edit(result)
    assert not (tampered.task_dir("q") / store.CLAIM).exists()


def test_list_and_validating_the_project_report_rather_than_refuse(tampered, task_in) -> None:
    task_in("design", name="other")
    listed = tampered.run("--list")
    assert listed.rc == 2
    rows = listed.out.splitlines()
    assert rows[1].split()[:2] == ["other", "design"]
    assert rows[2].split()[:2] == ["q", "research:approved"]  # the history's, not the edit
    assert "to 'implement'" in rows[2]
    assert CHANGED_BY_HAND in rows[2] and "'research:approved' (--upgrade restores it)" in rows[2]
    assert listed.err.startswith("ERROR: q: .state was changed outside status.py")

    validated = tampered.run("--validate-folder")
    assert validated.rc == 1
    assert (
        "Task: q\nPhase: implement (from .state)\n"
        "Folder validation: FAIL — found state-artifact inconsistencies:\n"
        '  - .state says "implement" but .state.history ends at "research:approved" '
        "(.state was changed outside status.py) (AR204)"
    ) in validated.out
    assert "Task: other\nPhase: design (from .state)\nFolder validation: PASS" in validated.out

    audit = tampered.run("--audit", "--json")
    assert audit.rc == 1
    assert "AR204" in [f["code"] for f in audit.json["findings"]]


def test_a_hand_edited_task_in_an_edit_phase_opens_no_edits_for_the_project(
    project: Project, task_in
) -> None:
    """Without --task, --can-edit allows when some task edits: not one edited by hand."""
    task_in("research", name="a-task")
    task_in("design", name="q")
    hand_edit(project, "q", "doc_review")
    result = project.run("--can-edit")
    assert result.rc == 2 and "ALLOWED" not in result.out
    assert "Task 'q': .state says 'doc_review' but .state.history says 'design'" in result.err


def test_a_hand_edit_out_of_an_edit_phase_is_refused_too(project: Project, task_in) -> None:
    task_in("implement", name="q")
    hand_edit(project, "q", "research")
    assert project.run("--can-edit", "--task", "q").rc == 2
    assert project.run("--can-edit").rc == 1  # no task edits: denied, nothing to decide on


def test_a_sub_task_completed_by_hand_does_not_complete_its_parent(
    project: Project, task_in
) -> None:
    task_in("decomposition:approved", name="parent")
    project.create("parent/sub")
    hand_edit(project, "parent/sub", "complete")
    result = project.run("--task", "parent", "--transition", "complete")
    assert result.rc == 2
    assert "Task 'parent/sub': .state says 'complete' but .state.history says 'new'" in result.err
    assert project.state("parent") == "decomposition:approved\n"


def test_an_artifact_edit_in_a_hand_edited_task_names_the_hand_edit(tampered) -> None:
    result = tampered.run("--can-edit", "--file", str(tampered.task_dir("q") / "SPEC.md"))
    assert_refused_as_hand_edit(result)


def test_the_other_tasks_are_still_decided_on(tampered, task_in) -> None:
    task_in("implement", name="fine")
    assert tampered.run("--can-edit", "--task", "fine").out == "ALLOWED\n"
    assert tampered.run("--task", "fine").rc == 0


def test_upgrade_restores_the_recorded_state_and_records_it(tampered) -> None:
    result = tampered.run("--upgrade")
    assert result.rc == 0, result
    assert result.out == (
        "Upgraded task 'q': .state restored to 'research:approved' from .state.history "
        "(it said 'implement', written outside status.py)\n"
    )
    assert tampered.state("q") == "research:approved\n"
    last = json.loads(history_lines(tampered, "q")[-1])
    assert (last["from"], last["to"], last["command"], last["restored"]) == (
        "implement",
        "research:approved",
        "--upgrade",
        True,
    )
    # The agent gained nothing: the task is back where the user left it, and is trusted.
    assert tampered.run("--can-edit", "--task", "q").rc == 1
    assert tampered.run("--task", "q").rc == 0
    assert tampered.run("--upgrade").out.startswith("No untracked tasks")
    audit = tampered.run("--audit", "--json")
    assert audit.rc == 0, audit.out
    # A second hand edit is restored, and recorded, again.
    hand_edit(tampered, "q", "implement")
    assert tampered.run("--upgrade").rc == 0
    assert tampered.state("q") == "research:approved\n"
    assert len([line for line in history_lines(tampered, "q") if "restored" in line]) == 2
    assert tampered.run("--audit").rc == 0


def test_upgrade_json_gives_what_state_said_before(tampered) -> None:
    (upgraded,) = tampered.run("--upgrade", "--json").json["upgraded"]
    assert upgraded == {
        "task": "q",
        "state": "research:approved",
        "inferred_from": ".state.history",
        "previous": "implement",
    }


def test_a_task_without_history_is_not_refused_for_it(project: Project) -> None:
    """A task made by an older version has no history to hold `.state` to."""
    folder = project.tasks / "old"
    folder.mkdir(parents=True)
    (folder / store.STATE).write_text("implement\n")
    assert project.run("--can-edit", "--task", "old").out == "ALLOWED\n"
    assert project.run("--can-edit").out == "ALLOWED\n"
    (folder / "IMPLEMENTATION.md").write_text("# done\n")
    assert project.run("--task", "old", "--transition", "bug_find").rc == 0


def test_an_empty_history_file_vouches_for_nothing(project: Project) -> None:
    folder = project.tasks / "old"
    folder.mkdir(parents=True)
    (folder / store.STATE).write_text("implement\n")
    (folder / store.HISTORY).write_text("\n\n")
    assert project.run("--can-edit", "--task", "old").out == "ALLOWED\n"


def test_a_history_whose_last_line_names_no_state_vouches_for_nothing(tampered) -> None:
    hand_edit(tampered, "q", "research:approved")
    with (tampered.task_dir("q") / store.HISTORY).open("a") as handle:
        handle.write("not json\n")
    result = tampered.run("--can-edit", "--task", "q")
    assert result.rc == 2
    assert "the last line of .state.history names no state" in result.err
    assert "--audit" in result.err
    upgrade = tampered.run("--upgrade")
    assert upgrade.rc == 2
    assert "names no state" in upgrade.err


def test_a_change_a_killed_command_left_half_done_is_no_hand_edit(project: Project, task_in):
    """The history line is written before `.state`: until the next change finishes it,
    `.state` still holds the state the line starts from, and nothing is refused."""
    task_in("implement", name="q")
    project.write("q", "IMPLEMENTATION.md")
    folder = project.task_dir("q")
    store.append_history(
        folder,
        {
            "time": "2999-01-01T00:00:00Z",
            "from": "implement",
            "to": "bug_find",
            "actor": "me",
            "command": "--transition bug_find",
        },
    )
    assert project.run("--can-edit", "--task", "q").out == "ALLOWED\n"
    assert project.run("--task", "q").rc == 0
    result = project.run("--task", "q", "--transition", "bug_find")
    assert result.rc == 0, result  # rolled forward: the move the killed command made
    assert project.state("q") == "bug_find\n"


def test_a_forged_half_done_change_is_a_hand_edit(project: Project, task_in) -> None:
    """A line that starts at the hand-written `.state` but not where the history stood."""
    task_in("research:approved", name="q")
    hand_edit(project, "q", "implement")
    store.append_history(
        project.task_dir("q"),
        {"time": "2999-01-01T00:00:00Z", "from": "implement", "to": "bug_find", "command": "x"},
    )
    result = project.run("--can-edit", "--task", "q")
    assert result.rc == 2
    assert ".state.history says 'bug_find'" in result.err


def test_load_tracked_refuses_a_hand_edit_through_the_python_api(tampered) -> None:
    with pytest.raises(AutomatonError) as raised:
        load_tracked(project_at(tampered.root), "q")
    assert raised.value.code == HAND_EDITED
    assert raised.value.exit_code == 2
    with pytest.raises(AutomatonError) as moved:
        workflow.transition(project_at(tampered.root), "q", "bug_find", engine=Engine.create([]))
    assert moved.value.code == HAND_EDITED


def _decision(harness_name: str, project: Project, fixture: str) -> str:
    """The adapter's answer to a recorded event: everything it printed."""
    payload, given = recorded(harness_name, fixture, project.root)
    proc = subprocess.run(
        [str(HOOK), "--harness", harness_name, *given],
        input=payload,
        capture_output=True,
        text=True,
        timeout=60,
    )
    return proc.stdout + proc.stderr


@pytest.mark.parametrize("harness_name", HARNESSES)
def test_the_adapter_denies_edits_under_a_hand_edited_state(tampered, harness_name) -> None:
    """Done when: a hand-edited `.state` is refused by the adapter, for every harness."""
    answer = _decision(harness_name, tampered, "edit.json")
    assert "deny" in answer.lower() or "DENIED" in answer
    assert "Task 'q': .state says 'implement' but .state.history says" in answer
    shell = _decision(harness_name, tampered, "shell-write.json")
    assert "Task 'q': .state says 'implement'" in shell


def test_the_adapter_allows_once_the_state_is_restored_by_the_workflow(tampered) -> None:
    assert tampered.run("--upgrade").rc == 0
    tampered.advance("q", ["implement"])
    assert _decision("claude", tampered, "edit.json") == ""


# --------------------------------------------------------------------------------------
# 1b. Within the speed budget: the last line only, json never loaded by status.py
# --------------------------------------------------------------------------------------


def test_history_tail_reads_the_last_lines_as_the_whole_file_does(tmp_path: Path) -> None:
    rng = random.Random(11)
    for trial in range(60):
        lines = [
            "".join(rng.choice('ab\u00e9\u2028 {}"\\') for _ in range(rng.randrange(0, 3000)))
            for _ in range(rng.randrange(0, 6))
        ]
        ending = rng.choice(["\n", "\r\n", "\n\n  \n", ""])
        (tmp_path / store.HISTORY).write_text("\n".join(lines) + ending, encoding="utf-8")
        whole = store.history_lines(tmp_path)
        for count in (1, 2, 3):
            assert store.history_tail(tmp_path, count) == whole[-count:], (trial, count)
    (tmp_path / store.HISTORY).unlink()
    assert store.history_tail(tmp_path) == []


def test_the_tail_of_a_long_history_is_read_from_its_end(tmp_path: Path) -> None:
    path = tmp_path / store.HISTORY
    path.write_text("".join(f'{{"to":"s{n}"}}\n' for n in range(100_000)))
    assert path.stat().st_size > 1_000_000
    assert store.history_tail(tmp_path, 2) == ['{"to":"s99998"}', '{"to":"s99999"}']


def test_a_linked_history_is_refused_not_followed(tmp_path: Path) -> None:
    (tmp_path / "elsewhere").write_text('{"to":"implement"}\n')
    (tmp_path / store.HISTORY).symlink_to(tmp_path / "elsewhere")
    with pytest.raises(AutomatonError):
        store.history_tail(tmp_path)


def _json_move(line: str) -> dict:
    try:
        entry = json.loads(line)
    except (ValueError, RecursionError):
        return {}
    return {k: entry[k] for k in ("from", "to") if k in entry} if isinstance(entry, dict) else {}


READ_MOVE_CASES = [
    '{"time":"2026-01-01T00:00:00Z","from":null,"to":"new","actor":"me","prev":null}',
    '{"from":"design:approved","to":"implement","actor":"j\\u00e9","prev":"ab"}',
    '{"to":"a","to":"b"}',
    '{"t\\u006f":"implement"}',
    '{"to":"impl\\u0065ment"}',
    '{"to": "implement"}',
    '{"a":"x\\"y","to":"z"}',
    '{"a":"\\\\","to":"z"}',
    '{"to":01}',
    '{"to":true,"from":-3,"restored":false}',
    '{"a":{"to":"nested"},"to":"top"}',
    '{"x":"\\",\\"to\\":\\"implement","to":"design"}',
    '["to","implement"]',
    "garbage",
    "{}",
    '{"to":"implement"} trailing',
]


@pytest.mark.parametrize("line", READ_MOVE_CASES)
def test_read_move_reads_a_line_as_json_does(line: str) -> None:
    assert integrity.read_move(line) == _json_move(line)


def test_read_move_agrees_with_json_on_random_lines() -> None:
    rng = random.Random(3)
    tokens = ['"', "\\", ":", ",", "{", "}", "to", "from", "null", "true", "0", "1", "-", "a"]
    tokens += [" ", "u00e9", "\x01", "\u2028", "1.5"]
    starts = ['{"to":"', '{"', '{"time":"t","from":"a","to":"', '{"to":', ""]
    for _ in range(5000):
        line = rng.choice(starts) + "".join(rng.choice(tokens) for _ in range(rng.randrange(12)))
        line += rng.choice(['"}', "}", '","from":"x"}', ',"from":null}', ""])
        assert integrity.read_move(line) == _json_move(line), line


def test_hand_edited_decides_on_the_last_two_moves() -> None:
    approved = {"from": "research:awaiting_approval", "to": "research:approved"}
    assert not integrity.hand_edited("implement", [])
    assert not integrity.hand_edited("research:approved", [approved])
    assert integrity.hand_edited("implement", [approved])
    pending = {"from": "research:approved", "to": "implement"}
    assert not integrity.hand_edited("research:approved", [approved, pending])
    assert integrity.hand_edited("research:approved", [pending])
    assert integrity.hand_edited("implement", [approved, {}])


def test_can_edit_checks_the_history_without_loading_json(project: Project, task_in) -> None:
    """The history check costs status.py's edit-time path no json (its import budget)."""
    task_in("implement", name="q")
    code, _, names = modules_imported([str(STATUS_PY), "--can-edit", "--task", "q"], project.root)
    assert code in (0, 1)
    assert "automaton_rules.core.integrity" in names
    assert not {"json", "hashlib", "typing"} & names
    hand_edit(project, "q", "implement")  # the same text again: still trusted
    code, _, names = modules_imported([str(STATUS_PY), "--can-edit"], project.root)
    assert code in (0, 1) and "json" not in names


def test_can_edit_opens_only_the_history_of_the_task_it_decides_on(
    project: Project, task_in, monkeypatch: pytest.MonkeyPatch
) -> None:
    task_in("implement", name="mine")
    task_in("design", name="other")
    opened: list[str] = []
    real_open = os.open

    def probe(path, *args, **kwargs):
        opened.append(os.fspath(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", probe)
    assert project.run("--can-edit", "--task", "mine").out == "ALLOWED\n"
    histories = [p for p in opened if p.endswith(store.HISTORY)]
    assert histories == [str(project.task_dir("mine") / store.HISTORY)]


# --------------------------------------------------------------------------------------
# 2. An approved artifact, byte for byte
# --------------------------------------------------------------------------------------

APPROVED_GATES = [
    ("research:approved", "SPEC.md", "design"),
    ("design:approved", "DESIGN.md", "implement"),
    ("test_design:approved", "TEST_PLAN.md", "implement"),
]


@pytest.mark.parametrize("state,artifact,target", APPROVED_GATES)
def test_an_artifact_rewritten_after_approval_does_not_pass_its_gate(
    project: Project, task_in, state: str, artifact: str, target: str
) -> None:
    """The issue: a DESIGN.md rewritten after its approval passed the gate into implement."""
    task_in(state, name="q")
    project.write("q", artifact, "# rewritten after approval\n")
    result = project.run("--task", "q", "--transition", target)
    assert result.rc == 1, result
    gate = state.replace(":approved", ":awaiting_approval")
    assert result.err.startswith(
        f"ERROR: Cannot transition from '{state}' to '{target}'. {artifact} changed after its "
        "approval at "
    )
    assert f"--task q --transition {gate} --project {project.root}" in result.err
    assert project.state("q") == f"{state}\n"


def test_the_refusal_json_names_the_artifact_and_the_way_on(project: Project, task_in) -> None:
    task_in("design:approved", name="q")
    project.write("q", "DESIGN.md", "# rewritten\n")
    body = project.run("--task", "q", "--transition", "implement", "--json").json
    assert body["error"]["code"] == "approved-artifact-changed"
    assert body["next"]["artifact"] == "DESIGN.md"
    assert body["next"]["transition"] == "design:awaiting_approval"


def test_re_requesting_approval_then_approving_opens_the_gate(project: Project, task_in) -> None:
    task_in("design:approved", name="q")
    project.write("q", "DESIGN.md", "# rewritten\n")
    shown = project.run("--task", "q").out
    assert "DESIGN.md changed since" in shown
    assert "Folder validation: FAIL — found state-artifact inconsistencies" in shown
    moved = project.run("--task", "q", "--transition", "design:awaiting_approval")
    assert moved.rc == 0, moved
    assert project.run("--task", "q", "--approve").rc == 0
    assert project.run("--task", "q", "--transition", "implement").rc == 0
    audit = project.run("--audit", "--json")
    assert audit.rc == 0, audit.out  # AR207 and AR209 see a round status.py made


def test_the_way_back_to_the_gate_is_open_only_for_a_changed_artifact(
    project: Project, task_in
) -> None:
    task_in("design:approved", name="q")
    result = project.run("--task", "q", "--transition", "design:awaiting_approval")
    assert result.rc == 1
    assert result.err.startswith(
        "ERROR: Cannot transition from 'design:approved' to 'design:awaiting_approval'. "
        "Legal transitions from 'design:approved' are: test_design, implement"
    )


def test_the_approved_bytes_put_back_pass_the_gate(project: Project, task_in) -> None:
    task_in("design:approved", name="q")
    path = project.task_dir("q") / "DESIGN.md"
    approved = path.read_bytes()
    path.write_bytes(approved + b" ")  # one byte more is a change
    assert project.run("--task", "q", "--transition", "implement").rc == 1
    path.write_bytes(approved)
    assert project.run("--task", "q", "--transition", "implement").rc == 0


def test_a_removed_approved_artifact_is_refused(project: Project, task_in) -> None:
    task_in("design:approved", name="q")
    (project.task_dir("q") / "DESIGN.md").unlink()
    result = project.run("--task", "q", "--transition", "implement")
    assert result.rc == 1
    assert "DESIGN.md was removed after its approval at" in result.err


def test_the_gate_refuses_through_the_python_api(project: Project, task_in) -> None:
    task_in("design:approved", name="q")
    project.write("q", "DESIGN.md", "# rewritten\n")
    with pytest.raises(Refusal) as raised:
        workflow.transition(project_at(project.root), "q", "implement", engine=Engine.create([]))
    assert raised.value.code == "approved-artifact-changed"
    assert raised.value.exit_code == 1


# --------------------------------------------------------------------------------------
# 3. A referee's verdict that fails does not complete the task
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("verdict,kind", [("FAIL", "fix"), ("NEEDS_REVIEW", "review")])
def test_a_failed_verdict_does_not_complete_the_task(
    project: Project, task_in, verdict: str, kind: str
) -> None:
    """The issue: a referee's `Verdict: FAIL` completed the task silently."""
    task_in("referee", name="q")
    project.write("q", "VERDICT.md", f"# Verdict\n\nVerdict: {verdict}\n")
    result = project.run("--task", "q", "--transition", "complete")
    assert result.rc == 1, result
    assert result.err.startswith(
        f"ERROR: Cannot transition from 'referee' to 'complete'. VERDICT.md says {verdict}"
    )
    assert "human_intervention" in result.err and "--follow-up" in result.err
    assert f"creates the {kind} task" in result.err
    assert project.state("q") == "referee\n"
    body = project.run("--task", "q", "--transition", "complete", "--json").json
    assert body["error"]["code"] == "verdict-not-pass"
    assert body["next"]["transition"] == "human_intervention"
    assert body["next"]["follow_up"].endswith(f"--task q --follow-up --project {project.root}")
    # The way on that the refusal names works.
    assert project.run("--task", "q", "--transition", "human_intervention").rc == 0
    assert project.run("--task", "q", "--follow-up").rc == 0


def test_a_passing_verdict_completes_and_the_user_decides_after_a_failed_one(
    project: Project, task_in
) -> None:
    task_in("referee", name="passed")
    project.write("passed", "VERDICT.md", "Verdict: PASS\n")
    assert project.run("--task", "passed", "--transition", "complete").rc == 0
    task_in("referee", name="failed")
    project.write("failed", "VERDICT.md", "Verdict: FAIL\n")
    assert project.run("--task", "failed", "--transition", "human_intervention").rc == 0
    assert project.run("--task", "failed", "--transition", "complete").rc == 0


def test_the_verdict_gate_refuses_through_the_python_api(project: Project, task_in) -> None:
    task_in("referee", name="q")
    project.write("q", "VERDICT.md", "verdict - needs_review\n")
    with pytest.raises(Refusal) as raised:
        workflow.transition(project_at(project.root), "q", "complete", engine=Engine.create([]))
    assert raised.value.code == "verdict-not-pass"


# --------------------------------------------------------------------------------------
# 4. --validate-folder reports a state its files contradict
# --------------------------------------------------------------------------------------


def _in_bug_find_with_only_spec(project: Project) -> str:
    folder = project.tasks / "q"
    folder.mkdir(parents=True)
    (folder / store.STATE).write_text("bug_find\n")
    (folder / "SPEC.md").write_text("# spec\n")
    return "q"


def test_bug_find_with_only_spec_fails_validation(project: Project) -> None:
    """The issue: a task in bug_find with only SPEC.md got PASS."""
    name = _in_bug_find_with_only_spec(project)
    result = project.run("--validate-folder", "--task", name)
    assert result.rc == 1, result
    assert result.out.splitlines() == [
        "Task: q",
        "Phase: bug_find (from .state)",
        "Folder validation: FAIL — found state-artifact inconsistencies:",
        '  - .state says "bug_find" but IMPLEMENTATION.md is missing or empty (AR201)',
    ]
    body = project.run("--validate-folder", "--task", name, "--json").json
    assert body["tasks"][0]["passed"] is False
    assert [f["code"] for f in body["findings"]] == ["AR201"]


def test_the_task_view_does_not_say_pass_for_it(project: Project) -> None:
    name = _in_bug_find_with_only_spec(project)
    last = project.run("--task", name).out.splitlines()[-1]
    assert last == (
        "Folder validation: FAIL — found state-artifact inconsistencies (see --validate-folder); "
        'AR201: .state says "bug_find" but IMPLEMENTATION.md is missing or empty'
    )


def test_an_approved_state_without_its_approval_line_fails_validation(
    project: Project, task_in
) -> None:
    task_in("design:approved", name="q")
    (project.task_dir("q") / store.APPROVALS).write_text("research:approved|x|user\n")
    result = project.run("--validate-folder", "--task", "q")
    assert result.rc == 1
    assert "(AR203)" in result.out


def test_a_consistent_task_still_passes_word_for_word(project: Project, task_in) -> None:
    task_in("bug_find", name="q")
    assert project.run("--validate-folder", "--task", "q").out.splitlines() == [
        "Task: q",
        "Phase: bug_find (from .state)",
        "Folder validation: PASS — no out-of-order artifacts found",
    ]


# --------------------------------------------------------------------------------------
# 5. White space of any kind is no content
# --------------------------------------------------------------------------------------

BLANK = ["\u00a0\u2003\n", "\ufeff", "\ufeff \n\t", "\u3000\u2028\u00a0", "\ufeff\ufeff\n"]


@pytest.mark.parametrize("text", BLANK, ids=[repr(t) for t in BLANK])
def test_unicode_white_space_or_a_bare_bom_is_an_empty_artifact(
    project: Project, task_in, text: str
) -> None:
    task_in("research", name="q")
    project.write("q", "SPEC.md", text)
    result = project.run("--task", "q", "--transition", "research:awaiting_approval")
    assert result.rc == 1
    assert result.err == (
        "ERROR: Cannot transition from 'research' to 'research:awaiting_approval'. "
        "Required artifact 'SPEC.md' is missing or empty in task folder.\n"
    )
    assert not project_at(project.root).load("q").has_content("SPEC.md")


def test_a_bom_before_words_is_content(project: Project, task_in) -> None:
    task_in("research", name="q")
    project.write("q", "SPEC.md", "\ufeff# Spec\n")
    assert project.run("--task", "q", "--transition", "research:awaiting_approval").rc == 0
    (project.task_dir("q") / "SPEC.md").write_bytes(b"\xff\xfe")  # not UTF-8: something
    assert project_at(project.root).load("q").has_content("SPEC.md")


def test_approval_refuses_an_artifact_of_white_space(project: Project, task_in) -> None:
    task_in("design:awaiting_approval", name="q")
    project.write("q", "DESIGN.md", "\ufeff\u2003\n")
    result = project.run("--task", "q", "--approve")
    assert result.rc == 1
    assert "required artifact 'DESIGN.md' is missing or empty" in result.err


def test_a_large_artifact_of_white_space_is_empty(project: Project, task_in) -> None:
    task_in("research", name="q")
    path = project.task_dir("q") / "SPEC.md"
    path.write_text("\ufeff" + "\u2003\n" * 700_000)  # over the 1 MB read at once
    assert path.stat().st_size > 1 << 20
    assert not project_at(project.root).load("q").has_content("SPEC.md")
    with path.open("a") as handle:
        handle.write("\u00e9")
    assert project_at(project.root).load("q").has_content("SPEC.md")


def test_the_audit_reports_a_state_whose_artifact_is_white_space(project: Project, task_in):
    task_in("implement", name="q")
    project.write("q", "SPEC.md", "\u00a0\u2003\n")
    audit = project.run("--audit", "--json").json
    messages = [f["message"] for f in audit["findings"] if f["code"] == "AR201"]
    assert messages == ['.state says "implement" but SPEC.md is missing or empty']


@pytest.mark.parametrize(
    "text", ["# Verdict\n\nLooks fine to me.\n", "Verdict: REJECTED\n", "Result: fail\n"]
)
def test_a_verdict_that_names_no_verdict_does_not_complete_the_task(
    project: Project, task_in, text: str
) -> None:
    """Found in review: `Verdict: REJECTED` or prose completed the task; only PASS does."""
    task_in("referee", name="q")
    project.write("q", "VERDICT.md", text)
    result = project.run("--task", "q", "--transition", "complete")
    assert result.rc == 1, result
    assert "VERDICT.md names no verdict (PASS, FAIL or NEEDS_REVIEW)" in result.err
    assert "human_intervention" in result.err
    assert project.state("q") == "referee\n"
