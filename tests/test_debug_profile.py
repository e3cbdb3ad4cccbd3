"""Rust's two profiles in kernels: the release build (the default: `+ - *` wrap, shift amounts
masked) and the debug build (`transpile --debug`, `rs2triton.load(..., debug=True)`,
`RS2TRITON_PROFILE=debug`), whose kernels panic where Rust's debug build panics (overflow,
shifts by the width or more, `/` and `%` by zero, `MIN / -1`, `-MIN`), naming the Rust
`file:line:col`. Each case is held to a model of Rust's arithmetic, and the model to rustc's
answers (built with and without overflow checks) where rustc is installed.
"""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest
import torch

import rs2triton
from rs2triton.runtime.panics import KernelPanic
from rs2triton.transpiler.driver.pipeline import debug_build, transpile_source

DEVICE = "cpu"
BITS = {"i8": 8, "u8": 8, "i16": 16, "u16": 16, "i32": 32, "u32": 32, "i64": 64, "u64": 64}
TORCH = {"i8": torch.int8, "u8": torch.uint8, "i32": torch.int32, "u32": torch.uint32, "i64": torch.int64}
OPS = {"+": "add", "-": "sub", "*": "mul", "/": "div", "%": "rem", "<<": "shl", ">>": "shr"}
MESSAGES = {"+": "attempt to add with overflow", "-": "attempt to subtract with overflow",
            "*": "attempt to multiply with overflow", "/": "attempt to divide with overflow",
            "%": "attempt to calculate the remainder with overflow", "<<": "attempt to shift left with overflow",
            ">>": "attempt to shift right with overflow", "neg": "attempt to negate with overflow"}
ZERO = {"/": "attempt to divide by zero", "%": "attempt to calculate the remainder with a divisor of zero"}
TENSOR_TYPES = ("i8", "u8", "i32", "u32", "i64")  # elements of loaded blocks (torch has these on the CPU)
SCALAR_TYPES = ("i32", "u32", "i64", "u64")  # kernel parameters


def limits(ty: str) -> tuple[int, int]:
    bits = BITS[ty]
    return (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if ty[0] == "i" else (0, (1 << bits) - 1)


def wrap(v: int, ty: str) -> int:
    bits = BITS[ty]
    v &= (1 << bits) - 1
    return v - (1 << bits) if ty[0] == "i" and v >> (bits - 1) else v


def rust(op: str, a: int, b: int | None, ty: str, debug: bool) -> tuple[str, int | str]:
    """("value", v) or ("panic", Rust's message) for `a op b` of type `ty` (b None: `-a`)."""
    lo, hi = limits(ty)
    bits = BITS[ty]
    if op == "neg":
        assert b is None
        return ("panic", MESSAGES["neg"]) if debug and a == lo and ty[0] == "i" else ("value", wrap(-a, ty))
    assert b is not None
    if op in ("/", "%"):
        if b == 0:
            return "panic", ZERO[op]
        if ty[0] == "i" and a == lo and b == -1:
            return "panic", MESSAGES[op]
        q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)  # toward zero
        return "value", q if op == "/" else a - b * q
    if op in ("<<", ">>"):
        if debug and not 0 <= b < bits:  # (a negative amount is a huge u32)
            return "panic", MESSAGES[op]
        s = b & (bits - 1)
        if op == "<<":
            return "value", wrap(a << s, ty)
        return "value", (a >> s) if ty[0] == "i" else ((a & ((1 << bits) - 1)) >> s)
    exact = a + b if op == "+" else a - b if op == "-" else a * b
    if debug and not lo <= exact <= hi:
        return "panic", MESSAGES[op]
    return "value", wrap(exact, ty)


def cases(ty: str, op: str) -> list[tuple[int, int]]:
    lo, hi = limits(ty)
    bits = BITS[ty]
    signed = ty[0] == "i"
    if op in ("<<", ">>"):
        out = [(5, 0), (5, 1), (lo if signed else hi, bits - 1), (3, bits), (3, bits + 3)]
        return out + ([(5, -1)] if signed else [])
    out = [(3, 4), (hi, 1), (hi, 2), (lo + 1 if signed else 1, 3 if signed else 2)]
    if op in ("/", "%"):
        out = [(7, 2), (hi, 3), (7, 0)] + ([(lo, -1), (-7, 2)] if signed else [])
    elif op == "-":
        out += [(lo, 1), (0, 1)]
    elif signed:
        out += [(lo, 1), (lo, -1), (-3, 5)]
    return out


def _load(ptr: str, ty: str) -> str:
    return f"T::load({ptr}.add_offsets(offs), None, None, &[], None, None, None, false)"


