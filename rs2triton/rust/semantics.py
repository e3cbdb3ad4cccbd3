"""Rust's value semantics, as rules lowering asks about: one pure module.

Lowering walks the tree and builds Python; every question of the form "what does Rust
compute here" is answered here instead, the way Triton keeps ``semantic.py`` apart from its
``code_generator.py``. Nothing in this module builds syntax or knows tree-sitter or Python's
AST: its functions take Python numbers and Rust type names (the records of
:mod:`rs2triton.rust.types`) and return numbers, type names or decisions.

The rules, each tested in ``tests/test_semantics_rules.py`` with the cases where
the obvious Python differs:

- integer ``/`` and ``%`` truncate toward zero (Python's ``//``/``%`` floor);
- shifts, literal folding, and wrapping of integers to a type's width;
- ``as`` casts between every integer and float type;
- the element type of a binary operation (``result_elem``), and when ``/`` is integer division.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import NamedTuple

from rs2triton.rust.types import FLOAT_TYPES, INT_BITS, SCALARS


class ConstError(Exception):
    """Rust rejects this at compile time (rustc's deny-by-default lints): overflow in a
    constant, a literal out of its type's range, a division by a literal zero."""

    def __init__(self, message: str, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.hint = hint

    @property
    def lint(self) -> str | None:
        """The rustc lint (denied by default) that rejects it, where one does."""
        for start, lint in (("literal out of range", "overflowing_literals"),
                            ("this arithmetic operation will overflow", "arithmetic_overflow"),
                            ("this operation will panic at runtime", "unconditional_panic")):
            if self.message.startswith(start):
                return lint
        return None


class Panic(RuntimeError):
    """A Rust panic: ``message`` is Rust's; ``location`` (``file.rs:LINE``) is where, once known."""

    def __init__(self, message: str, location: str | None = None):
        super().__init__(message)
        self.message = message
        self.location = location

    def __str__(self) -> str:
        return f"panicked at {self.location}: {self.message}" if self.location else self.message


class NotImplementedPanic(Panic, NotImplementedError):
    """``unimplemented!()`` / ``todo!()``: Rust's panic, and Python's ``NotImplementedError`` (a stub)."""


# ------------------------------------------------------------------- integers


def int_info(elem: str) -> tuple[int, bool]:
    """(bits, signed) of a Rust integer type; unknown types are taken as i64."""
    return INT_BITS.get(elem, (64, True))


def int_limits(elem: str) -> tuple[int, int]:
    """``elem::MIN`` and ``elem::MAX`` of a Rust integer type."""
    s = SCALARS[elem]
    return s.min, s.max


def check_int_literal(value: int, elem: str | None, negated: bool = False) -> None:
    """A suffixed literal (``300u8``, ``-129i8``) must fit its type, as rustc insists.

    An unsuffixed literal's type is inferred in Rust (``let x: i64 = 5_000_000_000;``),
    so it is not checked here.
    """
    if elem not in INT_BITS:
        return
    lo, hi = int_limits(elem)
    v = -value if negated else value
    if not lo <= v <= hi:
        raise ConstError(f"literal out of range for `{elem}`",
                         f"the literal `{v}` does not fit into the type `{elem}` whose range is `{lo}..={hi}`")


U128_MAX = (1 << 128) - 1


def check_literal_size(value: int) -> None:
    """No integer literal is wider than u128 (rustc: "integer literal is too large")."""
    if value > U128_MAX:
        raise ConstError("integer literal is too large", f"value exceeds limit of `{U128_MAX}`")


def check_float_literal(value: float, elem: str | None) -> None:
    """A float literal that rounds to infinity in its type is rustc's deny-by-default
    `overflowing_literals` ("literal out of range for `f32`")."""
    if elem in ("f32", "f64") and (math.isinf(value) or math.isinf(round_float(value, elem))):  # (no inf literal)
        limit = "3.40282347e+38" if elem == "f32" else "1.7976931348623157e+308"
        raise ConstError(f"literal out of range for `{elem}`",
                         f"the literal does not fit into the type `{elem}` and will be converted to "
                         f"`{elem}::INFINITY` (the largest `{elem}` is {limit})")


def check_negation(value: int, elem: str | None) -> None:
    """``-x`` of a constant of a known integer type must stay in range (``-i32::MIN`` overflows)."""
    if elem in INT_BITS:
        lo, hi = int_limits(elem)
        if not lo <= -value <= hi:
            raise ConstError("this arithmetic operation will overflow",
                             f"attempt to negate `{value}`, which would overflow `{elem}`")


def parse_int_literal(raw: str) -> tuple[int, str | None] | None:
    """An integer literal's value and suffix (``0xFFu8`` -> ``(255, "u8")``); None if malformed."""
    m = re.fullmatch(r"(0x[0-9a-fA-F]+|0o[0-7]+|0b[01]+|[0-9]+)([iuf](?:8|16|32|64|size))?", raw.replace("_", ""))
    if m is None:
        return None
    digits = m.group(1)  # `007` is decimal in Rust (no octal without `0o`)
    return int(digits, {"0x": 16, "0o": 8, "0b": 2}.get(digits[:2], 10)), m.group(2)


def wrap_int(value: int, elem: str) -> int:
    """``value`` reduced to ``elem``'s width, two's complement (what `as` does between ints)."""
    bits, signed = int_info(elem)
    value &= (1 << bits) - 1
    if signed and value >= 1 << (bits - 1):
        value -= 1 << bits
    return value


def trunc_div(a: int, b: int) -> int:
    """Rust's integer ``a / b``: the quotient rounded toward zero (Python's ``//`` floors)."""
    return abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)


def trunc_rem(a: int, b: int) -> int:
    """Rust's integer ``a % b``: takes the sign of ``a`` (Python's ``%`` takes ``b``'s)."""
    return a - b * trunc_div(a, b)


_INT_FOLDS: dict[str, Callable[[int, int], int]] = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "/": trunc_div, "%": trunc_rem,
    "&": lambda a, b: a & b, "|": lambda a, b: a | b, "^": lambda a, b: a ^ b,
    "<<": lambda a, b: a << b, ">>": lambda a, b: a >> b,
}


