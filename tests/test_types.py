"""The one model of Rust's scalar types (rs2triton/rust/types.py), checked against torch's and
Triton's own tables: every other view of a type is derived from its record."""

import pytest
import torch

from rs2triton.rust import semantics
from rs2triton.rust.types import (
    BOUNDS,
    FLOAT_TYPES,
    INT_TYPES,
    SCALARS,
    SIGNATURE_TYPES,
    TORCH_DTYPES,
    TRITON_DTYPES,
    bound,
    float_limit,
)

INTS = [s for s in SCALARS.values() if s.is_int]
FLOATS = [s for s in SCALARS.values() if s.is_float]


@pytest.mark.parametrize("s", [s for s in INTS if s.torch], ids=lambda s: s.name)
def test_integer_ranges_are_torchs(s):
    info = torch.iinfo(getattr(torch, s.torch))
    assert (s.min, s.max, s.bits, s.signed) == (info.min, info.max, info.bits, info.min < 0)
    assert semantics.int_limits(s.name) == (info.min, info.max)


@pytest.mark.parametrize("s", [s for s in FLOATS if s.torch], ids=lambda s: s.name)
def test_float_formats_are_torchs(s):
    info = torch.finfo(getattr(torch, s.torch))
    assert (s.max_finite, s.bits) == (info.max, info.bits)
    assert s.min_positive == info.tiny
    assert s.epsilon == info.eps


@pytest.mark.parametrize("name", ["f32", "f64", "f16", "bf16"])
def test_associated_constants_of_rust_floats(name):
    info = torch.finfo(getattr(torch, TORCH_DTYPES[name]))
    assert float_limit(name, "MAX") == info.max and float_limit(name, "MIN") == -info.max
    assert float_limit(name, "EPSILON") == info.eps and float_limit(name, "MIN_POSITIVE") == info.tiny
    assert float_limit(name, "MAXX") is None and float_limit("i32", "MAX") is None


def test_pointer_sized_integers_are_64_bits_with_rusts_signedness():
    usize, isize = SCALARS["usize"], SCALARS["isize"]
    assert (usize.bits, usize.signed, usize.triton, usize.signature) == (64, False, "tl.uint64", "u64")
    assert (isize.bits, isize.signed, isize.triton, isize.signature) == (64, True, "tl.int64", "i64")
    assert semantics.wrap_int(-1, "usize") == 2**64 - 1 and semantics.wrap_int(2**63, "isize") == -(2**63)


def test_triton_spellings_name_real_triton_dtypes():
    import triton.language as tl

    for name, spelled in TRITON_DTYPES.items():
        dtype = getattr(tl, spelled.removeprefix("tl."))
        s = SCALARS[name]
        assert dtype.primitive_bitwidth == s.bits, name
        assert dtype.is_floating() == s.is_float, name
        if s.is_int:
            assert dtype.is_int_signed() == s.signed, name


def test_views_are_the_records():
    assert set(TRITON_DTYPES) == set(SCALARS) == set(SIGNATURE_TYPES)
    assert INT_TYPES | FLOAT_TYPES | {"bool"} == set(SCALARS)
    assert set(TORCH_DTYPES) == set(SCALARS) - {"isize", "usize"}  # no tensor holds a pointer-sized int
    ranked = sorted((s for s in SCALARS.values() if s.rank is not None), key=lambda s: s.rank)
    assert [semantics.rank(s.name) for s in ranked] == list(range(len(ranked)))
    assert semantics.rank("f8e4m3") == semantics.rank("D") == -1


def test_bounds():
    assert bound("Float").accepts == ("f32", "f64", "f16", "bf16") and bound("Float").is_float is True
    assert bound("Int").is_float is False and bound("Num").is_float is None
    assert set(bound("Num").accepts) == set(bound("Float").accepts) | set(bound("Int").accepts)
    assert bound("MyTrait") is BOUNDS["Dtype"] and "bool" in bound(None).accepts