def kernels_source() -> str:
    out = ["use teeny_triton::triton::*;\n"]
    for ty in TENSOR_TYPES:
        for op, stem in OPS.items():
            out.append(f"#[kernel]\npub fn t_{stem}_{ty}<T: Triton>(a_ptr: T::Pointer<{ty}>, b_ptr: T::Pointer<{ty}>, "
                       f"out_ptr: T::Pointer<{ty}>) {{\n    let offs = T::arange(0, 1);\n"
                       f"    let a = {_load('a_ptr', ty)};\n    let b = {_load('b_ptr', ty)};\n"
                       f"    T::store(out_ptr.add_offsets(offs), a {op} b, None, &[], None, None);\n}}\n")
    for ty in SCALAR_TYPES:
        for op, stem in [*OPS.items(), ("neg", "neg")]:
            if op == "neg" and ty[0] == "u":
                continue
            expr = "-a" if op == "neg" else f"a {op} b"
            out.append(f"#[kernel]\npub fn s_{stem}_{ty}<T: Triton>(out_ptr: T::Pointer<i64>, a: {ty}, b: {ty}) {{\n"
                       f"    let offs = T::arange(0, 1);\n    let r = {expr};\n"
                       f"    T::store(out_ptr.add_offsets(offs), T::full(&[1], r as i64), None, &[], None, None);\n}}\n")
    return "\n".join(out)


@pytest.fixture(scope="module")
def modules(tmp_path_factory):
    folder = tmp_path_factory.mktemp("profiles")
    src = folder / "profiles.rs"
    src.write_text(kernels_source())
    return {debug: rs2triton.load(src, interpret=True, debug=debug) for debug in (False, True)}


def _launch(mod, kernel: str, ty: str, args: list[int], tensor: bool):
    launcher = getattr(mod, "".join(w.capitalize() for w in kernel.split("_")))
    if tensor:
        a, b = (torch.tensor([v], dtype=torch.int64).to(TORCH[ty]) for v in args)
        out = torch.zeros(1, dtype=TORCH[ty])
        launcher()[(1,)](a, b, out)
        return wrap(int(out.to(torch.int64)[0]), ty)
    out = torch.zeros(1, dtype=torch.int64)
    launcher()[(1,)](out, *args)
    return wrap(int(out[0]), ty)


def _check(modules, kernel: str, ty: str, op: str, a: int, b: int | None, tensor: bool) -> None:
    args = [a] if b is None else [a, b]
    if b is None:
        args = [a, 0]
    for debug in (False, True):
        kind, want = rust(op, a, b, ty, debug)
        if kind == "panic" and not debug:
            continue  # `/` and `%` by zero, MIN / -1: unchecked in the release profile (docs/translation.md)
        if kind == "panic":
            with pytest.raises(KernelPanic) as info:
                _launch(modules[debug], kernel, ty, args, tensor)
            assert info.value.message == want, (kernel, a, b)
            assert info.value.location.startswith("profiles.rs:") or "profiles.rs:" in info.value.location
            assert f"panicked at {info.value.location}: {want}" in str(info.value)
        else:
            got = _launch(modules[debug], kernel, ty, args, tensor)
            assert got == want, (kernel, "debug" if debug else "release", a, b)


@pytest.mark.parametrize("ty", TENSOR_TYPES)
@pytest.mark.parametrize("op", list(OPS))
def test_block_integer_arithmetic_in_both_profiles(modules, ty, op):
    for a, b in cases(ty, op):
        _check(modules, f"t_{OPS[op]}_{ty}", ty, op, a, b, tensor=True)


@pytest.mark.parametrize("ty", [t for t in SCALAR_TYPES if t[0] == "i"])  # (`-x` of an unsigned x is E0600)
def test_scalar_negation_in_both_profiles(modules, ty):
    for a in (5, limits(ty)[0], limits(ty)[1]):
        _check(modules, f"s_neg_{ty}", ty, "neg", a, None, tensor=False)


@pytest.mark.parametrize("ty", SCALAR_TYPES)
@pytest.mark.parametrize("op", list(OPS))
def test_scalar_integer_arithmetic_in_both_profiles(modules, ty, op):
    for a, b in cases(ty, op):
        if ty[0] == "u" and b < 0:
            continue
        _check(modules, f"s_{OPS[op]}_{ty}", ty, op, a, b, tensor=False)


def test_the_panic_names_the_rust_line_and_column(modules):
    """Rust's debug build says where: `panicked at profiles.rs:LINE:COL`, the expression's start."""
    src = kernels_source().splitlines()
    with pytest.raises(KernelPanic) as info:
        _launch(modules[True], "s_add_i32", "i32", [2**31 - 1, 1], tensor=False)
    file, line, col = info.value.location.rsplit(":", 2)
    assert file.endswith("profiles.rs")
    text = src[int(line) - 1]
    assert text[int(col) - 1:].startswith("a + b"), text


