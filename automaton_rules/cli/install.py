"""`automaton-install`: put status.py where agents call it, and the hooks where they fire.

Idempotent (running it twice changes nothing the second time) and reversible
(`--uninstall` removes exactly what it added, leaving the user's own settings). What it
writes into a project names no path of this machine, so a team commits it; the per-user
files (`~/.automaton/scripts/status.py`, the launchers in `~/.automaton/bin`) bind this
machine's installation.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from automaton_rules.cli import install_files
from automaton_rules.cli.install_files import MARKER as MARKER
from automaton_rules.core.project import framework_home
from automaton_rules.guards.hooks import harnesses
from automaton_rules.guards.hooks.settings import done as _done
from automaton_rules.guards.hooks.settings import remove_empty_folders as _prune
from automaton_rules.guards.hooks.settings import write_changed as _write
from automaton_rules.support import git
from automaton_rules.support.console import Script
from automaton_rules.support.errors import AutomatonError

GIT_HOOKS = {
    "pre-commit": "automaton-git-hook pre-commit",
    "pre-merge-commit": "automaton-git-hook pre-merge-commit",
    "commit-msg": 'automaton-git-hook commit-msg "$1"',
}


def status_script() -> str:
    """`~/.automaton/scripts/status.py`: whichever `python` runs it, this installation answers."""
    return f"""#!{sys.executable}
{MARKER}: runs the automaton-rules installed for the interpreter below,
# whichever python the agent calls this file with.
import os
import sys

INTERPRETER = {sys.executable!r}

try:
    from automaton_rules.cli.entry import main
except ImportError:
    if os.environ.get("AUTOMATON_REEXEC") != INTERPRETER:
        os.environ["AUTOMATON_REEXEC"] = INTERPRETER  # once: never loop
        try:
            os.execv(INTERPRETER, [INTERPRETER, __file__, *sys.argv[1:]])
        except OSError:
            pass  # the interpreter it was installed with is gone: say so below
    sys.stderr.write("ERROR: automaton-rules is not installed for " + INTERPRETER + "\\n")
    sys.exit(2)

