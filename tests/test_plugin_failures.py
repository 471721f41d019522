"""A broken plugin through status.py: one that fails to import, exits, misspells its hook,
raises, returns garbage, is reached twice or claims a built-in code, is named while every
other rule still reports; forgiving where pytest is, loud elsewhere; and failures that
cannot be missed, in every format.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import (
    CAT1,
    CAT2,
    ERRORS,
    LOCAL_RULES,
    section,
    write_config,
)
from helpers import install_plugin as install
from helpers import status_with_site as status

from automaton_rules.testing import AutomatonProject

# ---------------------------------------------------------------------- broken plugins


def test_entry_point_that_fails_to_import(
    automaton_project: AutomatonProject, tmp_path: Path
) -> None:
    automaton_project.task("fix", "research", files=["SPEC.md", "IMPLEMENTATION.md"])
    site = tmp_path / "site"
    install(site, "broken_rules", "raise ImportError('missing dependency acme-core')\n", "broken")
    proc = status(site, "--audit", "--json", "--project", str(automaton_project.root))
    assert proc.returncode == 2
    report = json.loads(proc.stdout)
    assert [f["code"] for f in report["findings"]] == ["AR101", "AR202"]
    (error,) = report["errors"]
    assert "broken" in error and "missing dependency acme-core" in error


BROKEN_PLUGINS = {
    "fails-to-import": "import acme_core_that_does_not_exist\n",
    "syntax-error": "def broken(:\n",
    "register-raises": """
from automaton_rules import hookimpl

@hookimpl
def register_rules(register):
    raise ValueError("cannot register today")
""",
    "registers-garbage": """
from automaton_rules import hookimpl

@hookimpl
def register_rules(register):
    register("AR999")
""",
    "rule-raises": """
from automaton_rules import Finding, hookimpl, rule

@rule("BRK101", summary="raises", category="Broken Checks")
def raises(task):
    raise KeyError("oops")

@hookimpl
def register_rules(register):
    register(raises)
""",
    "rule-yields-a-string": """
from automaton_rules import hookimpl, rule

@rule("BRK101", summary="garbage", category="Broken Checks")
def garbage(task):
    yield "not a finding"

@hookimpl
def register_rules(register):
    register(garbage)
""",
    "rule-returns-a-number": """
from automaton_rules import hookimpl, rule

@rule("BRK101", summary="garbage", category="Broken Checks")
def garbage(task):
    return 42

@hookimpl
def register_rules(register):
    register(garbage)
""",
    "finding-with-unknown-severity": """
from automaton_rules import Finding, hookimpl, rule

@rule("BRK101", summary="garbage", category="Broken Checks")
def garbage(task):
    yield Finding("bad severity", severity="fatal")

@hookimpl
def register_rules(register):
    register(garbage)
""",
    "finding-with-a-number-for-path": """
from automaton_rules import Finding, hookimpl, rule

@rule("BRK101", summary="garbage", category="Broken Checks")
def garbage(task):
    yield Finding("bad path", path=123)

@hookimpl
def register_rules(register):
    register(garbage)
""",
}


@pytest.mark.parametrize("kind", list(BROKEN_PLUGINS))
def test_broken_plugin_is_named_and_the_other_rules_still_report(
    automaton_project: AutomatonProject, kind: str
) -> None:
    automaton_project.task("fix", "research", files=["SPEC.md", "IMPLEMENTATION.md"])
    automaton_project.write_plugin(LOCAL_RULES, name="good_rules")
    automaton_project.write_plugin(BROKEN_PLUGINS[kind], name="broken_rules")

    text = automaton_project.run("--audit")
    assert text.exit_code == 2, text
    assert "Traceback" not in text.err
    assert "=== Errors ===" in text.out.splitlines(), text.err
    errors = section(text.out, "=== Errors ===")
    assert len(errors) == 1, text.out
    assert errors[0].startswith("ERROR: plugin ") and "broken_rules" in errors[0]
    assert "good_rules" not in errors[0]
    assert "[FAIL] fix (phase: research): found IMPLEMENTATION.md (implement phase artifact)" in (
        text.out.splitlines()
    )

    report = json.loads(automaton_project.run("--audit", "--json").out)
    assert report["summary"]["exit_code"] == 2
    assert [f["code"] for f in report["findings"]] == ["AR101", "AR202", "LOC201"]
    (error,) = report["errors"]
    assert "broken_rules" in error

    sarif = json.loads(automaton_project.run("--audit", "--format", "sarif").out)
    (invocation,) = sarif["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is False
    notes = invocation["toolExecutionNotifications"]
    (note,) = [note for note in notes if note["level"] == "error"]
    assert "broken_rules" in note["message"]["text"]
    assert [r["ruleId"] for r in sarif["runs"][0]["results"]] == ["AR101", "AR202", "LOC201"]


def test_broken_rule_leaves_the_plugins_other_rules_working(
    automaton_project: AutomatonProject,
) -> None:
    automaton_project.task("fix", "research", files=["SPEC.md"])
    automaton_project.write_plugin(
        """
