"""automaton-install in a team's repository: the settings it commits name no machine's
path, and a machine without the tool refuses rather than lets everything through; the git
hooks go wherever git takes them from, and the installer's own files commit through them.

Run as a console script in a subprocess with HOME set to a temporary folder, so the
real home is never touched (tests/test_install.py installs and uninstalls).
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import LAUNCHED, ROOT, clean_env, git_hooks_dir, launcher_folder, run_install

from automaton_rules.cli import install, install_files
from automaton_rules.guards.hooks import harnesses
from automaton_rules.guards.hooks import settings as hook_settings

# The harnesses whose hooks go into a JSON settings file (all but opencode's plugin).
JSON_SETTINGS = [record for record in harnesses.HARNESSES.values() if record.hooks()]

# --------------------------------------------------------------------------------------
# Settings a team commits: no machine's path, and a machine without the tool refuses
# --------------------------------------------------------------------------------------

BARE_PATH = "/usr/bin:/bin"
MISSING = "is not installed on this machine"
# What `--harness all` commits: 8 Claude, 6 Codex, 5 Gemini, 6 Cursor, 7 GitHub Copilot
# CLI, 3 Kiro CLI, 5 Factory Droid, 5 Qwen Code.
ALL_COMMANDS = 45


def committed_commands(user_repo: Path) -> list[str]:
    """Every hook command the installed JSON configurations hold."""
    found = []
    for record in JSON_SETTINGS:
        path = user_repo / record.settings_file
        if path.exists():
            found += hook_settings.commands(json.loads(path.read_text()))
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
    assert len(commands) == ALL_COMMANDS
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


NO_LAUNCHER = (
    "ERROR: no readable .automaton/hook.sh in this project (automaton-install writes it); refused."
)


def _every_committed_command_refuses(
    user_repo: Path, cwd: Path, said: str, env: dict[str, str] | None = None
) -> None:
    """Each installed hook command, run from `cwd` as its harness runs it, refuses with
    `said` alone: exit 2, or Copilot's JSON deny on exit 0; a stop hook lets the agent stop."""
    commands = committed_commands(user_repo)
    assert len(commands) == ALL_COMMANDS
    for command in commands:
        done = run_detached(["sh", "-c", command], {"PATH": BARE_PATH, **(env or {})}, cwd)
        copilot = "--harness copilot" in command
        if copilot:
            assert done.returncode == 0, (command, done)
            answer = {"permissionDecision": "deny", "permissionDecisionReason": said}
            assert json.loads(done.stdout) == answer, command
        else:
            assert done.returncode == (0 if command.endswith(" || true") else 2), (command, done)
            assert (done.stdout, done.stderr) == ("", said + "\n"), command


@pytest.mark.parametrize("how", ["removed", "a folder", "a dangling link", "unreadable"])
def test_without_its_launcher_every_committed_command_refuses(
    home: Path, user_repo: Path, how: str
) -> None:
    """Issue 28: the hook commands source `.automaton/hook.sh`; where it is gone or cannot
    be read, each still refuses, with one ERROR line that names it."""
    assert run_install(home, "--project", str(user_repo), "--harness", "all").returncode == 0
    launcher = user_repo / ".automaton" / "hook.sh"
    launcher.unlink()
    if how == "a folder":
        launcher.mkdir()
    elif how == "a dangling link":
        launcher.symlink_to(user_repo / "gone.sh")
    elif how == "unreadable":
        if os.geteuid() == 0:
            pytest.skip("running as root: chmod 000 does not deny reads")
        launcher.write_text("exit 0\n")
        launcher.chmod(0)
    _every_committed_command_refuses(user_repo, user_repo, NO_LAUNCHER, {"HOME": str(home)})


def test_run_outside_the_project_every_committed_command_refuses(
    home: Path, user_repo: Path, tmp_path: Path
) -> None:
    """A hook run in a folder outside the project, with no project folder named for it,
    finds no launcher: a refusal, never a pass."""
    assert run_install(home, "--project", str(user_repo), "--harness", "all").returncode == 0
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    _every_committed_command_refuses(user_repo, outside, NO_LAUNCHER, {"HOME": str(home)})


