"""Rust's scalar types: one record each, and every other view of them derived from it.

A :class:`Scalar` holds what rs2triton needs to know about one Rust scalar type: its bits,
signedness and kind, its range, and how Triton, torch and Triton's signatures spell it.
Lowering (``tl.int32`` in generated code), the launcher (ranges, torch dtypes), the AOT
compiler (signature strings) and the command line (dtype names) all read these records
and nothing else; the tables below the records are views of them, made once at import.

The dtype-parameter bounds of teenygrad's kernels (``D: Float`` ...) are here too: each
says whether its types are floats and which types a launcher binds it to.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Class(enum.Enum):
    """What a scalar type is, for arithmetic."""

    BOOL = "bool"
    INT = "int"
    FLOAT = "float"


@dataclass(frozen=True, slots=True)
class Scalar:
    """One Rust scalar type (and the two fp8 formats teenygrad's DSL names like types).

    ``triton``: the ``triton.language`` dtype generated code names; ``torch``: the
    ``torch`` dtype attribute a tensor of this element type has (None: no tensor holds
    it); ``signature``: Triton's signature spelling (``"fp32"``); ``rank``: the promotion
    order of :func:`rs2triton.rust.semantics.result_elem` (None: never promoted to);
    floats: ``significand`` bits (with the implicit one), the largest and smallest normal
    exponent, and ``max_finite``.
    """

    name: str
    cls: Class
    bits: int
    signed: bool
    triton: str
    torch: str | None
    signature: str
    rank: int | None
    significand: int = 0
    max_exponent: int = 0
    min_exponent: int = 0
    max_finite: float = 0.0

    @property
    def is_int(self) -> bool:
        return self.cls is Class.INT

    @property
    def is_float(self) -> bool:
        return self.cls is Class.FLOAT

    @property
    def min(self) -> int:
        """``T::MIN`` of an integer type."""
        return -(1 << (self.bits - 1)) if self.signed else 0

    @property
    def max(self) -> int:
        """``T::MAX`` of an integer type."""
        return (1 << (self.bits - 1)) - 1 if self.signed else (1 << self.bits) - 1

    @property
    def epsilon(self) -> float:
        """``T::EPSILON`` of a float type: the gap between 1 and the next value."""
        return 2.0 ** (1 - self.significand)

    @property
    def min_positive(self) -> float:
        """``T::MIN_POSITIVE`` of a float type: the smallest positive normal value."""
        return 2.0 ** self.min_exponent


def _int(name: str, bits: int, signed: bool, rank: int) -> Scalar:
    spelled = f"{'' if signed else 'u'}int{bits}"
    return Scalar(name, Class.INT, bits, signed, f"tl.{spelled}", spelled, f"{name[0]}{bits}", rank)


def _ieee(name: str, bits: int, significand: int, max_exponent: int, triton: str, torch: str | None,
          signature: str, rank: int | None) -> Scalar:
    """An IEEE binary float format: its smallest normal exponent and largest finite value
    follow from the significand and the largest exponent."""
    largest = (2.0 - 2.0 ** (1 - significand)) * 2.0 ** max_exponent
    return Scalar(name, Class.FLOAT, bits, True, triton, torch, signature, rank, significand, max_exponent,
                  1 - max_exponent, largest)


SCALARS: dict[str, Scalar] = {s.name: s for s in (
    Scalar("bool", Class.BOOL, 1, False, "tl.int1", "bool", "i1", 0),
    _int("i8", 8, True, 1), _int("u8", 8, False, 2),
    _int("i16", 16, True, 3), _int("u16", 16, False, 4),
    _int("i32", 32, True, 5), _int("u32", 32, False, 6),
    _int("i64", 64, True, 7), _int("u64", 64, False, 8),
    # Pointer-sized integers: 64 bits on every target Triton compiles for. No tensor holds them.
    Scalar("isize", Class.INT, 64, True, "tl.int64", None, "i64", 9),
    Scalar("usize", Class.INT, 64, False, "tl.uint64", None, "u64", 10),
    _ieee("f16", 16, 11, 15, "tl.float16", "float16", "fp16", 11),
    _ieee("bf16", 16, 8, 127, "tl.bfloat16", "bfloat16", "bf16", 12),
    _ieee("f32", 32, 24, 127, "tl.float32", "float32", "fp32", 13),
    _ieee("f64", 64, 53, 1023, "tl.float64", "float64", "fp64", 14),
    # float8e4nv (OCP e4m3fn) is not IEEE: no infinities, so its top exponent holds finite
    # values; bias 7 (normal exponents -6..8), and all-ones is NaN, so 1.75 * 2**8 is the largest.
    Scalar("f8e4m3", Class.FLOAT, 8, True, "tl.float8e4nv", "float8_e4m3fn", "fp8e4nv", None, 4, 8, -6, 448.0),
    _ieee("f8e5m2", 8, 3, 15, "tl.float8e5", "float8_e5m2", "fp8e5", None),
)}


# ---------------------------------------------------------------- derived views

TRITON_DTYPES: dict[str, str] = {n: s.triton for n, s in SCALARS.items()}
TORCH_DTYPES: dict[str, str] = {n: s.torch for n, s in SCALARS.items() if s.torch is not None}
SIGNATURE_TYPES: dict[str, str] = {n: s.signature for n, s in SCALARS.items()}
INT_TYPES = frozenset(n for n, s in SCALARS.items() if s.is_int)
FLOAT_TYPES = frozenset(n for n, s in SCALARS.items() if s.is_float)
INT_BITS: dict[str, tuple[int, bool]] = {n: (s.bits, s.signed) for n, s in SCALARS.items() if s.is_int}
# The Rust float types, the ones with associated constants (`f32::MAX`).
RUST_FLOATS = ("f32", "f64", "f16", "bf16")


def float_limit(type_name: str, what: str) -> float | None:
    """``f32::MAX``, ``f32::MIN``, ``f32::EPSILON``, ``f32::MIN_POSITIVE`` (None: not such a constant)."""
    s = SCALARS.get(type_name)
    if s is None or type_name not in RUST_FLOATS:
        return None
    values = {"MAX": s.max_finite, "MIN": -s.max_finite, "EPSILON": s.epsilon, "MIN_POSITIVE": s.min_positive}
    return values.get(what)


# Associated constants every float type has (`f32::INFINITY`, `f64::consts::PI`).
FLOAT_CONSTANTS: dict[str, float] = {
    "INFINITY": float("inf"),
    "NEG_INFINITY": float("-inf"),
    "NAN": float("nan"),
    "consts::PI": 3.141592653589793,
    "consts::E": 2.718281828459045,
    "consts::LN_2": 0.6931471805599453,
    "consts::LN_10": 2.302585092994046,
    "consts::LOG2_E": 1.4426950408889634,
    "consts::SQRT_2": 1.4142135623730951,
    "consts::FRAC_1_SQRT_2": 0.7071067811865476,
    "consts::FRAC_PI_2": 1.5707963267948966,
    "consts::TAU": 6.283185307179586,
    "consts::FRAC_PI_3": 1.0471975511965979,
    "consts::FRAC_PI_4": 0.7853981633974483,
    "consts::FRAC_PI_6": 0.5235987755982989,
    "consts::FRAC_PI_8": 0.39269908169872414,
    "consts::FRAC_1_PI": 0.3183098861837907,
    "consts::FRAC_2_PI": 0.6366197723675814,
    "consts::FRAC_2_SQRT_PI": 1.1283791670955126,
    "consts::LOG2_10": 3.321928094887362,
    "consts::LOG10_E": 0.4342944819032518,
    "consts::LOG10_2": 0.3010299956639812,
}

# The integer associated constants of the float types (`f32::MANTISSA_DIGITS`): (u32 ones, i32 ones).
FLOAT_INT_CONSTANTS: dict[str, dict[str, tuple[str, int]]] = {
    "f32": {"RADIX": ("u32", 2), "MANTISSA_DIGITS": ("u32", 24), "DIGITS": ("u32", 6), "MIN_EXP": ("i32", -125),
            "MAX_EXP": ("i32", 128), "MIN_10_EXP": ("i32", -37), "MAX_10_EXP": ("i32", 38)},
    "f64": {"RADIX": ("u32", 2), "MANTISSA_DIGITS": ("u32", 53), "DIGITS": ("u32", 15), "MIN_EXP": ("i32", -1021),
            "MAX_EXP": ("i32", 1024), "MIN_10_EXP": ("i32", -307), "MAX_10_EXP": ("i32", 308)},
}


# ------------------------------------------------------------ dtype-parameter bounds


@dataclass(frozen=True, slots=True)
class Bound:
    """A bound on a kernel's dtype parameter (``D: Float``): whether its types are floats
    (None: either) and the element types a launcher may bind it to."""

    name: str
    is_float: bool | None
    accepts: tuple[str, ...]


_FLOATS = ("f32", "f64", "f16", "bf16")
_INTS = ("i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64")
BOUNDS: dict[str, Bound] = {b.name: b for b in (
    Bound("Float", True, _FLOATS),
    Bound("Int", False, _INTS),
    Bound("Num", None, _FLOATS + _INTS),
    Bound("Dtype", None, (*_FLOATS, *_INTS, "bool")),
)}
ANY = BOUNDS["Dtype"]


def bound(name: str | None) -> Bound:
    """The bound of that name; an unknown one (a user trait) admits every type, as ``Dtype``."""
    return BOUNDS.get(name or "", ANY)
