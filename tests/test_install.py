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
import shutil
import stat
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest
from conftest import ROOT

from automaton_rules.cli import install

INSTALL = Path(sys.executable).parent / "automaton-install"
SCRIPT_CALL = "python ~/.automaton/scripts/status.py"

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


def clean_env(home: Path) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("PYTHONPATH", "AUTOMATON_REEXEC", "AUTOMATON_AGENT", "PYTHONHOME")
    }
    env["HOME"] = str(home)
    return env


def run_install(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(INSTALL), *args],
        capture_output=True,
        text=True,
        env=clean_env(home),
        cwd=home,
        timeout=60,
    )


def snapshot(*folders: Path) -> dict[str, tuple[bytes, int]]:
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
def repo(tmp_path: Path) -> Path:
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


def git_hooks_dir(repo: Path) -> Path:
    return repo / ".git" / "hooks"


# --------------------------------------------------------------------------------------
# ~/.automaton/scripts/status.py
# --------------------------------------------------------------------------------------


def test_install_writes_the_status_script(home: Path) -> None:
    proc = run_install(home)
    assert proc.returncode == 0, proc
    script = home / ".automaton" / "scripts" / "status.py"
    assert proc.stdout == f"wrote {script}\n"
    assert script.is_file()
    assert os.access(script, os.X_OK)
    assert install.MARKER in script.read_text()


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


def test_a_status_script_that_is_not_ours_is_kept(home: Path, repo: Path) -> None:
    script = home / ".automaton" / "scripts" / "status.py"
    script.parent.mkdir(parents=True)
    script.write_text("#!/usr/bin/env python3\nprint('my own status script')\n")
    original = script.read_bytes()
    proc = run_install(home)
    assert proc.returncode == 0, proc
    assert proc.stdout == f"kept {script} (not written by automaton-install)\n"
    assert script.read_bytes() == original
    proc = run_install(home, "--uninstall")
    assert proc.returncode == 0, proc
    assert script.read_bytes() == original


# --------------------------------------------------------------------------------------
# Harness and git hooks into a project
# --------------------------------------------------------------------------------------


def test_install_all_harnesses_and_git_hooks(home: Path, repo: Path) -> None:
    proc = run_install(home, "--project", str(repo), "--harness", "all", "--git-hooks")
    assert proc.returncode == 0, proc
    assert proc.stderr == ""

    claude = json.loads((repo / ".claude" / "settings.json").read_text())
    assert claude["permissions"] == USER_CLAUDE["permissions"]
    assert claude["model"] == "opus"
    assert claude["hooks"]["PostToolUse"] == USER_CLAUDE["hooks"]["PostToolUse"]
    pre = claude["hooks"]["PreToolUse"]
    assert pre[0] == USER_CLAUDE["hooks"]["PreToolUse"][0]
    # The command names the console script by absolute path, so a PATH without it
    # cannot make the harness skip the hook.
    assert pre[1:] == install._bound(install.HARNESS_CONFIGS["claude"][1])["hooks"]["PreToolUse"]
    assert (
        pre[1]["hooks"][0]["command"]
        == f"{sys.executable.rsplit('/', 1)[0]}/automaton-hook --harness claude"
    )

    gemini = json.loads((repo / ".gemini" / "settings.json").read_text())
    assert {k: gemini[k] for k in USER_GEMINI} == USER_GEMINI
    assert gemini["hooks"] == install._bound(install.HARNESS_CONFIGS["gemini"][1])["hooks"]

    for harness in ("codex", "cursor"):
        relative, ours = install.HARNESS_CONFIGS[harness]
        assert json.loads((repo / relative).read_text()) == install._bound(ours), harness

    # The user-prompt hook of each harness, where `approve TASK` is the user's approval.
    prompt_hooks = {
        ".claude/settings.json": "UserPromptSubmit",
        ".codex/hooks.json": "UserPromptSubmit",
        ".gemini/settings.json": "BeforeAgent",
        ".cursor/hooks.json": "beforeSubmitPrompt",
    }
    for relative, event in prompt_hooks.items():
        assert "automaton-hook --harness" in json.dumps(
            json.loads((repo / relative).read_text())["hooks"][event]
        ), relative

    plugin = repo / ".opencode" / "plugin" / "automaton-guard.js"
    packaged = resources.files("automaton_rules.guards").joinpath("opencode_plugin.js").read_text()
    first, _, body = plugin.read_text().partition("\n")
    # The packaged plugin, calling automaton-hook by absolute path as the JSON files do.
    hook = f"{sys.executable.rsplit('/', 1)[0]}/automaton-hook"
    assert body == packaged.replace('"automaton-hook"', json.dumps(hook), 1)
    assert first.startswith("// installed by automaton-install (sha256 ")
    assert '"chat.message"' in body

    hooks = git_hooks_dir(repo)
    for name, command in (
        ("pre-commit", "automaton-git-hook pre-commit"),
        ("pre-merge-commit", "automaton-git-hook pre-merge-commit"),
        ("commit-msg", 'automaton-git-hook commit-msg "$1"'),
    ):
        text = (hooks / name).read_text()
        assert text.startswith("#!/bin/sh\n"), name
        bin_dir = sys.executable.rsplit("/", 1)[0]
        assert f"exec {bin_dir}/{command}\n" in text
        assert os.access(hooks / name, os.X_OK)

    script = home / ".automaton" / "scripts" / "status.py"
    assert script.is_file()
    for path in (
        script,
        repo / ".claude" / "settings.json",
        repo / ".codex" / "hooks.json",
        repo / ".gemini" / "settings.json",
        repo / ".cursor" / "hooks.json",
        plugin,
        hooks / "pre-commit",
        hooks / "pre-merge-commit",
        hooks / "commit-msg",
    ):
        assert str(path) in proc.stdout, path


