"""The audit's hardening: plugins that exit or misspell their hook, a plugin reached twice,
shallow clones and a missing git, rebased commits, trailers naming complete tasks,
untracked files, deleted histories, categories that did not run, SARIF URIs, typos in
automaton.toml, the example verdict parser and unreadable history lines.

Projects come from the `automaton_project` fixture. Where a test needs commits placed
before or after a transition, it moves the task's recorded past (history and approval
log, the digest chain rewritten as status.py writes it) rather than racing the clock.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from audit_helpers import install, section, with_code, write_config

from automaton_rules.testing import Audit, AutomatonProject

ROOT = Path(__file__).resolve().parent.parent
STATUS_PY = ROOT / "status.py"
TIME_FORMAT = "%Y-%m-%dT%H:%M:%SZ"
HOUR = 3600

CAT1 = "=== Category 1: Out-of-order Artifacts ==="
CAT2 = "=== Category 2: State-Artifact Inconsistency ==="
CAT3 = "=== Category 3: Unauthorized Modifications ==="
CAT4 = "=== Category 4: Manually Created Task Folders ==="
ERRORS = "=== Errors ==="


# --------------------------------------------------------------------------- helpers


def now() -> int:
    return int(time.time())


def stamp(moment: int) -> str:
    return datetime.fromtimestamp(moment, timezone.utc).strftime(TIME_FORMAT)


def seconds(text: str) -> int:
    return int(datetime.strptime(text, TIME_FORMAT).replace(tzinfo=timezone.utc).timestamp())


def history(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (folder / ".state.history").read_text().splitlines()]


def rewrite_history(folder: Path, entries: list[dict[str, Any]]) -> None:
    """Write history entries, each chained to the line before as status.py chains them."""
    out, prev = [], None
    for entry in entries:
        line = json.dumps({**entry, "prev": prev}, separators=(",", ":"))
        out.append(line)
        prev = hashlib.sha256(line.encode()).hexdigest()
    (folder / ".state.history").write_text("".join(f"{line}\n" for line in out))


def retime(folder: Path, times: list[int]) -> None:
    """Give history entry i the time times[i], and the approval log the matching times."""
    entries = history(folder)
    assert len(entries) == len(times)
    entries = [{**e, "time": stamp(t)} for e, t in zip(entries, times)]
    rewrite_history(folder, entries)
    approved = [e for e in entries if e.get("command") == "--approve"]
    approvals = folder / ".state.approvals"
    lines = approvals.read_text().splitlines()
    assert len(lines) == len(approved)
    approvals.write_text(
        "".join(f"{line.split('|')[0]}|{e['time']}|user\n" for line, e in zip(lines, approved))
    )


def backdate(project: AutomatonProject, by: int = HOUR) -> None:
    """Every task with a history happened `by` seconds earlier than it did."""
    for folder in sorted(project.tasks_dir.iterdir()):
        if (folder / ".state.history").exists():
            retime(folder, [seconds(e["time"]) - by for e in history(folder)])


def git_project(project: AutomatonProject) -> None:
    """A repository whose first commit predates every task by hours."""
    project.commit(
        {"README.txt": "hello\n", "src/app.py": "x = 1\n"}, "init", when=now() - 3 * HOUR
    )


def commit_dated(
    project: AutomatonProject,
    files: dict[str, str],
    *,
    authored: int,
    committed: int,
    task: str | None = None,
) -> str:
    """Commit with separate author and committer dates (what a rebase leaves behind)."""
    for path, text in files.items():
        target = project.root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    project.git("add", "--", *files)
    message = f"change\n\nTask: {task}\n" if task else "change"
    env = {
        **os.environ,
        "GIT_AUTHOR_DATE": f"{authored} +0000",
        "GIT_COMMITTER_DATE": f"{committed} +0000",
    }
    subprocess.run(
        ["git", "commit", "-q", "-m", message],
        cwd=project.root,
        env=env,
        check=True,
        capture_output=True,
    )
    return project.git("rev-parse", "HEAD").strip()


def status_py(
    *args: str, env: dict[str, str], cwd: Path = ROOT
) -> subprocess.CompletedProcess[str]:
    """`python status.py ...` in a fresh interpreter, as CI runs it."""
    return subprocess.run(
        [sys.executable, str(STATUS_PY), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


# ------------------------------------------------------- 1. plugins that call sys.exit

EXIT_AT_IMPORT = "import sys\n\nsys.exit(0)\n"

EXIT_IN_RULE = """
import sys

