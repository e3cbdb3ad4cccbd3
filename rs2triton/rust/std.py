"""Rust's standard library on scalars: the methods of the integer and float types, as pure
functions with rustc's answers in its release profile.

One :class:`Int` or :class:`Float` object per Rust scalar type (``i32``, ``usize``, ``f32``...)
holds that type's methods, named as Rust names them and taking the receiver first, as Rust's
own path form does (``i32::saturating_sub(a, b)`` is ``i32.saturating_sub(a, b)`` here). Host
code translated from Rust calls them at run time (through :mod:`rs2triton.runtime.host`), and
lowering calls the same ones at transpile time to fold calls on literals, so an answer is
decided in one place.

The profile is rustc's release build, the one the kernels' arithmetic follows too: integer
overflow wraps (``i32::MAX + 1`` at run time is ``i32::MIN``; ``abs``, ``pow``,
``next_power_of_two``... wrap likewise), shift amounts are masked to the type's width; and
where Rust panics in every build (``/`` and ``%`` by zero or ``MIN / -1``, ``clamp`` with
``min > max``, a logarithm of a non-positive number) the function raises :class:`Panic` with
Rust's message. Values are Python ints and floats; an ``f32`` is a float that holds an f32
value, and every f32 result is rounded to f32 once, as the hardware does.

:data:`METHODS` says, per method, how many arguments it takes and what type it returns (the
receiver's, ``u32``, ``bool``, an ``Option`` or a pair): lowering types calls with it.
"""

from __future__ import annotations

import math
import re
from typing import NamedTuple

# (FLOATS and Panic re-exported: the runtime's host helpers take them from here)
from rs2triton.rust.floats import FLOATS as FLOATS
from rs2triton.rust.semantics import Panic as Panic
from rs2triton.rust.semantics import float_to_int, round_float, trunc_div, trunc_rem, wrap_int
from rs2triton.rust.types import SCALARS

DIV_ZERO = "attempt to divide by zero"
REM_ZERO = "attempt to calculate the remainder with a divisor of zero"
DIV_OVERFLOW = "attempt to divide with overflow"
REM_OVERFLOW = "attempt to calculate the remainder with overflow"


