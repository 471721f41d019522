"""The rule engine, pytester-style: plugins written into temporary folders and loaded."""

from __future__ import annotations

import importlib
import sys
import textwrap
import uuid
from pathlib import Path

import pytest
from helpers import BUILTIN_CODES, empty_project, walk

from automaton_rules import AutomatonError, Refusal, Rule, Transition, rule, workflow
from automaton_rules.core.project import find_project
from automaton_rules.engine import plugins as plugins_module
from automaton_rules.engine.plan import Selection
from automaton_rules.engine.plugins import BUILTIN_PLUGINS, plugin_names
from automaton_rules.engine.runner import Engine

OUT_OF_ORDER_PLUGIN = "automaton_rules.builtin.out_of_order"

HEADER = """\
from automaton_rules import Finding, hookimpl, rule
from automaton_rules.engine.findings import OUT_OF_ORDER
CALLS = []
"""

GOOD = """
@rule("XT100", summary="flags NOTES.txt", category="Team Rules", when=("validate", "audit"))
def notes_present(task):
    if "NOTES.txt" in task.files:
        yield Finding("NOTES.txt must not be committed", path="NOTES.txt")

@hookimpl
def register_rules(register):
    register(notes_present)
"""


@pytest.fixture
def write_plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Write a plugin module into a folder on sys.path; return its importable name."""
    folder = tmp_path / "plugin_modules"
    folder.mkdir()
    monkeypatch.syspath_prepend(str(folder))
    written: list[str] = []

    def write(body: str, name: str | None = None) -> str:
        name = name or f"plug_{uuid.uuid4().hex[:12]}"
        (folder / f"{name}.py").write_text(HEADER + textwrap.dedent(body))
        importlib.invalidate_caches()
        written.append(name)
        return name

    yield write
    for name in written:
        sys.modules.pop(name, None)


@pytest.fixture
def core(project):
    """The core's view of the temporary project."""
    project.tasks.mkdir(parents=True, exist_ok=True)
    return find_project(project.root)


def engine_with(*plugins: str, base: Path | None = None) -> Engine:
    return Engine.create(list(plugins), base=base, entry_points=False)


def codes(engine: Engine) -> list[str]:
    return [item.code for _, item in engine.rules]


def out_of_order_task(project, task_in, name: str = "skipper") -> str:
    """A task in research with IMPLEMENTATION.md present: an out-of-order artifact."""
    task_in("research", name=name)
    project.write(name, "IMPLEMENTATION.md")
    return name


# --- registration -----------------------------------------------------------------------


def test_plugin_is_registered_after_the_builtins(write_plugin) -> None:
    name = write_plugin(GOOD)
    engine = engine_with(name)
    assert list(plugin_names(engine.pm)) == [*BUILTIN_PLUGINS, name]
    assert codes(engine) == [*BUILTIN_CODES, "XT100"]
    assert list(dict.fromkeys(plugin for plugin, _ in engine.rules)) == [*BUILTIN_PLUGINS, name]
    assert engine.errors == []


def test_builtins_alone() -> None:
    engine = engine_with()
    assert list(plugin_names(engine.pm)) == list(BUILTIN_PLUGINS)
    assert codes(engine) == list(BUILTIN_CODES)
    assert engine.errors == []


def test_plugin_rule_reports_with_filled_in_fields(write_plugin, project, task_in, core) -> None:
    name = write_plugin(
        GOOD
        + """
@rule("XT101", summary="warns", category="Team Rules", severity="warning", when=("validate",))
def warns(task):
    yield Finding("just a warning")
    yield Finding("a note after all", severity="note", category="Other")
"""
        + """
@hookimpl
def register_rules(register):
    register(notes_present)
    register(warns)
"""
    )
    task_in("research", name="noted")
    project.write("noted", "NOTES.txt")
    result = engine_with(name).run("validate", core, [core.load("noted")])
    assert result.errors == []
    got = {(f.code, f.category, f.severity, f.task, f.message, f.path) for f in result.findings}
    assert got == {
        ("XT100", "Team Rules", "error", "noted", "NOTES.txt must not be committed", "NOTES.txt"),
        ("XT101", "Team Rules", "warning", "noted", "just a warning", None),
        ("XT101", "Other", "note", "noted", "a note after all", None),
    }
    assert [f.code for f in result.violations] == ["XT100"]


