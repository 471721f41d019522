"""docs/workflow.md and the README against the code: the tables come from
`core/machine.py`, the examples and messages from status.py itself, so a change to
either that the docs do not follow fails here."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from helpers import README, ROOT

from automaton_rules.core import machine
from automaton_rules.core.project import find_project
from automaton_rules.guards.edits.checks import same_session
from automaton_rules.testing import AutomatonProject

WORKFLOW = (ROOT / "docs" / "workflow.md").read_text(encoding="utf-8")
SHOWN_ROOT = "/path/to/project"
ARROWS = {"→": "transition", "⇒": "approve"}


def _section(text: str, heading: str) -> str:
    """The body of a `## heading` section, up to the next heading of that level."""
    found = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert found, f"no '## {heading}' section"
    return found.group(1)


def _table(text: str, first_header: str) -> list[list[str]]:
    """The rows of the first table whose header starts with `| first_header |`."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"| {first_header} |"))
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip().strip("|").split(" | ")])
    return rows


def _ticked(cell: str) -> list[str]:
    return re.findall(r"`([^`]+)`", cell)


def _blocks(text: str, info: str | None = None) -> list[str]:
    """The fenced code blocks, each fence paired with its closing one; only those whose
    info string is `info` when given."""
    blocks: list[str] = []
    current: list[str] = []
    kind: str | None = None
    for line in text.splitlines(keepends=True):
        if kind is None and line.startswith("```"):
            kind, current = line[3:].strip(), []
        elif kind is not None and line.rstrip() == "```":
            if info is None or kind == info:
                blocks.append("".join(current))
            kind = None
        elif kind is not None:
            current.append(line)
    return blocks


# ------------------------------------------------------------------ the tables


def test_the_phase_table_is_the_machine() -> None:
    rows = _table(_section(WORKFLOW, "Phases and artifacts"), "phase")
    assert [_ticked(row[0])[0] for row in rows] == list(machine.PHASES)
    for row in rows:
        phase = _ticked(row[0])[0]
        artifact = _ticked(row[1])
        assert artifact == ([machine.ARTIFACTS[phase]] if phase in machine.ARTIFACTS else [])
        assert row[2] == ("yes" if phase in machine.APPROVAL_PHASES else "no"), phase
        assert row[3] == ("yes" if phase in machine.EDIT_PHASES else "no"), phase


def test_the_transition_table_is_the_machine() -> None:
    rows = _table(_section(WORKFLOW, "Transitions"), "state")
    assert [_ticked(row[0])[0] for row in rows] == list(machine.STATES)
    for row in rows:
        state = _ticked(row[0])[0]
        assert tuple(_ticked(row[1])) == machine.TRANSITIONS[state], state
        target = machine.approval_target(state)
        assert _ticked(row[2]) == ([target] if target else []), state
        needed = machine.required_artifact(state)
        assert _ticked(row[3]) == ([needed] if needed else []), state


def _diagram_edges(text: str) -> set[tuple[str, str, str]]:
    """(kind, from, to) for each arrow of the first diagram with both kinds of arrow."""
    block = next(b for b in _blocks(text) if "→" in b and "⇒" in b)
    edges = set()
    for line in block.splitlines():
        parts = re.split(r"\s*([→⇒])\s*", line.strip())
        groups = [[s.strip() for s in part.split("|")] for part in parts[::2]]
        for arrow, before, after in zip(parts[1::2], groups, groups[1:]):
            edges |= {(ARROWS[arrow], a, b) for a in before for b in after}
    return edges


def _machine_edges() -> set[tuple[str, str, str]]:
    moves = {("transition", s, t) for s, targets in machine.TRANSITIONS.items() for t in targets}
    gates = {
        ("approve", s, machine.approval_target(s) or "")
        for s in machine.STATES
        if machine.is_awaiting(s)
    }
    return moves | gates


@pytest.mark.parametrize("name,text", [("docs/workflow.md", WORKFLOW), ("README.md", README)])
def test_the_transition_diagrams_are_the_machine(name: str, text: str) -> None:
    assert _diagram_edges(text) == _machine_edges(), name


def test_the_forbidden_artifact_table_is_the_machine() -> None:
    rows = _table(_section(WORKFLOW, "Forbidden artifacts"), "phase")
    table = {
        _ticked(row[0])[0]: frozenset() if row[1] == "none" else frozenset(row[1].split(", "))
        for row in rows
    }
    assert table == machine.FORBIDDEN
    order = list(machine.ARTIFACTS.values())
    for row in rows:  # in the order of the phases, as --task lists them
        listed = [] if row[1] == "none" else row[1].split(", ")
        assert listed == [a for a in order if a in listed], row