from automaton_rules import Finding, hookimpl, rule

@rule("MIX101", summary="raises", category="Mixed Checks")
def raises(task):
    raise RuntimeError("kaput")

@rule("MIX102", summary="works", category="Mixed Checks", severity="warning")
def works(task):
    yield Finding("still here")

@hookimpl
def register_rules(register):
    register(raises)
    register(works)
"""
    )
    audit = automaton_project.audit(expect_errors=True)
    assert audit.exit_code == 2
    assert audit.codes == ["MIX102"]
    (error,) = audit.errors
    assert "MIX101" in error and "fix" in error and "kaput" in error


def test_plugin_rule_code_clashing_with_a_builtin(automaton_project: AutomatonProject) -> None:
    automaton_project.task("fix", "research", files=["SPEC.md", "IMPLEMENTATION.md"])
    automaton_project.write_plugin(
        """
from automaton_rules import Finding, hookimpl, rule

@rule("AR101", summary="impostor", category="Impostor Checks")
def impostor(task):
    yield Finding("impostor")

@hookimpl
def register_rules(register):
    register(impostor)
""",
        name="impostor_rules",
    )
    audit = automaton_project.audit(expect_errors=True)
    assert audit.exit_code == 2
    assert audit.codes == ["AR101", "AR202"]
    assert all(f["message"] != "impostor" for f in audit.findings)
    assert any("impostor_rules" in e and "AR101" in e for e in audit.errors)


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

    audit = automaton_project.audit(expect_errors=True)
    assert audit.exit_code == 2, audit.text
    assert "MIS101" not in audit.codes
    (error,) = audit.errors
    path = automaton_project.root / "misspelt_rules.py"
    assert error == f"plugin {path}: unknown hook 'register_rule'; did you mean register_rules?"
    assert "automaton_rules_plugin_" not in audit.text and "<module" not in audit.text
    assert ERRORS in audit.text.splitlines()
    assert any("misspelt_rules" in line for line in section(audit.text, ERRORS))

    listed = automaton_project.run("--list-rules")
    assert listed.exit_code == 2, listed
    assert "misspelt_rules" in listed.out + listed.err
    assert "AR101" in listed.out  # the built-in rules are still listed
    assert "MIS101" not in listed.out


# ------------------------------------------------- forgiving where pytest is, loud elsewhere


def test_register_rules_without_hookimpl_works(automaton_project: AutomatonProject) -> None:
    """As pytest takes a plain `pytest_*` function, a plain `register_rules` is the hook."""
    automaton_project.task("demo", "research", files={"SPEC.md": "# Spec\n"})
    automaton_project.write_plugin(
        """
from automaton_rules import Finding, rule


@rule("PLN101", summary="always", category="Plain Checks", when="audit")
def always(task):
    yield Finding("found")


def register_rules(register):
    register(always)
""",
        name="plain_rules",
    )
    audit = automaton_project.audit()
    assert audit.errors == []
    assert audit.codes == ["PLN101"]


@pytest.mark.parametrize(
    ("source", "hint"),
    [
        (
            "def register_rule(register):\n    pass\n",
            " (it defines register_rule(): did you mean register_rules?)",
        ),
        ("import os\n\n\ndef helper():\n    return os.sep\n", ""),
    ],
    ids=["near-name", "nothing-near"],
)
def test_a_configured_plugin_that_implements_no_hook_exits_2(
    automaton_project: AutomatonProject, source: str, hint: str
) -> None:
    automaton_project.task("demo", "research", files={"SPEC.md": "# Spec\n"})
    automaton_project.write_plugin(source, name="hookless_rules")
    path = automaton_project.root / "hookless_rules.py"
    expected = f"plugin {path}: implements no hook{hint}; a plugin defines register_rules"
    audit = automaton_project.audit(expect_errors=True)
    assert audit.exit_code == 2, audit.text
    (error,) = audit.errors
    assert error.startswith(expected), error
    assert ("did you mean register_rules?" in error) is bool(hint)
    assert section(audit.text, ERRORS) == [f"ERROR: {error}"]
    for args in (("--list-rules",), ("--validate-folder",), ("--task", "demo")):
        result = automaton_project.run(*args)
        assert result.exit_code == 2, (args, result)
        assert expected in result.out + result.err


TWO_RAISING_RULES = """
from automaton_rules import hookimpl, rule


