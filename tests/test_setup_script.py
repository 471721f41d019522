"""`scripts/setup.sh` says what it does while pip installs (issue 32: a first install looked
hung for a minute), and shows pip's whole output when pip fails; `setup.sh harnesses`
installs the harness lab's binaries with npm, each release once (issue 28).

The script runs for real on a copy of itself, with a stand-in for `.venv/bin/python` that
prints what pip prints: installing the project for real takes a minute and the network.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from conftest import ROOT

PIP_SAYS = """\
Obtaining file:///work/automaton-rules
Collecting pluggy>=1.5 (from automaton-rules==0.1.0)
  Using cached pluggy-1.6.0-py3-none-any.whl (20 kB)
Requirement already satisfied: typer in ./.venv/lib/python3.11/site-packages
Collecting pytest (from automaton-rules==0.1.0)
Building editable for automaton-rules (pyproject.toml): started
Installing collected packages: pluggy, pytest, automaton-rules
Successfully installed automaton-rules-0.1.0 pluggy-1.6.0 pytest-8.3.4
"""


def _copy(tmp_path: Path, status: int, output: str) -> Path:
    """A checkout holding only the script, and a `.venv/bin/python` that prints `output`
    and exits with `status` (and records the arguments it was given)."""
    checkout = tmp_path / "checkout"
    (checkout / "scripts").mkdir(parents=True)
    shutil.copy(ROOT / "scripts" / "setup.sh", checkout / "scripts" / "setup.sh")
    (checkout / "pip-output").write_text(output)
    python = checkout / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(
        '#!/bin/sh\nprintf "%s\\n" "$*" > "$(dirname "$0")/../../args"\n'
        f'cat "$(dirname "$0")/../../pip-output"\nexit {status}\n'
    )
    python.chmod(0o755)
    return checkout


def _setup(checkout: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(checkout / "scripts" / "setup.sh"), *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_setup_prints_each_package_as_pip_collects_it(tmp_path: Path) -> None:
    checkout = _copy(tmp_path, 0, PIP_SAYS)
    proc = _setup(checkout, "test")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert lines[0] == "setup.sh: installing .[test,board] into .venv (editable)"
    assert lines[1:-1] == [
        "  Collecting pluggy>=1.5 (from automaton-rules==0.1.0)",
        "  Collecting pytest (from automaton-rules==0.1.0)",
        "  Building editable for automaton-rules (pyproject.toml): started",
        "  Installing collected packages: pluggy, pytest, automaton-rules",
        "  Successfully installed automaton-rules-0.1.0 pluggy-1.6.0 pytest-8.3.4",
    ]
    assert lines[-1].startswith("setup.sh: done in ") and lines[-1].endswith("s")
    args = (checkout / "args").read_text().split()
    assert args[:3] == ["-m", "pip", "install"] and args[-2:] == ["-e", ".[test,board]"]
    assert "--quiet" not in args and "--progress-bar" in args


def test_setup_shows_pip_s_whole_output_when_pip_fails(tmp_path: Path) -> None:
    failure = "Collecting nope\nERROR: Could not find a version that satisfies nope\n  hint\n"
    checkout = _copy(tmp_path, 1, failure)
    proc = _setup(checkout)
    assert proc.returncode == 1
    assert "setup.sh: pip failed; its output:\n" + failure in proc.stderr
    assert "done in" not in proc.stderr


# ------------------------------------------------- setup.sh harnesses: the lab's binaries

# A stand-in for npm: `npm view PKG version` prints 9.9.9; `npm install --prefix DIR ...
# PKG@VERSION` makes the commands the lab looks for, NPM_BINS (and logs every call).
FAKE_NPM = """#!/bin/sh
echo "$*" >> "$NPM_LOG"
if [ "$1" = view ]; then echo 9.9.9; exit 0; fi
prefix=$3
eval "spec=\\${$#}"
pkg=${spec%@*}
mkdir -p "$prefix/node_modules/.bin" "$prefix/node_modules/$pkg"
printf '{"version": "%s"}\\n' "${spec##*@}" > "$prefix/node_modules/$pkg/package.json"
for bin in $NPM_BINS; do
    : > "$prefix/node_modules/.bin/$bin"
    chmod +x "$prefix/node_modules/.bin/$bin"