sys.exit(main())
"""


def _install_git_hooks(project: Path) -> list[str]:
    done = []
    folder = _find_git_hooks_dir(project)
    for name, command in GIT_HOOKS.items():
        hook = folder / name
        existed = hook.exists()
        if existed and MARKER not in hook.read_text(errors="replace"):
            done.append(f"kept {hook} (a hook that is not ours; add '{command}' to it)")
            continue
        if _write(hook, install_files.git_hook_script(command), 0o755):
            done.append(_done(hook, existed))
    return done


def _ours_in_file(path: Path) -> bool:
    """A per-user file automaton-install wrote (it is removed only then)."""
    return path.exists() and MARKER in path.read_text(encoding="utf-8", errors="replace")


def _per_user_files(home: Path | None) -> list[tuple[Path, str | None]]:
    """`~/.automaton/scripts/status.py` and the launchers, with what each should hold."""
    files: list[tuple[Path, str | None]] = [
        (framework_home(home) / "scripts" / "status.py", status_script())
    ]
    for tool in install_files.LAUNCHED:
        files.append((install_files.launcher_path(home, tool), install_files.launcher(tool)))
    return files


def _install_per_user(home: Path | None) -> list[str]:
    done = []
    for path, text in _per_user_files(home):
        if text is None:
            continue
        existed = path.exists()
        if existed and not _ours_in_file(path):
            done.append(f"kept {path} (not written by automaton-install)")
        elif _write(path, text, 0o755):
            done.append(_done(path, existed))
    return done


def _install_launcher(project: Path) -> list[str]:
    """`.automaton/hook.sh`, which every harness hook command sources (guards/hooks/lookup.py)."""
    path = project / install_files.LAUNCHER
    existed = path.exists()
    return [_done(path, existed)] if _write(path, install_files.hook_launcher()) else []


def _install_sections(project: Path, names: Sequence[str]) -> list[str]:
    """The agent instructions of each harness, and `.automaton/.gitignore`."""
    sections = {harnesses.get(h).instructions: install_files.instructions_section() for h in names}
    sections[install_files.GITIGNORE] = install_files.gitignore_section()
    done = []
    for relative, text in sections.items():
        path = project / relative
        existed = path.exists()
        if install_files.add_section(path, text):
            done.append(_done(path, existed))
    return done


def install(
    project: Path | None, names: Sequence[str], git_hooks: bool, home: Path | None = None
) -> list[str]:
    """Install, reporting one line per file changed (and what the user must still do)."""
    if project is None and (names or git_hooks):
        what = "--harness" if names else "--git-hooks"
        raise AutomatonError("usage", f"{what} needs --project DIR.")
    if project is not None:
        _preflight(project, names, git_hooks)
    done = _install_per_user(home)
    if project is None:
        return done
    tasks = project / ".automaton" / "tasks"
    if not tasks.is_dir():  # the project is one from now on: it audits clean, with no task
        tasks.mkdir(parents=True)
        done.append(f"created {tasks}{os.sep}")
    if names:  # what their hook commands run
        done += _install_launcher(project)
    for name in names:  # each harness's hooks, and what the user must still do
        done += harnesses.get(name).settings().install(project)
    done += _install_sections(project, names)
    if git_hooks:
        done += _install_git_hooks(project)
    done += _install_configuration(project)
    return done + _linked_guard_files(project, home)


CONFIGURATION = """\
# automaton-rules: the workflow's configuration (docs: README, "Configuration").
# Every key has a default; this file exists so that no agent can create one that takes
# over, and so that the sandbox keeps it read-only (docs/sandbox.md).
"""


def _install_configuration(project: Path) -> list[str]:
    """`automaton.toml` where the project has no configuration at all: one that did not
    exist is one that code in an edit phase could create (docs/sandbox.md)."""
    from automaton_rules.core.config import CONFIG_FILE, find_config

    if find_config(project) is not None:
        return []
    _write(project / CONFIG_FILE, CONFIGURATION)
    return [f"wrote {project / CONFIG_FILE}"]


def _linked_guard_files(project: Path, home: Path | None) -> list[str]:
    """A warning for each guard file with a second hard link: a link made before the guard
    was installed reaches the file from anywhere, the sandbox's read-only mounts and
    Landlock's rules notwithstanding (the audit reports it too, AR504)."""
    from automaton_rules.core import guard_files

    found = [project / relpath for relpath in guard_files.project_guard_paths()]
    found += [project / guard_files.DEFAULT_SIGNERS, project / install_files.LAUNCHER]
    found.append(framework_home(home) / "scripts/status.py")
    warnings = []
    for path in found:
        try:
            links = path.lstat().st_nlink if path.is_file() and not path.is_symlink() else 1
        except OSError:
            continue
        if links > 1:
            warnings.append(
                f"warning: {path} has {links} hard links; remove the others (find / -xdev "
                f"-samefile {path}): through them it can be changed from anywhere"
            )
    return warnings


def _preflight(project: Path, names: Sequence[str], git_hooks: bool) -> None:
    """Every reason to stop, found before anything is written: an unreadable settings
    file, a section the installer cannot find the end of, no git repository."""
    for name in names:
        harnesses.get(name).settings().check(project)
    launcher = project / install_files.LAUNCHER
    if names and (launcher.is_symlink() or launcher.exists()) and not _ours_in_file(launcher):
        raise AutomatonError(
            "install-failed",
            f"{launcher} is not automaton-install's, and every hook would run it: move it "
            "away, then run again",
        )
    files = {harnesses.get(name).instructions for name in names} | {install_files.GITIGNORE}
    for relative in sorted(files):
        install_files.check_section(project / relative)
    if git_hooks:
        _find_git_hooks_dir(project)


def _find_our_git_hooks(project: Path) -> list[Path]:
    proc = git.run(project, ["rev-parse", "--git-dir"])
    if proc.returncode != 0:
        return []
    folder = _find_git_hooks_dir(project)
    return [folder / name for name in GIT_HOOKS if _ours_in_file(folder / name)]


def _uninstall_sections(project: Path) -> list[str]:
    """The sections no harness still installed reads, and `.automaton/.gitignore`'s once
    nothing of ours is left in the project."""
    remaining = [h for h in harnesses.HARNESSES.values() if h.settings().installed(project)]
    needed = {h.instructions for h in remaining}
    if remaining or _find_our_git_hooks(project):
        needed.add(install_files.GITIGNORE)
    done = []
    launcher = project / install_files.LAUNCHER
    if not remaining and _ours_in_file(launcher) and not launcher.is_symlink():
        launcher.unlink()  # no hook command is left to run it
        done.append(f"removed {launcher}")
    read = dict.fromkeys(h.instructions for h in harnesses.HARNESSES.values())
    files = [*read, install_files.GITIGNORE]
    for relative in files:
        if relative in needed:
            continue
        path = project / relative
        what = install_files.remove_section(path)
        if what is not None:
            done.append(f"{what} {path}")
            _prune(path.parent, project)
    return done


