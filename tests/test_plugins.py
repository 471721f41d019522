"""Plugins through status.py: rules installed by entry point or listed by path, their
categories in every report format, --list-rules, and how a broken plugin (one that fails
to import, exits, misspells its hook, raises, returns garbage, is reached twice or
claims a built-in code) is named while every other rule still reports. The engine's
own API, called directly, is tested in test_engine.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import (
    BUILTIN_CODES,
    CAT1,
    CAT2,
    CATEGORY_HEADINGS,
    ERRORS,
    ROOT,
    section,
    status_py,
    write_config,
)

from automaton_rules.engine import plugins
from automaton_rules.testing import AutomatonProject

# --------------------------------------------------------- installed and local plugins


BUILTIN_PLUGIN = {
    "AR101": "automaton_rules.builtin.out_of_order",
    **{f"AR20{n}": "automaton_rules.builtin.inconsistency" for n in range(1, 10)},
    "AR212": "automaton_rules.builtin.inconsistency",
    "AR210": "automaton_rules.builtin.approvals",
    "AR211": "automaton_rules.builtin.work_done",
    "AR301": "automaton_rules.builtin.unauthorized",
    "AR302": "automaton_rules.builtin.unauthorized",
    "AR304": "automaton_rules.builtin.work_done",
    "AR401": "automaton_rules.builtin.manual_folders",
    "AR402": "automaton_rules.builtin.manual_folders",
    "AR501": "automaton_rules.builtin.guard_changes",
    "AR502": "automaton_rules.builtin.guard_changes",
}


ACME_RULES = '''
"""A rule package installed from an index, found through its entry point."""
from automaton_rules import Finding, hookimpl, rule


@rule("ACME101", summary="DESIGN.md names its modules", category="Acme Checks")
def design_names_modules(task):
    text = task.read("DESIGN.md")
    if text is not None and "## Modules" not in text:
        yield Finding("DESIGN.md has no Modules section", path=task.relpath("DESIGN.md"))


@hookimpl
def register_rules(register):
    register(design_names_modules)
'''


LOCAL_RULES = '''
"""A rule of this project only, registered by path in automaton.toml."""
from automaton_rules import Finding, hookimpl, rule


@rule("LOC201", summary="SPEC.md is signed", category="Local Checks", severity="warning")
def spec_signed(task):
    text = task.read("SPEC.md")
    if text is not None and "Signed-off-by" not in text:
        yield Finding("SPEC.md is not signed", path=task.relpath("SPEC.md"))


@hookimpl
def register_rules(register):
    register(spec_signed)
'''


def install(site: Path, module: str, source: str, entry_point: str = "acme") -> None:
    """What `pip install` leaves on sys.path: the module and its dist-info with an entry point."""
    site.mkdir(exist_ok=True)
    (site / f"{module}.py").write_text(source)
    info = site / f"{module}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {module.replace('_', '-')}\nVersion: 1.0\n"
    )
    (info / "entry_points.txt").write_text(f"[automaton_rules]\n{entry_point} = {module}\n")


def status(site: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """status.py in a fresh interpreter, as CI runs it, with `site` installed."""
    return status_py(
        *args, env={**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)])}
    )


@pytest.fixture
def third_party(automaton_project: AutomatonProject, tmp_path: Path) -> Path:
    """An entry-point plugin installed in `site`, and a path plugin in automaton.toml."""
    automaton_project.task("login", "design:approved")  # DESIGN.md has no Modules section
    site = tmp_path / "site"
    install(site, "acme_rules", ACME_RULES)
    rules = automaton_project.root / "rules"
    rules.mkdir()
    (rules / "local.py").write_text(LOCAL_RULES)
    write_config(automaton_project, 'plugins = ["rules/local.py"]\n')
    return site


def test_third_party_rules_in_the_text_report(
    automaton_project: AutomatonProject, third_party: Path
) -> None:
    proc = status(third_party, "--audit", "--project", str(automaton_project.root))
    assert proc.returncode == 1, proc.stderr
    lines = proc.stdout.splitlines()
    headings = [line for line in lines if line.startswith("=== Category")]
    assert headings == [
        *CATEGORY_HEADINGS,
        "=== Category 6: Acme Checks ===",
        "=== Category 7: Local Checks ===",
    ]
    assert section(proc.stdout, "=== Category 6: Acme Checks ===") == [
        "[FAIL] login: DESIGN.md has no Modules section"
    ]
    assert section(proc.stdout, "=== Category 7: Local Checks ===") == [
        "[WARN] login: SPEC.md is not signed"
    ]
    assert "1 violation found" in lines
    assert proc.stderr == ""


def test_third_party_rules_in_json_and_sarif(
    automaton_project: AutomatonProject, third_party: Path
) -> None:
    root = str(automaton_project.root)
    report = json.loads(status(third_party, "--audit", "--json", "--project", root).stdout)
    assert [(f["code"], f["category"], f["severity"]) for f in report["findings"]] == [
        ("ACME101", "Acme Checks", "error"),
        ("LOC201", "Local Checks", "warning"),
    ]
    plugins = {rule["code"]: rule["plugin"] for rule in report["rules"]}
    assert plugins["ACME101"] == "acme"
    assert plugins["LOC201"].endswith("rules/local.py")
    assert report["errors"] == []

    proc = status(third_party, "--audit", "--format", "sarif", "--project", root)
    assert proc.returncode == 1
    run = json.loads(proc.stdout)["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    ids = [rule["id"] for rule in rules]
    assert ids == [*BUILTIN_CODES, "ACME101", "LOC201"]
    assert rules[ids.index("ACME101")]["properties"]["plugin"] == "acme"
    assert rules[ids.index("LOC201")]["defaultConfiguration"]["level"] == "warning"
    assert [(r["ruleId"], ids[r["ruleIndex"]]) for r in run["results"]] == [
        ("ACME101", "ACME101"),
        ("LOC201", "LOC201"),
    ]
    uris = [
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"]
    ]
    assert uris == [".automaton/tasks/login/DESIGN.md", ".automaton/tasks/login/SPEC.md"]

    listed = status(third_party, "--list-rules", "--project", root)
    assert listed.returncode == 0, listed.stderr
    assert "plugin acme" in listed.stdout
    assert "rules/local.py" in listed.stdout


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


# ------------------------------------------------------------------------ --list-rules


def _listed(output: str) -> dict[str, str]:
    """Rule code to plugin, from the two lines --list-rules prints per rule."""
    lines = output.splitlines()
    found = {}
    for first, second in zip(lines, lines[1:]):
        code = first.split(" ", 1)[0]
        if code and not first.startswith(" ") and "; plugin " in second:
            found[code] = second.rsplit("; plugin ", 1)[1]
    return found


def test_list_rules_names_every_rule_and_its_plugin(automaton_project: AutomatonProject) -> None:
    automaton_project.task("demo")
    automaton_project.write_plugin(LOCAL_RULES, name="local_rules")
    result = automaton_project.run("--list-rules")
    assert result.exit_code == 0, result
    listed = _listed(result.out)
    assert list(listed) == [*BUILTIN_CODES, "LOC201"]
    for code, plugin in BUILTIN_PLUGIN.items():
        assert listed[code] == plugin
    assert listed["LOC201"].endswith("local_rules.py")
    assert "State-Artifact Inconsistency" in result.out
    assert "SPEC.md is signed" in result.out


def test_list_rules_json(automaton_project: AutomatonProject) -> None:
    automaton_project.task("demo")
    automaton_project.write_plugin(LOCAL_RULES, name="local_rules")
    write_config(
        automaton_project,
        'plugins = ["local_rules.py"]\nseverity = { LOC201 = "error" }\n',
    )
    result = automaton_project.run("--list-rules", "--json")
    assert result.exit_code == 0
    report = json.loads(result.out)
    assert report["schema_version"] == 1
    rows = {row["code"]: row for row in report["rules"]}
    assert list(rows) == [*BUILTIN_CODES, "LOC201"]
    assert rows["AR202"]["severity"] == "warning"
    assert rows["LOC201"]["severity"] == "error"  # as configured
    assert rows["AR101"]["plugin"] == "automaton_rules.builtin.out_of_order"
    assert rows["LOC201"]["category"] == "Local Checks"
    assert set(rows["AR101"]["when"]) == {"audit", "validate", "transition"}
    for row in report["rules"]:
        assert {"code", "severity", "category", "plugin", "summary"} <= set(row)


def test_list_rules_with_a_broken_plugin(automaton_project: AutomatonProject) -> None:
    automaton_project.task("demo")
    automaton_project.write_plugin("raise RuntimeError('no')\n", name="broken_rules")
    result = automaton_project.run("--list-rules")
    assert result.exit_code == 2
    assert "broken_rules" in result.out + result.err
    assert "AR101" in result.out


def test_list_rules_never_reads_the_current_directorys_config(
    automaton_project: AutomatonProject,
) -> None:
    """--project names a folder with no task yet: its configuration is used, or the command
    says the project was not found; the current directory's automaton.toml (here the
    repository's, which lists the EX rules) is never read instead."""
    automaton_project.write_plugin(LOCAL_RULES, name="local_rules")
    result = automaton_project.run("--list-rules", "--json")
    report = json.loads(result.out)
    codes = [row["code"] for row in report.get("rules", [])]
    assert not any(code.startswith("EX") for code in codes)
    if result.exit_code == 0:
        assert "LOC201" in codes
    else:
        assert result.exit_code == 2
        assert report["error"]["message"]


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


