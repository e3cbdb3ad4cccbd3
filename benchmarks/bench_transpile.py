"""How fast the transpiler itself is: parse + lower + render (ruff included) per file.

    python benchmarks/bench_transpile.py [FILES_OR_DIRS...]   (default: kernels_rs and tests/kernels)

Runs anywhere (no GPU needed). Reports the median of 20 runs per file.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rs2triton.pipeline import transpile_source  # noqa: E402


def main() -> None:
    targets = sys.argv[1:] or [str(ROOT / "kernels_rs"), str(ROOT / "tests" / "kernels")]
    files = []
    for t in targets:
        p = Path(t)
        files += sorted(p.rglob("*.rs")) if p.is_dir() else [p]
    total_kernels = 0
    print(f"{'file':<40} {'kernels':>7} {'lines':>6} {'median ms':>10} {'ms/kernel':>10}")
    for f in files:
        src = f.read_bytes()
        times = []
        for _ in range(20):
            start = time.perf_counter()
            res = transpile_source(src, f.name)
            times.append((time.perf_counter() - start) * 1000)
        n = len(res.kernels)
        total_kernels += n
        med = statistics.median(times)
        lines = src.count(b"\n")
        label = str(f.relative_to(ROOT)) if f.is_relative_to(ROOT) else str(f)
        print(f"{label:<40} {n:>7} {lines:>6} {med:>10.1f} {med / max(n, 1):>10.1f}")
    print(f"{total_kernels} kernels in {len(files)} files")


if __name__ == "__main__":
    main()
