"""`--graph`: the workflow as Mermaid (GitHub renders it as is) or DOT, and as --json data;
with --task, the task's state highlighted and the path its history records drawn."""

from __future__ import annotations

import re
import subprocess

import pytest
from helpers import ROOT, Project, path_to, system_tool

from automaton_rules.core import machine
from automaton_rules.report import graph as graphs

MERMAID_ID = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
TRANSITION_LINE = re.compile(r"    (\[\*\]|\S+) --> (\[\*\]|\S+)(?: : (.+))?")
DECLARED_LINE = re.compile(r'    state "([^"]+)" as (\S+)')
CLASS_LINE = re.compile(r"    class (\S+) (\w+)")
CLASS_DEF_LINE = re.compile(r"    classDef (\w+) (\S+)")
GATE_CLASSES = ("gate", "visitedGate", "currentGate")
ON_PATH_CLASSES = ("visited", "visitedGate", "current", "currentGate")


class Diagram:
    """A stateDiagram-v2 read back line by line; a line it cannot read fails the test."""

    def __init__(self, text: str) -> None:
        lines = text.splitlines()
        assert lines[0] == "stateDiagram-v2"
        self.names: dict[str, str] = {}  # Mermaid id -> state name as declared
        self.edges: list[tuple[str, str, str]] = []
        self.classes: dict[str, list[str]] = {}
        self.class_defs: dict[str, str] = {}  # class -> its style
        for line in lines[1:]:
            if line.startswith("    %%"):
                continue
            if found := DECLARED_LINE.fullmatch(line):
                self.names[found[2]] = found[1]
            elif found := TRANSITION_LINE.fullmatch(line):
                self.edges.append((found[1], found[2], found[3] or ""))
            elif found := CLASS_LINE.fullmatch(line):
                assert found[2] not in self.classes, f"class {found[2]} applied twice"
                self.classes[found[2]] = found[1].split(",")
            elif found := CLASS_DEF_LINE.fullmatch(line):
                self.class_defs[found[1]] = found[2]
            else:
                pytest.fail(f"a line Mermaid's state diagram does not have: {line!r}")
        drawn = [i for ids in self.classes.values() for i in ids]
        # of two classes on a state Mermaid shows the one defined last: one class each
        assert len(drawn) == len(set(drawn)), f"a state drawn with two classes: {drawn}"

    @property
    def ids(self) -> set[str]:
        ends = {name for edge in self.edges for name in edge[:2]} - {"[*]"}
        return ends | set(self.names) | {i for ids in self.classes.values() for i in ids}

    def state(self, mermaid_id: str) -> str:
        """The workflow state an id stands for."""
        return self.names.get(mermaid_id, mermaid_id)

    def states(self) -> set[str]:
        return {self.state(i) for i in self.ids}

    def marked(self, *names: str) -> list[str]:
        """The states drawn with any of these classes, in workflow order."""
        marked = {self.state(i) for name in names for i in self.classes.get(name, [])}
        return [s for s in machine.STATES if s in marked] + sorted(marked - set(machine.STATES))

    def fill(self, state: str) -> str:
        """The fill colour of the one class a state is drawn with."""
        (name,) = [name for name, ids in self.classes.items() if state in map(self.state, ids)]
        return dict(p.split(":") for p in self.class_defs[name].split(","))["fill"]


def _rework(project: Project, name: str) -> None:
    """Walk a task to referee, send it to human intervention and back to implement (its
    later reports archived, as the workflow asks), then on to bug_find again."""
    project.create(name)
    project.advance(name, path_to("referee"))
    folder = project.task_dir(name)
    (folder / "VERDICT.md").write_text("Verdict: FAIL\n")
    project._ok("--task", name, "--transition", "human_intervention")
    for report in ("BUG_REPORT", "ADVERSARIAL_BUG_REPORT", "DOC_REVIEW", "VERDICT"):
        (folder / f"{report}.md").rename(folder / f"{report}.v1.md")
    project._ok("--task", name, "--transition", "implement")
    project._ok("--task", name, "--transition", "bug_find")


def test_graph_prints_mermaid_that_names_every_state(project: Project) -> None:
    project.create("alpha")
    result = project.script("--graph")
    assert result.rc == 0, result.err
    diagram = Diagram(result.out)
    assert diagram.states() == set(machine.STATES)
    assert ("[*]", "new", "") in diagram.edges
    assert ("complete", "[*]", "") in diagram.edges


