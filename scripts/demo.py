"""Walk a demo project through status.py and show every answer it gives.

Usage: python scripts/demo.py [--keep DIR]

Builds a throwaway project (or DIR with --keep), then drives three tasks the way an
agent and its user would: a task taken all the way to `complete`, a task that
skipped a phase and is caught, and a decomposed task with sub-tasks.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STATUS = ROOT / "status.py"


class Demo:
    """Runs status.py against one project folder and echoes each call."""

    def __init__(self, project: Path) -> None:
        self.project = project
        self.tasks = project / ".automaton" / "tasks"
        # The repository's own automaton.toml registers the example rules in rules/.
        self.config = ["--config", str(ROOT / "automaton.toml")]

    def say(self, text: str) -> None:
        print(f"\n# {text}")

    def status(self, *args: str, expect: int = 0) -> None:
        shown = " ".join(args)
        print(f"$ status.py {shown}")
        proc = subprocess.run(
            [sys.executable, str(STATUS), *args, "--project", str(self.project), *self.config],
            capture_output=True,
            text=True,
        )
        for stream in (proc.stdout, proc.stderr):
            if stream.strip():
                print(stream.rstrip())
        print(f"(exit {proc.returncode})")
        if proc.returncode != expect:
            raise SystemExit(f"demo: expected exit {expect}, got {proc.returncode}")

    def write(self, task: str, artifact: str, text: str) -> None:
        parent, _, sub = task.partition("/")
        folder = self.tasks / parent / "subtasks" / sub if sub else self.tasks / parent
        (folder / artifact).write_text(text)
        print(f"$ echo '...' > {folder.relative_to(self.project) / artifact}")

    def walk(self, task: str, steps: list[tuple[str, str | None]]) -> None:
        """Write each phase's artifact, then move on: ('transition', X) or ('approve', None)."""
        for action, target in steps:
            if action == "approve":
                self.status("--task", task, "--approve")
            elif action == "write":
                self.write(task, str(target), f"# {target}\n\nDone.\n")
            else:
                self.status("--task", task, "--transition", str(target))


def run(project: Path) -> None:
    demo = Demo(project)

    demo.say("A new task starts in 'new'; --task tells the agent what it may do.")
    demo.status("--create-task", "add-user-auth")
    demo.status("--task", "add-user-auth")

    demo.say("Research needs SPEC.md before it can ask for approval.")
    demo.status("--task", "add-user-auth", "--transition", "research")
    demo.status("--task", "add-user-auth", "--transition", "research:awaiting_approval", expect=1)
    demo.write("add-user-auth", "SPEC.md", "# Spec\n\n## Acceptance criteria\n- users log in\n")
    demo.status("--task", "add-user-auth", "--transition", "research:awaiting_approval")

    demo.say("The approval gate: no --transition gets past it; only --approve does.")
    demo.status("--task", "add-user-auth", "--transition", "implement", expect=1)
    demo.status("--task", "add-user-auth")
    demo.status("--task", "add-user-auth", "--approve")

    demo.say("Design, test design and the rest of the pipeline, each with its artifact.")
    demo.walk(
        "add-user-auth",
        [
            ("transition", "design"),
            ("write", "DESIGN.md"),
            ("transition", "design:awaiting_approval"),
            ("approve", None),
            ("transition", "test_design"),
            ("write", "TEST_PLAN.md"),
            ("transition", "test_design:awaiting_approval"),
            ("approve", None),
            ("transition", "implement"),
            ("write", "IMPLEMENTATION.md"),
            ("transition", "bug_find"),
            ("write", "BUG_REPORT.md"),
            ("transition", "adversarial_bug_find"),
            ("write", "ADVERSARIAL_BUG_REPORT.md"),
            ("transition", "doc_review"),
            ("write", "DOC_REVIEW.md"),
            ("transition", "referee"),
            ("write", "VERDICT.md"),
            ("transition", "complete"),
        ],
    )

    demo.say("An agent that skips ahead is caught: IMPLEMENTATION.md during research.")
    demo.status("--create-task", "fix-login-bug")
    demo.status("--task", "fix-login-bug", "--transition", "research")
    demo.write("fix-login-bug", "SPEC.md", "# Spec\n")
    demo.write("fix-login-bug", "IMPLEMENTATION.md", "# Implementation\n")
    demo.status("--validate-folder", "--task", "fix-login-bug", expect=1)
    demo.status("--task", "fix-login-bug", "--transition", "research:awaiting_approval", expect=1)

    demo.say("A folder made by hand is flagged; --upgrade adopts it from its artifacts.")
    manual = demo.tasks / "legacy-report"
    manual.mkdir()
    (manual / "SPEC.md").write_text("# Spec\n")
    print(f"$ mkdir {manual.relative_to(project)} && echo '...' > .../SPEC.md")
    demo.status("--validate-folder", "--task", "legacy-report", expect=1)
    demo.status("--upgrade")

    demo.say("Decomposition: sub-tasks only under an approved decomposition.")
    demo.status("--create-task", "add-payment-api")
    demo.walk(
        "add-payment-api",
        [
            ("transition", "research"),
            ("write", "SPEC.md"),
            ("transition", "research:awaiting_approval"),
            ("approve", None),
            ("transition", "decomposition"),
            ("write", "DECOMPOSITION.md"),
            ("transition", "decomposition:awaiting_approval"),
            ("approve", None),
        ],
    )
    demo.status("--create-task", "add-payment-api/stripe-client")
    demo.status("--create-task", "add-payment-api/webhooks")
    demo.status("--task", "add-payment-api", "--transition", "complete", expect=1)
    demo.status("--task", "add-payment-api/webhooks")

    demo.say("Every task at a glance.")
    demo.status("--list")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, help="build the demo project in DIR and keep it")
    args = parser.parse_args()
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=False)
        run(args.keep.resolve())
        print(f"\nDemo project left in {args.keep}")
        return 0
    with tempfile.TemporaryDirectory(prefix="automaton-demo-") as tmp:
        run(Path(tmp))
    return 0


if __name__ == "__main__":
    sys.exit(main())