def test_rules_receive_only_the_arguments_they_name(write_plugin, project, task_in, core) -> None:
    name = write_plugin(
        """
@rule("XT110", summary="task only", category="Team", when=("validate", "audit"))
def task_only(task):
    CALLS.append(("task_only", task.name))
    return []

@rule("XT111", summary="all three", category="Team", when=("validate", "transition"))
def all_three(transition, project, task):
    CALLS.append(("all_three", transition, str(project.root), task.name))

@rule("XT112", summary="project only", category="Team", when=("audit", "validate"))
def project_only(project):
    CALLS.append(("project_only", str(project.root)))
    return iter(())

@rule("XT113", summary="nothing", category="Team", when=("audit",))
def no_arguments():
    CALLS.append(("no_arguments",))

@hookimpl
def register_rules(register):
    register(task_only)
    register(all_three)
    register(project_only)
    register(no_arguments)
"""
    )
    task_in("new", name="one")
    task_in("new", name="two")
    engine = engine_with(name)
    calls = sys.modules[name].CALLS
    tasks = [core.load("one"), core.load("two")]

    result = engine.run("validate", core, tasks)
    assert result.errors == []
    assert calls == [
        ("task_only", "one"),
        ("all_three", None, str(core.root), "one"),
        ("task_only", "two"),
        ("all_three", None, str(core.root), "two"),
    ]

    calls.clear()
    result = engine.run("audit", core, tasks)
    assert result.errors == []
    assert calls == [
        ("task_only", "one"),
        ("task_only", "two"),
        ("project_only", str(core.root)),
        ("no_arguments",),
    ]

    calls.clear()
    engine.run("transition", core, tasks[:1], Transition("new", "research"))
    assert calls == [("all_three", Transition("new", "research"), str(core.root), "one")]


def test_transition_rules_see_the_move(write_plugin, project, task_in, core) -> None:
    name = write_plugin(
        """
@rule("XT120", summary="records", category="Team", when=("transition",))
def record(task, transition):
    CALLS.append((task.name, task.state, transition.source, transition.target))
    return []

@hookimpl
def register_rules(register):
    register(record)
"""
    )
    task_in("new", name="moving")
    change = workflow.transition(core, "moving", "research", engine=engine_with(name))
    assert change.target == "research"
    assert sys.modules[name].CALLS == [("moving", "new", "new", "research")]


# --- failures become PluginErrors naming the plugin ---------------------------------------


def assert_builtins_still_report(engine: Engine, core, name: str) -> None:
    result = engine.run("validate", core, [core.load(name)])
    assert [(f.code, f.path) for f in result.findings] == [
        ("AR101", ".automaton/tasks/skipper/IMPLEMENTATION.md")
    ]


def test_unknown_argument_is_a_plugin_error(write_plugin, project, task_in, core) -> None:
    bad = write_plugin(
        """
@rule("XT130", summary="asks for a database", category="Team", when=("validate",))
def wants_git(task, database):
    return []

@hookimpl
def register_rules(register):
    register(wants_git)
"""
    )
    good = write_plugin(GOOD)
    engine = engine_with(bad, good)
    assert len(engine.errors) == 1
    error = engine.errors[0]
    assert error.plugin == bad
    assert "XT130" in error.message and "database" in error.message
    assert "unknown argument" in error.message
    assert "XT130" not in codes(engine)
    assert "XT100" in codes(engine)
    name = out_of_order_task(project, task_in)
    project.write(name, "NOTES.txt")
    result = engine.run("validate", core, [core.load(name)])
    assert {f.code for f in result.findings} == {"AR101", "XT100"}


