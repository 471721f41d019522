"""Baselines and PR-scoped audits (issue 13): `--write-baseline` records today's findings by
fingerprint (rule, task, path, commit), `--baseline` fails only on findings it does not
hold and lists its entries no longer found, and `--since REV` keeps the git rules to the
commits after REV — in every format, through the CLI and the Python API.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest
from helpers import CAT4, HOUR, backdate, git_project, now, section, with_code

from automaton_rules.engine.findings import Finding
from automaton_rules.report import baseline as baselines
from automaton_rules.testing import AutomatonProject

# --------------------------------------------------------------------------- helpers


@pytest.fixture
def legacy(automaton_project: AutomatonProject) -> AutomatonProject:
    """A project adopted late: a task ahead of its phase, a folder made by hand, and code
    committed while a task was in research."""
    git_project(automaton_project)
    automaton_project.task("skipper", "research", files=["SPEC.md", "IMPLEMENTATION.md"])
    automaton_project.task("coder", "research", files=["SPEC.md"])
    automaton_project.folder("by-hand", files=["SPEC.md"])
    backdate(automaton_project)
    automaton_project.commit({"src/app.py": "x = 2\n"}, "code", task="coder", when=now() - 600)
    return automaton_project


def write_baseline(project: AutomatonProject, path: Path, *args: str) -> tuple[int, str]:
    result = project.run("--audit", "--write-baseline", str(path), *args)
    assert result.err == "", result.err
    return result.exit_code, result.out


# ------------------------------------------------------------------ the round trip


def test_round_trip_only_the_new_violation_fails(legacy: AutomatonProject, tmp_path: Path) -> None:
    """The issue's done-when: write it, add a violation, and only the new one fails."""
    before = legacy.audit()
    assert before.exit_code == 1
    assert {"AR101", "AR202", "AR301", "AR401"} <= set(before.codes)
    file = tmp_path / "baseline.json"
    code, out = write_baseline(legacy, file)
    assert code == 0
    count = len(before.findings)
    assert out.strip() == (
        f"Wrote baseline {file}: {count} findings as {count} entries "
        "(fingerprint: rule code, task, path, commit)"
    )

    accepted = legacy.audit("--baseline", str(file))
    assert accepted.exit_code == 0, accepted.text
    assert accepted.findings == []
    assert accepted.report["baseline"] == {"file": str(file), "known": count, "gone": []}
    assert "0 violations found" in accepted.text.splitlines()

    (legacy.task_dir("coder") / "DESIGN.md").write_text("# ahead\n")  # a new violation
    after = legacy.audit("--baseline", str(file))
    assert after.exit_code == 1, after.text
    assert [(f["code"], f["task"], f["path"]) for f in after.findings] == [
        ("AR101", "coder", ".automaton/tasks/coder/DESIGN.md"),
        ("AR202", "coder", ".automaton/tasks/coder/.state"),  # a warning: reported, not failed
    ]
    assert after.report["summary"]["violations"] == 1
    summary = section(after.text, "=== Summary ===")
    assert summary[1:5] == [
        "1 violation found",
        "  - coder: out-of-order artifact (DESIGN.md)",
        "1 warning",
        "  - coder: state-artifact mismatch (.state says research, DESIGN.md exists)",
    ]
    assert f"{count} findings known from the baseline {file}" in summary


def test_a_second_commit_to_a_file_the_baseline_knows_is_new(
    legacy: AutomatonProject, tmp_path: Path
) -> None:
    """Found by a review: AR301 reported a task's file once, for its first commit, so a
    baseline holding that commit hid every later one. It reports the latest."""
    file = tmp_path / "baseline.json"
    assert write_baseline(legacy, file)[0] == 0
    old = legacy.git("rev-parse", "HEAD").strip()
    legacy.commit({"src/app.py": "x = 3\n"}, "again", task="coder", when=now() - 300)
    new = legacy.git("rev-parse", "HEAD").strip()
    after = legacy.audit("--baseline", str(file))
    assert after.exit_code == 1, after.text
    assert [(f["code"], f["path"], f["data"]["commit"]) for f in after.findings] == [
        ("AR301", "src/app.py", new)
    ]
    gone = after.report["baseline"]["gone"]
    assert [(g["code"], g["commit"]) for g in gone] == [("AR301", old)]


