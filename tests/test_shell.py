"""The shell, read by a parser (issue 11, section 4): what a shell line writes, which
status.py calls it makes and whether it skips git's hooks, read as bash reads it.

The corpus (tests/fixtures/shell_corpus.toml) holds the lines agents run with the answer
expected in a phase that does not edit and in one that does, as the reader alone gives it
(`sandbox = "off"`); every line goes through the Python API, a sample through the real
`automaton-hook`. The same lines go through the sandbox too (issue 20): what the reader
refuses because only running decides it runs sandboxed instead, every other refusal
stays, and what it allows runs sandboxed unless it is an inert read or status.py alone.
The bypasses the issue quotes go through `automaton-hook --harness claude` with a recorded
Bash PreToolUse input.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import GUARD_PHASES, ROOT, recorded, run_hook
from hypothesis import given, settings
from hypothesis import strategies as st

from automaton_rules.guards.hooks import adapter as harness
from automaton_rules.guards.hooks import moves
from automaton_rules.guards.sandbox import mechanisms
from automaton_rules.guards.shell import reader as shell
from automaton_rules.guards.shell import verdict as shell_verdict
from automaton_rules.testing import AutomatonProject

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

CORPUS = ROOT / "tests" / "fixtures" / "shell_corpus.toml"
KINDS = {
    "allow",
    "phase",
    "computed",
    "unknown",
    "artifact",
    "guard",
    "state",
    "hooks",
    "approve",
    "prompt",
    "call",
    "code",
}
PATCH = "--- a/src/app.py\n+++ b/src/app.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n"
FILES = {
    "automaton.toml": '# the workflow\'s settings\nsandbox = "off"\n',
    "pyproject.toml": '[project]\nname = "app"\n',
    "package.json": '{"name": "app", "scripts": {"test": "jest"}}\n',
    "Makefile": "test:\n\tpytest\n",
    "README.md": "# app\n",
    "fix.patch": PATCH,
    "src/app.py": "x = 1\n",
    "src/util.py": "def f():\n    return 1\n",
    "tests/test_app.py": "def test_app():\n    pass\n",
    "docs/guide.md": "# guide\n",
    "scripts/build.sh": "#!/bin/sh\necho build\n",
    "build/.keep": "",
    ".claude/settings.json": "{}\n",
}


def load_corpus() -> list[dict[str, Any]]:
    """Every line of the corpus, with its answer in each phase."""
    lines = []
    for group in tomllib.loads(CORPUS.read_text(encoding="utf-8"))["group"]:
        for index, entry in enumerate(group["lines"]):
            both = entry.get("verdict")
            lines.append(
                {
                    "id": f"{group['name']}-{index}",
                    "run": entry["run"],
                    "research": entry.get("research", both),
                    "implement": entry.get("implement", both),
                    "writes": sorted(set(entry.get("writes", []))),
                    "computed": entry.get("computed", False),
                }
            )
    return lines


CORPUS_LINES = load_corpus()


class World:
    """A home folder and copies of one project, its task in research and in implement: the
    reader alone judges `roots`, the sandbox holds `sandboxed`."""

    def __init__(self, base: Path) -> None:
        self.home = base / "home"
        for name in (".claude/settings.json", ".automaton/scripts/status.py"):
            (self.home / name).parent.mkdir(parents=True, exist_ok=True)
            (self.home / name).write_text("{}\n")
        self.roots = {phase: self.build(base / phase, phase) for phase in GUARD_PHASES}
        self.sandboxed = {
            phase: self.build(base / f"sandboxed-{phase}", phase, sandbox="auto")
            for phase in GUARD_PHASES
        }

    def build(self, root: Path, phase: str, sandbox: str = "off") -> Path:
        root.mkdir()
        project = AutomatonProject(root)
        project.git("status")
        for name, text in FILES.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text(text.replace('"off"', f'"{sandbox}"'))
        project.task("t1", phase)
        return root.resolve()

    def shown(self, path: Path, phase: str = "research") -> str:
        """A written path as the corpus writes it."""
        root = self.roots[phase]
        if path == root or root in path.parents:
            return path.relative_to(root).as_posix() or "."
        if self.home.resolve() in path.parents:
            return "~/" + path.relative_to(self.home.resolve()).as_posix()
        return str(path)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    base = tmp_path_factory.mktemp("shell").resolve()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOME", str(base / "home"))
        return World(base)


@pytest.fixture
def world_at_home(world: World, monkeypatch: pytest.MonkeyPatch) -> World:
    """The world, with HOME its home folder (where the guard looks for harness settings)."""
    monkeypatch.setenv("HOME", str(world.home))
    return world


def kind(verdict: harness.Verdict) -> str:
    """Which of the corpus's answers a verdict is (`sandboxed`: allowed, inside the sandbox)."""
    reason = verdict.reason
    if verdict.allowed and verdict.reason == moves.CARRIED:
        return "carried"
    if verdict.allowed:
        return "allow" if verdict.updated is None else "sandboxed"
    found = [
        ("approve", reason == shell_verdict.APPROVAL),
        ("prompt", reason == shell_verdict.PROMPT_HOOK),
        ("call", reason.startswith("DENIED: This command runs status.py with arguments")),
        ("code", reason.startswith("DENIED: This command runs shell or interpreter code")),
        ("hooks", reason.startswith("DENIED: This command skips or reroutes the workflow's git")),
        ("state", reason == shell_verdict.STATE),
        (
            "guard",
            reason.endswith("only the user changes it.") or shell_verdict.PYPROJECT in reason,
        ),
        ("artifact", " belongs to the " in reason and reason.endswith(shell_verdict.WRITES)),
        (
            "phase",
            reason.startswith("DENIED: No task in project")
            and reason.endswith(shell_verdict.WRITES),
        ),
        (
            "computed",
            reason.startswith("DENIED: No task in project") and "only when it runs (" in reason,
        ),
        (
            "unknown",
            reason.startswith("DENIED: No task in project")
            and "a program the guard's shell reader does not know" in reason,
        ),
    ]
    matches = [name for name, hit in found if hit]
    assert len(matches) == 1, reason
    return matches[0]


