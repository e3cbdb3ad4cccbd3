"""Generates the host-code oracle: Rust functions, the arguments to call them with, and rustc's answers.

    python tests/oracle/gen_host_cases.py            # regenerate the probe and the fixture (runs rustc)
    python tests/oracle/gen_host_cases.py --check    # regenerate in memory; fail if the files differ

Writes
- ``tests/kernels/host_oracle.rs``: a teenygrad-style file (one trivial kernel, a wrapper struct
  ``Probe`` with its ``impl RuntimeOp``) whose ``impl Probe`` holds every case as an associated
  function without ``self`` (a classmethod once translated);
- ``tests/data/host_oracle.json``: each case's parameters, return type and line range in that
  file, every call's arguments and rustc's answer (a value or a panic message), and the
  programs rustc rejects, with rustc's error code (or lint) and primary span.

The answers come from running the same functions, verbatim, compiled by rustc in the release
profile: ``rustc -O -C overflow-checks=off -C debug-assertions=off --edition 2021`` (overflow
wraps, shift amounts are masked; ``/`` and ``%`` by zero and ``MIN / -1`` still panic).
Everything is deterministic (a fixed seed, no clock, no hash order): two runs give the same
bytes. Standard library only.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import tempfile
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROBE_PATH = ROOT / "tests" / "kernels" / "host_oracle.rs"
FIXTURE_PATH = ROOT / "tests" / "data" / "host_oracle.json"
PROBE_NAME = "host_oracle.rs"
SEED = 20260417
EDITION = "2021"
PROFILE = ["-O", "-C", "overflow-checks=off", "-C", "debug-assertions=off", "--edition", EDITION]

# ------------------------------------------------------------------ scalar types

INTS = {
    "i8": (8, True), "i16": (16, True), "i32": (32, True), "i64": (64, True), "isize": (64, True),
    "u8": (8, False), "u16": (16, False), "u32": (32, False), "u64": (64, False), "usize": (64, False),
}
INT_NAMES = list(INTS)
SIGNED = [t for t in INTS if INTS[t][1]]
UNSIGNED = [t for t in INTS if not INTS[t][1]]
FLOATS = ["f32", "f64"]
UNSIGNED_OF = {"i8": "u8", "i16": "u16", "i32": "u32", "i64": "u64", "isize": "usize"}


def bits_of(t: str) -> int:
    return INTS[t][0]


def int_range(t: str) -> tuple[int, int]:
    bits, signed = INTS[t]
    return (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)


def in_range(t: str, v: int) -> bool:
    lo, hi = int_range(t)
    return lo <= v <= hi


def f32_round(x: float) -> float:
    """The f32 nearest to a Python float (inf past f32's range, as Rust's `as f32`)."""
    if math.isnan(x) or math.isinf(x):
        return x
    try:
        return struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def f32_from_bits(b: int) -> float:
    return struct.unpack("<f", struct.pack("<I", b))[0]


def f32_bits(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


def f64_bits(x: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def dedupe(values: list) -> list:
    out, seen = [], set()
    for v in values:
        key = (type(v).__name__, f64_bits(v) if isinstance(v, float) else repr(v))
        if key not in seen:
            seen.add(key)
            out.append(v)
    return out


def int_edges(t: str) -> list[int]:
    lo, hi = int_range(t)
    bits = bits_of(t)
    vals = [0, 1, 2, 3, 7, 100, hi, hi - 1, lo, lo + 1, hi // 2, hi // 2 + 1]
    if INTS[t][1]:
        vals += [-1, -2, -7, -100, lo // 2, lo // 2 - 1]
    else:
        vals += [1 << (bits - 1), (1 << (bits - 1)) - 1, (1 << (bits - 1)) + 1]
    return dedupe([v for v in vals if lo <= v <= hi])


NAN, INF = math.nan, math.inf


def float_edges(t: str) -> list[float]:
    """Values where an answer is easy to get wrong: signed zeros, halves (rounding), the ends of
    the range, subnormals, the infinities, NaN, and values that round differently in f32."""
    if t == "f32":
        vals = [0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 1.5, 2.5, -2.5, 3.0, 0.1, -7.25, 1e30, -1e30, 1e-30,
                f32_from_bits(1), f32_from_bits(0x007FFFFF), f32_from_bits(0x00800000),
                f32_from_bits(0x7F7FFFFF), -f32_from_bits(0x7F7FFFFF), f32_from_bits(0x3EFFFFFF),
                16777216.0, 16777218.0, 8388609.0, INF, -INF, NAN]
    else:
        vals = [0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 1.5, 2.5, -2.5, 3.0, 0.1, -7.25, 1e300, -1e300, 1e-300,
                5e-324, 2.225073858507201e-308, 2.2250738585072014e-308, 1.7976931348623157e308,
                -1.7976931348623157e308, 0.49999999999999994, 9007199254740993.0, 4503599627370497.0,
                1e30, INF, -INF, NAN]
    return dedupe([f32_round(v) if t == "f32" else v for v in vals])


# ------------------------------------------------------------------ types, values, rendering

def parse_params(text: str) -> list[tuple[str, str]]:
    """`a: i32, v: &[usize]` -> [("a", "i32"), ("v", "&[usize]")] (no tuple parameters)."""
    if not text.strip():
        return []
    out, depth, cur = [], 0, ""
    for ch in text + ",":
        if ch in "[<(":
            depth += 1
        elif ch in "]>)":
            depth -= 1
        if ch == "," and depth == 0:
            name, ty = cur.split(":", 1)
            out.append((name.strip(), ty.strip()))
            cur = ""
        else:
            cur += ch
    return out


def elem_type(ty: str) -> str | None:
    if ty.startswith("&[") and ty.endswith("]"):
        return ty[2:-1]
    if ty.startswith("Vec<") and ty.endswith(">"):
        return ty[4:-1]
    return None


def norm(ty: str, v):
    """An argument as the Rust parameter holds it (f32s rounded to f32)."""
    inner = elem_type(ty)
    if inner is not None:
        return [norm(inner, x) for x in v]
    if ty == "f32":
        return f32_round(float(v))
    if ty == "f64":
        return float(v)
    if ty in INTS:
        assert isinstance(v, int) and not isinstance(v, bool) and in_range(ty, v), (ty, v)
    if ty == "bool":
        assert isinstance(v, bool)
    return v


def encode(ty: str, v):
    """An argument in the fixture's JSON: ints as numbers, floats as {"f32"|"f64": hex bits}."""
    inner = elem_type(ty)
    if inner is not None:
        return [encode(inner, x) for x in v]
    if ty == "f32":
        return {"f32": f"{f32_bits(v):08x}"}
    if ty == "f64":
        return {"f64": f"{f64_bits(v):016x}"}
    return v


def rust_value(ty: str, v) -> str:
    inner = elem_type(ty)
    if ty.startswith("&["):
        return f"(&[{', '.join(rust_value(inner, x) for x in v)}] as {ty})"
    if ty.startswith("Vec<"):
        return f"vec![{', '.join(rust_value(inner, x) for x in v)}]" if v else f"Vec::<{inner}>::new()"
    if ty == "f32":
        return f"f32::from_bits(0x{f32_bits(v):08x})"
    if ty == "f64":
        return f"f64::from_bits(0x{f64_bits(v):016x})"
    if ty == "bool":
        return "true" if v else "false"
    if ty in INTS:
        return f"{v}{ty}"
    if ty == "&str":
        return json.dumps(v)
    raise ValueError(ty)


# ------------------------------------------------------------------ cases

class Case:
    def __init__(self, name: str, group: str, params: str, ret: str, body: str, args: list, note: str = ""):
        self.name, self.group, self.ret, self.note = name, group, ret, note
        self.params = parse_params(params)
        self.params_text = params
        self.body = body.strip("\n")
        self.args = [[norm(ty, a) for (_, ty), a in zip(self.params, call, strict=True)] for call in args]
        assert self.args, name

    def lines(self) -> list[str]:
        sig = f"    pub fn {self.name}({self.params_text}) -> {self.ret} {{"
        body = self.body.splitlines()
        if len(body) == 1 and len(sig) + len(body[0].strip()) + 3 <= 118 and "//" not in body[0]:
            return [f"    // {self.note or self.group}", sig, "        " + body[0].strip(), "    }"]
        return [f"    // {self.note or self.group}", sig] + ["        " + b if b.strip() else "" for b in body] + ["    }"]


CASES: list[Case] = []
NAMES: set[str] = set()


def add(name: str, group: str, params: str, ret: str, body: str, args: list, note: str = "") -> None:
    name = re.sub(r"[^0-9A-Za-z_]", "_", name)
    assert name not in NAMES, name
    NAMES.add(name)
    CASES.append(Case(name, group, params, ret, body, args, note))


RNG = random.Random(SEED)


def rand_int(t: str) -> int:
    lo, hi = int_range(t)
    kind = RNG.randrange(3)
    if kind == 0:
        return RNG.randint(lo, hi)
    if kind == 1:
        return RNG.choice(int_edges(t))
    return max(lo, min(hi, RNG.randint(-300, 300)))


def int_pairs(t: str, n_random: int = 4, zero_rhs: bool = True) -> list[tuple[int, int]]:
    lo, hi = int_range(t)
    base = [(7, 2), (-7, 2), (7, -2), (-7, -2), (hi, 1), (lo, -1), (lo, 1), (hi, hi), (lo, lo), (hi - 1, 2),
            (hi, -1), (lo, 2), (1, hi), (3, 7), (0, 0), (5, 0)]
    if not zero_rhs:
        base = [p for p in base if p[1] != 0]
    pairs = [p for p in base if in_range(t, p[0]) and in_range(t, p[1])]
    for _ in range(n_random):
        pairs.append((rand_int(t), rand_int(t)))
    return dedupe(pairs)


def shift_amounts(t: str, rhs: str) -> list[int]:
    bits = bits_of(t)
    cands = [0, 1, 3, bits - 1, bits, bits + 1, 2 * bits - 1, 2 * bits + 3, 100, 255, -1, -bits, -(bits + 1)]
    return dedupe([c for c in cands if in_range(rhs, c)])


def shift_args(t: str, rhs: str) -> list[tuple[int, int]]:
    lo, hi = int_range(t)
    lhs = [v for v in (1, -1, 5, hi, lo, 0x5A, -100) if in_range(t, v)]
    out = []
    for i, s in enumerate(shift_amounts(t, rhs)):
        out.append((lhs[i % len(lhs)], s))
        out.append((lhs[(i + 3) % len(lhs)], s))
    return dedupe(out)


def float_pairs(t: str, n_random: int = 4) -> list[tuple[float, float]]:
    e = float_edges(t)
    big = 3.0e38 if t == "f32" else 1.7e308
    base = [(0.1, 0.2), (1.0, 3.0), (5.5, 2.0), (-5.5, 2.0), (5.5, -2.0), (0.0, 0.0), (-0.0, 0.0), (0.0, -0.0),
            (1.0, 0.0), (-1.0, 0.0), (1.0, -0.0), (big, big), (-big, big), (INF, -INF), (INF, INF), (NAN, 1.0),
            (1.0, NAN), (e[15] if t == "f32" else 5e-324, 0.5), (2.5, -0.0), (1e30, 1e-30), (16777216.0, 1.0),
            (1e-30, 1e10)]
    for _ in range(n_random):
        base.append((RNG.choice(e), RNG.choice(e)))
    return dedupe(base)


def float_unary_args(t: str) -> list[float]:
    return float_edges(t) + [RNG.uniform(-100, 100), RNG.uniform(0, 1e6)]


# ------------------------------------------------------------------ operators

BINOPS = [("add", "+"), ("sub", "-"), ("mul", "*"), ("div", "/"), ("rem", "%"), ("shl", "<<"), ("shr", ">>"),
          ("and", "&"), ("or", "|"), ("xor", "^")]
BITOP_TYPES = ["i8", "u16", "i64"]
CMP_TYPES = ["i8", "u16", "i32", "i64", "usize"]


def gen_operators() -> None:
    for t in INT_NAMES:
        for name, op in BINOPS:
            if name in ("and", "or", "xor") and t not in BITOP_TYPES:
                continue
            args = shift_args(t, t) if name in ("shl", "shr") else int_pairs(t)
            add(f"op_{t}_{name}", f"operator {op} on {t}", f"a: {t}, b: {t}", t, f"a {op} b", args)
        if t in CMP_TYPES:
            add(f"op_{t}_not", f"operator ! on {t}", f"a: {t}", t, "!a", [(v,) for v in int_edges(t)])
        if INTS[t][1]:
            add(f"op_{t}_neg", f"unary - on {t}", f"a: {t}", t, "-a", [(v,) for v in int_edges(t)])
        if t not in CMP_TYPES:
            continue
        add(f"op_{t}_cmp", f"comparisons on {t}", f"a: {t}, b: {t}", "(bool, bool, bool, bool, bool, bool)",
            "(a == b, a != b, a < b, a <= b, a > b, a >= b)", int_pairs(t, 2))
    # shifts whose amount has another type than the value (masked by the value's width)
    for t, rhs, op in [("u8", "u32", "<<"), ("i8", "u32", ">>"), ("i32", "u8", "<<"), ("i64", "i8", ">>"),
                       ("u64", "usize", "<<"), ("u16", "i64", ">>"), ("i32", "u64", ">>"), ("usize", "i32", "<<")]:
        nm = "shl" if op == "<<" else "shr"
        add(f"op_{t}_{nm}_{rhs}", f"{t} {op} {rhs}", f"a: {t}, b: {rhs}", t, f"a {op} b", shift_args(t, rhs))
    # compound assignment: three operators per type, in turn
    compound = [("add", "+="), ("sub", "-="), ("mul", "*="), ("div", "/="), ("rem", "%="), ("shl", "<<="),
                ("shr", ">>="), ("and", "&="), ("or", "|="), ("xor", "^=")]
    for i, t in enumerate(INT_NAMES):
        for j in range(2):
            name, op = compound[(2 * i + j) % len(compound)]
            args = shift_args(t, t) if name in ("shl", "shr") else int_pairs(t, 2)
            add(f"assign_{t}_{name}", f"compound {op} on {t}", f"a: {t}, b: {t}", t,
                f"let mut x = a;\nx {op} b;\nx", args)
    add("assign_u8_accumulate", "+= in a loop wraps (u8)", "n: u8", "u8",
        "let mut acc: u8 = 0;\nfor i in 0..n {\n    acc += i;\n}\nacc", [(0,), (1,), (22,), (23,), (100,), (255,)])
    add("assign_i32_chain", "several compound assignments (i32)", "a: i32, b: i32", "i32",
        "let mut x = a;\nx *= b;\nx -= a;\nx <<= b;\nx ^= -1;\nx", int_pairs("i32", 3))
    # && and || short-circuit: the right side is not evaluated (it would panic)
    add("logic_and_short_circuit", "&& skips its right side", "a: i32, b: i32", "bool", "a != 0 && b / a > 1",
        [(0, 5), (1, 5), (2, 3), (-1, -5), (0, 0), (-1, -2147483648)])
    add("logic_or_short_circuit", "|| skips its right side", "a: i32, b: i32", "bool", "a == 0 || b % a == 0",
        [(0, 5), (2, 4), (3, 4), (-1, -2147483648), (0, 0)])
    add("logic_bool_ops", "&& || ^ & | ! and comparisons on bool", "a: bool, b: bool",
        "(bool, bool, bool, bool, bool, bool, bool, bool)", "(a && b, a || b, a ^ b, a & b, a | b, !a, a < b, a == b)",
        [(False, False), (False, True), (True, False), (True, True)])
    add("logic_mixed", "! binds tighter than comparison", "a: i32, b: i32", "bool",
        "!(a < b) && (a == b || a > 0) || !true", [(1, 2), (2, 1), (3, 3), (-1, -1), (-2, -3)])
    for t in FLOATS:
        for name, op in BINOPS[:5]:
            add(f"op_{t}_{name}", f"operator {op} on {t}", f"a: {t}, b: {t}", t, f"a {op} b", float_pairs(t))
        add(f"op_{t}_neg", f"unary - on {t}", f"a: {t}", t, "-a", [(v,) for v in float_edges(t)])
        add(f"op_{t}_cmp", f"comparisons on {t} (NaN compares false)", f"a: {t}, b: {t}",
            "(bool, bool, bool, bool, bool, bool)", "(a == b, a != b, a < b, a <= b, a > b, a >= b)",
            float_pairs(t, 2))
        add(f"assign_{t}_chain", f"compound assignments on {t} (rounded at each step)", f"a: {t}, b: {t}", t,
            "let mut x = a;\nx += b;\nx *= a;\nx -= b;\nx /= 3.0;\nx %= 7.0;\nx", float_pairs(t, 2))
        add(f"op_{t}_expr", f"a * b + a / b in {t}, each step rounded", f"a: {t}, b: {t}", t,
            "a * b + a / b - 0.1", float_pairs(t, 2))