@rule("BRK101", summary="raises", category="Broken Checks")
def first(task):
    raise RuntimeError("kaput")


@rule("BRK102", summary="raises too", category="Broken Checks")
def second(task):
    raise KeyError("gone")


@hookimpl
def register_rules(register):
    register(first)
    register(second)
"""


def test_the_text_report_names_every_failing_rule_of_a_category(
    automaton_project: AutomatonProject,
) -> None:
    automaton_project.task("one", "research", files=["SPEC.md"])
    automaton_project.write_plugin(TWO_RAISING_RULES, name="raising_rules")
    audit = automaton_project.audit(expect_errors=True)
    assert audit.exit_code == 2, audit.text
    assert section(audit.text, "=== Category 6: Broken Checks ===") == [
        "Error: rules BRK101, BRK102 failed (see Errors); no verdict"
    ]
    assert [e.split(": ", 1)[1].split(" ")[1] for e in audit.errors] == ["BRK101", "BRK102"]


FAILING_TASK_RULE = """
from automaton_rules import Finding, hookimpl, rule


@rule("TEAM101", summary="SPEC.md is signed", category="Team Checks", when="validate")
def signed(task):
    if "Signed-off-by" not in (task.read("SPEC.md") or ""):
        yield Finding("SPEC.md is not signed", path=task.relpath("SPEC.md"))


@rule("TEAM102", summary="tasks are named for a ticket", category="Team Checks", when="validate")
def ticketed(tasks):
    for task in tasks:
        yield Finding("no ticket in the name", task=task.name)


@hookimpl
def register_rules(register):
    register(signed)
    register(ticketed)
"""


def test_validation_never_says_pass_for_a_task_with_a_failing_finding(
    automaton_project: AutomatonProject,
) -> None:
    automaton_project.task("demo", "research", files={"SPEC.md": "# Spec\n"})
    automaton_project.write_plugin(FAILING_TASK_RULE, name="team_rules")

    one = automaton_project.run("--validate-folder", "--task", "demo")
    assert one.exit_code == 1, one
    assert "PASS" not in one.out
    assert one.out.splitlines()[2:] == [
        "Folder validation: FAIL — rule TEAM101 reports an error:",
        "[FAIL] TEAM101: SPEC.md is not signed",
    ]

    shown = automaton_project.run("--task", "demo")
    assert "PASS" not in shown.out
    assert (
        "Folder validation: FAIL — rule TEAM101 reports an error (see --validate-folder); "
        "TEAM101: SPEC.md is not signed" in shown.out.splitlines()
    )

    # the whole project: a project rule's finding about the task fails it too
    whole = automaton_project.run("--validate-folder")
    assert whole.exit_code == 1, whole
    assert "PASS" not in whole.out
    block = whole.out.split("\n\n")[0].splitlines()
    assert block[2:] == [
        "Folder validation: FAIL — rules TEAM101, TEAM102 report errors:",
        "[FAIL] TEAM101: SPEC.md is not signed",
        "[FAIL] TEAM102: no ticket in the name",
    ]

    # with the rule's findings only warnings, the folder passes again, warnings listed
    write_config(
        automaton_project,
        'plugins = ["team_rules.py"]\n[severity]\nTEAM101 = "warning"\nTEAM102 = "warning"\n',
    )
    passed = automaton_project.run("--validate-folder", "--task", "demo")
    assert passed.exit_code == 0, passed
    assert "Folder validation: PASS — no out-of-order artifacts found" in passed.out
    assert "[WARN] TEAM101: SPEC.md is not signed" in passed.out


RAISING_RULE = """
from automaton_rules import hookimpl, rule


@rule("BRK101", summary="raises", category={category!r})
def raises(task):
    raise RuntimeError("kaput")


@hookimpl
def register_rules(register):
    register(raises)
