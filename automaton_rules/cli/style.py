"""Colour for status.py's text, decided once per output stream; imports nothing of the package.

Colour is on only where a person reads: a terminal, or a log that asks for it with
`FORCE_COLOR`. `NO_COLOR` (https://no-color.org) always wins, `TERM=dumb` turns it off,
and text captured in-process (a stream with no file descriptor, as the testing plugin's
`project.run` reads) stays plain. Views build their coloured text from a `Style` handed
in, so they never ask the stream themselves; a disabled `Style` returns text unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import IO, Any

_RESET = "\x1b[0m"
_CODES = {"bold": "1", "dim": "2", "red": "31", "green": "32", "yellow": "33"}


class Style:
    """ANSI styles that are the identity when colour is off, so callers never branch."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    @classmethod
    def for_stream(cls, stream: IO[str] | Any, environ: Mapping[str, str]) -> Style:
        """The style for what is written to `stream`: NO_COLOR, then a captured stream,
        then FORCE_COLOR, then TERM=dumb, then whether the stream is a terminal."""
        if environ.get("NO_COLOR"):
            return cls(False)
        if not _has_descriptor(stream):
            return cls(False)
        if environ.get("FORCE_COLOR"):
            return cls(True)
        if environ.get("TERM") == "dumb":
            return cls(False)
        try:
            return cls(bool(stream.isatty()))
        except (OSError, ValueError):
            return cls(False)

    def _paint(self, code: str, text: str) -> str:
        if not self.enabled or not text:
            return text
        return f"\x1b[{_CODES[code]}m{text}{_RESET}"

    def bold(self, text: str) -> str:
        """Headers and the value a line is about."""
        return self._paint("bold", text)

    def dim(self, text: str) -> str:
        """What needs no attention: finished tasks, summaries."""
        return self._paint("dim", text)

    def red(self, text: str) -> str:
        """Failures and problems."""
        return self._paint("red", text)

    def green(self, text: str) -> str:
        """A check that passed."""
        return self._paint("green", text)

    def yellow(self, text: str) -> str:
        """What waits on the user: approvals."""
        return self._paint("yellow", text)


PLAIN = Style(False)


def _has_descriptor(stream: Any) -> bool:
    """A stream backed by a file descriptor (terminal, pipe, file), not an in-memory buffer."""
    try:
        stream.fileno()
    except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation is both
        return False
    return True
