"""Held-out host programs against rustc's verdict: random `let`s (typed or not, `mut`, assigned
again, borrowed) and an expression over them, each compiled by rustc and transpiled by rs2triton.

    python tests/oracle/fuzz_lets.py [--seed S] [--programs N]

Where fuzz_host.py compares the values of programs rustc accepts, this compares what each side
accepts (a `let` may be given by branches, and be assigned in a loop): rustc's type inference of `let`s (an integer or a float, the type a use gives it) and
its lints on what its constant propagation knows (`let z = 0; b / z`) decide whether a program
compiles, and rs2triton must reject exactly those rustc rejects, at the line rustc names when it
names one error (with several, rustc reports its type errors before its lints, a whole-crate
order rs2triton does not keep: the verdict alone is compared). It prints each program whose
verdicts (or error lines) differ and exits 1 when one does. Needs rustc on PATH; 150 programs
take about half a minute.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import tests.oracle.gen_host_cases as G  # noqa: E402

HEAD = json.loads((ROOT / "tests/data/host_oracle.json").read_text(encoding="utf-8"))["rejected_head"]
INTS = ["0", "1", "-1", "2", "3", "31", "40", "255", "i32::MAX", "i32::MIN", "0i32", "7u8", "0u8", "65536"]
FLOATS = ["0.1", "0.5", "0.0", "1e-3", "2.5f32", "1.0f64"]
TYPES = [": i32", ": u8", ": i64", ": u32", ": f32", ": f64"]
OPS = ["/", "%", "+", "-", "*", "<<", ">>", "&", "|"]
PARAMS = "b: i32, f: f32, g: f64"


def program(r: random.Random) -> str:
    """`impl Probe { pub fn r(b: i32, f: f32, g: f64) -> i32 { <lets> let out = <expr>; 0 } }`."""
    names: list[str] = []
    lines: list[str] = []
    for i in range(r.randint(1, 3)):
        n = "xyz"[i]
        if names and r.random() < 0.4:
            a = r.choice(names)
            value = r.choice([f"{a} - {r.choice(INTS[:5])}", f"{a} * 2", f"-{a}", f"{a} as i32", f"({a})",
                              f"{a} + {a}", f"{a} * 3.0"])
        elif r.random() < 0.15:  # (a value from branches: each a literal, of one class or not)
            pool = INTS if r.random() < 0.6 else FLOATS
            value = f"if b > 0 {{ {r.choice(pool)} }} else {{ {r.choice(pool if r.random() < 0.8 else INTS + FLOATS)} }}"
        else:
            value = r.choice(INTS if r.random() < 0.8 else FLOATS)
        mut = "mut " if r.random() < 0.3 else ""
        lines.append(f"let {mut}{n}{r.choice(TYPES) if r.random() < 0.35 else ''} = {value};")
        if mut and r.random() < 0.5:
            step = f"{n} {r.choice(['=', '+=', '*='])} {r.choice(INTS[:4] + FLOATS[:2] + ['b', 'f'])};"
            lines.append(f"for i in 0..3 {{ {step} }}" if r.random() < 0.3 else step)  # (a use inside a loop)
        if r.random() < 0.15:
            lines.append(r.choice([f"let r{i} = &{n};", f"let c{i} = {n}.clone();", f'assert!(b != 9, "{{}}", {n});']))
        names.append(n)
    a, c = r.choice(names), r.choice(names)
    op = r.choice(OPS)
    tail = r.choice([f"b {op} {a}", f"{a} {op} {c}", f"f * {a}", f"{a} {op} b", f"(b {op} {a}) as i32", f"g + {a}",
                     f"{a} {op} {c} {r.choice(OPS)} b"])
    body = "\n".join([*lines, f"let out = {tail};", "0"])
    return G.fn_item("r", f"{PARAMS}) -> i32", body)


def rustc_verdict(rustc: str, items: str, work: Path) -> tuple[int, int, int] | None:
    """None when rustc accepts ``items``; else its first error's (line, column) in the probe text,
    and how many errors it reports."""
    src = work / "p.rs"
    src.write_text("#![allow(unused)]\npub struct Probe {\n    n: usize,\n}\n" + items, encoding="utf-8")
    proc = subprocess.run([rustc, "--crate-type=lib", "--emit=metadata", *G.PROFILE, "--error-format=json",
                           "--crate-name", "p", "-o", str(work / "p.rmeta"), str(src)],
                          capture_output=True, text=True, encoding="utf-8", cwd=work)
    if proc.returncode == 0:
        return None
    errors = [d for line in proc.stderr.splitlines() if line.startswith("{")
              and (d := json.loads(line)).get("level") == "error" and d.get("spans")]
    if not errors:
        return 0, 0, 0
    span = next((s for s in errors[0]["spans"] if s["is_primary"]), errors[0]["spans"][0])
    return span["line_start"] - 4 + HEAD.count("\n"), span["column_start"], len(errors)


def ours(items: str) -> tuple[int, int] | None:
    """None when rs2triton transpiles ``items``; else its first diagnostic's (line, column)."""
    from rs2triton.diagnostics import TranspileError
    from rs2triton.transpiler.driver.pipeline import transpile_source

    try:
        transpile_source(HEAD + items, "probe.rs")
    except TranspileError as e:
        return e.diagnostics[0].line, e.diagnostics[0].col
    return None