# --------------------------------------------------------------------------------------
# The cheap look for entry points, held to what importlib.metadata finds
# --------------------------------------------------------------------------------------


def group_found_by_importlib(site: Path) -> bool:
    from importlib import metadata

    return any(
        ep.group == "automaton_rules"
        for dist in metadata.distributions(path=[str(site)])
        for ep in dist.entry_points
    )


def dist_info(site: Path, name: str, entry_points: str | None) -> Path:
    info = site / f"{name}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    if entry_points is not None:
        (info / "entry_points.txt").write_text(entry_points)
    return info


@pytest.mark.parametrize(
    ("entry_points", "declared"),
    [
        (None, False),
        ("[console_scripts]\nacme = acme:main\n", False),
        ("[pytest11]\nautomaton_rules = automaton_rules.testing\n", False),
        ("[automaton_rules]\nacme = acme_rules\n", True),
        ("[console_scripts]\nacme = acme:main\n\n[automaton_rules]\nacme = acme_rules\n", True),
    ],
)
def test_the_look_for_entry_points_agrees_with_importlib_metadata(
    tmp_path: Path, entry_points: str | None, declared: bool
) -> None:
    dist_info(tmp_path, "acme", entry_points)
    assert group_found_by_importlib(tmp_path) is declared
    assert plugins.group_declared([str(tmp_path)]) is declared