@pytest.mark.parametrize(
    "body,expected",
    [
        ("raise RuntimeError('boom at import')\n", "RuntimeError: boom at import"),
        ("import no_such_module_for_automaton_tests\n", "ModuleNotFoundError"),
        ("def broken(:\n", "SyntaxError"),
    ],
    ids=["raises", "missing-import", "syntax-error"],
)
def test_plugin_that_fails_to_import(
    write_plugin, project, task_in, core, body: str, expected: str
) -> None:
    bad = write_plugin(body)
    good = write_plugin(GOOD)
    engine = engine_with(bad, good)
    assert [e.plugin for e in engine.errors] == [bad]
    (error,) = engine.errors
    # where the plugin's own code failed: its file and line, the line the body stands on
    assert error.where is not None and error.where.endswith(f"{bad}.py:4"), error.where
    assert error.message.startswith(f"failed to import at {error.where}: {expected}")
    assert error.trace is not None and expected.split(":")[0] in error.trace
    assert bad not in plugin_names(engine.pm)
    assert codes(engine) == [*BUILTIN_CODES, "XT100"]
    assert_builtins_still_report(engine, core, out_of_order_task(project, task_in))


def test_missing_plugin_module() -> None:
    engine = engine_with("automaton_tests_no_such_plugin")
    (error,) = engine.errors
    assert (error.plugin, error.message, error.where) == (
        "automaton_tests_no_such_plugin",
        "failed to import: ModuleNotFoundError: No module named 'automaton_tests_no_such_plugin'",
        None,  # no line of the plugin's own: nothing of it was found
    )
    assert codes(engine) == list(BUILTIN_CODES)


def test_register_rules_that_raises(write_plugin, project, task_in, core) -> None:
    bad = write_plugin(
        """
@hookimpl
def register_rules(register):
    raise KeyError("no rules today")
"""
    )
    good = write_plugin(GOOD)
    engine = engine_with(bad, good)
    assert [e.plugin for e in engine.errors] == [bad]
    assert "register_rules failed" in engine.errors[0].message
    assert "KeyError" in engine.errors[0].message
    assert codes(engine) == [*BUILTIN_CODES, "XT100"]
    assert_builtins_still_report(engine, core, out_of_order_task(project, task_in))


def test_registering_something_that_is_not_a_rule(write_plugin) -> None:
    bad = write_plugin(
        """
def plain(task):
    return []

@hookimpl
def register_rules(register):
    register(plain)
"""
    )
    engine = engine_with(bad)
    assert [e.plugin for e in engine.errors] == [bad]
    (error,) = engine.errors
    assert "register() takes a Rule, got the plain function plain()" in error.message
    assert "decorate it with @rule(" in error.message
    assert codes(engine) == list(BUILTIN_CODES)


def test_registering_a_value_that_is_no_function_names_its_type(write_plugin) -> None:
    bad = write_plugin(
        """
@hookimpl
def register_rules(register):
    register("AR999")
"""
    )
    (error,) = engine_with(bad).errors
    assert "register() takes a Rule (a function decorated with @rule), got str" in error.message


# --- plain hooks, and plugins that implement none --------------------------------------


def test_register_rules_without_hookimpl_registers_like_pytest_plain_hooks(write_plugin) -> None:
    name = write_plugin(GOOD.replace("@hookimpl\n", ""))
    engine = engine_with(name)
    assert engine.errors == []
    assert codes(engine) == [*BUILTIN_CODES, "XT100"]


def test_a_helper_function_with_a_hook_like_name_in_a_class_is_not_a_hook(write_plugin) -> None:
    """Only module-level functions are taken without the marker, as in pytest."""
    name = write_plugin(
        GOOD
        + """
class Helper:
    def register_rules(self, register):
        raise AssertionError("never called")
"""
    )
    engine = engine_with(name)
    assert engine.errors == []
    assert codes(engine) == [*BUILTIN_CODES, "XT100"]


@pytest.mark.parametrize(
    ("defined", "hint"),
    [
        (
            "def register_rule(register):\n    pass\n",
            " (it defines register_rule(): did you mean register_rules?)",
        ),
        ("def setup(register):\n    pass\n", ""),
        ("", ""),
    ],
    ids=["near-name", "no-near-name", "nothing"],
)
def test_a_plugin_that_implements_no_hook_is_an_error(
    write_plugin, defined: str, hint: str
) -> None:
    name = write_plugin(defined)
    (error,) = engine_with(name).errors
    assert error.plugin == name
    assert error.message.startswith(f"implements no hook{hint}; a plugin defines register_rules")
    assert ("did you mean" in error.message) is bool(hint)