@pytest.mark.skipif(shutil.which("rustc") is None, reason="rustc is not installed")
def test_the_model_is_rustcs_in_both_profiles(tmp_path):
    """The expectations above, held to a Rust program compiled with overflow checks (debug) and
    without them (release): each case's value, or its panic message."""
    lines, want = [], {False: [], True: []}
    for ty in sorted(set(TENSOR_TYPES) | set(SCALAR_TYPES)):
        for op in [*OPS, "neg"]:
            if op == "neg":
                if ty[0] == "u":
                    continue
                pairs: list[tuple[int, int | None]] = [(5, None), (limits(ty)[0], None)]
            else:
                pairs = list(cases(ty, op))
            for a, b in pairs:
                if op in ("<<", ">>"):
                    assert b is not None
                    expr = f"x {op} (bb({b}i128 as {ty}) as u32)" if b >= 0 else f"x {op} bb({b}{ty})"
                else:
                    expr = "-x" if op == "neg" else f"x {op} bb({b}i128 as {ty})"
                lines.append(f"    case(|| {{ let x = bb({a}i128 as {ty}); ({expr}) as i128 }});")
                for debug in (False, True):
                    kind, v = rust(op, a, b, ty, debug)
                    want[debug].append(f"{kind} {v}")
    prog = tmp_path / "profiles.rs"
    prog.write_text(
        "use std::hint::black_box as bb;\n"
        "fn case<F: FnOnce() -> i128 + std::panic::UnwindSafe>(f: F) {\n"
        "    match std::panic::catch_unwind(f) {\n"
        "        Ok(v) => println!(\"value {}\", v),\n"
        "        Err(e) => println!(\"panic {}\", e.downcast_ref::<&str>().map(|s| s.to_string())"
        ".or_else(|| e.downcast_ref::<String>().cloned()).unwrap()),\n"
        "    }\n}\n"
        "fn main() {\n    std::panic::set_hook(Box::new(|_| {}));\n" + "\n".join(lines) + "\n}\n")
    for debug in (False, True):
        exe = tmp_path / f"profiles_{debug}"
        flags = ["-C", f"overflow-checks={'on' if debug else 'off'}", "-C", "opt-level=1"]
        subprocess.run(["rustc", "--edition", "2021", *flags, "-o", str(exe), str(prog)], check=True,
                       capture_output=True, timeout=300)
        got = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.splitlines()
        assert got == want[debug]


def test_release_is_the_default_and_debug_is_asked_for():
    src = b"""use teeny_triton::triton::*;
#[kernel]
pub fn k<T: Triton>(out_ptr: T::Pointer<i32>, a: i32, b: i32, s: u32) {
    let offs = T::arange(0, 4);
    let r = (a + b) * (a / b) - (a % b);
    T::store(out_ptr.add_offsets(offs), T::full(&[4], (r << s) + -a), None, &[], None, None);
}
"""
    release = transpile_source(src, "k.rs").text
    debug = transpile_source(src, "k.rs", debug=True).text
    assert release is not None and debug is not None
    assert "device_assert" not in release and "debug=True" not in release
    assert "r = (a + b) * (a // b) - a % b" in release and "r << (s & 31)" in release
    for helper in ("add", "mul", "div", "rem", "sub", "shl", "neg"):
        assert f"def _checked_{helper}_i32(" in debug or f"def _checked_{helper}_u32(" in debug, helper
    assert '_checked_div_i32(a, b, "k.rs:5:24")' in debug
    assert "debug=True," in debug  # the launcher compiles it with Triton's debug option


def test_the_profile_comes_from_the_argument_or_the_environment(monkeypatch):
    monkeypatch.delenv("RS2TRITON_PROFILE", raising=False)
    assert debug_build(None, "x") is False and debug_build(True, "x") is True
    monkeypatch.setenv("RS2TRITON_PROFILE", "debug")
    assert debug_build(None, "x") is True and debug_build(False, "x") is False
    monkeypatch.setenv("RS2TRITON_PROFILE", "fast")
    with pytest.raises(ValueError, match="RS2TRITON_PROFILE='fast' names no profile"):
        debug_build(None, "rs2triton.load")
    with pytest.raises(TypeError, match="`debug` must be True, False or None"):
        debug_build("yes", "rs2triton.load")  # type: ignore[arg-type]