def decide(root: Path, command: str) -> harness.Verdict:
    return harness.decide(harness.Action("shell", command=command, cwd=root))


# ----------------------------------------------------------------------- the corpus


def test_the_corpus_holds_enough_real_lines() -> None:
    assert len(CORPUS_LINES) >= 250
    assert len({line["run"] for line in CORPUS_LINES}) == len(CORPUS_LINES)
    for line in CORPUS_LINES:
        assert {line["research"], line["implement"]} <= KINDS, line


@pytest.mark.parametrize("line", CORPUS_LINES, ids=[line["id"] for line in CORPUS_LINES])
def test_each_corpus_line(world_at_home: World, line: dict[str, Any]) -> None:
    """The paths a line writes, and the adapter's answer in each phase."""
    root = world_at_home.roots["research"]
    reading = shell.read(line["run"], root)
    assert sorted({world_at_home.shown(write.path) for write in reading.writes}) == line["writes"]
    assert bool(reading.computed) is line["computed"], reading.computed
    for phase in GUARD_PHASES:
        verdict = decide(world_at_home.roots[phase], line["run"])
        assert kind(verdict) == expected(line, phase, world_at_home.roots[phase]), (
            phase,
            verdict.reason,
        )


def expected(line: dict[str, Any], phase: str, root: Path) -> str:
    """The corpus's answer where the harness rewrites: a line of status.py moves is carried
    out by the adapter (the reader would let it run)."""
    if line[phase] == "allow" and moves.brokered(line["run"], root, root) is not None:
        return "carried"
    return str(line[phase])


INSTALLED = "~/.automaton/scripts/status.py"
# What a sandbox makes unnecessary to refuse: what only running the line decides.
HELD = {"computed", "unknown", "code", "call"}


def through_the_sandbox(line: dict[str, Any], phase: str, root: Path) -> str:
    """The corpus's answer with a sandbox: held refusals run sandboxed, other refusals stay,
    and every allowed line runs sandboxed, reads included, but a line of status.py moves,
    which the adapter carries out itself on the session's project."""
    said = line[phase]
    if said == "allow" and moves.brokered(line["run"], root, root) is not None:
        return "carried"
    if said in HELD or said == "allow":
        return "sandboxed"
    return said