done
"""
TOOLS = ("bash", "sh", "mkdir", "ln", "rm", "dirname", "cat", "chmod", "printf", "echo")


def _lab_checkout(tmp_path: Path, *, node: bool) -> tuple[Path, dict[str, str]]:
    """A checkout with the script and the lab's pins, a PATH of the few tools it needs
    (node and the stand-in npm only when `node`), and the cache in `tmp_path`."""
    checkout = tmp_path / "checkout"
    (checkout / "scripts").mkdir(parents=True)
    shutil.copy(ROOT / "scripts" / "setup.sh", checkout / "scripts" / "setup.sh")
    shutil.copytree(ROOT / "tests" / "harnesses", checkout / "tests" / "harnesses")
    (checkout / ".venv" / "bin").mkdir(parents=True)
    (checkout / ".venv" / "bin" / "python").symlink_to(sys.executable)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in TOOLS:
        found = shutil.which(tool)
        if found:
            (bin_dir / tool).symlink_to(found)
    if node:
        (bin_dir / "node").write_text("#!/bin/sh\nexit 0\n")
        (bin_dir / "npm").write_text(FAKE_NPM)
        (bin_dir / "node").chmod(0o755)
        (bin_dir / "npm").chmod(0o755)
    env = {"PATH": str(bin_dir), "AUTOMATON_HARNESS_CACHE": str(tmp_path / "cache")}
    env |= {"NPM_LOG": str(tmp_path / "npm.log"), "HOME": str(tmp_path)}
    env["NPM_BINS"] = " ".join(pin[3] for pin in _pins())
    return checkout, env


def _setup_lab(checkout: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(checkout / "scripts" / "setup.sh"), "harnesses", *args],
        capture_output=True, text=True, timeout=60, check=False, env=env,
    )  # fmt: skip


def _pins() -> list[list[str]]:
    lines = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "harnesses" / "cache.py")],
        capture_output=True, text=True, check=True, timeout=60,
    ).stdout.splitlines()  # fmt: skip
    return [line.split() for line in lines]


def test_setup_harnesses_installs_each_pinned_release_once(tmp_path: Path) -> None:
    checkout, env = _lab_checkout(tmp_path, node=True)
    first = _setup_lab(checkout, env)
    assert first.returncode == 0, first.stderr
    cache = tmp_path / "cache"
    calls = (tmp_path / "npm.log").read_text().splitlines()
    assert calls == [
        f"install --prefix {cache}/{name}-{version} --no-save --no-audit --no-fund "
        f"--loglevel=error {package}@{version}"
        for name, package, version, _ in _pins()
    ]
    for name, package, version, _ in _pins():
        assert f"setup.sh: {name} {version}: npm install {package}@{version} into" in first.stderr
    again = _setup_lab(checkout, env)
    assert again.returncode == 0, again.stderr
    assert (tmp_path / "npm.log").read_text().splitlines() == calls  # nothing fetched again
    for name, _, version, _ in _pins():
        assert f"setup.sh: {name} {version}: installed in {cache}/{name}-{version}" in again.stderr


def test_setup_harnesses_latest_points_name_latest_at_the_newest(tmp_path: Path) -> None:
    checkout, env = _lab_checkout(tmp_path, node=True)
    proc = _setup_lab(checkout, env, "latest")
    assert proc.returncode == 0, proc.stderr
    for name, package, _, _ in _pins():
        link = tmp_path / "cache" / f"{name}-latest"
        assert link.is_symlink() and str(link.readlink()) == f"{name}-9.9.9"
        assert f"view {package} version" in (tmp_path / "npm.log").read_text()


def test_setup_harnesses_without_node_says_the_lab_will_skip(tmp_path: Path) -> None:
    checkout, env = _lab_checkout(tmp_path, node=False)
    proc = _setup_lab(checkout, env)
    assert proc.returncode == 0, proc.stderr
    assert "no node or npm on PATH: the harness lab will skip" in proc.stderr
    assert not (tmp_path / "cache").exists()


def test_setup_harnesses_refuses_another_mode(tmp_path: Path) -> None:
    checkout, env = _lab_checkout(tmp_path, node=True)
    proc = _setup_lab(checkout, env, "nightly")
    assert proc.returncode == 2
    assert proc.stderr == "setup.sh: ERROR: harnesses takes pinned or latest, not nightly\n"