"""


def test_rule_that_raises_gives_its_own_category_no_verdict(
    automaton_project: AutomatonProject,
) -> None:
    automaton_project.task("one", "research", files=["SPEC.md"])
    automaton_project.task("two", "design", files=["DESIGN.md"])
    source = RAISING_RULE.format(category="Broken Checks")
    automaton_project.write_plugin(source, name="raising_rules")
    audit = automaton_project.audit(expect_errors=True)
    assert audit.exit_code == 2, audit.text
    lines = section(audit.text, "=== Category 6: Broken Checks ===")
    assert lines == ["Error: rule BRK101 failed (see Errors); no verdict"]
    assert any("BRK101" in e and "kaput" in e for e in audit.errors)
    # categories whose rules all ran keep their verdicts
    assert section(audit.text, CAT2)[0].startswith("[PASS] one:")


def test_rule_that_raises_in_a_builtin_category_leaves_the_builtin_verdicts(
    automaton_project: AutomatonProject,
) -> None:
    """Issue 30: the built-in rules of the category still judge; the tasks the plugin's
    rule failed on have no PASS, an ERROR line instead."""
    automaton_project.task("one", "research", files=["SPEC.md", "IMPLEMENTATION.md"])
    automaton_project.task("two", "design", files=["DESIGN.md"])
    source = RAISING_RULE.format(category="Out-of-order Artifacts")
    automaton_project.write_plugin(source, name="raising_rules")
    audit = automaton_project.audit(expect_errors=True)
    assert audit.exit_code == 2, audit.text
    assert section(audit.text, CAT1) == [
        "[FAIL] one (phase: research): found IMPLEMENTATION.md (implement phase artifact)",
        "[ERROR] one: rule BRK101 failed (see Errors); no verdict from it",
        "[ERROR] two: rule BRK101 failed (see Errors); no verdict from it",
    ]


# ----------------------------------------------------------- failures that cannot be missed

FAILING_EVERYWHERE = """
from automaton_rules import Finding, hookimpl, rule


@rule("LOUD101", summary="reads a file every task lacks", category="Loud Checks")
def reads(task):
    return [Finding(open(task.path / "MISSING.txt").read())]


@hookimpl
def register_rules(register):
    register(reads)
"""


@pytest.fixture
def failing(automaton_project: AutomatonProject) -> AutomatonProject:
    """Three tasks, and a rule that raises on every one of them."""
    for name in ("alpha", "beta", "gamma"):
        automaton_project.task(name, "research")
    automaton_project.write_plugin(FAILING_EVERYWHERE, name="loud_rules")
    return automaton_project


def test_a_rule_failing_on_every_task_is_one_error_counting_them(
    failing: AutomatonProject,
) -> None:
    audit = failing.audit(expect_errors=True)
    (error,) = audit.errors
    path = failing.root / "loud_rules.py"
    assert error == (
        f"plugin {path}: rule LOUD101 failed on 3 tasks (alpha, beta, gamma), first on task "
        "'alpha' at loud_rules.py:7: FileNotFoundError: [Errno 2] No such file or directory: "
        f"'{failing.task_dir('alpha') / 'MISSING.txt'}'"
    )
    assert section(audit.text, ERRORS) == [f"ERROR: {error}"]


@pytest.mark.parametrize(
    "fmt", ["text", "json", "sarif", "github", "markdown", "junit", "gitlab", "html"]
)
def test_every_format_prints_its_errors_on_stderr(failing: AutomatonProject, fmt: str) -> None:
    """`--format sarif > report.sarif` leaves the CI log the error, not only exit 2."""
    result = failing.run("--audit", "--format", fmt)
    assert result.exit_code == 2
    (line,) = result.err.splitlines()
    assert line.startswith(f"ERROR: plugin {failing.root / 'loud_rules.py'}: rule LOUD101 ")
    assert "failed on 3 tasks" in line and "loud_rules.py:7" in line
    assert "Traceback" not in result.err


def test_automaton_debug_adds_the_rules_traceback(
    failing: AutomatonProject, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AUTOMATON_DEBUG", "1")
    result = failing.run("--audit", "--format", "sarif")
    assert result.exit_code == 2
    first, *trace = result.err.splitlines()
    assert first.startswith("ERROR: plugin ") and "rule LOUD101 failed on 3 tasks" in first
    assert trace[0] == "  Traceback (most recent call last):"
    assert any('loud_rules.py", line 7, in reads' in line for line in trace)
    assert trace[-1].startswith("  FileNotFoundError: ")
    assert not any("automaton_rules/engine" in line for line in trace)  # the plugin's frames


def test_a_code_of_a_plugin_that_failed_names_that_failure(
    automaton_project: AutomatonProject,
) -> None:
    """`select = ["TEAM"]` of a rule package that did not import: the import error, not
    only "unknown code"."""
    automaton_project.task("login", "research")
    automaton_project.use_plugins("team_rules_not_installed")
    automaton_project.configure(select=["AR", "TEAM"])
    result = automaton_project.run("--audit")
    assert result.exit_code == 2
    (line,) = result.err.splitlines()
    assert line.startswith("ERROR: Unknown rule code or prefix in ")
    assert ": TEAM (see --list-rules). Its rules may be in a plugin that did not load: " in line
    assert line.endswith(
        "plugin team_rules_not_installed: failed to import: ModuleNotFoundError: "
        "No module named 'team_rules_not_installed'"
    )


NEAR_MISS_BESIDE_A_HOOK = """
from automaton_rules import Finding, hookimpl, rule


