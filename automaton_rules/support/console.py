"""The argument reading every console script but `status.py` shares, so all answer alike.

`automaton-hook`, `automaton-git-hook` and `automaton-install` take a few flags each.
Each answers `--help` (its usage, exit 0) and `--version` (exit 0), and bad usage with one
`ERROR:` line and its usage line on stderr, exit 2. It is written by hand, not with
argparse, because `automaton-hook` runs before every tool call and argparse would cost it
an import of its own; `status.py` has typer for its richer command line.
"""

from __future__ import annotations

import sys

from automaton_rules.support.record import Record
from automaton_rules.support.version import __version__

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence


class UsageError(Exception):
    """The command line asks for something the script does not take: exit 2."""


class Script(Record):
    """A console script's command line: flags that take a value, switches, and how many
    positional words it takes; `usage` is its help text, its first line the usage line."""

    prog: str
    usage: str
    valued: tuple[str, ...] = ()
    switches: tuple[str, ...] = ()
    positionals: int = 0

    def parse(self, argv: Sequence[str]) -> tuple[dict[str, str | bool], list[str]]:
        """(options by flag without dashes, positional words); `help`/`version` when asked."""
        options: dict[str, str | bool] = {}
        words: list[str] = []
        items = list(argv)
        while items:
            item = items.pop(0)
            flag, eq, inline = item.partition("=")
            if item in ("-h", "--help"):
                options["help"] = True
            elif item in ("-V", "--version"):
                options["version"] = True
            elif flag in self.valued:
                if not eq and not items:
                    raise UsageError(f"{flag} needs a value")
                options[flag[2:]] = inline if eq else items.pop(0)
            elif item in self.switches:
                options[item[2:]] = True
            elif item.startswith("-") and item != "-":
                raise UsageError(f"unknown option {item!r}")
            elif len(words) < self.positionals:
                words.append(item)
            else:
                raise UsageError(f"unexpected argument {item!r}")
        return options, words

    def run(
        self,
        argv: Sequence[str] | None,
        body: Callable[[dict[str, str | bool], list[str]], int],
    ) -> int:
        """Parse, answer --help and --version, else run `body`; bad usage is exit 2."""
        try:
            options, words = self.parse(sys.argv[1:] if argv is None else argv)
        except UsageError as exc:
            first = self.usage.splitlines()[0]
            sys.stderr.write(f"ERROR: {self.prog}: {exc}\n{first}\n")
            return 2
        if options.get("help"):
            sys.stdout.write(self.usage)
            return 0
        if options.get("version"):
            sys.stdout.write(f"automaton-rules {__version__}\n")
            return 0
        return body(options, words)
