"""Safety of the tool itself: no shell strings anywhere, plugins only from configured places.

The guard runs on every edit and every commit, so it must not be the way in: a task
name, a path or a file dropped in the project never reaches a shell, and no Python file
in the project or its tasks is imported unless the configuration names it.
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT, STATUS_PY, Project

from automaton_rules.cli import install

SHIPPED = [
    *sorted((ROOT / "automaton_rules").rglob("*.py")),
    STATUS_PY,
    *sorted(p for p in (ROOT / "githooks").iterdir() if p.is_file()),
    *sorted(p for p in (ROOT / "integrations").rglob("*") if p.is_file()),
    ROOT / "automaton_rules" / "guards" / "hooks" / "opencode_plugin.js",
]
SPAWNERS = {
    "subprocess.run",
    "subprocess.Popen",
    "subprocess.call",
    "subprocess.check_call",
    "subprocess.check_output",
}
# Whatever starts a program through a shell, in any of the shipped languages.
SHELL_TEXT = re.compile(
    r"shell\s*[=:]\s*[Tt]rue|os\.system\(|os\.popen\(|getoutput\(|getstatusoutput\("
    r"|execSync\(|\beval\b|\bexec\(\s*[`'\"]"
)


def _dotted(node: ast.AST, aliases: dict[str, str]) -> str:
    """`subprocess.run` for `subprocess.run(...)`, `run(...)` after `from subprocess import run`."""
    if isinstance(node, ast.Name):
        return aliases.get(node.id, node.id)
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value, aliases)}.{node.attr}"
    return ""


def _stringy(node: ast.AST) -> bool:
    """An expression that builds a string: a command line for a shell to split."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.BinOp):
        return _stringy(node.left) or _stringy(node.right)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node.func.attr in ("format", "join") and _stringy(node.func.value)
    return False


def shell_calls(source: str) -> list[str]:
    """Every call that starts a program from a string or through a shell, by line."""
    tree = ast.parse(source)
    aliases = {
        alias.asname or alias.name: f"{node.module}.{alias.name}"
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module in ("subprocess", "os")
        for alias in node.names
    }
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = _dotted(node.func, aliases)
        first = node.args[0] if node.args else None
        first = next((k.value for k in node.keywords if k.arg == "args"), first)
        shell = [k for k in node.keywords if k.arg == "shell"]
        if name in ("os.system", "os.popen") or name.startswith("os.spawn"):
            found.append(f"line {node.lineno}: {name}")
        elif name in SPAWNERS and (
            (first is not None and _stringy(first))
            or any(
                not (isinstance(k.value, ast.Constant) and k.value.value is False) for k in shell
            )
        ):
            found.append(f"line {node.lineno}: {name} with a command string or shell")
        elif name.startswith("os.exec") and len(node.args) > 1 and _stringy(node.args[1]):
            found.append(f"line {node.lineno}: {name} with a string")
    return found


@pytest.mark.parametrize(
    "source",
    [
        "import subprocess\nsubprocess.run('git status', check=True)\n",
        "import subprocess\nsubprocess.run(['git'], shell=True)\n",
        "import subprocess\nsubprocess.Popen(f'git -C {root} log')\n",
        "from subprocess import check_output as co\nco('ls ' + path)\n",
        "import subprocess\nsubprocess.call(args='ls -l')\n",
        "import os\nos.system('ls')\n",
        "from os import popen\npopen('ls')\n",
        "import subprocess\nsubprocess.run(' '.join(argv))\n",
    ],
)
def test_the_checker_sees_shell_strings(source: str) -> None:
    assert shell_calls(source), source


