"""What one run of a command was given besides its arguments, as one value passed down.

A `Context` holds the clock the run records times by, the installed rule packages it may
load and how its command line was started (for the commands its output suggests). The
entry points take it as an argument (`cli.main(argv, context)`, the adapter's `main`),
each `Project` they open carries it, and the engine reads its plugin selection from it,
as flake8 hands its options down: nothing swaps a module's global to change a run.

Where no argument reaches, `automaton_rules.now()` called from a rule's helper or a
listener, `current()` answers with the context of the run under way: `running(context)`
holds it in a `ContextVar` for that run alone and restores the one before on the way out,
so runs in two threads, or one inside another, never see each other's.
"""

from __future__ import annotations

from contextvars import ContextVar, Token

from automaton_rules.support.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

# How agents call the tool: `python3`, which Debian, Ubuntu and macOS all have (many have
# no `python`); the installed script runs this installation whichever Python runs it.
STATUS_SCRIPT = "python3 ~/.automaton/scripts/status.py"


def _system_time() -> float:
    import time

    return time.time()


class Context(Record):
    """The clock, the plugin selection and the invocation of one run; see the module."""

    clock: Callable[[], float]
    plugins: frozenset[str] | None
    invoked_as: str

    def __init__(
        self,
        clock: Callable[[], float] | None = None,
        plugins: Iterable[str] | None = None,
        invoked_as: str = STATUS_SCRIPT,
    ) -> None:
        """`clock` returns POSIX seconds (the system's by default); `plugins` names the
        installed rule packages that may load, canonical (None: every one)."""
        chosen = None if plugins is None else frozenset(plugins)
        self._init(clock if clock is not None else _system_time, chosen, invoked_as)

    def now(self) -> float:
        """Seconds since the epoch by this run's clock."""
        return self.clock()

    def utc_now(self) -> str:
        """This run's time as the task files write it."""
        from automaton_rules.support.clock import stamp

        return stamp(self.now())

    def command(self, *args: object, project: object = None) -> str:
        """A command line an agent can paste, each argument quoted, started as this run was;
        `project` adds `--project PATH`, so it runs as pasted from any folder."""
        import shlex

        named = args if project is None else (*args, "--project", project)
        return " ".join([self.invoked_as, *(shlex.quote(str(arg)) for arg in named)])


DEFAULT = Context()
_RUNNING: ContextVar[Context] = ContextVar("automaton_rules_context", default=DEFAULT)


def current() -> Context:
    """The context of the run under way in this thread; the default outside any run."""
    return _RUNNING.get()


def running(context: Context) -> _Scope:
    """`with running(context):` makes `context` the one `current()` answers, until the
    block ends."""
    return _Scope(context)


class _Scope:
    """A context made current for one `with` block, the one before restored after it."""

    def __init__(self, context: Context) -> None:
        self.context = context
        self._tokens: list[Token[Context]] = []

    def __enter__(self) -> Context:
        self._tokens.append(_RUNNING.set(self.context))
        return self.context

    def __exit__(self, *_: object) -> None:
        _RUNNING.reset(self._tokens.pop())


__all__ = ["DEFAULT", "STATUS_SCRIPT", "Context", "current", "running"]
