"""automaton.toml and [tool.automaton]: found by walking up, strict about keys and types;
a broken one fails every command, and the repository's own shows every key.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import ROOT, Project, files_below

from automaton_rules.core.config import Config, find_config, load_config
from automaton_rules.support.errors import AutomatonError


def test_no_file_gives_defaults(tmp_path: Path) -> None:
    assert load_config(tmp_path) == Config()


def test_nearest_file_above_the_project_wins(tmp_path: Path) -> None:
    (tmp_path / "automaton.toml").write_text('plugins = ["outer"]\n')
    inner = tmp_path / "a" / "b"
    inner.mkdir(parents=True)
    (tmp_path / "a" / "automaton.toml").write_text('plugins = ["inner.py"]\n')
    config = load_config(inner)
    assert config.plugins == ("inner.py",)
    assert config.base == tmp_path / "a"


def test_pyproject_tool_table_is_read(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.automaton]\nplugins = ["x"]\n')
    assert load_config(tmp_path).plugins == ("x",)


def test_pyproject_without_the_table_is_skipped(tmp_path: Path) -> None:
    (tmp_path / "automaton.toml").write_text('plugins = ["outer"]\n')
    inner = tmp_path / "pkg"
    inner.mkdir()
    (inner / "pyproject.toml").write_text('[project]\nname = "pkg"\n')
    assert find_config(inner) == tmp_path / "automaton.toml"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('plugin = ["x"]\n', ["Unknown key 'plugin'", "known keys: ", "plugins"]),
        ('plugins = "x"\n', ["Key 'plugins'", "must be a list"]),
        ("plugins = [1]\n", ["Key 'plugins'", "must be a list"]),
        ("plugins = [\n", ["is not valid TOML"]),
        ("implementation-due-hours = 0\n", ["Key 'implementation-due-hours'", "positive"]),
        ('implementation-due-hours = "24"\n', ["Key 'implementation-due-hours'", "hours"]),
    ],
)
def test_bad_configuration_is_an_error_naming_key_and_file(
    tmp_path: Path, text: str, words: list[str]
) -> None:
    path = tmp_path / "automaton.toml"
    path.write_text(text)
    with pytest.raises(AutomatonError) as caught:
        load_config(tmp_path)
    assert caught.value.exit_code == 2
    for word in [*words, str(path)]:
        assert word in caught.value.message


def test_bad_configuration_through_the_cli(project: Project) -> None:
    project.create("demo")
    (project.root / "automaton.toml").write_text("plugns = []\n")
    for command in (("--task", "demo"), ("--list",), ("--create-task", "other")):
        result = project.run(*command)
        assert result.rc == 2, command
        assert result.err.startswith("ERROR: Unknown key 'plugns' in "), command
    assert not project.task_dir("other").exists()
    result = project.run("--validate-folder", "--task", "demo")
    assert result.rc == 2
    assert result.err.startswith("ERROR: Unknown key 'plugns' in ")
    assert "Traceback" not in result.err
    result = project.run("--task", "demo", "--transition", "research")
    assert result.rc == 2
    assert project.state("demo") == "new\n"


def test_explicit_config_must_exist(project: Project) -> None:
    project.create("demo")
    result = project.run("--validate-folder", "--config", str(project.root / "missing.toml"))
    assert result.rc == 2
    assert "ERROR: Configuration file" in result.err


def test_plugin_path_resolves_against_the_config_folder(project: Project) -> None:
    rules = project.root / "team"
    rules.mkdir()
    (rules / "no_todo.py").write_text(
        "from automaton_rules import Finding, hookimpl, rule\n"
        "@rule('TEAM001', summary='no TODO in SPEC.md', category='Team',"
        " when=('validate', 'transition'))\n"
        "def no_todo(task):\n"
        "    if 'TODO' in (task.read('SPEC.md') or ''):\n"
        "        yield Finding('SPEC.md still says TODO', path='SPEC.md')\n"
        "@hookimpl\n"
        "def register_rules(register):\n"
        "    register(no_todo)\n"
    )
    (project.root / "automaton.toml").write_text('plugins = ["team/no_todo.py"]\n')
    project.create("demo")
    project.run("--task", "demo", "--transition", "research")
    project.write("demo", "SPEC.md", "# Spec\nTODO\n")
    result = project.run("--validate-folder", "--task", "demo")
    assert result.rc == 1
    assert "[FAIL] TEAM001: SPEC.md still says TODO" in result.out
    result = project.run("--task", "demo", "--transition", "research:awaiting_approval")
    assert result.rc == 1
    assert result.err == (
        "ERROR: Cannot transition from 'research' to 'research:awaiting_approval'. "
        "SPEC.md still says TODO (TEAM001)\n"
    )
    assert project.state("demo") == "research\n"


def test_the_walk_ends_at_the_repository_top(tmp_path: Path) -> None:
    """A configuration above the repository is not the project's: its plugins never load."""
    (tmp_path / "automaton.toml").write_text('plugins = ["evil.py"]\n')
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    project = repo / "app"
    project.mkdir()
    assert find_config(project) is None
    (repo / "automaton.toml").write_text('plugins = ["team.py"]\n')
    assert find_config(project) == repo / "automaton.toml"


def test_a_configuration_in_a_folder_anyone_may_write_to_is_passed_over(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)  # like /tmp
    (shared / "automaton.toml").write_text('plugins = ["evil.py"]\n')
    project = shared / "proj"
    project.mkdir()
    assert find_config(project) is None
    (project / "automaton.toml").write_text('plugins = ["mine.py"]\n')
    assert find_config(project) == project / "automaton.toml"


@pytest.mark.parametrize(
    "args",
    [
        ("--task", "x"),
        ("--task", "x", "--approve"),
        ("--task", "x", "--transition", "research:approved"),
        ("--list",),
        ("--create-task", "y"),
        ("--upgrade",),
        ("--audit",),
        ("--validate-folder",),
    ],
    ids=" ".join,
)
def test_broken_config_fails_every_command(
    project: Project, task_in, args: tuple[str, ...]
) -> None:
    task_in("research:awaiting_approval", name="x")
    (project.tasks / "hand").mkdir()
    config = project.root / "automaton.toml"
    config.write_text('fail-on = "fatal"\n')
    before = files_below(project.root)
    result = project.run(*args)
    assert result.rc == 2, result
    assert result.err.startswith("ERROR: ")
    assert f"Key 'fail-on' in {config}" in result.err
    assert len(result.err.strip().splitlines()) == 1
    assert files_below(project.root) == before
    assert not (project.tasks / "y").exists()
    assert not (project.tasks / "hand" / ".state").exists()


def test_every_configuration_key_is_shown_in_the_repository_config() -> None:
    """DESIGN §8: the repository's automaton.toml shows each key with a comment."""
    from automaton_rules.core import config

    text = (ROOT / "automaton.toml").read_text()
    missing = [key for key in config._KEYS if f"{key} =" not in text]
    assert missing == []