def test_a_relative_project_folder_is_a_refusal_not_a_hang(home: Path, user_repo: Path) -> None:
    """A project variable that is not an absolute path is searched no further: a hook
    that hung would meet the harness's timeout, which lets the action through."""
    assert run_install(home, "--project", str(user_repo), "--harness", "all").returncode == 0
    env = {"HOME": str(home), "CLAUDE_PROJECT_DIR": "proj", "GEMINI_PROJECT_DIR": "proj",
           "COPILOT_PROJECT_DIR": "proj"}  # fmt: skip
    for command in committed_commands(user_repo):
        if "--harness claude" in command or "--harness gemini" in command:
            done = run_detached(["sh", "-c", command], {"PATH": BARE_PATH, **env}, user_repo)
            stops = command.endswith(" || true")
            assert (done.returncode, done.stderr) == (0 if stops else 2, NO_LAUNCHER + "\n")


def test_run_in_a_subfolder_the_committed_command_finds_the_projects_launcher(
    home: Path, user_repo: Path
) -> None:
    """A hook whose working folder is inside the project (an agent's `cd`) runs the
    project's launcher, never one planted in a folder the agent may write: the outermost
    one wins."""
    if _tool_on_bare_path():
        pytest.skip(f"automaton-hook is installed in {BARE_PATH}")
    assert run_install(home, "--project", str(user_repo), "--harness", "all").returncode == 0
    planted = user_repo / "src" / "deep" / ".automaton" / "hook.sh"
    planted.parent.mkdir(parents=True)
    planted.write_text("echo planted; exit 0\n")
    missing = (
        f"ERROR: automaton-hook {MISSING} (not on PATH, not in ~/.automaton/bin). Install "
        "it: pip install automaton-rules, then automaton-install --project . in this project "
        "(automaton-rules: docs/adopting.md)"
    )
    _every_committed_command_refuses(user_repo, planted.parent.parent, missing, {"HOME": ""})


@pytest.mark.parametrize("named", [False, True], ids=["no project folder named", "named"])
def test_a_launcher_planted_above_the_project_is_never_run(
    home: Path, user_repo: Path, named: bool
) -> None:
    """A shell line inside the sandbox may write the shared temporary folders (/tmp,
    /dev/shm): a launcher planted in one above a project there is never sourced, nor one
    above the project folder a harness names. With the project's own gone, a refusal."""
    assert run_install(home, "--project", str(user_repo), "--harness", "all").returncode == 0
    (user_repo / ".automaton" / "hook.sh").unlink()
    shared = user_repo.parent
    shared.chmod(0o1777)  # sticky, as /tmp is
    planted = shared / ".automaton" / "hook.sh"
    planted.parent.mkdir()
    planted.write_text("echo planted; exit 0\n")
    variables = ("CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR", "COPILOT_PROJECT_DIR")
    env = {"HOME": str(home), **({name: str(user_repo) for name in variables} if named else {})}
    _every_committed_command_refuses(user_repo, user_repo, NO_LAUNCHER, env)


@pytest.mark.parametrize(("harness", "variable"), [("claude", "CLAUDE_PROJECT_DIR"),
                                                   ("gemini", "GEMINI_PROJECT_DIR")])  # fmt: skip
