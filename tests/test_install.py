"""automaton-install: status.py where the agents call it, hooks where they fire.

Run as a console script in a subprocess with HOME set to a temporary folder, so the
real home is never touched. Idempotent (a second run changes no byte) and reversible
(--uninstall gives back the user's settings exactly).
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import re
import shlex
import shutil
import signal
import stat
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest
from helpers import ROOT, SCRIPT_CALL, clean_env, run_install

from automaton_rules.cli import install, install_files
from automaton_rules.guards import harnesses, hook_settings

# The harnesses whose hooks go into a JSON settings file (all but opencode's plugin).
JSON_SETTINGS = [record for record in harnesses.HARNESSES.values() if record.hooks()]

LAUNCHED = ("automaton-hook", "automaton-git-hook")

USER_CLAUDE = {
    "permissions": {"allow": ["Bash(ls:*)", "Read"], "deny": ["Bash(rm -rf:*)"]},
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [{"type": "command", "command": "my-own-linter --strict"}],
            }
        ],
        "PostToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "fmt"}]}],
    },
    "model": "opus",
}
USER_GEMINI = {"theme": "dark", "general": {"vimMode": True}}


def files_with_modes(*folders: Path) -> dict[str, tuple[bytes, int]]:
    """Every file below the folders: its bytes and permission bits."""
    files = {}
    for folder in folders:
        for path in sorted(folder.rglob("*")):
            if path.is_file() and not path.is_symlink():
                files[str(path)] = (path.read_bytes(), stat.S_IMODE(path.stat().st_mode))
    return files


@pytest.fixture
def home(tmp_path: Path) -> Path:
    folder = tmp_path / "home"
    folder.mkdir()
    return folder


@pytest.fixture
def user_repo(tmp_path: Path) -> Path:
    """A git project with the user's own Claude and Gemini settings already there."""
    folder = tmp_path / "proj"
    folder.mkdir()
    subprocess.run(["git", "init", "-q", str(folder)], check=True, timeout=60)
    (folder / ".claude").mkdir()
    (folder / ".claude" / "settings.json").write_text(json.dumps(USER_CLAUDE, indent=4) + "\n")
    (folder / ".gemini").mkdir()
    (folder / ".gemini" / "settings.json").write_text(json.dumps(USER_GEMINI) + "\n")
    (folder / ".automaton" / "tasks").mkdir(parents=True)
    return folder


def git_hooks_dir(user_repo: Path) -> Path:
    return user_repo / ".git" / "hooks"


# --------------------------------------------------------------------------------------
# ~/.automaton/scripts/status.py
# --------------------------------------------------------------------------------------


