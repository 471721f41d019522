"""`scripts/setup.sh` says what it does while pip installs (issue 32: a first install looked
hung for a minute), and shows pip's whole output when pip fails. `setup.sh test` installs
the system programs some tests need, saying so, unless AUTOMATON_SYSTEM_TOOLS=skip; the
tests themselves install nothing (issue 31). `setup.sh harnesses` installs the harness
lab's binaries with npm, each release once (issue 28).

The script runs for real on a copy of itself, with a stand-in for `.venv/bin/python` that
prints what pip prints (installing the project for real takes a minute and the network),
on a PATH of its own: the utilities it runs, stand-ins for the system programs, for `id`
and for apt-get.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT, system_tool

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


# What setup.sh runs besides bash's builtins, and the system programs it looks for.
UTILITIES = ("dirname", "mktemp", "tee", "cat", "rm", "tr")
PROGRAMS = {
    "chromium": "chromium",
    "openssh-client": "ssh-keygen",
    "graphviz": "dot",
    "bubblewrap": "bwrap",
    "tmux": "tmux",
}
# An apt-get that records its calls and "installs" a package by making its program, as
# apt-get prints it; with a `fail` file beside it, every call fails.
APT_GET = """#!/bin/sh
here=$(dirname "$0")
echo "$*" >> "$here/../apt-calls"
if [ -e "$here/../fail" ]; then echo "E: Unable to locate package $*"; exit 100; fi
[ "$1" = install ] || exit 0
shift
for package in "$@"; do
    case $package in -*) continue ;; esac
    program=$(grep "^$package " "$here/../programs" | cut -d' ' -f2)
    printf '#!/bin/sh\\n' > "$here/$program" && chmod +x "$here/$program"
    echo "Setting up $package (1.0) ..."
