"""Regular expressions compiled the first time they are used, not when their module loads.

The edit-time hooks load some fifty module-level patterns and use a handful on any one
call; compiling all of them cost the shell hook about a tenth of its time
(docs/performance.md). `Lazy` keeps the source and flags, compiles once on first use,
and answers the `re.Pattern` methods the package uses.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator


class Lazy:
    """A pattern compiled on first use; see the module's docstring."""

    __slots__ = ("_compiled", "flags", "pattern")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern = pattern
        self.flags = flags
        self._compiled: re.Pattern[str] | None = None

    @property
    def compiled(self) -> re.Pattern[str]:
        """The pattern, compiled now if it never was."""
        if self._compiled is None:
            self._compiled = re.compile(self.pattern, self.flags)
        return self._compiled

    def search(self, string: str, pos: int = 0) -> re.Match[str] | None:
        return self.compiled.search(string, pos)

    def match(self, string: str, pos: int = 0) -> re.Match[str] | None:
        return self.compiled.match(string, pos)

    def fullmatch(self, string: str) -> re.Match[str] | None:
        return self.compiled.fullmatch(string)

    def finditer(self, string: str) -> Iterator[re.Match[str]]:
        return self.compiled.finditer(string)

    def findall(self, string: str) -> list:
        return self.compiled.findall(string)

    def split(self, string: str, maxsplit: int = 0) -> list:
        return self.compiled.split(string, maxsplit)

    def sub(self, repl: str | Callable[[re.Match[str]], str], string: str, count: int = 0) -> str:
        return self.compiled.sub(repl, string, count)


__all__ = ["Lazy"]