def test_known_findings_are_shown_as_base_and_not_counted(
    legacy: AutomatonProject, tmp_path: Path
) -> None:
    file = tmp_path / "baseline.json"
    write_baseline(legacy, file)
    text = legacy.run("--audit", "--baseline", str(file)).out
    lines = section(text, CAT4)
    assert any(line.startswith("[BASE] by-hand: task was created manually") for line in lines)
    assert not any(line.startswith("[PASS] by-hand") for line in lines)
    assert not any(line.startswith("[FAIL]") for line in text.splitlines())


def test_the_file_holds_fingerprints_never_messages_or_times(
    legacy: AutomatonProject, tmp_path: Path
) -> None:
    file = tmp_path / "baseline.json"
    write_baseline(legacy, file)
    content = json.loads(file.read_text())
    assert content["version"] == baselines.VERSION
    assert content["kind"] == baselines.KIND
    assert content["fingerprint"] == ["code", "task", "path", "commit"]
    for entry in content["findings"]:
        assert set(entry) == {"code", "task", "path", "commit", "count"}
    (unauthorized,) = [e for e in content["findings"] if e["code"] == "AR301"]
    sha = legacy.git("log", "-1", "--format=%H").strip()
    assert unauthorized == {
        "code": "AR301",
        "task": "coder",
        "path": "src/app.py",
        "commit": sha,
        "count": 1,
    }
    raw = file.read_text()
    assert not re.search(r"\d{4}-\d\d-\d\dT", raw), raw  # no time stamp
    assert "modified during" not in raw and '"line"' not in raw  # no message, no line
    assert not list(tmp_path.glob(".baseline.json.*"))  # the temporary file was renamed


def test_a_changed_message_with_the_same_fingerprint_stays_known(
    legacy: AutomatonProject, tmp_path: Path
) -> None:
    """AR202's message names the artifacts present; its fingerprint does not."""
    file = tmp_path / "baseline.json"
    write_baseline(legacy, file)
    (legacy.task_dir("skipper") / "BUG_REPORT.md").write_text("# later\n")
    audit = legacy.audit("--baseline", str(file))
    assert [f["code"] for f in audit.findings] == ["AR101"]  # BUG_REPORT.md is new
    assert "AR202" not in audit.codes  # its message changed; the problem did not


def test_entries_no_longer_found_are_listed_and_do_not_fail(
    legacy: AutomatonProject, tmp_path: Path
) -> None:
    file = tmp_path / "baseline.json"
    write_baseline(legacy, file)
    assert legacy.run("--upgrade").exit_code == 0  # adopts by-hand: AR401 is gone
    audit = legacy.audit("--baseline", str(file))
    assert audit.exit_code == 0, audit.text
    gone = audit.report["baseline"]["gone"]
    assert gone == [
        {
            "code": "AR401",
            "task": "by-hand",
            "path": ".automaton/tasks/by-hand/.state",
            "commit": None,
            "count": 1,
        }
    ]
    assert section(audit.text, "=== Baseline entries no longer found ===") == [
        "  - by-hand: AR401 at .automaton/tasks/by-hand/.state"
    ]


def test_fail_on_applies_to_new_findings_only(legacy: AutomatonProject, tmp_path: Path) -> None:
    file = tmp_path / "baseline.json"
    write_baseline(legacy, file)
    assert legacy.run("--audit", "--baseline", str(file), "--fail-on", "note").exit_code == 0
    legacy.commit({"automaton.toml": "fail-on = 'error'\n"}, "configure")  # an AR501 warning
    audit = legacy.audit("--baseline", str(file))
    assert audit.codes == ["AR501"]
    assert audit.exit_code == 0
    assert legacy.run("--audit", "--baseline", str(file), "--fail-on", "warning").exit_code == 1