def test_transpile_debug_on_the_command_line(tmp_path):
    src = tmp_path / "k.rs"
    src.write_text("use teeny_triton::triton::*;\n#[kernel]\npub fn k<T: Triton>(out_ptr: T::Pointer<i32>, a: i32) {\n"
                   "    let offs = T::arange(0, 1);\n"
                   "    T::store(out_ptr.add_offsets(offs), T::full(&[1], a * a), None, &[], None, None);\n}\n")
    cmd = [sys.executable, "-m", "rs2triton", "transpile", "-q", str(src)]
    env = {**__import__("os").environ, "RS2TRITON_NO_CACHE": "1"}
    env.pop("RS2TRITON_PROFILE", None)
    subprocess.run([*cmd, "-o", str(tmp_path / "release")], check=True, env=env)
    subprocess.run([*cmd, "--debug", "-o", str(tmp_path / "debug")], check=True, env=env)
    subprocess.run([*cmd, "-o", str(tmp_path / "env")], check=True, env={**env, "RS2TRITON_PROFILE": "debug"})
    release, debug = (tmp_path / "release/k.py").read_text(), (tmp_path / "debug/k.py").read_text()
    assert "_checked_mul_i32" not in release and '_checked_mul_i32(a, a, "k.rs:5:55")' in debug
    assert (tmp_path / "env/k.py").read_text() == debug
    check = [sys.executable, "-m", "rs2triton", "check", str(src)]
    assert subprocess.run([*check, "--debug", "-o", str(tmp_path / "debug")], env=env).returncode == 0
    stale = subprocess.run([*check, "--debug", "-o", str(tmp_path / "release")], env=env, capture_output=True, text=True)
    assert stale.returncode == 1 and f"run: rs2triton transpile {src} --debug -o" in stale.stderr, stale.stderr
    bad = subprocess.run([*cmd, "-o", str(tmp_path / "bad")], env={**env, "RS2TRITON_PROFILE": "fast"},
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "names no profile" in bad.stderr and not (tmp_path / "bad").exists()


def test_a_debug_build_compiles_with_its_assertions(tmp_path):
    """For sm_90 and gfx942, with Triton's debug option (the launcher's), each check is a
    `tt.assert` in the TTIR; the release build has none, and masks a run-time shift amount."""
    from tests.compile_helper import compile_in_subprocess

    src = tmp_path / "profiles.rs"
    src.write_text(kernels_source())
    requests = [{"file": str(src), "kernel": kernel, "target": target, "dtypes": {}, "consts": {}, "debug": debug,
                 "options": {"debug": debug, "sanitize_overflow": False},
                 "count": {"asserts": ["ttir", "tt.assert"], "masks": ["ttir", "arith.andi"]}}
                for kernel in ("s_mul_i64", "s_div_i32", "t_shl_u32", "s_add_u32")
                for target in ("cuda:90", "hip:gfx942") for debug in (False, True)]
    results = compile_in_subprocess(requests)
    for r in results:
        assert r["ok"], r.get("error")
        want = {"s_mul_i64": 1, "s_div_i32": 2, "t_shl_u32": 1, "s_add_u32": 1}[r["kernel"]] if r["debug"] else 0
        assert r["counts"]["asserts"] == want, r
        if r["kernel"] == "t_shl_u32" and not r["debug"]:
            assert r["counts"]["masks"] == 1, r


def test_run_debug_reports_the_panic_and_release_wraps(tmp_path):
    src = tmp_path / "r.rs"
    src.write_text("use teeny_triton::triton::*;\n#[kernel]\npub fn mul<T: Triton>(x_ptr: T::Pointer<i32>, "
                   "y_ptr: T::Pointer<i32>, k: i32) {\n    let offs = T::arange(0, 4);\n"
                   "    let x = T::load(x_ptr.add_offsets(offs), None, None, &[], None, None, None, false);\n"
                   "    T::store(y_ptr.add_offsets(offs), x * k, None, &[], None, None);\n}\n")
    env = {**__import__("os").environ, "TRITON_INTERPRET": "1"}
    env.pop("RS2TRITON_PROFILE", None)
    cmd = [sys.executable, "-m", "rs2triton", "run", str(src), "mul", "--grid", "1", "-a", "x_ptr=4", "-a", "y_ptr=4",
           "-a", "k=2147483647"]
    debug = subprocess.run([*cmd, "--debug"], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert debug.returncode == 1, debug.stderr
    assert "error: mul: the kernel panicked at " in debug.stderr and "r.rs:6:39: attempt to multiply with overflow" \
        in debug.stderr and "Traceback" not in debug.stderr
    release = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=tmp_path)
    assert release.returncode == 0 and "y_ptr        written" in release.stdout, release.stderr