# ------------------------------------------------------------------ integer std methods

def pow_args(t: str) -> list[tuple[int, int]]:
    bases = [v for v in (0, 1, -1, 2, -2, 3, 10, -10, int_range(t)[1], int_range(t)[0], 7) if in_range(t, v)]
    exps = [0, 1, 2, 3, 5, 7, 8, 15, 16, 31, 32, 63, 64, 100]
    out = [(bases[i % len(bases)], exps[i % len(exps)]) for i in range(max(len(bases), len(exps)) + 4)]
    out += [(2, bits_of(t) - 1), (2, bits_of(t)), (-2, bits_of(t) - 1), (3, 1_000_003)]
    if t in ("i32", "u64"):  # an exponent that only a loop over its bits makes fast
        out.append((3, 4_000_000_000))
    return dedupe([p for p in out if in_range(t, p[0])])


def u32_amount_args(t: str) -> list[tuple[int, int]]:
    lo, hi = int_range(t)
    lhs = [v for v in (1, -1, 0x35, hi, lo, -100, 0x5A) if in_range(t, v)]
    bits = bits_of(t)
    amounts = [0, 1, 3, bits - 1, bits, bits + 1, 2 * bits + 1, 4_294_967_295]
    return dedupe([(lhs[i % len(lhs)], a) for i, a in enumerate(amounts)] +
                  [(lhs[(i + 2) % len(lhs)], a) for i, a in enumerate(amounts)])


def unary_args(t: str) -> list[tuple[int]]:
    return [(v,) for v in int_edges(t)] + [(rand_int(t),) for _ in range(3)]


# (method, which types, form, how many types): the types are taken in turn from those that apply
ALL10, FEW = 5, 2
INT_METHODS = [
    ("saturating_add", "all", "binary", FEW), ("saturating_sub", "all", "binary", ALL10),
    ("saturating_mul", "all", "binary", FEW), ("saturating_pow", "all", "pow", FEW),
    ("saturating_neg", "signed", "unary", 1), ("saturating_abs", "signed", "unary", 1),
    ("wrapping_add", "all", "binary", FEW), ("wrapping_sub", "all", "binary", FEW),
    ("wrapping_mul", "all", "binary", FEW), ("wrapping_neg", "all", "unary", FEW),
    ("wrapping_div", "all", "binary", FEW), ("wrapping_rem", "all", "binary", FEW),
    ("wrapping_shl", "all", "amount", FEW), ("wrapping_shr", "all", "amount", FEW),
    ("wrapping_pow", "all", "pow", FEW), ("wrapping_abs", "signed", "unary", 1),
    ("checked_add", "all", "binary_opt", ALL10), ("checked_sub", "all", "binary_opt", FEW),
    ("checked_mul", "all", "binary_opt", FEW), ("checked_div", "all", "binary_opt", FEW),
    ("checked_rem", "all", "binary_opt", FEW), ("checked_neg", "all", "unary_opt", FEW),
    ("checked_shl", "all", "amount_opt", FEW), ("checked_shr", "all", "amount_opt", FEW),
    ("checked_pow", "all", "pow_opt", FEW), ("checked_abs", "signed", "unary_opt", 1),
    ("overflowing_add", "all", "binary_flag", ALL10), ("overflowing_sub", "all", "binary_flag", FEW),
    ("overflowing_mul", "all", "binary_flag", FEW),
    ("count_ones", "all", "unary_u32", ALL10), ("count_zeros", "all", "unary_u32", FEW),
    ("leading_zeros", "all", "unary_u32", ALL10), ("trailing_zeros", "all", "unary_u32", FEW),
    ("leading_ones", "all", "unary_u32", 1), ("trailing_ones", "all", "unary_u32", 1),
    ("rotate_left", "all", "amount", FEW), ("rotate_right", "all", "amount", FEW),
    ("swap_bytes", "all", "unary", FEW), ("reverse_bits", "all", "unary", FEW),
    ("pow", "all", "pow", ALL10), ("abs", "signed", "unary", FEW), ("signum", "signed", "unary", FEW),
    ("rem_euclid", "all", "binary", FEW), ("div_euclid", "all", "binary", FEW),
    ("next_power_of_two", "unsigned", "unary", FEW), ("checked_next_power_of_two", "unsigned", "unary_opt", 1),
    ("is_power_of_two", "unsigned", "unary_bool", FEW), ("next_multiple_of", "unsigned", "binary", FEW),
    ("div_ceil", "unsigned", "binary", FEW), ("ilog2", "all", "unary_u32", FEW), ("ilog10", "all", "unary_u32", 1),
    ("checked_ilog2", "all", "unary_optu32", 1), ("ilog", "all", "binary_u32", 1), ("isqrt", "all", "unary", FEW),
    ("min", "all", "binary", FEW), ("max", "all", "binary", FEW), ("clamp", "all", "ternary", FEW),
    ("abs_diff", "all", "binary_unsigned", FEW), ("unsigned_abs", "signed", "unary_unsigned", FEW),
    ("is_positive", "signed", "unary_bool", 1), ("is_negative", "signed", "unary_bool", 1),
]


def clamp_args(t: str) -> list[tuple[int, int, int]]:
    lo, hi = int_range(t)
    cands = [(5, 1, 10), (0, 1, 10), (11, 1, 10), (-5, -3, 3), (lo, lo, hi), (hi, 0, 0), (3, 3, 3), (7, 10, 1),
             (hi, lo, hi - 1), (lo, lo + 1, 2), (0, 2, 1)]
    return [c for c in cands if all(in_range(t, v) for v in c)]