def fold(op: str, a: int | float, b: int | float, elem: str | None = None) -> int | float | None:
    """Rust arithmetic on two literal values, done now; None when it is left to Python.

    ``elem`` is the integer type of the result when Rust knows it (a suffixed or cast
    literal; None for unsuffixed literals, whose type Rust infers from their use):
    ``<<`` then wraps to the type (bits shifted out are lost, as in Rust) and any other
    result outside the type's range is rustc's "this arithmetic operation will overflow".
    Float ``%`` is C's ``fmod`` (the sign of ``a``), as in Rust; other float arithmetic
    is left to Python.
    """
    if isinstance(a, int) and isinstance(b, int):
        if op in ("/", "%") and b == 0:
            raise ConstError("this operation will panic at runtime",
                             "attempt to divide by zero" if op == "/"
                             else "attempt to calculate the remainder with a divisor of zero")
        if op not in _INT_FOLDS:
            return None
        if op in ("/", "%") and b == -1 and elem in INT_BITS and a == int_limits(elem)[0] and int_info(elem)[1]:
            raise ConstError("this operation will panic at runtime",
                             f"attempt to {'divide' if op == '/' else 'calculate the remainder of'} `{a}_{elem}` "
                             f"{'by' if op == '/' else 'with a divisor of'} `-1_{elem}`, which would overflow")
        if op in ("<<", ">>"):
            bits = int_info(elem)[0] if elem in INT_BITS else 64
            if not 0 <= b < bits:
                if elem in INT_BITS:
                    raise ConstError("this arithmetic operation will overflow",
                                     f"attempt to shift {'left' if op == '<<' else 'right'} by `{b}`, "
                                     f"which would overflow `{elem}`")
                return None
            if op == "<<" and elem in INT_BITS:
                return wrap_int(a << b, elem)
        value = _INT_FOLDS[op](a, b)
        if elem in INT_BITS:
            lo, hi = int_limits(elem)
            if not lo <= value <= hi:
                raise ConstError("this arithmetic operation will overflow",
                                 f"`{a} {op} {b}` is {value}, outside `{elem}`'s range `{lo}..={hi}`")
        return value
    if op == "%" and isinstance(a, float | int) and isinstance(b, float | int) and b != 0:
        return math.fmod(a, b)
    return None


def bitwise_not(value: int, elem: str) -> int:
    """Rust's ``!`` on an integer literal of type ``elem`` (``!5u32`` is 4294967290, not -6)."""
    return wrap_int(~value, elem)


