"""The agent's shell inside its phase (issue 20): the boundary and the mechanisms that keep
it.

The boundary is computed as `--can-edit` decides the phase (tests of `guards/sandbox/boundary.py`);
each mechanism keeps it (bubblewrap, Landlock; macOS's profile as text), and the runner
explains and runs a command inside it. The harnesses' rewrites are in
tests/test_sandbox_rewrites.py, the lines that try to get out in tests/test_sandbox_escapes.py.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import (
    BIN,
    STARTUP,
    Project,
    implement,
    landlock_or_skip,
    shell_env,
)

from automaton_rules.core.config import Config, load_config
from automaton_rules.core.project import find_project
from automaton_rules.guards.sandbox import boundary, bubblewrap, landlock, mechanisms, seatbelt

# ----------------------------------------------------------------------- the boundary


def limits(project: Project, task: str | None = None) -> boundary.Boundary:
    found = find_project(project.root)
    return boundary.compute(found, load_config(found.root), task, cwd=project.root)


def test_outside_an_edit_phase_the_whole_project_is_read_only(
    repo: Project, startup_home: Path
) -> None:
    found = limits(repo)
    root = repo.root.resolve()
    assert not found.editing
    for path in (root / "src/app.py", root / ".git/index", root / "new.py"):
        assert not found.allows(path), path
    assert found.allows(Path("/tmp/scratch.txt")) and found.allows(
        startup_home.resolve() / ".cache/x"
    )


def test_in_an_edit_phase_the_project_is_writable_but_for_the_guards_files(
    repo: Project, startup_home: Path
) -> None:
    implement(repo, "t1")
    found = limits(repo)
    root = repo.root.resolve()
    assert found.editing
    for path in (
        root / "src/app.py",
        root / "new.py",
        root / ".git/index",
        root / ".git/objects/x",
    ):
        assert found.allows(path), path
    for path in (
        root / "automaton.toml",
        root / ".automaton/tasks/t1/.state",
        root / ".git/hooks/pre-commit",
        root / ".git/config",
        root / ".claude/settings.json" if (root / ".claude").exists() else root / "automaton.toml",
    ):
        assert not found.allows(path), path


def test_copilots_hooks_where_copilot_home_moves_them_are_read_only(
    repo: Project, startup_home: Path, tmp_path: Path
) -> None:
    """GitHub Copilot CLI loads the user's hooks from `$COPILOT_HOME/hooks/`: outside the
    home folder (in a temporary folder a sandboxed line may write), they stay read-only."""
    moved = tmp_path / "copilot"
    (moved / "hooks").mkdir(parents=True)
    found = find_project(repo.root)
    environ = {**os.environ, "COPILOT_HOME": str(moved)}
    held = boundary.compute(found, load_config(found.root), cwd=repo.root, environ=environ)
    assert not held.allows(moved.resolve() / "hooks" / "mine.json")
    assert not held.allows(moved.resolve() / "settings.json")  # not made yet: all the same
    assert held.allows(tmp_path.resolve() / "elsewhere.txt")
    unmoved = boundary.compute(found, load_config(found.root), cwd=repo.root)
    assert unmoved.allows(moved.resolve() / "hooks" / "mine.json")


def test_the_home_folders_start_up_files_are_read_only_in_every_phase(
    repo: Project, startup_home: Path
) -> None:
    for phase in ("research", "implement"):
        if phase == "implement":
            implement(repo, "t1")
        found = limits(repo)
        for name in STARTUP:
            assert not found.allows((startup_home / name).resolve()), (phase, name)
        assert found.allows((startup_home / ".cache" / "pip" / "x").resolve())


def test_the_installation_and_every_folder_on_path_are_read_only(
    repo: Project, startup_home: Path
) -> None:
    implement(repo, "t1")
    found = limits(repo)
    for path in (Path(sys.prefix), BIN, Path(sys.executable).resolve().parent):
        assert not found.allows(path.resolve() / "planted"), path


def test_the_project_names_more_writable_folders(
    repo: Project, tmp_path: Path, startup_home: Path
) -> None:
    extra = tmp_path / "elsewhere" / "build-cache"
    extra.mkdir(parents=True)
    (repo.root / "automaton.toml").write_text(f'sandbox-writable = ["{extra}"]\n')
    found = limits(repo)
    assert extra.resolve() in found.writable
    assert found.allows(extra.resolve() / "x")
    assert Config().sandbox == "auto"


def test_bubblewrap_mounts_deeper_paths_after_the_ones_around_them(
    repo: Project, startup_home: Path
) -> None:
    words = bubblewrap.argv("bwrap", limits(repo), ["true"])
    binds = [(words[i], words[i + 1]) for i, w in enumerate(words) if w in ("--bind", "--ro-bind")]
    depths = [len(Path(path).parts) for _, path in binds]
    assert depths == sorted(depths)
    assert ("--ro-bind", str(repo.root.resolve())) in [(w, p) for w, p in binds]
    assert words[:4] == ["bwrap", "--cap-drop", "ALL", "--die-with-parent"]


def test_the_macos_profile_denies_writes_but_inside_the_boundary(
    repo: Project, startup_home: Path
) -> None:
    found = limits(repo)
    text = seatbelt.profile(found)
    lines = text.splitlines()
    assert lines[:3] == ["(version 1)", "(allow default)", "(deny file-write*)"]
    assert '(allow file-write* (subpath "/tmp"))' in lines
    assert f'(deny file-write* (subpath "{repo.root.resolve()}"))' in lines
    assert lines.index('(allow file-write* (subpath "/tmp"))') < lines.index(
        f'(deny file-write* (subpath "{repo.root.resolve()}"))'
    )
    quoted = boundary.Boundary(Path("/p"), False, (Path('/tmp/a "b"'),), (), Path("/tmp"))
    assert '(allow file-write* (subpath "/tmp/a \\"b\\""))' in seatbelt.profile(quoted)
    argv = seatbelt.argv(found, ["bash", "-c", "true"])
    assert argv[:2] == ["/usr/bin/sandbox-exec", "-p"] and argv[-3:] == ["bash", "-c", "true"]
    # research: no network, no Unix socket, no other process; the secrets unread
    assert "(deny network-outbound)" in lines and "(remote ip" not in text
    assert "(deny network-outbound (remote unix-socket))" in lines
    assert "(deny signal (target others))" in lines
    (startup_home / ".aws").mkdir()
    hidden = seatbelt.profile(limits(repo)).splitlines()
    assert f'(deny file-read* (subpath "{(startup_home / ".aws").resolve()}"))' in hidden
    repo.advance("t1", ["research:awaiting_approval", "research:approved", "implement"])
    editing = seatbelt.profile(limits(repo)).splitlines()
    assert '(allow network-outbound (remote ip "*:443"))' in editing
    assert '(allow network-outbound (remote ip "*:8765"))' not in editing
    assert editing.index("(deny network-outbound)") < editing.index(
        '(allow network-outbound (remote ip "*:443"))'
    )


# ------------------------------------------------------------------ the mechanisms


LANDLOCK_PROBE = """
from automaton_rules.guards.sandbox import landlock
import sys
landlock.restrict([sys.argv[1]], [sys.argv[2]])
for path in sys.argv[3:]:
    try:
        open(path, "a").close()
        print("wrote", path)
    except OSError as exc:
        print("refused", path, exc.errno)
