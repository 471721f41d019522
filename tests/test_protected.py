"""Issue 11, section 1: the guard's own files, through every edit tool and status.py.

No agent may change the configuration, the harness settings that run the hooks, the git
hooks, the workflow's records under `.automaton/` (a task's own artifact in its phase
excepted), the signers file or the installed status.py, in any phase: each bypass the
issue quotes is tried in `research` and in `implement`, through the adapter as Claude
Code calls it, through `status.py --can-edit --file`, and through each harness's edit tool.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from helpers import GUARD_PHASES, HOOK, HOOK_FIXTURES, Project, denied, recorded, run_hook

from automaton_rules.core.config import load_config
from automaton_rules.core.guard_files import PROGRAM
from automaton_rules.core.project import Project as CoreProject
from automaton_rules.core.project import find_project
from automaton_rules.guards.edits import checks, protected
from automaton_rules.guards.hooks import adapter as harness
from automaton_rules.guards.hooks.harnesses import NAMES as HARNESSES

CONFIG = "the workflow's configuration"
TABLE = "the workflow's configuration ([tool.automaton] of pyproject.toml)"
HARNESS = "a harness setting that runs the workflow's hooks"
GIT = "where git's hooks live or which run"
RECORDS = "the workflow's own records under .automaton/"

PYPROJECT = """\
[project]
name = "app"
version = "1.0"

[tool.automaton]
same-session-minutes = 30
"""


def denial(path: Path | str, what: str) -> str:
    return f"DENIED: File '{path}' is {what}; only the user changes it."


def refused_write(
    project: Project, path: Path, content: str = "x\n", **extra: object
) -> str | None:
    """Claude Code's Write of `path`, answered by the adapter: the reason, or None."""
    payload = {
        "session_id": "7f3c",
        "cwd": str(project.root),
        "hook_event_name": "PreToolUse",
        "tool_name": "Write",
        "tool_input": {"file_path": str(path), "content": content},
        **extra,
    }
    return denied("claude", run_hook("claude", json.dumps(payload)))


def claude_tool(project: Project, tool: str, tool_input: dict[str, object]) -> str | None:
    payload = {"cwd": str(project.root), "tool_name": tool, "tool_input": tool_input}
    return denied("claude", run_hook("claude", json.dumps(payload)))


@pytest.fixture(params=GUARD_PHASES)
def any_phase(request: pytest.FixtureRequest, project: Project, task_in) -> Project:
    """A git project whose task t1 is in research or in implement."""
    subprocess.run(["git", "init", "-q", str(project.root)], check=True, timeout=60)
    (project.root / "src").mkdir()
    (project.root / "src" / "app.py").write_text("x = 1\n")
    task_in(request.param, name="t1")
    return project


def phase_of(project: Project) -> str:
    return project.state("t1").strip()


# --------------------------------------------------------------------------------------
# The bypasses, through Claude Code's Write, in research and in implement
# --------------------------------------------------------------------------------------


def test_rewriting_the_configuration_is_denied(any_phase: Project) -> None:
    target = any_phase.root / "automaton.toml"
    assert refused_write(any_phase, target, 'ignore = ["AR"]\n') == denial(target, CONFIG)
    assert not target.exists()


@pytest.mark.parametrize("relative", [".claude/settings.json", ".claude/settings.local.json"])
def test_rewriting_claude_settings_is_denied(any_phase: Project, relative: str) -> None:
    target = any_phase.root / relative
    assert refused_write(any_phase, target, '{"disableAllHooks": true}\n') == denial(
        target, HARNESS
    )


def test_rewriting_a_git_hook_is_denied(any_phase: Project) -> None:
    target = any_phase.root / ".git" / "hooks" / "pre-commit"
    assert refused_write(any_phase, target, "#!/bin/sh\nexit 0\n") == denial(target, GIT)