def uninstall(
    project: Path | None, names: Sequence[str], git_hooks: bool, home: Path | None = None
) -> list[str]:
    """Remove what install added, and nothing else."""
    if project is None and names:
        raise AutomatonError("usage", "--harness needs --project DIR.")
    done = []
    if project is None:  # every project uses them: only a global uninstall removes them
        for path, _ in _per_user_files(home):
            if _ours_in_file(path):
                path.unlink()
                done.append(f"removed {path}")
        return done
    for name in names:
        done += harnesses.get(name).settings().uninstall(project)
    config = project / "automaton.toml"
    if config.is_file() and config.read_text(encoding="utf-8", errors="replace") == CONFIGURATION:
        config.unlink()  # as install wrote it: the user never made it theirs
        done.append(f"removed {config}")
    if git_hooks:
        for hook in _find_our_git_hooks(project):
            hook.unlink()
            done.append(f"removed {hook}")
    return done + _uninstall_sections(project)


def _find_git_hooks_dir(project: Path) -> Path:
    """Where git looks for this repository's hooks: `core.hooksPath` when it is set, else
    `.git/hooks` (a worktree's are shared)."""
    proc = git.run(project, ["rev-parse", "--git-path", "hooks"])
    if proc.returncode != 0:
        raise AutomatonError("install-failed", f"{project} is not a git repository")
    path = Path(proc.stdout.decode("utf-8", errors="surrogateescape").strip())
    return path if path.is_absolute() else project / path


USAGE = f"""\
usage: automaton-install [--project DIR] [--harness NAME[,NAME...]] [--git-hooks] [--uninstall]

Puts ~/.automaton/scripts/status.py in place (the path agents call status.py by), and
with --project, the hooks of the named harnesses and the git hooks into that project: a
guard before every edit and shell command, the workflow's state at every session start
(and after compaction), and the user's `approve TASK` in the chat. The project's files
name no path of this machine, so a team commits them; a per-user launcher in
~/.automaton/bin finds this installation. It also adds a workflow section to the agent
instructions each harness reads (CLAUDE.md, AGENTS.md, GEMINI.md), and
.automaton/.gitignore for temporary files. Idempotent; --uninstall reverses exactly.
Codex runs the hooks only once you trust them (/hooks). See docs/adopting.md.

Harnesses: {", ".join(harnesses.NAMES)}, or all.

Examples:
  automaton-install --project . --harness claude --git-hooks
  automaton-install --project . --harness all
  automaton-install --project . --harness all --git-hooks --uninstall
"""


SCRIPT = Script(
    "automaton-install",
    USAGE,
    valued=("--project", "--harness"),
    switches=("--git-hooks", "--uninstall"),
)


def main(argv: Sequence[str] | None = None) -> int:
    """Console script `automaton-install`."""
    return SCRIPT.run(argv, _run)


def _chosen(value: str) -> list[str]:
    """`--harness a,b` or `all`, each name checked."""
    given = value.split(",")
    names = list(harnesses.NAMES) if given == ["all"] else given
    unknown = [name for name in names if name not in harnesses.HARNESSES]
    if unknown:
        wrong, choose = ", ".join(unknown), ", ".join(harnesses.NAMES)
        raise AutomatonError("usage", f"unknown harness {wrong}; choose {choose} or all")
    return list(dict.fromkeys(names))


def _run(options: dict[str, Any], _words: list[str]) -> int:
    try:
        names = _chosen(str(options["harness"])) if "harness" in options else []
        project = None
        if "project" in options:
            project = Path(str(options["project"])).expanduser().resolve()
            if not project.is_dir():
                raise AutomatonError("usage", f"project folder {project} does not exist")
        action = uninstall if options.get("uninstall") else install
        done = action(project, names, bool(options.get("git-hooks")))
    except AutomatonError as exc:
        sys.stderr.write(exc.text + "\n")
        return 2
    except OSError as exc:
        sys.stderr.write(f"ERROR: {exc.filename or ''}: {exc.strerror or exc}\n")
        return 2
    sys.stdout.write("\n".join(done or ["nothing to change"]) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