@pytest.mark.skipif(not mechanisms.choose(), reason="no sandbox mechanism works on this machine")
@pytest.mark.parametrize("line", CORPUS_LINES, ids=[line["id"] for line in CORPUS_LINES])
def test_each_corpus_line_through_the_sandbox(world_at_home: World, line: dict[str, Any]) -> None:
    for phase in GUARD_PHASES:
        root = world_at_home.sandboxed[phase]
        verdict = decide(root, line["run"])
        assert kind(verdict) == through_the_sandbox(line, phase, root), (phase, verdict.reason)


# The corpus's lines that name status.py: which one a line runs is found on PATH.
STATUS_LINES = [line for line in CORPUS_LINES if "status" in line["run"]]


@pytest.mark.skipif(not mechanisms.choose(), reason="no sandbox mechanism works on this machine")
@pytest.mark.parametrize("installation", ["off PATH", "on PATH, outside the checkout"])
def test_the_answer_through_the_sandbox_is_the_same_wherever_the_installation_lives(
    world_at_home: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, installation: str
) -> None:
    """Issue 31: `automaton-status --list` and two more lines ran unsandboxed (`allow`)
    when the virtual environment sat outside the checkout with its console scripts on
    PATH, in a folder the boundary keeps read-only; in `.venv` inside it, sandboxed. The
    answer may not depend on where the installation is, nor on what PATH finds."""
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    if installation != "off PATH":
        for name in ("automaton-status", "status.py", "python", "python3"):
            (venv / "bin" / name).write_text("#!/bin/sh\nexit 0\n")
            (venv / "bin" / name).chmod(0o755)
        monkeypatch.setenv("VIRTUAL_ENV", str(venv))
    monkeypatch.setenv("PATH", os.pathsep.join([str(venv / "bin"), "/usr/bin", "/bin"]))
    assert len(STATUS_LINES) >= 40
    for line in STATUS_LINES:
        for phase in GUARD_PHASES:
            root = world_at_home.sandboxed[phase]
            verdict = decide(root, line["run"])
            assert kind(verdict) == through_the_sandbox(line, phase, root), (line["run"], phase)


def test_a_refusal_by_the_phase_names_the_task_and_says_the_command_writes(
    world_at_home: World,
) -> None:
    reason = decide(world_at_home.roots["research"], "echo x > src/app.py").reason
    assert reason == (
        f"DENIED: No task in project '{world_at_home.roots['research']}' is in implement or "
        "doc_review phase (t1: research). Code edits require implement or doc_review phase. "
        "This shell command writes files."
    )


def test_a_refusal_names_the_guard_file_and_who_changes_it(world_at_home: World) -> None:
    for phase in GUARD_PHASES:
        reason = decide(world_at_home.roots[phase], "sed -i 's/x/y/' automaton.toml").reason
        assert reason == (
            "DENIED: File 'automaton.toml' is the workflow's configuration; "
            "only the user changes it."
        )
        reason = decide(world_at_home.roots[phase], "rm -rf .claude").reason
        assert reason.startswith("DENIED: File '.claude/settings.json' is a harness setting")


def test_a_computed_target_says_what_computes_it(world_at_home: World) -> None:
    reason = decide(world_at_home.roots["research"], 'echo x > "$OUT"').reason
    assert reason.endswith(
        ' This shell command writes files it names only when it runs (> "$OUT").'
    )
    reason = decide(world_at_home.roots["research"], "python3 -c 'print(1)'").reason
    assert reason.endswith("only when it runs (python3 -c).")


def test_an_unknown_program_is_not_a_read_outside_an_edit_phase(world_at_home: World) -> None:
    """Without a sandbox, a program the table does not know is refused where nothing may
    be edited (it might write), and runs in an edit phase."""
    reason = decide(world_at_home.roots["research"], "docker compose up -d").reason
    assert reason.endswith(
        " This shell command runs docker, a program the guard's shell reader does not know, "
        "so only running it shows what it writes."
    )
    assert decide(world_at_home.roots["implement"], "docker compose up -d").allowed


@pytest.mark.skipif(not mechanisms.choose(), reason="no sandbox mechanism works on this machine")
def test_an_unknown_program_runs_sandboxed_where_a_sandbox_works(world_at_home: World) -> None:
    verdict = decide(world_at_home.sandboxed["research"], "docker compose up -d")
    assert verdict.allowed and verdict.updated is not None


# ------------------------------------------------------- the real command, sampled