def test_the_project_folder_the_harness_names_is_where_its_launcher_is_found(
    home: Path, user_repo: Path, tmp_path: Path, harness: str, variable: str
) -> None:
    """Claude Code and Gemini CLI name the project folder for their hooks: run from any
    folder, the command runs the project's launcher, and the guard answers."""
    assert run_install(home, "--project", str(user_repo), "--harness", harness).returncode == 0
    state = user_repo / ".automaton" / "tasks" / "t" / ".state"
    tool = "Write" if harness == "claude" else "write_file"
    event = {"hook_event_name": "PreToolUse" if harness == "claude" else "BeforeTool",
             "cwd": str(user_repo), "tool_name": tool,
             "tool_input": {"file_path": str(state), "content": "x"}}  # fmt: skip
    [command, *_] = committed_commands(user_repo)
    env = {"PATH": BARE_PATH, "HOME": str(home), variable: str(user_repo)}
    proc = subprocess.run(
        ["sh", "-c", command], input=json.dumps(event), capture_output=True, text=True,
        env=env, cwd=tmp_path, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 0, proc
    assert "is workflow state: only status.py writes" in proc.stdout, proc


def test_the_committed_command_is_short_and_names_the_launcher(home: Path, user_repo: Path) -> None:
    """What a person reads in the committed settings (and Claude Code shows the model on
    a crash): a few words that find `.automaton/hook.sh`, not the whole lookup."""
    assert run_install(home, "--project", str(user_repo), "--harness", "all").returncode == 0
    for command in committed_commands(user_repo):
        assert ".automaton/hook.sh" in command
        assert "command -v" not in command  # the lookup is in the launcher
        assert len(command) < 500, command  # half the old lookup; Copilot's with its JSON deny
    launcher = (user_repo / ".automaton" / "hook.sh").read_text()
    assert launcher.startswith(install.MARKER)
    assert launcher == (ROOT / "integrations" / "hook.sh").read_text()


def test_a_crashing_hook_tells_copilot_the_reason(tmp_path: Path) -> None:
    """Issue 28: on a crash Copilot showed the model only "Denied by preToolUse hook: hook
    exited with code 2". The committed command now gives the reason as a JSON deny, which
    stays well formed whatever the crash printed."""
    from automaton_rules.guards.hooks import harnesses

    fake = tmp_path / "bin" / "automaton-hook"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\necho 'Traceback: \"quoted\" \\\\ \tand' >&2\nexit 1\n")
    fake.chmod(0o755)
    command = harnesses.get("copilot").copilot_entry("preToolUse", 10)["bash"]
    done = subprocess.run(
        ["sh", "-c", command],
        env={"PATH": f"{fake.parent}:/usr/bin:/bin", "HOME": str(tmp_path)},
        cwd=launcher_folder(),
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
            cwd=user_repo,
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
    command = harnesses.get("claude").command()
    env = {"PATH": f"{folder}:{BARE_PATH}", "HOME": ""}
    proc = run_detached(["sh", "-c", command], env, launcher_folder())
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
    command = harnesses.get("codex").command()
    env = {"PATH": f"{folder}:{BARE_PATH}", "HOME": ""}
    proc = subprocess.run(
        ["sh", "-c", command], input="EVENT", capture_output=True, text=True, env=env,
        cwd=launcher_folder(), timeout=60,
    )  # fmt: skip
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
    command = harnesses.get("claude").command()
    env = {"PATH": f"{folder}:{BARE_PATH}", "HOME": ""}
    proc = run_detached(["sh", "-c", command], env, launcher_folder())
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
    command = harnesses.get("claude").command()
    env = {"PATH": BARE_PATH, "HOME": str(home)}
    proc = run_detached(["sh", "-c", command], env, launcher_folder())
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


def test_the_previous_releases_inline_lookup_is_upgraded_to_the_launcher(
    home: Path, user_repo: Path
) -> None:
    """The release before wrote the whole lookup into every command (`sh -c '…900
    characters…' automaton-hook --harness claude`): installing again puts the short
    command and the launcher in its place, and adds no entry."""
    old = f"sh -c '{install_files.HOOK_LOOKUP}' automaton-hook --harness claude"
    claude = json.loads(json.dumps(harnesses.get("claude").hooks()))
    for entries in claude["hooks"].values():
        entries[0]["hooks"][0]["command"] = old
    (user_repo / ".claude" / "settings.json").write_text(json.dumps(claude))
    assert run_install(home, "--project", str(user_repo), "--harness", "claude").returncode == 0
    upgraded = json.loads((user_repo / ".claude" / "settings.json").read_text())
    assert upgraded == harnesses.get("claude").hooks()
    assert (user_repo / ".automaton" / "hook.sh").read_text() == install_files.hook_launcher()


def test_uninstall_removes_the_launcher_with_the_last_harness(home: Path, user_repo: Path) -> None:
    launcher = user_repo / ".automaton" / "hook.sh"
    assert (
        run_install(home, "--project", str(user_repo), "--harness", "claude,codex").returncode == 0
    )
    assert launcher.exists()
    args = ("--project", str(user_repo), "--uninstall")
    assert run_install(home, *args, "--harness", "claude").returncode == 0
    assert launcher.exists()  # Codex's hooks still run it
    proc = run_install(home, *args, "--harness", "codex")
    assert f"removed {launcher}" in proc.stdout.splitlines()
    assert not launcher.exists()


def test_a_launcher_that_is_not_the_installers_stops_the_install(
    home: Path, user_repo: Path
) -> None:
    """Every hook would source it: the installer neither runs over it nor leaves it."""
    launcher = user_repo / ".automaton" / "hook.sh"
    launcher.write_text("exit 0\n")
    proc = run_install(home, "--project", str(user_repo), "--harness", "claude")
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"ERROR: {launcher} is not automaton-install's"), proc.stderr
    assert launcher.read_text() == "exit 0\n"
    assert "automaton-hook" not in (user_repo / ".claude" / "settings.json").read_text()


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
        ".automaton/hook.sh",
        ".claude/settings.json",
        ".codex/hooks.json",
        ".cursor/hooks.json",
        ".factory/hooks.json",
        ".gemini/settings.json",
        ".github/hooks/automaton-rules.json",
        ".kiro/hooks/automaton-rules.json",
        ".opencode/plugin/automaton-guard.js",
        ".qwen/settings.json",
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
