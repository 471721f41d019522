"""How the suite runs: how big the sized suites are (AUTOMATON_TESTS), and which tests
conftest.py deals out first."""

from __future__ import annotations

import os

import pytest

# The suites that draw many random cases or kill many processes run at a size fit for CI
# (the whole suite within five minutes on two cores); AUTOMATON_TESTS=full runs each at its
# full size (docs/reliability.md gives both). Any other value is refused, never ignored.
SIZES = ("ci", "full")
SIZE = os.environ.get("AUTOMATON_TESTS") or "ci"
if SIZE not in SIZES:
    raise pytest.UsageError(f"AUTOMATON_TESTS={SIZE!r}: use one of {', '.join(SIZES)}")


def sized(ci: int, full: int) -> int:
    """A suite's size: `ci` by default, `full` with AUTOMATON_TESTS=full."""
    return full if SIZE == "full" else ci


# The longest tests (seconds each: processes killed, venvs built, mypy, a browser), run
# first so that parallel workers finish together: pytest-xdist deals out the short ones
# while these run. They are marked `slow`, so `-m "not slow"` leaves them out of a quick
# run. tests/test_architecture.py checks every name here is a test that exists.
LONG_TESTS = (
    "test_kill_storm.py::test_kill_storm_leaves_every_task_whole",
    "test_demo.py::test_the_demo_runs_to_its_audit",
    "test_crash.py::test_sigkill_during_approve_is_always_recoverable",
    "test_testing_plugin.py::test_the_guides_examples_pass_with_another_rule_package_installed",
    "test_example_package.py::test_the_template_type_checks_under_mypy_strict",
    "test_example_package.py::test_the_templates_tests_pass_where_it_is_installed",
    "test_public_api.py::test_a_plugin_naming_every_argument_type_checks_under_mypy_strict",
    "test_public_api.py::test_mypy_strict_sees_the_real_types",
    "test_tool_safety.py::test_python_files_in_the_project_and_tasks_are_never_imported",
    "test_cli.py::test_status_py_runs_from_the_checkout",
    "test_docs.py::test_the_rule_writing_guide_works_as_written",
    "test_docs.py::test_the_guides_shell_blocks_run_as_written",
    "test_fuzz.py::test_fuzzed_task_files",
    "test_fuzz.py::test_fuzzed_command_lines",
    "test_properties.py::test_random_command_sequences_keep_the_invariants",
    "test_shell.py::test_deep_nesting_is_unreadable_code_not_a_crash",
    "test_html_report.py::test_the_board_in_headless_chromium",
    "test_store.py::test_racing_transitions_exactly_one_wins",
    "test_store.py::test_racing_transitions_to_different_targets",
    "test_store.py::test_racing_create_task_exactly_one_wins",
    "test_store.py::test_racing_approvals_exactly_one_line",
    "test_store.py::test_racing_commands_on_different_tasks_all_succeed",
)