done
"""


def _path(
    tmp_path: Path, present: tuple[str, ...] = tuple(PROGRAMS), uid: int = 0, apt: bool = True
) -> Path:
    """A folder to be the whole PATH: the utilities, a stand-in for each package of
    `present`, an `id -u` that says `uid`, and an apt-get unless `apt` is false."""
    folder = tmp_path / "path" / "bin"
    folder.mkdir(parents=True)
    for name in (*UTILITIES, "grep", "cut", "chmod"):
        found = shutil.which(name)
        assert found is not None, name
        (folder / name).symlink_to(found)
    stands = {name: "#!/bin/sh\n" for package in present for name in [PROGRAMS[package]]}
    stands["id"] = f"#!/bin/sh\necho {uid}\n"
    if apt:
        stands["apt-get"] = APT_GET
    for name, text in stands.items():
        (folder / name).write_text(text)
        (folder / name).chmod(0o755)
    (folder.parent / "programs").write_text("".join(f"{p} {n}\n" for p, n in PROGRAMS.items()))
    return folder


def _setup(
    checkout: Path, *args: str, path: Path | None = None, **env: str
) -> subprocess.CompletedProcess[str]:
    """setup.sh run with bash, on `path` alone (default: every program present)."""
    path = path or _path(checkout.parent)
    bash = shutil.which("bash")
    assert bash is not None
    return subprocess.run(
        [bash, str(checkout / "scripts" / "setup.sh"), *args],
        capture_output=True,
        text=True,
        env={"PATH": str(path), "TMPDIR": str(checkout.parent), **env},
        timeout=60,
        check=False,
    )


def _apt_calls(path: Path) -> list[str]:
    calls = path.parent / "apt-calls"
    return calls.read_text().splitlines() if calls.exists() else []


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


# ------------------------------------------------------------- the system programs


def test_setup_test_installs_the_missing_system_programs_saying_so(tmp_path: Path) -> None:
    checkout = _copy(tmp_path, 0, PIP_SAYS)
    path = _path(tmp_path, present=("openssh-client", "graphviz"))
    proc = _setup(checkout, "test", path=path)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.splitlines()
    said = lines.index(
        "setup.sh: installing with apt-get what some tests need: chromium bubblewrap tmux "
        "(AUTOMATON_SYSTEM_TOOLS=skip leaves it out)"
    )
    assert lines[said - 1].startswith("  Successfully installed")  # after pip
    assert lines[said + 1 : -1] == [
        "  Setting up chromium (1.0) ...",
        "  Setting up bubblewrap (1.0) ...",
        "  Setting up tmux (1.0) ...",
    ]
    assert lines[-1].startswith("setup.sh: done in ")
    assert _apt_calls(path) == ["install -y -q chromium bubblewrap tmux"]
    again = _setup(checkout, "test", path=path)
    assert again.returncode == 0, again.stderr
    assert "apt-get" not in again.stderr
    assert _apt_calls(path) == ["install -y -q chromium bubblewrap tmux"]


def test_setup_test_leaves_them_out_with_the_variable(tmp_path: Path) -> None:
    checkout = _copy(tmp_path, 0, PIP_SAYS)
    path = _path(tmp_path, present=("openssh-client", "graphviz", "bubblewrap", "tmux"))
    proc = _setup(checkout, "test", path=path, AUTOMATON_SYSTEM_TOOLS="skip")
    assert proc.returncode == 0, proc.stderr
    assert (
        "setup.sh: not installing chromium (AUTOMATON_SYSTEM_TOOLS=skip): the tests that "
        "need it skip\n"
    ) in proc.stderr
    assert _apt_calls(path) == []


@pytest.mark.parametrize(("uid", "apt"), [(1000, True), (0, False)])
def test_setup_test_says_what_to_install_where_it_cannot(
    tmp_path: Path, uid: int, apt: bool
) -> None:
    checkout = _copy(tmp_path, 0, PIP_SAYS)
    path = _path(tmp_path, present=("openssh-client", "bubblewrap", "tmux"), uid=uid, apt=apt)
    proc = _setup(checkout, "test", path=path)
    assert proc.returncode == 0, proc.stderr
    assert (
        "setup.sh: no chromium graphviz here, and no apt-get as root to install it: the "
        "tests that need it skip (on Debian, as root: apt-get install chromium graphviz)\n"
    ) in proc.stderr
    assert _apt_calls(path) == []


def test_a_failed_apt_get_is_shown_and_the_setup_goes_on(tmp_path: Path) -> None:
    checkout = _copy(tmp_path, 0, PIP_SAYS)
    path = _path(tmp_path, present=("openssh-client", "graphviz", "bubblewrap", "tmux"))
    (path.parent / "fail").write_text("")
    proc = _setup(checkout, "test", path=path)
    assert proc.returncode == 0, proc.stderr
    assert (
        "setup.sh: apt-get failed; its output:\n"
        "E: Unable to locate package install -y -q chromium\n"
        "E: Unable to locate package update -q\n"
        "setup.sh: the tests that need chromium skip\n"
    ) in proc.stderr
    assert _apt_calls(path) == ["install -y -q chromium", "update -q"]


def test_only_setup_test_looks_for_system_programs(tmp_path: Path) -> None:
    checkout = _copy(tmp_path, 0, PIP_SAYS)
    path = _path(tmp_path, present=())
    for args in ((), ("board",)):
        proc = _setup(checkout, *args, path=path)
        assert proc.returncode == 0, proc.stderr
        assert len(proc.stderr.splitlines()) == 7, proc.stderr  # pip's lines, and done
    assert _apt_calls(path) == []


def test_a_missing_program_skips_its_test_naming_it() -> None:
    with pytest.raises(pytest.skip.Exception) as skipped:
        system_tool("graphviz", "no-such-dot", "nor-this-one")
    assert str(skipped.value) == (
        "no-such-dot or nor-this-one is not installed (Debian's graphviz: "
        "`bash scripts/setup.sh test` installs it, as root with apt-get)"
    )


def test_the_tests_install_nothing() -> None:
    """Issue 31: the suite called apt-get in the middle of a run; now only setup.sh does."""
    here = Path(__file__)
    found = [
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "tests").rglob("*.py")
        if path != here and "apt-get install" in path.read_text(encoding="utf-8")
    ]
    assert found == []


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
