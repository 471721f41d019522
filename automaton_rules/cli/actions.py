"""`status.py`'s command line as one table: a row per option and a row per action.

An action's row holds its flag and help, what it asks of `--task`, the options that go
with it only, the function that runs it and the view that prints what it returns (both
named `module:function` under `automaton_rules`, imported only when the action runs), and
the formats its `--format` takes. Everything else is built from here: typer's options
(`cli/parser.py`), the hand reader of plain lines and the checks (`cli/entry.py`), the
dispatch and the JSON answer's `command`. The edit-time hooks read this module, so it
imports nothing but the package's light records.
"""

from __future__ import annotations

from automaton_rules.support.record import KW_ONLY, Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# What an action asks of --task.
NEEDS_TASK = "needs"
TAKES_TASK = "takes"
NO_TASK = "refuses"

# How an option's value is read.
TEXT = "text"
PATH = "path"
SWITCH = "switch"


class Option(Record):
    """One option: how typer spells and explains it, its value when not given, and (for
    options that go with some actions only) the hint its refusal ends with."""

    name: str  # the parameter typer passes, the key handlers ask for
    flag: str
    help: str
    metavar: str | None = None
    _: KW_ONLY
    kind: str = TEXT
    default: object = None
    envvar: str | None = None
    hint: str = ""

    def __post_init__(self) -> None:
        """A switch (no metavar) takes no value: it is False unless given."""
        if self.metavar is None:
            self._set(kind=SWITCH, default=False)


class Action(Record):
    """One action flag and everything about it: see the module's docstring."""

    name: str  # its parameter, as for an option
    flag: str
    help: str
    _: KW_ONLY
    metavar: str | None = None  # the value it takes; None for a switch
    task: str = TAKES_TASK
    options: tuple[str, ...] = ()  # the options that go with it, of those that go with few
    handler: str | None = None  # `module:function`; None: a hook, answered by guards/edits/flags.py
    view: str | None = None
    formats: str | None = None  # `module:NAME` of the formats its --format takes

    @property
    def command(self) -> str:
        """The action's name in JSON answers, so a reader matches it to the flag it typed."""
        return self.flag[2:]

    @property
    def hook(self) -> bool:
        """An edit-time hook: answered by the guards' fast path, in its own words."""
        return self.handler is None

    @property
    def option(self) -> Option:
        """The action's flag as an option of the command line."""
        kind = TEXT if self.metavar is not None else SWITCH
        return Option(self.name, self.flag, self.help, self.metavar, kind=kind)


# The options that go with every action, in the order --help lists them.
GENERAL = (
    Option("task", "--task", "Task name; parent/sub for a sub-task.", "NAME"),
    Option(
        "project",
        "--project",
        "Project folder (default: nearest folder above with .automaton/tasks/).",
        "DIR",
        kind=PATH,
    ),
    Option(
        "agent",
        "--agent",
        "The agent running the command (multi-agent mode; default $AUTOMATON_AGENT).",
        "ID",
        envvar="AUTOMATON_AGENT",
    ),
    Option(
        "config",
        "--config",
        "automaton.toml to use (default: the nearest one above the project).",
        "FILE",
        kind=PATH,
    ),
    Option("as_json", "--json", "Print one JSON object instead of text."),
    Option("version", "--version", "Print the version and exit."),
)

# The options that go with some actions only; a line that gives one to another action is
# refused by name ("--select goes with --audit."), in this order.
PARTICULAR = (
    Option(
        "file",
        "--file",
        "The file an edit hook asks about; a relative path is read from --project, if given.",
        "PATH",
    ),
    Option(
        "approver",
        "--approver",
        "Who approves: 'user' or an agent id; with approval = \"signed\", a principal "
        "of the allowed signers file.",
        "ID",
        default="user",
    ),
    Option(
        "key",
        "--key",
        'SSH key to sign the approval with (approval = "signed"; default: git\'s user.signingkey).',
        "FILE",
        kind=PATH,
    ),
    Option("name", "--name", "Name of the --follow-up task (default TASK-fix).", "NAME"),
    Option(
        "select", "--select", "Run only these rule codes or prefixes (comma-separated).", "CODES"
    ),
    Option("ignore", "--ignore", "Skip these rule codes or prefixes (comma-separated).", "CODES"),
    Option(
        "fail_on", "--fail-on", "Exit 1 on findings at or above: error, warning, note.", "SEVERITY"
    ),
    Option(
        "baseline",
        "--baseline",
        "Audit against a baseline: fail only on findings it does not hold, and list its "
        "entries no longer found.",
        "FILE",
        kind=PATH,
    ),
    Option(
        "write_baseline",
        "--write-baseline",
        "Record today's findings as a baseline (rule, task, path, commit) and exit 0.",
        "FILE",
        kind=PATH,
    ),
    Option(
        "since",
        "--since",
        "Git rules read only the commits after REV (REV..HEAD), e.g. origin/main.",
        "REV",
    ),
    Option(
        "durations",
        "--durations",
        "With --audit: list the N slowest rules (0: all) on stderr, as pytest does.",
        "N",
    ),
    Option(
        "output_format",
        "--format",
        "With --audit: text (default), json, sarif, github, markdown, junit, gitlab or "
        "html. With --graph: mermaid (default) or dot.",
        "FORMAT",
        hint=" (use --json elsewhere)",
    ),
)
# Options no action may take together.
EXCLUSIVE = (("baseline", "write_baseline"),)

