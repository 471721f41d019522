"""The workflow as a diagram: `--graph`, as Mermaid (GitHub renders it as is) or DOT.

`workflow_graph` builds the data once, from `core/machine.py` (every state, every legal
move, the approval gates) and, for one task, from its `.state.history` (the state it is
in and the path it took, step by step); `mermaid`, `dot` and `as_dict` only render it,
so the diagram, the DOT graph and `--json` always show the same thing. Imports the core.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from automaton_rules.core import machine
from automaton_rules.core.project import Task
from automaton_rules.support import clock
from automaton_rules.support.output import printable

FORMATS: tuple[str, ...] = ("mermaid", "dot")

# Edge kinds. The workflow's own: a task is created in `new` (from the start, `[*]`),
# moves by --transition, passes a gate by --approve, goes back from `X:approved` to its
# gate by --transition once the approved artifact has changed (a re-approval), and ends
# in `complete`.
CREATE = "create"
TRANSITION = "transition"
APPROVE = "approve"
REAPPROVE = "re-approval"
END = "end"
# Only in a task's history: a follow-up task starts mid-way, --upgrade adopts a folder or
# restores a `.state`, and anything else the workflow has no edge for.
FOLLOW_UP = "follow-up"
UPGRADE = "upgrade"
OFF_WORKFLOW = "off-workflow"
_COMMAND_KINDS = {"--follow-up": FOLLOW_UP, "--upgrade": UPGRADE}
_LABELS = {
    APPROVE: "approve",
    REAPPROVE: "re-approval",
    FOLLOW_UP: "follow-up",
    UPGRADE: "upgrade",
    OFF_WORKFLOW: "off workflow",
}

FINAL_STATES: tuple[str, ...] = ("complete",)
_MERMAID_ID = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class Edge:
    """A move between two states; `source` None is the start (`[*]`), `target` None the end."""

    source: str | None
    target: str | None
    kind: str


@dataclass(frozen=True)
class Step:
    """One line of a task's history, as a move along the graph: the `order`-th (from 1)."""

    order: int
    source: str | None
    target: str
    command: str
    time: str
    actor: str

    @property
    def key(self) -> tuple[str | None, str]:
        """The edge this step went along."""
        return (self.source, self.target)


@dataclass(frozen=True)
class Graph:
    """The workflow's states and edges, its approval gates, and — for one task — the state
    it is in (`current`) and the steps its history records (`path`)."""

    states: tuple[str, ...]
    edges: tuple[Edge, ...]
    gates: tuple[str, ...]
    current: str | None = None
    path: tuple[Step, ...] = ()
    task: str | None = None

    def steps(self, edge: Edge) -> tuple[int, ...]:
        """The order numbers of the path's steps along `edge`; how often = their count."""
        return tuple(step.order for step in self.path if step.key == (edge.source, edge.target))

    @property
    def visited(self) -> tuple[str, ...]:
        """The states the path entered, in workflow order."""
        entered = {step.target for step in self.path}
        return tuple(state for state in self.states if state in entered)


def workflow_graph(task: Task | None = None) -> Graph:
    """The whole workflow; with a task, its state and its path. A sub-task's workflow has
    no decomposition (sub-tasks are never decomposed again)."""
    subtask = task is not None and task.parent is not None
    states = tuple(
        s
        for s in machine.STATES
        if not (subtask and machine.base_phase(s) in machine.SUBTASK_EXCLUDED)
    )
    edges = _workflow_edges(states, subtask)
    gates = tuple(state for state in states if machine.is_awaiting(state))
    if task is None:
        return Graph(states, edges, gates)
    path = _path(task)
    known = {(edge.source, edge.target) for edge in edges}
    extra: list[Edge] = []
    for step in path:
        if step.key in known or not _drawable(step, states):
            continue
        known.add(step.key)
        kind = _COMMAND_KINDS.get(step.command, OFF_WORKFLOW)
        extra.append(Edge(step.source, step.target, kind))
    current = task.state if task.state in states else None
    return Graph(states, (*edges, *extra), gates, current, path, task.name)


def _workflow_edges(states: tuple[str, ...], subtask: bool) -> tuple[Edge, ...]:
    """Creation, every --transition, --approve and re-approval among `states`, the end."""
    edges = [Edge(None, "new", CREATE)]
    for state in states:
        edges += [Edge(state, t, TRANSITION) for t in machine.legal_targets(state, subtask=subtask)]
        approved = machine.approval_target(state)
        if approved is not None:
            edges.append(Edge(state, approved, APPROVE))
        gate = machine.reapproval_target(state)
        if gate is not None:
            edges.append(Edge(state, gate, REAPPROVE))
    edges += [Edge(state, None, END) for state in FINAL_STATES]
    return tuple(edges)


def _path(task: Task) -> tuple[Step, ...]:
    """The task's history as numbered steps, oldest first."""
    return tuple(
        Step(
            order,
            entry.source,
            entry.target,
            entry.command,
            entry.time.strftime(clock.TIME_FORMAT),
            entry.actor,
        )
        for order, entry in enumerate(task.entries, 1)
    )


def _drawable(step: Step, states: tuple[str, ...]) -> bool:
    """Both ends are states of the diagram (a start counts); a step from a state the
    workflow does not know (restored after a hand edit) stays in the path, undrawn."""
    return step.target in states and (step.source is None or step.source in states)


def node_id(state: str) -> str:
    """A state's Mermaid id: `design:awaiting_approval` is `design_awaiting_approval`."""
    return state.replace(":", "_")