def test_second_run_changes_nothing(home: Path, repo: Path) -> None:
    args = ("--project", str(repo), "--harness", "all", "--git-hooks")
    assert run_install(home, *args).returncode == 0
    before = snapshot(home, repo)
    proc = run_install(home, *args)
    assert proc.returncode == 0, proc
    assert proc.stdout == "nothing to change\n"
    assert snapshot(home, repo) == before


def test_uninstall_restores_the_users_settings(home: Path, repo: Path) -> None:
    before_files = snapshot(repo)
    args = ("--project", str(repo), "--harness", "all", "--git-hooks")
    assert run_install(home, *args).returncode == 0
    proc = run_install(home, *args, "--uninstall")
    assert proc.returncode == 0, proc

    assert json.loads((repo / ".claude" / "settings.json").read_text()) == USER_CLAUDE
    assert json.loads((repo / ".gemini" / "settings.json").read_text()) == USER_GEMINI
    for created in (
        repo / ".codex" / "hooks.json",
        repo / ".cursor" / "hooks.json",
        repo / ".opencode" / "plugin" / "automaton-guard.js",
        git_hooks_dir(repo) / "pre-commit",
        git_hooks_dir(repo) / "pre-merge-commit",
        git_hooks_dir(repo) / "commit-msg",
    ):
        assert not created.exists(), created
    # The shared status.py serves every project: only a global uninstall removes it.
    assert (home / ".automaton" / "scripts" / "status.py").exists()
    # No other file appeared or vanished.
    assert set(snapshot(repo)) == set(before_files)

    again = run_install(home, *args, "--uninstall")
    assert again.returncode == 0, again
    assert again.stdout == "nothing to change\n"


def test_uninstall_keeps_hooks_the_user_added_after_install(home: Path, repo: Path) -> None:
    args = ("--project", str(repo), "--harness", "claude")
    assert run_install(home, *args).returncode == 0
    path = repo / ".claude" / "settings.json"
    settings = json.loads(path.read_text())
    extra = {"matcher": "Read", "hooks": [{"type": "command", "command": "audit-reads"}]}
    settings["hooks"]["PreToolUse"].append(extra)
    path.write_text(json.dumps(settings))
    assert run_install(home, *args, "--uninstall").returncode == 0
    after = json.loads(path.read_text())
    assert after["hooks"]["PreToolUse"] == [*USER_CLAUDE["hooks"]["PreToolUse"], extra]
    assert after["permissions"] == USER_CLAUDE["permissions"]


def test_a_git_hook_that_is_not_ours_is_kept(home: Path, repo: Path) -> None:
    hook = git_hooks_dir(repo) / "pre-commit"
    hook.write_text("#!/bin/sh\necho my own checks\n")
    hook.chmod(0o755)
    original = hook.read_bytes()
    proc = run_install(home, "--project", str(repo), "--git-hooks")
    assert proc.returncode == 0, proc
    assert f"kept {hook}" in proc.stdout
    assert hook.read_bytes() == original
    assert (git_hooks_dir(repo) / "commit-msg").is_file()
    assert run_install(home, "--project", str(repo), "--git-hooks", "--uninstall").returncode == 0
    assert hook.read_bytes() == original
    assert not (git_hooks_dir(repo) / "commit-msg").exists()