def _guidance_rows() -> dict[str, tuple[list[str], list[str]]]:
    rows = _table(_section(WORKFLOW, "What `--task` shows"), "state")
    return {_ticked(row[0])[0]: (_items(row[1]), _items(row[2])) for row in rows}


def _items(cell: str) -> list[str]:
    return [] if cell == "—" else cell.split("; ")


@pytest.mark.parametrize("state", machine.STATES)
def test_the_actions_table_is_what_task_prints(state: str) -> None:
    rows = _guidance_rows()
    phase = machine.base_phase(state)
    artifact = machine.ARTIFACTS.get(phase, "")
    key = state
    if state not in rows:
        key = "X" + state[len(phase) :]
    allowed, extra = rows[key]
    if key != state:
        allowed = [a.replace("X's artifact", artifact) for a in allowed]
        extra = [a.replace("X's artifact", artifact) for a in extra]
    info = machine.guidance(state)
    assert list(info.allowed) == allowed
    generic = {"Edit code", *(f"Create {name}" for name in machine.ARTIFACTS.values())}
    assert [f for f in info.forbidden if f not in generic] == extra


# ------------------------------------------------------------- the examples


def _project(tmp_path: Path) -> AutomatonProject:
    root = tmp_path / "project"
    root.mkdir()
    return AutomatonProject(root)


def _shown(project: AutomatonProject, text: str) -> str:
    return text.replace(str(project.root), SHOWN_ROOT)


def test_the_task_view_example_is_what_task_prints(tmp_path: Path) -> None:
    example = next(b for b in _blocks(WORKFLOW, "text") if b.startswith("Task: add-user-auth"))
    project = _project(tmp_path)
    project.task("add-user-auth", "research:awaiting_approval")
    result = project.run("--task", "add-user-auth")
    assert result.exit_code == 0
    assert _shown(project, result.out) == example


def test_the_list_example_is_what_list_prints(tmp_path: Path) -> None:
    example = next(b for b in _blocks(WORKFLOW, "text") if b.startswith("Task    "))
    project = _project(tmp_path)
    project.task("add-user-auth", "research:awaiting_approval")
    project.task("add-payment-api", "decomposition:approved")
    project.run("--create-task", "add-payment-api/stripe-client")
    project.task("fix-login-bug", "human_intervention")
    project.task("old-task", "complete")
    result = project.run("--list")
    assert result.exit_code == 0
    assert _shown(project, result.out) == example


# ------------------------------------------------------------- the messages


def _templates() -> list[str]:
    body = _section(WORKFLOW, "Messages")
    return [line for block in _blocks(body, "text") for line in block.splitlines() if line]


def _pattern(template: str) -> re.Pattern[str]:
    """`{value}` is any text; `, …` any number of further list items."""
    parts = re.split(r"(\{[^}]+\}|, …)", template)
    regex = "".join(
        ".+?" if p.startswith("{") else "(?:, .+?)*" if p == ", …" else re.escape(p) for p in parts
    )
    return re.compile(regex)


class Transcript:
    """Every line status.py printed in the scenarios, and every JSON error code."""

    def __init__(self, project: AutomatonProject) -> None:
        self.project = project
        self.lines: list[str] = []
        self.codes: set[str] = set()

    def say(self, *args: str, project: AutomatonProject | None = None) -> int:
        proj = project or self.project
        result = proj.run(*args)
        self.lines += [line for line in (result.out + result.err).splitlines() if line]
        error = json.loads(proj.run(*args, "--json").out).get("error") if result.exit_code else None
        if error:  # the edit-time answers refuse with a decision, not an error
            self.codes.add(error["code"])
        return result.exit_code

    def write(self, name: str, filename: str, text: str = "content\n") -> Path:
        path = self.project.task_dir(name) / filename
        path.write_text(text)
        return path


def _creating(t: Transcript) -> None:
    t.say("--create-task", "add-user-auth")
    t.say("--create-task", "Bad_Name")
    t.say("--create-task", "add-user-auth")
    t.project.task("pay-api", "research:approved")
    t.say("--create-task", "pay-api/stripe")