def label(graph: Graph, edge: Edge) -> str:
    """An edge's words: what makes the move, if not --transition, and the path's steps."""
    taken = graph.steps(edge)
    steps = ""
    if taken:
        steps = f"step{'s' if len(taken) > 1 else ''} {', '.join(map(str, taken))}"
    word = _LABELS.get(edge.kind, "")
    if word and steps:
        return f"{word} ({steps})"
    return word or steps


# Mermaid: gates amber, the states the path entered blue, the current state green. Each
# state gets one class only, since of two classes Mermaid applies the one defined last:
# a gate the path entered stays amber with a blue border, the current gate is green with
# an amber border.
_CLASS_DEFS = (
    ("gate", "fill:#fff3cd,stroke:#b8860b,stroke-width:2px,color:#000"),
    ("visited", "fill:#dbe9ff,stroke:#1f5fbf,color:#000"),
    ("visitedGate", "fill:#fff3cd,stroke:#1f5fbf,stroke-width:3px,color:#000"),
    ("current", "fill:#2e7d32,stroke:#1b5e20,stroke-width:3px,color:#fff"),
    ("currentGate", "fill:#2e7d32,stroke:#b8860b,stroke-width:4px,color:#fff"),
)


def mermaid_class(graph: Graph, state: str) -> str | None:
    """The one class a state is drawn with: current, else visited, else plain; a gate's
    own variant of each."""
    gate = state in graph.gates
    if state == graph.current:
        return "currentGate" if gate else "current"
    if state in graph.visited:
        return "visitedGate" if gate else "visited"
    return "gate" if gate else None


def mermaid(graph: Graph) -> str:
    """A `stateDiagram-v2` that GitHub renders as it is, in a ```mermaid block."""
    classes: dict[str, list[str]] = {}
    for state in graph.states:
        classes.setdefault(mermaid_class(graph, state) or "", []).append(node_id(state))
    lines = ["stateDiagram-v2", f"    %% automaton-rules: {_title(graph)}"]
    lines += [f"    classDef {name} {style}" for name, style in _CLASS_DEFS if name in classes]
    lines += [f'    state "{s}" as {node_id(s)}' for s in graph.states if node_id(s) != s]
    for edge in graph.edges:
        source = "[*]" if edge.source is None else node_id(edge.source)
        target = "[*]" if edge.target is None else node_id(edge.target)
        words = label(graph, edge)
        lines.append(f"    {source} --> {target}" + (f" : {words}" if words else ""))
    lines += [
        f"    class {','.join(classes[name])} {name}" for name, _ in _CLASS_DEFS if name in classes
    ]
    return "\n".join(lines)


def _title(graph: Graph) -> str:
    return f"task {printable(graph.task)}" if graph.task else "the workflow"


def valid_mermaid_id(name: str) -> bool:
    """Whether Mermaid reads `name` as one state id."""
    return _MERMAID_ID.fullmatch(name) is not None


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def dot(graph: Graph) -> str:
    """A Graphviz `digraph`: gates are diamonds, the current state is filled, the path's
    edges are bold and blue, approvals and re-approvals dashed."""
    lines = [
        "digraph workflow {",
        f"  label={_quoted('automaton-rules: ' + _title(graph))};",
        "  rankdir=TB;",
        '  node [shape=box, style="rounded"];',
        '  "[*]" [shape=point, width=0.2, label=""];',
        '  "[*] end" [shape=doublecircle, width=0.15, label=""];',
    ]
    visited = set(graph.visited)
    for state in graph.states:
        lines.append(f"  {_quoted(state)}{_node_attrs(graph, state, visited)};")
    for edge in graph.edges:
        source = "[*]" if edge.source is None else edge.source
        target = "[*] end" if edge.target is None else edge.target
        lines.append(f"  {_quoted(source)} -> {_quoted(target)}{_edge_attrs(graph, edge)};")
    lines.append("}")
    return "\n".join(lines)


def _node_attrs(graph: Graph, state: str, visited: set[str]) -> str:
    attrs = []
    if state in graph.gates:
        attrs.append("shape=diamond")
    if state == graph.current:
        attrs += ['style="rounded,filled,bold"', 'fillcolor="#2e7d32"', "fontcolor=white"]
    elif state in visited:
        attrs += ['style="rounded,filled"', 'fillcolor="#dbe9ff"']
    elif state in graph.gates:
        attrs += ['style="filled"', 'fillcolor="#fff3cd"']
    return f" [{', '.join(attrs)}]" if attrs else ""


def _edge_attrs(graph: Graph, edge: Edge) -> str:
    attrs = []
    words = label(graph, edge)
    if words:
        attrs.append(f"label={_quoted(words)}")
    if edge.kind in (APPROVE, REAPPROVE):
        attrs.append("style=dashed")
    if edge.kind == REAPPROVE:
        attrs.append("constraint=false")  # a way back: it does not rank the gate below
    if graph.steps(edge):
        attrs += ["penwidth=2.5", 'color="#1f5fbf"']
    return f" [{', '.join(attrs)}]" if attrs else ""


def as_dict(graph: Graph) -> dict[str, Any]:
    """The graph for `--json`: the same states, edges, gates and path the text shows."""
    return {
        "task": graph.task,
        "states": list(graph.states),
        "gates": list(graph.gates),
        "current": graph.current,
        "visited": list(graph.visited),
        "edges": [
            {
                "from": edge.source,
                "to": edge.target,
                "kind": edge.kind,
                "steps": list(graph.steps(edge)),
            }
            for edge in graph.edges
        ],
        "path": [
            {
                "step": step.order,
                "from": step.source,
                "to": step.target,
                "command": step.command,
                "time": step.time,
                "actor": step.actor,
            }
            for step in graph.path
        ],
    }


def render(graph: Graph, fmt: str) -> str:
    """The graph in one of `FORMATS`."""
    return mermaid(graph) if fmt == "mermaid" else dot(graph)