@pytest.mark.parametrize(
    "body,fragment",
    [
        ("raise ValueError('rule exploded')", "ValueError: rule exploded"),
        ("yield 'not a finding'", "yielded str, not a Finding"),
        ("yield Finding('fine')\n    yield 42", "yielded int, not a Finding"),
        ("return 7", "returned int; yield Findings (or return a list of them)"),
        ("return Finding('bare')", "returned Finding; yield Findings (or return a list of them)"),
        ("return 'text'", "returned str; yield Findings (or return a list of them)"),
    ],
    ids=[
        "raises",
        "yields-str",
        "yields-int-after-finding",
        "returns-int",
        "returns-a-finding",
        "returns-a-string",
    ],
)
def test_broken_rule_is_a_plugin_error_and_others_still_report(
    write_plugin, project, task_in, core, body: str, fragment: str
) -> None:
    bad = write_plugin(
        f"""
@rule("XT140", summary="broken", category="Team", when=("validate",))
def broken(task):
    {body}

@rule("XT141", summary="fine", category="Team", when=("validate",))
def fine(task):
    yield Finding("still here")

@hookimpl
def register_rules(register):
    register(broken)
    register(fine)
"""
    )
    name = out_of_order_task(project, task_in)
    result = engine_with(bad).run("validate", core, [core.load(name)])
    assert len(result.errors) == 1
    error = result.errors[0]
    assert error.plugin == bad
    assert error.code == "XT140"
    assert "rule XT140" in error.message and f"task '{name}'" in error.message
    assert fragment in error.message
    assert sorted(f.code for f in result.findings) == ["AR101", "XT141"]


def test_duplicate_rule_code_of_a_builtin_is_rejected(write_plugin) -> None:
    bad = write_plugin(
        """
@rule("AR101", summary="impostor", category="Team", when=("validate",))
def impostor(task):
    yield Finding("impostor")

@hookimpl
def register_rules(register):
    register(impostor)
"""
    )
    engine = engine_with(bad)
    assert [e.plugin for e in engine.errors] == [bad]
    assert "AR101" in engine.errors[0].message
    assert OUT_OF_ORDER_PLUGIN in engine.errors[0].message
    assert [(p, c) for p, c in ((p, r.code) for p, r in engine.rules) if c == "AR101"] == [
        (OUT_OF_ORDER_PLUGIN, "AR101")
    ]
    assert engine.rules[0][1].summary != "impostor"


def test_duplicate_rule_code_between_plugins(write_plugin) -> None:
    first = write_plugin(GOOD)
    second = write_plugin(GOOD)
    engine = engine_with(first, second)
    assert [e.plugin for e in engine.errors] == [second]
    assert "XT100" in engine.errors[0].message and first in engine.errors[0].message
    assert [p for p, r in engine.rules if r.code == "XT100"] == [first]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"code": "xt1"},
        {"code": "XT"},
        {"code": "1XT"},
        {"severity": "fatal"},
        {"when": ("sometime",)},
        {"when": ()},
    ],
)
def test_rule_decorator_validates(kwargs: dict) -> None:
    args = {"code": "XT150", "summary": "s", "category": "c", **kwargs}
    code = args.pop("code")
    with pytest.raises(ValueError):
        rule(code, **args)(lambda task: [])


@pytest.mark.parametrize(
    ("when", "expected"),
    [
        ("audit", {"audit"}),
        (["audit", "edit"], {"audit", "edit"}),
        ({"transition"}, {"transition"}),
        ((m for m in ("validate", "audit")), {"validate", "audit"}),
    ],
    ids=["string", "list", "set", "generator"],
)
def test_when_takes_a_string_or_any_iterable(when, expected: set[str]) -> None:
    made = rule("XT151", summary="s", category="c", when=when)(lambda task: [])
    assert made.when == frozenset(expected)
    direct = Rule("XT152", lambda task: [], "s", "c", when="validate")
    assert direct.when == frozenset({"validate"})