def test_install_writes_the_status_script_and_the_launchers(home: Path) -> None:
    proc = run_install(home)
    assert proc.returncode == 0, proc
    script = home / ".automaton" / "scripts" / "status.py"
    launchers = [home / ".automaton" / "bin" / tool for tool in LAUNCHED]
    assert proc.stdout == "".join(f"created {path}\n" for path in (script, *launchers))
    for path in (script, *launchers):
        assert os.access(path, os.X_OK), path
        assert install.MARKER in path.read_text()
    # A launcher runs this installation's console script, by absolute path.
    proc = subprocess.run(
        [str(launchers[0]), "--version"], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc
    assert proc.stdout.startswith("automaton-rules ")
    assert f"\nh={Path(sys.executable).parent / 'automaton-hook'}\n" in launchers[0].read_text()


def call_script(home: Path, interpreter: list[str], *args: str, cwd: Path):
    script = home / ".automaton" / "scripts" / "status.py"
    return subprocess.run(
        [*interpreter, str(script), *args],
        capture_output=True,
        text=True,
        env=clean_env(home),
        cwd=cwd,
        timeout=60,
    )


def check_script_works(home: Path, project: Path, interpreter: list[str]) -> None:
    proc = call_script(
        home, interpreter, "--create-task", "add-user-auth", "--project", str(project), cwd=project
    )
    assert proc.returncode == 0, proc
    assert proc.stdout.startswith("Created task 'add-user-auth' in state 'new'.")
    proc = call_script(home, interpreter, "--task", "add-user-auth", cwd=project)
    assert proc.returncode == 0, proc
    proceed = [line for line in proc.stdout.splitlines() if line.startswith("Command to proceed:")]
    assert len(proceed) == 1, proc.stdout
    assert proceed[0].startswith(f"Command to proceed: {SCRIPT_CALL} "), proceed[0]
    proc = call_script(home, interpreter, "--can-edit", "--task", "add-user-auth", cwd=project)
    assert (proc.returncode, proc.stdout) == (
        1,
        "DENIED: Task 'add-user-auth' is in new phase. "
        "Code edits require implement or doc_review phase.\n",
    ), proc


def test_installed_script_runs_with_the_venv_python(home: Path, tmp_path: Path) -> None:
    assert run_install(home).returncode == 0
    project = tmp_path / "work"
    project.mkdir()
    check_script_works(home, project, [sys.executable])


def _lacks_package(python: str, home: Path) -> bool:
    proc = subprocess.run(
        [python, "-c", "import automaton_rules"],
        capture_output=True,
        env=clean_env(home),
        cwd=home,
        timeout=60,
    )
    return proc.returncode != 0


def test_installed_script_runs_with_any_python3_on_path(home: Path, tmp_path: Path) -> None:
    """`/usr/bin/env python3` may be a python without the package: the script re-executes
    itself with the interpreter it was installed for, and works."""
    python3 = shutil.which("python3", path=clean_env(home).get("PATH"))
    if python3 is None or not Path("/usr/bin/env").exists():
        pytest.skip("no python3 on PATH")
    if not _lacks_package(python3, home):
        pytest.skip(f"{python3} has automaton_rules: nothing to re-execute")
    assert run_install(home).returncode == 0
    project = tmp_path / "work"
    project.mkdir()
    check_script_works(home, project, ["/usr/bin/env", "python3"])


def _with_interpreter(home: Path, tmp_path: Path, interpreter: str) -> Path:
    """A copy of the installed script bound to another interpreter."""
    script = (home / ".automaton" / "scripts" / "status.py").read_text()
    match = re.search(r"^INTERPRETER = (.+)$", script, re.M)
    assert match, script
    bound = ast.literal_eval(match.group(1))
    copy = tmp_path / "scripts" / "status.py"
    copy.parent.mkdir()
    copy.write_text(script.replace(repr(bound), repr(interpreter)))
    return copy


def _bare_python(home: Path) -> str | None:
    """The real executable of a python3 on PATH that lacks the package, if there is one."""
    python3 = shutil.which("python3", path=clean_env(home).get("PATH"))
    if python3 is None or not _lacks_package(python3, home):
        return None
    proc = subprocess.run(
        [python3, "-c", "import sys; print(sys.executable)"],
        capture_output=True,
        text=True,
        env=clean_env(home),
        timeout=60,
    )
    return proc.stdout.strip() or None


def test_installed_script_gives_up_cleanly_without_the_package(home: Path, tmp_path: Path) -> None:
    """No re-exec loop: bound to an interpreter without the package, one ERROR line, exit 2."""
    assert run_install(home).returncode == 0
    bare = _bare_python(home)
    if bare is None:
        pytest.skip("needs a python3 without the package")
    copy = _with_interpreter(home, tmp_path, bare)
    proc = subprocess.run(
        [bare, str(copy), "--list"],
        capture_output=True,
        text=True,
        env=clean_env(home),
        timeout=60,
    )
    assert proc.returncode == 2, proc
    assert proc.stderr == f"ERROR: automaton-rules is not installed for {bare}\n"


def test_installed_script_reports_a_vanished_interpreter_as_an_error(
    home: Path, tmp_path: Path
) -> None:
    """The virtual environment it was installed from is gone (deleted, moved): exit 2 with
    an ERROR line, never a traceback or exit 1 (DESIGN.md section 7)."""
    assert run_install(home).returncode == 0
    bare = _bare_python(home)
    if bare is None:
        pytest.skip("needs a python3 without the package")
    copy = _with_interpreter(home, tmp_path, str(tmp_path / "deleted-venv" / "bin" / "python"))
    proc = subprocess.run(
        [bare, str(copy), "--list"],
        capture_output=True,
        text=True,
        env=clean_env(home),
        timeout=60,
    )
    assert proc.returncode == 2, proc
    assert proc.stderr.startswith("ERROR: "), proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_status_script_that_is_not_ours_is_kept(home: Path, user_repo: Path) -> None:
    script = home / ".automaton" / "scripts" / "status.py"
    script.parent.mkdir(parents=True)
    script.write_text("#!/usr/bin/env python3\nprint('my own status script')\n")
    original = script.read_bytes()
    proc = run_install(home)
    assert proc.returncode == 0, proc
    assert proc.stdout.startswith(f"kept {script} (not written by automaton-install)\n")
    assert script.read_bytes() == original
    proc = run_install(home, "--uninstall")
    assert proc.returncode == 0, proc
    assert script.read_bytes() == original


# --------------------------------------------------------------------------------------
# Harness and git hooks into a project
# --------------------------------------------------------------------------------------


def test_install_all_harnesses_and_git_hooks(home: Path, user_repo: Path) -> None:
    proc = run_install(home, "--project", str(user_repo), "--harness", "all", "--git-hooks")
    assert proc.returncode == 0, proc
    assert proc.stderr == ""

    claude = json.loads((user_repo / ".claude" / "settings.json").read_text())
    assert claude["permissions"] == USER_CLAUDE["permissions"]
    assert claude["model"] == "opus"
    post = claude["hooks"]["PostToolUse"]  # the user's own entry kept, the guard's added
    assert post[0] == USER_CLAUDE["hooks"]["PostToolUse"][0]
    assert post[1:] == harnesses.get("claude").hooks()["hooks"]["PostToolUse"]
    pre = claude["hooks"]["PreToolUse"]
    assert pre[0] == USER_CLAUDE["hooks"]["PreToolUse"][0]
    assert pre[1:] == harnesses.get("claude").hooks()["hooks"]["PreToolUse"]
    # The command names no path of this machine: a team commits it as it is.
    assert pre[1]["hooks"][0]["command"] == (
        f"sh -c '{install_files.HOOK_LOOKUP}' automaton-hook --harness claude"
    )

    gemini = json.loads((user_repo / ".gemini" / "settings.json").read_text())
    assert {k: gemini[k] for k in USER_GEMINI} == USER_GEMINI
    assert gemini["hooks"] == harnesses.get("gemini").hooks()["hooks"]

    for harness in ("codex", "cursor", "copilot", "kiro"):  # files of their own
        record = harnesses.get(harness)
        assert json.loads((user_repo / record.settings_file).read_text()) == record.hooks(), harness

    # The user-prompt hook of each harness, where `approve TASK` is the user's approval.
    prompt_hooks = {
        ".claude/settings.json": "UserPromptSubmit",
        ".codex/hooks.json": "UserPromptSubmit",
        ".gemini/settings.json": "BeforeAgent",
        ".cursor/hooks.json": "beforeSubmitPrompt",
        ".github/hooks/automaton-rules.json": "userPromptSubmitted",
    }
    for relative, event in prompt_hooks.items():
        assert "automaton-hook --harness" in json.dumps(
            json.loads((user_repo / relative).read_text())["hooks"][event]
        ), relative
    kiro = json.loads((user_repo / ".kiro" / "hooks" / "automaton-rules.json").read_text())
    assert [entry["trigger"] for entry in kiro["hooks"]] == [
        "PreToolUse",
        "SessionStart",
        "UserPromptSubmit",
    ]

    plugin = user_repo / ".opencode" / "plugin" / "automaton-guard.js"
    packaged = resources.files("automaton_rules.guards").joinpath("opencode_plugin.js").read_text()
    first, _, body = plugin.read_text().partition("\n")
    # The packaged plugin as it is, running the JSON files' lookup through sh.
    assert body == packaged
    assert f"const LOOKUP = {json.dumps(install_files.HOOK_LOOKUP)};" in body
    assert "$`sh -c ${LOOKUP} automaton-hook --harness opencode < ${input}`" in body
    assert first.startswith("// installed by automaton-install (sha256 ")
    assert '"chat.message"' in body

    hooks = git_hooks_dir(user_repo)
    for name, args in (
        ("pre-commit", "pre-commit"),
        ("pre-merge-commit", "pre-merge-commit"),
        ("commit-msg", 'commit-msg "$1"'),
    ):
        text = (hooks / name).read_text()
        assert text.startswith("#!/bin/sh\n"), name
        assert f"exec sh -c '{install_files.LOOKUP}' automaton-git-hook {args}\n" in text
        assert os.access(hooks / name, os.X_OK)

    script = home / ".automaton" / "scripts" / "status.py"
    assert script.is_file()
    for path in (
        script,
        *(home / ".automaton" / "bin" / tool for tool in LAUNCHED),
        user_repo / "CLAUDE.md",
        user_repo / "AGENTS.md",
        user_repo / "GEMINI.md",
        user_repo / ".automaton" / ".gitignore",
        user_repo / ".claude" / "settings.json",
        user_repo / ".codex" / "hooks.json",
        user_repo / ".gemini" / "settings.json",
        user_repo / ".cursor" / "hooks.json",
        plugin,
        hooks / "pre-commit",
        hooks / "pre-merge-commit",
        hooks / "commit-msg",
    ):
        assert str(path) in proc.stdout, path


def test_second_run_changes_nothing(home: Path, user_repo: Path) -> None:
    args = ("--project", str(user_repo), "--harness", "all", "--git-hooks")
    assert run_install(home, *args).returncode == 0
    before = files_with_modes(home, user_repo)
    proc = run_install(home, *args)
    assert proc.returncode == 0, proc
    assert proc.stdout == "nothing to change\n"
    assert files_with_modes(home, user_repo) == before


def test_uninstall_restores_the_users_settings(home: Path, user_repo: Path) -> None:
    before_files = files_with_modes(user_repo)
    args = ("--project", str(user_repo), "--harness", "all", "--git-hooks")
    assert run_install(home, *args).returncode == 0
    proc = run_install(home, *args, "--uninstall")
    assert proc.returncode == 0, proc

    assert json.loads((user_repo / ".claude" / "settings.json").read_text()) == USER_CLAUDE
    assert json.loads((user_repo / ".gemini" / "settings.json").read_text()) == USER_GEMINI
    for created in (
        user_repo / ".codex" / "hooks.json",
        user_repo / ".cursor" / "hooks.json",
        user_repo / ".opencode" / "plugin" / "automaton-guard.js",
        git_hooks_dir(user_repo) / "pre-commit",
        git_hooks_dir(user_repo) / "pre-merge-commit",
        git_hooks_dir(user_repo) / "commit-msg",
    ):
        assert not created.exists(), created
    # The shared status.py and launchers serve every project: only a global uninstall
    # removes them.
    assert (home / ".automaton" / "scripts" / "status.py").exists()
    assert all((home / ".automaton" / "bin" / tool).exists() for tool in LAUNCHED)
    # No other file appeared or vanished.
    assert set(files_with_modes(user_repo)) == set(before_files)

    again = run_install(home, *args, "--uninstall")
    assert again.returncode == 0, again
    assert again.stdout == "nothing to change\n"


def test_uninstall_keeps_hooks_the_user_added_after_install(home: Path, user_repo: Path) -> None:
    args = ("--project", str(user_repo), "--harness", "claude")
    assert run_install(home, *args).returncode == 0
    path = user_repo / ".claude" / "settings.json"
    settings = json.loads(path.read_text())
    extra = {"matcher": "Read", "hooks": [{"type": "command", "command": "audit-reads"}]}
    settings["hooks"]["PreToolUse"].append(extra)
    path.write_text(json.dumps(settings))
    assert run_install(home, *args, "--uninstall").returncode == 0
    after = json.loads(path.read_text())
    assert after["hooks"]["PreToolUse"] == [*USER_CLAUDE["hooks"]["PreToolUse"], extra]
    assert after["permissions"] == USER_CLAUDE["permissions"]


def test_a_git_hook_that_is_not_ours_is_kept(home: Path, user_repo: Path) -> None:
    hook = git_hooks_dir(user_repo) / "pre-commit"
    hook.write_text("#!/bin/sh\necho my own checks\n")
    hook.chmod(0o755)
    original = hook.read_bytes()
    proc = run_install(home, "--project", str(user_repo), "--git-hooks")
    assert proc.returncode == 0, proc
    assert f"kept {hook}" in proc.stdout
    assert hook.read_bytes() == original
    assert (git_hooks_dir(user_repo) / "commit-msg").is_file()
    assert (
        run_install(home, "--project", str(user_repo), "--git-hooks", "--uninstall").returncode == 0
    )
    assert hook.read_bytes() == original
    assert not (git_hooks_dir(user_repo) / "commit-msg").exists()


def test_single_harness_touches_only_its_files(home: Path, user_repo: Path) -> None:
    before = files_with_modes(user_repo)
    proc = run_install(home, "--project", str(user_repo), "--harness", "codex")
    assert proc.returncode == 0, proc
    after = files_with_modes(user_repo)
    assert set(after) - set(before) == {
        str(user_repo / ".codex" / "hooks.json"),
        str(user_repo / "AGENTS.md"),
        str(user_repo / ".automaton" / ".gitignore"),
        str(user_repo / "automaton.toml"),  # the project had no configuration: now it exists
    }
    assert {k: v for k, v in after.items() if k in before} == before


@pytest.mark.parametrize(
    "args",
    [
        ("--harness", "vscode"),
        ("--harness", "claude,bogus"),
        ("--frobnicate",),
        ("--project",),
    ],
)
def test_bad_arguments_exit_2_and_write_nothing(home: Path, user_repo: Path, args) -> None:
    before = files_with_modes(user_repo)
    full = ("--project", str(user_repo), *args) if args[0] != "--project" else args
    proc = run_install(home, *full)
    assert proc.returncode == 2, proc
    assert proc.stderr.startswith("ERROR: "), proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (home / ".automaton").exists()
    assert files_with_modes(user_repo) == before


def test_bad_harness_name_is_named(home: Path, user_repo: Path) -> None:
    proc = run_install(home, "--project", str(user_repo), "--harness", "vscode")
    assert proc.returncode == 2
    assert "vscode" in proc.stderr


def test_git_hooks_outside_a_git_repository_is_exit_2(home: Path, tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    proc = run_install(home, "--project", str(plain), "--git-hooks")
    assert proc.returncode == 2, proc
    assert "not a git repository" in proc.stderr


def test_help(home: Path) -> None:
    proc = run_install(home, "--help")
    assert proc.returncode == 0
    assert proc.stdout.startswith("usage: automaton-install")
    assert not (home / ".automaton").exists()


# --------------------------------------------------------------------------------------
# integrations/ ships what the installer installs
# --------------------------------------------------------------------------------------


def test_integration_json_files_equal_the_installer_configs() -> None:
    shipped = {
        path.relative_to(ROOT / "integrations").as_posix()
        for path in (ROOT / "integrations").glob("*/*.json")
    }
    expected = {f"{h.name}/{Path(h.settings_file).name}" for h in JSON_SETTINGS}
    assert shipped == expected
    for record in JSON_SETTINGS:
        path = ROOT / "integrations" / record.name / Path(record.settings_file).name
        assert json.loads(path.read_text()) == record.hooks(), record.name


def test_integration_opencode_plugin_is_the_packaged_plugin() -> None:
    shipped = (ROOT / "integrations" / "opencode" / "automaton-guard.js").read_bytes()
    packaged = resources.files("automaton_rules.guards").joinpath("opencode_plugin.js").read_bytes()
    assert shipped == packaged
    assert harnesses.get("opencode").settings_file.endswith("/automaton-guard.js")


def test_uninstall_without_a_project_removes_the_shared_script(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home)}
    installer = str(Path(sys.executable).parent / "automaton-install")
    subprocess.run([installer], env=env, check=True, capture_output=True)
    script = home / ".automaton" / "scripts" / "status.py"
    launchers = [home / ".automaton" / "bin" / tool for tool in LAUNCHED]
    assert script.exists() and all(path.exists() for path in launchers)
    proc = subprocess.run(
        [installer, "--uninstall"], env=env, check=True, capture_output=True, text=True
    )
    for path in (script, *launchers):
        assert f"removed {path}" in proc.stdout
        assert not path.exists()


# --------------------------------------------------------------------------------------
# The opencode plugin: a changed copy is the user's
# --------------------------------------------------------------------------------------


def test_a_changed_opencode_plugin_is_never_overwritten_or_removed(
    home: Path, user_repo: Path
) -> None:
    args = ("--project", str(user_repo), "--harness", "opencode")
    assert run_install(home, *args).returncode == 0
    plugin = user_repo / ".opencode" / "plugin" / "automaton-guard.js"
    changed = plugin.read_text().replace("--harness opencode", "--debug --harness opencode")
    assert changed != plugin.read_text()
    plugin.write_text(changed)
    again = run_install(home, *args)
    assert again.returncode == 0, again
    assert f"kept {plugin}" in again.stdout
    assert plugin.read_text() == changed
    removed = run_install(home, *args, "--uninstall")
    assert removed.returncode == 0, removed
    assert f"kept {plugin}" in removed.stdout
    assert plugin.read_text() == changed


def test_an_opencode_plugin_of_the_users_own_is_kept(home: Path, user_repo: Path) -> None:
    plugin = user_repo / ".opencode" / "plugin" / "automaton-guard.js"
    plugin.parent.mkdir(parents=True)
    plugin.write_text("// my own guard\nexport default {};\n")
    args = ("--project", str(user_repo), "--harness", "opencode")
    for extra in ((), ("--uninstall",)):
        proc = run_install(home, *args, *extra)
        assert proc.returncode == 0, proc
        assert f"kept {plugin}" in proc.stdout
        assert plugin.read_text() == "// my own guard\nexport default {};\n"


def test_an_unchanged_opencode_plugin_is_updated_and_removed(home: Path, user_repo: Path) -> None:
    """A copy written by an older release, unchanged since, is ours to replace and remove."""
    plugin = user_repo / ".opencode" / "plugin" / "automaton-guard.js"
    plugin.parent.mkdir(parents=True)
    old_body = "// an older release of the plugin\n"
    digest = hashlib.sha256(old_body.encode()).hexdigest()
    plugin.write_text(
        f"{hook_settings.OPENCODE_MARKER} (sha256 {digest}); a changed copy is kept\n{old_body}"
    )
    args = ("--project", str(user_repo), "--harness", "opencode")
    proc = run_install(home, *args)
    assert proc.returncode == 0, proc
    assert plugin.read_text() == hook_settings.opencode_plugin()
    assert run_install(home, *args, "--uninstall").returncode == 0
    assert not plugin.exists()
    assert not (user_repo / ".opencode").exists()


# --------------------------------------------------------------------------------------
# Settings a team commits: no machine's path, and a machine without the tool refuses
# --------------------------------------------------------------------------------------

BARE_PATH = "/usr/bin:/bin"
MISSING = "is not installed on this machine"


def committed_commands(user_repo: Path) -> list[str]:
    """Every hook command the installed JSON configurations hold."""
    found = []
    for record in JSON_SETTINGS:
        path = user_repo / record.settings_file
        if path.exists():
            found += hook_settings.commands(json.loads(path.read_text()).get("hooks"))
    return [command for command in found if "automaton-hook" in command]


def run_detached(argv: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess:
    """Run with a stdin that is never closed: a command that read it would never end (the
    timeout is only a safety net)."""
    read, write = os.pipe()
    try:
        return subprocess.run(
            argv, stdin=read, capture_output=True, text=True, env=env, cwd=cwd, timeout=60
        )
    finally:
        os.close(read)
        os.close(write)


def _tool_on_bare_path() -> bool:
    return any(shutil.which(tool, path=BARE_PATH) for tool in LAUNCHED)


def test_the_committed_configuration_exits_2_without_the_tool(home: Path, user_repo: Path) -> None:
    """Done when: run by `sh` with the tool missing from PATH and from HOME, it exits 2
    and says how to install it, without reading stdin; GitHub Copilot CLI's (which says
    only "hook exited with code 2" to the model) refuses with a JSON deny on exit 0 whose
    reason is the same line (issue 28)."""
    if _tool_on_bare_path():
        pytest.skip(f"automaton-hook is installed in {BARE_PATH}")
    proc = run_install(home, "--project", str(user_repo), "--harness", "all", "--git-hooks")
    assert proc.returncode == 0, proc
    commands = committed_commands(user_repo)
    # 8 Claude, 6 Codex, 5 Gemini, 6 Cursor, 7 GitHub Copilot CLI, 3 Kiro CLI
    assert len(commands) == 35
    for command in commands:
        assert str(Path(sys.executable).parent) not in command
        # A stop hook lets the agent stop instead: there, exit 2 would make it carry on.
        stops = command.endswith(" || true")
        copilot = "--harness copilot" in command
        said = (
            f"ERROR: automaton-hook {MISSING} (not on PATH, not in "
            "~/.automaton/bin). Install it: pip install automaton-rules, then "
            "automaton-install --project . in this project (automaton-rules: "
            "docs/adopting.md)"
        )
        for empty_home in ({"HOME": ""}, {}):
            done = run_detached(["sh", "-c", command], {"PATH": BARE_PATH, **empty_home}, user_repo)
            assert done.returncode == (0 if stops or copilot else 2), (command, done)
            assert done.stderr == said + "\n"
            if copilot:
                answer = {"permissionDecision": "deny", "permissionDecisionReason": said}
                assert json.loads(done.stdout) == answer
            else:
                assert done.stdout == ""


def test_a_crashing_hook_tells_copilot_the_reason(tmp_path: Path) -> None:
    """Issue 28: on a crash Copilot showed the model only "Denied by preToolUse hook: hook
    exited with code 2". The committed command now gives the reason as a JSON deny, which
    stays well formed whatever the crash printed."""
    from automaton_rules.guards import harnesses

    fake = tmp_path / "bin" / "automaton-hook"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\necho 'Traceback: \"quoted\" \\\\ \tand' >&2\nexit 1\n")
    fake.chmod(0o755)
    command = harnesses.get("copilot").copilot_entry("preToolUse", 10)["bash"]
    done = subprocess.run(
        ["sh", "-c", command],
        env={"PATH": f"{fake.parent}:/usr/bin:/bin", "HOME": str(tmp_path)},
        input="{}",
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 0
    answer = json.loads(done.stdout)
    assert answer["permissionDecision"] == "deny"
    reason = answer["permissionDecisionReason"]
    assert reason.startswith("ERROR: automaton-hook failed (exit status 1): Traceback: quoted")
    assert reason.endswith("refused, since a hook that fails must not let the action through.")


def test_the_committed_command_runs_the_tool_from_path_else_the_launcher(
    home: Path, user_repo: Path
) -> None:
    """A machine where the tool is on PATH, and one where only automaton-install's
    launcher in ~/.automaton/bin knows it: the same command runs the guard in both."""
    if _tool_on_bare_path():
        pytest.skip(f"automaton-hook is installed in {BARE_PATH}")
    assert run_install(home, "--project", str(user_repo), "--harness", "claude").returncode == 0
    command = committed_commands(user_repo)[0]
    event = json.dumps(
        {
            "hook_event_name": "PreToolUse",
            "cwd": str(user_repo),
            "tool_name": "Write",
            "tool_input": {"file_path": str(user_repo / ".automaton" / "tasks" / "t" / ".state")},
        }
    )
    on_path = {"PATH": f"{Path(sys.executable).parent}:{BARE_PATH}", "HOME": ""}
    for env in (on_path, {"PATH": BARE_PATH, "HOME": str(home)}):
        proc = subprocess.run(
            ["sh", "-c", command],
            input=event,
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
        )
        assert proc.returncode == 0, proc
        assert json.loads(proc.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"


@pytest.mark.parametrize(
    ("status", "cause"),
    [
        (1, "failed (exit status 1): ModuleNotFoundError: No module named 'pluggy'"),
        (3, "failed (exit status 3): ModuleNotFoundError: No module named 'pluggy'"),
        (126, "could not run (exit status 126): ModuleNotFoundError: No module named 'pluggy'"),
        (127, "could not run (exit status 127): ModuleNotFoundError: No module named 'pluggy'"),
    ],
)
def test_every_end_but_0_and_2_is_a_refusal_naming_its_cause(
    tmp_path: Path, status: int, cause: str
) -> None:
    """Claude Code, Codex and Gemini CLI let an action through when its hook exits with
    anything but 2: the hook command turns every other status into 2, with one ERROR line
    naming the cause (a traceback's last line), not the traceback."""
    folder = tmp_path / "bin"
    folder.mkdir()
    fake = folder / "automaton-hook"
    fake.write_text(
        "#!/bin/sh\necho 'Traceback (most recent call last):' >&2\n"
        f"echo \"ModuleNotFoundError: No module named 'pluggy'\" >&2\nexit {status}\n"
    )
    fake.chmod(0o755)
    command = install_files.hook_command("automaton-hook", "--harness", "claude")
    env = {"PATH": f"{folder}:{BARE_PATH}", "HOME": ""}
    proc = run_detached(["sh", "-c", command], env, tmp_path)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == (
        f"ERROR: automaton-hook {cause}; refused, since a hook that fails must not let the "
        "action through.\n"
    )


@pytest.mark.parametrize(("status", "stdout"), [(0, '{"ok": 1}'), (2, "")])
def test_an_answer_passes_through_the_hook_command_as_given(
    tmp_path: Path, status: int, stdout: str
) -> None:
    """0 (allowed, or denied in JSON) and 2 (denied, the reason on stderr) are answers:
    their output reaches the harness untouched."""
    folder = tmp_path / "bin"
    folder.mkdir()
    fake = folder / "automaton-hook"
    fake.write_text(f"#!/bin/sh\ncat\necho '{stdout}'\necho 'the reason' >&2\nexit {status}\n")
    fake.chmod(0o755)
    command = install_files.hook_command("automaton-hook", "--harness", "codex")
    env = {"PATH": f"{folder}:{BARE_PATH}", "HOME": ""}
    proc = subprocess.run(
        ["sh", "-c", command], input="EVENT", capture_output=True, text=True, env=env, timeout=60
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (
        status,
        f"EVENT{stdout}\n",
        "the reason\n",
    )


@pytest.mark.parametrize("signal_name", ["KILL", "TERM", "SEGV"])
def test_a_hook_stopped_by_a_signal_is_a_refusal(tmp_path: Path, signal_name: str) -> None:
    folder = tmp_path / "bin"
    folder.mkdir()
    fake = folder / "automaton-hook"
    fake.write_text(f"#!/bin/sh\nkill -{signal_name} $$\n")
    fake.chmod(0o755)
    command = install_files.hook_command("automaton-hook", "--harness", "claude")
    env = {"PATH": f"{folder}:{BARE_PATH}", "HOME": ""}
    proc = run_detached(["sh", "-c", command], env, tmp_path)
    number = getattr(signal, f"SIG{signal_name}").value
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == (
        f"ERROR: automaton-hook was stopped by signal {number}; refused, since a hook that "
        "fails must not let the action through.\n"
    )


def test_the_git_hooks_pass_a_refusal_on_as_it_is(tmp_path: Path) -> None:
    """git refuses a commit on any status but 0, so its hooks keep the status they got (a
    refusal is 1, as everywhere), and still turn a tool that could not run into 2."""
    folder = tmp_path / "bin"
    folder.mkdir()
    fake = folder / "automaton-git-hook"
    for status, seen in ((0, 0), (1, 1), (127, 2), (137, 2)):
        fake.write_text(f"#!/bin/sh\nexit {status}\n")
        fake.chmod(0o755)
        command = install_files.hook_command(
            "automaton-git-hook", "pre-commit", script=install_files.LOOKUP
        )
        env = {"PATH": f"{folder}:{BARE_PATH}", "HOME": ""}
        assert run_detached(["sh", "-c", command], env, tmp_path).returncode == seen, status


def test_a_launcher_whose_installation_is_gone_refuses(home: Path, tmp_path: Path) -> None:
    assert run_install(home).returncode == 0
    launcher = home / ".automaton" / "bin" / "automaton-hook"
    gone = tmp_path / "deleted venv" / "bin" / "automaton-hook"
    real = str(Path(sys.executable).parent / "automaton-hook")
    launcher.write_text(launcher.read_text().replace(real, shlex.quote(str(gone))))
    if _tool_on_bare_path():
        pytest.skip(f"automaton-hook is installed in {BARE_PATH}")
    command = install_files.hook_command("automaton-hook", "--harness", "claude")
    proc = run_detached(["sh", "-c", command], {"PATH": BARE_PATH, "HOME": str(home)}, tmp_path)
    assert proc.returncode == 2, proc
    assert proc.stderr.startswith(f"ERROR: {gone} is gone (moved or uninstalled).")
    assert "pip install automaton-rules" in proc.stderr


def test_the_git_hooks_refuse_the_commit_without_the_tool(home: Path, user_repo: Path) -> None:
    if _tool_on_bare_path():
        pytest.skip(f"automaton-git-hook is installed in {BARE_PATH}")
    assert run_install(home, "--project", str(user_repo), "--git-hooks").returncode == 0
    (user_repo / "a.py").write_text("x = 1\n")
    env = {"PATH": BARE_PATH, "HOME": "", "GIT_CONFIG_NOSYSTEM": "1"}
    git = ["git", "-c", "user.name=T", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "add", "a.py"], cwd=user_repo, env=env, check=True, timeout=60)
    proc = run_detached([*git, "commit", "-m", "code"], env, user_repo)
    assert proc.returncode != 0, proc
    assert f"automaton-git-hook {MISSING}" in proc.stderr
    assert "pip install automaton-rules" in proc.stderr
    hook = run_detached([str(git_hooks_dir(user_repo) / "pre-commit")], env, user_repo)
    assert hook.returncode == 2


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_opencode_plugin_denies_every_tool_call_without_the_tool(
    home: Path, user_repo: Path, tmp_path: Path
) -> None:
    """The plugin runs the same lookup through `sh` (here through a stand-in for Bun's `$`
    that runs the command for real): no tool, every call throws how to install it."""
    if _tool_on_bare_path():
        pytest.skip(f"automaton-hook is installed in {BARE_PATH}")
    assert run_install(home, "--project", str(user_repo), "--harness", "opencode").returncode == 0
    plugin = user_repo / ".opencode" / "plugin" / "automaton-guard.js"
    script = tmp_path / "try.mjs"
    script.write_text(OPENCODE_TRY.replace("PLUGIN", json.dumps(plugin.as_uri())))
    node = shutil.which("node")
    proc = subprocess.run(
        [str(node), str(script)],
        capture_output=True,
        text=True,
        env={"PATH": BARE_PATH, "HOME": ""},
        cwd=user_repo,
        timeout=60,
    )
    assert proc.returncode == 0, proc
    assert proc.stdout.startswith(f"ERROR: automaton-hook {MISSING}"), proc.stdout
    assert "pip install automaton-rules" in proc.stdout


# A stand-in for Bun's `$`: words, `${value}` one argument each, `< ${Response}` stdin.
OPENCODE_TRY = """
import { spawnSync } from "node:child_process";
const { AutomatonGuard } = await import(PLUGIN);
const $ = (strings, ...values) => {
  const chain = {
    nothrow: () => chain,
    quiet: () => chain,
    then: async (resolve) => {
      const argv = [];
      let input = null;
      strings.forEach((text, index) => {
        argv.push(...text.split(/\\s+/).filter(Boolean));
        if (index >= values.length) return;
        if (argv[argv.length - 1] === "<") { argv.pop(); input = values[index]; }
        else argv.push(String(values[index]));
      });
      const run = spawnSync(argv[0], argv.slice(1), { input: await input.text() });
      resolve({ exitCode: run.status, stdout: run.stdout, stderr: run.stderr });
    },
  };
  return chain;
};
const guard = await AutomatonGuard({ $, directory: process.cwd() });
try {
  await guard["tool.execute.before"]({ tool: "read" }, { args: { filePath: "x" } });
  console.log("ALLOWED");
} catch (error) {
  console.log(error.message);
}
"""


def test_a_settings_file_of_the_previous_release_is_upgraded_not_doubled(
    home: Path, user_repo: Path
) -> None:
    """The previous release wrote the venv's absolute path; the user then tuned a timeout.
    Installing again puts today's command in its place, keeps the timeout, adds no entry."""
    old = "/home/someone/venv/bin/automaton-hook"
    claude = json.loads(json.dumps(harnesses.get("claude").hooks()))
    for entries in claude["hooks"].values():
        entries[0]["hooks"][0]["command"] = f"{old} --harness claude"
    claude["hooks"]["PreToolUse"][0]["hooks"][0]["timeout"] = 20
    (user_repo / ".claude" / "settings.json").write_text(json.dumps(claude))
    cursor = json.loads(json.dumps(harnesses.get("cursor").hooks()))
    for entries in cursor["hooks"].values():
        entries[0]["command"] = f"'{old}' --harness cursor"
    (user_repo / ".cursor").mkdir()
    (user_repo / ".cursor" / "hooks.json").write_text(json.dumps(cursor))
    hook = git_hooks_dir(user_repo) / "pre-commit"
    hook.write_text(f"#!/bin/sh\n{install.MARKER}\nexec /old/bin/automaton-git-hook pre-commit\n")

    args = ("--project", str(user_repo), "--harness", "claude,cursor", "--git-hooks")
    assert run_install(home, *args).returncode == 0
    upgraded = json.loads((user_repo / ".claude" / "settings.json").read_text())
    expected = json.loads(json.dumps(harnesses.get("claude").hooks()))
    expected["hooks"]["PreToolUse"][0]["hooks"][0]["timeout"] = 20
    assert upgraded == expected
    assert (
        json.loads((user_repo / ".cursor" / "hooks.json").read_text())
        == harnesses.get("cursor").hooks()
    )
    assert "/old/bin" not in hook.read_text()
    assert install_files.LOOKUP in hook.read_text()
    again = run_install(home, *args)
    assert again.stdout == "nothing to change\n"


# --------------------------------------------------------------------------------------
# Agent instructions between markers
# --------------------------------------------------------------------------------------

USER_NOTES = "# Our project\r\n\r\nUse tabs.  \r\nNo trailing newline here"


def test_claude_md_gets_the_section_once_and_loses_it_on_uninstall(
    home: Path, user_repo: Path
) -> None:
    """Done when: installed twice, one section; uninstalled, the user's text byte for byte."""
    claude_md = user_repo / "CLAUDE.md"
    claude_md.write_bytes(USER_NOTES.encode() + b" caf\xe9")  # CRLF, no final newline, Latin-1
    claude_md.chmod(0o600)
    original = claude_md.read_bytes()
    args = ("--project", str(user_repo), "--harness", "claude")
    for _ in range(2):
        assert run_install(home, *args).returncode == 0
    text = claude_md.read_text(encoding="utf-8", errors="replace")
    assert text.count("<!-- automaton-rules:begin") == 1
    assert text.count("<!-- automaton-rules:end -->") == 1
    assert claude_md.read_bytes().startswith(original + b"\n<!-- automaton-rules:begin")
    section = install_files.instructions_section()
    for words in (
        "research → design → test_design → implement → bug_find",
        "python3 ~/.automaton/scripts/status.py --task NAME",
        "while no task is in implement or doc_review",
        "`.state`",
        "`status.py --approve`",
        "ask the user to approve: the user types `approve TASK`",
        "`approval` setting",
    ):
        assert words in section, words
    proc = run_install(home, *args, "--uninstall")
    assert proc.returncode == 0, proc
    assert f"updated {claude_md}" in proc.stdout
    assert claude_md.read_bytes() == original
    assert stat.S_IMODE(claude_md.stat().st_mode) == 0o600


@pytest.mark.parametrize("before", [None, "", "notes\n", "notes"], ids=repr)
def test_an_instructions_file_comes_back_as_it_was(
    home: Path, user_repo: Path, before: str | None
) -> None:
    """No file: made and removed again; an empty file stays; text with or without a final
    newline comes back exactly."""
    gemini_md = user_repo / "GEMINI.md"
    if before is not None:
        gemini_md.write_text(before)
    args = ("--project", str(user_repo), "--harness", "gemini")
    assert run_install(home, *args).returncode == 0
    assert install_files.instructions_section() in gemini_md.read_text()
    assert run_install(home, *args, "--uninstall").returncode == 0
    if before is None:
        assert not gemini_md.exists()
    else:
        assert gemini_md.read_text() == before


def test_agents_md_keeps_its_section_while_a_harness_still_reads_it(
    home: Path, user_repo: Path
) -> None:
    """AGENTS.md serves Codex, Cursor and opencode: it loses the section with the last."""
    project = ("--project", str(user_repo))
    assert run_install(home, *project, "--harness", "codex,cursor").returncode == 0
    agents = user_repo / "AGENTS.md"
    assert run_install(home, *project, "--harness", "codex", "--uninstall").returncode == 0
    assert install_files.instructions_section() in agents.read_text()
    assert (user_repo / ".automaton" / ".gitignore").exists()
    proc = run_install(home, *project, "--harness", "cursor", "--uninstall")
    assert proc.returncode == 0, proc
    assert not agents.exists()
    assert not (user_repo / ".automaton" / ".gitignore").exists()


def test_a_section_the_user_edited_is_put_back_in_place(home: Path, user_repo: Path) -> None:
    args = ("--project", str(user_repo), "--harness", "claude")
    claude_md = user_repo / "CLAUDE.md"
    claude_md.write_text("before\n")
    assert run_install(home, *args).returncode == 0
    claude_md.write_text(
        claude_md.read_text().replace("ask the user to approve", "approve it yourself") + "after\n"
    )
    assert run_install(home, *args).returncode == 0
    assert claude_md.read_text() == (
        "before\n\n" + install_files.instructions_section() + "after\n"
    )


def test_a_section_without_its_end_line_is_an_error_that_writes_nothing(
    home: Path, user_repo: Path
) -> None:
    claude_md = user_repo / "CLAUDE.md"
    claude_md.write_text("notes\n<!-- automaton-rules:begin -->\nhalf a section\n")
    before = files_with_modes(user_repo)
    proc = run_install(home, "--project", str(user_repo), "--harness", "claude")
    assert proc.returncode == 2, proc
    assert proc.stderr.startswith("ERROR: ")
    assert "automaton-rules:end" in proc.stderr
    assert files_with_modes(user_repo) == before
    assert not (home / ".automaton").exists()


# --------------------------------------------------------------------------------------
# .automaton/.gitignore
# --------------------------------------------------------------------------------------


def test_the_temporary_files_are_ignored_and_the_records_are_not(
    home: Path, user_repo: Path
) -> None:
    args = ("--project", str(user_repo), "--git-hooks")
    assert run_install(home, *args).returncode == 0
    tasks = ".automaton/tasks"
    ignored = [
        f"{tasks}/t/.state.tmp",
        f"{tasks}/t/.state.lock",
        f"{tasks}/t/.state.lock.tmp",
        f"{tasks}/.t.0a1b2c3d4e5f.creating/.state",
        f"{tasks}/p/subtasks/.s.0a1b2c3d4e5f.creating/.state",
        f"{tasks}/p/subtasks/s/.state.tmp",
    ]
    kept = [
        f"{tasks}/t/.state",
        f"{tasks}/t/.state.history",
        f"{tasks}/t/.state.approvals",
        f"{tasks}/t/.state.mutex",
        f"{tasks}/t/SPEC.md",
        ".automaton/.gitignore",
    ]
    proc = subprocess.run(
        ["git", "check-ignore", "--no-index", "--stdin"],
        input="\n".join(ignored + kept) + "\n",
        capture_output=True,
        text=True,
        cwd=user_repo,
        timeout=60,
    )
    assert proc.stdout.splitlines() == ignored
    assert run_install(home, *args, "--uninstall").returncode == 0
    assert not (user_repo / ".automaton" / ".gitignore").exists()
    assert (user_repo / ".automaton" / "tasks").is_dir()


def test_every_temporary_name_of_the_store_is_ignored() -> None:
    """The store's temporary names, read from its source: a new one must be added here."""
    source = (ROOT / "automaton_rules" / "core" / "store.py").read_text()
    assert '".state.tmp"' in source and 'f"{CLAIM}.tmp"' in source
    assert '.creating"' in source
    patterns = [pattern for pattern, _ in install_files.IGNORED]
    assert patterns == [".state.tmp", ".state.lock", ".state.lock.tmp", ".*.creating/"]
    assert ".state.mutex" not in install_files.gitignore_section().replace(
        ".state.mutex included", ""
    )


# --------------------------------------------------------------------------------------
# Git hooks in any project, where git takes them from
# --------------------------------------------------------------------------------------


def test_git_hooks_go_where_core_hooks_path_points(home: Path, user_repo: Path) -> None:
    subprocess.run(
        ["git", "-C", str(user_repo), "config", "core.hooksPath", ".githooks"],
        check=True,
        timeout=60,
    )
    args = ("--project", str(user_repo), "--git-hooks")
    proc = run_install(home, *args)
    assert proc.returncode == 0, proc
    for name in install.GIT_HOOKS:
        assert f"created {user_repo / '.githooks' / name}" in proc.stdout
        assert not (git_hooks_dir(user_repo) / name).exists()
    # A committed hooks folder names no path of this machine either.
    assert (
        str(Path(sys.executable).parent) not in (user_repo / ".githooks" / "pre-commit").read_text()
    )
    assert run_install(home, *args, "--uninstall").returncode == 0
    assert not any((user_repo / ".githooks").iterdir())


def git_in(user_repo: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """git as a person runs it here, the package's console scripts on PATH."""
    env = {
        **clean_env(user_repo.parent / "home"),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    return subprocess.run(
        ["git", "-c", "user.name=T", "-c", "user.email=t@example.com", *args],
        cwd=user_repo,
        env=env,
        capture_output=True,
        text=True,
        check=check,
        timeout=60,
    )


@pytest.fixture
def team_repo(home: Path, tmp_path: Path) -> Path:
    """A repository with code and one task in research, committed: the hooks are live."""
    folder = tmp_path / "team"
    folder.mkdir()
    git_in(folder, "init", "-q")
    (folder / "src").mkdir()
    (folder / "src" / "app.py").write_text("x = 1\n")
    (folder / "CLAUDE.md").write_text("# Team notes\n")
    git_in(folder, "add", "-A")
    git_in(folder, "commit", "-q", "-m", "initial")
    status = Path(sys.executable).parent / "automaton-status"
    subprocess.run(
        [str(status), "--create-task", "guarded", "--project", str(folder)],
        check=True,
        capture_output=True,
        env=clean_env(home),
        timeout=60,
    )
    assert (
        subprocess.run(
            [
                str(status),
                "--task",
                "guarded",
                "--transition",
                "research",
                "--project",
                str(folder),
            ],
            capture_output=True,
            env=clean_env(home),
            timeout=60,
        ).returncode
        == 0
    )
    git_in(folder, "add", "-A")
    git_in(folder, "commit", "-q", "-m", "the task")
    return folder


@pytest.mark.parametrize("markdown_is_source", [False, True])
def test_the_installers_files_commit_cleanly_through_the_installed_hooks(
    home: Path, team_repo: Path, markdown_is_source: bool
) -> None:
    """Done when: no task in an edit phase, and the installer's files still commit, and
    uninstalling commits too; code beside them does not."""
    if markdown_is_source:
        (team_repo / "automaton.toml").write_text('source-exclude = [".automaton/*"]\n')
        git_in(team_repo, "add", "automaton.toml")
        git_in(team_repo, "commit", "-q", "-m", "Markdown is source here")
    args = ("--project", str(team_repo), "--harness", "all", "--git-hooks")
    assert run_install(home, *args).returncode == 0
    git_in(team_repo, "add", "-A")
    staged = git_in(team_repo, "diff", "--cached", "--name-only").stdout.split()
    assert set(staged) == {
        ".automaton/.gitignore",
        ".claude/settings.json",
        ".codex/hooks.json",
        ".cursor/hooks.json",
        ".gemini/settings.json",
        ".github/hooks/automaton-rules.json",
        ".kiro/hooks/automaton-rules.json",
        ".opencode/plugin/automaton-guard.js",
        "AGENTS.md",
        "CLAUDE.md",
        "GEMINI.md",
    } | (set() if markdown_is_source else {"automaton.toml"})
    proc = git_in(team_repo, "commit", "-m", "adopt automaton-rules", check=False)
    assert proc.returncode == 0, proc.stderr

    (team_repo / "src" / "app.py").write_text("x = 2\n")
    git_in(team_repo, "add", "-A")
    refused = git_in(team_repo, "commit", "-m", "sneak", check=False)
    assert refused.returncode == 1
    assert "refusing to commit source files while no task is in implement" in refused.stderr
    git_in(team_repo, "reset", "-q", "--hard")

    # The user's own words in CLAUDE.md are source where Markdown is.
    claude_md = team_repo / "CLAUDE.md"
    claude_md.write_text(claude_md.read_text().replace("# Team notes", "# Team notes, edited"))
    git_in(team_repo, "add", "-A")
    edited = git_in(team_repo, "commit", "-m", "notes", check=False)
    assert edited.returncode == (1 if markdown_is_source else 0), edited.stderr
    git_in(team_repo, "reset", "-q", "--hard")

    # Taking the harnesses out again commits through the hooks, which stay.
    assert run_install(home, *args[:4], "--uninstall").returncode == 0
    assert claude_md.read_text().startswith("# Team notes")
    git_in(team_repo, "add", "-A")
    proc = git_in(team_repo, "commit", "-m", "drop the harnesses", check=False)
    assert proc.returncode == 0, proc.stderr
    assert (git_hooks_dir(team_repo) / "pre-commit").exists()


def test_with_no_task_at_all_only_code_is_refused_never_the_installers_files(
    home: Path, tmp_path: Path
) -> None:
    """The reported failure: 'refusing to commit source files while no task is in
    implement or doc_review phase … .claude/settings.json'. The installer's files are
    never in that list; code staged beside them still is."""
    folder = tmp_path / "fresh"
    (folder / ".automaton" / "tasks").mkdir(parents=True)
    git_in(folder, "init", "-q")
    (folder / "app.py").write_text("x = 1\n")
    args = ("--project", str(folder), "--harness", "all", "--git-hooks")
    assert run_install(home, *args).returncode == 0
    git_in(folder, "add", "-A")
    refused = git_in(folder, "commit", "-m", "everything", check=False)
    assert refused.returncode == 1
    assert "while no task is in implement or doc_review phase (tasks: none)" in refused.stderr
    listed = [line[4:] for line in refused.stderr.splitlines() if line.startswith("  - ")]
    assert listed == ["app.py"]
    git_in(folder, "reset", "-q", "app.py")
    proc = git_in(folder, "commit", "-m", "adopt automaton-rules", check=False)
    assert proc.returncode == 0, proc.stderr


def test_a_project_without_a_configuration_gets_one_and_loses_it_on_uninstall(
    home: Path, user_repo: Path
) -> None:
    """A configuration that does not exist is one code in an edit phase could create, and
    no sandbox can keep one name in a writable folder read-only (docs/sandbox.md)."""
    proc = run_install(home, "--project", str(user_repo), "--harness", "claude")
    assert f"wrote {user_repo / 'automaton.toml'}" in proc.stdout.splitlines()
    assert (user_repo / "automaton.toml").read_text() == install.CONFIGURATION
    proc = run_install(home, "--project", str(user_repo), "--harness", "claude", "--uninstall")
    assert f"removed {user_repo / 'automaton.toml'}" in proc.stdout.splitlines()
    (user_repo / "pyproject.toml").write_text('[tool.automaton]\napproval = "prompt"\n')
    run_install(home, "--project", str(user_repo), "--harness", "claude")
    assert not (user_repo / "automaton.toml").exists()  # the configuration is in pyproject.toml


def test_the_installer_warns_of_a_guard_file_with_a_second_link(
    home: Path, user_repo: Path, tmp_path: Path
) -> None:
    (user_repo / "automaton.toml").write_text("# mine\n")
    os.link(user_repo / "automaton.toml", tmp_path / "elsewhere")
    proc = run_install(home, "--project", str(user_repo), "--harness", "claude")
    assert (
        f"warning: {user_repo / 'automaton.toml'} has 2 hard links; remove the others "
        f"(find / -xdev -samefile {user_repo / 'automaton.toml'}): through them it can be "
        "changed from anywhere"
    ) in proc.stdout.splitlines()


def test_a_fresh_adoption_audits_clean_before_its_first_task(home: Path, tmp_path: Path) -> None:
    """Day one: the installer makes the project one (`.automaton/tasks/`), says `created`
    for what it made, and the CI audit of the project, and of a fresh clone (where git kept
    no empty tasks folder), is clean: exit 0, not 'Pass --project'."""
    project = tmp_path / "fresh"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True, timeout=60)
    proc = run_install(home, "--project", str(project), "--harness", "claude")
    assert proc.returncode == 0, proc
    lines = proc.stdout.splitlines()
    assert f"created {project / '.automaton' / 'tasks'}{os.sep}" in lines
    assert f"created {project / '.claude' / 'settings.json'}" in lines  # not "updated"
    assert f"created {project / 'CLAUDE.md'}" in lines
    assert not [line for line in lines if line.startswith("updated ")]
    status = [sys.executable, str(ROOT / "status.py")]

    def audited(folder: Path) -> subprocess.CompletedProcess[str]:
        args = [*status, "--audit", "--project", str(folder)]
        return subprocess.run(args, capture_output=True, text=True, timeout=60)

    for folder in (project, _cloned_without_empty_folders(project, tmp_path / "clone")):
        result = audited(folder)
        assert result.returncode == 0, result.stdout + result.stderr
        assert "0 tasks audited" in result.stdout.splitlines()
    # Changed by a later run: `updated`.
    (project / "CLAUDE.md").write_text("# Notes\n")
    again = run_install(home, "--project", str(project), "--harness", "claude")
    assert again.stdout.splitlines() == [f"updated {project / 'CLAUDE.md'}"]


def _cloned_without_empty_folders(project: Path, clone: Path) -> Path:
    """What a fresh clone of `project` holds once its installer files are committed."""
    subprocess.run(["git", "-C", str(project), "add", "-A"], check=True, timeout=60)
    subprocess.run(
        [
            "git",
            "-C",
            str(project),
            "-c",
            "user.name=T",
            "-c",
            "user.email=t@example.com",
            "commit",
            "-q",
            "--no-verify",
            "-m",
            "adopt",
        ],
        check=True,
        timeout=60,
    )
    subprocess.run(["git", "clone", "-q", str(project), str(clone)], check=True, timeout=60)
    assert (clone / ".automaton").is_dir() and not (clone / ".automaton" / "tasks").exists()
    return clone
