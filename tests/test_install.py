"""automaton-install: status.py where the agents call it, hooks where they fire.

Run as a console script in a subprocess with HOME set to a temporary folder, so the
real home is never touched. Idempotent (a second run changes no byte) and reversible
(--uninstall gives back the user's settings exactly). What it commits for a team, and git
hooks wherever git takes them from, are tests/test_install_team.py.
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
from helpers import (
    LAUNCHED,
    ROOT,
    SCRIPT_CALL,
    USER_CLAUDE,
    USER_GEMINI,
    clean_env,
    files_with_modes,
    git_hooks_dir,
    run_install,
)

from automaton_rules.cli import install, install_files
from automaton_rules.guards.hooks import harnesses, lookup
from automaton_rules.guards.hooks import settings as hook_settings

# The harnesses whose hooks go into a JSON settings file (all but opencode's plugin).
JSON_SETTINGS = [record for record in harnesses.HARNESSES.values() if record.hooks()]

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
    # The command names no path of this machine: a team commits it as it is, with the
    # launcher it sources.
    command = pre[1]["hooks"][0]["command"]
    assert (
        command
        == f"sh -c '{lookup.prologue('CLAUDE_PROJECT_DIR')}' automaton-hook --harness claude"
    )
    launcher = (user_repo / ".automaton" / "hook.sh").read_text()
    assert launcher == install_files.hook_launcher()

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
    packaged = (
        resources.files("automaton_rules.guards.hooks").joinpath("opencode_plugin.js").read_text()
    )
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
        str(user_repo / ".automaton" / "hook.sh"),  # what the hook commands run
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
    packaged = (
        resources.files("automaton_rules.guards.hooks").joinpath("opencode_plugin.js").read_bytes()
    )
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
