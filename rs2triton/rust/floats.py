"""Rust's float types and their methods, as pure functions with rustc's answers: the float half
of :mod:`rs2triton.rust.std` (see its docstring for the profile). An ``f32`` is a Python float
holding an f32 value; every f32 result is rounded to f32 once, as the hardware rounds it."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from fractions import Fraction

from rs2triton.rust.semantics import Panic, round_float
from rs2triton.rust.types import SCALARS


class Float:
    """One Rust float type (``f32``, ``f64``) and its methods. Calling it rounds a value to the
    type (``f32(x)``)."""

    __slots__ = ("name", "MAX", "MIN", "EPSILON")

    def __init__(self, name: str):
        s = SCALARS[name]
        self.name = name
        self.MAX, self.MIN, self.EPSILON = s.max_finite, -s.max_finite, s.epsilon

    def __repr__(self) -> str:
        return self.name

    def __call__(self, v: int | float) -> float:
        """``v`` rounded to the type (ints exactly: no detour through f64 for f32)."""
        if isinstance(v, int) and not isinstance(v, bool):
            return int_to_float(v, self.name)
        return round_float(float(v), self.name) if self.name != "f64" else float(v)

    def _r(self, v: float) -> float:
        return round_float(v, self.name) if self.name != "f64" else v

    # ------------------------------------------------------------ operators
    def add(self, a: float, b: float) -> float:
        return self._r(a + b)

    def sub(self, a: float, b: float) -> float:
        return self._r(a - b)

    def mul(self, a: float, b: float) -> float:
        return self._r(a * b)

    def div(self, a: float, b: float) -> float:
        """IEEE division: by zero an infinity (or NaN), as Rust gives, where Python raises."""
        if b == 0.0:
            if a != a or a == 0.0:
                return math.nan
            return math.copysign(math.inf, a) * math.copysign(1.0, b)
        return self._r(a / b)

    def rem(self, a: float, b: float) -> float:
        """``a % b``: C's fmod (the sign of ``a``); NaN for a zero divisor or an infinite ``a``."""
        if b == 0.0 or math.isinf(a) or a != a or b != b:
            return math.nan
        return math.fmod(a, b)

    def neg(self, a: float) -> float:
        return -a

    def sum(self, items: Iterable[float]) -> float:
        """``iter.sum::<f32>()``: added in order, each sum rounded to the type."""
        total = -0.0  # (Rust's float sums start from -0.0: an empty sum is -0.0)
        for x in items:
            total = self._r(total + x)
        return total

    def product(self, items: Iterable[float]) -> float:
        total = 1.0
        for x in items:
            total = self._r(total * x)
        return total

    # ------------------------------------------------------------ comparisons and choice
    def min(self, a: float, b: float) -> float:
        """IEEE minNum: a NaN loses to a number."""
        if a != a:
            return b
        if b != b:
            return a
        if a == b == 0.0:
            return a if math.copysign(1.0, a) < 0 else b
        return a if a < b else b

    def max(self, a: float, b: float) -> float:
        if a != a:
            return b
        if b != b:
            return a
        if a == b == 0.0:
            return a if math.copysign(1.0, a) > 0 else b
        return a if a > b else b

    def clamp(self, a: float, lo: float, hi: float) -> float:
        if not lo <= hi:
            raise Panic(f"min > max, or either was NaN. min = {debug_float(lo, self.name)}, "
                        f"max = {debug_float(hi, self.name)}")
        if a < lo:
            a = lo
        if a > hi:
            a = hi
        return a

    def total_cmp(self, a: float, b: float) -> int:
        ka, kb = _total_key(a, self.name), _total_key(b, self.name)
        return (ka > kb) - (ka < kb)

    # ------------------------------------------------------------ rounding
    def round(self, a: float) -> float:
        """Half away from zero (Python's ``round`` is half to even)."""
        if not math.isfinite(a):
            return a
        t = float(math.trunc(a))
        if abs(a - t) >= 0.5:  # (exact: a float minus its integer part)
            t += math.copysign(1.0, a)
        return math.copysign(t, a)

    def round_ties_even(self, a: float) -> float:
        return a if not math.isfinite(a) else math.copysign(float(round(a)), a)

    def trunc(self, a: float) -> float:
        return a if not math.isfinite(a) else math.copysign(float(math.trunc(a)), a)

    def floor(self, a: float) -> float:
        return a if not math.isfinite(a) else math.copysign(float(math.floor(a)), a)

    def ceil(self, a: float) -> float:
        return a if not math.isfinite(a) else math.copysign(float(math.ceil(a)), a)

    def fract(self, a: float) -> float:
        return a - self.trunc(a) if math.isfinite(a) else math.nan

    # ------------------------------------------------------------ arithmetic functions
    def abs(self, a: float) -> float:
        return abs(a)

    def signum(self, a: float) -> float:
        return a if a != a else math.copysign(1.0, a)

    def copysign(self, a: float, b: float) -> float:
        return math.copysign(a, b)

    def recip(self, a: float) -> float:
        return self.div(1.0, a)

    def sqrt(self, a: float) -> float:
        return math.nan if a < 0 or a != a else self._r(math.sqrt(a))

    def cbrt(self, a: float) -> float:
        return a if not math.isfinite(a) or a == 0 else self._r(math.copysign(abs(a) ** (1 / 3), a))

    def mul_add(self, a: float, b: float, c: float) -> float:
        """``a * b + c`` rounded once (a fused multiply-add)."""
        if not (math.isfinite(a) and math.isfinite(b) and math.isfinite(c)):
            return self._r(a * b + c)
        exact = Fraction(a) * Fraction(b) + Fraction(c)
        if exact == 0:
            return self._r(a * b + c)  # (the sign of a zero sum, as IEEE gives it)
        return fraction_to_float(exact, self.name)

    def powi(self, a: float, n: int) -> float:
        """``a`` to an i32 power by repeated squaring in the type (as compiler-rt's ``__powi``)."""
        r, base, k = 1.0, a, abs(n)
        while True:
            if k & 1:
                r = self._r(r * base)
            k >>= 1
            if k == 0:
                break
            base = self._r(base * base)
        return self.div(1.0, r) if n < 0 else r

    def powf(self, a: float, b: float) -> float:
        return _c_pow(a, b, self.name)

    def exp(self, a: float) -> float:
        return self._r(_exp(a))

    def exp2(self, a: float) -> float:
        return self._r(_c_pow(2.0, a, "f64"))

    def ln(self, a: float) -> float:
        return self._r(_log(a, math.log))

    def log2(self, a: float) -> float:
        return self._r(_log(a, math.log2))

    def log10(self, a: float) -> float:
        return self._r(_log(a, math.log10))

    def hypot(self, a: float, b: float) -> float:
        return self._r(math.hypot(a, b))

    def to_degrees(self, a: float) -> float:
        return self._r(a * (180.0 / math.pi)) if self.name == "f64" else self._r(a * 57.2957795130823208767981548141051703)

    def to_radians(self, a: float) -> float:
        return self._r(a * (math.pi / 180.0))

    # ------------------------------------------------------------ classification
    def is_nan(self, a: float) -> bool:
        return a != a

    def is_finite(self, a: float) -> bool:
        return math.isfinite(a)

    def is_infinite(self, a: float) -> bool:
        return math.isinf(a)

    def is_sign_negative(self, a: float) -> bool:
        return math.copysign(1.0, a) < 0

    def is_sign_positive(self, a: float) -> bool:
        return math.copysign(1.0, a) > 0

    def is_normal(self, a: float) -> bool:
        return math.isfinite(a) and a != 0 and abs(a) >= SCALARS[self.name].min_positive