def test_writing_into_a_task_folder_is_denied(any_phase: Project) -> None:
    notes = any_phase.task_dir("t1") / "notes.md"
    assert refused_write(any_phase, notes) == denial(notes, RECORDS)
    made_by_hand = any_phase.tasks / "t2" / "SPEC.md"
    reason = refused_write(any_phase, made_by_hand)
    assert reason == (
        f"DENIED: File '{made_by_hand}' is in task folder 't2', which is not a task made "
        "with --create-task."
    )
    history = any_phase.task_dir("t1") / ".state.history"
    assert "is workflow state" in (refused_write(any_phase, history) or "")


def test_other_records_under_automaton_are_denied(any_phase: Project) -> None:
    for target in (any_phase.root / ".automaton" / "allowed_signers", any_phase.tasks / "README"):
        assert refused_write(any_phase, target) is not None, target


def test_the_tasks_own_artifact_stays_editable_in_its_phase(any_phase: Project) -> None:
    artifact = "SPEC.md" if phase_of(any_phase) == "research" else "IMPLEMENTATION.md"
    assert refused_write(any_phase, any_phase.task_dir("t1") / artifact, "# mine\n") is None
    other = "IMPLEMENTATION.md" if artifact == "SPEC.md" else "SPEC.md"
    assert "belongs to the" in (refused_write(any_phase, any_phase.task_dir("t1") / other) or "")


def test_ordinary_code_follows_the_phase(any_phase: Project) -> None:
    reason = refused_write(any_phase, any_phase.root / "src" / "app.py")
    assert (reason is None) == (phase_of(any_phase) == "implement"), reason


def test_the_folder_core_hookspath_names_is_git_hooks(any_phase: Project) -> None:
    subprocess.run(
        ["git", "-C", str(any_phase.root), "config", "core.hooksPath", "githooks"],
        check=True,
        timeout=60,
    )
    target = any_phase.root / "githooks" / "pre-commit"
    assert refused_write(any_phase, target) == denial(target, GIT)


@pytest.mark.parametrize(
    "relative",
    [".codex/hooks.json", ".gemini/settings.json", ".cursor/hooks.json", "opencode.json"],
)
def test_every_installed_harness_setting_is_denied(any_phase: Project, relative: str) -> None:
    target = any_phase.root / relative
    assert refused_write(any_phase, target, "{}\n") == denial(target, HARNESS)


def test_the_opencode_plugin_folder_is_denied(any_phase: Project) -> None:
    target = any_phase.root / ".opencode" / "plugin" / "automaton-guard.js"
    assert refused_write(any_phase, target, "export const X = 1;\n") == denial(target, HARNESS)