def bash_call(root: Path, command: str) -> dict[str, Any]:
    """The recorded Claude Code Bash PreToolUse input, running `command` in `root`."""
    payload = json.loads(recorded("claude", "shell-write.json", root)[0])
    assert (payload["hook_event_name"], payload["tool_name"]) == ("PreToolUse", "Bash")
    payload["tool_input"]["command"] = command
    return payload


def answer(proc: subprocess.CompletedProcess[str]) -> harness.Verdict:
    """Claude Code's answer: nothing printed allows, a new input runs sandboxed, a `deny`
    decision refuses."""
    assert proc.returncode == 0, proc.stderr
    if not proc.stdout.strip():
        return harness.Verdict(True)
    output = json.loads(proc.stdout)["hookSpecificOutput"]
    if "updatedInput" in output:
        return harness.Verdict(
            True, output.get("permissionDecisionReason", ""), output["updatedInput"]
        )
    assert (output["hookEventName"], output["permissionDecision"]) == ("PreToolUse", "deny")
    return harness.Verdict(False, output["permissionDecisionReason"])


# Every ninth line, but the status.py moves, which the adapter would carry out on the
# shared projects (tests/test_moves.py runs those on projects of their own).
CORPUS_SAMPLE = [line for line in CORPUS_LINES[::9] if "--transition" not in line["run"]]


@pytest.mark.parametrize("line", CORPUS_SAMPLE, ids=[line["id"] for line in CORPUS_SAMPLE])
def test_a_sample_of_the_corpus_through_automaton_hook(
    world_at_home: World, line: dict[str, Any]
) -> None:
    for phase in GUARD_PHASES:
        proc = run_hook(
            "claude", bash_call(world_at_home.roots[phase], line["run"]), home=world_at_home.home
        )
        assert kind(answer(proc)) == line[phase], phase


# ------------------------------------------------------- the bypasses the issue quotes

GUARD_FILES = (".claude/settings.json", "automaton.toml", ".git/hooks/pre-commit")
WRITERS = (
    "echo '{{}}' > {path}",
    "cp /tmp/replacement {path}",
    "sed -i 's/automaton-hook/true/' {path}",
    "echo off | tee {path}",
)
BYPASSES = {
    "A=--app; B=rove; automaton-status --task t1 $A$B": "call",
    "echo LS0tYXBwcm92ZQ== | base64 -d | xargs automaton-status --task t1": "call",
    "git config core.hooksPath /dev/null": "hooks",
    "rm -rf .automaton/tasks/t1": "guard",
    "git commit -qn -m x": "hooks",
    **{writer.format(path=path): "guard" for path in GUARD_FILES for writer in WRITERS},
}


@pytest.mark.parametrize(("command", "expected"), BYPASSES.items(), ids=list(BYPASSES))
@pytest.mark.parametrize("phase", GUARD_PHASES)
def test_each_bypass_the_issue_quotes_is_denied(
    world_at_home: World, phase, command, expected
) -> None:
    verdict = answer(
        run_hook("claude", bash_call(world_at_home.roots[phase], command), home=world_at_home.home)
    )
    assert not verdict.allowed
    assert kind(verdict) == expected, verdict.reason


def test_the_computed_approval_says_to_use_literal_arguments(world_at_home: World) -> None:
    command = "A=--app; B=rove; automaton-status --task t1 $A$B"
    verdict = answer(
        run_hook(
            "claude", bash_call(world_at_home.roots["implement"], command), home=world_at_home.home
        )
    )
    assert verdict.reason == (
        "DENIED: This command runs status.py with arguments only known when it runs "
        "(automaton-status --task t1 $A$B); they could approve. "
        "Run status.py with literal arguments."
    )


def test_the_hooks_refusal_names_the_setting(world_at_home: World) -> None:
    verdict = answer(
        run_hook(
            "claude",
            bash_call(world_at_home.roots["implement"], "git commit -qn -m x"),
            home=world_at_home.home,
        )
    )
    assert verdict.reason == (
        "DENIED: This command skips or reroutes the workflow's git hooks (git commit -n); "
        "only the user changes them."
    )


# ------------------------------------------------------------------- the reading API


