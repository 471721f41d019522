"""Plugins through status.py: rules installed by entry point or listed by path, their
categories in every report format, --list-rules, and the cheap look for entry points held
to what importlib.metadata finds. A broken plugin is tested in test_plugin_failures.py,
the engine's own API, called directly, in test_engine.py.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from helpers import (
    BUILTIN_CODES,
    CATEGORY_HEADINGS,
    LOCAL_RULES,
    ROOT,
    section,
    status_py,
    write_config,
)
from helpers import install_plugin as install
from helpers import status_with_site as status

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
