"""Category 5: the guard's own history — who changed its files, and which tasks are gone.

A person may change the configuration, a harness's hook settings, the git hooks or the
approval signers file (the pre-commit hook lets them), but a reviewer should see every
commit that did (AR501, a warning). A task folder that git once held and the work tree
no longer has took its evidence with it (AR502, an error). A change to a committed guard
file that no commit holds yet is one no reviewer saw (AR503, an error), and a guard file
with a second hard link can be changed through it, from anywhere (AR504, an error). The
first three read the one pass over git every rule shares (the log and the status); only
a commit touching `pyproject.toml` costs one more git call, which reads that file before
and after it, for all such commits at once.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from automaton_rules.core import guard_files, machine, store
from automaton_rules.core.config import Config
from automaton_rules.core.project import Project, Task, split_name
from automaton_rules.engine.findings import GUARD_CHANGES, Finding
from automaton_rules.engine.rule import Rule, Skip, rule
from automaton_rules.support import clock
from automaton_rules.support.errors import AutomatonError

TYPE_CHECKING = False
if TYPE_CHECKING:  # git is read only by the audit: its reader loads with it
    from automaton_rules.engine.gitlog import Commit, GitHistory

# The guard's files whose every change is reported; `.automaton/` records are not: every
# status.py command changes them, and the other categories hold them to their history.
REPORTED = (
    guard_files.CONFIGURATION,
    guard_files.TOOL_TABLE,
    guard_files.HARNESS,
    guard_files.GIT_HOOKS,
    guard_files.SIGNERS,
)


@rule(
    "AR501",
    summary="Every commit that changed the guard's files (configuration, harness hook "
    "settings, git hooks, signers file) is shown to a reviewer",
    category=GUARD_CHANGES,
    severity="warning",
)
def guard_files_changed(
    project: Project, git: GitHistory, config: Config | None
) -> Iterator[Finding]:
    """The guard's files are a person's to change, so each change is shown, not refused."""
    if not git.is_repo:
        raise Skip("not a git repository")
    named = guard_files.named_relpaths(project, config, git.hooks_folders(project.root))
    kinds: dict[str, str | None] = {}
    changed: list[tuple[Commit, str, str]] = []
    for commit in git.commits:
        for path in commit.files:
            if path not in kinds:
                kinds[path] = guard_files.kind_of_relpath(path, named)
            kind = kinds[path]
            if kind in REPORTED:
                changed.append((commit, path, str(kind)))
    tables = _table_changes(project.root, git.prefix, changed)
    for commit, path, kind in changed:
        if kind != guard_files.TOOL_TABLE or (commit.sha, path) in tables:
            yield _changed(commit, path, kind)


def _table_changes(
    root: Path, prefix: str, changed: Sequence[tuple[Commit, str, str]]
) -> set[tuple[str, str]]:
    """(sha, path) of the commits whose `[tool.automaton]` table differs from its first
    parent's; a pyproject.toml change elsewhere in the file is source, not the guard's."""
    touched = [(c.sha, p) for c, p, kind in changed if kind == guard_files.TOOL_TABLE]
    specs = [f"{sha}{rev}:{prefix}{path}" for sha, path in touched for rev in ("", "^")]
    from automaton_rules.engine import gitlog

    contents = gitlog.read_blobs(root, specs)
    found = set()
    for number, place in enumerate(touched):
        after, before = contents[2 * number], contents[2 * number + 1]
        if _table(after) != _table(before):
            found.add(place)
    return found


def _table(blob: bytes | None) -> object:
    """The `[tool.automaton]` table of a pyproject.toml's bytes; None without one."""
    if blob is None:
        return None
    return guard_files.tool_table(blob.decode("utf-8", errors="replace"))


def _changed(commit: Commit, path: str, kind: str) -> Finding:
    """One change to one guard file, dated and signed as the commit is."""
    how = "deleted" if path in commit.deleted else "changed"
    when, author = clock.stamp(commit.time), commit.author or "(unknown author)"
    what = f"{path} ({kind})"
    if kind == guard_files.TOOL_TABLE:
        what = f"the [tool.automaton] table of {path} ({guard_files.CONFIGURATION})"
    return Finding(
        f"{what} was {how} on {when} in commit {commit.sha[:7]} by {author}",
        path=path,
        data={
            "detail": f"{path} {how} in {commit.sha[:7]}",
            "file": path,
            "kind": kind,
            **_signature(commit),
        },
    )


def _signature(commit: Commit) -> dict[str, str]:
    """The commit, its author and its date, as every finding of this category gives them."""
    return {"commit": commit.sha, "author": commit.author, "date": clock.stamp(commit.time)}


@rule(
    "AR502",
    summary="No task folder that git once held is gone from the work tree",
    category=GUARD_CHANGES,
)
def task_folders_removed(project: Project, git: GitHistory) -> Iterator[Finding]:
    """A deleted task folder is deleted evidence: its history, approvals and artifacts."""
    if not git.is_repo:
        raise Skip("not a git repository")
    tasks = project.tasks_dir.relative_to(project.root).as_posix() + "/"
    last: dict[str, Commit | None] = {}
    for commit in git.commits:
        for path in commit.deleted:
            folder = _task_folder(project.root, path, tasks)
            if folder is not None:
                last[folder] = commit  # commits run oldest first: the last one removed it
    for path in git.uncommitted:
        folder = _task_folder(project.root, path, tasks)
        if folder is not None and not (project.root / folder).is_dir():
            last[folder] = None  # removed since the last commit
    for folder, removal in sorted(last.items()):
        if not (project.root / folder).is_dir():
            yield _removed(folder, tasks, removal)