def _exp(a: float) -> float:
    try:
        return math.exp(a)
    except OverflowError:
        return math.inf


def _log(a: float, f: Callable[[float], float]) -> float:
    if a != a or a < 0:
        return math.nan
    if a == 0:
        return -math.inf
    if math.isinf(a):
        return math.inf
    return f(a)


def _c_pow(a: float, b: float, elem: str) -> float:
    """C's ``pow``, which Rust's ``powf`` is: IEEE special cases instead of Python's exceptions."""
    try:
        r = math.pow(a, b)
    except OverflowError:
        odd = float(b).is_integer() and int(b) % 2 == 1
        r = -math.inf if a < 0 and odd else math.inf
    except ValueError:  # a negative base to a non-integer power; 0 to a negative power
        if a == 0.0:
            odd = float(b).is_integer() and int(b) % 2 == 1
            r = math.copysign(math.inf, a) if odd else math.inf
        else:
            r = math.nan
    return round_float(r, elem) if elem != "f64" else r


def int_to_float(v: int, elem: str) -> float:
    """``v as f32`` / ``as f64``: the nearest value, ties to even (exactly, from any int)."""
    if abs(v) < 1 << 53:
        return round_float(float(v), elem) if elem != "f64" else float(v)
    return fraction_to_float(Fraction(v), elem)


def fraction_to_float(x: Fraction, elem: str) -> float:
    """An exact rational rounded once to ``elem`` (nearest, ties to even; too large: infinity)."""
    s = SCALARS[elem]
    if x == 0:
        return 0.0
    sign = -1.0 if x < 0 else 1.0
    x = abs(x)
    e = x.numerator.bit_length() - x.denominator.bit_length()
    if Fraction(2) ** e > x:
        e -= 1
    e = max(e, s.min_exponent)
    quantum = Fraction(2) ** (e - s.significand + 1)
    q = x / quantum
    n = q.numerator // q.denominator
    rest = q - n
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and n % 2 == 1):
        n += 1
    value = n * quantum
    if value >= Fraction(2) ** (s.max_exponent + 1):
        return sign * math.inf
    return sign * float(value)


def _total_key(a: float, elem: str) -> int:
    import struct

    fmt, bits = ("<f", 32) if elem == "f32" else ("<d", 64)
    raw = int.from_bytes(struct.pack(fmt, a), "little")
    return raw ^ ((1 << (bits - 1)) - 1) if raw >> (bits - 1) else raw


def debug_float(v: float, elem: str = "f64") -> str:
    """A float as Rust's ``{:?}`` writes it (``1.0``, ``NaN``, ``inf``, ``1e-7``)."""
    if v != v:
        return "NaN"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    if elem == "f32":
        import numpy as np  # (the shortest repr that round-trips in f32)

        text = np.format_float_positional(np.float32(v), unique=True, trim="-")
        if abs(v) >= 1e16 or (v != 0 and abs(v) < 1e-4):
            text = np.format_float_scientific(np.float32(v), unique=True, trim="-").replace("+", "")
    else:
        text = repr(v)
        if "e" in text:
            mantissa, exp = text.split("e")
            text = f"{mantissa.removesuffix('.0')}e{int(exp)}"
    return text if any(c in text for c in ".eEn") else text + ".0"


FLOATS: dict[str, Float] = {n: Float(n) for n in ("f32", "f64")}