from automaton_rules import hookimpl, rule


@rule(
    "EXT101",
    summary="exits",
    category="Exiting Checks",
    when=("audit", "validate", "transition"),
)
def exits(task):
    sys.exit(0)


@hookimpl
def register_rules(register):
    register(exits)
"""


@pytest.mark.parametrize(
    "source",
    [pytest.param(EXIT_AT_IMPORT, id="at-import"), pytest.param(EXIT_IN_RULE, id="in-rule")],
)
def test_plugin_calling_sys_exit_is_reported_by_name_in_the_audit(
    automaton_project: AutomatonProject, source: str
) -> None:
    automaton_project.task("fix", "research", files=["SPEC.md", "IMPLEMENTATION.md"])
    automaton_project.write_plugin(source, name="exiting_rules")
    text = automaton_project.run("--audit")
    assert text.exit_code == 2, text
    assert ERRORS in text.out.splitlines(), text.out
    errors = section(text.out, ERRORS)
    assert len(errors) == 1, errors
    assert errors[0].startswith("ERROR: plugin ") and "exiting_rules" in errors[0]
    # the other rules still report
    assert "[FAIL] fix (phase: research): found IMPLEMENTATION.md (implement phase artifact)" in (
        text.out.splitlines()
    )
    report = json.loads(automaton_project.run("--audit", "--json").out)
    assert report["summary"]["exit_code"] == 2
    assert [f["code"] for f in report["findings"]] == ["AR101", "AR202"]
    assert any("exiting_rules" in e for e in report["errors"])


@pytest.mark.parametrize(
    "source",
    [pytest.param(EXIT_AT_IMPORT, id="at-import"), pytest.param(EXIT_IN_RULE, id="in-rule")],
)
def test_plugin_calling_sys_exit_refuses_a_transition_and_leaves_state(
    automaton_project: AutomatonProject, source: str
) -> None:
    folder = automaton_project.task("fix", "research", files={"SPEC.md": "# Spec\n"})
    automaton_project.write_plugin(source, name="exiting_rules")
    before = (folder / ".state.history").read_text()
    result = automaton_project.run("--task", "fix", "--transition", "research:awaiting_approval")
    assert result.exit_code == 2, result
    assert "exiting_rules" in result.out + result.err
    assert (folder / ".state").read_text() == "research\n"
    assert (folder / ".state.history").read_text() == before
    # without the plugin the same move is allowed: the plugin alone refused it
    write_config(automaton_project, "")
    moved = automaton_project.run("--task", "fix", "--transition", "research:awaiting_approval")
    assert moved.exit_code == 0, moved
    assert (folder / ".state").read_text() == "research:awaiting_approval\n"


# ------------------------------------------------------------- 2. a misspelt hook name

MISSPELT_HOOK = """
from automaton_rules import Finding, hookimpl, rule


@rule("MIS101", summary="never registered", category="Misspelt Checks")
def never(task):
    yield Finding("never")


@hookimpl
def register_rule(register):
    register(never)
"""


def test_misspelt_hook_is_an_error_naming_the_plugin(
    automaton_project: AutomatonProject,
) -> None:
    automaton_project.task("demo", "research", files=["SPEC.md"])
    automaton_project.write_plugin(MISSPELT_HOOK, name="misspelt_rules")

    audit = automaton_project.audit()
    assert audit.exit_code == 2, audit.text
    assert "MIS101" not in audit.codes
    (error,) = audit.errors
    assert "misspelt_rules" in error
    assert "register_rule" in error
    assert ERRORS in audit.text.splitlines()
    assert any("misspelt_rules" in line for line in section(audit.text, ERRORS))

    listed = automaton_project.run("--list-rules")
    assert listed.exit_code == 2, listed
    assert "misspelt_rules" in listed.out + listed.err
    assert "AR101" in listed.out  # the built-in rules are still listed
    assert "MIS101" not in listed.out


# ------------------------------------------------- 3. one module reached by two routes

ACME_RULES = """
from automaton_rules import Finding, hookimpl, rule