def _moving(t: Transcript) -> None:
    t.say("--task", "add-user-auth", "--transition", "not-a-phase")
    t.say("--task", "add-user-auth", "--transition", "implemnt")
    t.say("--task", "add-user-auth", "--transition", "bug_find")
    t.say("--task", "add-user-auth", "--transition", "research")
    t.say("--task", "add-user-auth", "--transition", "research:awaiting_approval")
    t.write("add-user-auth", "SPEC.md")
    stray = t.write("add-user-auth", "IMPLEMENTATION.md")
    t.say("--task", "add-user-auth", "--transition", "research:awaiting_approval")
    stray.unlink()
    t.say("--task", "add-user-auth", "--transition", "research:awaiting_approval")
    t.say("--task", "add-user-auth", "--transition", "research:approved")
    t.say("--task", "add-user-auth", "--approve")
    spec = t.write("add-user-auth", "SPEC.md", "changed\n")
    t.say("--task", "add-user-auth", "--transition", "implement")
    spec.write_text("content\n")
    t.project.task("judged", "referee")
    verdict = t.write("judged", "VERDICT.md", "Verdict: FAIL\n")
    t.say("--task", "judged", "--transition", "complete")
    verdict.write_text("Looks fine to me.\n")
    t.say("--task", "judged", "--transition", "complete")
    verdict.write_text("Verdict: PASS\n\n## Tie-Breaks\n- retries stay at 3\n")
    t.say("--task", "judged", "--transition", "complete")
    verdict.write_text("Verdict: FAIL\n")
    t.say("--task", "judged", "--transition", "human_intervention")
    t.say("--task", "judged", "--transition", "research")
    t.project.advance("pay-api", ["decomposition", "decomposition:awaiting_approval"])
    t.project.advance("pay-api", ["decomposition:approved"])
    t.say("--task", "pay-api", "--transition", "complete")
    t.say("--create-task", "pay-api/stripe")
    t.say("--task", "pay-api", "--transition", "complete")


def _approving(t: Transcript) -> None:
    t.say("--task", "add-user-auth", "--approve")
    t.project.task("gated", "research:awaiting_approval")
    t.say("--task", "gated", "--approve", "--approver", "not an id")
    t.write("gated", "DESIGN.md")
    t.say("--task", "gated", "--approve")
    (t.project.task_dir("gated") / "DESIGN.md").unlink()
    (t.project.task_dir("gated") / "SPEC.md").unlink()
    t.say("--task", "gated", "--approve")
    t.project.task("coding", "implement")
    t.say("--task", "coding", "--approve")
    t.project.task("done", "complete")
    t.say("--task", "done", "--approve")


def _finding(t: Transcript) -> None:
    t.say("--task", "nope")
    t.say("--task", "stripe")
    t.project.folder("hand-made", ["SPEC.md"])
    t.say("--task", "hand-made")
    t.project.folder("empty-hand-made")
    t.say("--task", "empty-hand-made")
    t.write("coding", ".state", "implemnt\n")
    t.say("--task", "coding")
    t.write("gated", ".state", "implement\n")
    t.say("--task", "gated")


def _following_up(t: Transcript) -> None:
    t.say("--task", "judged", "--follow-up")
    t.say("--task", "pay-api", "--follow-up")
    t.project.task("passed", "referee")
    t.say("--task", "passed", "--follow-up")
    t.say("--upgrade")
    t.say("--upgrade")


def _validating(t: Transcript) -> None:
    t.say("--validate-folder", "--task", "passed")
    t.project.task("skipped", "research", files=["IMPLEMENTATION.md"])
    t.say("--validate-folder", "--task", "skipped")
    t.project.task("hollow", "bug_find")
    (t.project.task_dir("hollow") / "IMPLEMENTATION.md").unlink()
    t.say("--validate-folder", "--task", "hollow")
    t.project.folder("by-hand", ["SPEC.md"])
    t.say("--validate-folder")


def _editing(t: Transcript, tmp_path: Path) -> None:
    root = t.project.root
    t.say("--task", "coding", "--can-edit")
    t.say("--task", "skipped", "--can-edit")
    (root / "automaton.toml").write_text("")
    t.say("--can-edit", "--file", str(root / "automaton.toml"))
    t.say("--can-edit", "--file", str(t.project.task_dir("skipped") / ".state"))
    t.say("--can-edit", "--file", str(t.project.task_dir("skipped") / "BUG_REPORT.md"))
    t.say("--can-edit", "--file", str(t.project.task_dir("by-hand") / "SPEC.md"))
    t.say("--scope-check", "--file", str(root / "src.py"))
    t.say("--scope-check", "--file", "/etc/passwd")
    t.say("--task", "skipped", "--same-session")
    t.say("--can-create-task")
    other = AutomatonProject(tmp_path / "other")
    other.tasks_dir.mkdir(parents=True)
    t.say("--can-edit", project=other)
    other.task("research-only", "research")
    t.say("--can-edit", project=other)
    later = time.time() + 3600  # one reading of the clock, an hour on
    t.lines.append(same_session(find_project(root), "skipped", now=later).text)


