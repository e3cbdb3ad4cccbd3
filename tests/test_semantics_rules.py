"""Table tests of rs2triton/semantics.py: every rule, with the cases where the obvious
Python differs from Rust. The expected values are Rust's, written out by hand (what
`rustc` prints for the same expression); tests/test_semantics.py runs the same rules
through generated kernels.

Mutation testing (benchmarks/mutate.py) plants bugs in semantics.py and rules.py; every
planted bug must make one of these tests, or another test of the suite, fail. Mutants
that cannot be told apart from the original (equivalent mutants) are listed at the end.
"""

import ast
import math
import random

import pytest
import torch

from rs2triton.rust import semantics as S
from rs2triton.transpiler.lowering import operators
from rs2triton.transpiler.lowering.values import BLOCKS, Kind, Ty, join_kind

# ------------------------------------------------------------------ division, remainder

# (a, b, a / b, a % b) in Rust. Python's `//`/`%` floor: they differ whenever the signs differ.
DIV_REM = [
    (7, 2, 3, 1), (-7, 2, -3, -1), (7, -2, -3, 1), (-7, -2, 3, -1),
    (6, 3, 2, 0), (-6, 3, -2, 0), (-1, 5, 0, -1), (1, -5, 0, 1), (0, -3, 0, 0),
    (2**62 + 1, 3, 1537228672809129301, 2), (-(2**62) - 1, 3, -1537228672809129301, -2),  # beyond f64
    (-(2**31), -1, 2**31, 0),
]


@pytest.mark.parametrize("a,b,q,r", DIV_REM)
def test_trunc_div_and_rem(a, b, q, r):
    assert (S.trunc_div(a, b), S.trunc_rem(a, b)) == (q, r)
    assert S.fold("/", a, b) == q and S.fold("%", a, b) == r