@rule("ACME101", summary="DESIGN.md names its modules", category="Acme Checks")
def design_names_modules(task):
    text = task.read("DESIGN.md")
    if text is not None and "## Modules" not in text:
        yield Finding("DESIGN.md has no Modules section", path=task.relpath("DESIGN.md"))


@hookimpl
def register_rules(register):
    register(design_names_modules)
"""


def test_module_reached_by_entry_point_and_configuration_loads_once(
    automaton_project: AutomatonProject, tmp_path: Path
) -> None:
    automaton_project.task("login", "design:approved")  # DESIGN.md has no Modules section
    site = tmp_path / "site-acme-twice"
    install(site, "acme_rules", ACME_RULES, "acme")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)])}
    root = str(automaton_project.root)

    once = status_py("--audit", "--json", "--project", root, env=env)
    assert once.returncode == 1, once.stderr
    baseline = json.loads(once.stdout)
    assert [f["code"] for f in baseline["findings"]] == ["ACME101"]

    write_config(automaton_project, 'plugins = ["acme_rules"]\n')
    twice = status_py("--audit", "--json", "--project", root, env=env)
    report = json.loads(twice.stdout)
    assert twice.returncode == once.returncode == 1, twice.stderr
    assert report["errors"] == []
    assert report["summary"]["exit_code"] == 1
    assert [f["code"] for f in report["findings"]] == ["ACME101"]
    assert [r["code"] for r in report["rules"]].count("ACME101") == 1

    listed = status_py("--list-rules", "--json", "--project", root, env=env)
    assert listed.returncode == 0, listed.stdout + listed.stderr
    codes = [row["code"] for row in json.loads(listed.stdout)["rules"]]
    assert codes.count("ACME101") == 1
    text = status_py("--list-rules", "--project", root, env=env)
    assert text.returncode == 0, text.stderr
    assert sum(line.startswith("ACME101 ") for line in text.stdout.splitlines()) == 1


# ------------------------------------------------------------------ 4. shallow clones


def test_shallow_clone_is_an_error_and_other_categories_still_report(
    automaton_project: AutomatonProject, tmp_path: Path
) -> None:
    source = automaton_project
    git_project(source)
    source.task("fix", "research", files=["SPEC.md", "IMPLEMENTATION.md"])
    source.git("add", "-A")
    source.git("commit", "-q", "-m", "tasks")
    full = source.audit()
    assert full.errors == [], full.text  # the full repository audits without error

    clone = tmp_path / "shallow-clone"
    subprocess.run(
        ["git", "clone", "-q", "--depth", "1", source.root.as_uri(), str(clone)],
        check=True,
        capture_output=True,
    )
    assert (clone / ".git" / "shallow").exists()
    audit = AutomatonProject(clone).audit()
    assert audit.exit_code == 2, audit.text
    shallow = [e for e in audit.errors if "shallow clone" in e]
    assert len(shallow) == 1, audit.errors
    assert "fetch-depth: 0" in shallow[0]
    assert any("shallow clone" in line for line in section(audit.text, ERRORS))
    assert audit.codes == ["AR101", "AR202"]
    assert (
        "[FAIL] fix (phase: research): found IMPLEMENTATION.md (implement phase artifact)"
        in section(audit.text, CAT1)
    )
    assert "Skipped: not a git repository" not in audit.text


# --------------------------------------------------------- 5. git missing, not a repo


def test_git_missing_from_path_is_an_error(
    automaton_project: AutomatonProject, tmp_path: Path
) -> None:
    git_project(automaton_project)
    automaton_project.task("demo", "research", files=["SPEC.md"])
    empty = tmp_path / "bin-without-git"
    empty.mkdir()
    env = {**os.environ, "PATH": str(empty), "PYTHONPATH": str(ROOT)}
    proc = status_py("--audit", "--project", str(automaton_project.root), env=env)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    assert "Cannot run git" in proc.stdout
    assert any("Cannot run git" in line for line in section(proc.stdout, ERRORS))
    assert "Skipped: not a git repository" not in proc.stdout


@pytest.mark.parametrize(("extra", "exit_code"), [((), 0), (("IMPLEMENTATION.md",), 1)])
def test_folder_that_is_not_a_repository_skips_category_3(
    automaton_project: AutomatonProject, extra: tuple[str, ...], exit_code: int
) -> None:
    automaton_project.task("demo", "research", files=["SPEC.md", *extra])
    assert not (automaton_project.root / ".git").exists()
    audit = automaton_project.audit()
    assert section(audit.text, CAT3) == ["Skipped: not a git repository"]
    assert audit.errors == []
    assert audit.exit_code == exit_code, audit.text


# ------------------------------------------------------------- 6. rebase tolerance


@pytest.mark.parametrize("trailer", [True, False], ids=["with-trailer", "no-trailer"])
def test_commit_authored_in_implement_but_committed_later_is_not_reported(
    automaton_project: AutomatonProject, trailer: bool
) -> None:
    git_project(automaton_project)
    folder = automaton_project.task("moving", "bug_find")
    count = len(history(folder))
    base, left = now() - 2 * HOUR, now() - HOUR
    retime(folder, [base + 60 * i for i in range(count - 1)] + [left])
    entries = history(folder)
    assert [e["to"] for e in entries[-2:]] == ["implement", "bug_find"]
    entered_implement = seconds(entries[-2]["time"])
    assert with_code(automaton_project.audit(), "AR301") == []
    task = "moving" if trailer else None

    commit_dated(
        automaton_project,
        {"src/app.py": "x = 2\n"},
        authored=entered_implement + 30,  # written in implement...
        committed=left + 600,  # ...and rebased after the task moved on
        task=task,
    )
    audit = automaton_project.audit()
    assert with_code(audit, "AR301") == [], audit.text

    sha = commit_dated(
        automaton_project,
        {"src/app.py": "x = 3\n"},
        authored=left + 900,
        committed=left + 1200,
        task=task,
    )
    audit = automaton_project.audit()
    (finding,) = with_code(audit, "AR301")
    assert finding["task"] == "moving"
    assert f"(state: bug_find, commit: {sha[:7]}" in finding["message"]
    assert audit.exit_code == 1


# ------------------------------------------------------ 7. trailers and complete tasks


def test_trailer_naming_a_complete_task_is_reported(automaton_project: AutomatonProject) -> None:
    git_project(automaton_project)
    automaton_project.task("finished", "complete")
    automaton_project.task("building", "implement")  # someone may edit: no excuse for a trailer
    backdate(automaton_project)
    sha = automaton_project.commit(
        {"src/app.py": "x = 2\n"}, "late fix", task="finished", when=now() - 600
    )
    audit = automaton_project.audit()
    (finding,) = with_code(audit, "AR301")
    assert finding["task"] == "finished"
    assert finding["path"] == "src/app.py"
    assert f"(state: complete, commit: {sha[:7]}" in finding["message"]
    assert audit.exit_code == 1


def test_unattributed_commit_is_not_held_against_a_complete_task(
    automaton_project: AutomatonProject,
) -> None:
    git_project(automaton_project)
    automaton_project.task("finished", "complete")
    automaton_project.task("researching", "research", files=["SPEC.md"])
    backdate(automaton_project)
    automaton_project.commit({"src/app.py": "x = 2\n"}, "no trailer", when=now() - 600)
    audit = automaton_project.audit()
    assert [(f["code"], f["task"]) for f in audit.findings] == [("AR301", "researching")]
    assert audit.for_task("finished") == []


def test_unattributed_commit_with_only_a_complete_task_is_fine(
    automaton_project: AutomatonProject,
) -> None:
    git_project(automaton_project)
    automaton_project.task("finished", "complete")
    backdate(automaton_project)
    automaton_project.commit({"src/app.py": "x = 2\n"}, "no trailer", when=now() - 600)
    audit = automaton_project.audit()
    assert audit.findings == [], audit.text
    assert audit.exit_code == 0


# ------------------------------------------------------- 8. untracked and uncommitted


def test_untracked_file_is_not_an_uncommitted_change_by_default(
    automaton_project: AutomatonProject,
) -> None:
    git_project(automaton_project)
    automaton_project.task("researching", "research", files=["SPEC.md"])
    backdate(automaton_project)
    (automaton_project.root / "src" / "new.py").write_text("n = 1\n")
    audit = automaton_project.audit()
    assert with_code(audit, "AR301") == [], audit.text
    assert audit.exit_code == 0


def test_untracked_file_counts_with_source_untracked(
    automaton_project: AutomatonProject,
) -> None:
    automaton_project.commit(  # the configuration is committed, so it is not untracked
        {
            "README.txt": "hello\n",
            "src/app.py": "x = 1\n",
            "automaton.toml": "source-untracked = true\n",
        },
        "init",
        when=now() - 3 * HOUR,
    )
    automaton_project.task("researching", "research", files=["SPEC.md"])
    backdate(automaton_project)
    assert with_code(automaton_project.audit(), "AR301") == []
    (automaton_project.root / "src" / "new.py").write_text("n = 1\n")
    audit = automaton_project.audit()
    (finding,) = with_code(audit, "AR301")
    assert (finding["task"], finding["path"]) == ("researching", "src/new.py")
    assert "uncommitted" in finding["message"]
    assert audit.exit_code == 1


def test_modified_and_staged_tracked_files_are_reported_by_default(
    automaton_project: AutomatonProject,
) -> None:
    git_project(automaton_project)
    automaton_project.task("researching", "research", files=["SPEC.md"])
    backdate(automaton_project)
    (automaton_project.root / "src" / "app.py").write_text("x = 99\n")  # modified
    (automaton_project.root / "src" / "staged.py").write_text("s = 1\n")
    automaton_project.git("add", "src/staged.py")  # staged, new
    (automaton_project.root / "src" / "loose.py").write_text("u = 1\n")  # untracked
    audit = automaton_project.audit()
    found = with_code(audit, "AR301")
    assert sorted(f["path"] for f in found) == ["src/app.py", "src/staged.py"]
    assert all("uncommitted" in f["message"] for f in found)
    assert audit.exit_code == 1


# ----------------------------------------------------------------- 9. deleted history


def test_ar208_deleted_history_is_an_error(automaton_project: AutomatonProject) -> None:
    folder = automaton_project.task("made", "research", files=["SPEC.md"])
    assert (folder / ".state.mutex").exists()
    (folder / ".state.history").unlink()
    audit = automaton_project.audit()
    (finding,) = with_code(audit, "AR208")
    assert finding["severity"] == "error"
    assert ".state.history was deleted" in finding["message"]
    assert audit.exit_code == 1
    assert any(
        line.startswith("[FAIL] made: .state.history was deleted")
        for line in audit.text.splitlines()
    )


def test_ar208_task_from_an_older_version_is_a_note(automaton_project: AutomatonProject) -> None:
    folder = automaton_project.task("legacy", "research", files=["SPEC.md"])
    (folder / ".state.history").unlink()
    (folder / ".state.mutex").unlink()
    audit = automaton_project.audit()
    assert audit.codes == ["AR208"]
    assert audit.findings[0]["severity"] == "note"
    assert ".state.history was deleted" not in audit.findings[0]["message"]
    assert audit.exit_code == 0


# ------------------------------------------------- 10. categories left out by --select


def test_select_prints_skipped_for_unselected_categories(
    automaton_project: AutomatonProject,
) -> None:
    git_project(automaton_project)
    automaton_project.task("fix", "research", files=["SPEC.md", "IMPLEMENTATION.md"])
    automaton_project.folder("hand-made", files=["SPEC.md"])
    full = automaton_project.audit()
    assert {"AR101", "AR202", "AR401"} <= set(full.codes)  # every category has something
    audit = automaton_project.audit("--select", "AR2")
    for heading in (CAT1, CAT3, CAT4):
        assert section(audit.text, heading) == ["Skipped: no rule of this category selected"]
    lines = section(audit.text, CAT2)
    assert any(line.startswith("[WARN] fix:") for line in lines)
    assert audit.codes == ["AR202"]


# ---------------------------------------------------- 11. a rule that raises: no verdict

RAISING_RULE = """
from automaton_rules import hookimpl, rule


