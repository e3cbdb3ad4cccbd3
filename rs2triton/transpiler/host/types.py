"""The types of host Rust values, as the host lowering tracks them.

Host code is plain Rust over shapes, counts and pointers; its values are Python ints, floats,
bools, sequences and tensors. The lowering keeps each value's Rust type to decide what Python
computes Rust's answer (``usize`` subtraction panics below zero, ``i32`` division truncates,
``as`` casts wrap) and what a method call means (``.first()`` of a slice, ``.max()`` of an int).
"""

from __future__ import annotations

from dataclasses import dataclass

from rs2triton.rust.types import SCALARS, Class


@dataclass(frozen=True, slots=True)
class HTy:
    """A host type: ``kind`` is one of

    - ``"int"``/``"float"``/``"bool"`` with ``elem`` the Rust scalar type (``"{integer}"``,
      ``"{float}"`` for a literal whose type Rust still infers);
    - ``"str"``; ``"unit"``; ``"ptr"`` (a tensor, ``None`` for a null pointer);
    - ``"input"`` (a ``(RawPtr, &[usize])`` pair: the tensor itself in Python);
    - ``"seq"`` (a slice or ``Vec``: a Python sequence), ``"array"`` (a Rust array: a tuple),
      ``"option"`` (a value or ``None``), ``"iter"`` (an iterator), ``"tuple"`` with ``items``;
    - ``"kernel"`` (a configured kernel struct, ``elem`` its name), ``"op"`` (``self``);
    - ``"visitor"``; ``"unknown"``.
    """

    kind: str
    elem: str | None = None
    inner: HTy | None = None
    items: tuple[HTy, ...] = ()

    @property
    def is_int(self) -> bool:
        return self.kind == "int"

    @property
    def unsigned(self) -> bool:
        s = SCALARS.get(self.elem or "")
        return self.kind == "int" and s is not None and not s.signed

    @property
    def literal(self) -> bool:
        return self.elem in ("{integer}", "{float}")


UNKNOWN = HTy("unknown")
UNIT = HTy("unit")
BOOL = HTy("bool", "bool")
STR = HTy("str")
PTR = HTy("ptr")
INPUT = HTy("input")
VISITOR = HTy("visitor")
USIZE = HTy("int", "usize")
I32 = HTy("int", "i32")
INT_LITERAL = HTy("int", "{integer}")
FLOAT_LITERAL = HTy("float", "{float}")
SHAPE = HTy("seq", inner=USIZE)


def scalar(name: str) -> HTy | None:
    """The host type of a Rust scalar type name, or None."""
    s = SCALARS.get(name)
    if s is None:
        return None
    if s.cls is Class.BOOL:
        return BOOL
    return HTy("int" if s.cls is Class.INT else "float", name)


def seq(inner: HTy) -> HTy:
    return HTy("seq", inner=inner)


def array(inner: HTy) -> HTy:
    return HTy("array", inner=inner)


def option(inner: HTy) -> HTy:
    return HTy("option", inner=inner)


def iterator(inner: HTy) -> HTy:
    return HTy("iter", inner=inner)


def element(t: HTy) -> HTy:
    """What indexing or iterating ``t`` gives."""
    if t.kind in ("seq", "array", "iter", "option") and t.inner is not None:
        return t.inner
    return UNKNOWN


def fits_in(src: str, dst: str) -> bool:
    """Whether every value of integer type ``src`` is one of ``dst`` (a cast that changes nothing)."""
    a, b = SCALARS.get(src), SCALARS.get(dst)
    if a is None or b is None or a.cls is not Class.INT or b.cls is not Class.INT:
        return False
    return b.min <= a.min and a.max <= b.max
