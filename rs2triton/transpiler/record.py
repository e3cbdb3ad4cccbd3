"""Plain records for the lowering's data: ``__slots__``, an ``__init__`` written out, and
the repr and equality a dataclass would give.

Not dataclasses: creating a dataclass generates and compiles its methods, about half a
millisecond a class, and the dozen records the lowering defines were a noticeable part
of loading the stages before any file is lowered (which every cold run waits for).
"""

from __future__ import annotations


class Record:
    """A mutable record: repr and ``==`` over ``_fields`` (the fields a dataclass would
    compare; ``node`` fields are left out), unhashable like a mutable dataclass."""

    __slots__ = ()
    _fields: tuple[str, ...] = ()

    def __repr__(self) -> str:
        inner = ", ".join(f"{f}={getattr(self, f)!r}" for f in self._fields)
        return f"{type(self).__name__}({inner})"

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(getattr(self, f) == getattr(other, f) for f in self._fields)

    __hash__ = None  # type: ignore[assignment]


class FrozenRecord(Record):
    """A record that cannot change once made (set its fields with ``_set``); hashable."""

    __slots__ = ()

    def replace(self, **changes: object):
        """A copy with ``changes`` (as ``dataclasses.replace`` makes)."""
        copy = object.__new__(type(self))
        copy._set(**{**{name: getattr(self, name) for name in self.__slots__}, **changes})
        return copy

    def _set(self, **values: object) -> None:
        for name, value in values.items():
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is read-only")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is read-only")

    def __hash__(self) -> int:
        return hash(tuple(getattr(self, f) for f in self._fields))