def test_the_installed_status_script_and_home_settings_are_denied(
    any_phase: Project, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    for target, what in (
        (home / ".automaton" / "scripts" / "status.py", "the installed status.py"),
        (home / ".claude" / "settings.json", HARNESS),
    ):
        payload = {
            "cwd": str(any_phase.root),
            "tool_name": "Write",
            "tool_input": {"file_path": str(target), "content": "x\n"},
        }
        assert denied("claude", run_hook("claude", json.dumps(payload), home=home)) == denial(
            target, what
        )


@pytest.mark.parametrize("relative", ["hooks/mine.json", "settings.json", "config.json"])
def test_copilots_hooks_and_settings_where_copilot_home_moves_them_are_denied(
    any_phase: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, relative: str
) -> None:
    """GitHub Copilot CLI loads the user's hooks from `$COPILOT_HOME/hooks/` when that is
    set (its hooks reference, "Hooks locations"), not from ~/.copilot/hooks."""
    moved = tmp_path / "copilot-home"
    monkeypatch.setenv("COPILOT_HOME", str(moved))
    target = moved / relative
    payload = {
        "cwd": str(any_phase.root),
        "tool_name": "Write",
        "tool_input": {"file_path": str(target), "content": "{}\n"},
    }
    assert denied("claude", run_hook("claude", json.dumps(payload))) == denial(target, HARNESS)


def test_the_guards_own_program_and_pythons_start_up_hooks_are_denied(
    any_phase: Project, tmp_path: Path
) -> None:
    """Found by an adversarial review: a `.pth` file, the installed package or the hook
    program, rewritten, switch the adapter off for every later command."""
    import sysconfig

    import automaton_rules

    package = Path(automaton_rules.__file__).resolve().parent
    site_packages = Path(sysconfig.get_path("purelib")).resolve()
    home = tmp_path / "home"
    for target in (
        site_packages / "zz.pth",
        site_packages / "sitecustomize.py",
        package / "guards" / "shell" / "verdict.py",
        HOOK.parent / "automaton-hook",
        home / ".local" / "bin" / "automaton-hook",
    ):
        assert refused_write(any_phase, target) == denial(target, PROGRAM), target
    line = f"sed -i 's/DENIED/ALLOWED/' {package / 'guards' / 'shell' / 'verdict.py'}"
    refused = claude_tool(any_phase, "Bash", {"command": line})
    assert refused is not None and PROGRAM in refused
    # The package's source, when it is the project at work, follows the phase instead.
    this_repository = CoreProject(package.parent)
    assert protected.reason(this_repository, package / "cli" / "x.py", home=home) is None


def test_a_subagents_edit_is_judged_as_the_main_agents(any_phase: Project) -> None:
    """Claude Code and Codex send a subagent's tool calls with `agent_id`/`agent_type`."""
    for name in ("claude", "codex"):
        payload = (HOOK_FIXTURES / name / "subagent-edit.json").read_text()
        reason = denied(name, run_hook(name, payload.replace("__PROJECT__", str(any_phase.root))))
        assert (reason is None) == (phase_of(any_phase) == "implement"), (name, reason)
    target = any_phase.root / "automaton.toml"
    assert refused_write(any_phase, target, agent_id="a-1", agent_type="Explore") == denial(
        target, CONFIG
    )


# --------------------------------------------------------------------------------------
# status.py --can-edit --file, for each of them
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("relative", "what"),
    [
        ("automaton.toml", CONFIG),
        (".claude/settings.json", HARNESS),
        (".claude/settings.local.json", HARNESS),
        (".git/hooks/pre-commit", GIT),
        (".automaton/tasks/t1/notes.md", RECORDS),
        (".automaton/allowed_signers", "the approval signers file"),
    ],
)
def test_status_py_can_edit_refuses_the_guards_files(
    any_phase: Project, relative: str, what: str
) -> None:
    result = any_phase.run("--can-edit", "--file", str(any_phase.root / relative))
    assert (result.rc, result.out) == (1, denial(any_phase.root / relative, what) + "\n")
    named = any_phase.run("--can-edit", "--task", "t1", "--file", str(any_phase.root / relative))
    assert (named.rc, named.out) == (result.rc, result.out)


def test_status_py_names_the_file_as_given_and_explains_in_json(any_phase: Project) -> None:
    proc = any_phase.script("--can-edit", "--file", "automaton.toml", "--json")
    assert proc.rc == 1
    body = json.loads(proc.out)
    assert body["reason"] == "protected-file"
    assert body["message"] == denial("automaton.toml", CONFIG)
    assert body["file"] == str((any_phase.root / "automaton.toml").resolve())


# --------------------------------------------------------------------------------------
# Every harness's edit tool
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", HARNESSES)
def test_each_harness_edit_tool_is_denied_the_configuration(any_phase: Project, name: str) -> None:
    payload, given = recorded(name, "edit-config.json", any_phase.root)
    reason = denied(name, run_hook(name, payload, *given))
    assert reason is not None
    assert reason.startswith("DENIED: File '") and reason.endswith(
        "automaton.toml' is the workflow's configuration; only the user changes it."
    )