def test_an_unknown_moment_is_named() -> None:
    with pytest.raises(
        ValueError, match=r"'when' takes audit, validate, transition, edit \(got 'audits'\)"
    ):
        rule("XT153", summary="s", category="c", when="audits")
    with pytest.raises(ValueError, match=r"\(got none\)"):
        rule("XT154", summary="s", category="c", when=[])


def test_rule_is_callable_as_a_plain_function() -> None:
    @rule("XT160", summary="s", category="c")
    def double(task):
        return [task * 2]

    assert isinstance(double, Rule)
    assert double(21) == [42]
    assert double.argnames == ("task",)
    assert double.when == frozenset({"audit"})
    assert double.severity == "error"
    assert double.name == "double"


# --- rules at the transition decision point ----------------------------------------------

GATE_PLUGIN = """
@rule("XT200", summary="needs an owner", category="Team", when=("transition",))
def owner_required(task, transition):
    if transition.target == "research" and "OWNER" not in task.files:
        yield Finding("an OWNER file is required before research")

@rule("XT201", summary="a warning only", category="Team", severity="warning", when=("transition",))
def just_warns(task, transition):
    yield Finding("consider writing NOTES")

@hookimpl
def register_rules(register):
    register(owner_required)
    register(just_warns)
"""


def test_plugin_rule_refuses_the_transition(write_plugin, project, task_in, core) -> None:
    name = write_plugin(GATE_PLUGIN)
    task_in("new", name="gated")
    history_before = (project.task_dir("gated") / ".state.history").read_bytes()
    with pytest.raises(Refusal) as info:
        workflow.transition(core, "gated", "research", engine=engine_with(name))
    assert info.value.exit_code == 1
    assert (
        "ERROR: Cannot transition from 'new' to 'research'. "
        "an OWNER file is required before research (XT200)"
    ) in info.value.text
    assert "XT201" not in info.value.text  # a warning never refuses
    assert project.state("gated") == "new\n"
    assert (project.task_dir("gated") / ".state.history").read_bytes() == history_before

    project.write("gated", "OWNER")
    change = workflow.transition(core, "gated", "research", engine=engine_with(name))
    assert (change.source, change.target) == ("new", "research")
    assert project.state("gated") == "research\n"


def test_plugin_rule_refuses_the_transition_from_the_cli(write_plugin, project, task_in) -> None:
    name = write_plugin(GATE_PLUGIN)
    (project.root / "automaton.toml").write_text(f'plugins = ["{name}"]\n')
    task_in("new", name="gated")
    result = project.run("--task", "gated", "--transition", "research")
    assert result.rc == 1, result
    assert (
        "Cannot transition from 'new' to 'research'. "
        "an OWNER file is required before research (XT200)"
    ) in result.err
    assert project.state("gated") == "new\n"


def test_plugin_rule_raising_during_a_transition_fails_closed(
    write_plugin, project, task_in, core
) -> None:
    name = write_plugin(
        """
@rule("XT210", summary="crashes", category="Team", when=("transition",))
def crashes(task, transition):
    raise RuntimeError("guard crashed")

@hookimpl
def register_rules(register):
    register(crashes)
"""
    )
    task_in("new", name="guarded")
    history_before = (project.task_dir("guarded") / ".state.history").read_bytes()
    with pytest.raises(AutomatonError) as info:
        workflow.transition(core, "guarded", "research", engine=engine_with(name))
    assert not isinstance(info.value, Refusal)
    assert info.value.exit_code == 2
    assert name in info.value.message
    assert "guard crashed" in info.value.message
    assert project.state("guarded") == "new\n"
    assert (project.task_dir("guarded") / ".state.history").read_bytes() == history_before

    (project.root / "automaton.toml").write_text(f'plugins = ["{name}"]\n')
    result = project.run("--task", "guarded", "--transition", "research")
    assert result.rc == 2, result
    assert name in result.err and "Traceback" not in result.err
    assert project.state("guarded") == "new\n"


BROKEN_PLUGINS = {
    "import-fails": "raise RuntimeError('boom at import')\n",
    "register-raises": """
@hookimpl
def register_rules(register):
    raise KeyError("no rules today")
""",
}