@rule("NEAR101", summary="works", category="Near Checks", severity="note")
def works(task):
    yield Finding("here")


@hookimpl
def register_rules(register):
    register(works)


def automaton_evnt(event):
    print("never told")


def _register_helper():
    pass


def render(task):
    return task.name
"""


def test_a_misspelt_hook_beside_a_valid_one_is_a_warning(
    automaton_project: AutomatonProject,
) -> None:
    automaton_project.task("login", "research")
    automaton_project.write_plugin(NEAR_MISS_BESIDE_A_HOOK, name="near_rules")
    path = automaton_project.root / "near_rules.py"
    warning = (
        f"WARNING: plugin {path}: automaton_evnt() is no hook and will never be called; "
        "did you mean automaton_event? (see docs/writing-rules.md)"
    )
    for args in (("--audit",), ("--audit", "--format", "json"), ("--list-rules",)):
        result = automaton_project.run(*args)
        assert result.exit_code == 0, result.err  # a warning: the rules still run
        assert result.err.splitlines() == [warning], args
    assert automaton_project.audit().codes == ["NEAR101"]


WRONG_HOOK_ARGUMENT = """
from automaton_rules import hookimpl


@hookimpl
def register_rules(reg):
    pass
"""


def test_pluggys_message_prints_as_lines(automaton_project: AutomatonProject) -> None:
    automaton_project.task("login", "research")
    automaton_project.write_plugin(WRONG_HOOK_ARGUMENT, name="arg_rules")
    path = automaton_project.root / "arg_rules.py"
    result = automaton_project.run("--audit", "--format", "json")
    assert result.exit_code == 2
    assert result.err.splitlines() == [
        f"ERROR: plugin {path}: cannot register: Plugin '{path}' for hook 'register_rules'",
        "  hookimpl definition: register_rules(reg)",
        "  Argument(s) {'reg'} are declared in the hookimpl but can not be found in the hookspec",
    ]
    assert "\\n" not in result.err
    text = automaton_project.run("--audit").out
    assert section(text, ERRORS) == result.err.splitlines()


RAISING_TRANSITION_RULE = """
from automaton_rules import hookimpl, rule


@rule("GATE101", summary="reads a setting", category="Gate Checks", when="transition")
def gate(task, transition):
    return {"never": "here"}["setting"]


@hookimpl
def register_rules(register):
    register(gate)
"""


def test_a_transition_rule_that_raises_names_its_line_and_debug_adds_the_traceback(
    automaton_project: AutomatonProject, monkeypatch: pytest.MonkeyPatch
) -> None:
    automaton_project.task("login", "new")
    automaton_project.write_plugin(RAISING_TRANSITION_RULE, name="gate_rules")
    refused = automaton_project.run("--task", "login", "--transition", "research")
    assert refused.exit_code == 2
    (line,) = refused.err.splitlines()
    assert line.startswith("ERROR: plugin ") and line.endswith(
        "rule GATE101 failed on task 'login' at gate_rules.py:7: KeyError: 'setting'"
    )
    monkeypatch.setenv("AUTOMATON_DEBUG", "1")
    debugged = automaton_project.run("--task", "login", "--transition", "research")
    first, *trace = debugged.err.splitlines()
    assert first == line
    assert trace[0] == "  Traceback (most recent call last):"
    assert trace[-1] == "  KeyError: 'setting'"
    assert automaton_project.load("login").state == "new"  # a broken guard fails closed
