"""Every console script answers alike: --help and --version exit 0, bad usage exit 2.

Each runs as installed (the venv's script), with nothing on stdin, as a user types it.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from helpers import BIN

from automaton_rules import __version__

SCRIPTS = ("automaton-status", "automaton-hook", "automaton-git-hook", "automaton-install")


def run_script(
    script: str, *args: str, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / script), *args],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=cwd,
    )


@pytest.mark.parametrize("script", SCRIPTS)
@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_help_exits_0_with_usage_and_an_example(script: str, flag: str, tmp_path: Path) -> None:
    proc = run_script(script, flag, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.lower().startswith("usage:"), proc.stdout
    assert "Example" in proc.stdout
    assert proc.stderr == ""
    assert list(tmp_path.iterdir()) == []  # asking for help changes nothing


@pytest.mark.parametrize("script", SCRIPTS)
def test_version_exits_0_and_names_the_version(script: str, tmp_path: Path) -> None:
    proc = run_script(script, "--version", cwd=tmp_path)
    assert (proc.returncode, proc.stdout, proc.stderr) == (
        0,
        f"automaton-rules {__version__}\n",
        "",
    )


def test_automaton_status_answers_version_in_json(tmp_path: Path) -> None:
    proc = run_script("automaton-status", "--version", "--json", cwd=tmp_path)
    assert (proc.returncode, proc.stderr) == (0, "")
    body = json.loads(proc.stdout)
    assert (body["command"], body["ok"], body["exit_code"]) == ("version", True, 0)
    assert body["version"] == __version__
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("script", SCRIPTS)
def test_an_unknown_option_is_bad_usage_exit_2(script: str, tmp_path: Path) -> None:
    proc = run_script(script, "--frobnicate", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.startswith("ERROR:"), proc.stderr
    assert "frobnicate" in proc.stderr
    assert "Traceback" not in proc.stderr and proc.stdout == ""


@pytest.mark.parametrize(
    ("script", "args", "said"),
    [
        ("automaton-hook", ("--harness",), "--harness needs a value"),
        ("automaton-hook", ("--harness", "vim"), "--harness must be one of"),
        ("automaton-hook", ("stray",), "unexpected argument 'stray'"),
        ("automaton-git-hook", (), "name one hook"),
        ("automaton-git-hook", ("post-commit",), "name one hook"),
        ("automaton-git-hook", ("commit-msg",), "name one hook"),
        ("automaton-git-hook", ("pre-commit", "extra"), "name one hook"),
        ("automaton-install", ("--harness", "vim"), "unknown harness vim"),
        ("automaton-install", ("--project",), "--project needs a value"),
        ("automaton-status", ("--task",), "requires an argument"),
    ],
)
def test_bad_usage_names_the_problem(
    script: str, args: tuple[str, ...], said: str, tmp_path: Path
) -> None:
    proc = run_script(script, *args, cwd=tmp_path)
    assert proc.returncode == 2
    assert said in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_value_may_follow_an_equals_sign(tmp_path: Path) -> None:
    proc = subprocess.run(
        [str(BIN / "automaton-hook"), "--harness=gemini"],
        input='{"hook_event_name": "Notification"}',  # an event it passes, outside any project
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert (proc.returncode, proc.stdout) == (0, "{}\n")
