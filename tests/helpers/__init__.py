"""What more than one test module uses, other than fixtures (those are in conftest.py):
`from helpers import NAME`. Each concern has a module of its own:

- `checkout`: where the checkout, its documents and the installation under test are;
- `suite`: the sized suites' size (AUTOMATON_TESTS) and the long tests run first;
- `projects`: temporary projects (`Project`) and ways to run status.py on them;
- `output`: reading what status.py printed, and proving what it left alone;
- `audit`: the audit report's headings, the built-in codes, readers of findings;
- `past`: a task's recorded past moved instead of racing the clock, and git history;
- `tools`: the system programs some tests need, found or the test skipped;
- `hooks`: automaton-hook fed recorded events, answers read in each harness's protocol;
- `installer`: automaton-install run as a person runs it;
- `imports`: what a command imports;
- `board`: the dashboard served in a thread;
- `sandbox`: the sandbox's mechanisms found or skipped, a home's start-up files;
- `plugins`: a plugin installed as pip leaves it, and a rule registered by path.
"""

from __future__ import annotations

from helpers.audit import (
    BUILTIN_CODES,
    CAT1,
    CAT2,
    CAT3,
    CAT4,
    CAT5,
    CATEGORY_HEADINGS,
    ERRORS,
    assert_clean,
    section,
    spec_example,
    with_code,
    write_config,
)
from helpers.board import Board
from helpers.checkout import BIN, HOOK, INSTALL, PACKAGE, README, ROOT, STATUS_PY, WRITING_RULES
from helpers.hooks import (
    HOOK_FIXTURES,
    answered,
    claude_prompt,
    context_of,
    denied,
    edit_event,
    hook_command,
    launcher_folder,
    protocol,
    reader_only,
    recorded,
    replay,
    rewritten,
    run_hook,
    shell_event,
)
from helpers.imports import IMPORT_LINE, modules_imported
from helpers.installer import (
    LAUNCHED,
    USER_CLAUDE,
    USER_GEMINI,
    clean_env,
    files_with_modes,
    git_hooks_dir,
    run_install,
)
from helpers.output import (
    OUT_OF_ORDER_PASS,
    SCRIPT_CALL,
    entries_below,
    files_below,
    no_traceback,
    one_line,
)
from helpers.past import (
    HOUR,
    TIME_FORMAT,
    age_task,
    backdate,
    chained_history,
    git_project,
    git_with_hooks,
    history,
    now,
    rewrite_history,
    seconds,
    shift_times,
    stamp,
)
from helpers.plugins import LOCAL_RULES, install_plugin, status_with_site
from helpers.projects import (
    ENVELOPE,
    GUARD_PHASES,
    PROMPT,
    Project,
    Result,
    awaiting,
    commit_source_and_task,
    current_state,
    empty_project,
    implement,
    path_to,
    put,
    run,
    status_env,
    status_py,
    walk,
)
from helpers.sandbox import STARTUP, bwrap_or_skip, git_output, landlock_or_skip, shell_env
from helpers.suite import LONG_TESTS, SIZE, SIZES, sized
from helpers.tools import make_key, signers_file, system_tool

__all__ = [
    "BIN",
    "BUILTIN_CODES",
    "CAT1",
    "CAT2",
    "CAT3",
    "CAT4",
    "CAT5",
    "CATEGORY_HEADINGS",
    "ENVELOPE",
    "ERRORS",
    "GUARD_PHASES",
    "HOOK",
    "HOOK_FIXTURES",
    "HOUR",
    "IMPORT_LINE",
    "INSTALL",
    "LAUNCHED",
    "LOCAL_RULES",
    "LONG_TESTS",
    "OUT_OF_ORDER_PASS",
    "PACKAGE",
    "PROMPT",
    "README",
    "ROOT",
    "SCRIPT_CALL",
    "SIZE",
    "SIZES",
    "STARTUP",
    "STATUS_PY",
    "TIME_FORMAT",
    "USER_CLAUDE",
    "USER_GEMINI",
    "WRITING_RULES",
    "Board",
    "Project",
    "Result",
    "age_task",
    "answered",
    "assert_clean",
    "awaiting",
    "backdate",
    "bwrap_or_skip",
    "chained_history",
    "claude_prompt",
    "clean_env",
    "commit_source_and_task",
    "context_of",
    "current_state",
    "denied",
    "edit_event",
    "empty_project",
    "entries_below",
    "files_below",
    "files_with_modes",
    "git_hooks_dir",
    "git_output",
    "git_project",
    "git_with_hooks",
    "history",
    "hook_command",
    "implement",
    "install_plugin",
    "landlock_or_skip",
    "launcher_folder",
    "make_key",
    "modules_imported",
    "no_traceback",
    "now",
    "one_line",
    "path_to",
    "protocol",
    "put",
    "reader_only",
    "recorded",
    "replay",
    "rewrite_history",
    "rewritten",
    "run",
    "run_hook",
    "run_install",
    "seconds",
    "section",
    "shell_env",
    "shell_event",
    "shift_times",
    "signers_file",
    "sized",
    "spec_example",
    "stamp",
    "status_env",
    "status_py",
    "status_with_site",
    "system_tool",
    "walk",
    "with_code",
    "write_config",
]