def test_the_checker_accepts_argument_lists() -> None:
    source = (
        "import subprocess, os\n"
        "subprocess.run(['git', '-C', str(root), *args], check=False)\n"
        "subprocess.Popen(_argv(root, args), stdin=subprocess.DEVNULL)\n"
        "os.execv(exe, [exe, __file__])\n"
    )
    assert shell_calls(source) == []


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_shell_string_in_what_ships(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    found = SHELL_TEXT.findall(text)
    if path.suffix == ".py":  # the shell reader names bash's `eval` as data; Python's is a call
        found = [hit for hit in found if hit != "eval"] + re.findall(r"\beval\s*\(", text)
    assert found == [], path
    if path.suffix == ".py":
        assert shell_calls(text) == [], path
    if path.parent.name == "githooks":
        # A hook script only passes its arguments on, each quoted.
        assert re.findall(r'(?<!")\$[\w@{(]', text) == [], path


def test_the_python_template_of_the_installed_script_spawns_no_shell() -> None:
    assert shell_calls(install.status_script()) == []
    assert not SHELL_TEXT.search(install.status_script())


# ------------------------------------------------- installed hooks and odd install paths


@pytest.fixture
def odd_bin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An interpreter folder whose name a shell would split and run: hooks must quote it."""
    folder = tmp_path / "my 'venv' $(touch pwned) `touch pwned`; touch pwned"
    folder.mkdir()
    for script in ("automaton-hook", "automaton-git-hook"):
        fake = folder / script
        fake.write_text('#!/bin/sh\nprintf "%s\\n" "$0" "$@" > "$MARKER"\n')
        fake.chmod(0o755)
    monkeypatch.setattr(sys, "executable", str(folder / "python"))
    return folder


def test_installed_hooks_quote_an_odd_install_path(odd_bin: Path, tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True, timeout=60)
    install.install(project, ["claude", "cursor"], git_hooks=True, home=tmp_path / "home")
    marker = tmp_path / "ran.txt"
    # The odd path is in the launchers of ~/.automaton/bin, which the hooks run here.
    env = {**os.environ, "MARKER": str(marker), "HOME": str(tmp_path / "home")}
    env["PATH"] = "/usr/bin:/bin"
    commands = [
        json.loads((project / ".claude" / "settings.json").read_text())["hooks"]["PreToolUse"][0][
            "hooks"
        ][0]["command"],
        json.loads((project / ".cursor" / "hooks.json").read_text())["hooks"][
            "beforeShellExecution"
        ][0]["command"],
    ]
    for command in commands:  # run in the project, as the harnesses run them
        subprocess.run(["sh", "-c", command], cwd=project, env=env, check=True, timeout=60)
        assert marker.read_text().splitlines()[0] == str(odd_bin / "automaton-hook")
    hook = project / ".git" / "hooks" / "pre-commit"
    subprocess.run(["sh", str(hook)], cwd=tmp_path, env=env, check=True, timeout=60)
    assert marker.read_text().splitlines() == [str(odd_bin / "automaton-git-hook"), "pre-commit"]
    assert not list(tmp_path.rglob("pwned"))
    # ...and uninstalling still finds exactly what it added.
    install.uninstall(project, ["claude", "cursor"], git_hooks=True, home=tmp_path / "home")
    assert not (project / ".claude").exists() and not (project / ".cursor").exists()
    assert not (project / ".automaton" / "hook.sh").exists()
    assert not hook.exists()


# ------------------------------------------------------ plugins only from configured places

DROPPED = (
    "conftest.py",
    "plugins.py",
    "rules.py",
    "automaton_rules.py",
    "pluggy.py",
    "typer.py",
    "filelock.py",
    "sitecustomize.py",
    "usercustomize.py",
    "__init__.py",
    "__main__.py",
    "hookspecs.py",
)
CONFIG_DROP = 'plugins = ["conftest.py", "evil"]\n'


def plant(folder: Path, marker: Path) -> None:
    """Python files that, if ever imported, leave a mark naming themselves."""
    source = (
        "import pathlib\n"
        f"with open({str(marker)!r}, 'a') as mark:\n"
        "    mark.write(__file__ + '\\n')\n"
    )
    for name in DROPPED:
        (folder / name).write_text(source)
    (folder / "evil").mkdir(exist_ok=True)
    (folder / "evil" / "__init__.py").write_text(source)


def test_python_files_in_the_project_and_tasks_are_never_imported(
    project: Project, task_in, tmp_path: Path
) -> None:
    name = task_in("research")
    project.write(name, "SPEC.md")
    marker = tmp_path / "imported.txt"
    for folder in (
        project.root,
        project.root / ".automaton",
        project.tasks,
        project.task_dir(name),
    ):
        plant(folder, marker)
    # A configuration inside the tasks folder is not the project's configuration.
    (project.tasks / "automaton.toml").write_text(CONFIG_DROP)
    (project.task_dir(name) / "automaton.toml").write_text(CONFIG_DROP)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for cwd in (project.root, project.task_dir(name)):
        for args in (
            ("--list",),
            ("--audit",),
            ("--validate-folder",),
            ("--task", name, "--transition", "research:awaiting_approval"),
            ("--can-edit", "--task", name),
        ):
            proc = subprocess.run(
                [sys.executable, str(STATUS_PY), *args],
                cwd=cwd,
                env=env,
                capture_output=True,
                text=True,
                timeout=60,
            )
            assert proc.returncode in (0, 1), (args, proc.stdout, proc.stderr)
        hook = subprocess.run(
            [str(Path(sys.executable).parent / "automaton-git-hook"), "pre-commit"],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert "Traceback" not in hook.stderr
    assert not marker.exists(), marker.read_text()


def test_a_configured_plugin_is_imported(project: Project, task_in, tmp_path: Path) -> None:
    """The positive control: the same planted file runs once the configuration names it."""
    task_in("research", name="x")
    marker = tmp_path / "imported.txt"
    plant(project.root, marker)
    with (project.root / "plugins.py").open("a") as plugin:
        plugin.write("def register_rules(register):\n    pass\n")
    (project.root / "automaton.toml").write_text('plugins = ["plugins.py"]\n')
    result = project.script("--validate-folder", "--project", str(project.root))
    assert result.rc == 0, result
    assert marker.read_text().splitlines() == [str(project.root / "plugins.py")]