def test_the_diagram_is_every_move_of_the_workflow(project: Project) -> None:
    project.create("alpha")
    diagram = Diagram(project.run("--graph").out)
    moves = {
        (diagram.state(a), diagram.state(b), label)
        for a, b, label in diagram.edges
        if "[*]" not in (a, b)
    }
    expected = {(s, t, "") for s, targets in machine.TRANSITIONS.items() for t in targets}
    expected |= {
        (s, machine.approval_target(s) or "", "approve")
        for s in machine.STATES
        if machine.is_awaiting(s)
    }
    # back to the gate once the approved artifact changed: a move status.py makes
    expected |= {
        (s, machine.base_phase(s) + ":awaiting_approval", "re-approval")
        for s in machine.STATES
        if machine.is_approved(s)
    }
    assert moves == expected


def test_every_mermaid_id_is_one_mermaid_can_read(project: Project) -> None:
    _rework(project, "alpha")
    diagram = Diagram(project.run("--graph", "--task", "alpha").out)
    assert diagram.ids
    for mermaid_id in diagram.ids:
        assert MERMAID_ID.fullmatch(mermaid_id), mermaid_id
    # a state with a colon is declared under its own name, as GitHub shows it
    assert diagram.names["design_awaiting_approval"] == "design:awaiting_approval"


def test_approval_gates_are_marked(project: Project) -> None:
    project.create("alpha")
    diagram = Diagram(project.run("--graph").out)
    assert "gate" in diagram.class_defs
    gates = [s for s in machine.STATES if machine.is_awaiting(s)]
    assert diagram.marked("gate") == gates
    dot = project.run("--graph", "--format", "dot").out
    diamonds = re.findall(r'^  "([^"]+)" \[shape=diamond', dot, flags=re.M)
    assert diamonds == gates


def test_graph_highlights_the_task_state(project: Project) -> None:
    project.create("alpha")
    project.advance("alpha", path_to("design"))
    result = project.script("--graph", "--task", "alpha")
    assert result.rc == 0, result.err
    diagram = Diagram(result.out)
    assert "current" in diagram.class_defs
    assert diagram.marked("current") == ["design"]
    entered = {"new", *path_to("design")}
    assert diagram.marked(*ON_PATH_CLASSES) == [s for s in machine.STATES if s in entered]
    assert "    %% automaton-rules: task alpha" in result.out.splitlines()


def test_a_gate_on_the_task_path_still_looks_like_a_gate(project: Project) -> None:
    project.create("alpha")
    project.advance("alpha", path_to("design:awaiting_approval"))
    diagram = Diagram(project.run("--graph", "--task", "alpha").out)
    amber = diagram.fill("test_design:awaiting_approval")  # a gate the task never reached
    assert diagram.marked("visitedGate") == ["research:awaiting_approval"]
    assert diagram.fill("research:awaiting_approval") == amber
    assert diagram.fill("research") != amber  # a state the path entered: blue
    assert diagram.marked("currentGate") == ["design:awaiting_approval"]
    assert diagram.marked("current") == []
    assert "stroke:#b8860b" in diagram.class_defs["currentGate"]  # the gate's amber border


def test_the_path_is_drawn_from_the_history_rework_included(project: Project) -> None:
    _rework(project, "alpha")
    diagram = Diagram(project.run("--graph", "--task", "alpha").out)
    labels = {(diagram.state(a), diagram.state(b)): label for a, b, label in diagram.edges}
    # 1 created, 2..15 the usual route to referee, 16 human_intervention, 17 implement,
    # 18 bug_find: the edge taken twice carries both steps
    assert labels[("[*]", "new")] == "step 1"
    assert labels[("new", "research")] == "step 2"
    assert labels[("research:awaiting_approval", "research:approved")] == "approve (step 4)"
    assert labels[("referee", "human_intervention")] == "step 16"
    assert labels[("human_intervention", "implement")] == "step 17"
    assert labels[("implement", "bug_find")] == "steps 12, 18"
    assert labels[("decomposition", "decomposition:awaiting_approval")] == ""
    assert diagram.marked("current") == ["bug_find"]
    assert "decomposition" not in diagram.marked("visited")


def test_a_step_the_workflow_has_no_edge_for_is_drawn_as_recorded(project: Project) -> None:
    project.folder("by-hand", files=["SPEC.md"])
    assert project.run("--upgrade").rc == 0
    diagram = Diagram(project.run("--graph", "--task", "by-hand").out)
    assert ("[*]", "research", "upgrade (step 1)") in diagram.edges
    assert ("[*]", "new", "") in diagram.edges
    assert diagram.marked("current") == ["research"]


