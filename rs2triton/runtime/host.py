"""Rust's meaning for the host logic that generated modules translate from ``impl RuntimeOp``.

Generated host methods compute with Python ints and floats; where Python's arithmetic gives
another answer than Rust's, they call these functions, which apply the rules of
:mod:`rs2triton.rust.semantics` (the module that decides the same questions for kernels):

- ``as`` casts wrap integers to the target width (``as_i32(3_000_000_000) == -1_294_967_296``),
  truncate floats toward zero and saturate them (``as_u32(-1.5) == 0``), round to f32
  (``as_f32``);
- signed ``/`` and ``%`` truncate toward zero (``div(-7, 2) == -3``);
- an unsigned ``-`` that would go below zero panics in Rust (a debug build, as teenygrad's
  tests run): here it is an ``OverflowError`` with Rust's message; so are the other checked
  operations below;
- ``f32`` arithmetic is rounded to f32 after each operation (``f32(x)``).

``+`` and ``*`` are Python's: a sum or product past 2^64, which a debug build of Rust would
panic on, is not checked (no shape comes near it).
"""

from __future__ import annotations

from rs2triton.rust.semantics import float_to_int, round_float, trunc_div, trunc_rem, wrap_int
from rs2triton.rust.types import SCALARS


def _cast(elem: str):
    def cast(value):
        if isinstance(value, float):
            return float_to_int(value, elem)
        return wrap_int(int(value), elem)

    cast.__name__ = cast.__qualname__ = f"as_{elem}"
    cast.__doc__ = f"Rust's ``value as {elem}``."
    return cast


as_i8, as_i16, as_i32, as_i64, as_isize = (_cast(t) for t in ("i8", "i16", "i32", "i64", "isize"))
as_u8, as_u16, as_u32, as_u64, as_usize = (_cast(t) for t in ("u8", "u16", "u32", "u64", "usize"))

def f32(value) -> float:
    """``value`` rounded to the nearest f32 (infinite past f32's range, as a Rust `as f32` is)."""
    return round_float(float(value), "f32")


as_f32 = f32


def as_f64(value) -> float:
    """Rust's ``value as f64``."""
    return float(value)


def as_bool(value) -> bool:
    return bool(value)


def div(a: int, b: int) -> int:
    """Rust's integer ``a / b`` for signed types: rounded toward zero."""
    if b == 0:
        raise ZeroDivisionError("attempt to divide by zero")
    return trunc_div(a, b)


def rem(a: int, b: int) -> int:
    """Rust's integer ``a % b`` for signed types: the sign of ``a``."""
    if b == 0:
        raise ZeroDivisionError("attempt to calculate the remainder with a divisor of zero")
    return trunc_rem(a, b)


def check(value: int, elem: str, what: str) -> int:
    """``value`` if it fits ``elem``, else Rust's panic "attempt to ``what`` with overflow"."""
    s = SCALARS[elem]
    if not s.min <= value <= s.max:
        raise OverflowError(f"attempt to {what} with overflow ({elem}: {value} is out of range)")
    return value


def sub(a: int, b: int, elem: str = "usize") -> int:
    """``a - b`` of an unsigned (or any) integer type, panicking below its range as Rust does."""
    return check(a - b, elem, "subtract")


def neg(a: int, elem: str) -> int:
    return check(-a, elem, "negate")


def next_power_of_two(n: int) -> int:
    """``n.next_power_of_two()``: the smallest power of two >= n (1 for 0)."""
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


def next_multiple_of(n: int, m: int) -> int:
    """``n.next_multiple_of(m)`` of an unsigned integer: the smallest multiple of m >= n."""
    if m == 0:
        raise ZeroDivisionError("attempt to calculate the remainder with a divisor of zero")
    return -(-n // m) * m


def div_ceil(a: int, b: int) -> int:
    """``a.div_ceil(b)`` of an unsigned integer."""
    if b == 0:
        raise ZeroDivisionError("attempt to divide by zero")
    return -(-a // b)


def ilog2(n: int) -> int:
    if n <= 0:
        raise ValueError("argument of integer logarithm must be positive")
    return n.bit_length() - 1


def unwrap(value, what: str = "`Option::unwrap()` on a `None` value"):
    """``option.unwrap()``: the value, or Rust's panic on ``None``."""
    if value is None:
        raise ValueError(f"called {what}")
    return value


def first(seq):
    """``seq.first()``: the first item or ``None``."""
    return seq[0] if len(seq) else None


def last(seq):
    """``seq.last()``: the last item or ``None``."""
    return seq[-1] if len(seq) else None


def get(seq, i: int):
    """``seq.get(i)``: the item or ``None``."""
    return seq[i] if 0 <= i < len(seq) else None


def panic(message: str = "explicit panic"):
    """``panic!`` / ``unreachable!`` / an assertion that failed: Rust's panic as an exception."""
    raise RuntimeError(message)


def unwrap_or(value, default):
    """``option.unwrap_or(default)``."""
    return default if value is None else value


def and_then(value, f):
    """``option.and_then(f)``."""
    return None if value is None else f(value)


def map_option(value, f):
    """``option.map(f)``."""
    return None if value is None else f(value)


def is_power_of_two(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


def ptr_add(ptr, count: int):
    """``(ptr as *mut D).add(count)``: the tensor's elements from ``count`` on, a view."""
    if ptr is None:
        raise ValueError("pointer arithmetic on a null pointer")
    offset_by = getattr(ptr, "offset_by", None)  # apply's stand-in for an output not yet allocated
    if offset_by is not None:
        return offset_by(count)
    return ptr.reshape(-1)[count:]