def gen_int_methods() -> None:
    turn = 0
    for method, kinds, form, count in INT_METHODS:
        pool = {"all": INT_NAMES, "signed": SIGNED, "unsigned": UNSIGNED}[kinds]
        if count >= len(pool):
            types = pool
        else:
            types = [pool[(turn + k * (len(pool) // count + 1)) % len(pool)] for k in range(count)]
            types = sorted(dedupe(types), key=pool.index)
            turn += 1
        for t in types:
            u = UNSIGNED_OF.get(t, t)
            group = f"{t}::{method}"
            if form == "binary":
                add(f"int_{t}_{method}", group, f"a: {t}, b: {t}", t, f"a.{method}(b)", int_pairs(t))
            elif form == "binary_opt":
                add(f"int_{t}_{method}", group, f"a: {t}, b: {t}", f"Option<{t}>", f"a.{method}(b)", int_pairs(t))
            elif form == "binary_flag":
                add(f"int_{t}_{method}", group, f"a: {t}, b: {t}", f"({t}, bool)", f"a.{method}(b)", int_pairs(t))
            elif form == "binary_unsigned":
                add(f"int_{t}_{method}", group, f"a: {t}, b: {t}", u, f"a.{method}(b)", int_pairs(t))
            elif form == "binary_u32":
                args = [(100, 10), (99, 10), (1000, 3), (1, 2), (0, 2), (5, 1), (5, 0), (int_range(t)[1], 2),
                        (int_range(t)[1], 7), (-8, 2), (8, -2)]
                add(f"int_{t}_{method}", group, f"a: {t}, b: {t}", "u32", f"a.{method}(b)",
                    [p for p in args if in_range(t, p[0]) and in_range(t, p[1])])
            elif form in ("pow", "pow_opt"):
                ret = t if form == "pow" else f"Option<{t}>"
                add(f"int_{t}_{method}", group, f"a: {t}, b: u32", ret, f"a.{method}(b)", pow_args(t))
            elif form in ("amount", "amount_opt"):
                ret = t if form == "amount" else f"Option<{t}>"
                add(f"int_{t}_{method}", group, f"a: {t}, b: u32", ret, f"a.{method}(b)", u32_amount_args(t))
            elif form == "unary":
                add(f"int_{t}_{method}", group, f"a: {t}", t, f"a.{method}()", unary_args(t))
            elif form == "unary_opt":
                add(f"int_{t}_{method}", group, f"a: {t}", f"Option<{t}>", f"a.{method}()", unary_args(t))
            elif form == "unary_optu32":
                add(f"int_{t}_{method}", group, f"a: {t}", "Option<u32>", f"a.{method}()", unary_args(t))
            elif form == "unary_u32":
                add(f"int_{t}_{method}", group, f"a: {t}", "u32", f"a.{method}()", unary_args(t))
            elif form == "unary_bool":
                add(f"int_{t}_{method}", group, f"a: {t}", "bool", f"a.{method}()", unary_args(t))
            elif form == "unary_unsigned":
                add(f"int_{t}_{method}", group, f"a: {t}", u, f"a.{method}()", unary_args(t))
            elif form == "ternary":
                add(f"int_{t}_{method}", group, f"a: {t}, lo: {t}, hi: {t}", t, f"a.{method}(lo, hi)", clamp_args(t))
            else:
                raise ValueError(form)
    for t in ("i32", "u64"):
        add(f"int_{t}_cmp_max_min", f"std::cmp::max and min on {t}", f"a: {t}, b: {t}", f"({t}, {t})",
            "(std::cmp::max(a, b), std::cmp::min(a, b))", int_pairs(t, 2))
    add("int_i16_ord_max_ufcs", "i16::max(a, b) and Ord::min(a, b)", "a: i16, b: i16", "(i16, i16)",
        "(i16::max(a, b), Ord::min(a, b))", int_pairs("i16", 2))
    add("int_u8_method_chain", "a.max(b).min(c) on u8", "a: u8, b: u8, c: u8", "u8", "a.max(b).min(c)",
        [(1, 2, 3), (9, 2, 3), (200, 100, 255), (0, 0, 0)])
    add("int_i32_pow_neg_literal", "-2i32.pow(n): the method binds tighter than unary -", "n: u32", "i32",
        "-2i32.pow(n)", [(0,), (1,), (2,), (31,), (32,)])


# ------------------------------------------------------------------ float methods

def round_frac(q: Fraction, t: str) -> float:
    """q rounded to the nearest value of type t, ties to even (exact: for picking arguments)."""
    if q == 0:
        return 0.0
    mant, emin, emax = (24, -126, 127) if t == "f32" else (53, -1022, 1023)
    sign, q = (-1 if q < 0 else 1), abs(q)
    e = q.numerator.bit_length() - q.denominator.bit_length()
    if Fraction(2) ** e > q:
        e -= 1
    e = max(e, emin)
    scale = Fraction(2) ** (mant - 1 - e)
    m = q * scale
    r = math.floor(m)
    if m - r > Fraction(1, 2) or (m - r == Fraction(1, 2) and r % 2):
        r += 1
    value = Fraction(r) / scale
    if value >= Fraction(2) ** (emax + 1):
        return sign * INF
    return sign * float(value)


def fma_double_rounding_args(t: str, n: int) -> list[tuple[float, float, float]]:
    """Arguments where a*b+c computed in f64 (then rounded to t) differs from the fused result:
    a translation must round once, as fmaf/fma do."""
    rng = random.Random(SEED + (32 if t == "f32" else 64))
    out = []
    while len(out) < n:
        if t == "f32":
            # a*b's low 30 bits are 1 followed by 28 zeros and a 1: rounding the sum to f64 lands
            # on an f32 midpoint that the exact sum is just past
            a_m = rng.randrange(1 << 23, 1 << 24) | 1
            b_m = ((1 << 29) + 1) * pow(a_m, -1, 1 << 30) % (1 << 30)
            if not (1 << 23) <= b_m < (1 << 24):
                continue
            a, b = a_m * 2.0 ** -23, b_m * 2.0 ** -23
            c = float(rng.choice([1, -1])) * 2.0 ** rng.choice([7, 8]) + rng.randrange(1 << 10) * 2.0 ** -2
            c = f32_round(c)
        else:
            a, b = rng.uniform(0.5, 2.0), rng.uniform(0.5, 2.0)
            c = -(a * b) + rng.choice([0.0, rng.uniform(-1e-16, 1e-16)])
        exact = round_frac(Fraction(a) * Fraction(b) + Fraction(c), t)
        naive = float(a) * float(b) + float(c)
        naive = f32_round(naive) if t == "f32" else naive
        if exact != naive:
            out.append((a, b, c))
    return out


def gen_float_methods() -> None:
    same = ["round", "round_ties_even", "trunc", "floor", "ceil", "fract", "sqrt", "abs", "signum", "recip",
            "exp", "ln", "log2", "log10", "to_degrees"]
    f64_only = ["exp2", "cbrt", "to_radians", "sin", "cos", "tanh", "exp_m1", "ln_1p"]
    round_extra = {"f32": [0.49999997, 8388609.0, 8388608.5, 4194304.5, -0.49999997, 2.4999998, 3.5, -3.5],
                   "f64": [0.49999999999999994, 4503599627370497.0, 2251799813685248.5, -0.49999999999999994,
                           2.4999999999999996, 3.5, -3.5, 1e16 + 2]}
    for t in FLOATS:
        for m in same + (f64_only if t == "f64" else []):
            args = float_unary_args(t)
            if m in ("round", "round_ties_even", "trunc", "floor", "ceil", "fract"):
                args += round_extra[t]
            add(f"float_{t}_{m}", f"{t}::{m}", f"a: {t}", t, f"a.{m}()", [(v,) for v in dedupe(args)])
        add(f"float_{t}_classify", f"{t}: is_nan is_finite is_infinite is_sign_negative is_sign_positive "
            f"is_normal is_subnormal", f"a: {t}", "(bool, bool, bool, bool, bool, bool, bool)",
            "(a.is_nan(), a.is_finite(), a.is_infinite(), a.is_sign_negative(), a.is_sign_positive(), "
            "a.is_normal(), a.is_subnormal())", [(v,) for v in float_edges(t)])
        add(f"float_{t}_neg_nan_sign", f"(-a).is_sign_negative() on {t}, NaN included", f"a: {t}", "bool",
            "(-a).is_sign_negative()", [(NAN,), (0.0,), (-0.0,), (1.0,)])
        for m in ("min", "max", "powf", "copysign", "hypot", "rem_euclid", "div_euclid", "log") + \
                (("atan2",) if t == "f64" else ()):
            add(f"float_{t}_{m}", f"{t}::{m}", f"a: {t}, b: {t}", t, f"a.{m}(b)", float_pairs(t))
        add(f"float_{t}_min_max_ufcs", f"{t}::max(a, b), {t}::min(a, b)", f"a: {t}, b: {t}", f"({t}, {t})",
            f"({t}::max(a, b), {t}::min(a, b))", float_pairs(t, 2))
        add(f"float_{t}_total_cmp", f"{t}::total_cmp as i32", f"a: {t}, b: {t}", "i32",
            "a.total_cmp(&b) as i32", float_pairs(t, 2) + [(-NAN, NAN), (-0.0, 0.0), (NAN, INF)])
        add(f"float_{t}_partial_cmp", f"{t}::partial_cmp (None with NaN)", f"a: {t}, b: {t}", "Option<i32>",
            "a.partial_cmp(&b).map(|o| o as i32)", float_pairs(t, 2))
        powi_args = [(2.0, 10), (2.0, -3), (1.1, 10), (1.1, 37), (0.9, -17), (-2.0, 3), (0.0, -1), (-0.0, -1),
                     (-0.0, 3), (NAN, 0), (INF, -2), (10.0, 39), (10.0, -46), (3.0, 2147483647), (1.0000001, -2147483648),
                     (1.7, 23), (-1.3, 15), (0.1, 3)]
        add(f"float_{t}_powi", f"{t}::powi", f"a: {t}, n: i32", t, "a.powi(n)", powi_args)
        clamp = [(5.0, 1.0, 10.0), (0.0, 1.0, 10.0), (11.0, 1.0, 10.0), (NAN, 0.0, 1.0), (-0.0, 0.0, 1.0),
                 (0.5, 1.0, 0.0), (0.5, NAN, 1.0), (0.5, 0.0, NAN), (INF, -1.0, 1.0), (-INF, -1.0, 1.0), (2.0, 2.0, 2.0)]
        add(f"float_{t}_clamp", f"{t}::clamp (panics when min > max or either is NaN)", f"a: {t}, lo: {t}, hi: {t}",
            t, "a.clamp(lo, hi)", clamp)
        fma = [(0.1, 10.0, -1.0), (2.0, 3.0, 4.0), (INF, 0.0, 1.0), (NAN, 1.0, 1.0), (1e30, 1e30, -INF),
               (-0.0, 0.0, 0.0), (0.0, -1.0, -0.0), (1.0000001, 1.0000001, -1.0000002)]
        add(f"float_{t}_mul_add", f"{t}::mul_add (one rounding)", f"a: {t}, b: {t}, c: {t}", t, "a.mul_add(b, c)",
            fma + fma_double_rounding_args(t, 4))
        add(f"float_{t}_sum_order", f"{t}: a + b + c groups left to right", f"a: {t}, b: {t}, c: {t}", t,
            "a + b + c", [(1e8, -1e8, 1.0), (1.0, 1e8, -1e8), (0.1, 0.2, 0.3), (1e30, 1e-30, -1e30)])


# ------------------------------------------------------------------ `as` casts

def float_to_int_args(src: str, dst: str) -> list[float]:
    lo, hi = int_range(dst)
    near = [float(lo), float(hi), float(lo) - 1.0, float(hi) + 1.0, float(hi) + 0.5, float(lo) - 0.5,
            float(hi) * 2.0, float(lo) * 2.0 - 4.0, float(hi) - 1.0]
    common = [NAN, INF, -INF, -0.0, 0.0, 0.5, -0.5, 0.99999994, -0.99999994, 1.5, -1.5, 2.5, -2.5, 127.5, -128.5,
              255.5, 1e30, 3.0e38, -3.0e38, 1e-45, 9.5e18]
    return dedupe([f32_round(v) if src == "f32" else v for v in common + near])


def int_to_float_args(src: str) -> list[int]:
    lo, hi = int_range(src)
    vals = int_edges(src) + [16777217, 16777219, -16777217, 2 ** 31 - 1, 2 ** 32 - 1, 2 ** 53 + 1, 2 ** 53 + 3,
                             -(2 ** 53) - 1, 2 ** 63 - 1, 2 ** 64 - 1]
    # int -> f32 through f64 rounds twice: 2^k + 2^(k-24) + 1 is just past an f32 midpoint
    for k in (54, 60, 62, 63):
        vals += [2 ** k + 2 ** (k - 24) + 1, -(2 ** k + 2 ** (k - 24) + 1), 2 ** k + 2 ** (k - 24) - 1]
    return dedupe([v for v in vals if lo <= v <= hi])


def gen_casts() -> None:
    tup = ", ".join(INT_NAMES)
    for s in INT_NAMES:
        add(f"cast_{s}_to_ints", f"{s} as every integer type", f"a: {s}", f"({tup})",
            "(" + ", ".join(f"a as {d}" for d in INT_NAMES) + ")",
            [(v,) for v in int_edges(s)] + [(rand_int(s),) for _ in range(3)])
        add(f"cast_{s}_to_floats", f"{s} as f32 and as f64 (rounded to nearest, ties to even)", f"a: {s}", "(f32, f64)",
            "(a as f32, a as f64)", [(v,) for v in int_to_float_args(s)])
    for s in FLOATS:
        for d in INT_NAMES:
            add(f"cast_{s}_to_{d}", f"{s} as {d} (truncates, saturates, NaN is 0)", f"a: {s}", d, f"a as {d}",
                [(v,) for v in float_to_int_args(s, d)])
    add("cast_f32_to_f64", "f32 as f64 (exact)", "a: f32", "f64", "a as f64", [(v,) for v in float_edges("f32")])
    add("cast_f64_to_f32", "f64 as f32 (rounded; past the range: inf)", "a: f64", "f32", "a as f32",
        [(v,) for v in float_edges("f64") + [3.4028235677973366e38, 3.4028235677973362e38, 3.402823669209385e38,
                                              1e39, -1e39, 1.401298464324817e-45, 7.006492321624085e-46,
                                              7.006492321624087e-46, 1e-46, 0.1, 1.00000005960464477539,
                                              1.0000000596046448, 16777217.0]])
    add("cast_bool_to_ints", "bool as every integer type", "a: bool", f"({tup})",
        "(" + ", ".join(f"a as {d}" for d in INT_NAMES) + ")", [(False,), (True,)])
    add("cast_chain_narrow", "a as u8 as i8 as i32", "a: i64", "i32", "a as u8 as i8 as i32",
        [(v,) for v in (0, 127, 128, 255, 256, -1, -129, 2 ** 40 + 200)])
    add("cast_chain_through_f32", "(a as f32) as i32 loses low bits", "a: i32", "i32", "(a as f32) as i32",
        [(v,) for v in (16777217, 16777219, 2 ** 31 - 1, -(2 ** 31), 123456789, -1)])
    add("cast_chain_i64_f64_i64", "a as f64 as i64", "a: i64", "i64", "a as f64 as i64",
        [(v,) for v in (2 ** 53 + 1, 2 ** 63 - 1, -(2 ** 63), -(2 ** 53) - 1, 0)])
    add("cast_precedence", "`as` binds tighter than binary operators", "a: i32, b: i32", "i64",
        "a as i64 * b as i64 - -a as i64", [(2 ** 31 - 1, 2 ** 31 - 1), (-(2 ** 31), -1), (3, 4)])
    add("cast_neg_then_as", "-a as u32 (negation first)", "a: i32", "u32", "-a as u32",
        [(1,), (-1,), (0,), (-(2 ** 31),)])
    add("cast_usize_len_to_i32", "v.len() as i32 - 1", "v: &[u8]", "i32", "v.len() as i32 - 1", [([],), ([1, 2],)])
    add("cast_f32_arith_to_u32", "(a - 100.0) as u32", "a: f32", "u32", "(a - 100.0) as u32",
        [(2.9,), (150.5,), (-1e30,), (NAN,), (4294967400.0,)])


# ------------------------------------------------------------------ associated constants

CONSTS = [
    ("i32_max", "i32", "i32::MAX"), ("u64_min", "u64", "u64::MIN"),
    ("int_limits", "(i32, u64, i64, isize, usize, i8, i8, u16)",
     "(i32::MIN, u64::MAX, i64::MIN, isize::MAX, usize::MAX, i8::MIN, i8::MAX, u16::MAX)"), ("f32_max", "f32", "f32::MAX"), ("f32_min", "f32", "f32::MIN"),
    ("f64_min", "f64", "f64::MIN"), ("f64_max", "f64", "f64::MAX"), ("f32_epsilon", "f32", "f32::EPSILON"),
    ("f64_epsilon", "f64", "f64::EPSILON"), ("f64_min_positive", "f64", "f64::MIN_POSITIVE"),
    ("f32_min_positive", "f32", "f32::MIN_POSITIVE"), ("f32_infinity", "f32", "f32::INFINITY"),
    ("f64_neg_infinity", "f64", "f64::NEG_INFINITY"), ("f32_nan_is_nan", "bool", "f32::NAN.is_nan()"),
    ("f32_nan", "f32", "f32::NAN"), ("f32_pi", "f32", "std::f32::consts::PI"), ("f64_pi", "f64", "std::f64::consts::PI"),
    ("f64_e", "f64", "std::f64::consts::E"), ("f32_frac_1_sqrt_2", "f32", "std::f32::consts::FRAC_1_SQRT_2"),
    ("f64_ln_2", "f64", "core::f64::consts::LN_2"), ("f32_tau", "f32", "std::f32::consts::TAU"),
    ("usize_bits", "u32", "usize::BITS"), ("i32_bits", "u32", "i32::BITS"), ("u8_bits", "u32", "u8::BITS"),
    ("f32_mantissa_digits", "u32", "f32::MANTISSA_DIGITS"), ("f64_max_exp", "i32", "f64::MAX_EXP"),
    ("i32_max_as_f32", "f32", "i32::MAX as f32"), ("u64_max_as_f32", "f32", "u64::MAX as f32"),
    ("f32_max_as_f64", "f64", "f32::MAX as f64"), ("f32_max_as_u128_free", "u64", "f32::MAX as u64"),
    ("pi_f32_as_f64", "f64", "std::f32::consts::PI as f64"),
]


def gen_constants() -> None:
    for name, ret, expr in CONSTS:
        add(f"const_{name}", f"constant {expr}", "", ret, expr, [()])
    add("const_in_arith", "constants in arithmetic: a.min(i32::MAX - 1) + i32::MIN / 2", "a: i32", "i32",
        "a.min(i32::MAX - 1).wrapping_add(i32::MIN / 2)", [(0,), (2 ** 31 - 1,), (-(2 ** 31),)])
    add("const_local_item", "a `const` item inside the function", "a: u32", "u32",
        "const K: u32 = 7;\nconst M: u32 = K * 3 + 1;\na.wrapping_mul(K) + M", [(0,), (3,), (2 ** 32 - 1,)])
    add("const_bits_shift", "1u64 << (u64::BITS - 1)", "", "u64", "1u64 << (u64::BITS - 1)", [()])
    add("const_eps_compare", "(a - b).abs() < f32::EPSILON", "a: f32, b: f32", "bool", "(a - b).abs() < f32::EPSILON",
        [(1.0, 1.0000001), (1.0, 1.0000002), (0.0, 0.0), (NAN, NAN)])


# ------------------------------------------------------------------ literals

def gen_literals() -> None:
    lits = [
        ("u8_suffix", "u8", "255u8"), ("i8_hex", "i8", "0x7fi8"), ("i64_underscores", "i64", "1_000i64"),
        ("f32_exp", "f32", "1e3f32"), ("u8_binary", "u8", "0b1010_1010u8"), ("u16_octal", "u16", "0o777u16"),
        ("u32_hex_groups", "u32", "0xffff_ffffu32"), ("f32_suffix", "f32", "1.5f32"), ("f64_exp_neg", "f64", "2.5e-3f64"),
        ("f32_as_f64", "f64", "0.1f32 as f64"), ("f32_inexact", "f32", "16777217.0f32"), ("f32_underflow", "f32", "1e-50f32"),
        ("f32_max_digits", "f32", "3.4028235e38f32"), ("u64_top_bit", "u64", "0x8000_0000_0000_0000u64"),
        ("i8_min", "i8", "-128i8"), ("i64_min", "i64", "-9223372036854775808i64"), ("u64_max", "u64", "18446744073709551615u64"),
        ("usize_shift", "usize", "1usize << 63"), ("f64_underscore", "f64", "1_000.000_1"), ("f32_underscore_suffix", "f32", "2_f32"),
        ("i32_suffix_underscore", "i32", "1_i32 - 2_i32"), ("f64_dot_exp", "f64", "6.02e23"), ("int_division_consts", "(i32, i32, i32, i32)", "(5 / 2, -5 / 2, -5 % 3, 5 % -3)"),
        ("neg_method_precedence", "(i32, i32, f32)", "(-5i32.pow(2), -2i32.abs(), -2.0f32.powi(2))"),
        ("f64_cast_literal_saturates", "u8", "1e3 as u8"), ("i32_hex_negative", "i32", "-0x8000_0000"),
        ("u32_max_literal", "u32", "4294967295"), ("i64_from_context", "i64", "9_000_000_000"),
        ("f32_from_context", "f32", "0.1"), ("f64_from_context", "f64", "0.1"),
        ("f32_tiny_subnormal", "f32", "1.4e-45f32"), ("f64_subnormal_min", "f64", "5e-324"),
    ]
    for name, ret, expr in lits:
        add(f"lit_{name}", f"literal {expr}", "", ret, expr, [()])
    add("lit_typed_by_let", "let x: u8 = 200; x.wrapping_add(a)", "a: u8", "u8", "let x: u8 = 200;\nx.wrapping_add(a)",
        [(0,), (55,), (56,), (255,)])
    add("lit_typed_by_operand_u8", "a + 1 with a: u8 (wraps)", "a: u8", "u8", "a + 1", [(0,), (254,), (255,)])
    add("lit_typed_by_operand_u32_sub", "1 - a with a: u32 (wraps)", "a: u32", "u32", "1 - a", [(0,), (1,), (2,), (4294967295,)])
    add("lit_typed_by_operand_i16_mul", "a * 1000 with a: i16 (wraps)", "a: i16", "i16", "a * 1000",
        [(0,), (32,), (33,), (-33,), (32767,)])
    add("lit_inferred_from_later_use", "let x = 250; x + a with a: u8: x is u8", "a: u8", "u8", "let x = 250;\nx + a",
        [(0,), (5,), (6,), (255,)])
    add("lit_shift_typed_by_return", "let x = 1 << a; x, returned as u64: x is u64", "a: u32", "u64",
        "let x = 1 << a;\nx", [(0,), (31,), (32,), (40,), (63,), (64,)])
    add("lit_shift_default_i32", "let x = 1 << a; x as u64: x is i32", "a: u32", "u64", "let x = 1 << a;\nx as u64",
        [(0,), (31,), (32,), (40,)])
    add("lit_float_typed_by_operand", "a * 0.1 with a: f32 (0.1 is an f32)", "a: f32", "f32", "a * 0.1",
        [(1.0,), (3.0,), (10.0,), (1e30,)])
    add("lit_float_let_f32_as_f64", "let x: f32 = 0.1; x as f64 + a", "a: f64", "f64", "let x: f32 = 0.1;\nx as f64 + a",
        [(0.0,), (1.0,)])
    add("lit_vec_elements_typed", "vec![200, 100] as Vec<u8>: v[0] + v[1] wraps", "i: usize", "u8",
        "let v: Vec<u8> = vec![200, 100, 56];\nv[0] + v[i]", [(0,), (1,), (2,)])
    add("lit_default_int_is_i32", "let x = 2147483647; x + a wraps as i32", "a: i32", "i32", "let x = 2147483647;\nx + a",
        [(0,), (1,), (-1,)])
    add("lit_default_float_is_f64", "let x = 0.1; (x + a as f64) as f32", "a: f32", "f32", "let x = 0.1;\n(x + a as f64) as f32",
        [(0.2,), (0.0,)])
    add("lit_mixed_cast_context", "(a as u64) * 3_000_000_000", "a: u32", "u64", "(a as u64) * 3_000_000_000",
        [(0,), (7,), (4294967295,)])


# ------------------------------------------------------------------ strings and formatting

def gen_strings() -> None:
    strs = [
        ("escapes", r'"a\tb\u{e9}"'), ("hex_escapes", r'"\x41\x7f\x00!"'), ("backslash", r'"\\n\\t"'),
        ("quote", r'"say \"hi\" it\'s"'), ("raw", r'r"a\tb\u{e9}"'), ("raw_hashes", r'r#"q"q"#'),
        ("astral", r'"\u{1F600}x"'), ("newline_cr", r'"l1\nl2\r\n"'), ("unicode_literal", '"h\u00e9llo \u2603"'),
    ]
    for name, lit in strs:
        add(f"str_{name}", f"string literal {lit}", "", "&'static str", lit, [()])
    add("str_continuation", "a string continued across lines with a backslash", "", "&'static str",
        '"one \\\n    two"', [()])
    add("str_len_bytes", "str::len counts UTF-8 bytes", "", "(usize, usize, usize)",
        '("a\\u{e9}".len(), "\\u{1F600}".len(), "\\u{e9}".chars().count())', [()])
    add("str_string_from_concat", "String::from + &str", "", "String", 'String::from("ab") + "c\\u{e9}"', [()])
    fmts = [
        ("int", "i32", "format!(\"{}|{:5}|{:<5}|{:05}|{:+}\", a, a, a, a, a)", [(0,), (-42,), (7,), (-(2 ** 31),)]),
        ("hex", "u32", "format!(\"{:x}|{:X}|{:#x}|{:08b}|{:o}\", a, a, a, a, a)", [(0,), (255,), (4294967295,)]),
        ("f32_display", "f32", "format!(\"{}|{:?}\", a, a)",
         [(0.1,), (1.0,), (-0.0,), (1e-7,), (1e20,), (NAN,), (-INF,), (16777216.0,), (3.4028235e38,), (1.5e-45,)]),
        ("f64_display", "f64", "format!(\"{}|{:?}\", a, a)",
         [(0.1,), (1.0,), (-0.0,), (1e-7,), (1e20,), (1e21,), (NAN,), (INF,), (0.30000000000000004,), (5e-324,)]),
        ("f64_precision", "f64", "format!(\"{:.2}|{:.0}|{:.1}|{:8.3}|{:e}\", a, a, a, a, a)",
         [(2.675,), (0.5,), (1.5,), (2.5,), (0.25,), (0.35,), (-1.005,), (1234.5678,), (0.0,)]),
        ("named_args", "i64", "let b = a * 2;\nformat!(\"{a}-{b}-{a:>4}-{0}\", a + 1)", [(3,), (-5,)]),
        ("bool_debug", "bool", "format!(\"{} {:?} {:>6}\", a, a, a)", [(True,), (False,)]),
        ("vec_debug", "&[u8]", "format!(\"{:?}\", a)", [([],), ([1, 2, 3],)]),
        ("to_string", "u64", "a.to_string() + &(a / 2).to_string()", [(0,), (18446744073709551615,)]),
    ]
    for name, ty, body, args in fmts:
        add(f"fmt_{name}", f"formatting: {name}", f"a: {ty}", "String", body, args)


# ------------------------------------------------------------------ slices, Vec, Option, iterators

SHAPES = [[], [1], [3, 5], [2, 3, 4], [0, 7], [4294967296, 4294967296], [18446744073709551615, 2]]
SMALL = [[], [5], [3, -1, 4], [1, 5, 9, 2, 6], [-7, -7, 0], [2147483647, 1]]


def gen_collections() -> None:
    sh = [(s,) for s in SHAPES]
    sm = [(s,) for s in SMALL]
    a = add
    a("iter_sum_usize", "v.iter().sum::<usize>() (wraps in release)", "v: &[usize]", "usize", "v.iter().sum::<usize>()", sh)
    a("iter_product_usize", "v.iter().product::<usize>()", "v: &[usize]", "usize", "v.iter().product::<usize>()", sh)
    a("iter_sum_into_let", "let n: usize = v.iter().product(); n", "v: &[usize]", "usize",
      "let n: usize = v.iter().product();\nn", sh)
    a("iter_sum_u8_wraps", "sum of u8s wraps", "v: &[u8]", "u8", "v.iter().sum()", [([],), ([200, 100],), ([255, 1, 255],)])
    a("iter_sum_f32", "sum of f32s, rounded at each step", "v: &[f32]", "f32", "v.iter().sum::<f32>()",
      [([],), ([0.1, 0.2, 0.3],), ([1e8, 1.0, -1e8],), ([16777216.0, 1.0, 1.0],), ([-0.0],), ([-0.0, -0.0],)])
    a("iter_product_f64", "product of f64s", "v: &[f64]", "f64", "v.iter().product()",
      [([],), ([0.1, 3.0],), ([1e200, 1e200, 0.0],)])
    a("iter_max_copied", "v.iter().copied().max()", "v: &[i32]", "Option<i32>", "v.iter().copied().max()", sm)
    a("iter_min_copied", "v.iter().min().copied()", "v: &[i32]", "Option<i32>", "v.iter().min().copied()", sm)
    a("iter_max_unwrap", "*v.iter().max().unwrap() (panics when empty)", "v: &[i32]", "i32", "*v.iter().max().unwrap()", sm)
    a("iter_fold_f32_max", "fold(f32::NEG_INFINITY, f32::max)", "v: &[f32]", "f32", "v.iter().copied().fold(f32::NEG_INFINITY, f32::max)",
      [([],), ([1.0, NAN, 3.0],), ([NAN],), ([-0.0, 0.0],)])
    a("iter_fold_closure", "fold with a closure", "v: &[i64]", "i64", "v.iter().fold(1, |acc, x| acc * 3 + x)",
      [([],), ([1, 2, 3],), ([9223372036854775807, 1],)])
    a("slice_len_is_empty", "len and is_empty", "v: &[usize]", "(usize, bool)", "(v.len(), v.is_empty())", sh)
    a("slice_first_last", "first and last", "v: &[i32]", "(Option<i32>, Option<i32>)", "(v.first().copied(), v.last().copied())", sm)
    a("slice_last_unwrap_or", "last().copied().unwrap_or(1), as host code reads a shape", "v: &[usize]", "usize",
      "v.last().copied().unwrap_or(1)", sh)
    a("slice_get", "get(i)", "v: &[i32], i: usize", "Option<i32>", "v.get(i).copied()",
      [([1, 2, 3], 0), ([1, 2, 3], 2), ([1, 2, 3], 3), ([], 0), ([1], 18446744073709551615)])
    a("slice_index", "v[i] (out of range panics)", "v: &[i32], i: usize", "i32", "v[i]",
      [([1, 2, 3], 0), ([1, 2, 3], 2), ([1, 2, 3], 3), ([], 0)])
    a("slice_index_last_wraps", "v[v.len() - 1]: an empty v wraps the index, then panics", "v: &[i32]", "i32",
      "v[v.len() - 1]", [([4, 5],), ([],)])
    a("slice_nested_index", "shapes[i][j], as in inputs[0].1[1]", "s: &[&[usize]], i: usize, j: usize", "usize", "s[i][j]",
      [([[1, 2], [3, 4, 5]], 1, 2), ([[1, 2], [3]], 1, 1), ([[1, 2]], 1, 0)])
    a("slice_range", "&v[a..b] (bad ranges panic)", "v: &[u8], a: usize, b: usize", "Vec<u8>", "v[a..b].to_vec()",
      [([1, 2, 3], 0, 3), ([1, 2, 3], 1, 1), ([1, 2, 3], 2, 4), ([1, 2, 3], 2, 1), ([1, 2, 3], 4, 4)])
    a("slice_prefix_sum", "s[..k].iter().map(|x| x[1]).sum(), as join's offset", "s: &[&[usize]], k: usize", "usize",
      "s[..k].iter().map(|x| x[1]).sum()", [([[2, 3], [2, 4], [2, 5]], 0), ([[2, 3], [2, 4], [2, 5]], 2),
                                             ([[2, 3], [2, 4], [2, 5]], 3), ([[2, 3]], 2), ([[2]], 1)])
    a("iter_map_collect", "map(|x| x * 2).collect::<Vec<_>>() (wraps)", "v: &[i8]", "Vec<i8>",
      "v.iter().map(|x| x * 2).collect::<Vec<_>>()", [([],), ([1, -3, 64, -65, 127],)])
    a("iter_filter_count", "filter(..).count()", "v: &[i32], t: i32", "usize", "v.iter().filter(|&&x| x > t).count()",
      [([1, 5, 9], 4), ([], 0), ([3, 3], 3)])
    a("iter_enumerate", "enumerate: sum of i * x", "v: &[u32]", "u32", "v.iter().enumerate().map(|(i, &x)| i as u32 * x).sum()",
      [([],), ([5, 6, 7],), ([4294967295, 4294967295, 4294967295],)])
    a("iter_zip", "zip stops at the shorter", "a: &[i32], b: &[i32]", "Vec<i32>", "a.iter().zip(b.iter()).map(|(x, y)| x - y).collect()",
      [([1, 2, 3], [1, 1]), ([], [1]), ([-2147483648], [1])])
    a("iter_rev_take_skip", "rev, skip, take", "v: &[u16], k: usize", "Vec<u16>", "v.iter().rev().skip(1).take(k).copied().collect()",
      [([1, 2, 3, 4, 5], 2), ([1, 2, 3, 4, 5], 10), ([], 3), ([9], 0)])
    a("iter_position", "position", "v: &[i32], t: i32", "Option<usize>", "v.iter().position(|&x| x == t)",
      [([4, 5, 6], 5), ([4, 5, 6], 7), ([], 0)])
    a("iter_all_any", "all and any (true and false on empty)", "v: &[i32]", "(bool, bool)",
      "(v.iter().all(|&x| x > 0), v.iter().any(|&x| x > 3))", sm)
    a("slice_contains", "contains", "v: &[usize], t: usize", "bool", "v.contains(&t)", [([1, 2], 2), ([1, 2], 3), ([], 0)])
    a("vec_repeat", "vec![x; n]", "x: i16, n: usize", "Vec<i16>", "vec![x; n]", [(7, 3), (-1, 0), (0, 1)])
    a("vec_repeat_nested", "vec![v.to_vec(); n], as param_shapes", "v: &[usize], n: usize", "Vec<Vec<usize>>",
      "vec![v.to_vec(); n]", [([3, 5], 2), ([], 1), ([1], 0)])
    a("vec_push_loop", "Vec::new + push in a loop", "n: u8", "Vec<u8>", "let mut v = Vec::new();\nfor i in 0..n {\n    v.push(i * 100);\n}\nv",
      [(0,), (4,)])
    a("array_literal", "[a, b, c] returned as an array", "a: u32, b: u32", "[u32; 3]", "[a, b, a.wrapping_sub(b)]",
      [(1, 2), (0, 0), (4294967295, 1)])
    a("array_grid", "[n.div_ceil(k) as u32, 1, 1], a grid", "n: usize, k: usize", "[u32; 3]", "[n.div_ceil(k) as u32, 1, 1]",
      [(1000, 256), (0, 4), (4294967296 * 3, 1), (5, 0)])
    a("array_index_runtime", "[10, 20, 30][i]", "i: usize", "i32", "let a = [10, 20, 30];\na[i]", [(0,), (2,), (3,)])
    a("array_repeat_len", "[0u8; 4].len() and sum", "x: u8", "(usize, u8)", "let a = [x; 4];\n(a.len(), a.iter().sum())",
      [(0,), (64,), (100,)])
    a("tuple_fields", "tuple fields and destructuring", "a: i32, b: i32", "(i32, i32, i32)",
      "let t = (a, (b, a - b));\nlet (x, y) = (t.1.1, t.0);\n(x, y, (t.1).0)", [(1, 2), (-2147483648, 1)])
    a("iter_chunks_sum", "chunks(2) summed", "v: &[u32]", "Vec<u32>", "v.chunks(2).map(|c| c.iter().sum()).collect()",
      [([],), ([1, 2, 3],), ([4294967295, 1, 5],)])
    a("iter_windows", "windows(2) differences", "v: &[i64]", "Vec<i64>", "v.windows(2).map(|w| w[1] - w[0]).collect()",
      [([],), ([1],), ([1, 4, 9],), ([-9223372036854775808, 1],)])
    a("iter_step_by_slice", "iter().step_by(2)", "v: &[u8]", "Vec<u8>", "v.iter().step_by(2).copied().collect()",
      [([],), ([1, 2, 3, 4, 5],)])
    a("iter_max_by_key", "max_by_key keeps the last maximum", "v: &[i32]", "Option<usize>",
      "v.iter().enumerate().max_by_key(|(_, &x)| x.abs()).map(|(i, _)| i)", [([],), ([3, -3, 2],), ([1, -5, 5],)])
    a("iter_min_by_key_first", "min_by_key keeps the first minimum", "v: &[i32]", "Option<usize>",
      "v.iter().enumerate().min_by_key(|(_, &x)| x.abs()).map(|(i, _)| i)", [([],), ([3, -3, 2, -2],)])
    a("iter_count_last", "count() and last()", "v: &[i32]", "(usize, Option<i32>)", "(v.iter().count(), v.iter().last().copied())", sm)
    a("iter_flat_map", "shapes flattened", "s: &[&[usize]]", "Vec<usize>", "s.iter().flat_map(|x| x.iter().copied()).collect()",
      [([],), ([[1, 2], [], [3]],)])
    a("vec_sort_dedup", "sort, dedup, reverse", "v: &[i32]", "Vec<i32>", "let mut w = v.to_vec();\nw.sort();\nw.dedup();\nw.reverse();\nw",
      [([],), ([3, 1, 3, 2, 1],)])
    a("vec_extend_insert_pop", "extend, insert, pop", "v: &[u8]", "(Vec<u8>, Option<u8>)",
      "let mut w = v.to_vec();\nw.extend_from_slice(&[7, 8]);\nw.insert(0, 9);\nlet p = w.pop();\n(w, p)", [([],), ([1],)])
    a("vec_insert_out_of_range", "insert past the end panics", "v: &[u8], i: usize", "Vec<u8>",
      "let mut w = v.to_vec();\nw.insert(i, 0);\nw", [([1, 2], 2), ([1, 2], 3)])
    a("iter_sum_of_map_shape", "input_shapes.iter().map(|s| s.iter().product::<usize>()).sum()", "s: &[&[usize]]", "usize",
      "s.iter().map(|x| x.iter().product::<usize>()).sum()", [([],), ([[2, 3], [4]],), ([[], [0, 5]],)])
    # Option
    a("opt_unwrap_or", "checked_add(..).unwrap_or(0)", "a: u8, b: u8", "u8", "a.checked_add(b).unwrap_or(0)", [(1, 2), (255, 1)])
    a("opt_map", "checked_div(..).map(|q| q * 2)", "a: i32, b: i32", "Option<i32>", "a.checked_div(b).map(|q| q * 2)",
      [(7, 2), (7, 0), (-2147483648, -1), (2147483647, 1)])
    a("opt_unwrap_none", "unwrap() of None panics", "v: &[i32]", "i32", "*v.first().unwrap()", [([3],), ([],)])
    a("opt_expect_none", "expect(msg) of None panics with msg", "v: &[i32]", "i32", "*v.last().expect(\"no last element\")",
      [([3, 4],), ([],)])
    a("opt_if_let", "if let Some(x) = v.first() { .. } else { .. }", "v: &[i32]", "i32",
      "if let Some(&x) = v.first() {\n    x * 10\n} else {\n    -1\n}", sm)
    a("opt_match_guard", "match on Option with a guard", "v: &[i32], i: usize", "i32",
      "match v.get(i) {\n    Some(&x) if x > 0 => x,\n    Some(_) => 0,\n    None => -1,\n}", [([5, -5], 0), ([5, -5], 1), ([5, -5], 2)])
    a("opt_let_else", "let Some(x) = .. else { return .. }", "v: &[u64]", "u64",
      "let Some(&x) = v.last() else {\n    return 99;\n};\nx + 1", [([],), ([4, 18446744073709551615],)])
    a("opt_question_mark", "? on an Option", "v: &[i32]", "Option<i32>", "let a = v.first()?;\nlet b = v.get(1)?;\nSome(a - b)",
      [([],), ([1],), ([1, 3],)])
    a("opt_and_then_filter", "and_then and filter", "a: i32", "Option<i32>", "Some(a).filter(|x| x % 2 == 0).and_then(|x| x.checked_mul(3))",
      [(2,), (3,), (1000000000,)])
    a("opt_is_some_none", "is_some, is_none, unwrap_or_default", "v: &[u8]", "(bool, bool, u8)",
      "(v.first().is_some(), v.get(5).is_none(), v.last().copied().unwrap_or_default())", [([],), ([1, 2],)])
    a("opt_zip_or", "Option::zip and or", "a: i32, b: i32", "Option<i32>",
      "a.checked_div(b).zip(b.checked_div(a)).map(|(x, y)| x + y).or(Some(-1))", [(4, 2), (0, 3), (3, 0)])


# ------------------------------------------------------------------ control flow and panics

def gen_control() -> None:
    a = add
    sm = [(s,) for s in SMALL]
    a("ctl_if_else_if", "if / else if / else as a value", "a: i32", "i32",
      "if a < 0 {\n    -1\n} else if a == 0 {\n    0\n} else if a < 10 {\n    1\n} else {\n    2\n}", [(-5,), (0,), (9,), (10,)])
    a("ctl_match_ranges", "match with ranges, | and _", "n: usize", "i32",
      "match n {\n    0 => -1,\n    1 | 2 => 1,\n    3..=9 => 2,\n    10..100 => 3,\n    _ => 4,\n}",
      [(0,), (1,), (2,), (3,), (9,), (10,), (99,), (100,), (18446744073709551615,)])
    a("ctl_match_negative_ranges", "match with negative and MIN.. ranges", "a: i8", "u8",
      "match a {\n    i8::MIN..=-100 => 0,\n    -99..=-1 => 1,\n    0 => 2,\n    1..=i8::MAX => 3,\n}", [(-128,), (-100,), (-99,), (-1,), (0,), (127,)])
    a("ctl_match_guard", "match with guards", "a: i32", "&'static str",
      "match a {\n    x if x % 2 == 0 && x > 0 => \"even+\",\n    x if x % 2 == 0 => \"even\",\n    1 | 3 | 5 => \"small odd\",\n    _ => \"odd\",\n}",
      [(4,), (-4,), (0,), (3,), (-3,), (7,)])
    a("ctl_match_tuple", "match on a tuple", "a: i32, b: bool", "i32",
      "match (a, b) {\n    (0, _) => 0,\n    (x, true) if x > 0 => x,\n    (x, true) => -x,\n    (_, false) => 100,\n}",
      [(0, True), (5, True), (-5, True), (5, False), (-2147483648, True)])
    a("ctl_match_binding_at", "match with an @ binding", "a: u32", "u32",
      "match a {\n    small @ 0..=9 => small * 2,\n    big @ (10 | 20 | 30) => big + 1,\n    _ => 0,\n}", [(0,), (9,), (10,), (20,), (25,)])
    a("ctl_for_range", "for i in 0..n", "n: u32", "u32", "let mut s = 0u32;\nfor i in 0..n {\n    s = s.wrapping_add(i * i);\n}\ns",
      [(0,), (1,), (10,), (3000,)])
    a("ctl_for_rev", "for i in (0..n).rev() collects in reverse", "n: usize", "Vec<usize>",
      "let mut v = Vec::new();\nfor i in (0..n).rev() {\n    v.push(i);\n}\nv", [(0,), (4,)])
    a("ctl_for_step_by", "(0..n).step_by(k) (k = 0 panics)", "n: i32, k: usize", "Vec<i32>", "(0..n).step_by(k).collect()",
      [(10, 3), (0, 1), (5, 5), (5, 0), (-3, 2)])
    a("ctl_for_inclusive", "for i in a..=b", "a: u8, b: u8", "u32", "let mut s = 0u32;\nfor i in a..=b {\n    s += i as u32;\n}\ns",
      [(0, 255), (5, 5), (6, 5), (250, 255)])
    a("ctl_for_empty_range", "a..b with a > b is empty", "a: i64, b: i64", "i64", "let mut c = 0;\nfor _ in a..b {\n    c += 1;\n}\nc",
      [(5, 2), (2, 5), (-1, 1)])
    a("ctl_while", "while with a condition", "a: u64", "u32", "let mut x = a;\nlet mut steps = 0;\nwhile x > 1 {\n    x = if x % 2 == 0 { x / 2 } else { 3 * x + 1 };\n    steps += 1;\n}\nsteps",
      [(1,), (6,), (27,), (0,)])
    a("ctl_loop_break_value", "loop with break value", "a: i32", "i32", "let mut i = 0;\nlet r = loop {\n    i += 1;\n    if i * i > a {\n        break i * 10;\n    }\n};\nr",
      [(0,), (10,), (100,)])
    a("ctl_labeled_break_continue", "labeled break and continue", "n: i32", "i32",
      "let mut c = 0;\n'outer: for i in 0..n {\n    for j in 0..n {\n        if j > i {\n            continue 'outer;\n        }\n        if i * j > 6 {\n            break 'outer;\n        }\n        c += 1;\n    }\n}\nc",
      [(0,), (3,), (10,)])
    a("ctl_early_return", "return from inside a loop", "v: &[i32]", "i32",
      "for (i, &x) in v.iter().enumerate() {\n    if x < 0 {\n        return i as i32;\n    }\n}\n-1", sm)
    a("ctl_block_value", "a block as a value, shadowing", "a: i32", "i64",
      "let a = a as i64;\nlet b = {\n    let a = a * 2;\n    a + 1\n};\nlet a = a - b;\na", [(0,), (2147483647,), (-2147483648,)])
    a("ctl_closure_capture", "a closure over a local", "a: i32, k: i32", "i32", "let f = |x: i32| x.wrapping_mul(k) + 1;\nf(a) + f(-a)",
      [(1, 2), (2147483647, 2), (0, 0)])
    a("ctl_closure_mut", "a closure that mutates a captured counter", "n: u8", "u8",
      "let mut c = 0u8;\nlet mut bump = |d: u8| c = c.wrapping_add(d);\nfor i in 0..n {\n    bump(i);\n}\nc", [(0,), (5,), (30,)])
    a("ctl_nested_fn_style", "a closure returning a tuple", "a: u32", "(u32, u32)", "let split = |x: u32| (x >> 16, x & 0xffff);\nsplit(a)",
      [(0,), (0x12345678,), (4294967295,)])
    # panics in the release profile, and what does not panic there
    a("panic_explicit", "panic! with a formatted message", "a: i32", "i32", "if a > 2 {\n    panic!(\"too big: {}\", a);\n}\na",
      [(1,), (3,)])
    a("panic_assert", "assert! fails with its condition's text", "a: usize", "usize", "assert!(a < 10);\na * 2", [(3,), (10,)])
    a("panic_assert_msg", "assert! with a message", "a: i32, b: i32", "i32", "assert!(a <= b, \"a={} b={}\", a, b);\nb - a",
      [(1, 2), (3, 2)])
    a("panic_assert_eq", "assert_eq! message (left/right)", "a: i32, b: i32", "i32", "assert_eq!(a, b);\na", [(1, 1), (1, 2)])
    a("panic_assert_ne", "assert_ne! message", "a: u8, b: u8", "u8", "assert_ne!(a, b, \"same {}\", a);\na", [(1, 2), (4, 4)])
    a("panic_unreachable", "unreachable!()", "a: u8", "u8", "match a {\n    0 => 1,\n    1 => 2,\n    _ => unreachable!(),\n}",
      [(0,), (1,), (2,)])
    a("panic_unreachable_msg", "unreachable!(msg)", "a: u8", "u8", "if a == 0 {\n    unreachable!(\"a is {}\", a);\n}\na", [(1,), (0,)])
    a("panic_unimplemented", "unimplemented!()", "a: bool", "i32", "if a {\n    unimplemented!()\n} else {\n    1\n}", [(False,), (True,)])
    a("panic_todo", "todo!()", "a: bool", "i32", "if a {\n    todo!()\n} else {\n    2\n}", [(False,), (True,)])
    a("panic_debug_assert_off", "debug_assert! does nothing in the release profile", "a: i32", "i32",
      "debug_assert!(a > 0, \"never checked\");\ndebug_assert_eq!(a, 1);\na", [(0,), (-5,)])
    a("panic_div_zero", "a / b with b == 0 panics", "a: u32, b: u32", "u32", "a / b", [(1, 0), (7, 2)])
    a("panic_rem_zero", "a % b with b == 0 panics", "a: i64, b: i64", "i64", "a % b", [(1, 0), (-7, 2)])
    a("panic_min_div_neg1", "MIN / -1 panics", "a: i32, b: i32", "i32", "a / b", [(-2147483648, -1), (-2147483648, 1)])
    a("panic_min_rem_neg1", "MIN % -1 panics", "a: i16, b: i16", "i16", "a % b", [(-32768, -1), (-32768, 2)])
    a("panic_none_of_overflow_in_release", "usize subtraction wraps in release", "a: usize, b: usize", "usize", "a - b",
      [(5, 2), (2, 5)])
    a("panic_div_assign_zero", "x /= 0 panics", "a: u8, b: u8", "u8", "let mut x = a;\nx /= b;\nx", [(9, 3), (9, 0)])
    a("panic_clamp_int_bad_bounds", "Ord::clamp with min > max panics", "a: i32", "i32", "a.clamp(10, 1)", [(5,)])
    a("panic_nested_call_line", "a panic in a helper closure, called from a loop", "v: &[u32], d: u32", "u32",
      "let f = |x: u32| x / d;\nlet mut s = 0;\nfor &x in v {\n    s += f(x);\n}\ns", [([4, 8], 2), ([4, 8], 0), ([], 0)])


# ------------------------------------------------------------------ identifiers as Rust sees them

def gen_identifiers() -> None:
    a = add
    three = [(1, 2, 3), (-4, 5, 0), (7, 0, -1)]
    a("id_raw_keywords", "raw identifiers r#type, r#match, r#in", "r#type: i32, r#match: i32, r#in: i32", "i32",
      "let r#if = r#type * 100 + r#match * 10;\nr#if + r#in", three)
    a("id_raw_non_keyword", "r#N is N; r#lambda is lambda", "r#N: i32, lambda: i32", "i32", "let r#lambda2 = N - r#lambda;\nlambda2 * 3",
      [(1, 2), (10, -3)])
    a("id_raw_more_keywords", "r#fn, r#loop, r#as, r#true, r#async as names", "r#fn: i32, r#loop: i32, r#as: i32", "i32",
      "let r#true = r#fn - r#loop;\nlet r#async = r#as * 2;\nr#true * 1000 + r#async", three)
    a("id_nfkc_fullwidth", "fullwidth Ｎ is not N in Rust (Python would fold them)", "N: i32, Ｎ: i32", "i32", "N * 10 + Ｎ",
      [(1, 2), (3, -4)])
    a("id_nfkc_ligature", "ﬁ is not fi in Rust", "ﬁ: i32, fi: i32", "i32", "ﬁ * 100 - fi", [(1, 2), (0, 5)])
    a("id_nfkc_script_h", "ℌ is not H in Rust", "ℌ: u8, H: u8", "u8", "ℌ.wrapping_sub(H)", [(1, 2), (200, 100)])
    a("id_nfkc_micro", "µ (micro sign) is not μ (Greek mu)", "µ: i32, μ: i32", "i32", "µ - 2 * μ", [(10, 1), (0, 7)])
    a("id_nfkc_superscript_mix", "ｘ, x and a local ｙ", "ｘ: i64, x: i64", "i64", "let ｙ = ｘ * x;\nlet y = ｘ + x;\nｙ - y",
      [(3, 4), (-1, 1)])
    a("id_nfc_same", "é composed and é decomposed are one name (Rust normalizes to NFC)", "caf\u00e9: i32", "i32",
      "let r = cafe\u0301 + 1;\nr * caf\u00e9", [(2,), (-3,)])
    a("id_nfc_angstrom", "the Angstrom sign is NFC-normalized to Å: one name", "\u212b: i32", "i32", "\u00c5 * 2", [(21,)])
    a("id_python_keywords", "Python keywords as Rust names", "lambda: i32, def: i32, class: i32", "i32",
      "let pass = lambda + def;\nlet is = pass * class;\nlet not = is - 1;\nnot", three)
    a("id_python_keywords_more", "and, or, del, global, nonlocal, with, except, finally, raise as names",
      "and: i32, or: i32", "i32",
      "let del = and * or;\nlet global = del + 1;\nlet nonlocal = global * 2;\nlet with = nonlocal - and;\n"
      "let except = with + or;\nlet finally = except * 3;\nlet raise = finally - 1;\nraise", [(1, 2), (-3, 4)])
    a("id_python_keywords_import", "import, from, elif, assert, True, False as names", "import: u32, from: u32", "u32",
      "let elif = import.wrapping_sub(from);\nlet assert = elif / 2;\nlet True = assert + 1;\nlet False = True * 2;\nFalse",
      [(10, 2), (2, 10)])
    a("id_python_builtins", "len, int, range, print, min as names", "len: usize, int: i32", "i64",
      "let range = len * 2;\nlet print = int as i64 - range as i64;\nlet min = print.min(0);\nmin + print", [(3, 1), (0, -5)])
    a("id_min_max_vs_saturating", "locals named max/min beside saturating ops", "max: i32, min: i32", "(i32, i32)",
      "(max.saturating_sub(min), min.saturating_add(max))", [(2147483647, -1), (-2147483648, 1), (3, 4)])
    a("id_abs_sum_vs_methods", "locals named abs, sum, pow, round beside the methods", "abs: i32, sum: f32", "(i32, f32, i32)",
      "let pow = abs.pow(2);\nlet round = sum.round();\n(abs.abs(), round, pow)", [(-3, 2.5), (-2147483648, -0.5)])
    a("id_len_vs_len_", "len and len_: two names (a rename of len must not reach len_)", "len: usize, len_: usize", "usize",
      "len * 10 + len_", [(1, 2), (3, 0)])
    a("id_type_vs_type_", "r#type and type_: two names", "r#type: i32, type_: i32", "i32", "r#type * 10 + type_", [(1, 2), (0, 7)])
    a("id_lambda_vs_lambda_", "lambda and lambda_: two names", "lambda: i32, lambda_: i32", "i32", "lambda - lambda_", [(5, 3)])
    a("id_builtins_float_list", "float, list, tuple, str, bool, isinstance as names", "float: f64, list: i32", "f64",
      "let tuple = list * 2;\nlet str = float * 2.0;\nlet bool = tuple > 3;\nlet isinstance = if bool { str } else { -str };\nisinstance",
      [(1.5, 1), (1.5, 2)])
    a("id_cls_self_", "cls, self_ and visitor as names in an associated fn", "cls: i32, self_: i32", "i32",
      "let visitor = cls - self_;\nvisitor * 2", [(5, 3)])
    a("id_module_names", "math, triton, tl, torch, np as names beside float methods", "math: f64, triton: f64", "f64",
      "let tl = math.sqrt();\nlet torch = triton.floor();\nlet np = tl.max(torch);\nnp + math.abs()", [(4.0, 2.5), (2.0, -0.5)])
    a("id_helper_names", "div, rem, f32, as_i32 as names beside / % and `as`", "div: i32, rem: i32", "(i32, i32, i32)",
      "let f32 = div / rem;\nlet as_i32 = div % rem;\nlet check = (div as f32) as i32;\n(f32, as_i32, check)",
      [(-7, 2), (7, -2), (5, 0)])
    a("id_runtime_names", "ArgVisitor, Launcher, RuntimeOp, Panic, Probe as local names", "a: i32", "i32",
      "let ArgVisitor = a + 1;\nlet Launcher = ArgVisitor * 2;\nlet RuntimeOp = Launcher - a;\nlet Panic = RuntimeOp + 1;\n"
      "let Probe = Panic * 2;\nProbe", [(1,), (-1,)])
    a("id_class_attrs", "apply, new, type_args, FIELDS, RUST_NAME, LAUNCHER, WRAP as names", "apply: i32, new: i32", "i32",
      "let type_args = apply + new;\nlet FIELDS = type_args * 2;\nlet RUST_NAME = FIELDS - 1;\nlet LAUNCHER = RUST_NAME * 3;\n"
      "let WRAP = LAUNCHER + apply;\nWRAP", [(1, 2), (0, 0)])
    a("id_field_and_method_names", "n, grid, pack_args, FIELD_ATTRS as names", "n: usize, grid: usize", "usize",
      "let pack_args = n * grid;\nlet FIELD_ATTRS = pack_args + 1;\nlet param_shapes = FIELD_ATTRS * 2;\nparam_shapes", [(2, 3)])
    a("id_dunder", "__x, __class__, __init__ as names (Python mangles __x inside a class)", "__x: i32", "i32",
      "let __class__ = __x + 1;\nlet __init__ = __class__ * 2;\nlet __y = |v: i32| v + __x;\n__y(__init__)", [(1,), (-2,)])
    a("id_underscore", "_ and _x", "_x: i32, b: i32", "i32", "let _ = b;\nlet _y = _x * 2;\n_y + b", [(1, 2)])
    a("id_case", "a and A are two names", "a: i32, A: i32", "i32", "a - A", [(1, 2)])
    a("id_shadow_param", "a parameter shadowed by a let of another type", "a: u8", "f64", "let a = a as f64;\nlet a = a / 2.0;\na",
      [(3,), (255,)])
    a("id_closure_param_shadow", "a closure parameter named as an outer local", "x: i32", "i32", "let f = |x: i32| x * 2;\nf(x + 1) + x",
      [(1,), (5,)])
    a("id_iter_names", "iter, next, map, zip, enumerate, reversed, sorted, any, all as names", "iter: i32, next: i32", "i32",
      "let map = iter + next;\nlet zip = map * 2;\nlet enumerate = zip - iter;\nlet reversed = enumerate + 1;\n"
      "let sorted = reversed * 3;\nlet any = sorted - 2;\nlet all = any + next;\nall", [(1, 2)])
    a("id_none_like", "None_ and Some_ and Ok_ as names", "None_: i32, Some_: i32", "Option<i32>", "let Ok_ = None_ + Some_;\nSome(Ok_)",
      [(1, 2)])
    a("id_greek_and_cjk", "non-ASCII names: α, β, 長さ", "α: f64, β: f64", "f64", "let 長さ = α * β;\n長さ + α", [(2.0, 3.0)])


# ------------------------------------------------------------------ programs rustc rejects

def fn_item(name: str, sig: str, body: str) -> str:
    lines = "\n".join("        " + b for b in body.splitlines())
    return f"impl Probe {{\n    pub fn {name}({sig} {{\n{lines}\n    }}\n}}\n"


# (name, what, Rust items): each is compiled alone by rustc; only those it rejects are kept
REJECTED = [
    ("bad_escape", "an unknown character escape \\q", fn_item("r", ") -> &'static str", r'"a\qb"')),
    ("bad_unicode_escape", "a \\u{} escape past U+10FFFF", fn_item("r", ") -> &'static str", r'"\u{110000}"')),
    ("surrogate_escape", "a \\u{} escape of a surrogate", fn_item("r", ") -> &'static str", r'"x\u{D800}"')),
    ("hex_escape_past_7f", "\\x80 in a str", fn_item("r", ") -> &'static str", r'"\x80"')),
    ("unterminated_unicode_escape", "\\u{41 without its brace", fn_item("r", ") -> &'static str", r'"\u{41"')),
    ("char_two_chars", "a char literal of two chars", fn_item("r", ") -> char", "'ab'")),
    ("byte_string_non_ascii", "a non-ASCII char in a byte string", fn_item("r", ") -> usize", 'b"caf\u00e9".len()')),
    ("const_add_overflow_u8", "255u8 + 1u8", fn_item("r", ") -> u8", "255u8 + 1u8")),
    ("const_add_overflow_i32_max", "i32::MAX + 1", fn_item("r", ") -> i32", "i32::MAX + 1")),
    ("const_u8_max_plus", "u8::MAX + 1", fn_item("r", ") -> u8", "u8::MAX + 1")),
    ("const_shl_overflow", "1i32 << 40", fn_item("r", ") -> i32", "1i32 << 40")),
    ("const_shl_64", "1u64 << 64", fn_item("r", ") -> u64", "1u64 << 64")),
    ("const_shr_8", "1u8 >> 8", fn_item("r", ") -> u8", "1u8 >> 8")),
    ("const_neg_min", "-i32::MIN", fn_item("r", ") -> i32", "-i32::MIN")),
    ("const_mul_overflow", "i64::MAX * 2", fn_item("r", ") -> i64", "i64::MAX * 2")),
    ("const_sub_underflow", "0u32 - 1", fn_item("r", ") -> u32", "0u32 - 1")),
    ("const_min_div_neg1", "i32::MIN / -1", fn_item("r", ") -> i32", "i32::MIN / -1")),
    ("const_min_rem_neg1", "i32::MIN % -1", fn_item("r", ") -> i32", "i32::MIN % -1")),
    ("const_div_zero", "1 / 0", fn_item("r", ") -> i32", "1 / 0")),
    ("const_rem_zero", "7u8 % 0", fn_item("r", ") -> u8", "7u8 % 0")),
    ("const_index_out_of_bounds", "[1, 2, 3][5]", fn_item("r", ") -> i32", "let a = [1, 2, 3];\na[5]")),
    ("const_item_overflow", "const X: i32 = i32::MAX + 1", "const X: i32 = i32::MAX + 1;\n"),
    ("const_item_u8_overflow", "const Y: u8 = 255 + 1", "const Y: u8 = 255 + 1;\n"),
    ("const_item_div_zero", "const Z: i32 = 1 / 0", "const Z: i32 = 1 / 0;\n"),
    ("const_item_shl", "const S: u32 = 1 << 32", "const S: u32 = 1 << 32;\n"),
    ("literal_256u8", "256u8", fn_item("r", ") -> u8", "256u8")),
    ("literal_let_i8_200", "let x: i8 = 200;", fn_item("r", ") -> i8", "let x: i8 = 200;\nx")),
    ("literal_1e40f32", "1e40f32", fn_item("r", ") -> f32", "1e40f32")),
    ("literal_1e400", "let x = 1e400;", fn_item("r", ") -> f64", "let x = 1e400;\nx")),
    ("literal_hex_0x80i8", "0x80i8", fn_item("r", ") -> i8", "0x80i8")),
    ("literal_i32_default_too_big", "let k = 3_000_000_000; k as u64 (k is i32)", fn_item("r", ") -> u64", "let k = 3_000_000_000;\nk as u64")),
    ("literal_i32_below_min", "let x = -2147483649;", fn_item("r", ") -> i64", "let x = -2147483649;\nx as i64")),
    ("literal_u32_too_big", "4294967296u32", fn_item("r", ") -> u32", "4294967296u32")),
    ("literal_typed_by_operand", "x + 256 with x: u8", fn_item("r", "x: u8) -> u8", "x + 256")),
    ("literal_cast_hint", "256 as u8", fn_item("r", ") -> u8", "256 as u8")),
    ("literal_return_typed", "300 returned as u8", fn_item("r", ") -> u8", "300")),
    ("neg_unsigned_literal", "-1u32", fn_item("r", ") -> u32", "-1u32")),
    ("neg_unsigned_var", "-x with x: u32", fn_item("r", "x: u32) -> u32", "-x")),
    ("neg_unsigned_let", "let x: u8 = -1;", fn_item("r", ") -> u8", "let x: u8 = -1;\nx")),
    ("neg_pow_exponent", "2i32.pow(-1)", fn_item("r", ") -> i32", "2i32.pow(-1)")),
    ("not_float", "!x with x: f32", fn_item("r", "x: f32) -> f32", "!x")),
    ("unknown_name", "a use of an unknown name", fn_item("r", "a: i32) -> i32", "a + missing")),
    ("unknown_function", "a call of an unknown function", fn_item("r", "a: i32) -> i32", "helper(a)")),
    ("unknown_method", "an unknown method", fn_item("r", "a: i32) -> i32", "a.frobnicate()")),
    ("unknown_assoc_const", "an unknown associated constant", fn_item("r", ") -> i32", "i32::BIGGEST")),
    ("mixed_int_add", "a + b with a: i32, b: i64", fn_item("r", "a: i32, b: i64) -> i64", "a + b")),
    ("mixed_int_compare", "a == b with a: i32, b: u32", fn_item("r", "a: i32, b: u32) -> bool", "a == b")),
    ("mixed_float_add", "a + b with a: f32, b: f64", fn_item("r", "a: f32, b: f64) -> f64", "a + b")),
    ("float_plus_int_literal", "a + 1 with a: f32", fn_item("r", "a: f32) -> f32", "a + 1")),
    ("int_plus_float_literal", "a + 1.0 with a: i32", fn_item("r", "a: i32) -> i32", "a + 1.0")),
    ("float_plus_u8", "a * b + 1u8 with f32s", fn_item("r", "a: f32, b: f32) -> f32", "a * b + 1u8")),
    ("shift_by_float", "a << 1.0", fn_item("r", "a: u32) -> u32", "a << 1.0")),
    ("return_type_mismatch", "an i64 returned as i32", fn_item("r", "a: i64) -> i32", "a")),
    ("let_type_mismatch", "let x: i32 = 5i64;", fn_item("r", ") -> i32", "let x: i32 = 5i64;\nx")),
    ("if_int_condition", "if a { } with a: i32", fn_item("r", "a: i32) -> i32", "if a {\n    1\n} else {\n    2\n}")),
    ("and_on_ints", "a && b with ints", fn_item("r", "a: i32, b: i32) -> bool", "a && b")),
    ("if_without_else_value", "an if without else used as a value", fn_item("r", "a: i32) -> i32", "if a > 0 {\n    1\n}")),
    ("cast_int_to_bool", "a as bool", fn_item("r", "a: i32) -> bool", "a as bool")),
    ("cast_bool_to_float", "true as f32", fn_item("r", ") -> f32", "true as f32")),
    ("assign_immutable", "assigning to an immutable local", fn_item("r", "a: i32) -> i32", "let x = a;\nx = 5;\nx")),
    ("compound_assign_immutable", "+= on an immutable local", fn_item("r", "a: i32) -> i32", "let x = a;\nx += 1;\nx")),
    ("assign_param", "assigning to a parameter not declared mut", fn_item("r", "a: i32) -> i32", "a = 3;\na")),
    ("uninitialized", "a use of a local never assigned", fn_item("r", ") -> i32", "let x: i32;\nx")),
    ("push_immutable_vec", "push on a Vec not declared mut", fn_item("r", ") -> usize", "let v = vec![1];\nv.push(2);\nv.len()")),
    ("use_after_move", "a Vec used after a move", fn_item("r", ") -> usize", "let v = vec![1];\nlet w = v;\nv.len() + w.len()")),
    ("wrong_arg_count", "a.pow() with no exponent", fn_item("r", "a: i32) -> i32", "a.pow()")),
    ("pow_signed_exponent", "a.pow(b) with b: i32", fn_item("r", "a: i32, b: i32) -> i32", "a.pow(b)")),
    ("rotate_signed_amount", "a.rotate_left(b) with b: i32", fn_item("r", "a: u8, b: i32) -> u8", "a.rotate_left(b)")),
    ("index_by_u32", "v[i] with i: u32", fn_item("r", "v: &[i32], i: u32) -> i32", "v[i]")),
    ("index_negative", "v[-1]", fn_item("r", "v: &[i32]) -> i32", "v[-1]")),
    ("array_length_mismatch", "let a: [i32; 3] = [1, 2];", fn_item("r", ") -> i32", "let a: [i32; 3] = [1, 2];\na[0]")),
    ("non_exhaustive_match", "a match missing arms", fn_item("r", "a: i32) -> i32", "match a {\n    0 => 1,\n    1..=5 => 2,\n}")),
    ("break_outside_loop", "break outside a loop", fn_item("r", ") -> i32", "break;\n1")),
    ("max_mixed_types", "5.max(3.0)", fn_item("r", ") -> i32", "5.max(3.0)")),
    ("min_float_ord", "std::cmp::min of f32s (f32 is not Ord)", fn_item("r", "a: f32, b: f32) -> f32", "std::cmp::min(a, b)")),
    ("iter_max_f32", "v.iter().max() of f32s (not Ord)", fn_item("r", "v: &[f32]) -> f32", "*v.iter().max().unwrap()")),
    ("keyword_as_name", "let fn = 1;", fn_item("r", ") -> i32", "let fn = 1;\n2")),
    ("edition_keyword_async", "let async = 1; (a keyword since 2018)", fn_item("r", ") -> i32", "let async = 1;\nasync")),
    ("raw_self", "r#self is not a raw identifier", fn_item("r", ") -> i32", "let r#self = 1;\n2")),
    ("emoji_name", "an emoji in an identifier", fn_item("r", ") -> i32", "let a\U0001F600 = 1;\n2")),
    ("syntax_unclosed", "an unclosed parenthesis", fn_item("r", ") -> i32", "(1 + 2")),
    ("syntax_dangling_operator", "1 + with no right side", fn_item("r", ") -> i32", "let x = 1 +;\nx")),
    ("missing_semicolon_let", "a let without its semicolon", fn_item("r", ") -> i32", "let x = 1\nx")),
    ("tuple_index_out_of_range", "t.2 of a pair", fn_item("r", ") -> i32", "let t = (1, 2);\nt.2")),
    ("const_item_method_panics", "a const item whose method call panics: 5i32.wrapping_div(0)",
     "const X: i32 = 5i32.wrapping_div(0);\n" + fn_item("r", "b: i32) -> i32", "b + X")),
    ("div_by_a_zero_const_item", "b / C where a const item C is 0 (found by fuzz_host.py)",
     fn_item("r", "b: i32) -> i32", "b / ZERO") + "const ZERO: i32 = 7i32.trailing_zeros() as i32;\n"),
    ("div_by_a_zero_let", "b / z where `let z = 0;` (found by fuzz_host.py)",
     fn_item("r", "b: i32) -> i32", "let z = 0;\nb / z")),
    # rustc's lints on what its constant propagation knows: a `let` assigned once and never
    # borrowed, a const item, arithmetic and casts on them (the accepted twins: gen_constant_propagation)
    ("lint_div_by_a_let_mut", "`let mut z = 0;` never assigned again, then b / z",
     fn_item("r", "b: i32) -> i32", "let mut z = 0;\nb / z")),
    ("lint_rem_by_let_arithmetic", "b % q where `let q = z - 2;` and `let z = 2;`",
     fn_item("r", "b: i32) -> i32", "let z = 2;\nlet q = z - 2;\nb % q")),
    ("lint_let_max_plus_one", "`let x = i32::MAX;` then x + 1", fn_item("r", ") -> i32", "let x = i32::MAX;\nx + 1")),
    ("lint_typed_let_u8_overflow", "`let x: u8 = 255;` then x + 1", fn_item("r", ") -> u8", "let x: u8 = 255;\nx + 1")),
    ("lint_unsigned_let_minus_one", "`let x: u32 = 0;` then x - 1", fn_item("r", ") -> u32", "let x: u32 = 0;\nx - 1")),
    ("lint_shift_by_a_let", "b << s where `let s = 40;`", fn_item("r", "b: i32) -> i32", "let s = 40;\nb << s")),
    ("lint_shift_by_a_const_item", "b >> S where S is a const 32",
     "const S: u32 = 32;\n" + fn_item("r", "b: u32) -> u32", "b >> S")),
    ("lint_min_div_minus_one_lets", "a / m where `let a = i32::MIN;` and `let m = -1;`",
     fn_item("r", ") -> i32", "let a = i32::MIN;\nlet m = -1;\na / m")),
    ("lint_negate_a_let_min", "-x where `let x = i32::MIN;`", fn_item("r", ") -> i32", "let x = i32::MIN;\n-x")),
    ("lint_div_by_a_cast_let", "b / (z as i64) where `let z = 0;`", fn_item("r", "b: i64) -> i64", "let z = 0;\nb / (z as i64)")),
    ("lint_div_by_a_negated_let", "b / -z where `let z = 0;`", fn_item("r", "b: i32) -> i32", "let z = 0;\nb / -z")),
    ("lint_div_in_a_loop_by_a_let", "i / z in a loop body where `let z = 0;` is before it",
     fn_item("r", "b: i32) -> i32", "let z = 0;\nlet mut s = 0;\nfor i in 0..b {\n    s += i / z;\n}\ns")),
    ("lint_div_by_a_let_of_a_const", "b / z where `let z = ZERO;`",
     "const ZERO: i64 = 0;\n" + fn_item("r", "b: i64) -> i64", "let z = ZERO;\nb / z")),
    ("lint_div_after_a_by_value_method", "z.max(1) takes `self`: no borrow, so b / z is still known",
     fn_item("r", "b: i32) -> i32", "let z = 0i32;\nlet w = z.max(1);\nb / z + w")),
    ("lint_div_after_vec_copies", "vec![z] copies z: no borrow",
     fn_item("r", "b: i32) -> i32", "let z = 0i32;\nlet v = vec![z];\nb / z + v[0]")),
    ("float_let_of_two_types", "`let z = 0.1;` used with an f64, then with an f32",
     fn_item("r", "b: f64, c: f32) -> f32", "let z = 0.1;\nlet a = b * z;\nc * z")),
    ("int_let_times_a_float", "f * x where `let x = 3;` (an integer)",
     fn_item("r", "f: f32) -> f32", "let x = 3;\nf * x")),
    ("int_let_where_a_float_is_expected", "`let z: f32 = x + x;` where `let x = 2;`",
     fn_item("r", ") -> f32", "let x = 2;\nlet z: f32 = x + x;\nz")),
    ("negate_a_u8_let", "-x where `let x = 7u8;` (rustc's E0600, not an overflow)",
     fn_item("r", ") -> i32", "let x = 7u8;\nlet y = -x;\ny as i32")),
    ("int_let_of_two_types", "`let x = 2;` that `let y: i64 = x - 0;` makes an i64, then b | x with b: i32",
     fn_item("r", "b: i32) -> i32", "let x = 2;\nlet y: i64 = x - 0;\nb | x")),
    ("float_assigned_to_an_int_let", "`let mut y = 3;` then y = 0.5", fn_item("r", ") -> i32", "let mut y = 3;\ny = 0.5;\ny")),
    ("shift_past_any_width_by_a_let", "y >> x where `let x = 65536;`, whatever type y has",
     fn_item("r", ") -> i32", "let x = 65536;\nlet y = -x;\ny >> x")),
    ("shift_by_a_cast_let", "b << y where `let y = x as i32;` and `let x = -1;`",
     fn_item("r", "b: i32) -> i32", "let x = -1;\nlet y = x as i32;\nb << y")),
    ("type_error_after_a_lint", "b / z (a lint) then `let f: f32 = b;`: rustc checks types first, lints after",
     fn_item("r", "b: i32) -> i32", "let z = 0;\nlet q = b / z;\nlet f: f32 = b;\nq")),
    ("type_error_in_a_later_fn", "a lint in one fn, a type error in the next: only the type error",
     fn_item("r", "b: i32) -> i32", "let x = i32::MAX;\nx + b + 1 + x * 2") + fn_item("s", "b: i32) -> i64", "b")),
    ("lint_shift_of_a_u8_let_wraps", "b / (y - 254) where `let y = x << 1;` and `let x: u8 = 255;` (y is 254)",
     fn_item("r", "b: u8) -> u8", "let x: u8 = 255;\nlet y = x << 1;\nb / (y - 254)")),
    ("lint_negated_let", "b / (w + 1) where `let w = -z;` and `let z = 1;`",
     fn_item("r", "b: i32) -> i32", "let z = 1;\nlet w = -z;\nb / (w + 1)")),
    ("shift_by_128_of_an_untyped_let", "y << x where `let x = 128;` and `let y = 1;` (past every width)",
     fn_item("r", ") -> i32", "let x = 128;\nlet y = 1;\ny << x")),
    ("lint_negated_typed_let", "b / (w + 1) where `let w = -z;` and `let z: i32 = 1;`",
     fn_item("r", "b: i32) -> i32", "let z: i32 = 1;\nlet w = -z;\nb / (w + 1)")),
    ("lint_let_cast_to_the_top_of_u8", "b / (y - 255) where `let y = x as u8;` and `let x = 255;`",
     fn_item("r", "b: u8) -> u8", "let x = 255;\nlet y = x as u8;\nb / (y - 255)")),
    ("lint_zero_let_cast", "b / y where `let y = x as u8;` and `let x = 0;`",
     fn_item("r", "b: u8) -> u8", "let x = 0;\nlet y = x as u8;\nb / y")),
    ("lint_typed_let_cast_wraps", "b / (y - 44) where `let y = x as u8;` and `let x: i32 = 300;`",
     fn_item("r", "b: u8) -> u8", "let x: i32 = 300;\nlet y = x as u8;\nb / (y - 44)")),
    ("lint_untyped_let_cast_wraps", "b / (y - 44) where `let y = x as u8;` and `let x = 300;`",
     fn_item("r", "b: u8) -> u8", "let x = 300;\nlet y = x as u8;\nb / (y - 44)")),
    ("lint_cast_through_a_float", "b / (y - 255) where `let y = x as f32 as u8;` and `let x = 300;`",
     fn_item("r", "b: u8) -> u8", "let x = 300;\nlet y = x as f32 as u8;\nb / (y - 255)")),
    ("lint_float_let_cast_to_an_int", "b / (y - 2) where `let y = x as u8;` and `let x = 2.5;`",
     fn_item("r", "b: u8) -> u8", "let x = 2.5;\nlet y = x as u8;\nb / (y - 2)")),
    ("lint_float_let_cast_truncates_as_an_f64", "b / (y - 2) where `let y = x as u8;` and `let x = 2.9999999999;` (an f64: 2)",
     fn_item("r", "b: u8) -> u8", "let x = 2.9999999999;\nlet y = x as u8;\nb / (y - 2)")),
    ("int_let_typed_through_a_copy", "x * b with b: i32 where `let y = (x);` and `let z: u32 = (y);` make x a u32",
     fn_item("r", "b: i32) -> i32", "let x = 3;\nlet y = (x);\nlet z: u32 = (y);\nx * b")),
    ("index_by_a_let_past_the_end", "a[k] where `let k = 5;` and a has 3 items",
     fn_item("r", ") -> i32", "let a = [1, 2, 3];\nlet k = 5;\na[k]")),
    ("compound_assign_of_another_int_type", "x += b with x: i64 and b: i32",
     fn_item("r", "b: i32) -> i64", "let mut x: i64 = 1;\nx += b;\nx")),
    ("compound_assign_of_another_float_type", "x *= b with x: f64 and b: f32",
     fn_item("r", "b: f32) -> f64", "let mut x: f64 = 1.0;\nx *= b;\nx")),
]


def gen_found_by_fuzzing() -> None:
    """Cases a random-expression fuzz against rustc found wrong (fixed arguments, no RNG: the
    other cases' arguments do not move)."""
    for t in ("i8", "u16", "i64", "usize"):
        lo, hi = int_range(t)
        pairs = [(p, q) for p, q in [(7, 2), (-7, 2), (7, -2), (-7, -2), (lo, -1), (lo, 1), (hi, 3), (5, 0), (0, 7)]
                 if in_range(t, p) and in_range(t, q)]
        for m in ("wrapping_div_euclid", "wrapping_rem_euclid"):
            add(f"fuzz_{t}_{m}", f"{t}::{m}", f"a: {t}, b: {t}", t, f"a.{m}(b)", pairs)
        for m in ("overflowing_div", "overflowing_rem", "overflowing_div_euclid", "overflowing_rem_euclid"):
            add(f"fuzz_{t}_{m}", f"{t}::{m}", f"a: {t}, b: {t}", f"({t}, bool)", f"a.{m}(b)", pairs)
    add("fuzz_div_by_a_call_on_literals", "a divisor a method call gives: no lint, a panic when it runs", "b: i32",
        "i32", "b / (7i32.trailing_zeros() as i32)", [(5,), (0,)])
    add("fuzz_overflow_through_a_call", "arithmetic on a method call's value wraps when it runs (no lint)", "b: u8",
        "u8", "(255u8.count_ones() as u8) * 40u8 + b", [(0,), (200,)])
    add("fuzz_checked_on_literals_unwrap_or", "an Option a method on literals gives", "b: u16", "u16",
        "98_u16.checked_rem(3_u16).unwrap_or(7_u16).wrapping_add(b) + 0u16.checked_div(0).unwrap_or(1)",
        [(0,), (65535,)])
    add("fuzz_f32_div_euclid_rounds", "f32::div_euclid computed in f32", "a: i32, y: f32", "f32",
        "(a as f32).div_euclid(y)", [(-265, -1.0000000150474662e+30), (-265, 0.1), (7, -2.0), (1, 3.0)])


def gen_constant_propagation() -> None:
    """What rustc's lints do not know (so it accepts the program, and the answer is what runs): a
    `let` borrowed, captured, formatted, assigned again, shadowed, or given by branches (fixed
    arguments, no RNG). Their rejected twins are in REJECTED (`lint_*`)."""
    add("lint_borrowed_let_divisor", "a zero `let` that is borrowed: no lint, a panic when it runs", "b: i32", "i32",
        "let z = 0;\nlet r = &z;\nb / z + *r", [(3,)])
    add("lint_captured_let_divisor", "a zero `let` a closure captures: no lint", "b: i32", "i32",
        "let z = 0;\nlet f = |x: i32| x + z;\nf(b) / z", [(3,)])
    add("lint_formatted_let_divisor", "a zero `let` a format macro reads: no lint", "b: i32", "i32",
        "let z = 0;\nassert!(z == 0, \"z is {}\", z);\nb / z", [(3,)])
    add("lint_cloned_let_divisor", "a zero `let` whose `clone()` borrows it: no lint", "b: i32", "i32",
        "let z = 0i32;\nlet w = z.clone();\nb / z + w", [(3,)])
    add("lint_reassigned_let_mut", "`let mut z = 0;` assigned again before b / z", "b: i32", "i32",
        "let mut z = 0;\nz = 1;\nb / z", [(7,), (-7,)])
    add("lint_let_mut_in_a_loop", "a `let mut` divisor changed in a loop", "b: i32", "i32",
        "let mut z = 0;\nlet mut s = 0;\nfor _ in 0..3 {\n    z += 1;\n    s += b / z;\n}\ns", [(7,), (-9,)])
    add("lint_shadowed_let", "`let z = 0;` shadowed by `let z = z + 1;`", "b: i32", "i32",
        "let z = 0;\nlet z = z + 1;\nb / z", [(7,)])
    add("lint_let_from_branches", "a divisor an `if` gives", "b: i32", "i32",
        "let z = if b > 0 { 0 } else { 1 };\nb / z", [(3,), (-3,)])
    add("lint_zero_let_as_a_method_argument", "b.wrapping_div(z) with `let z = 0;`: a call, no lint", "b: i32", "i32",
        "let z = 0;\nb.wrapping_div(z)", [(7,)])
    add("lint_let_typed_by_a_later_use", "`let x = 65536;` that a use makes i64: no overflow", "a: i64", "i64",
        "let x = 65536;\nlet y: i64 = x * x;\ny + a", [(0,), (1,)])
    add("lint_shift_by_a_let_in_range", "b >> s where `let s = 31;`", "b: u32", "u32", "let s = 31;\nb >> s",
        [(4294967295,), (1,)])


def gen_float_let_inference() -> None:
    """A float `let` without a type is the type its uses give it (f64 only when none does), and holds
    a value of that type: `let z = 0.1;` met by an f32 is 0.1f32 (fixed arguments, no RNG)."""
    add("float_let_typed_by_an_operand", "`let z = 0.1;` then b * z with b: f32", "b: f32", "f32",
        "let z = 0.1;\nb * z", [(3.0,), (1e30,), (-7.5,)])
    add("float_let_typed_by_the_return", "`let z = 0.1;` returned as an f32", "b: bool", "f32",
        "let z = 0.1;\nif b { z } else { -z }", [(True,), (False,)])
    add("float_let_typed_through_another", "`let w = z * 3.0;` that an f32 types, and z with it", "b: f32", "f32",
        "let z = 0.1;\nlet w = z * 3.0;\nb + w", [(1.0,), (0.0,)])
    add("float_let_typed_by_a_method_argument", "b.max(z) with `let z = 0.1;`", "b: f32", "f32",
        "let z = 0.1;\nb.max(z)", [(0.0,), (1.0,)])
    add("float_let_mut_typed_by_compound_assignment", "`let mut z = 0.1;` then z += b", "b: f32", "f32",
        "let mut z = 0.1;\nz += b;\nz", [(0.2,), (1e-9,)])
    add("float_let_typed_through_a_copy", "`let y = z;` that an f32 types", "b: f32", "f32",
        "let z = 0.1;\nlet y = z;\nb * y", [(3.0,)])
    add("float_let_f64_by_default", "`let z = 0.1;` that no use types: f64", "b: f64", "f64",
        "let z = 0.1;\nz * 3.0 + b", [(0.0,)])
    add("int_let_typed_by_a_later_let", "`let x = 2;` that `let y: i64 = x - 0;` makes an i64", "a: i64", "i64",
        "let x = 2;\nlet y: i64 = x - 0;\ny + a + x", [(5,), (9223372036854775805,)])
    add("negated_let_typed_by_use", "`let x = -2147483648;` that `let y: i64 = -x;` makes an i64", "a: i64", "i64",
        "let x = -2147483648;\nlet y: i64 = -x;\ny + a", [(0,), (-1,)])
    add("int_let_added_to_a_literal_typed_later", "`let m = 1;` then `let y: i64 = 2147483647 + m;`: no overflow",
        "a: i64", "i64", "let m = 1;\nlet y: i64 = 2147483647 + m;\ny + a", [(0,), (1,)])
    add("lint_let_in_a_borrowing_vec", "vec![&z] borrows z: no lint, a panic when it runs", "b: i32", "i32",
        "let z = 0i32;\nlet v = vec![&z];\nb / z + *v[0]", [(3,)])
    add("int_let_typed_through_a_copy", "`let y = x;` that `let z: u64 = y;` types, and x with it", "a: u64", "u64",
        "let x = 3;\nlet y = x;\nlet z: u64 = y;\nz + x + a", [(0,), (18446744073709551612,)])
    add("shift_by_a_zero_let", "y << s where `let s = 0;` and `let y = 5;`: in range", "a: i32", "i32",
        "let y = 5;\nlet s = 0;\n(y << s) + a", [(0,), (2,)])
    add("float_let_compared_with_an_f32", "b < z with `let z = 0.1;`", "b: f32", "bool",
        "let z = 0.1;\nb < z", [(0.1,), (0.09999,)])


def rejected_fixture(head: str, rustc: str, workdir: Path) -> list[dict]:
    """Each REJECTED program compiled alone; kept when rustc rejects it, with rustc's first error
    (code or lint name, message, primary span) in the coordinates of `head + program`."""
    head_lines = head.count("\n")
    out = []
    for name, what, items in REJECTED:
        standalone = "pub struct Probe {\n    n: usize,\n}\n" + items
        offset = head_lines - 3  # line L of `items` in standalone is line L + offset in the probe text
        src = workdir / f"rejected_{name}.rs"
        src.write_text(standalone, encoding="utf-8")
        proc = subprocess.run([rustc, "--crate-type=lib", "--emit=metadata", *PROFILE, "--error-format=json",
                               "--crate-name", "rejected", "-o", str(workdir / "rejected.rmeta"), str(src)],
                              capture_output=True, text=True, encoding="utf-8", cwd=workdir)
        errors = []
        for line in proc.stderr.splitlines():
            try:
                d = json.loads(line)
            except json.JSONDecodeError:
                continue
            if d.get("level") == "error" and not d["message"].startswith("aborting due to"):
                errors.append(d)
        if proc.returncode == 0 or not errors:
            print(f"rustc accepts rejected case {name!r}: dropped", file=sys.stderr)
            continue
        first = errors[0]
        span = next((s for s in first["spans"] if s["is_primary"]), first["spans"][0] if first["spans"] else None)
        code = first["code"]["code"] if first.get("code") else None
        out.append({
            "name": name, "what": what, "items": items, "code": code, "message": first["message"],
            "line": span["line_start"] + offset if span else None, "col": span["column_start"] if span else None,
            "n_errors": len(errors),
        })
    return out


# ------------------------------------------------------------------ the probe and the oracle program

ALLOWS = "#![allow(non_snake_case, uncommon_codepoints, confusable_idents, mixed_script_confusables)]"

PROBE_HEAD = f'''//! Host-code oracle probe: generated by tests/oracle/gen_host_cases.py; do not edit.
//!
//! Every associated function of `impl Probe` below is a case of tests/test_host_rustc.py, whose
//! answers (tests/data/host_oracle.json) are rustc's for the same functions, verbatim, compiled
//! with `rustc {" ".join(PROFILE)}`.

{ALLOWS}

use teeny_core::dtype::Float;
use teeny_macros::kernel;
use teeny_triton::triton::{{
    types::{{AddOffsets, Comparison}},
    *,
}};

/// A kernel, so that this is a teenygrad kernel file: copies `n` elements onto themselves.
#[kernel]
pub fn probe_forward<T: Triton, D: Float, const BLOCK_SIZE: i32>(x_ptr: InPtr<T::Pointer<D>>, n: i32)
where
    T::I32Tensor: types::Tensor<i32, 1>,
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<D>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
{{
    let offsets = T::arange(0, BLOCK_SIZE);
    let mask = offsets.lt(n);
    let x = T::load(x_ptr.add_offsets(offsets), Some(mask), None, &[], None, None, None, false);
    T::store(x_ptr.add_offsets(offsets), x, Some(mask), &[], None, None);
}}

/// The wrapper struct whose inherent functions are the cases.
pub struct Probe {{
    n: usize,
}}

impl teeny_core::model::RuntimeOp for Probe {{
    fn n_activation_inputs(&self) -> usize {{
        1
    }}

    fn param_shapes(&self, _: &[&[usize]], _: &[usize]) -> Vec<Vec<usize>> {{
        Vec::new()
    }}

    fn pack_args(
        &self,
        inputs: &[(teeny_core::model::RawPtr, &[usize])],
        _params: &[teeny_core::model::RawPtr],
        _output: teeny_core::model::RawPtr,
        _output_shape: &[usize],
        _output_row_stride: i32,
        visitor: &mut dyn teeny_core::device::program::ArgVisitor,
    ) {{
        visitor.visit_ptr(inputs[0].0);
        visitor.visit_i32(self.n as i32);
    }}

    fn grid(&self, _output_shape: &[usize]) -> [u32; 3] {{
        [1, 1, 1]
    }}
}}
'''

ORACLE_HEAD = f'''// The host-code oracle: generated by tests/oracle/gen_host_cases.py (compiled and run by it).
{ALLOWS}
#![allow(unused, dead_code)]

use std::cell::RefCell;
use std::hint::black_box as bb;
use std::panic::{{catch_unwind, AssertUnwindSafe}};

pub struct Probe {{
    n: usize,
}}
'''

ORACLE_TAIL = r'''
trait J {
    fn j(&self) -> String;
}

macro_rules! j_int {
    ($($t:ty),*) => {$(impl J for $t { fn j(&self) -> String { self.to_string() } })*};
}
j_int!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

impl J for bool {
    fn j(&self) -> String { self.to_string() }
}
impl J for f32 {
    fn j(&self) -> String { format!("{{\"f32\":\"{:08x}\"}}", self.to_bits()) }
}
impl J for f64 {
    fn j(&self) -> String { format!("{{\"f64\":\"{:016x}\"}}", self.to_bits()) }
}
impl J for () {
    fn j(&self) -> String { "null".to_string() }
}
impl<T: J> J for Option<T> {
    fn j(&self) -> String {
        match self { None => "null".to_string(), Some(v) => v.j() }
    }
}
impl<T: J> J for Vec<T> {
    fn j(&self) -> String { format!("[{}]", self.iter().map(|x| x.j()).collect::<Vec<_>>().join(",")) }
}
impl<T: J, const N: usize> J for [T; N] {
    fn j(&self) -> String { format!("[{}]", self.iter().map(|x| x.j()).collect::<Vec<_>>().join(",")) }
}
impl J for &str {
    fn j(&self) -> String { jstr(self) }
}
impl J for String {
    fn j(&self) -> String { jstr(self) }
}
macro_rules! j_tuple {
    ($($i:tt $T:ident),+) => {
        impl<$($T: J),+> J for ($($T,)+) {
            fn j(&self) -> String { format!("[{}]", [$(self.$i.j()),+].join(",")) }
        }
    };
}
j_tuple!(0 A);
j_tuple!(0 A, 1 B);
j_tuple!(0 A, 1 B, 2 C);
j_tuple!(0 A, 1 B, 2 C, 3 D);
j_tuple!(0 A, 1 B, 2 C, 3 D, 4 E);
j_tuple!(0 A, 1 B, 2 C, 3 D, 4 E, 5 F);
j_tuple!(0 A, 1 B, 2 C, 3 D, 4 E, 5 F, 6 G);
j_tuple!(0 A, 1 B, 2 C, 3 D, 4 E, 5 F, 6 G, 7 H);
j_tuple!(0 A, 1 B, 2 C, 3 D, 4 E, 5 F, 6 G, 7 H, 8 I);
j_tuple!(0 A, 1 B, 2 C, 3 D, 4 E, 5 F, 6 G, 7 H, 8 I, 9 K);

fn jstr(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

thread_local! {
    static LAST: RefCell<Option<(String, String, u32)>> = RefCell::new(None);
}

fn emit<R: J>(case: &str, call: usize, r: std::thread::Result<R>) {
    match r {
        Ok(v) => println!("{{\"case\":\"{}\",\"call\":{},\"result\":{}}}", case, call, v.j()),
        Err(_) => {
            let (msg, file, line) = LAST.with(|c| c.borrow_mut().take()).expect("a panic without the hook");
            println!("{{\"case\":\"{}\",\"call\":{},\"panic\":{},\"file\":{},\"line\":{}}}", case, call, jstr(&msg),
                     jstr(&file), line);
        }
    }
}

fn main() {
    std::panic::set_hook(Box::new(|info| {
        let msg = info.payload_as_str().unwrap_or("<a panic without a message>").to_string();
        let (file, line) = info.location().map(|l| (l.file().to_string(), l.line())).unwrap_or_default();
        LAST.with(|c| *c.borrow_mut() = Some((msg, file, line)));
    }));
    run_all();
}
'''


def render_probe(cases: list[Case]) -> tuple[str, dict[str, tuple[int, int]]]:
    """The probe's text and each case's (first, last) line: the `pub fn` line and its closing brace."""
    lines = PROBE_HEAD.splitlines()
    lines += ["", "impl Probe {", "    pub fn new(n: usize) -> Self {", "        Self { n }", "    }"]
    spans = {}
    for c in cases:
        lines.append("")
        body = c.lines()
        start = len(lines) + 2  # 1-based line of `pub fn` (after the comment)
        lines += body
        spans[c.name] = (start, len(lines))
    lines.append("}")
    return "\n".join(lines) + "\n", spans


def render_oracle(probe_text: str, cases: list[Case]) -> tuple[str, int]:
    """The oracle program (the probe's `impl Probe` verbatim) and the offset to add to one of its
    line numbers to get the probe's."""
    impl_at = probe_text.index("\nimpl Probe {\n") + 1
    impl_text = probe_text[impl_at:]
    head = ORACLE_HEAD + "\n"
    offset = probe_text[:impl_at].count("\n") - head.count("\n")
    runners = []
    for c in cases:
        arms = []
        for i, call in enumerate(c.args):
            rendered = ", ".join(f"bb({rust_value(ty, v)})" for (_, ty), v in zip(c.params, call, strict=True))
            arms.append(f"        {i} => Probe::{c.name}({rendered}),")
        runners.append(f"fn run_{c.name}() {{\n    let f = |i: usize| match i {{\n" + "\n".join(arms) +
                       "\n        _ => unreachable!(),\n    };\n"
                       f"    for i in 0..{len(c.args)} {{\n        emit(\"{c.name}\", i, catch_unwind(AssertUnwindSafe(|| f(i))));\n"
                       "    }\n}\n")
    run_all = "fn run_all() {\n" + "".join(f"    run_{c.name}();\n" for c in cases) + "}\n"
    return head + impl_text + ORACLE_TAIL + "\n" + "\n".join(runners) + "\n" + run_all, offset


def find_rustc() -> str:
    rustc = shutil.which("rustc")
    if rustc is None:
        sys.exit("gen_host_cases: rustc is needed (it computes the expected answers)")
    return rustc


def run_oracle(rustc: str, program: str, workdir: Path) -> list[dict]:
    src = workdir / "host_oracle_main.rs"
    src.write_text(program, encoding="utf-8")
    exe = workdir / "host_oracle_main"
    proc = subprocess.run([rustc, *PROFILE, "--crate-name", "host_oracle_main", "-o", str(exe), src.name],
                          capture_output=True, text=True, encoding="utf-8", cwd=workdir)
    if proc.returncode != 0:
        sys.exit("gen_host_cases: the oracle program does not compile:\n" + "\n".join(
            ln for ln in proc.stderr.splitlines() if not ln.startswith("warning"))[:20000])
    run = subprocess.run([str(exe)], capture_output=True, text=True, encoding="utf-8", cwd=workdir,
                         env={**os.environ, "RUST_BACKTRACE": "0"})
    if run.returncode != 0:
        sys.exit(f"gen_host_cases: the oracle program failed ({run.returncode}):\n{run.stderr[-4000:]}")
    return [json.loads(line) for line in run.stdout.splitlines()]


def build(workdir: Path) -> tuple[str, str]:
    """(probe text, fixture text)."""
    for gen in (gen_operators, gen_int_methods, gen_float_methods, gen_casts, gen_constants, gen_literals,
                gen_strings, gen_collections, gen_control, gen_identifiers, gen_found_by_fuzzing,
                gen_constant_propagation, gen_float_let_inference):
        gen()
    rustc = find_rustc()
    version = subprocess.run([rustc, "--version"], capture_output=True, text=True, check=True).stdout.strip()
    probe, spans = render_probe(CASES)
    program, offset = render_oracle(probe, CASES)
    results = run_oracle(rustc, program, workdir)
    by_call = {(r["case"], r["call"]): r for r in results}
    cases = []
    for c in CASES:
        first, last = spans[c.name]
        calls = []
        for i, call in enumerate(c.args):
            r = by_call[(c.name, i)]
            entry = {"args": [encode(ty, v) for (_, ty), v in zip(c.params, call, strict=True)]}
            if "panic" in r:
                entry["panic"] = r["panic"]
                # where rustc says it panicked: a line of the case, or none (inside the standard library)
                entry["panic_line"] = r["line"] + offset if r["file"] == "host_oracle_main.rs" else None
                if entry["panic_line"] is not None:
                    assert first <= entry["panic_line"] <= last, (c.name, entry)
            else:
                entry["result"] = r["result"]
            calls.append(entry)
        cases.append({"name": c.name, "group": c.group, "line": first, "end_line": last,
                      "params": [[n, t] for n, t in c.params], "ret": c.ret, "calls": calls})
    rejected_head = PROBE_HEAD + "\n"
    rejected = rejected_fixture(rejected_head, rustc, workdir)
    fixture = {
        "about": "rustc's answers for the host-code cases of tests/kernels/host_oracle.rs, generated by "
                 "tests/oracle/gen_host_cases.py; do not edit",
        "rustc": version,
        "profile": f"rustc {' '.join(PROFILE)}",
        "probe": "tests/kernels/host_oracle.rs",
        "encoding": "ints as JSON numbers; f32/f64 as {\"f32\": hex bits}; Option as null or its value; tuples, "
                    "arrays and Vecs as lists; a call that panics has \"panic\" (rustc's message) and "
                    "\"panic_line\" (the probe line rustc names, or null when the panic is inside std)",
        "cases": cases,
        "rejected_head": rejected_head,
        "rejected": rejected,
    }
    return probe, dump_fixture(fixture)


def dump_fixture(fixture: dict) -> str:
    """JSON with one call (and one rejected program) a line: small, and diffs read well."""
    def one(v) -> str:
        return json.dumps(v, ensure_ascii=False, separators=(", ", ": "))

    out = ["{"]
    for key, value in fixture.items():
        if key == "cases":
            out.append(' "cases": [')
            for i, c in enumerate(value):
                head = {k: v for k, v in c.items() if k != "calls"}
                out.append("  " + one(head)[:-1] + ', "calls": [')
                out += ["   " + one(call) + ("," if j < len(c["calls"]) - 1 else "") for j, call in enumerate(c["calls"])]
                out.append("  ]}" + ("," if i < len(value) - 1 else ""))
            out.append(" ],")
        elif key == "rejected":
            out.append(' "rejected": [')
            out += ["  " + one(r) + ("," if i < len(value) - 1 else "") for i, r in enumerate(value)]
            out.append(" ]")
        else:
            out.append(f" {one(key)}: {one(value)},")
    out.append("}")
    text = "\n".join(out) + "\n"
    assert json.loads(text) == fixture
    return text


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="regenerate in memory and fail if the files differ")
    ap.add_argument("--regenerate", action="store_true", help="write the files (the default)")
    ap.add_argument("--keep", metavar="DIR", help="keep the oracle program and its build in DIR")
    args = ap.parse_args()
    if args.keep:
        workdir = Path(args.keep)
        workdir.mkdir(parents=True, exist_ok=True)
        probe, fixture = build(workdir)
    else:
        with tempfile.TemporaryDirectory(prefix="host_oracle_") as tmp:
            probe, fixture = build(Path(tmp))
    n_calls = sum(len(c.args) for c in CASES)
    if args.check:
        same = PROBE_PATH.read_text(encoding="utf-8") == probe and FIXTURE_PATH.read_text(encoding="utf-8") == fixture
        print(f"{len(CASES)} cases, {n_calls} calls: " + ("up to date" if same else "the files differ: regenerate"))
        return 0 if same else 1
    PROBE_PATH.write_text(probe, encoding="utf-8")
    FIXTURE_PATH.write_text(fixture, encoding="utf-8")
    n_rejected = len(json.loads(fixture)["rejected"])
    print(f"wrote {PROBE_PATH.relative_to(ROOT)} and {FIXTURE_PATH.relative_to(ROOT)}: {len(CASES)} cases, "
          f"{n_calls} calls, {n_rejected} rejected programs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