def int_division(left_float: bool | None, right_float: bool | None, left_const: bool, right_const: bool) -> bool:
    """Whether ``/`` between operands of these kinds is integer division (else true division).

    ``*_float`` is True/False for a known float/integer operand, None when unknown
    (a dtype parameter bounded by ``Num``); ``*_const``: a compile-time value.
    """
    if left_float is False and right_float is False:
        return True
    if left_float is False and right_const and right_float is None:
        return True
    if right_float is False and left_const and left_float is None:
        return True
    return False


# ------------------------------------------------------------------- casts


def float_to_int(value: float, elem: str) -> int:
    """Rust's ``f as int``: rounded toward zero, saturated at the type's limits, NaN is 0."""
    if math.isnan(value):
        return 0
    lo, hi = int_limits(elem)
    if math.isinf(value):
        return hi if value > 0 else lo
    return min(max(math.trunc(value), lo), hi)


def round_float(value: float, elem: str) -> float:
    """``value`` rounded to the float type ``elem`` (to nearest, ties to even; too large: infinity).

    f64 (Python's float) and the fp8 formats are left as they are."""
    s = SCALARS.get(elem)
    if elem not in ("f32", "f16", "bf16") or s is None or not math.isfinite(value):
        return value
    digits, emax, emin = s.significand, s.max_exponent, s.min_exponent
    exponent = max(math.frexp(abs(value))[1] - 1, emin)  # subnormals share the smallest exponent
    quantum = 2.0 ** (exponent - digits + 1)
    rounded = round(abs(value) / quantum) * quantum  # round(): ties to even
    if rounded >= 2.0 ** (emax + 1):
        rounded = math.inf
    return math.copysign(rounded, value)


def cast_constant(value: int | float | bool, target: str) -> int | float | bool:
    """A literal ``value as target``, computed now with Rust's rules.

    int -> int wraps (two's complement); float -> int rounds toward zero and saturates
    (NaN is 0); int/float -> float rounds to the target type; bool -> int is 0 or 1.
    """
    if target in FLOAT_TYPES:
        return round_float(float(value), target)
    if target == "bool":
        return bool(value)
    if isinstance(value, float):
        return float_to_int(value, target)
    return wrap_int(int(value), target)


def int_cast_keeps_value(src: str, dst: str, non_negative: bool) -> bool:
    """Whether every value of ``src`` (a non-negative one, if so known) survives ``as dst``."""
    if src not in INT_BITS or dst not in INT_BITS:
        return False
    (sbits, ssigned), (dbits, dsigned) = int_info(src), int_info(dst)
    if ssigned == dsigned:
        return dbits >= sbits
    if ssigned:  # signed -> unsigned: negative values wrap
        return non_negative and dbits >= sbits
    return dbits > sbits  # unsigned -> signed needs a spare bit


def wrap_terms(elem: str) -> tuple[int, int]:
    """(offset, modulus) with ``wrap_int(x) == (x + offset) % modulus - offset`` (Python's floor ``%``)."""
    bits, signed = int_info(elem)
    return (1 << (bits - 1) if signed else 0), 1 << bits


# ------------------------------------------------------------ result types

def rank(elem: str | None) -> int:
    """Promotion order of element types (``Scalar.rank``): the higher-ranked operand's type wins."""
    s = SCALARS.get(elem) if elem is not None else None
    return -1 if s is None or s.rank is None else s.rank


class Operand(NamedTuple):
    """What decides an operand's share in the type of ``a op b``: its element type, whether that
    is a float (None: unknown, a dtype parameter bounded by ``Num``), whether it is a runtime
    value, and whether it is an unsuffixed literal (whose type Rust infers from the other side)."""

    elem: str | None
    is_float: bool | None
    runtime: bool
    weak: bool


def result_elem(a: Operand, b: Operand, op: str) -> str | None:
    """The element type of ``a op b``."""
    if op in ("<<", ">>"):
        return a.elem
    # A runtime operand's type wins over a compile-time one (weak literals).
    if a.runtime and not b.runtime:
        if b.is_float and a.is_float is False:
            return b.elem
        return a.elem
    if b.runtime and not a.runtime:
        if a.is_float and b.is_float is False:
            return a.elem
        return b.elem
    if a.weak != b.weak:
        return b.elem if a.weak else a.elem
    if a.elem == b.elem:
        return a.elem
    if a.elem is None or b.elem is None:
        return a.elem or b.elem
    return a.elem if rank(a.elem) >= rank(b.elem) else b.elem