KERNEL_HEAD = "use teeny_triton::triton::*;\n\n#[kernel]\npub fn r<T: Triton, D: Float>(x_ptr: T::Pointer<D>, "
_HOST_ONLY = ("&", ".clone()", "assert!")  # (a borrow, a clone, a macro: no kernel has them)


def in_kernel(items: str) -> str | None:
    """The same statements as the body of a `#[kernel]` with the same parameters (the host case's
    `0` tail left out: a kernel returns nothing), or None where a statement is one no kernel has."""
    lines = items.splitlines()[2:-3]  # (the body of `impl Probe { pub fn r(..) -> i32 { .. } }`, less `0`)
    if any(h in line for line in lines for h in _HOST_ONLY if not line.lstrip().startswith("let out")):
        return None
    return KERNEL_HEAD + PARAMS + ") {\n" + "\n".join("    " + line.strip() for line in lines) + "\n}\n"


def kernel_verdict(src: str) -> tuple[int, int] | None:
    """None when rs2triton transpiles the kernel ``src``; else its first diagnostic's (line, column),
    counted from the body's first line and its indentation, as :func:`host_place` counts them."""
    from rs2triton.diagnostics import TranspileError
    from rs2triton.transpiler.driver.pipeline import transpile_source

    try:
        transpile_source(src, "kernels/probe.rs")
    except TranspileError as e:
        return e.diagnostics[0].line - (KERNEL_HEAD.count("\n") + 1), e.diagnostics[0].col - 4
    return None


def host_place(got: tuple[int, int] | None) -> tuple[int, int] | None:
    """A host verdict (:func:`ours`) counted as :func:`kernel_verdict` counts a kernel's."""
    return None if got is None else (got[0] - (HEAD.count("\n") + 2), got[1] - 8)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--programs", type=int, default=150)
    ap.add_argument("--kernels", action="store_true",
                    help="also give each program to a #[kernel] and print where its verdict is not host code's")
    args = ap.parse_args()
    r = random.Random(args.seed)
    rustc = G.find_rustc()
    differ = rejected = kernels = kernel_differ = 0
    with tempfile.TemporaryDirectory(prefix="fuzz_lets_") as tmp:
        for _ in range(args.programs):
            items = program(r)
            want, got = rustc_verdict(rustc, items, Path(tmp)), ours(items)
            rejected += want is not None
            kernel = in_kernel(items) if args.kernels else None
            if kernel is not None:
                kernels += 1
                in_k, in_h = kernel_verdict(kernel), host_place(got)
                if in_k != in_h:
                    kernel_differ += 1
                    print(f"---- host code {'accepts' if in_h is None else f'rejects at {in_h}'}, "
                          f"the kernel {'accepts' if in_k is None else f'rejects at {in_k}'}:\n{kernel}")
            if (want is None) != (got is None) or (want is not None and got is not None and want[2] == 1
                                                    and want[0] != got[0]):
                differ += 1
                print(f"---- rustc {'accepts' if want is None else f'rejects at {want}'}, "
                      f"rs2triton {'accepts' if got is None else f'rejects at {got}'}:\n{items}")
    print(f"seed {args.seed}: {differ} of {args.programs} programs differ from rustc ({rejected} rejected by rustc)")
    if args.kernels:
        print(f"seed {args.seed}: {kernel_differ} of {kernels} programs given to a kernel too get another verdict there")
    return 1 if differ or kernel_differ else 0


if __name__ == "__main__":
    sys.exit(main())