# ---------------------------------------------------------------------- every format


def test_every_format_reports_only_new_findings(legacy: AutomatonProject, tmp_path: Path) -> None:
    file = tmp_path / "baseline.json"
    write_baseline(legacy, file)
    assert legacy.run("--upgrade").exit_code == 0
    (legacy.task_dir("coder") / "DESIGN.md").write_text("# ahead\n")
    args = ("--audit", "--baseline", str(file), "--format")

    sarif = legacy.run(*args, "sarif")
    assert sarif.exit_code == 1
    (run,) = json.loads(sarif.out)["runs"]
    assert [(r["ruleId"], r["baselineState"]) for r in run["results"]] == [
        ("AR101", "new"),
        ("AR202", "new"),
    ]
    assert run["results"][0]["partialFingerprints"]["automatonFingerprint/v1"]
    assert [e["code"] for e in run["properties"]["baseline"]["gone"]] == ["AR401"]

    github = legacy.run(*args, "github")
    assert github.exit_code == 1
    lines = github.out.splitlines()
    assert [line.split("::")[1] for line in lines if line.startswith("::error")] == [
        "error file=.automaton/tasks/coder/DESIGN.md,title=AR101"
    ]
    assert any(
        line.startswith("::notice title=automaton-rules baseline::no longer found: AR401")
        for line in lines
    )
    assert lines[-1] == (
        "3 tasks audited, 1 violation found, 1 warning, 3 known from the baseline, 0 errors"
    )

    as_json = json.loads(legacy.run(*args, "json").out)
    assert [f["code"] for f in as_json["findings"]] == ["AR101", "AR202"]
    assert as_json["exit_code"] == 1


@pytest.mark.parametrize("fmt", ["json", "sarif", "github"])
def test_write_baseline_answers_in_every_format(
    legacy: AutomatonProject, tmp_path: Path, fmt: str
) -> None:
    file = tmp_path / f"{fmt}.json"
    code, out = write_baseline(legacy, file, "--format", fmt)
    assert code == 0
    entries = len(json.loads(file.read_text())["findings"])
    if fmt == "json":
        body = json.loads(out)
        assert body["exit_code"] == 0
        assert body["baseline"]["entries"] == entries
    elif fmt == "sarif":
        (run,) = json.loads(out)["runs"]
        assert run["results"] == []
        assert run["invocations"][0]["exitCode"] == 0
        assert run["properties"]["baseline"]["entries"] == entries
    else:
        assert out.startswith("::notice title=automaton-rules baseline::Wrote baseline")


# ------------------------------------------------------------------------- refusals


def test_a_missing_baseline_is_an_error(legacy: AutomatonProject, tmp_path: Path) -> None:
    result = legacy.run("--audit", "--baseline", str(tmp_path / "none.json"))
    assert result.exit_code == 2
    assert result.out == ""
    assert result.err.startswith("ERROR: Baseline ")
    assert "not found" in result.err
    assert "--write-baseline" in result.err


@pytest.mark.parametrize(
    "content",
    [
        "{",
        "[]",
        '{"kind": "automaton-rules baseline", "version": 99, "findings": []}',
        '{"version": 1, "findings": []}',
        '{"kind": "automaton-rules baseline", "version": 1, "findings": [{"task": "x"}]}',
        '{"kind": "automaton-rules baseline", "version": 1, "findings": '
        '[{"code": "AR101", "count": 0}]}',
        '{"kind": "automaton-rules baseline", "version": 1, "findings": '
        '[{"code": "AR101", "path": 3}]}',
    ],
)
def test_an_invalid_baseline_is_an_error(
    legacy: AutomatonProject, tmp_path: Path, content: str
) -> None:
    file = tmp_path / "bad.json"
    file.write_text(content)
    for fmt in ("text", "json"):
        result = legacy.run("--audit", "--baseline", str(file), "--format", fmt)
        assert result.exit_code == 2, result
        assert result.out == ""
        assert result.err.startswith(f"ERROR: Baseline {file} is not a baseline")