def test_python_floor_rules_differ_on_this_table():
    """The table really exercises the difference (guards the table itself)."""
    assert sum(a // b != q or a % b != r for a, b, q, r in DIV_REM) >= 5


@pytest.mark.parametrize("op", ["/", "%"])
def test_division_by_a_literal_zero_is_a_rust_error(op):
    with pytest.raises(S.ConstError, match="panic at runtime") as e:
        S.fold(op, 7, 0)
    assert ("divide by zero" if op == "/" else "remainder with a divisor of zero") in e.value.hint


@pytest.mark.parametrize("a,b,want", [(-7.5, 2.0, -1.5), (7.5, -2.0, 1.5), (-7.5, -2.0, -1.5), (7.5, 2.0, 1.5),
                                      (-7, 2.5, -2.0), (5.5, 2, 1.5)])
def test_float_remainder_is_fmod(a, b, want):
    assert S.fold("%", a, b) == want  # Python's % would give the divisor's sign


@pytest.mark.parametrize("op", ["+", "-", "*", "/"])
def test_other_float_arithmetic_is_left_to_python(op):
    assert S.fold(op, 1.5, 2.0) is None
    assert S.fold("%", 1.5, 0.0) is None  # NaN in Rust: not folded


# ----------------------------------------------------------------------- other folds

@pytest.mark.parametrize("op,a,b,want", [
    ("+", 2, 3, 5), ("-", 2, 3, -1), ("*", -4, 3, -12), ("&", 12, 10, 8), ("|", 12, 10, 14),
    ("^", 12, 10, 6), ("<<", 3, 4, 48), (">>", 48, 4, 3), (">>", -8, 1, -4), (">>", -1, 5, -1),
    (">>", -7, 1, -4),  # arithmetic shift of a signed value rounds toward -inf, as in Rust
])
def test_fold_integer_ops(op, a, b, want):
    assert S.fold(op, a, b) == want


def test_mixed_int_and_float_operands_are_float_arithmetic():
    assert S.fold("+", 1, 2.5) is None and S.fold("*", 2.5, 2) is None and S.fold("/", 1.0, 2) is None
    assert S.fold("%", 7, 2.5) == 2.0 and S.fold("%", -7.5, 2) == -1.5


def test_literal_check_defaults_to_a_plain_literal():
    S.check_int_literal(200, "u8")
    with pytest.raises(S.ConstError):
        S.check_int_literal(128, "i8")


def test_fold_leaves_what_it_cannot_do():
    assert S.fold("+", None, 2) is None and S.fold("+", 2, None) is None
    assert S.fold("<", 1, 2) is None  # comparisons are not arithmetic
    assert S.fold("<<", 1, 64) is None  # an unsuffixed literal: Rust infers its type
    assert S.fold("<<", 1, -1) is None


@pytest.mark.parametrize("op,a,b,elem,want", [
    ("<<", 1, 31, "i32", -(2**31)),  # bits reach the sign bit: a negative i32
    ("<<", 0x0F, 5, "u8", 0xE0),  # bits shifted out are lost
    ("<<", 1, 63, "i64", -(2**63)),
    ("<<", 1, 7, "u8", 128),
    ("<<", 3, 30, "u32", 0xC0000000),
    ("<<", 1, 31, None, 2**31),  # unsuffixed: not wrapped (Rust may infer i64)
    (">>", 0xF0, 4, "u8", 0x0F),
    (">>", -128, 7, "i8", -1),
    ("+", 127, 0, "i8", 127), ("-", -128, 0, "i8", -128), ("*", 255, 1, "u8", 255),
    ("+", 2**31, 2**31, None, 2**32),
])
def test_fold_with_a_known_type(op, a, b, elem, want):
    assert S.fold(op, a, b, elem) == want


@pytest.mark.parametrize("op,a,b,elem", [
    ("+", 2**31 - 1, 1, "i32"), ("-", -(2**31), 1, "i32"), ("*", 16, 16, "u8"), ("-", 0, 1, "u32"),
    ("+", 255, 1, "u8"), ("+", 127, 1, "i8"), ("-", -128, 1, "i8"),
    ("*", 2**32, 2**32, "u64"), ("+", 2**63 - 1, 1, "i64"),
])
def test_overflowing_typed_constant_arithmetic_is_a_rust_error(op, a, b, elem):
    with pytest.raises(S.ConstError, match="will overflow"):
        S.fold(op, a, b, elem)


@pytest.mark.parametrize("op,elem", [("/", "i32"), ("%", "i32"), ("/", "i8"), ("%", "i64")])
def test_min_by_minus_one_panics_as_rustc_says(op, elem):
    """`MIN / -1` and `MIN % -1` overflow: rustc's unconditional_panic ("will panic at runtime")."""
    lo = S.int_limits(elem)[0]
    with pytest.raises(S.ConstError, match="will panic at runtime"):
        S.fold(op, lo, -1, elem)
    assert S.fold(op, lo + 1, -1, elem) == (-(lo + 1) if op == "/" else 0)


@pytest.mark.parametrize("op,b,elem", [("<<", 32, "i32"), (">>", 8, "u8"), ("<<", 64, "u64"), ("<<", -1, "i32"),
                                       (">>", 16, "i16")])
def test_shift_by_the_width_or_more_is_a_rust_error(op, b, elem):
    with pytest.raises(S.ConstError, match="overflow") as e:
        S.fold(op, 1, b, elem)
    assert f"`{b}`" in e.value.hint and elem in e.value.hint


def test_shift_by_zero():
    assert S.fold("<<", 5, 0, "i32") == 5 and S.fold(">>", -5, 0, "i8") == -5 and S.fold("<<", 5, 0) == 5


def test_shift_just_below_the_width_is_fine():
    assert S.fold("<<", 1, 15, "i16") == -(2**15)
    assert S.fold(">>", 2**15, 15, "u16") == 1


# --------------------------------------------------------------------- integer types

@pytest.mark.parametrize("elem,lo,hi", [
    ("i8", -128, 127), ("u8", 0, 255), ("i16", -32768, 32767), ("u16", 0, 65535),
    ("i32", -(2**31), 2**31 - 1), ("u32", 0, 2**32 - 1), ("i64", -(2**63), 2**63 - 1),
    ("u64", 0, 2**64 - 1), ("isize", -(2**63), 2**63 - 1), ("usize", 0, 2**64 - 1),
])
def test_int_limits(elem, lo, hi):
    assert S.int_limits(elem) == (lo, hi)
    assert S.wrap_int(hi + 1, elem) == lo and S.wrap_int(lo - 1, elem) == hi
    assert S.wrap_int(lo, elem) == lo and S.wrap_int(hi, elem) == hi


def test_unknown_int_type_is_taken_as_i64():
    assert S.int_info("D") == (64, True)


@pytest.mark.parametrize("value,elem,want", [
    (300, "u8", 44), (-1, "u8", 255), (128, "i8", -128), (255, "i8", -1), (2**31, "i32", -(2**31)),
    (-1, "u32", 2**32 - 1), (2**64 - 1, "i64", -1), (-1, "usize", 2**64 - 1), (65536 + 5, "u16", 5),
    (-32769, "i16", 32767), (5, "i8", 5), (-5, "i64", -5),
])
def test_wrap_int(value, elem, want):
    assert S.wrap_int(value, elem) == want


@pytest.mark.parametrize("elem", ["i8", "u8", "i16", "u32", "i32", "u64"])
def test_wrap_terms_agree_with_wrap_int(elem):
    offset, modulus = S.wrap_terms(elem)
    for x in [-(2**70), -300, -129, -128, -1, 0, 1, 127, 128, 255, 256, 2**31, 2**63 + 5]:
        assert (x + offset) % modulus - offset == S.wrap_int(x, elem), x


@pytest.mark.parametrize("raw,want", [
    ("42", (42, None)), ("1_000", (1000, None)), ("0x1F", (31, None)), ("0o17", (15, None)),
    ("0b101", (5, None)), ("255u8", (255, "u8")), ("0xFFu8", (255, "u8")), ("7i64", (7, "i64")),
    ("3usize", (3, "usize")), ("2f32", (2, "f32")), ("1_000_i32", (1000, "i32")),
    ("0x1G", None), ("12ab", None), ("1u128", None),
])
def test_parse_int_literal(raw, want):
    assert S.parse_int_literal(raw) == want


@pytest.mark.parametrize("value,elem,negated", [
    (255, "u8", False), (127, "i8", False), (128, "i8", True), (2**31, "i32", True), (0, "u32", False),
    (2**64 - 1, "u64", False), (5_000_000_000, None, False), (5, "f32", False),
])
def test_literal_in_range(value, elem, negated):
    S.check_int_literal(value, elem, negated)


@pytest.mark.parametrize("value,elem,negated", [
    (256, "u8", False), (128, "i8", False), (129, "i8", True), (2**31, "i32", False), (1, "u32", True),
    (2**64, "u64", False), (2**15, "i16", False),
])
def test_literal_out_of_range_is_a_rust_error(value, elem, negated):
    with pytest.raises(S.ConstError, match=f"literal out of range for `{elem}`"):
        S.check_int_literal(value, elem, negated)


@pytest.mark.parametrize("value,elem,want", [(5, "u32", 2**32 - 6), (0, "u8", 255), (5, "i32", -6), (-1, "i8", 0),
                                             (0x0F, "u8", 0xF0)])
def test_bitwise_not(value, elem, want):
    assert S.bitwise_not(value, elem) == want


# ----------------------------------------------------------------------------- casts

def _rust_float_to_int(x, elem):
    lo, hi = S.int_limits(elem)
    return 0 if math.isnan(x) else hi if x >= hi else lo if x <= lo else math.trunc(x)


@pytest.mark.parametrize("value,elem,want", [
    (2.9, "i32", 2), (-2.9, "i32", -2), (-0.5, "u8", 0), (-1.5, "u8", 0), (300.7, "u8", 255),
    (300.7, "i8", 127), (-300.7, "i8", -128), (3e10, "i32", 2**31 - 1), (-3e10, "i32", -(2**31)),
    (math.nan, "i32", 0), (math.inf, "u16", 65535), (-math.inf, "i64", -(2**63)), (1e30, "u64", 2**64 - 1),
    (255.99, "u8", 255), (-128.99, "i8", -128), (2.0**63, "i64", 2**63 - 1),
])
def test_float_to_int_saturates_and_sends_nan_to_zero(value, elem, want):
    assert S.float_to_int(value, elem) == want
    assert S.cast_constant(value, elem) == want


@pytest.mark.parametrize("elem,dtype", [("f32", torch.float32), ("f16", torch.float16), ("bf16", torch.bfloat16)])
def test_round_float_matches_ieee_rounding(elem, dtype):
    rng = random.Random(7)
    lo = {"f32": -150, "f16": -26, "bf16": -135}[elem]
    values = [0.1, 1 / 3, 16777217.0, 65519.0, 65520.0, 1e40, 3.4028235e38, 3.4028236e38, 2.0**-149, 2.0**-150,
              1.00390625, 1.01171875, 1e-8, 5.960464477539063e-08, 2.0**-25, 70000.0]
    values += [rng.uniform(-1, 1) * 2.0 ** rng.randint(lo, 130) for _ in range(3000)]
    for v in values + [-v for v in values]:
        want = torch.tensor(v, dtype=torch.float64).to(dtype).item()
        got = S.round_float(v, elem)
        assert got == want or (math.isnan(got) and math.isnan(want)), (v, got, want)
        assert math.copysign(1, got) == math.copysign(1, want)


@pytest.mark.parametrize("value", [0.0, -0.0, math.inf, -math.inf, 1e300])
def test_round_float_edge_values(value):
    assert S.round_float(value, "f64") == value
    if math.isinf(value) or value == 0:
        assert S.round_float(value, "f32") == value
    assert math.isnan(S.round_float(math.nan, "f16"))
    assert S.round_float(1.5, "f8e4m3") == 1.5  # formats without IEEE rules: left alone


@pytest.mark.parametrize("value,target,want", [
    (16777217, "f32", 16777216.0), (3, "f64", 3.0), (2**53 + 1, "f64", 2.0**53), (0.1, "f64", 0.1),
    (0.1, "f32", 0.10000000149011612), (1e40, "f32", math.inf), (-1e40, "f16", -math.inf),
    (True, "i32", 1), (False, "u8", 0), (True, "f32", 1.0), (3, "bool", True), (300, "u8", 44),
    (-1, "u32", 2**32 - 1), (3.99, "i32", 3), (-1.5, "u8", 0), (1e10, "i32", 2**31 - 1),
])
def test_cast_constant(value, target, want):
    got = S.cast_constant(value, target)
    assert got == want and type(got) is type(want)


@pytest.mark.parametrize("src,dst,non_negative,keeps", [
    ("i32", "i64", False, True), ("i64", "i32", False, False), ("i32", "i32", False, True),
    ("u8", "u32", False, True), ("u32", "u8", True, False), ("u8", "i16", False, True), ("u8", "i8", False, False),
    ("u32", "i32", True, False), ("i32", "u32", False, False), ("i32", "u32", True, True),
    ("i32", "u16", True, False), ("i16", "u64", True, True), ("i64", "usize", True, True),
    ("u32", "i64", False, True), ("f32", "i32", True, False), ("i32", "f32", True, False),
    ("i8", "u8", True, True), ("i16", "u8", True, False),
])
def test_int_cast_keeps_value(src, dst, non_negative, keeps):
    assert S.int_cast_keeps_value(src, dst, non_negative) is keeps


# ----------------------------------------------------- compile-time expressions, division

def _e(src):
    return ast.parse(src, mode="eval").body


@pytest.mark.parametrize("src,neg", [
    ("C", False), ("C * 2", False), ("C // 2", False), ("3", False), ("C + 4", False),
    ("C - 13", True), ("-C", True), ("-3", True), ("C + -1", True), ("(C - 1) * 2", True), ("-2.5", True),
    ("2.5", False), ("0", False), ("0.0", False),
])
def test_may_be_negative(src, neg):
    assert operators.may_be_negative(_e(src)) is neg


def test_a_negative_constant_node_may_be_negative():
    assert operators.may_be_negative(ast.Constant(-3)) and operators.may_be_negative(ast.Constant(-0.5))
    assert not operators.may_be_negative(ast.Constant(0))


@pytest.mark.parametrize("lf,rf,lc,rc,integer", [
    (False, False, False, False, True), (True, False, False, False, False), (False, True, False, False, False),
    (True, True, True, True, False), (False, None, False, True, True), (None, False, True, False, True),
    (False, None, False, False, False), (None, False, False, False, False), (None, None, True, True, False),
    (None, True, True, False, False), (False, False, True, True, True),
])
def test_int_division(lf, rf, lc, rc, integer):
    """`/` is integer division only when both sides are known ints, or one is and the other is a
    compile-time value of a `Num` dtype (which takes the int's type)."""
    assert S.int_division(lf, rf, lc, rc) is integer


# ------------------------------------------------------------------ booleans, result types

@pytest.mark.parametrize("ty,logical", [
    (Ty(Kind.CONST, "bool"), True), (Ty(Kind.SCALAR, "bool"), False), (Ty(Kind.TENSOR, "bool"), False),
    (Ty(Kind.CONST, "i32"), False), (Ty(Kind.CONST, None), False),
])
def test_not_is_logical_only_on_constant_bools(ty, logical):
    assert operators.not_is_logical(ty) is logical


@pytest.mark.parametrize("kind,bitwise", [("tensor", True), ("ptrs", True), ("scalar", False), ("const", False),
                                          ("unknown", False)])
def test_bool_ops_are_bitwise_on_blocks(kind, bitwise):
    assert (Kind(kind) in BLOCKS) is bitwise


@pytest.mark.parametrize("kinds,want", [
    (("const", "const"), "const"), (("const", "scalar"), "scalar"), (("scalar", "tensor"), "tensor"),
    (("ptr", "scalar"), "ptrs"), (("ptr", "tensor"), "tensor"), (("ptrs", "const"), "ptrs"),
    (("index", "const"), "scalar"), (("const", "unknown"), "unknown"), (("tuple",), "unknown"),
    (("ptr",), "ptrs"), (("const",), "const"), (("tensor", "ptrs"), "ptrs"),
])
def test_join_kind(kinds, want):
    assert join_kind(*(Ty(Kind(k), "i32") for k in kinds)) is Kind(want)


def test_compile_time_kinds_join_as_constants():
    assert join_kind(Ty(Kind.STR), Ty(Kind.CONST, "i32")) is Kind.CONST
    assert join_kind(Ty(Kind.LIST), Ty(Kind.TENSOR, "i32")) is Kind.TENSOR


def test_rank_orders_types_by_promotion():
    order = ["bool", "i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "isize", "usize",
             "f16", "bf16", "f32", "f64"]
    assert [S.rank(e) for e in order] == list(range(len(order)))
    assert S.rank("D") == -1 and S.rank(None) == -1


def _operand(ty, weak=False):
    is_float = {"f32": True, "f16": True, "i32": False, "i64": False, "u8": False}.get(ty.elem)
    return S.Operand(ty.elem, is_float, ty.runtime, weak)


@pytest.mark.parametrize("a,b,op,want", [
    (Ty(Kind.TENSOR, "f16"), Ty(Kind.CONST, "f32"), "*", "f16"),  # a weak literal takes the tensor's type
    (Ty(Kind.CONST, "f32"), Ty(Kind.TENSOR, "f16"), "*", "f16"),
    (Ty(Kind.TENSOR, "i32"), Ty(Kind.CONST, "f32"), "*", "f32"),  # but int * float literal is float
    (Ty(Kind.CONST, "f32"), Ty(Kind.TENSOR, "i32"), "+", "f32"),
    (Ty(Kind.SCALAR, "i64"), Ty(Kind.CONST, "i32"), "+", "i64"),
    (Ty(Kind.CONST, "i32"), Ty(Kind.SCALAR, "u8"), "+", "u8"),
    (Ty(Kind.SCALAR, "i32"), Ty(Kind.SCALAR, "i64"), "+", "i64"),  # two runtime values: the higher rank
    (Ty(Kind.SCALAR, "i64"), Ty(Kind.SCALAR, "i32"), "+", "i64"),
    (Ty(Kind.SCALAR, "f16"), Ty(Kind.SCALAR, "f32"), "+", "f32"),
    (Ty(Kind.SCALAR, "f32"), Ty(Kind.SCALAR, "f32"), "+", "f32"),
    (Ty(Kind.SCALAR, None), Ty(Kind.SCALAR, "f32"), "+", "f32"),
    (Ty(Kind.SCALAR, "i32"), Ty(Kind.SCALAR, None), "+", "i32"),
    (Ty(Kind.SCALAR, None), Ty(Kind.SCALAR, "D"), "+", "D"),  # a dtype parameter is better than nothing
    (Ty(Kind.SCALAR, "D"), Ty(Kind.SCALAR, None), "+", "D"),
    (Ty(Kind.SCALAR, "D"), Ty(Kind.SCALAR, "E"), "+", "D"),  # two dtype parameters: the left one (a tie)
    (Ty(Kind.CONST, "u8"), Ty(Kind.CONST, "i64"), "<<", "u8"),  # a shift has its left operand's type
    (Ty(Kind.TENSOR, "i32"), Ty(Kind.SCALAR, "i64"), ">>", "i32"),
    (Ty(Kind.CONST, "i32"), Ty(Kind.TENSOR, "i64"), "<<", "i32"),
    (Ty(Kind.CONST, "i32"), Ty(Kind.CONST, "u32"), "+", "u32"),
])
def test_result_elem(a, b, op, want):
    assert S.result_elem(_operand(a), _operand(b), op) == want


@pytest.mark.parametrize("a,b,a_weak,b_weak,want", [
    (Ty(Kind.CONST, "u8"), Ty(Kind.CONST, "i32"), False, True, "u8"),  # `255u8 + 1`: the 1 is a u8
    (Ty(Kind.CONST, "i32"), Ty(Kind.CONST, "u8"), True, False, "u8"),
    (Ty(Kind.CONST, "i64"), Ty(Kind.CONST, "i32"), True, False, "i32"),
    (Ty(Kind.CONST, "i32"), Ty(Kind.CONST, "u64"), True, True, "u64"),  # both unsuffixed: by rank
])
def test_result_elem_of_an_unsuffixed_literal_is_the_other_operands(a, b, a_weak, b_weak, want):
    assert S.result_elem(_operand(a, a_weak), _operand(b, b_weak), "+") == want


# ------------------------------------------------- what rustc rejects: E0012 at the Rust line

HEADER = """use teeny_triton::triton::*;

#[kernel]
pub fn k<T: Triton, const C: i32>(out: T::Pointer<i64>, a: i32) {
"""


@pytest.mark.parametrize("line,message,at", [
    ("let x = 300u8;", "literal out of range for `u8`", "300u8"),
    ("let x = -129i8;", "literal out of range for `i8`", "129i8"),
    ("let x = 128i8 + 0;", "literal out of range for `i8`", "128i8"),
    ("let x = i32::MAX + 1i32;", "will overflow", "i32::MAX"),
    ("let x = 255u8 + 1;", "will overflow", "255u8"),
    ("let x = 1u8 << 8;", "will overflow", "1u8"),
    ("let x = 7 / 0;", "panic at runtime", "7 / 0"),
    # rustc's lints see the type whatever gives it: an annotation, a path, the divisor alone
    ("let x = a % 0;", "panic at runtime", "a % 0"),  # a runtime dividend: still unconditional_panic
    ("let x: i32 = 2147483647 + 1;", "will overflow", "2147483647 + 1"),
    ("let x: u32 = 0 - 1;", "will overflow", "0 - 1"),
    ("let x: i32 = (1 << 40) + 0;", "will overflow", "1 << 40"),
    ("let x: u8 = 256;", "literal out of range for `u8`", "256"),
    ("let x: i8 = -(129);", "will overflow", "-(129)"),
    ("let x = -i32::MIN;", "will overflow", "-i32::MIN"),
    ("let x = i32::MIN % -1;", "panic at runtime", "i32::MIN % -1"),
    ("let x = i32::MIN / -1;", "panic at runtime", "i32::MIN / -1"),
    ("let x = 1e39f32 as i64;", "literal out of range for `f32`", "1e39f32"),
    ("let x: f32 = 1e39;", "literal out of range for `f32`", "1e39"),
    ("let x = 1e309;", "literal out of range for `f64`", "1e309"),
    ("let x = 400000000000000000000000000000000000000;", "integer literal is too large", "4000"),
    ("let x: i64 = 1 << 40;", None, None),  # fine: i64
    ("let x: i8 = -128;", None, None),
    ("let x: f32 = 3.4028235e38;", None, None),  # rounds to f32::MAX, not to infinity
    ("let x = 1e39;", None, None),  # an f64
    ("let x = a / 0 + 0;", "panic at runtime", "a / 0"),
    # what rustc's constant propagation knows: a `let` assigned once and never borrowed
    ("let z = 0; let x = a / z;", "panic at runtime", "a / z"),
    ("let mut z = 0; let x = a % z;", "panic at runtime", "a % z"),
    ("let z = 2; let x = C / (z - 2);", "panic at runtime", "C / (z - 2)"),
    ("let m = i32::MAX; let x = m + 1;", "will overflow", "m + 1"),
    ("let s = 40; let x = a << s;", "will overflow", "a << s"),
    ("let m = i32::MIN; let x = -m;", "will overflow", "-m"),
    ("let mut z = 0; z = 1; let x = a / z;", None, None),  # assigned again: rustc does not follow it
    ("let z = 0; let z = z + 1; let x = a / z;", None, None),
    ("let z = 2; let x = a / (z - 1);", None, None),
    ("let w = 65536; let x: i64 = w * w;", None, None),  # `w` is an i64: the annotation types it
    ("let w = -2147483648; let x: i64 = -w;", None, None),
])
def test_rust_constant_errors_are_located(line, message, at):
    from rs2triton import TranspileError, transpile_source

    src = HEADER + "    " + line + "\n    T::store(out, x as i64, None, &[], None, None);\n}\n"
    if message is None:
        transpile_source(src, "k.rs")
        return
    with pytest.raises(TranspileError) as info:
        transpile_source(src, "k.rs")
    d = info.value.diagnostics[0]
    assert (d.code, d.line) == ("E0012", 5) and message in d.message
    assert line[d.col - 5:].startswith(at)


def test_a_module_const_divisor_of_zero_is_rustc_s_unconditional_panic():
    """rustc's lints know a `const` item's value, as a literal's: `a / ZERO` is rejected where it is."""
    from rs2triton import TranspileError, transpile_source

    src = "const ZERO: i32 = 2 - 2;\n" + HEADER + "    let x = a / ZERO;\n    T::store(out, x as i64, None, &[], None, None);\n}\n"
    with pytest.raises(TranspileError) as info:
        transpile_source(src, "k.rs")
    d = info.value.diagnostics[0]
    assert (d.code, d.line, d.col) == ("E0012", 6, 13) and "panic at runtime" in d.message, d.render()
    assert "unconditional_panic" in (d.hint or "")
    transpile_source(src.replace("2 - 2", "2 - 1"), "k.rs")


def test_a_cast_literal_out_of_range_is_located_at_the_literal():
    from rs2triton import TranspileError, transpile_source

    with pytest.raises(TranspileError) as info:
        transpile_source(HEADER + "    let x = 256 as u8;\n    T::store(out, x as i64, None, &[], None, None);\n}\n", "k.rs")
    d = info.value.diagnostics[0]
    assert (d.code, d.line, d.col, d.length) == ("E0012", 5, 13, 3), d.render()


def test_a_shift_of_two_known_values_past_the_width_is_one_error():
    from rs2triton import TranspileError, transpile_source

    body = "    let m: i32 = 1;\n    let s = 40;\n    let x = m << s;\n    T::store(out, x as i64, None, &[], None, None);\n}\n"
    with pytest.raises(TranspileError) as info:
        transpile_source(HEADER + body, "k.rs")
    assert [(d.code, d.line, d.col) for d in info.value.diagnostics] == [("E0012", 7, 13)], info.value


def test_a_value_that_overflowed_is_not_known_after_it():
    """rustc reports `-m` of `let m = i32::MIN;` and nothing of `n + 1` after it (`let n = -m;`):
    once a check of a known value fails, the result is no longer known."""
    from rs2triton import TranspileError, transpile_source

    body = "    let m = i32::MIN;\n    let n = -m;\n    let x = n + 1;\n    T::store(out, x as i64, None, &[], None, None);\n}\n"
    with pytest.raises(TranspileError) as info:
        transpile_source(HEADER + body, "k.rs")
    assert [(d.code, d.line, d.col) for d in info.value.diagnostics] == [("E0012", 6, 13)], info.value


def test_a_lint_is_reported_only_when_nothing_else_is_wrong():
    """rustc runs its lints once types and borrows check: a kernel's `a / 0` is its error only in a
    file where no other kernel assigns an immutable binding (E0384, reported instead)."""
    from rs2triton import TranspileError, transpile_source

    lint = HEADER + "    let x = a / 0;\n    T::store(out, x as i64, None, &[], None, None);\n}\n"
    other = HEADER.replace("pub fn k<", "pub fn k2<") + "    let y = a;\n    y = 1;\n" \
        "    T::store(out, y as i64, None, &[], None, None);\n}\n"
    with pytest.raises(TranspileError) as info:
        transpile_source(lint, "k.rs")
    assert [d.code for d in info.value.diagnostics] == ["E0012"]
    with pytest.raises(TranspileError) as info:
        transpile_source(lint + "\n" + other, "k.rs")
    assert [(d.code, d.line) for d in info.value.diagnostics] == [("E0015", 14)], info.value


def test_valid_edge_literals_are_accepted():
    from rs2triton import transpile_source

    body = "let x = -128i8 as i64 + 255u8 as i64 + (-2147483648i32) as i64 + 0xFFFF_FFFFu32 as i64;"
    py = transpile_source(HEADER + "    " + body + "\n    T::store(out, x, None, &[], None, None);\n}\n",
                          "k.rs").text
    assert "x: tl.constexpr = 2147483774\n" in py  # -128 + 255 - 2**31 + 2**32 - 1


# Mutants of benchmarks/mutate.py that no test kills because no input can tell them from
# the original, keyed as the script prints them (file:line:col change), with the reason.
EXPLAINED_MUTANTS: dict[str, str] = {
    # operators.py: its `if TYPE_CHECKING:` import is for mypy alone
    "operators.py:19:0 negate condition": "imports the Lowerer for type annotations only (`from __future__ import annotations`)",
    # _propagated: the type of two known operands where result_elem gives none: only an untyped
    # `let` (a weak Known, elem None) makes it give none, and then the other operand is the only
    # one with an integer elem whether weak operands are skipped (`and`) or not (`or`)
    "operators.py:121:56 And->Or": "result_elem gives no type only next to an untyped let, which has no int elem to pick",
    # rustc._untracked: a method's receiver is found at the call (`z.clone()`); its `field_expression`
    # is visited too, and the mutants that check it there instead find the same receiver
    "rustc.py:401:8 negate condition": "the call's field_expression child is visited on its own and names the same receiver",
    "rustc.py:401:13 cmp0 Eq->NotEq": "the call's field_expression child is visited on its own and names the same receiver",
    # rustc.lints_on.__exit__: the blocks it guards raise ConstError or nothing (a check, a fold)
    "rustc.py:361:12 return None": "None is as false as False to the `with` statement: the exception is not suppressed",
    "rustc.py:361:19 False->True": "the blocks it guards raise nothing but ConstError: there is no other exception to keep",
    # cast_value: `lit >= 0` before check_int_literal of a cast's literal operand
    "operators.py:192:97 cmp0 GtE->Gt": "only changes lit == 0, which every integer type holds (check_int_literal passes)",
    "operators.py:192:104 0->1": "only changes lit == 0 (`lit >= 1`), which every integer type holds",
    # host/builder.py: fits_in's guard for a non-integer type, which its two callers (HostBuilder.cast)
    # never pass: both call it only with an integer source and an integer target
    "builder.py:49:7 Or->And": "no caller passes a type that is not an integer (HostBuilder.cast tests `src in INT_TYPES`)",
    "builder.py:50:8 return None": "None is as false as False to every caller (`if fits_in(...)`), which never gets here",
    # trunc_div: `abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)`
    "semantics.py:86:37 cmp0 Lt->LtE": "a == 0 now takes the other sign, but the quotient is 0 either way",
    "semantics.py:86:41 0->1": "only changes a == 0 (a < 1), whose quotient is 0 either way",
    "semantics.py:86:48 cmp0 Lt->LtE": "only changes b == 0, which never gets here (division by zero is an error)",
    "semantics.py:86:52 0->1": "only changes b == 0 (b < 1), which never gets here",
    # float_to_int: `return hi if value > 0 else lo` runs only for an infinite value
    "semantics.py:170:21 cmp0 Gt->GtE": "value is +-inf here, never 0",
    "semantics.py:170:29 0->1": "value is +-inf here: `> 1` is `> 0`",
    # rule_cast: `if x.ty.wide and (kws or dst not in ("f32", "f64")): x = lw.narrow(x, arg_nodes[0])`
    "rules.py:150:7 And->Or": "narrow() returns a value that is not held in f32 unchanged",
    "rules.py:151:35 0->1": "the node only locates an unresolvable dtype, which a value held in f32 never has "
                            "(its dtype was resolved when it was promoted); cast always has its three arguments",
    # rule_advance: `zip(bp.offsets, deltas, strict=True)` right after `len(deltas) != len(bp.offsets)` raised
    "rules.py:232:56 True->False": "the lengths were checked equal on the line before",
    # rule_cat: `assert isinstance(a, Val) and isinstance(b, Val)` holds for every input (lower_args)
    "rules.py:339:11 And->Or": "a weaker assert of something that always holds",
}
