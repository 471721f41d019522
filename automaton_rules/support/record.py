"""Small frozen value classes, without the cost of importing `dataclasses`.

The edit-time hooks build a few of these on every call; `dataclasses` imports `inspect`
and its dependencies, which alone cost the hooks a tenth of their time budget.

A record's fields are declared once, as a dataclass's are: its annotations, in order,
after those of a record it derives from, each with its default as the class attribute
(`field(default_factory=...)` for a fresh value per record), and those after `_: KW_ONLY`
taken by keyword only. The class gets `_fields` and an `__init__` taking them, which
calls `__post_init__` when the class has one; a class that converts what it is given
(a string to a `Path`, None to the system's clock) writes its own `__init__` instead.
Type checkers read them the same way (`dataclass_transform`).
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from dataclasses import KW_ONLY as KW_ONLY
    from typing import Any, ClassVar

    from typing_extensions import dataclass_transform
else:
    KW_ONLY = "KW_ONLY"  # only ever an annotation, which a record reads as its name

    def dataclass_transform(**_options: object) -> object:
        """At run time, nothing: the decorator only tells type checkers."""
        return lambda cls: cls


_MISSING = object()


class Field:
    """A field's default, or the factory that makes a fresh one, and whether it is
    taken by keyword only."""

    __slots__ = ("default", "factory", "kw_only")

    def __init__(
        self, default: object = _MISSING, factory: Callable[[], object] | None = None
    ) -> None:
        self.default, self.factory, self.kw_only = default, factory, False

    def value(self, record: str, name: str) -> object:
        """The value of a field not given."""
        if self.factory is not None:
            return self.factory()
        if self.default is _MISSING:
            raise TypeError(f"{record}() missing required argument: {name!r}")
        return self.default


def field(*, default: Any = _MISSING, default_factory: Callable[[], Any] | None = None) -> Any:
    """A field's default written out, as `dataclasses.field`: `default_factory` makes a
    fresh value (a dict, a list) for each record."""
    return Field(default, default_factory)


def _annotations(cls: type) -> dict[str, object]:
    """The class's own annotations, not a base's (3.9 hands a class without its own the
    base's through `__annotations__`)."""
    if sys.version_info >= (3, 10):
        return dict(cls.__annotations__)
    return dict(cls.__dict__.get("__annotations__", {}))  # noqa: RUF063 (3.9 has no other way)


@dataclass_transform(frozen_default=True, field_specifiers=(field,))
class Record:
    """A frozen value: its fields are set once by `__init__`, then compared, hashed and
    shown by value, like a frozen dataclass."""

    __slots__ = ()
    _fields: ClassVar[tuple[str, ...]] = ()
    _unshown: ClassVar[tuple[str, ...]] = ()
    _specs: ClassVar[dict[str, Field]] = {}

    def __init_subclass__(cls, **options: Any) -> None:
        """Read the fields off the annotations; give the class its `__init__`."""
        super().__init_subclass__(**options)
        specs = dict(cls._specs)
        keyword_only = False
        for name, kind in _annotations(cls).items():
            written = str(kind)
            if written == "KW_ONLY":
                keyword_only = True
                continue
            if name.startswith("_") or written.startswith(("ClassVar", "typing.ClassVar")):
                continue
            given = cls.__dict__.get(name, _MISSING)
            spec = given if isinstance(given, Field) else Field(given)
            if isinstance(given, Field):
                if spec.factory is None:
                    setattr(cls, name, spec.default)
                else:
                    delattr(cls, name)
            spec.kw_only = keyword_only
            specs[name] = spec  # a base's field declared again keeps its place
        cls._specs = specs
        cls._fields = tuple(specs)
        if "__init__" not in cls.__dict__:
            cls.__init__ = _initializer(cls)  # type: ignore[method-assign]

    def _init(self, *values: object) -> None:
        """Set the fields in `_fields` order; only a subclass's own `__init__` calls this."""
        for name, value in zip(self._fields, values):
            object.__setattr__(self, name, value)

    def _set(self, **values: object) -> None:
        """Set fields once more; only `__post_init__` calls this, on a record being made."""
        for name, value in values.items():
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


def _initializer(cls: type[Record]) -> Callable[..., None]:
    """The `__init__` of a record class: its fields by position (those before `KW_ONLY`)
    or by name, each not given its default, refused as Python refuses a call."""
    specs, record = cls._specs, cls.__name__
    positional = tuple(name for name, spec in specs.items() if not spec.kw_only)
    post = getattr(cls, "__post_init__", None)

    def __init__(self: Record, *args: object, **kwargs: object) -> None:
        if len(args) > len(positional):
            raise TypeError(
                f"{record}() takes {len(positional)} positional arguments but "
                f"{len(args)} were given"
            )
        values = dict(zip(positional, args))
        for name, value in kwargs.items():
            if name not in specs:
                raise TypeError(f"{record}() got an unexpected keyword argument {name!r}")
            if name in values:
                raise TypeError(f"{record}() got multiple values for argument {name!r}")
            values[name] = value
        for name, spec in specs.items():
            given = values[name] if name in values else spec.value(record, name)
            object.__setattr__(self, name, given)
        if post is not None:
            post(self)

    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    return __init__