def _reapproved(project: Project, name: str) -> None:
    """Approve SPEC.md, change it, and go back to the gate to have it approved again."""
    project.create(name)
    project.advance(name, path_to("research:approved"))
    project.write(name, "SPEC.md", "the spec, changed after its approval\n")
    project._ok("--task", name, "--transition", "research:awaiting_approval")


def test_a_reapproval_is_drawn_as_one_not_off_workflow(project: Project) -> None:
    _reapproved(project, "alpha")
    text = project.run("--graph", "--task", "alpha").out
    diagram = Diagram(text)
    labels = {(diagram.state(a), diagram.state(b)): label for a, b, label in diagram.edges}
    assert labels[("research:approved", "research:awaiting_approval")] == "re-approval (step 5)"
    assert "off workflow" not in text
    assert diagram.marked("currentGate") == ["research:awaiting_approval"]
    data = project.run("--graph", "--task", "alpha", "--json").json["graph"]
    (edge,) = [e for e in data["edges"] if e["from"] == "research:approved" and e["steps"]]
    assert edge == {"from": "research:approved", "to": "research:awaiting_approval",
                    "kind": "re-approval", "steps": [5]}  # fmt: skip
    dot = project.run("--graph", "--task", "alpha", "--format", "dot").out
    (line,) = [x for x in dot.splitlines() if '"research:approved" -> "research:awaiting' in x]
    assert 'label="re-approval (step 5)"' in line and "style=dashed" in line


def test_the_workflow_graph_draws_every_reapproval(project: Project) -> None:
    project.create("alpha")
    drawn = graphs.workflow_graph()
    back = [(e.source, e.target) for e in drawn.edges if e.kind == graphs.REAPPROVE]
    assert back == [(f"{p}:approved", f"{p}:awaiting_approval") for p in machine.APPROVAL_PHASES]
    dot = project.run("--graph", "--format", "dot").out
    assert dot.count('[label="re-approval", style=dashed') == len(machine.APPROVAL_PHASES)


def test_graph_format_dot_prints_a_digraph(project: Project) -> None:
    _rework(project, "alpha")
    result = project.script("--graph", "--format", "dot", "--task", "alpha")
    assert result.rc == 0, result.err
    lines = result.out.splitlines()
    assert lines[0] == "digraph workflow {"
    assert lines[-1] == "}"
    nodes = re.findall(r'^  "([^"]+)"(?: \[[^\]]*\])?;$', result.out, flags=re.M)
    assert set(machine.STATES) <= set(nodes)
    edges = re.findall(r'^  "([^"]+)" -> "([^"]+)"(?: \[(.*)\])?;$', result.out, flags=re.M)
    data = project.run("--graph", "--task", "alpha", "--json").json["graph"]
    assert len(edges) == len(data["edges"])
    current = next(line for line in lines if line.startswith('  "bug_find" ['))
    assert "filled" in current and "fillcolor" in current
    taken = {(a, b): attrs for a, b, attrs in edges}
    assert 'label="steps 12, 18"' in taken[("implement", "bug_find")]
    assert "penwidth" in taken[("implement", "bug_find")]
    assert "penwidth" not in taken[("research:approved", "decomposition")]