@rule("BRK101", summary="raises", category={category!r})
def raises(task):
    raise RuntimeError("kaput")


@hookimpl
def register_rules(register):
    register(raises)
"""


@pytest.mark.parametrize(
    ("category", "heading"),
    [
        ("Broken Checks", "=== Category 5: Broken Checks ==="),
        ("Out-of-order Artifacts", CAT1),
    ],
    ids=["own-category", "builtin-category"],
)
def test_rule_that_raises_gives_its_category_no_verdict(
    automaton_project: AutomatonProject, category: str, heading: str
) -> None:
    automaton_project.task("one", "research", files=["SPEC.md"])
    automaton_project.task("two", "design", files=["DESIGN.md"])
    automaton_project.write_plugin(RAISING_RULE.format(category=category), name="raising_rules")
    audit = automaton_project.audit()
    assert audit.exit_code == 2, audit.text
    lines = section(audit.text, heading)
    assert lines == ["Error: rule BRK101 failed (see Errors); no verdict"]
    assert not any(line.startswith("[PASS]") for line in lines)
    assert any("BRK101" in e and "kaput" in e for e in audit.errors)
    # categories whose rules all ran keep their verdicts
    assert section(audit.text, CAT2)[0].startswith("[PASS] one:")


# ----------------------------------------------------------------- 12. SARIF URIs

ODD_PATH_RULE = """
from automaton_rules import Finding, hookimpl, rule