def test_baseline_options_go_with_audit_only(legacy: AutomatonProject, tmp_path: Path) -> None:
    file = tmp_path / "b.json"
    for option, value in (("--baseline", str(file)), ("--write-baseline", str(file))):
        result = legacy.run("--list", option, value)
        assert result.exit_code == 2
        assert result.err.strip() == f"ERROR: {option} goes with --audit."
    both = legacy.run("--audit", "--baseline", str(file), "--write-baseline", str(file))
    assert both.exit_code == 2
    assert "cannot be combined" in both.err
    assert not file.exists()


def test_an_unwritable_baseline_is_an_error_and_leaves_nothing(
    legacy: AutomatonProject, tmp_path: Path
) -> None:
    target = tmp_path / "no-such-folder" / "baseline.json"
    result = legacy.run("--audit", "--write-baseline", str(target))
    assert result.exit_code == 2
    assert result.err.startswith(f"ERROR: Cannot write the baseline {target}")
    assert not target.parent.exists()


def test_an_audit_with_errors_writes_no_baseline(legacy: AutomatonProject, tmp_path: Path) -> None:
    (legacy.task_dir("coder") / ".state").write_text("implemnt\n")
    file = tmp_path / "baseline.json"
    result = legacy.run("--audit", "--write-baseline", str(file))
    assert result.exit_code == 2
    assert "not written" in result.err
    assert not file.exists()


# ------------------------------------------------------------------------ Python API


def finding(code: str, task: str | None, path: str | None, **data: str) -> Finding:
    return Finding("message", path=path, code=code, task=task, data=data)


def test_fingerprint_is_rule_task_path_and_commit() -> None:
    found = finding("AR501", None, "automaton.toml", commit="a" * 40, date="2026-01-01")
    assert baselines.fingerprint(found) == ("AR501", None, "automaton.toml", "a" * 40)
    other_time = finding("AR501", None, "automaton.toml", commit="a" * 40, date="2027-01-01")
    assert baselines.fingerprint(found) == baselines.fingerprint(other_time)
    assert baselines.fingerprint(finding("AR101", "t", "p")).commit is None


def test_a_repeated_fingerprint_is_known_as_often_as_the_baseline_counts_it() -> None:
    twice = [finding("X1", "t", "p"), finding("X1", "t", "p")]
    accepted = Counter({baselines.fingerprint(twice[0]): 1})
    compared = baselines.compare([*twice, finding("X2", "t", "p")], accepted)
    assert [f.code for f in compared.known] == ["X1"]
    assert [f.code for f in compared.new] == ["X1", "X2"]
    assert compared.gone == []
    gone = baselines.compare([], accepted).gone
    assert gone == [(baselines.fingerprint(twice[0]), 1)]


def test_write_and_read_agree(tmp_path: Path) -> None:
    found = [finding("X1", "t", "p"), finding("X1", "t", "p"), finding("X2", None, None)]
    file = tmp_path / "b.json"
    assert baselines.write(file, found) == 2
    assert baselines.read(file) == Counter(baselines.fingerprint(f) for f in found)


# ---------------------------------------------------------------------------- --since


@pytest.fixture
def branched(automaton_project: AutomatonProject) -> tuple[AutomatonProject, str]:
    """A task in research with code committed for it before and after a `main` commit."""
    project = automaton_project
    git_project(project)
    project.task("coder", "research", files=["SPEC.md"])
    backdate(project, by=2 * HOUR)
    project.commit({"src/old.py": "x = 1\n"}, "old", task="coder", when=now() - HOUR)
    project.commit({"automaton.toml": "fail-on = 'error'\n"}, "config", when=now() - HOUR)
    main = project.git("rev-parse", "HEAD").strip()
    project.git("branch", "main-copy", main)
    project.commit({"src/new.py": "x = 2\n"}, "new", task="coder", when=now() - 600)
    return project, main