@pytest.mark.parametrize("kind", sorted(BROKEN_PLUGINS))
def test_broken_plugin_makes_validate_folder_exit_2(
    write_plugin, project, task_in, kind: str
) -> None:
    """DESIGN 7: a plugin that fails to import or raises is reported by name (exit 2)."""
    task = out_of_order_task(project, task_in)
    name = write_plugin(BROKEN_PLUGINS[kind])
    (project.root / "automaton.toml").write_text(f'plugins = ["{name}"]\n')
    result = project.run("--validate-folder", "--task", task)
    assert result.rc == 2, result
    assert name in result.err
    assert "IMPLEMENTATION.md (belongs to implement phase, not yet reached)" in result.out


@pytest.mark.parametrize("kind", sorted(BROKEN_PLUGINS))
def test_broken_plugin_makes_transition_fail_closed(
    write_plugin, project, task_in, kind: str
) -> None:
    """A guard that did not load must not let the move through silently (exit 2)."""
    task_in("new", name="guarded")
    name = write_plugin(BROKEN_PLUGINS[kind])
    (project.root / "automaton.toml").write_text(f'plugins = ["{name}"]\n')
    result = project.run("--task", "guarded", "--transition", "research")
    assert result.rc == 2, result
    assert name in result.err
    assert project.state("guarded") == "new\n"


def test_rule_raising_in_validate_folder_exits_2(write_plugin, project, task_in) -> None:
    name = write_plugin(
        """
@rule("XT220", summary="crashes", category="Team", when=("validate",))
def crashes(task):
    raise RuntimeError("validator crashed")

@hookimpl
def register_rules(register):
    register(crashes)
"""
    )
    task = out_of_order_task(project, task_in)
    (project.root / "automaton.toml").write_text(f'plugins = ["{name}"]\n')
    result = project.run("--validate-folder", "--task", task)
    assert result.rc == 2, result
    assert name in result.err and "validator crashed" in result.err
    assert "IMPLEMENTATION.md (belongs to implement phase, not yet reached)" in result.out


# --- plugins named by file path ----------------------------------------------------------


def test_py_path_plugin_relative_to_base(tmp_path, project, task_in, core, monkeypatch) -> None:
    base = tmp_path / "config-home"
    (base / "team").mkdir(parents=True)
    plugin = base / "team" / f"rule_{uuid.uuid4().hex[:8]}.py"
    plugin.write_text(HEADER + textwrap.dedent(GOOD))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # relative to the base, not to the working directory
    relative = f"team/{plugin.name}"
    engine = engine_with(relative, base=base)
    assert engine.errors == []
    assert list(plugin_names(engine.pm)) == [*BUILTIN_PLUGINS, str(plugin)]
    assert codes(engine) == [*BUILTIN_CODES, "XT100"]
    task_in("research", name="noted")
    project.write("noted", "NOTES.txt")
    result = engine.run("validate", core, [core.load("noted")])
    assert [(f.code, f.path) for f in result.findings] == [("XT100", "NOTES.txt")]

    missing = engine_with("team/absent.py", base=base)
    assert [e.plugin for e in missing.errors] == [str(base / "team" / "absent.py")]
    assert "no such file" in missing.errors[0].message
    assert codes(missing) == list(BUILTIN_CODES)


def test_py_path_plugin_from_automaton_toml(tmp_path, project, task_in) -> None:
    (project.root / "rules").mkdir()
    (project.root / "rules" / "team.py").write_text(HEADER + textwrap.dedent(GOOD))
    (project.root / "automaton.toml").write_text('plugins = ["rules/team.py"]\n')
    task_in("research", name="noted")
    project.write("noted", "NOTES.txt")
    result = project.run("--validate-folder", "--task", "noted")
    assert result.rc == 1, result
    assert "NOTES.txt must not be committed" in result.out
    assert "XT100" in result.out
    project.task_dir("noted").joinpath("NOTES.txt").unlink()
    result = project.run("--validate-folder", "--task", "noted")
    assert result.rc == 0, result