"""


def test_landlock_keeps_a_read_only_path_inside_a_writable_folder(tmp_path: Path) -> None:
    landlock_or_skip()
    writable, kept = tmp_path / "w", tmp_path / "w" / "kept"
    (writable / "sub").mkdir(parents=True)
    kept.mkdir()
    (kept / "config").write_text("x\n")
    (writable / "sub" / "code.py").write_text("x\n")
    probes = [writable / "sub" / "code.py", writable / "sub" / "new.py", kept / "config"]
    probes += [kept / "new", tmp_path / "outside"]
    done = subprocess.run(
        [sys.executable, "-c", LANDLOCK_PROBE, str(writable), str(kept), *map(str, probes)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    said = [line.split()[0] for line in done.stdout.splitlines()]
    assert said == ["wrote", "wrote", "refused", "refused", "refused"]
    assert (kept / "config").read_text() == "x\n"


def test_landlock_rules_grant_the_other_entries_down_to_a_kept_path(tmp_path: Path) -> None:
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "c.txt").write_text("")
    (tmp_path / "d").mkdir()
    granted = landlock.rules([str(tmp_path)], [str(tmp_path / "a" / "b")])
    assert granted == [(str(tmp_path / "a" / "c.txt"), False), (str(tmp_path / "d"), True)]


def test_the_runner_explains_its_boundary(repo: Project, startup_home: Path) -> None:
    done = subprocess.run(
        [str(BIN / "automaton-sandbox"), "--explain"],
        cwd=repo.root,
        env=shell_env(startup_home),
        capture_output=True,
        text=True,
        timeout=60,
    )
    mechanism = mechanisms.choose()
    assert done.returncode == (0 if mechanism else 1)
    assert done.stdout.startswith("Sandbox: ")
    assert f"Project: {repo.root.resolve()} (read-only)" in done.stdout


def test_the_runner_runs_a_command_inside_the_boundary(repo: Project, startup_home: Path) -> None:
    if mechanisms.choose() is None:
        pytest.skip("no sandbox mechanism works here")
    line = "echo y > src/app.py; echo $?; echo ok > $TMPDIR/automaton-probe && echo tmp; exit 7"
    done = subprocess.run(
        [str(BIN / "automaton-sandbox"), "--", "bash", "-c", line],
        cwd=repo.root,
        env=shell_env(startup_home),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 7
    assert done.stdout.splitlines() == ["1", "tmp"]
    assert (repo.root / "src" / "app.py").read_text() == "x = 1\n"


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--bogus"], "ERROR: automaton-sandbox: unknown option '--bogus'"),
        (["--project"], "ERROR: automaton-sandbox: --project needs a value"),
    ],
)
def test_the_runner_refuses_bad_usage(tmp_path: Path, args: list[str], said: str) -> None:
    done = subprocess.run(
        [str(BIN / "automaton-sandbox"), *args], capture_output=True, text=True, cwd=tmp_path
    )
    assert done.returncode == 2 and done.stderr.startswith(said)


def test_the_runner_outside_any_project_is_an_error(tmp_path: Path) -> None:
    done = subprocess.run(
        [str(BIN / "automaton-sandbox"), "--", "true"], capture_output=True, text=True, cwd=tmp_path
    )
    assert done.returncode == 2
    assert done.stderr.startswith("ERROR: No .automaton/tasks/ folder found")


def test_the_kernels_landlock_abi_is_asked_once_per_kernel(tmp_path: Path) -> None:
    """Asking loads ctypes, 3 ms of every hook's time: the answer is kept per kernel."""
    assert mechanisms.NET_ABI == landlock.NET_ABI
    home = tmp_path / "home"
    first = mechanisms.landlock_abi(home)
    assert first == landlock.abi()
    kept = home / ".automaton" / "cache" / "landlock-abi"
    assert kept.read_text() == f"linux-{os.uname().release} {first}\n"
    kept.write_text(f"linux-{os.uname().release} 3\n")
    assert mechanisms.landlock_abi(home) == 3  # the kept answer, not asked again
    kept.write_text("linux-another-kernel 3\n")
    assert mechanisms.landlock_abi(home) == first  # a new kernel is asked