def _older(t: Transcript) -> None:
    """Tasks of an older version (no history) whose `.state` names no phase."""
    t.project.folder("older", {".state": "implemnt\n", "SPEC.md": "spec\n"})
    t.say("--task", "older")
    t.project.folder("oldest", {".state": "garbled\n"})
    t.say("--task", "oldest")
    t.say("--upgrade")


@pytest.fixture(scope="module")
def transcript(tmp_path_factory: pytest.TempPathFactory) -> Transcript:
    tmp_path = tmp_path_factory.mktemp("messages")
    t = Transcript(_project(tmp_path))
    for step in (_creating, _moving, _approving, _finding, _following_up, _validating):
        step(t)
    _editing(t, tmp_path)
    _older(t)
    return t


def test_every_message_printed_is_documented(transcript: Transcript) -> None:
    patterns = [_pattern(t) for t in _templates()]
    undocumented = [
        line for line in transcript.lines if not any(p.fullmatch(line) for p in patterns)
    ]
    assert not undocumented, "\n".join(undocumented)


@pytest.mark.parametrize("template", _templates())
def test_every_documented_message_is_printed(transcript: Transcript, template: str) -> None:
    pattern = _pattern(template)
    assert any(pattern.fullmatch(line) for line in transcript.lines), template


def test_the_readmes_example_messages_are_documented_ones() -> None:
    block = next(b for b in _blocks(README) if b.startswith("ERROR: Cannot transition"))
    patterns = [_pattern(t) for t in _templates()]
    for line in block.splitlines():
        assert any(p.fullmatch(line) for p in patterns), line


def test_every_error_code_met_is_documented(transcript: Transcript) -> None:
    body = _section(WORKFLOW, "Messages")
    assert transcript.codes
    missing = sorted(code for code in transcript.codes if f"`{code}`" not in body)
    assert not missing


# --------------------------------------------------- what the docs may cite

# The project began from documents it does not ship; the docs say what the code does,
# and name those documents only as "the original (status.py) specification" and "v2.0"
# where their history matters (docs/decisions.md).
_UNSHIPPED = (
    re.compile(r"\bspec(ification)?'?s?\s+(section|§)|\bsection\s+\d+[a-z]?\b", re.I),
    re.compile(r"DESIGN(\.md)?\s*(§|section)|§\s*\d"),
    re.compile(r"\bspec\s+\d+[a-z]?\b", re.I),
)
_HISTORY = "docs/decisions.md"


def _shipped_docs() -> list[Path]:
    skip = {"tests", "node_modules"}
    return sorted(
        path
        for path in ROOT.rglob("*.md")
        if not any(part.startswith(".") or part in skip for part in path.relative_to(ROOT).parts)
        and not any(part.endswith(".egg-info") for part in path.parts)
    )


def _citations(name: str, text: str) -> list[int]:
    """Offsets in `text` where it points at a document the project does not ship."""
    found = [m.start() for pattern in _UNSHIPPED for m in pattern.finditer(text)]
    for match in re.finditer(r"\bspecification\b", text, re.I):
        before = text[: match.start()].rstrip()
        if not re.search(r"\boriginal(\s+status\.py)?$", before, re.I):
            found.append(match.start())
    if name != _HISTORY:
        found += [m.start() for m in re.finditer(r"\bv2\.0\b", text)]
    return sorted(found)


def test_the_docs_cite_no_unshipped_document() -> None:
    found = []
    for path in _shipped_docs():
        name = path.relative_to(ROOT).as_posix()
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        for offset in _citations(name, text):
            number = text.count("\n", 0, offset) + 1
            found.append(f"{name}:{number}: {lines[number - 1].strip()}")
    assert not found, "\n".join(found)


def test_the_readme_says_status_py_and_automaton_status_are_one_command() -> None:
    early = README[: README.index("## A task's life")]
    assert "`automaton-status`" in early and "same command" in early
