"""The audit report: the specification's example line for line, and what --select,
--ignore, severity overrides and --fail-on do to it (--select and --ignore to
--validate-folder too); the formats are tests/test_report_formats.py. Projects come from
the `automaton_project` fixture of the package's own pytest plugin; helpers'
`backdate()` moves a task's recorded past so a commit falls after the transitions it is
judged against without racing the clock.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import (
    CAT1,
    CAT2,
    CAT3,
    CAT4,
    CATEGORY_HEADINGS,
    ROOT,
    assert_clean,
    git_project,
    section,
    spec_example,
    stamp,
    with_code,
    write_config,
)

from automaton_rules.testing import AutomatonProject

# --------------------------------------------------------- the specification's example


def spec_report(root: Path, sha: str, when: int) -> list[str]:
    """Section 11's report, in its order. Additions come from the issues, not the
    specification: category 4, category 3's line for add-payment-api (the example shows
    two of its three tasks there), and a summary whose count agrees with its list (the
    specification's "2 violations found" lists a warning too; issue 13 lists warnings
    under their own count). The commit/date part is ours."""
    return [
        f"Audit Report for {root}",
        "",
        "=== Category 1: Out-of-order Artifacts ===",
        "[PASS] add-user-auth: no violations",
        "[FAIL] fix-login-bug (phase: research): "
        "found IMPLEMENTATION.md (implement phase artifact)",
        "[PASS] add-payment-api: no violations",
        "",
        "=== Category 2: State-Artifact Inconsistency ===",
        '[PASS] add-user-auth: .state ("research") matches artifacts (SPEC.md exists)',
        '[WARN] fix-login-bug: .state says "research" but IMPLEMENTATION.md exists'
        " — suggested correction: implement",
        '[PASS] add-payment-api: .state ("complete") matches all artifacts',
        "",
        "=== Category 3: Unauthorized Modifications ===",
        "[PASS] add-user-auth: no code modifications outside implement phase",
        "[FAIL] fix-login-bug: src/auth.py was modified during research phase "
        f"(state: research, file mtime: {stamp(when)[:10]}, commit: {sha[:7]})",
        "[PASS] add-payment-api: no code modifications outside implement phase",
        "",
        "=== Category 4: Manually Created Task Folders ===",
        "[PASS] add-user-auth: created with --create-task (.state present)",
        "[PASS] fix-login-bug: created with --create-task (.state present)",
        "[PASS] add-payment-api: created with --create-task (.state present)",
        "",
        "=== Category 5: Changes to the Guard ===",  # issue 11: the guard's own history
        "[PASS] (project): no commit changed the guard's files and no task folder was removed",
        "",
        "=== Summary ===",
        "3 tasks audited",
        "2 violations found",
        "  - fix-login-bug: out-of-order artifact (IMPLEMENTATION.md)",
        "  - fix-login-bug: unauthorized modification (src/auth.py during research phase)",
        "1 warning",
        "  - fix-login-bug: state-artifact mismatch "
        "(.state says research, IMPLEMENTATION.md exists)",
    ]


def test_spec_example_reproduces_the_report_line_for_line(
    automaton_project: AutomatonProject,
) -> None:
    """Line for line, with tasks listed by name inside each category (as --list lists them)."""
    sha, when = spec_example(automaton_project)
    audit = automaton_project.audit()
    assert audit.exit_code == 1
    expected = spec_report(automaton_project.root, sha, when)
    by_name = []
    for block in "\n".join(expected).split("\n\n"):
        lines = block.split("\n")
        if lines[0].startswith("=== Category"):
            lines = [lines[0], *sorted(lines[1:], key=lambda line: line.split("] ")[1])]
        by_name.append("\n".join(lines))
    assert audit.text.splitlines() == "\n\n".join(by_name).splitlines()


def _sections(lines: list[str]) -> list[list[str]]:
    out: list[list[str]] = [[]]
    for line in lines:
        if line == "":
            out.append([])
        else:
            out[-1].append(line)
    return out


def test_spec_example_report_has_the_specs_lines_in_every_section(
    automaton_project: AutomatonProject,
) -> None:
    """The same report with the order of tasks inside a section left free."""
    sha, when = spec_example(automaton_project)
    audit = automaton_project.audit()
    expected = spec_report(automaton_project.root, sha, when)
    got = _sections(audit.text.splitlines())
    want = _sections(expected)
    assert [s[:1] for s in got] == [s[:1] for s in want]  # headings, in order
    assert [sorted(s) for s in got] == [sorted(s) for s in want]
    summary = got[-1]
    assert summary == want[-1]  # the summary keeps the specification's order


def test_spec_example_json_agrees_with_the_text(automaton_project: AutomatonProject) -> None:
    sha, _ = spec_example(automaton_project)
    audit = automaton_project.audit()
    assert audit.codes == ["AR101", "AR202", "AR301"]
    assert {f["task"] for f in audit.findings} == {"fix-login-bug"}
    summary = audit.report["summary"]
    assert (summary["tasks"], summary["violations"], summary["exit_code"]) == (3, 2, 1)
    (commit,) = with_code(audit, "AR301")
    assert commit["path"] == "src/auth.py"
    assert sha[:7] in commit["message"]


def test_spec_example_without_git_skips_category_3(automaton_project: AutomatonProject) -> None:
    spec_example(automaton_project, git=False)
    assert not (automaton_project.root / ".git").exists()
    audit = automaton_project.audit()
    lines = audit.text.splitlines()
    heading = lines.index("=== Category 3: Unauthorized Modifications ===")
    assert lines[heading + 1 : heading + 3] == ["Skipped: not a git repository", ""]
    assert "1 violation found" in lines
    # AR504 (hard links) needs no git: category 5 keeps its verdict (issue 30)
    assert audit.report["summary"]["skipped"] == {
        "Unauthorized Modifications": "not a git repository",
    }
    assert audit.exit_code == 1


def test_clean_project_exits_0(automaton_project: AutomatonProject) -> None:
    automaton_project.task("add-user-auth", "research", files=["SPEC.md"])
    automaton_project.task("add-payment-api", "complete")
    audit = automaton_project.audit()
    assert_clean(audit)
    assert "0 violations found" in audit.text.splitlines()
    for heading in CATEGORY_HEADINGS:
        assert heading in audit.text


# --------------------------------------------------------------------------- selection


@pytest.mark.parametrize(
    ("args", "codes", "exit_code"),
    [
        ((), ["AR101", "AR202"], 1),
        (("--select", "AR1"), ["AR101"], 1),
        (("--select", "AR2"), ["AR202"], 0),
        (("--select", "AR202,AR101"), ["AR101", "AR202"], 1),
        (("--ignore", "AR2"), ["AR101"], 1),
        (("--ignore", "AR101"), ["AR202"], 0),
        (("--ignore", "AR101", "--fail-on", "warning"), ["AR202"], 1),
        (("--fail-on", "warning", "--select", "AR3,AR4"), [], 0),
    ],
)
def test_selection_on_the_command_line(
    warned: AutomatonProject, args: tuple[str, ...], codes: list[str], exit_code: int
) -> None:
    audit = warned.audit(*args)
    assert audit.codes == codes
    assert audit.exit_code == exit_code
    assert audit.report["summary"]["exit_code"] == exit_code


@pytest.mark.parametrize(
    ("config", "args", "codes", "exit_code"),
    [
        ('select = ["AR2"]\n', (), ["AR202"], 0),
        ('ignore = ["AR101"]\n', (), ["AR202"], 0),
        ('ignore = ["AR101"]\nseverity = { AR202 = "error" }\n', (), ["AR202"], 1),
        ('ignore = ["AR101"]\nfail-on = "warning"\n', (), ["AR202"], 1),
        ('ignore = ["AR101"]\nfail-on = "warning"\n', ("--fail-on", "error"), ["AR202"], 0),
        ('severity = { AR101 = "note" }\n', (), ["AR101", "AR202"], 0),
        ('select = ["AR2"]\n', ("--select", "AR1"), ["AR101"], 1),  # --select replaces
        ('ignore = ["AR2"]\n', ("--ignore", "AR1"), [], 0),  # --ignore adds
    ],
)
def test_selection_in_automaton_toml(
    warned: AutomatonProject, config: str, args: tuple[str, ...], codes: list[str], exit_code: int
) -> None:
    write_config(warned, config)
    audit = warned.audit(*args)
    assert audit.codes == codes
    assert audit.exit_code == exit_code


@pytest.mark.parametrize(
    ("config", "args", "failed"),
    [
        ("", (), True),
        ("", ("--ignore", "AR101"), False),
        ("", ("--select", "AR2"), False),
        ("", ("--select", "AR1"), True),
        ('ignore = ["AR101"]\n', (), False),
        ('select = ["AR2"]\n', (), False),
        ('select = ["AR2"]\n', ("--select", "AR1"), True),  # --select replaces
        ('ignore = ["AR2"]\n', ("--ignore", "AR1"), False),  # --ignore adds
    ],
)
def test_validate_folder_takes_the_selection_as_flags_and_as_keys(
    warned: AutomatonProject, config: str, args: tuple[str, ...], failed: bool
) -> None:
    """Issue 32: the README lists `select` and `ignore` for the audit and --validate-folder,
    so the flags go with both, and mean on --validate-folder what they mean on --audit."""
    write_config(warned, config)
    verdict = (
        "Folder validation: FAIL — found out-of-order artifacts:"
        if failed
        else "Folder validation: PASS — no out-of-order artifacts found"
    )
    for task in ((), ("--task", "fix-login-bug")):
        result = warned.run("--validate-folder", *task, *args)
        assert result.exit_code == (1 if failed else 0), result
        assert verdict in result.out.splitlines(), result.out
        assert result.err == ""
        body = json.loads(warned.run("--validate-folder", "--json", *task, *args).out)
        assert [finding["code"] for finding in body["findings"]] == (["AR101"] if failed else [])
        assert body["exit_code"] == result.exit_code


@pytest.mark.parametrize("args", [("--select", "XX1"), ("--ignore", "AR9")])
def test_unknown_rule_code_on_validate_folder(warned: AutomatonProject, args) -> None:
    result = warned.run("--validate-folder", *args)
    assert result.exit_code == 2
    assert result.err == f"ERROR: Unknown rule code or prefix: {args[1]} (see --list-rules)\n"
    assert result.out == ""


def test_severity_override_shows_in_every_format(warned: AutomatonProject) -> None:
    write_config(warned, 'ignore = ["AR101"]\nseverity = { AR202 = "error" }\n')
    audit = warned.audit()
    assert audit.findings[0]["severity"] == "error"
    assert any(
        line.startswith("[FAIL] fix-login-bug: .state says") for line in audit.text.splitlines()
    )
    assert "1 violation found" in audit.text.splitlines()
    sarif = json.loads(warned.run("--audit", "--format", "sarif").out)
    assert [r["level"] for r in sarif["runs"][0]["results"]] == ["error"]
    github = warned.run("--audit", "--format", "github").out
    assert github.startswith("::error file=.automaton/tasks/fix-login-bug/.state,title=AR202::")


@pytest.mark.parametrize(
    "args", [("--select", "XX1"), ("--ignore", "AR9"), ("--select", "AR1,AR9")]
)
def test_unknown_rule_code_on_the_command_line(warned: AutomatonProject, args) -> None:
    result = warned.run("--audit", *args)
    assert result.exit_code == 2
    assert "Unknown rule code or prefix" in result.err
    assert args[1].split(",")[-1] in result.err
    assert result.out == ""


@pytest.mark.parametrize(
    "config",
    ['select = ["ZZ1"]\n', 'ignore = ["AR9"]\n', 'severity = { AR999 = "error" }\n'],
)
def test_unknown_rule_code_in_automaton_toml(warned: AutomatonProject, config: str) -> None:
    write_config(warned, config)
    result = warned.run("--audit")
    assert result.exit_code == 2
    assert "Unknown rule code or prefix" in result.err


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


@pytest.mark.parametrize(
    ("config", "key"),
    [
        ('selct = ["AR1"]\n', "selct"),
        ('fail-on = "fatal"\n', "fail-on"),
        ('source-exclude = "*.md"\n', "source-exclude"),
        ('severity = { AR202 = "loud" }\n', "severity"),
    ],
)
def test_bad_configuration_stops_the_audit(warned: AutomatonProject, config: str, key: str) -> None:
    write_config(warned, config)
    result = warned.run("--audit", "--json")
    assert result.exit_code == 2
    assert f"'{key}'" in (result.err + result.out)
    assert "automaton.toml" in (result.err + result.out)


def test_unknown_fail_on_value(warned: AutomatonProject) -> None:
    result = warned.run("--audit", "--fail-on", "fatal")
    assert result.exit_code == 2
    assert "fatal" in result.err


def test_broken_task_is_an_error_and_the_rest_is_still_audited(warned: AutomatonProject) -> None:
    (warned.task_dir("add-user-auth") / ".state").write_text("implemnt\n")
    audit = warned.audit(expect_errors=True)
    assert audit.exit_code == 2
    assert any("add-user-auth" in e and "implemnt" in e for e in audit.errors)
    assert audit.codes == ["AR101", "AR202"]
    assert "=== Errors ===" in audit.text


# -------------------------------------------------------------------------- documented


def audit_finding_keys(project: AutomatonProject) -> list[str]:
    (project.task_dir("demo") / "IMPLEMENTATION.md").write_text("# early\n")
    findings = project.audit().findings
    (project.task_dir("demo") / "IMPLEMENTATION.md").unlink()
    return list(findings[0])


def test_audit_json_is_documented(automaton_project: AutomatonProject) -> None:
    """The issue: the JSON object's fields are documented in the docs."""
    automaton_project.task("demo", "research", files=["SPEC.md"])
    report = automaton_project.audit().report
    docs = "\n".join(p.read_text() for p in (ROOT / "docs").glob("*.md"))
    docs += (ROOT / "README.md").read_text()

    def documented(key: str) -> bool:
        return f"`{key}`" in docs or f'"{key}"' in docs

    keys = [*report, *report["summary"], *audit_finding_keys(automaton_project)]
    assert [key for key in keys if not documented(key)] == []


def test_readme_has_a_ci_example() -> None:
    """The issue: a CI example with `--audit --json` and a SARIF upload (README or its docs)."""
    text = (ROOT / "README.md").read_text()
    text += "".join(p.read_text() for p in sorted((ROOT / "docs").glob("*.md")))
    assert "--audit --json" in text
    assert "--format sarif" in text
    assert "upload-sarif" in text
