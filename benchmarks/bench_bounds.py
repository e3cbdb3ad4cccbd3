"""What the interpreter's access check costs (rs2triton/runtime/bounds.py).

    TRITON_INTERPRET=1 python benchmarks/bench_bounds.py [--rounds 5]

Launches the same kernels through their launchers on Triton's CPU interpreter with the
check on and off (``RS2TRITON_BOUNDS_CHECK``), alternated in one process, and reports the
median seconds of each and their ratio: ``vector_add`` (many programs, two loads and a store
each) and ``matmul`` (a loop of tile loads).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("TRITON_INTERPRET", "1")

import torch  # noqa: E402

import rs2triton  # noqa: E402


def cases():
    va = rs2triton.load(ROOT / "kernels_rs/vector_add.rs").VectorAdd(BLOCK_SIZE=1024)
    n = 1 << 18
    a, b, out = torch.randn(n), torch.randn(n), torch.empty(n)
    mm = rs2triton.load(ROOT / "kernels_rs/matmul.rs").Matmul(BLOCK_M=32, BLOCK_N=32, BLOCK_K=32)
    m = 128
    x, y, z = torch.randn(m, m), torch.randn(m, m), torch.empty(m, m)
    yield "vector_add (2^18, 256 programs)", lambda: va[(n // 1024,)](a, b, out, n)
    yield "matmul (128^3, 16 programs)", lambda: mm[(16,)](x, y, z, m, m, m, m, 1, m, 1, m, 1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    print("| kernel | checked s | unchecked s | ratio |")
    print("|---|---:|---:|---:|")
    for label, launch in cases():
        launch()  # warm: the kernel's interpreter setup
        times: dict[str, list[float]] = {"1": [], "0": []}
        for _ in range(args.rounds):
            for flag in ("1", "0"):
                os.environ["RS2TRITON_BOUNDS_CHECK"] = flag
                t = time.perf_counter()
                launch()
                times[flag].append(time.perf_counter() - t)
        on, off = statistics.median(times["1"]), statistics.median(times["0"])
        print(f"| {label} | {on:.3f} | {off:.3f} | {on / off:.2f} |")


if __name__ == "__main__":
    main()