def test_an_opencode_patch_adding_state_is_denied_as_codexs_is(any_phase: Project) -> None:
    payload = (HOOK_FIXTURES / "opencode" / "patch-state.json").read_text()
    payload = payload.replace("__PROJECT__", str(any_phase.root)).replace("guarded", "t1")
    assert "workflow state" in (denied("opencode", run_hook("opencode", payload)) or "")


@pytest.mark.parametrize(
    ("tool", "tool_input"),
    [
        ("Edit", {"file_path": "F", "old_string": "AR1", "new_string": "AR"}),
        ("MultiEdit", {"file_path": "F", "edits": [{"old_string": "AR1", "new_string": "AR"}]}),
        ("NotebookEdit", {"notebook_path": "F", "new_source": "x"}),
        ("replace", {"file_path": "F", "old_string": "AR1", "new_string": "AR"}),
        ("edit", {"filePath": "F", "oldString": "AR1", "newString": "AR"}),
        ("Delete", {"path": "F"}),
    ],
)
def test_every_edit_tool_spelling_is_held_to_the_configuration(
    any_phase: Project, tool: str, tool_input: dict[str, object]
) -> None:
    target = any_phase.root / "automaton.toml"
    target.write_text('ignore = ["AR1"]\n')
    spelled = json.loads(json.dumps(tool_input).replace('"F"', json.dumps(str(target))))
    assert claude_tool(any_phase, tool, spelled) == denial(target, CONFIG)


# --------------------------------------------------------------------------------------
# pyproject.toml: only its [tool.automaton] table is the guard's
# --------------------------------------------------------------------------------------


@pytest.fixture
def pyproject(any_phase: Project) -> Path:
    path = any_phase.root / "pyproject.toml"
    path.write_text(PYPROJECT)
    return path


def edit_input(old: str, new: str, path: Path) -> dict[str, object]:
    return {"file_path": str(path), "old_string": old, "new_string": new}


def test_an_edit_of_the_tool_table_is_denied(any_phase: Project, pyproject: Path) -> None:
    change = edit_input("same-session-minutes = 30", "same-session-minutes = 1", pyproject)
    assert claude_tool(any_phase, "Edit", change) == denial(pyproject, TABLE)
    removed = PYPROJECT.split("[tool.automaton]")[0]
    assert refused_write(any_phase, pyproject, removed) == denial(pyproject, TABLE)
    multi = {
        "file_path": str(pyproject),
        "edits": [
            {"old_string": 'version = "1.0"', "new_string": 'version = "1.1"'},
            {"old_string": "[tool.automaton]", "new_string": "[tool.other]"},
        ],
    }
    assert claude_tool(any_phase, "MultiEdit", multi) == denial(pyproject, TABLE)


def test_other_pyproject_edits_follow_the_phase(any_phase: Project, pyproject: Path) -> None:
    implement = phase_of(any_phase) == "implement"
    bump = edit_input('version = "1.0"', 'version = "1.1"', pyproject)
    rewritten = PYPROJECT.replace('name = "app"', 'name = "app"\ndescription = "x"')
    for reason in (
        claude_tool(any_phase, "Edit", bump),
        refused_write(any_phase, pyproject, rewritten),
        claude_tool(any_phase, "Edit", {**bump, "replace_all": True}),
    ):
        if implement:
            assert reason is None
        else:
            assert reason is not None and "(t1: research)" in reason


def test_an_edit_that_cannot_be_worked_out_is_denied_while_the_table_exists(
    any_phase: Project, pyproject: Path
) -> None:
    missing = edit_input("no such text", "x", pyproject)
    assert claude_tool(any_phase, "Edit", missing) == denial(pyproject, TABLE)
    patch = (
        "*** Begin Patch\n*** Update File: pyproject.toml\n@@\n"
        '-version = "1.0"\n+version = "1.1"\n*** End Patch\n'
    )
    payload = {
        "cwd": str(any_phase.root),
        "tool_name": "apply_patch",
        "tool_input": {"command": patch},
    }
    assert denied("codex", run_hook("codex", json.dumps(payload))) == denial(
        "pyproject.toml", TABLE
    )
    result = any_phase.run("--can-edit", "--file", str(pyproject))
    assert (result.rc, result.out) == (1, denial(pyproject, TABLE) + "\n")


