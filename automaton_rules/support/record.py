"""Small frozen value classes, without the cost of importing `dataclasses`.

The edit-time hooks build a few of these on every call; `dataclasses` imports `inspect`
and its dependencies, which alone cost the hooks a tenth of their time budget.
"""

from __future__ import annotations


class Record:
    """A frozen value: its `_fields` are set once by `__init__`, then compared, hashed
    and shown by value, like a frozen dataclass."""

    __slots__ = ()
    _fields: tuple[str, ...] = ()
    _unshown: tuple[str, ...] = ()

    def _init(self, *values: object) -> None:
        """Set the fields in `_fields` order; only a subclass's `__init__` calls this."""
        for name, value in zip(self._fields, values):
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field '{name}' of a frozen {type(self).__name__}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field '{name}' of a frozen {type(self).__name__}")

    def _values(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self._fields)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Record) and other.__class__ is self.__class__:
            return self._values() == other._values()
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        shown = ", ".join(
            f"{name}={getattr(self, name)!r}" for name in self._fields if name not in self._unshown
        )
        return f"{type(self).__name__}({shown})"