def test_since_limits_the_git_rules_to_the_range(
    branched: tuple[AutomatonProject, str],
) -> None:
    """The issue's done-when: `--since` limits the git rules to the range."""
    project, main = branched
    full = project.audit()
    assert sorted(f["path"] for f in with_code(full, "AR301")) == ["src/new.py", "src/old.py"]
    assert with_code(full, "AR501")
    for rev in ("main-copy", main, main[:10]):
        ranged = project.audit("--since", rev)
        assert [f["path"] for f in with_code(ranged, "AR301")] == ["src/new.py"], rev
        assert with_code(ranged, "AR501") == []
        assert ranged.report["since"] == {"rev": rev, "commit": main}
    text = project.run("--audit", "--since", "main-copy").out
    assert f"git rules read the commits after main-copy ({main[:7]}) only" in text


def test_since_head_sees_no_commits(branched: tuple[AutomatonProject, str]) -> None:
    project, _ = branched
    audit = project.audit("--since", "HEAD")
    assert with_code(audit, "AR301") == []
    assert audit.exit_code == 0, audit.text


@pytest.mark.parametrize("rev", ["no-such-branch", "-p", "--all", "HEAD..main-copy", ""])
def test_an_unknown_revision_is_an_error(branched: tuple[AutomatonProject, str], rev: str) -> None:
    project, _ = branched
    result = project.run("--audit", f"--since={rev}")
    assert result.exit_code == 2, result
    assert result.out == ""
    assert result.err.startswith(f"ERROR: --since {rev}: git knows no commit by that name")
    assert "fetch-depth: 0" in result.err


def test_since_outside_a_repository_is_an_error(automaton_project: AutomatonProject) -> None:
    automaton_project.task("coder", "research", files=["SPEC.md"])
    result = automaton_project.run("--audit", "--since", "origin/main")
    assert result.exit_code == 2
    assert "is not in a git repository" in result.err


def test_pr_audit_with_baseline_and_since(
    branched: tuple[AutomatonProject, str], tmp_path: Path
) -> None:
    """The PR workflow of docs/audit.md: a baseline of main, the PR's commits only."""
    project, _ = branched
    file = tmp_path / "baseline.json"
    branch = project.git("rev-parse", "--abbrev-ref", "HEAD").strip()
    project.git("checkout", "-q", "main-copy")  # the baseline is main's findings
    assert project.run("--audit", "--write-baseline", str(file)).exit_code == 0
    project.git("checkout", "-q", branch)
    audit = project.audit("--baseline", str(file), "--since", "main-copy")
    assert [f["path"] for f in audit.findings] == ["src/new.py"]
    assert audit.exit_code == 1
    # main's AR301 for src/old.py lies before the range: not looked for, so not gone.
    assert audit.report["baseline"]["gone"] == []
    assert (
        "no longer found"
        not in project.run("--audit", "--baseline", str(file), "--since", "main-copy").out
    )


def test_docs_show_a_pr_workflow_using_them() -> None:
    """The issue: `docs/audit.md` shows a PR workflow that uses the baseline and --since."""
    text = (Path(__file__).resolve().parent.parent / "docs" / "audit.md").read_text()
    workflow = text[text.index("# .github/workflows/automaton-pr.yml") :]
    workflow = workflow[: workflow.index("```")]
    assert "on: pull_request" in workflow
    assert "fetch-depth: 0" in workflow
    assert "--baseline" in workflow
    assert "--since origin/${{ github.base_ref }}" in workflow
    for key in ('"kind"', '"version"', '"fingerprint"', '"count"'):
        assert key in text