@rule("URI101", summary="odd path", category="Odd Paths")
def odd(task):
    yield Finding("odd path", path="src/my file \\u00fc.py")


@hookimpl
def register_rules(register):
    register(odd)
"""


def test_sarif_uri_is_percent_encoded(automaton_project: AutomatonProject) -> None:
    automaton_project.task("odd", "research", files=["SPEC.md"])
    automaton_project.write_plugin(ODD_PATH_RULE, name="odd_rules")
    result = automaton_project.run("--audit", "--format", "sarif")
    assert result.exit_code == 1, result
    (found,) = [r for r in json.loads(result.out)["runs"][0]["results"] if r["ruleId"] == "URI101"]
    (location,) = found["locations"]
    artifact = location["physicalLocation"]["artifactLocation"]
    assert artifact["uri"] == "src/my%20file%20%C3%BC.py"
    assert artifact["uriBaseId"] == "%SRCROOT%"
    report = json.loads(automaton_project.run("--audit", "--json").out)
    assert with_code(Audit(1, report, "", report["findings"]), "URI101")[0]["path"] == (
        "src/my file ü.py"
    )


# ------------------------------------------------------ 13. typos in automaton.toml


def test_unknown_code_in_config_select_names_the_file_and_keys(
    automaton_project: AutomatonProject,
) -> None:
    automaton_project.task("demo", "research", files=["SPEC.md"])
    write_config(automaton_project, 'select = ["ZZ9"]\n')
    result = automaton_project.run("--audit")
    assert result.exit_code == 2, result
    assert result.out == ""
    assert "ZZ9" in result.err
    assert str(automaton_project.root / "automaton.toml") in result.err
    assert "(keys select, ignore, severity)" in result.err


# --------------------------------------------------------- 14. rules/verdict.py parser


@pytest.fixture
def verdict_of():
    sys.path.insert(0, str(ROOT / "rules"))
    try:
        import verdict
    finally:
        sys.path.remove(str(ROOT / "rules"))
    return verdict.verdict_of


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("tests did not FAIL.\nVerdict: PASS\n", "PASS"),
        ("## Verdict\nverdict - needs_review", "NEEDS_REVIEW"),
    ],
)
def test_verdict_of(verdict_of, text: str, expected: str) -> None:
    assert verdict_of(text) == expected


# -------------------------------------------------- 15. AR204 with an unreadable line


def test_ar204_last_history_line_not_json(automaton_project: AutomatonProject) -> None:
    folder = automaton_project.task("chained", "design")
    path = folder / ".state.history"
    lines = path.read_text().splitlines()
    lines[-1] = "not json at all"
    path.write_text("".join(f"{line}\n" for line in lines))
    audit = automaton_project.audit()
    (finding,) = with_code(audit, "AR204")
    assert "an unreadable line" in finding["message"]
    assert finding["message"].startswith('.state says "design" but .state.history ends at ')
    assert audit.exit_code == 1


# --------------------------------------------------------------------------- timing


def test_helpers_keep_the_history_chain_valid(automaton_project: AutomatonProject) -> None:
    """backdate() and retime() rewrite history as status.py would: the audit stays clean."""
    automaton_project.task("gated", "design:approved")
    backdate(automaton_project, 2 * HOUR)
    audit = automaton_project.audit()
    assert audit.findings == [], audit.text
    first = seconds(history(automaton_project.task_dir("gated"))[0]["time"])
    assert first < now() - HOUR