def test_a_pyproject_without_the_table_may_not_gain_one(any_phase: Project) -> None:
    path = any_phase.root / "pyproject.toml"
    path.write_text('[project]\nname = "app"\n')
    added = edit_input('name = "app"', 'name = "app"\n\n[tool.automaton]\nignore = ["AR"]', path)
    assert claude_tool(any_phase, "Edit", added) == denial(path, TABLE)
    result = any_phase.run("--can-edit", "--file", str(path))
    implement = phase_of(any_phase) == "implement"
    assert (result.rc, result.out == "ALLOWED\n") == ((0, True) if implement else (1, False))


# --------------------------------------------------------------------------------------
# The Python API
# --------------------------------------------------------------------------------------


def test_can_edit_asks_for_the_text_after_the_edit(any_phase: Project, pyproject: Path) -> None:
    found = find_project(any_phase.root)
    settings = load_config(found.root)
    same = checks.can_edit(found, file=pyproject, settings=settings, proposed=lambda text: text)
    assert same.allowed == (phase_of(any_phase) == "implement")
    changed = checks.can_edit(found, file=pyproject, proposed=lambda text: "")
    assert (changed.allowed, changed.code) == (False, "protected-file")
    assert changed.details == {"file": str(pyproject), "what": TABLE}


def test_protected_reason_names_each_kind(any_phase: Project, tmp_path: Path) -> None:
    found = find_project(any_phase.root)
    home = tmp_path / "home"
    root = any_phase.root.resolve()
    assert protected.reason(found, root / "automaton.toml", home=home) == CONFIG
    assert protected.reason(found, root / ".git" / "config", home=home) == GIT
    assert protected.reason(found, root / ".automaton" / "x", home=home) == RECORDS
    assert protected.reason(found, home / ".gemini" / "settings.json", home=home) == HARNESS
    assert protected.reason(found, root / "src" / "app.py", home=home) is None
    assert protected.reason(found, root / "pyproject.toml", home=home) is None
    assert protected.is_pyproject(found, root / "pyproject.toml")


@pytest.mark.parametrize(
    ("tool_input", "before", "after"),
    [
        ({"content": "new"}, "old", "new"),
        ({"contents": "new"}, None, "new"),
        ({"old_string": "a", "new_string": "b"}, "a a", "b a"),
        ({"old_string": "a", "new_string": "b", "replace_all": True}, "a a", "b b"),
        ({"oldString": "a", "newString": "b", "replaceAll": True}, "a a", "b b"),
        ({"old_string": "a", "new_string": "b", "expected_replacements": 2}, "a a", "b b"),
        (
            {
                "edits": [
                    {"old_string": "a", "new_string": "b"},
                    {"old_string": "b", "new_string": "c"},
                ]
            },
            "a",
            "c",
        ),
        ({"old_string": "", "new_string": "fresh"}, None, "fresh"),
        ({"old_string": "zzz", "new_string": "b"}, "a", None),
        ({"new_source": "x"}, "a", None),
    ],
)
def test_new_text_reads_each_harnesss_edit(
    tool_input: dict[str, object], before: str | None, after: str | None
) -> None:
    assert harness.new_text(tool_input, before) == after


# --------------------------------------------------------------------------------------
# Section 5, harness fixes: how each harness's input reaches the guard
# --------------------------------------------------------------------------------------


