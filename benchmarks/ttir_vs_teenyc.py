"""TTIR op counts of rs2triton's kernels next to teenyc's MLIR, on teenygrad's tile branch.

    python benchmarks/ttir_vs_teenyc.py TEENYGRAD_CHECKOUT [--all]

teenygrad's tests snapshot the Triton-dialect MLIR its own compiler (teenyc) emits for each
kernel (``kernels/teeny-kernels/tests/snapshots/*_mlir.snap``, and teeny-triton's
``test_tile__tile_smoke_mlir.snap``). For every snapshot of a ``#[tiled_kernel]`` (``--all``:
of every kernel) and for ``tile_smoke``, this reads the kernel's dtype and constants from the
snapshot's mangled name (``...LlvmTritonfKl400_E``: f32, 1024), compiles rs2triton's
translation for sm_90 with the same ones (no GPU needed) and counts the operations of Triton's
TTIR (after its cleanup passes: inlining, canonicalization, CSE, dead-code elimination).

Counted on both sides: every operation inside a function, ``tt.func`` and ``tt.return`` aside;
teenyc's ``*_entry_point`` wrapper (a ``tt.call`` of the kernel) is left out, the functions it
calls (``from_f64`` and the like, not inlined by teenyc) are counted.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rs2triton.transpiler.driver.pipeline import find_kernels  # noqa: E402

_OP = re.compile(r'^\s*(?:%[\w#:, %]+ = )?"?([a-z_]+\.[a-z_.]+)', re.M)
_SKIP = {"builtin.module", "tt.func", "tt.return"}
# Rust v0 mangling of the generic arguments after `LlvmTriton`: basic types, then consts,
# `K<type><hex>_`, or `KB<base62>_`, a back-reference to a const spelt earlier in the symbol.
_BASIC = {"f": "f32", "d": "f64", "l": "i32", "m": "u32", "x": "i64", "y": "u64", "b": "bool"}
_ARG = re.compile(r"K(?:B([0-9a-zA-Z]*)_|([a-z])(n?)([0-9a-f]*)_)|([a-z])")
_CONST = re.compile(r"[a-z](n?)([0-9a-f]*)_")
_B62 = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _const(sign: str, digits: str) -> int:
    value = int(digits or "0", 16)
    return -value if sign else value


def op_count(mlir: str) -> int:
    """Operations in the module's functions, the `*_entry_point` wrapper left out."""
    total, skip = 0, False
    for line in mlir.splitlines():
        if line.lstrip().startswith("tt.func"):
            skip = "_entry_point" in line
            continue
        if skip:
            continue
        m = _OP.match(line)
        if m and m.group(1) not in _SKIP and not m.group(1).startswith("module"):
            total += 1
    return total


def snapshot_mlir(path: Path) -> str:
    """The MLIR text an insta snapshot holds (a Rust debug-printed string)."""
    body = path.read_text().split("---\n", 2)[2].strip()
    return ast.literal_eval(body)


def generic_args(mlir: str, kernel: str) -> tuple[list[str], list[int]]:
    """(dtypes, const values) of the kernel's instance, from its mangled name."""
    m = re.search(rf"_R(\w*?\d+{kernel}NtNtNtNtB\w+?10LlvmTriton)(\w*?)EB\w*\(", mlir)
    if m is None:
        raise ValueError(f"no mangled instance of {kernel}")
    symbol = m.group(1) + m.group(2)  # (back-references count from just after `_R`)
    dtypes, consts = [], []
    for c in _ARG.finditer(m.group(2)):
        if c.group(1) is not None:  # `B_` is 0, `B<n>_` is n + 1
            at = 0 if not c.group(1) else sum(_B62.index(ch) * 62 ** i for i, ch in enumerate(reversed(c.group(1)))) + 1
            ref = _CONST.match(symbol, at)
            if ref is None:
                raise ValueError(f"unreadable back-reference in {kernel}'s mangled name")
            consts.append(_const(ref.group(1), ref.group(2)))
        elif c.group(2):
            consts.append(_const(c.group(3), c.group(4)))
        else:
            dtypes.append(_BASIC[c.group(5)])
    return dtypes, consts


_TILED = re.compile(rb"#\[\s*(?:\w+::)*tiled_kernel\b[^\]]*\]\s*(?:#\[[^\]]*\]\s*)*(?:pub\s+)?fn\s+(\w+)")


def kernel_files(tree: Path) -> dict[str, tuple[Path, bool]]:
    """Every kernel fn of the tree's kernel crates -> (its file, whether it is a #[tiled_kernel])."""
    found = {}
    for folder in ("kernels/teeny-kernels/src", "kernels/teeny-triton/tests"):
        for f in sorted((tree / folder).rglob("*.rs")):
            data = f.read_bytes()
            if b"kernel" not in data:
                continue
            tiled = {m.group(1).decode() for m in _TILED.finditer(data)}
            for k in find_kernels(data, str(f)):
                found.setdefault(k.name, (f, k.name in tiled))
    return found


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("tree", type=Path, help="a checkout of teenygrad's tile branch")
    ap.add_argument("--all", action="store_true", help="every snapshotted kernel, not only the tile DSL's")
    args = ap.parse_args()
    files = kernel_files(args.tree)
    snaps = sorted((args.tree / "kernels/teeny-kernels/tests/snapshots").glob("*_mlir.snap"))
    snaps.append(args.tree / "kernels/teeny-triton/tests/snapshots/test_tile__tile_smoke_mlir.snap")
    cases, requests = [], []
    for snap in snaps:
        kernel = snap.name.split("__", 1)[1].removesuffix("_mlir.snap")
        if kernel not in files or not (args.all or files[kernel][1] or kernel == "tile_smoke"):
            continue
        path = files[kernel][0]
        info = next(k for k in find_kernels(path.read_bytes(), str(path)) if k.name == kernel)
        mlir = snapshot_mlir(snap)
        dtypes, consts = generic_args(mlir, kernel)
        cases.append((kernel, op_count(mlir)))
        requests.append({"file": str(path), "kernel": kernel, "target": "cuda:90",
                         "dtypes": {d.name: t for d, t in zip(info.dtype_params, dtypes, strict=False)},
                         "consts": {c.name: v for c, v in zip(info.consts, consts, strict=False)},
                         "count": {"func_return": ["ttir", r"(?m)^\s*tt\.(?:func|return)\b"]}})
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    proc = subprocess.run([sys.executable, "-W", "ignore", "-m", "rs2triton.tools.aot"], input=json.dumps(requests),
                          capture_output=True, text=True, env=env, cwd=ROOT, check=True)
    results = json.loads(proc.stdout)
    print("| kernel | dtypes, consts | teenyc | rs2triton | ratio |")
    print("|---|---|---:|---:|---:|")
    ours_total = theirs_total = 0
    for (kernel, theirs), req, res in zip(cases, requests, results, strict=True):
        ours = res["ttir_ops"] - res["counts"]["func_return"] if res["ok"] else None
        shown = ", ".join([*req["dtypes"].values(), *map(str, req["consts"].values())])
        if ours is None:
            print(f"| {kernel} | {shown} | {theirs} | failed: {res.get('error', '')[:80]} | |")
            continue
        ours_total, theirs_total = ours_total + ours, theirs_total + theirs
        print(f"| {kernel} | {shown} | {theirs} | {ours} | {ours / theirs:.2f} |")
    if theirs_total:
        print(f"| total | | {theirs_total} | {ours_total} | {ours_total / theirs_total:.2f} |")


if __name__ == "__main__":
    main()