def test_read_resolves_each_write_against_cd_and_the_hooks_folder(tmp_path: Path) -> None:
    line = shell.read("cd src && touch a.py; (cd lib; rm b.md); mv c d", tmp_path)
    assert [w.path for w in line.writes] == [
        tmp_path / "src" / "a.py",
        tmp_path / "src" / "lib" / "b.md",
        tmp_path / "src" / "d",
        tmp_path / "src" / "c",
    ]
    assert [w.removes for w in line.writes] == [False, True, False, True]


def test_read_reports_status_calls_with_their_words(tmp_path: Path) -> None:
    line = shell.read(
        "sudo -u me python3 ~/.automaton/scripts/status.py --task t1 --list", tmp_path
    )
    assert line.calls == (
        shell.Call(("~/.automaton/scripts/status.py", "--task", "t1", "--list"), False, False),
    )
    assert shell.read("automaton-status --task t1 --appr''ove", tmp_path).approves
    line = shell.read('automaton-status --task "$T"', tmp_path)
    assert line.calls[0].computed and not line.approves


def test_read_reports_how_hooks_are_skipped(tmp_path: Path) -> None:
    assert shell.read("git commit -anm msg", tmp_path).hooks == ("git commit -n",)
    assert shell.read("git -c core.hooksPath=x commit", tmp_path).hooks == (
        "git -c core.hooksPath=x",
    )
    assert shell.read("git commit -mn", tmp_path).hooks == ()  # `n` is the message


def test_only_a_word_that_can_name_a_state_file_counts() -> None:
    for word in ("sys.stdin", ".strip()", "x.startswith('a')", ".stylelintrc", "self.state"):
        assert not shell.names_state(word), word
    for word in (".state", "a/.state.history", ".st*e", ".s*", ".STATE", "'.automaton/t/.state'"):
        assert shell.names_state(word), word


def test_a_heredoc_fed_shell_is_read_as_shell(tmp_path: Path) -> None:
    line = shell.read("bash <<'EOF'\ncd src\nrm -f old.py\nEOF", tmp_path)
    assert [w.path for w in line.writes] == [tmp_path / "src" / "old.py"]


def test_deep_nesting_is_unreadable_code_not_a_crash(tmp_path: Path) -> None:
    command = "echo x > a"
    for _ in range(12):
        command = "bash -c " + shell_quote(command)
    line = shell.read(command, tmp_path)
    assert line.code


def shell_quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


# ----------------------------------------------------------------- the pre-scan


@pytest.mark.parametrize("line", CORPUS_LINES, ids=[line["id"] for line in CORPUS_LINES])
def test_the_pre_scan_answers_only_what_the_parser_allows(tmp_path: Path, line) -> None:
    """A line the pre-scan calls a plain read writes nothing and calls nothing."""
    if shell.plain_read(line["run"]):
        reading = shell.read(line["run"], tmp_path)
        assert reading == shell.ShellLine(named=reading.named, states=reading.states), reading
        assert line["research"] == line["implement"] == "allow"


@pytest.mark.parametrize(
    "command",
    [
        "git status",
        "ls -la src",
        "grep -rn 'x' src | head",
        "pytest -q 2>&1 | tail -5",
        "git diff 2>/dev/null | head -50 && ls src",
        "find . -name '*.py'",
    ],
)
def test_plain_reads_are_recognised_without_the_parser(command: str) -> None:
    assert shell.plain_read(command)


@pytest.mark.parametrize(
    "command",
    [
        "find . '-delete'",
        "find . -exec rm {} +",
        "git diff --output=x",
        "ls > out",
        "cat $F",
        "grep x `ls`",
        "ls; rm x",
        "FOO=1 ls",
        "git commit -m x",
        "sort -o out in",
        "'rm' x",
        "./status.py --list",
        "tree -o out",
        "fd -x rm",
    ],
)
def test_anything_else_goes_to_the_parser(command: str) -> None:
    assert not shell.plain_read(command)