def test_single_harness_touches_only_its_file(home: Path, repo: Path) -> None:
    before = snapshot(repo)
    proc = run_install(home, "--project", str(repo), "--harness", "codex")
    assert proc.returncode == 0, proc
    after = snapshot(repo)
    assert set(after) - set(before) == {str(repo / ".codex" / "hooks.json")}
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
def test_bad_arguments_exit_2_and_write_nothing(home: Path, repo: Path, args) -> None:
    before = snapshot(repo)
    full = ("--project", str(repo), *args) if args[0] != "--project" else args
    proc = run_install(home, *full)
    assert proc.returncode == 2, proc
    assert proc.stderr.startswith("ERROR: "), proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (home / ".automaton").exists()
    assert snapshot(repo) == before


def test_bad_harness_name_is_named(home: Path, repo: Path) -> None:
    proc = run_install(home, "--project", str(repo), "--harness", "vscode")
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
    expected = {
        f"{harness}/{Path(relative).name}"
        for harness, (relative, _) in install.HARNESS_CONFIGS.items()
    }
    assert shipped == expected
    for harness, (relative, ours) in install.HARNESS_CONFIGS.items():
        path = ROOT / "integrations" / harness / Path(relative).name
        assert json.loads(path.read_text()) == ours, harness


def test_integration_opencode_plugin_is_the_packaged_plugin() -> None:
    shipped = (ROOT / "integrations" / "opencode" / "automaton-guard.js").read_bytes()
    packaged = resources.files("automaton_rules.guards").joinpath("opencode_plugin.js").read_bytes()
    assert shipped == packaged
    assert install.OPENCODE_PLUGIN.endswith("/automaton-guard.js")


def test_uninstall_without_a_project_removes_the_shared_script(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home)}
    installer = str(Path(sys.executable).parent / "automaton-install")
    subprocess.run([installer], env=env, check=True, capture_output=True)
    script = home / ".automaton" / "scripts" / "status.py"
    assert script.exists()
    proc = subprocess.run(
        [installer, "--uninstall"], env=env, check=True, capture_output=True, text=True
    )
    assert f"removed {script}" in proc.stdout
    assert not script.exists()


# --------------------------------------------------------------------------------------
# The opencode plugin: a changed copy is the user's
# --------------------------------------------------------------------------------------


def test_a_changed_opencode_plugin_is_never_overwritten_or_removed(home: Path, repo: Path) -> None:
    args = ("--project", str(repo), "--harness", "opencode")
    assert run_install(home, *args).returncode == 0
    plugin = repo / ".opencode" / "plugin" / "automaton-guard.js"
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


def test_an_opencode_plugin_of_the_users_own_is_kept(home: Path, repo: Path) -> None:
    plugin = repo / ".opencode" / "plugin" / "automaton-guard.js"
    plugin.parent.mkdir(parents=True)
    plugin.write_text("// my own guard\nexport default {};\n")
    args = ("--project", str(repo), "--harness", "opencode")
    for extra in ((), ("--uninstall",)):
        proc = run_install(home, *args, *extra)
        assert proc.returncode == 0, proc
        assert f"kept {plugin}" in proc.stdout
        assert plugin.read_text() == "// my own guard\nexport default {};\n"


def test_an_unchanged_opencode_plugin_is_updated_and_removed(home: Path, repo: Path) -> None:
    """A copy written by an older release, unchanged since, is ours to replace and remove."""
    plugin = repo / ".opencode" / "plugin" / "automaton-guard.js"
    plugin.parent.mkdir(parents=True)
    old_body = "// an older release of the plugin\n"
    digest = hashlib.sha256(old_body.encode()).hexdigest()
    plugin.write_text(
        f"{install.OPENCODE_MARKER} (sha256 {digest}); a changed copy is kept\n{old_body}"
    )
    args = ("--project", str(repo), "--harness", "opencode")
    proc = run_install(home, *args)
    assert proc.returncode == 0, proc
    assert plugin.read_text() == install.opencode_plugin()
    assert run_install(home, *args, "--uninstall").returncode == 0
    assert not plugin.exists()
    assert not (repo / ".opencode").exists()