_AUDIT_OPTIONS = (
    "select",
    "ignore",
    "fail_on",
    "baseline",
    "write_baseline",
    "since",
    "durations",
    "output_format",
)

# In the order `cannot be combined` names them and --help lists them.
ACTIONS = (
    Action(
        "transition",
        "--transition",
        "Move --task to PHASE along a legal transition.",
        metavar="PHASE",
        task=NEEDS_TASK,
        handler="cli.commands:transition",
        view="cli.views:moved_view",
    ),
    Action(
        "approve",
        "--approve",
        "Approve --task's artifact (from PHASE:awaiting_approval).",
        task=NEEDS_TASK,
        options=("approver", "key"),
        handler="cli.commands:approve",
        view="cli.views:moved_view",
    ),
    Action(
        "create_task",
        "--create-task",
        "Create a task (kebab-case; parent/sub for a sub-task).",
        metavar="NAME",
        task=NO_TASK,
        handler="cli.commands:create_task",
        view="cli.views:created_view",
    ),
    Action(
        "list_tasks",
        "--list",
        "List every task with its phase and next step.",
        task=NO_TASK,
        handler="cli.commands:list_tasks",
        view="cli.views:list_view",
    ),
    Action(
        "validate_folder",
        "--validate-folder",
        "Check --task (or every task) for out-of-order artifacts.",
        options=("select", "ignore"),
        handler="cli.commands:validate_folder",
        view="cli.views:validate_view",
    ),
    Action(
        "audit",
        "--audit",
        "Audit every task: all rules, grouped report, exit 1 on violations.",
        task=NO_TASK,
        options=_AUDIT_OPTIONS,
        handler="cli.audit:audit",
        view="cli.audit:audit_view",
        formats="report:FORMATS",
    ),
    Action(
        "list_rules",
        "--list-rules",
        "List every registered rule with its plugin.",
        task=NO_TASK,
        handler="cli.commands:list_rules",
        view="cli.views:rules_view",
    ),
    Action(
        "upgrade",
        "--upgrade",
        "Bootstrap .state for task folders made by hand; restore a lost or hand-edited .state.",
        task=NO_TASK,
        handler="cli.commands:upgrade",
        view="cli.views:upgrade_view",
    ),
    Action(
        "claim",
        "--claim",
        "Multi-agent mode: claim --task for --agent (30 minutes unless configured).",
        task=NEEDS_TASK,
        handler="cli.commands:claim",
        view="cli.views:claim_view",
    ),
    Action(
        "release",
        "--release",
        "Multi-agent mode: give back --agent's claim on --task.",
        task=NEEDS_TASK,
        handler="cli.commands:release",
        view="cli.views:claim_view",
    ),
    Action(
        "follow_up",
        "--follow-up",
        "After a FAIL or NEEDS_REVIEW verdict of --task: create the fix or review task.",
        task=NEEDS_TASK,
        options=("name",),
        handler="cli.commands:follow_up",
        view="cli.views:follow_up_view",
    ),
    Action(
        "graph",
        "--graph",
        "Print the workflow as a diagram (Mermaid, or --format dot); with --task, its path.",
        options=("output_format",),
        handler="cli.commands:graph",
        view="cli.views:graph_view",
        formats="report.graph:FORMATS",
    ),
    Action(
        "stats",
        "--stats",
        "Time per phase, rework, waiting for approval and approvals, from each task's history.",
        handler="cli.commands:stats",
        view="cli.views:stats_view",
    ),
    Action(
        "can_edit",
        "--can-edit",
        "Hook: may code be edited now? ALLOWED (0) or DENIED (1).",
        options=("file",),
    ),
    Action(
        "scope_check",
        "--scope-check",
        "Hook: is --file inside the project? IN_SCOPE or OUT_OF_SCOPE.",
        options=("file",),
    ),
    Action("can_create_task", "--can-create-task", "Hook: may a task be created? Always ALLOWED."),
    Action(
        "same_session",
        "--same-session",
        "Hook: was --task created within the last 30 minutes?",
        task=NEEDS_TASK,
    ),
)

# No action flag but --task: the task's own view, the command agents run most.
SHOW_TASK = Action(
    "task",
    "--task",
    "Where --task stands.",
    metavar="NAME",
    task=NEEDS_TASK,
    handler="cli.task_view:show_task",
    view="cli.task_view:task_view",
)

# Every parameter of the command line, in the order --help lists them.
OPTIONS: tuple[Option, ...] = (
    *GENERAL[:2],
    *(action.option for action in ACTIONS),
    *PARTICULAR,
    *GENERAL[2:],
)
BY_NAME = {option.name: option for option in OPTIONS}
BY_FLAG = {option.flag: option for option in OPTIONS}


def goes_with(option: str) -> tuple[Action, ...]:
    """The actions an option of `PARTICULAR` goes with."""
    return tuple(action for action in ACTIONS if option in action.options)


def refusal(option: Option) -> str:
    """What a line that gives an option to an action it does not go with is told."""
    flags = [action.flag for action in goes_with(option.name)]
    joined = flags[0] if len(flags) == 1 else f"{', '.join(flags[:-1])} or {flags[-1]}"
    return f"{option.flag} goes with {joined}{option.hint}."


def resolve(reference: str) -> Any:
    """`module:NAME` under `automaton_rules`, imported now: what a row names runs only
    when its action does."""
    module, _, name = reference.partition(":")
    return getattr(__import__(f"automaton_rules.{module}", fromlist=[name]), name)