def test_cursor_denies_with_exit_0_and_its_documented_json(guarded: Project) -> None:
    payload = (HOOK_FIXTURES / "cursor" / "edit.json").read_text()
    proc = run_hook("cursor", payload.replace("__PROJECT__", str(guarded.root)))
    assert (proc.returncode, proc.stderr) == (0, "")
    body = json.loads(proc.stdout)
    assert set(body) == {"permission", "user_message", "agent_message"}
    assert body["permission"] == "deny"
    assert body["user_message"] == body["agent_message"]
    assert body["agent_message"].startswith("DENIED: No task in project ")
    broken = run_hook("cursor", "not json")
    assert (broken.returncode, json.loads(broken.stdout)["permission"]) == (0, "deny")
    read = (HOOK_FIXTURES / "cursor" / "shell-read.json").read_text()
    allowed = run_hook("cursor", read.replace("__PROJECT__", str(guarded.root)))
    assert (allowed.returncode, json.loads(allowed.stdout)) == (0, {"permission": "allow"})


def test_opencode_shell_paths_resolve_against_workdir(guarded: Project) -> None:
    """`workdir` decides where `> app.py` lands: outside the project, or in src/."""
    (guarded.root.parent / "elsewhere").mkdir()
    payload = (HOOK_FIXTURES / "opencode" / "shell-workdir.json").read_text()
    payload = payload.replace("__PROJECT__", str(guarded.root))
    assert denied("opencode", run_hook("opencode", payload)) is None
    inside = payload.replace('"../elsewhere"', '"src"')
    reason = denied("opencode", run_hook("opencode", inside))
    assert reason is not None and reason.endswith("This shell command writes files.")


def test_gemini_shell_paths_resolve_against_dir_path(guarded: Project, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    payload = (HOOK_FIXTURES / "gemini" / "shell-dir-path.json").read_text()
    payload = payload.replace("__PROJECT__", str(guarded.root))
    payload = payload.replace("__OUTSIDE__", str(outside))
    reason = denied("gemini", run_hook("gemini", payload))
    assert reason is not None and "(guarded: research)" in reason
    action = harness.read_action(json.loads(payload), "gemini")
    assert action.cwd == (guarded.root / "src").resolve()
    legacy = json.loads(payload)
    legacy["tool_input"]["directory"] = legacy["tool_input"].pop("dir_path")
    assert harness.read_action(legacy, "gemini").cwd == action.cwd


# --------------------------------------------------------------------------------------
# Found by an adversarial review: files the configuration search or `plugins` would read
# --------------------------------------------------------------------------------------


def test_a_configuration_the_search_would_find_above_the_project_is_protected(
    tmp_path: Path,
) -> None:
    """A project in a repository's subfolder with no configuration of its own reads one
    from above: writing `../automaton.toml` there would configure the project."""
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True, timeout=60)
    app = Project(repo / "app")
    app.root.mkdir()
    app.create("t1")
    found = find_project(app.root)
    settings = load_config(found.root)
    for candidate in (repo / "automaton.toml", app.root / "automaton.toml"):
        assert protected.reason(found, candidate.resolve(), settings) == CONFIG
    assert protected.reason(found, (tmp_path / "automaton.toml").resolve(), settings) is None
    assert refused_write(app, repo / "automaton.toml", 'ignore = ["AR"]\n') == denial(
        repo / "automaton.toml", CONFIG
    )


def test_a_plugin_file_the_configuration_loads_is_protected(any_phase: Project) -> None:
    """A plugin's code runs in every status.py call, the user's --approve included."""
    (any_phase.root / "rules").mkdir()
    (any_phase.root / "rules" / "team.py").write_text("def register_rules(register):\n    pass\n")
    (any_phase.root / "rules" / "helpers.py").write_text("")
    (any_phase.root / "automaton.toml").write_text('plugins = ["rules/team.py"]\n')
    plugin = any_phase.root / "rules" / "team.py"
    assert refused_write(any_phase, plugin) == denial(
        plugin, "a rule plugin the workflow's configuration loads"
    )
    other = refused_write(any_phase, any_phase.root / "rules" / "helpers.py")
    assert (other is None) == (phase_of(any_phase) == "implement")