def _task_folder(root: Path, path: str, tasks: str) -> str | None:
    """The task folder a path lies in (`.automaton/tasks/NAME`, or a sub-task's folder when
    its parent's is still there); None for a path in no task's folder."""
    if not path.startswith(tasks):
        return None
    parts = path[len(tasks) :].split("/")
    if len(parts) < 2 or not _task_name(parts[0]):
        return None
    parent = tasks + parts[0]
    sub = len(parts) >= 4 and parts[1] == machine.SUBTASKS_DIR and _task_name(parts[2])
    if sub and (root / parent).is_dir():
        return f"{parent}/{machine.SUBTASKS_DIR}/{parts[2]}"
    return parent


def _task_name(segment: str) -> bool:
    """A folder a task can have: a stray one (AR402) may be renamed, and that is no loss."""
    try:
        split_name(segment)
    except AutomatonError:
        return False
    return True


def _removed(folder: str, tasks: str, commit: Commit | None) -> Finding:
    """A task folder gone: named by its task, with the commit that removed it."""
    name = folder[len(tasks) :].replace(f"/{machine.SUBTASKS_DIR}/", "/")
    if commit is None:
        how, detail, restore = "deleted and not committed yet", ", not committed", "HEAD"
        signature: dict[str, str] = {}
    else:
        how = (
            f"deleted on {clock.stamp(commit.time)} in commit {commit.sha[:7]} by "
            f"{commit.author or '(unknown author)'}"
        )
        detail, restore = f" in {commit.sha[:7]}", f"{commit.sha[:7]}^"
        signature = _signature(commit)
    return Finding(
        f"task folder {folder} was {how}: its evidence is gone",
        path=folder,
        task=name,
        correction=f"restore it: git checkout {restore} -- {folder}",
        data={"detail": f"task folder removed{detail}", "folder": folder, **signature},
    )


@rule(
    "AR503",
    summary="No guard file (configuration, harness hook settings, git hooks, signers file) "
    "has changes no commit holds",
    category=GUARD_CHANGES,
)
def guard_files_uncommitted(
    project: Project, git: GitHistory, config: Config | None
) -> Iterator[Finding]:
    """The audit judges the files on disk; a reviewer saw only what was committed."""
    if not git.is_repo:
        raise Skip("not a git repository")
    named = guard_files.named_relpaths(project, config, git.hooks_folders(project.root))
    for path in git.uncommitted:
        kind = guard_files.kind_of_relpath(path, named)
        if kind not in REPORTED:
            continue
        if kind == guard_files.TOOL_TABLE and not _table_edited(project, git, path):
            continue
        what = f"the [tool.automaton] table of {path}" if kind == guard_files.TOOL_TABLE else path
        yield Finding(
            f"{what} ({kind}) has changes no commit holds: the audit read what no reviewer saw",
            path=path,
            correction=f"commit it (AR501 shows the commit to a reviewer), or restore it: "
            f"git checkout HEAD -- {path}",
            data={"detail": f"{path} changed, not committed", "file": path, "kind": kind},
        )


def _table_edited(project: Project, git: GitHistory, path: str) -> bool:
    """Whether a pyproject.toml's `[tool.automaton]` table differs from the committed one."""
    try:
        text = (project.root / path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        text = ""
    from automaton_rules.engine import gitlog

    committed = gitlog.read_blobs(project.root, [f"HEAD:{git.prefix}{path}"])[0]
    return guard_files.tool_table(text) != _table(committed)


@rule(
    "AR504",
    summary="No guard file or task record has a second hard link",
    category=GUARD_CHANGES,
)
def guard_files_linked(
    project: Project, tasks: Sequence[Task], config: Config | None
) -> Iterator[Finding]:
    """A hard link made before the guard was there reaches the file from anywhere: the
    configuration rewritten, a key appended to the signers file, a history line forged."""
    root = project.root
    settings = config or Config()
    candidates = [str(root / relpath) for relpath in guard_files.project_guard_paths()]
    candidates.append(str(guard_files.signers_file(project, settings)))
    if settings.path is not None:
        candidates.append(str(settings.path))
    records = (store.STATE, store.HISTORY, store.APPROVALS)
    for task in tasks:  # only the records the folder's listing shows: 30,000 names at 10,000 tasks
        folder = str(task.path)
        candidates += [os.path.join(folder, name) for name in records if name in task.files]
    for path in dict.fromkeys(candidates):
        try:
            info = os.lstat(path)
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode) and info.st_nlink > 1:
            yield _linked(project, Path(path), info.st_nlink)


def _linked(project: Project, path: Path, links: int) -> Finding:
    """AR504's finding: which file, how many names it has, how to find the others."""
    relpath = (
        path.relative_to(project.root).as_posix()
        if path.is_relative_to(project.root)
        else str(path)
    )
    task = None
    tasks = project.tasks_dir.relative_to(project.root).as_posix() + "/"
    if relpath.startswith(tasks):
        found = _task_folder(project.root, relpath, tasks)
        task = (
            None if found is None else found[len(tasks) :].replace(f"/{machine.SUBTASKS_DIR}/", "/")
        )
    return Finding(
        f"{relpath} has {links} hard links: through another name it can be changed from "
        "anywhere, past every check of this file",
        path=relpath,
        task=task,
        correction=f"find the other names (find / -xdev -samefile {relpath}) and remove them",
        data={"detail": f"{relpath} has {links} hard links", "file": relpath, "links": links},
    )


def register_rules(register: Callable[[Rule], None]) -> None:
    """The checks on the guard's own history."""
    register(guard_files_changed)
    register(task_folders_removed)
    register(guard_files_uncommitted)
    register(guard_files_linked)