ATOMS = [
    *shell.names(
        "echo x > < <> | || && ; & ( ) { } $( ` ' \" $X ${X} cd src rm -rf cp mv sed -i -e "
        "s/a/b/ python3 -c bash sh -s xargs find . -exec {} \\; + git commit -n config "
        "core.hooksPath automaton-status --approve --task t1 tar -xf -C curl -o -O env sudo "
        "timeout 1 eval source /dev/stdin <(ls) >(cat) *.py a{b,c} ~ ~/x $HOME 2>&1 &> 1<> "
        "perl -pie awk tee of=x for in do done while if then fi [[ ]] A=1 export alias trap "
        "-- - ln -s chmod +x npx uv run black ruff format --fix patch -p1 unzip -d #"
    ),
    "<<EOF\nx $Y\nEOF\n",
    "\n",
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(sorted(ATOMS)), min_size=1, max_size=14))
def test_no_line_breaks_the_reader(parts: list[str]) -> None:
    """Whatever the agent types, the reader answers (a crash would deny every line)."""
    command = " ".join(parts)
    reading = shell.read(command, Path("/nonexistent/project"))
    if shell.plain_read(command):
        assert not (reading.writes_files or reading.calls or reading.hooks or reading.code)


# ------------------------------------------------------------ rules and projects


SHELL_RULE = """\
from automaton_rules import Finding, hookimpl, rule


@rule("SH101", summary="generated code is not edited", category="Shell", when=("edit",))
def not_generated(edit):
    if edit.path and edit.path.startswith("generated/"):
        yield Finding("generated/ is written by the generator")


@hookimpl
def register_rules(register):
    register(not_generated)
"""


def test_a_projects_edit_rule_sees_the_file_a_shell_line_writes(tmp_path: Path) -> None:
    project = AutomatonProject(tmp_path / "proj")
    project.root.mkdir()
    project.task("t1", "implement")
    project.write_plugin(SHELL_RULE)
    root = project.root.resolve()
    assert decide(root, "echo x > generated/a.py").reason == (
        "DENIED: generated/ is written by the generator (SH101) This shell command writes files."
    )
    assert decide(root, "echo x > src/a.py").allowed


def test_pyproject_without_automaton_toml_may_hold_the_configuration(tmp_path: Path) -> None:
    project = AutomatonProject(tmp_path / "proj")
    project.root.mkdir()
    project.task("t1", "implement")
    root = project.root.resolve()
    (root / "pyproject.toml").write_text('[project]\nname = "x"\n')
    reason = decide(root, "echo '[tool.automaton]' >> pyproject.toml").reason
    assert reason.startswith("DENIED: File 'pyproject.toml' is the workflow's configuration")
    assert reason.endswith("edit pyproject.toml with the edit tool.")
    assert decide(root, "uv add httpx").allowed  # a package manager changes dependencies only
    (root / "automaton.toml").write_text("")
    assert decide(root, "echo '[tool.automaton]' >> pyproject.toml").allowed


def test_a_write_into_another_project_is_judged_by_that_project(tmp_path: Path) -> None:
    other = AutomatonProject(tmp_path / "other")
    other.root.mkdir()
    other.task("t1", "research")
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    target = other.root.resolve() / "src" / "a.py"
    reason = decide(outside, f"echo x > {target}").reason
    assert reason.startswith("DENIED: No task in project")
    assert decide(outside, "echo x > notes.txt").allowed


def test_the_parser_missing_denies_with_a_reason(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    from automaton_rules.guards.shell import parse as shell_parse
    from automaton_rules.support.errors import AutomatonError

    def missing(package: str) -> None:
        raise ImportError(f"No module named {package!r}")

    monkeypatch.setattr(shell_parse, "_PARSER", [])
    monkeypatch.setattr(shell_parse, "_binding", missing)
    with pytest.raises(AutomatonError, match="tree-sitter and tree-sitter-bash"):
        shell.read("echo x > a", tmp_path)


@pytest.mark.parametrize("name", ["python3", "python", "pyvenv.cfg"])
def test_the_interpreter_the_hooks_run_with_is_a_guard_file(world_at_home: World, name) -> None:
    """Issue 27: `ln -sf /bin/true VENV/bin/python3` on Cursor made every later hook exit 0
    with nothing said, and the next write went through. Every link on the way to the
    interpreter, and the environment's `pyvenv.cfg`, are the guard's own program."""
    target = Path(sys.prefix) / ("pyvenv.cfg" if name == "pyvenv.cfg" else f"bin/{name}")
    if not target.exists():
        pytest.skip(f"{target} does not exist in this environment")
    line = f"echo x > {target}" if name == "pyvenv.cfg" else f"ln -sf /bin/true {target}"
    for phase in GUARD_PHASES:
        assert kind(decide(world_at_home.roots[phase], line)) == "guard", phase
