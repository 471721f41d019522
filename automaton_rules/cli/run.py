"""What a handler runs in and what its view hands back: the `Run` and the `Outcome`.

`Run` is one command line's context, handed to the handler that asks for it as flake8
hands its options down: the run's `Context` (its clock, its plugin selection and how
`status.py` was started, for the commands an answer suggests),
the project and its configuration, the engine, and the warnings and listeners' failures
met on the way, which the printing step adds to the outcome. Kept light, with the engine
imported only by the handlers that run rules, for `--task`, the view agents call most.
"""

from __future__ import annotations

from automaton_rules.core.config import load_config
from automaton_rules.core.project import find_project
from automaton_rules.support.errors import AutomatonError
from automaton_rules.support.output import printable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from pathlib import Path
    from typing import Any

    from automaton_rules.cli.style import Style
    from automaton_rules.core.config import Config
    from automaton_rules.core.project import Project
    from automaton_rules.engine.events import EventError
    from automaton_rules.engine.plan import Selection
    from automaton_rules.engine.runner import Engine
    from automaton_rules.support.context import Context


class Outcome:
    """What a command prints: the text, the JSON payload, the exit code; `warnings` go to
    stderr as `WARNING:` lines and change no exit code, `errors` as `ERROR:` lines (beside
    a raw report too, so a report sent to a file leaves them in the log). `painter` gives
    the same text in a terminal's colours, for the printing step to use when the stream
    takes colour."""

    def __init__(
        self,
        exit_code: int,
        text: str,
        payload: dict[str, Any] | None = None,
        *,
        errors: list[str] | None = None,
        raw: bool = False,
        warnings: list[str] | None = None,
        painter: Callable[[Style], str] | None = None,
        notes: list[str] | None = None,
    ) -> None:
        self.exit_code = exit_code
        self.text = text
        self.payload: dict[str, Any] = {} if payload is None else payload
        self.errors: list[str] = [] if errors is None else errors
        self.raw = raw
        self.warnings: list[str] = [] if warnings is None else warnings
        self.painter = painter
        self.notes: list[str] = [] if notes is None else notes  # stderr, as they are

    def __repr__(self) -> str:
        return f"Outcome({self.exit_code}, {self.text!r})"


def painted(marked: Sequence[tuple[str, str | None]]) -> tuple[str, Callable[[Style], str]]:
    """The plain text of marked lines (each with the name of the `Style` method that paints
    it, None for none) and its painter: one list, so the two never differ but for the
    colour codes."""

    def paint(style: Style) -> str:
        return "\n".join(getattr(style, how)(line) if how else line for line, how in marked)

    return "\n".join(line for line, _ in marked), paint


def with_event_errors(outcome: Outcome, failed: Sequence[EventError]) -> Outcome:
    """A listener that failed on an event is a warning, and an entry of `event_errors` in
    --json; the change it heard of stands, and so does the exit code."""
    if failed:
        outcome.warnings.extend(str(failure) for failure in failed)
        if not outcome.raw:
            outcome.payload["event_errors"] = [failure.as_dict() for failure in failed]
    return outcome


class Run:
    """One command line's context: see the module's docstring."""

    def __init__(self, context: Context) -> None:
        self.context = context
        self.warnings: list[str] = []
        self.failed: list[EventError] = []

    def open(
        self, project: Path | None, config: Path | None, *, create: bool = False
    ) -> tuple[Project, Config]:
        """The project and its configuration; a broken configuration fails every command."""
        found = find_project(project, create=create).opened_by(self.context)
        return found, load_config(found.root, config)

    def engine(self, settings: Config) -> Engine:
        """The rule engine the configuration asks for; what loading its plugins found
        suspicious becomes this command's warnings."""
        from automaton_rules.engine.runner import Engine

        engine = Engine.create(
            settings.plugins,
            base=settings.base,
            timeout=settings.plugin_timeout_seconds,
            packages=self.context.plugins,
        )
        self.warnings.extend(engine.warnings)
        engine.check_settings(settings)  # the plugins' own tables, checked once they load
        return engine

    def finish(self, outcome: Outcome) -> Outcome:
        """The view's outcome with what the command met on the way: the warnings, then the
        listeners that failed."""
        outcome.warnings.extend(self.warnings)
        return with_event_errors(outcome, self.failed)


def selection(
    engine: Engine, settings: Config, select: str | None = None, ignore: str | None = None
) -> Selection:
    """Config first; `--select` replaces its selection and `--ignore` adds to it, as in ruff."""
    from automaton_rules.engine.plan import Selection

    registered = [rule.code for _, rule in engine.rules]
    configured = Selection(settings.select, settings.ignore, settings.severity)
    typos = configured.unknown(registered)
    if typos:
        raise AutomatonError(
            "unknown-rule",
            f"Unknown rule code or prefix in {settings.path} (keys select, ignore, severity): "
            f"{printable(', '.join(typos), None)} (see --list-rules){_unloaded(engine)}",
        )
    chosen = Selection(
        select=_codes(select) if select is not None else settings.select,
        ignore=settings.ignore + _codes(ignore),
        severity=settings.severity,
    )
    unknown = chosen.unknown(registered)
    if unknown:
        raise AutomatonError(
            "unknown-rule",
            f"Unknown rule code or prefix: {printable(', '.join(unknown), None)} "
            f"(see --list-rules){_unloaded(engine)}",
        )
    return chosen


def _unloaded(engine: Engine) -> str:
    """Why a code may be unknown: the plugins that failed to load (their rules were never
    registered), named with their failure, so the real cause is on the same line."""
    failed = [error for error in engine.errors if error.code is None]
    if not failed:
        return ""
    said = "; ".join(str(error) for error in failed)
    return f". Its rules may be in a plugin that did not load: {said}"


def _codes(value: str | None) -> tuple[str, ...]:
    return tuple(code.strip() for code in (value or "").split(",") if code.strip())