class Int:
    """One Rust integer type and its methods (receiver first)."""

    __slots__ = ("name", "bits", "signed", "MIN", "MAX", "BITS", "_mask")

    def __init__(self, name: str):
        s = SCALARS[name]
        self.name, self.bits, self.signed, self.MIN, self.MAX = name, s.bits, s.signed, s.min, s.max
        self.BITS = s.bits
        self._mask = (1 << s.bits) - 1

    def __repr__(self) -> str:
        return self.name

    # ------------------------------------------------------------ representation
    def wrap(self, v: int) -> int:
        """``v`` reduced to the type, two's complement (what wrapping arithmetic and ``as`` give)."""
        v &= self._mask
        return v - (1 << self.bits) if self.signed and v > self.MAX else v

    def _bits(self, v: int) -> int:
        return v & self._mask

    def _fits(self, v: int) -> bool:
        return self.MIN <= v <= self.MAX

    def _clamp(self, v: int) -> int:
        return self.MIN if v < self.MIN else self.MAX if v > self.MAX else v

    # ------------------------------------------------------------ operators (release profile)
    def add(self, a: int, b: int) -> int:
        return self.wrap(a + b)

    def sub(self, a: int, b: int) -> int:
        return self.wrap(a - b)

    def mul(self, a: int, b: int) -> int:
        return self.wrap(a * b)

    def neg(self, a: int) -> int:
        return self.wrap(-a)

    def div(self, a: int, b: int) -> int:
        """``a / b``: rounded toward zero; by zero, and ``MIN / -1``, panic in every build."""
        _divisor(b, DIV_ZERO)
        if self._div_overflows(a, b):
            raise Panic(DIV_OVERFLOW)
        return trunc_div(a, b)

    def rem(self, a: int, b: int) -> int:
        """``a % b``: the sign of ``a``; by zero, and ``MIN % -1``, panic in every build."""
        _divisor(b, REM_ZERO)
        if self._div_overflows(a, b):
            raise Panic(REM_OVERFLOW)
        return trunc_rem(a, b)

    def _div_overflows(self, a: int, b: int) -> bool:
        """``a / b`` (and ``a % b``) overflows: ``MIN / -1`` of a signed type."""
        return self.signed and b == -1 and a == self.MIN

    def shl(self, a: int, b: int) -> int:
        """``a << b``: the amount masked to the width (release), the bits shifted out lost."""
        return self.wrap(a << (b & (self.bits - 1)))

    def shr(self, a: int, b: int) -> int:
        """``a >> b``: arithmetic for signed types, logical for unsigned; the amount masked."""
        return self.wrap(a) >> (b & (self.bits - 1))

    # ------------------------------------------------------------ wrapping_*
    def wrapping_add(self, a: int, b: int) -> int:
        return self.wrap(a + b)

    def wrapping_sub(self, a: int, b: int) -> int:
        return self.wrap(a - b)

    def wrapping_mul(self, a: int, b: int) -> int:
        return self.wrap(a * b)

    def wrapping_neg(self, a: int) -> int:
        return self.wrap(-a)

    def wrapping_abs(self, a: int) -> int:
        return self.wrap(abs(a))

    def wrapping_div(self, a: int, b: int) -> int:
        return self.wrap(trunc_div(a, _divisor(b, DIV_ZERO)))

    def wrapping_rem(self, a: int, b: int) -> int:
        return 0 if _divisor(b, REM_ZERO) == -1 and self.signed else trunc_rem(a, b)

    def wrapping_div_euclid(self, a: int, b: int) -> int:
        return self.wrap(_div_euclid(a, _divisor(b, DIV_ZERO)))

    def wrapping_rem_euclid(self, a: int, b: int) -> int:
        return 0 if _divisor(b, REM_ZERO) == -1 and self.signed else _rem_euclid(a, b)

    def wrapping_shl(self, a: int, b: int) -> int:
        return self.shl(a, b)

    def wrapping_shr(self, a: int, b: int) -> int:
        return self.shr(a, b)

    def wrapping_pow(self, a: int, e: int) -> int:
        return self.wrap(pow(a, e, 1 << self.bits)) if e >= 0 else self.wrap(1)

    # ------------------------------------------------------------ saturating_*
    def saturating_add(self, a: int, b: int) -> int:
        return self._clamp(a + b)

    def saturating_sub(self, a: int, b: int) -> int:
        return self._clamp(a - b)

    def saturating_mul(self, a: int, b: int) -> int:
        return self._clamp(a * b)

    def saturating_pow(self, a: int, e: int) -> int:
        return self._clamp(_big_pow(a, e, self.bits))

    def saturating_neg(self, a: int) -> int:
        return self._clamp(-a)

    def saturating_abs(self, a: int) -> int:
        return self._clamp(abs(a))

    def saturating_div(self, a: int, b: int) -> int:
        _divisor(b, DIV_ZERO)
        return self._clamp(trunc_div(a, b))

    # ------------------------------------------------------------ checked_* (None on overflow)
    def _checked(self, v: int) -> int | None:
        return v if self._fits(v) else None

    def checked_add(self, a: int, b: int) -> int | None:
        return self._checked(a + b)

    def checked_sub(self, a: int, b: int) -> int | None:
        return self._checked(a - b)

    def checked_mul(self, a: int, b: int) -> int | None:
        return self._checked(a * b)

    def checked_neg(self, a: int) -> int | None:
        return self._checked(-a)

    def checked_abs(self, a: int) -> int | None:
        return self._checked(abs(a))

    def checked_div(self, a: int, b: int) -> int | None:
        return None if b == 0 else self._checked(trunc_div(a, b))

    def checked_rem(self, a: int, b: int) -> int | None:
        if b == 0 or self._div_overflows(a, b):
            return None
        return trunc_rem(a, b)

    def checked_div_euclid(self, a: int, b: int) -> int | None:
        return None if b == 0 else self._checked(_div_euclid(a, b))

    def checked_rem_euclid(self, a: int, b: int) -> int | None:
        if b == 0 or self._div_overflows(a, b):
            return None
        return _rem_euclid(a, b)

    def checked_shl(self, a: int, b: int) -> int | None:
        return self.wrap(a << b) if 0 <= b < self.bits else None

    def checked_shr(self, a: int, b: int) -> int | None:
        return a >> b if 0 <= b < self.bits else None

    def checked_pow(self, a: int, e: int) -> int | None:
        return self._checked(_big_pow(a, e, self.bits))

    def checked_next_power_of_two(self, a: int) -> int | None:
        return self._checked(_next_pow2(a))

    def checked_next_multiple_of(self, a: int, b: int) -> int | None:
        return None if b == 0 else self._checked(_next_multiple(a, b))

    def checked_ilog2(self, a: int) -> int | None:
        return a.bit_length() - 1 if a > 0 else None

    # ------------------------------------------------------------ overflowing_* ((wrapped, overflowed))
    def _overflowing(self, v: int) -> tuple[int, bool]:
        return self.wrap(v), not self._fits(v)

    def overflowing_add(self, a: int, b: int) -> tuple[int, bool]:
        return self._overflowing(a + b)

    def overflowing_sub(self, a: int, b: int) -> tuple[int, bool]:
        return self._overflowing(a - b)

    def overflowing_mul(self, a: int, b: int) -> tuple[int, bool]:
        return self._overflowing(a * b)

    def overflowing_neg(self, a: int) -> tuple[int, bool]:
        return self.wrap(-a), (a == self.MIN if self.signed else a != 0)

    def overflowing_abs(self, a: int) -> tuple[int, bool]:
        return self._overflowing(abs(a))

    def overflowing_pow(self, a: int, e: int) -> tuple[int, bool]:
        big = _big_pow(a, e, self.bits)
        return self.wrapping_pow(a, e), not self._fits(big)

    def overflowing_div(self, a: int, b: int) -> tuple[int, bool]:
        return self.wrapping_div(a, b), self._div_overflows(a, b)

    def overflowing_rem(self, a: int, b: int) -> tuple[int, bool]:
        return self.wrapping_rem(a, b), self._div_overflows(a, b)

    def overflowing_div_euclid(self, a: int, b: int) -> tuple[int, bool]:
        return self.wrapping_div_euclid(a, b), self._div_overflows(a, b)

    def overflowing_rem_euclid(self, a: int, b: int) -> tuple[int, bool]:
        return self.wrapping_rem_euclid(a, b), self._div_overflows(a, b)

    def overflowing_shl(self, a: int, b: int) -> tuple[int, bool]:
        return self.shl(a, b), not 0 <= b < self.bits

    def overflowing_shr(self, a: int, b: int) -> tuple[int, bool]:
        return self.shr(a, b), not 0 <= b < self.bits

    # ------------------------------------------------------------ bits
    def count_ones(self, a: int) -> int:
        return bin(self._bits(a)).count("1")

    def count_zeros(self, a: int) -> int:
        return self.bits - self.count_ones(a)

    def leading_zeros(self, a: int) -> int:
        return self.bits - self._bits(a).bit_length()

    def trailing_zeros(self, a: int) -> int:
        v = self._bits(a)
        return self.bits if v == 0 else (v & -v).bit_length() - 1

    def leading_ones(self, a: int) -> int:
        return self.leading_zeros(~a)

    def trailing_ones(self, a: int) -> int:
        return self.trailing_zeros(~a)

    def rotate_left(self, a: int, n: int) -> int:
        v, k = self._bits(a), n % self.bits
        return self.wrap((v << k) | (v >> (self.bits - k)))

    def rotate_right(self, a: int, n: int) -> int:
        v, k = self._bits(a), n % self.bits
        return self.wrap((v >> k) | (v << (self.bits - k)))

    def swap_bytes(self, a: int) -> int:
        return self.wrap(int.from_bytes(self._bits(a).to_bytes(self.bits // 8, "little"), "big"))

    def reverse_bits(self, a: int) -> int:
        return self.wrap(int(format(self._bits(a), f"0{self.bits}b")[::-1], 2))

    # ------------------------------------------------------------ arithmetic methods
    def pow(self, a: int, e: int) -> int:
        return self.wrapping_pow(a, e)

    def abs(self, a: int) -> int:
        return self.wrap(abs(a))

    def unsigned_abs(self, a: int) -> int:
        return abs(a)

    def abs_diff(self, a: int, b: int) -> int:
        return abs(a - b)

    def signum(self, a: int) -> int:
        return (a > 0) - (a < 0)

    def is_positive(self, a: int) -> bool:
        return a > 0

    def is_negative(self, a: int) -> bool:
        return a < 0

    def div_euclid(self, a: int, b: int) -> int:
        _divisor(b, DIV_ZERO)
        if self._div_overflows(a, b):
            raise Panic(DIV_OVERFLOW)
        return _div_euclid(a, b)

    def rem_euclid(self, a: int, b: int) -> int:
        _divisor(b, REM_ZERO)
        if self._div_overflows(a, b):
            raise Panic(REM_OVERFLOW)
        return _rem_euclid(a, b)

    def div_ceil(self, a: int, b: int) -> int:
        _divisor(b, DIV_ZERO)
        return -(-a // b)

    def div_floor(self, a: int, b: int) -> int:
        _divisor(b, DIV_ZERO)
        return a // b

    def next_power_of_two(self, a: int) -> int:
        return self.wrap(_next_pow2(a))  # (release: 0 past the type's range)

    def is_power_of_two(self, a: int) -> bool:
        return a > 0 and a & (a - 1) == 0

    def next_multiple_of(self, a: int, b: int) -> int:
        _divisor(b, REM_ZERO)
        return self.wrap(_next_multiple(a, b))

    def is_multiple_of(self, a: int, b: int) -> bool:
        return a == 0 if b == 0 else a % b == 0

    def ilog2(self, a: int) -> int:
        if a <= 0:
            raise Panic("argument of integer logarithm must be positive")
        return a.bit_length() - 1

    def ilog10(self, a: int) -> int:
        if a <= 0:
            raise Panic("argument of integer logarithm must be positive")
        return len(str(a)) - 1

    def ilog(self, a: int, base: int) -> int:
        if a <= 0 or base < 2:
            raise Panic("argument of integer logarithm must be positive" if a <= 0
                        else "base of integer logarithm must be at least 2")
        n = 0
        while a >= base:
            a //= base
            n += 1
        return n

    def isqrt(self, a: int) -> int:
        if a < 0:
            raise Panic("argument of integer square root cannot be negative")
        return math.isqrt(a)

    def min(self, a: int, b: int) -> int:
        return a if a <= b else b

    def max(self, a: int, b: int) -> int:
        return b if b >= a else a

    def clamp(self, a: int, lo: int, hi: int) -> int:
        if lo > hi:
            raise Panic(f"min > max. min = {lo}, max = {hi}")
        return lo if a < lo else hi if a > hi else a


# ---------------------------------------------------------------- shared pieces


def _big_pow(a: int, e: int, bits: int) -> int:
    """``a ** e`` exactly, capped far past any type's range (so huge exponents stay cheap)."""
    if a in (0, 1) or e == 0:
        return a ** e if e >= 0 else 1
    if a == -1:
        return -1 if e % 2 else 1
    if e > 2 * bits:  # |a| >= 2: far out of range; only the sign matters
        return (1 << (2 * bits)) * (-1 if a < 0 and e % 2 else 1)
    return int(a ** e)


def _next_pow2(a: int) -> int:
    return 1 if a <= 1 else 1 << (a - 1).bit_length()


def _next_multiple(a: int, b: int) -> int:
    r = a % b
    return a if r == 0 else a + (b - r)


def _divisor(b: int, message: str) -> int:
    """``b``, which Rust panics on (``message``) when it is 0, in every build."""
    if b == 0:
        raise Panic(message)
    return b


def _div_euclid(a: int, b: int) -> int:
    q = trunc_div(a, b)
    if trunc_rem(a, b) < 0:
        return q - 1 if b > 0 else q + 1
    return q


def _rem_euclid(a: int, b: int) -> int:
    r = trunc_rem(a, b)
    return r + abs(b) if r < 0 else r
















def cast(value: int | float | bool, target: str) -> int | float | bool:
    """Rust's ``value as target`` between scalars (bools, ints and floats)."""
    s = SCALARS[target]
    if s.is_float:
        return FLOATS[target](value)
    if target == "bool":
        return bool(value)
    if isinstance(value, float):
        return float_to_int(value, target)
    return wrap_int(int(value), target)


INTS: dict[str, Int] = {n: Int(n) for n in ("i8", "i16", "i32", "i64", "isize", "u8", "u16", "u32", "u64", "usize")}


# ---------------------------------------------------------------- the methods' signatures


class Method(NamedTuple):
    """A scalar method: its arguments after the receiver, and what it returns: ``"Self"`` (the
    receiver's type), a Rust scalar type, ``"Unsigned"`` (the unsigned type of the receiver's
    width), ``"Option<Self>"``, ``"(Self, bool)"``, or ``"Ordering"``."""

    arity: int
    returns: str = "Self"
    arg: str = "Self"  # the arguments' type: the receiver's, or a scalar type (`u32` for shifts and powers)


INT_METHODS: dict[str, Method] = {
    **{f"wrapping_{m}": Method(1) for m in ("add", "sub", "mul", "div", "rem", "div_euclid", "rem_euclid")},
    "wrapping_neg": Method(0), "wrapping_abs": Method(0),
    "wrapping_shl": Method(1, arg="u32"), "wrapping_shr": Method(1, arg="u32"), "wrapping_pow": Method(1, arg="u32"),
    **{f"saturating_{m}": Method(1) for m in ("add", "sub", "mul", "div")},
    "saturating_neg": Method(0), "saturating_abs": Method(0), "saturating_pow": Method(1, arg="u32"),
    **{f"checked_{m}": Method(1, "Option<Self>") for m in ("add", "sub", "mul", "div", "rem", "div_euclid",
                                                            "rem_euclid", "next_multiple_of")},
    "checked_neg": Method(0, "Option<Self>"), "checked_abs": Method(0, "Option<Self>"),
    "checked_shl": Method(1, "Option<Self>", "u32"), "checked_shr": Method(1, "Option<Self>", "u32"),
    "checked_pow": Method(1, "Option<Self>", "u32"), "checked_next_power_of_two": Method(0, "Option<Self>"),
    "checked_ilog2": Method(0, "Option<u32>"),
    **{f"overflowing_{m}": Method(1, "(Self, bool)") for m in ("add", "sub", "mul", "div", "rem", "div_euclid",
                                                                "rem_euclid")},
    "overflowing_neg": Method(0, "(Self, bool)"), "overflowing_abs": Method(0, "(Self, bool)"),
    "overflowing_pow": Method(1, "(Self, bool)", "u32"), "overflowing_shl": Method(1, "(Self, bool)", "u32"),
    "overflowing_shr": Method(1, "(Self, bool)", "u32"),
    **{m: Method(0, "u32") for m in ("count_ones", "count_zeros", "leading_zeros", "trailing_zeros", "leading_ones",
                                     "trailing_ones", "ilog2", "ilog10")},
    "ilog": Method(1, "u32"),
    "rotate_left": Method(1, arg="u32"), "rotate_right": Method(1, arg="u32"), "swap_bytes": Method(0),
    "reverse_bits": Method(0), "pow": Method(1, arg="u32"), "abs": Method(0), "signum": Method(0),
    "unsigned_abs": Method(0, "Unsigned"), "abs_diff": Method(1, "Unsigned"),
    "is_positive": Method(0, "bool"), "is_negative": Method(0, "bool"),
    "div_euclid": Method(1), "rem_euclid": Method(1), "div_ceil": Method(1), "next_power_of_two": Method(0),
    "is_power_of_two": Method(0, "bool"), "next_multiple_of": Method(1), "is_multiple_of": Method(1, "bool"),
    "isqrt": Method(0), "min": Method(1), "max": Method(1), "clamp": Method(2),
}
# Every stable method (and trait method in the prelude) the integer and float types have, whether
# rs2triton translates it or not: a method outside these is rustc's E0599, one inside them and not
# in the tables above is outside the translated subset.
RUST_INT_METHODS = frozenset(INT_METHODS) | {
    "to_be_bytes", "to_le_bytes", "to_ne_bytes", "from_be_bytes", "from_le_bytes", "from_ne_bytes", "to_be", "to_le",
    "from_be", "from_le", "from_str_radix", "checked_ilog", "checked_ilog10", "checked_isqrt", "checked_pow",
    "checked_neg", "checked_signum", "wrapping_neg", "unbounded_shl", "unbounded_shr", "cast_signed",
    "cast_unsigned", "midpoint", "count_ones", "cmp", "partial_cmp", "eq", "ne", "lt", "le", "gt", "ge", "clone",
    "into", "try_into", "to_string", "to_owned", "hash", "fmt", "is_multiple_of", "div_floor", "checked_div_euclid",
    "wrapping_div_euclid", "wrapping_rem_euclid", "overflowing_div", "overflowing_rem", "overflowing_div_euclid",
    "overflowing_rem_euclid", "saturating_neg", "checked_next_multiple_of", "isqrt",
}
RUST_FLOAT_METHODS = frozenset({
    "floor", "ceil", "round", "round_ties_even", "trunc", "fract", "abs", "signum", "copysign", "mul_add",
    "div_euclid", "rem_euclid", "powi", "powf", "sqrt", "exp", "exp2", "ln", "log", "log2", "log10", "cbrt",
    "hypot", "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sin_cos", "exp_m1", "ln_1p", "sinh", "cosh",
    "tanh", "asinh", "acosh", "atanh", "is_nan", "is_infinite", "is_finite", "is_subnormal", "is_normal",
    "classify", "is_sign_positive", "is_sign_negative", "next_up", "next_down", "recip", "to_degrees",
    "to_radians", "max", "min", "maximum", "minimum", "midpoint", "to_int_unchecked", "to_bits", "from_bits",
    "to_be_bytes", "to_le_bytes", "to_ne_bytes", "from_be_bytes", "from_le_bytes", "from_ne_bytes", "total_cmp",
    "clamp", "partial_cmp", "eq", "ne", "lt", "le", "gt", "ge", "clone", "into", "to_string", "to_owned", "fmt",
    "abs_sub",
})
# The associated constants of the scalar types.
RUST_INT_CONSTS = frozenset({"MIN", "MAX", "BITS"})
RUST_FLOAT_CONSTS = frozenset({"MIN", "MAX", "EPSILON", "MIN_POSITIVE", "NAN", "INFINITY", "NEG_INFINITY", "RADIX",
                               "MANTISSA_DIGITS", "DIGITS", "MIN_EXP", "MAX_EXP", "MIN_10_EXP", "MAX_10_EXP"})

# Methods only unsigned types have (rustc: "no method named `div_ceil` found for type `i32`").
UNSIGNED_ONLY = frozenset({"div_ceil", "next_power_of_two", "is_power_of_two", "next_multiple_of",
                           "checked_next_power_of_two", "checked_next_multiple_of", "is_multiple_of"})
SIGNED_ONLY = frozenset({"abs", "signum", "unsigned_abs", "is_positive", "is_negative", "wrapping_abs",
                         "saturating_neg", "saturating_abs", "checked_abs", "overflowing_abs"})

FLOAT_METHODS: dict[str, Method] = {
    **{m: Method(0) for m in ("round", "round_ties_even", "trunc", "floor", "ceil", "fract", "abs", "signum", "recip",
                              "sqrt", "cbrt", "exp", "exp2", "exp_m1", "ln", "ln_1p", "log2", "log10", "to_degrees",
                              "to_radians", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh")},
    **{m: Method(1) for m in ("min", "max", "copysign", "powf", "hypot", "log", "atan2", "rem_euclid", "div_euclid")},
    "partial_cmp": Method(1, "Option<Ordering>"),
    "powi": Method(1, arg="i32"), "mul_add": Method(2), "clamp": Method(2),
    **{m: Method(0, "bool") for m in ("is_nan", "is_finite", "is_infinite", "is_sign_negative", "is_sign_positive",
                                      "is_normal", "is_subnormal")},
    "total_cmp": Method(1, "Ordering"),
}


# ---------------------------------------------------------------- formatting (Display, Debug)

_SPEC = re.compile(r"(?:(?P<fill>.)?(?P<align>[<^>]))?(?P<sign>[+-])?(?P<alt>#)?(?P<zero>0)?(?P<width>\d+)?"
                   r"(?:\.(?P<precision>\d+))?(?P<kind>[?xXobeE]?)")


def _shortest(v: float, elem: str) -> str:
    """The fewest significant digits that read back as ``v`` in its type (as Rust prints floats)."""
    if elem != "f32":
        return repr(v)
    for digits in range(1, 10):
        text = f"{v:.{digits}g}"
        if round_float(float(text), "f32") == v:
            return text
    return repr(v)


def _float_text(v: float, elem: str, precision: int | None, kind: str) -> str:
    from decimal import Decimal

    if v != v:
        return "NaN"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    negative = math.copysign(1.0, v) < 0
    if kind in ("e", "E"):
        if precision is not None:
            mantissa, _, exp = f"{abs(v):.{precision}e}".partition("e")
        else:
            d = Decimal(_shortest(abs(v), elem)).normalize()
            digits = d.as_tuple().digits
            exp = str(d.adjusted())
            mantissa = str(digits[0]) + ("." + "".join(map(str, digits[1:])) if len(digits) > 1 else "")
        text = f"{mantissa}{kind}{int(exp)}"
    elif precision is not None:
        text = f"{Decimal(abs(v)):.{precision}f}" if abs(v) >= 1e16 else f"{abs(v):.{precision}f}"
    else:
        d = Decimal(_shortest(abs(v), elem))
        if kind == "?" and (abs(v) >= 1e16 or (v != 0 and abs(v) < 1e-4)):
            return ("-" if negative else "") + _float_text(abs(v), elem, None, "e")
        text = format(d, "f")
        if "." in text:
            text = text.rstrip("0").rstrip(".") if kind != "?" else text
        if kind == "?" and "." not in text:
            text += ".0"
    return ("-" if negative else "") + text


def display(value: object, elem: str = "", spec: str = "") -> str:
    """``format!("{:spec}", value)`` as Rust writes it: Display (``1``, ``0.1``, ``true``, ``inf``)
    or, with ``?``, Debug (``1.0``, ``1e-7``, a quoted string); width, fill, alignment, sign,
    ``#``, ``0`` and precision; ``x``/``X``/``o``/``b``/``e`` of integers and floats."""
    m = _SPEC.fullmatch(spec)
    if m is None:
        return str(value)
    kind, precision = m.group("kind"), int(m.group("precision")) if m.group("precision") else None
    numeric = False
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, int):
        numeric = True
        bits = {"x": "x", "X": "X", "o": "o", "b": "b"}.get(kind)
        if bits is not None:
            v = value & ((1 << SCALARS[elem].bits) - 1) if elem in SCALARS and value < 0 else value
            text = ("0" + ("x" if bits in "xX" else bits) if m.group("alt") else "") + format(v, bits)
        elif kind in ("e", "E"):
            text = _float_text(float(value), "f64", precision, kind)
        else:
            text = str(value)
    elif isinstance(value, float):
        numeric = True
        text = _float_text(value, elem or "f64", precision, kind)
    elif isinstance(value, str):
        text = value if kind != "?" else '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
        if precision is not None and kind != "?":
            text = text[:precision]
    else:
        text = str(value)
    if numeric and m.group("sign") == "+" and not text.startswith("-"):
        text = "+" + text
    width = int(m.group("width") or 0)
    if len(text) < width:
        if m.group("zero") and numeric and not m.group("align"):
            sign = text[0] if text[:1] in "+-" else ""
            return sign + text[len(sign):].rjust(width - len(sign), "0")
        fill = m.group("fill") or " "
        align = m.group("align") or (">" if numeric else "<")
        pad = width - len(text)
        if align == "<":
            return text + fill * pad
        if align == ">":
            return fill * pad + text
        return fill * (pad // 2) + text + fill * (pad - pad // 2)
    return text
