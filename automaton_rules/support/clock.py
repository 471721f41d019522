"""Time as the task files write it: UTC, to the second, with a `Z`.

One home for writing and reading timestamps, so the history, the approval log, claims and
the audit's messages agree on the format. It reads no clock: a run's `Context` does.
It imports only the standard library.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from datetime import datetime

TIME_FORMAT = "%Y-%m-%dT%H:%M:%SZ"
_TIME_SHAPE = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", re.ASCII)


def stamp(moment: float) -> str:
    """A POSIX time as the task files write it; one format, so any two compare as text."""
    from datetime import datetime, timezone

    return datetime.fromtimestamp(moment, timezone.utc).strftime(TIME_FORMAT)


def parse_time(value: object) -> datetime | None:
    """Read back a timestamp this module wrote; None for anything else.

    Sliced by hand rather than with strptime: the audit reads every history line, and
    strptime was a tenth of its time.
    """
    if not isinstance(value, str) or _TIME_SHAPE.fullmatch(value) is None:
        return None
    from datetime import datetime, timezone

    try:
        return datetime(
            int(value[0:4]),
            int(value[5:7]),
            int(value[8:10]),
            int(value[11:13]),
            int(value[14:16]),
            int(value[17:19]),
            tzinfo=timezone.utc,
        )
    except ValueError:
        return None


def timestamp(value: object) -> float | None:
    """`parse_time(value).timestamp()`, at a third of the cost: a history's lines share few
    distinct days, so each day's start is computed once and the time of day added to it."""
    if not isinstance(value, str) or _TIME_SHAPE.fullmatch(value) is None:
        return None
    key = value[:10]
    if key in _DAY_STARTS:
        day = _DAY_STARTS[key]
    else:
        moment = parse_time(key + "T00:00:00Z")
        day = moment.timestamp() if moment is not None else None
        if len(_DAY_STARTS) >= _DAY_CACHE_SIZE:
            _DAY_STARTS.clear()
        _DAY_STARTS[key] = day
    hours, minutes, seconds = int(value[11:13]), int(value[14:16]), int(value[17:19])
    if day is None or hours > 23 or minutes > 59 or seconds > 59:
        return None
    return day + hours * 3600 + minutes * 60 + seconds


_DAY_STARTS: dict[str, float | None] = {}
_DAY_CACHE_SIZE = 4096

# What the other modules of the package use; the built-in rules import nothing else.
__all__ = [
    "TIME_FORMAT",
    "parse_time",
    "stamp",
    "timestamp",
]