# --- the out-of-order verdict comes from the registered AR101 -----------------------------


def unregister_builtin_out_of_order(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every engine built from now on lacks the built-in AR101 plugin, with or without
    pluggy's manager."""
    others = tuple(name for name in BUILTIN_PLUGINS if name != OUT_OF_ORDER_PLUGIN)
    monkeypatch.setattr(plugins_module, "BUILTIN_PLUGINS", others)
    assert "AR101" not in [rule.code for _, rule in Engine.create().rules]
    assert OUT_OF_ORDER_PLUGIN not in plugin_names(Engine.create().pm)


@pytest.fixture
def without_builtin_out_of_order(monkeypatch: pytest.MonkeyPatch) -> None:
    unregister_builtin_out_of_order(monkeypatch)


def test_validate_folder_verdict_with_builtin_rule(project, task_in) -> None:
    name = out_of_order_task(project, task_in)
    result = project.run("--validate-folder", "--task", name)
    assert result.rc == 1
    assert "IMPLEMENTATION.md (belongs to implement phase, not yet reached)" in result.out


def test_validate_folder_verdict_without_builtin_rule(
    project, task_in, without_builtin_out_of_order
) -> None:
    name = out_of_order_task(project, task_in)
    result = project.run("--validate-folder", "--task", name)
    assert result.rc == 0, result
    assert "Folder validation: PASS" in result.out


def test_transition_verdict_with_and_without_builtin_rule(project, task_in, monkeypatch) -> None:
    name = out_of_order_task(project, task_in)
    project.write(name, "SPEC.md")
    result = project.run("--task", name, "--transition", "research:awaiting_approval")
    assert result.rc == 1
    assert "Found forbidden artifact 'IMPLEMENTATION.md'" in result.err
    assert project.state(name) == "research\n"

    unregister_builtin_out_of_order(monkeypatch)
    result = project.run("--task", name, "--transition", "research:awaiting_approval")
    assert result.rc == 0, result
    assert project.state(name) == "research:awaiting_approval\n"


REPLACEMENT = """
@rule("AR101", summary="team's own out-of-order check", category=OUT_OF_ORDER,
      when=("validate", "transition"))
def stricter(task):
    if "DRAFT.md" in task.files:
        yield Finding("DRAFT.md is out of order", path="DRAFT.md",
                      data={"phase": "design"})

@hookimpl
def register_rules(register):
    register(stricter)
"""


def test_replacing_ar101_changes_both_verdicts(
    write_plugin, project, task_in, without_builtin_out_of_order
) -> None:
    name = write_plugin(REPLACEMENT)
    (project.root / "automaton.toml").write_text(f'plugins = ["{name}"]\n')
    task = out_of_order_task(project, task_in)
    project.write(task, "SPEC.md")
    project.write(task, "DRAFT.md")

    result = project.run("--validate-folder", "--task", task)
    assert result.rc == 1, result
    assert "DRAFT.md (belongs to design phase, not yet reached)" in result.out
    assert "IMPLEMENTATION.md" not in result.out

    result = project.run("--task", task, "--transition", "research:awaiting_approval")
    assert result.rc == 1, result
    assert "Found forbidden artifact 'DRAFT.md'" in result.err
    assert "IMPLEMENTATION.md" not in result.err

    project.task_dir(task).joinpath("DRAFT.md").unlink()
    result = project.run("--task", task, "--transition", "research:awaiting_approval")
    assert result.rc == 0, result


# ---------------------------------------------------------- what a run keeps in memory


def test_an_audit_selecting_only_the_git_rule_keeps_no_history(tmp_path: Path) -> None:
    """The project-wide rules read every task's history; none of it may stay in memory."""
    root = empty_project(tmp_path)
    for name in ("one", "two", "three"):
        walk(root, name, "design")
    project = find_project(root)
    tasks = [project.load(name) for name in ("one", "two", "three")]
    result = Engine.create().run("audit", project, tasks, selection=Selection(select=("AR3",)))
    assert result.errors == []
    for task in tasks:
        assert task.entered, "the timeline was read"
        assert "history" not in task.__dict__ and "history_lines" not in task.__dict__
