"""Walk a demo project through status.py and show every answer it gives.

Usage: python scripts/demo.py [--keep DIR]

Builds a throwaway project (or DIR with --keep), then drives three tasks the way an
agent and its user would: a task taken all the way to `complete`, a task that
skipped a phase and is caught, and a decomposed task with sub-tasks.
"""

from __future__ import annotations

import argparse
import shlex
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
        print(shown_write(text, folder.relative_to(self.project) / artifact))

    def walk(self, task: str, steps: list[tuple[str, str | None]]) -> None:
        """Write each phase's artifact, then move on: ('transition', X) or ('approve', None)."""
        for action, target in steps:
            if action == "approve":
                self.status("--task", task, "--approve")
            elif action == "write":
                verdict = "Verdict: PASS\n" if target == "VERDICT.md" else "Done.\n"
                self.write(task, str(target), f"# {target}\n\n{verdict}")
            else:
                self.status("--task", task, "--transition", str(target))

    def git(self, *args: str) -> None:
        subprocess.run(["git", *args], cwd=self.project, check=True, capture_output=True)

    def commit(self, path: str, text: str, task: str | None = None) -> None:
        """Commit a source file, naming the task in a trailer as the commit-msg hook asks."""
        target = self.project / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
        message = f"Change {path}" + (f"\n\nTask: {task}" if task else "")
        self.git("add", path)
        self.git("commit", "-q", "-m", message)
        trailer = f" (Task: {task})" if task else ""
        print(f"$ git commit {path}{trailer}")


def shown_write(text: str, path: Path | str) -> str:
    """The shell line that writes exactly `text` to `path`, as the demo shows each write."""
    escaped = text.replace("\\", "\\\\").replace("%", "%%").replace("\n", "\\n")
    return f"$ printf {shlex.quote(escaped)} > {path}"


def run(project: Path) -> None:
    demo = Demo(project)
    demo.git("init", "-q")
    demo.git("config", "user.email", "demo@example.com")
    demo.git("config", "user.name", "Demo")
    demo.commit("src/app.py", "print('hello')\n")

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
        ],
    )
    demo.commit("src/auth.py", "def login(): ...\n", task="add-user-auth")
    demo.walk(
        "add-user-auth",
        [
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
    print(f"$ mkdir {manual.relative_to(project)}")
    print(shown_write("# Spec\n", manual.relative_to(project) / "SPEC.md"))
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

    demo.say("Where add-user-auth went, and how long each phase took (see docs/views.md).")
    demo.status("--stats", "--task", "add-user-auth")
    print("(status.py --graph --task add-user-auth draws its path as Mermaid;")
    print(" status.py --audit --format html > board.html makes a board to open offline.)")

    demo.say("Ways around the workflow: a hand-edited .state is refused; the audit sees all.")
    demo.commit("src/login.py", "def fix(): ...\n", task="fix-login-bug")
    demo.status("--create-task", "quick-fix")
    demo.status("--task", "quick-fix", "--transition", "research")
    demo.write("quick-fix", "SPEC.md", "# Spec\n\n## Acceptance criteria\n- fast\n")
    (demo.tasks / "quick-fix" / ".state").write_text("implement\n")
    print("$ echo implement > .automaton/tasks/quick-fix/.state")
    demo.status("--can-edit", "--task", "quick-fix", expect=2)  # the history says research
    hand_made = demo.tasks / "hand-made"
    hand_made.mkdir()
    (hand_made / "SPEC.md").write_text("# Spec\n")
    print(f"$ mkdir {hand_made.relative_to(project)}")
    print(shown_write("# Spec\n", hand_made.relative_to(project) / "SPEC.md"))

    demo.say("The audit, as CI runs it: all four categories, then the example rules.")
    demo.status("--audit", expect=1)


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
