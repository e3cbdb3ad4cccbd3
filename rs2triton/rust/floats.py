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
        """IEEE minNum: a NaN loses to a number; of two equal values (`0.0`, `-0.0`) the receiver."""
        if a != a:
            return b
        return b if b < a else a

    def max(self, a: float, b: float) -> float:
        if a != a:
            return b
        return b if b > a else a

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
        return self._libm("pow", a, b)

    def exp(self, a: float) -> float:
        return self._libm("exp", a)

    def exp2(self, a: float) -> float:
        return self._libm("exp2", a)

    def exp_m1(self, a: float) -> float:
        return self._libm("expm1", a)

    def ln(self, a: float) -> float:
        return self._libm("log", a)

    def ln_1p(self, a: float) -> float:
        return self._libm("log1p", a)

    def log2(self, a: float) -> float:
        return self._libm("log2", a)

    def log10(self, a: float) -> float:
        return self._libm("log10", a)

    def log(self, a: float, base: float) -> float:
        """``a.log(base)``: ``a.ln() / base.ln()``, each step in the type, as Rust computes it."""
        return self.div(self.ln(a), self.ln(base))

    def cbrt(self, a: float) -> float:
        """Correctly rounded (Rust's own `cbrt`, which does not call the C library's)."""
        y = self._libm("cbrt", a)
        if not math.isfinite(y) or y == 0.0:
            return y
        exact = Fraction(a)
        candidates = [y, math.nextafter(y, math.inf), math.nextafter(y, -math.inf)]
        if self.name == "f32":
            candidates = [round_float(c, "f32") for c in candidates] + [_next_f32(y, 1), _next_f32(y, -1)]
        return min(candidates, key=lambda c: (abs(Fraction(c) ** 3 - exact), c))

    def hypot(self, a: float, b: float) -> float:
        return self._libm("hypot", a, b)

    def sin(self, a: float) -> float:
        return self._libm("sin", a)

    def cos(self, a: float) -> float:
        return self._libm("cos", a)

    def tan(self, a: float) -> float:
        return self._libm("tan", a)

    def asin(self, a: float) -> float:
        return self._libm("asin", a)

    def acos(self, a: float) -> float:
        return self._libm("acos", a)

    def atan(self, a: float) -> float:
        return self._libm("atan", a)

    def atan2(self, a: float, b: float) -> float:
        return self._libm("atan2", a, b)

    def sinh(self, a: float) -> float:
        return self._libm("sinh", a)

    def cosh(self, a: float) -> float:
        return self._libm("cosh", a)

    def tanh(self, a: float) -> float:
        return self._libm("tanh", a)

    def to_degrees(self, a: float) -> float:
        # (Rust: f64 multiplies by 180/pi; f32 by its own constant, 57.2957795130823208767981548141051703)
        return self._r(a * (180.0 / math.pi)) if self.name == "f64" else self._r(a * round_float(57.29577951308232, "f32"))

    def to_radians(self, a: float) -> float:
        return self._r(a * (math.pi / 180.0)) if self.name == "f64" else self._r(a * round_float(math.pi / 180.0, "f32"))

    def rem_euclid(self, a: float, b: float) -> float:
        r = self.rem(a, b)
        return self._r(r + abs(b)) if r < 0.0 else r

    def div_euclid(self, a: float, b: float) -> float:
        q = self.trunc(self.div(a, b))
        if self.rem(a, b) < 0.0:
            return self._r(q - 1.0 if b > 0.0 else q + 1.0)  # (computed in the type, as Rust's is)
        return q

    def partial_cmp(self, a: float, b: float) -> int | None:
        """``a.partial_cmp(&b)``: -1, 0 or 1 (``Ordering`` as an integer), None with a NaN."""
        if a != a or b != b:
            return None
        return (a > b) - (a < b)

    def _libm(self, fn: str, *args: float) -> float:
        """The C library's ``fn`` (``sinf`` for f32), which Rust's methods call: its results, to the
        last bit, not Python's (which raises where C returns an infinity or NaN)."""
        c = _c_function(fn + ("f" if self.name == "f32" else ""), len(args), self.name == "f32")
        if c is not None:
            return float(c(*args))
        return self._r(_python_math(fn, *args))

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

    def is_subnormal(self, a: float) -> bool:
        return a != 0 and abs(a) < SCALARS[self.name].min_positive








def _next_f32(v: float, direction: int) -> float:
    import struct

    bits = struct.unpack("<I", struct.pack("<f", v))[0]
    bits += direction if v > 0 else -direction
    return float(struct.unpack("<f", struct.pack("<I", bits & 0xFFFFFFFF))[0])


_C_CACHE: dict[str, object] = {}


def _c_function(name: str, arity: int, single: bool) -> Callable[..., float] | None:
    """The C math library's ``name`` (``sinf``, ``pow``...), or None where it cannot be loaded."""
    if name in _C_CACHE:
        return _C_CACHE[name]  # type: ignore[return-value]
    fn = None
    try:
        import ctypes
        import ctypes.util

        lib = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
        fn = getattr(lib, name)
        kind = ctypes.c_float if single else ctypes.c_double
        fn.restype = kind
        fn.argtypes = [kind] * arity
    except (OSError, AttributeError):
        fn = None
    _C_CACHE[name] = fn
    return fn


def _python_math(fn: str, *args: float) -> float:
    """``math``'s ``fn`` with C's special values instead of Python's exceptions (where no C
    library can be loaded)."""
    if fn == "pow":
        a, b = args
        try:
            return math.pow(a, b)
        except OverflowError:
            odd = float(b).is_integer() and int(b) % 2 == 1
            return -math.inf if a < 0 and odd else math.inf
        except ValueError:  # a negative base to a non-integer power; 0 to a negative power
            if a == 0.0:
                odd = float(b).is_integer() and int(b) % 2 == 1
                return math.copysign(math.inf, a) if odd else math.inf
            return math.nan
    a = args[0]
    if fn in ("log", "log2", "log10"):
        if a != a or a < 0:
            return math.nan
        if a == 0:
            return -math.inf
    f = {"log": math.log, "log1p": math.log1p, "expm1": math.expm1}.get(fn) or getattr(math, fn)
    try:
        return float(f(*args))
    except OverflowError:
        return math.inf
    except ValueError:
        return math.nan


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
    """The integer Rust's ``total_cmp`` orders floats by: the bits as a signed integer, with the
    bits below the sign flipped for negative values."""
    import struct

    fmt, bits = ("<f", 32) if elem == "f32" else ("<d", 64)
    raw = int.from_bytes(struct.pack(fmt, a), "little")
    signed = raw - (1 << bits) if raw >> (bits - 1) else raw
    return signed ^ ((1 << (bits - 1)) - 1) if signed < 0 else signed


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