def test_the_look_for_entry_points_reads_eggs_and_skips_egg_info_files(tmp_path: Path) -> None:
    (tmp_path / "old.egg-info").write_text("Metadata-Version: 1.0\nName: old\n")
    assert plugins.group_declared([str(tmp_path)]) is False
    egg = tmp_path / "acme-1.0.egg"
    (egg / "EGG-INFO").mkdir(parents=True)
    (egg / "EGG-INFO" / "entry_points.txt").write_text("[automaton_rules]\nacme = acme\n")
    assert plugins.group_declared([str(egg)]) is True


def test_what_the_look_cannot_read_counts_as_declared(tmp_path: Path) -> None:
    """A zip on the path, or an entry_points.txt that is no text: the full scan decides."""
    archive = tmp_path / "bundle.zip"
    archive.write_bytes(b"PK\x05\x06" + b"\0" * 18)
    assert plugins.group_declared([str(archive)]) is True
    info = dist_info(tmp_path / "site", "acme", None)
    (info / "entry_points.txt").write_bytes(b"\xff\xfe[automaton")
    assert plugins.group_declared([str(tmp_path / "site")]) is True
    assert plugins.group_declared([str(tmp_path / "missing")]) is False


def test_without_a_declared_group_the_scan_is_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dist_info(tmp_path, "acme", "[console_scripts]\nacme = acme:main\n")
    monkeypatch.setattr(sys, "path", [str(tmp_path)])
    monkeypatch.setattr(plugins, "_INSTALLED", {})

    def scan() -> list:
        raise AssertionError("importlib.metadata scanned")

    monkeypatch.setattr(plugins, "_scan_entry_points", scan)
    assert plugins.installed_packages() == []
    dist_info(tmp_path, "acme-rules", "[automaton_rules]\nacme = acme_rules\n")
    monkeypatch.setattr(sys, "path", [str(tmp_path), ""])  # another path: read again
    with pytest.raises(AssertionError, match="scanned"):
        plugins.installed_packages()