def test_graphviz_reads_the_digraph(project: Project) -> None:
    dot = system_tool("graphviz", "dot")  # bash scripts/setup.sh test installs it
    _rework(project, "alpha")
    text = project.run("--graph", "--format", "dot", "--task", "alpha").out
    proc = subprocess.run([dot, "-Tsvg"], input=text, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr


def test_the_json_graph_is_what_the_text_shows(project: Project) -> None:
    _rework(project, "alpha")
    result = project.run("--graph", "--task", "alpha", "--json")
    assert result.rc == 0
    answer = result.json
    assert answer["command"] == "graph" and answer["format"] == "mermaid"
    data = answer["graph"]
    diagram = Diagram(answer["mermaid"])
    assert answer["mermaid"] == project.run("--graph", "--task", "alpha").out.rstrip("\n")
    assert diagram.states() == set(data["states"])
    shown = [
        (diagram.state(a) if a != "[*]" else None, diagram.state(b) if b != "[*]" else None, label)
        for a, b, label in diagram.edges
    ]
    assert [(e["from"], e["to"]) for e in data["edges"]] == [(a, b) for a, b, _ in shown]
    for edge, (_, _, label) in zip(data["edges"], shown):
        assert [int(n) for n in re.findall(r"\d+", label)] == edge["steps"], edge
        assert ("approve" in label) == (edge["kind"] == "approve"), edge
    assert diagram.marked(*GATE_CLASSES) == data["gates"]
    assert diagram.marked(*ON_PATH_CLASSES) == data["visited"]
    assert diagram.marked("current") == [data["current"]]
    rework = ["human_intervention", "implement", "bug_find"]
    assert [step["to"] for step in data["path"]] == ["new", *path_to("referee"), *rework]


def test_graph_json_in_dot_carries_the_dot_text(project: Project) -> None:
    project.create("alpha")
    answer = project.run("--graph", "--format", "dot", "--json").json
    assert answer["format"] == "dot"
    assert answer["dot"].startswith("digraph workflow {")
    assert answer["graph"]["task"] is None and answer["graph"]["path"] == []


def test_a_subtask_has_no_decomposition(project: Project) -> None:
    project.create("parent")
    project.advance("parent", path_to("decomposition:approved"))
    project.create("parent/child")
    diagram = Diagram(project.run("--graph", "--task", "parent/child").out)
    assert diagram.states() == {s for s in machine.STATES if not s.startswith("decomposition")}
    assert diagram.marked("current") == ["new"]


def test_graph_of_an_unknown_task_is_exit_2(project: Project) -> None:
    project.create("alpha")
    result = project.script("--graph", "--task", "nope")
    assert result.rc == 2
    assert result.out == ""
    assert result.err.startswith("ERROR: Task 'nope' not found")


def test_an_unknown_graph_format_is_exit_2(project: Project) -> None:
    project.create("alpha")
    result = project.script("--graph", "--format", "png")
    assert (result.rc, result.out) == (2, "")
    assert result.err == "ERROR: Unknown format 'png'; choose mermaid, dot.\n"
    # `text` is the audit's default, not a diagram's
    assert project.run("--graph", "--format", "text").err == (
        "ERROR: Unknown format 'text'; choose mermaid, dot.\n"
    )
    answer = project.run("--graph", "--format", "sarif", "--json").json
    assert answer["exit_code"] == 2 and answer["error"]["code"] == "usage"


def test_graph_of_a_hand_edited_task_is_refused(project: Project) -> None:
    project.create("alpha")
    (project.task_dir("alpha") / ".state").write_text("implement\n")
    result = project.run("--graph", "--task", "alpha")
    assert result.rc == 2 and result.out == ""
    assert ".state was changed outside status.py" in result.err


def test_graph_of_a_folder_made_by_hand_is_refused_until_upgraded(project: Project) -> None:
    project.folder("hand-made", files=["SPEC.md"])
    result = project.script("--graph", "--task", "hand-made")
    assert (result.rc, result.out) == (2, "")
    assert result.err.startswith("ERROR: Task 'hand-made' is untracked (no .state file).")
    assert "--upgrade" in result.err and len(result.err.splitlines()) == 1
    assert result.err == project.script("--task", "hand-made").err  # as --task refuses it
    assert not (project.task_dir("hand-made") / ".state").exists()
    assert project.run("--upgrade").rc == 0
    assert project.run("--graph", "--task", "hand-made").rc == 0


def test_the_python_api_draws_the_same_graph() -> None:
    drawn = graphs.workflow_graph()
    assert drawn.states == machine.STATES
    assert drawn.current is None and drawn.path == () and drawn.visited == ()
    assert drawn.gates == tuple(s for s in machine.STATES if machine.is_awaiting(s))
    assert graphs.Edge(None, "new", graphs.CREATE) in drawn.edges
    assert graphs.Edge("design:awaiting_approval", "design:approved", graphs.APPROVE) in drawn.edges
    reapproval = graphs.Edge("design:approved", "design:awaiting_approval", graphs.REAPPROVE)
    assert reapproval in drawn.edges
    assert graphs.as_dict(drawn)["states"] == list(machine.STATES)
    assert graphs.render(drawn, "dot") == graphs.dot(drawn)
    for state in drawn.states:
        assert graphs.valid_mermaid_id(graphs.node_id(state)), state


def test_the_docs_example_is_what_graph_prints(project: Project) -> None:
    views = (ROOT / "docs" / "views.md").read_text(encoding="utf-8")
    (example,) = re.findall(r"^```mermaid\n(.*?)^```$", views, flags=re.M | re.S)
    project.create("add-user-auth")
    project.advance("add-user-auth", [*path_to("design:approved"), "implement"])
    assert project.run("--graph", "--task", "add-user-auth").out == example
