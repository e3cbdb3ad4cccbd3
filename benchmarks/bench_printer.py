"""Printing the generated Python: ``render.unparse`` (printer.py) against the reference
it replaced (``render.unparse_reference``: ``ast.unparse`` plus the comment passes).

    python benchmarks/bench_printer.py [--files 100] [--seed 0] [--rounds 15] [--line-comments]

Lowers a generated stress corpus (``gen_corpus.py``) once, keeping every tree printing
receives, then prints all of them with each printer in turn, alternating, and reports
the median time of a whole pass for each (in this process: no start-up, no parsing, no
lowering). Both must give the same text; the script checks that first.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]


def trees(corpus: Path, line_comments: bool) -> list:
    """Every tree ``render.unparse`` is asked to print while lowering ``corpus``."""
    from rs2triton.diagnostics import TranspileError
    from rs2triton.transpiler.driver.pipeline import lower_source
    from rs2triton.transpiler.emit import module as render

    out: list = []
    real = render.unparse

    def keep(node):
        out.append(node)
        return real(node)

    render.unparse = keep
    try:
        for path in sorted(corpus.rglob("*.rs")):
            try:
                lower_source(path.read_bytes(), str(path), line_comments)
            except TranspileError:
                pass
    finally:
        render.unparse = real
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--files", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--line-comments", action="store_true", help="with `# path:LINE` trailing comments")
    args = ap.parse_args()

    from gen_corpus import generate

    from rs2triton.transpiler.emit import module as render

    with tempfile.TemporaryDirectory() as tmp:
        files, kernels = generate(Path(tmp), args.files, args.seed)
        nodes = trees(Path(tmp), args.line_comments)
    assert all(render.unparse(n) == render.unparse_reference(n) for n in nodes), "the printers disagree"

    def one_pass(fn) -> float:
        start = time.perf_counter()
        for n in nodes:
            fn(n)
        return time.perf_counter() - start

    times: dict[str, list[float]] = {"reference": [], "printer": []}
    for _ in range(args.rounds):
        times["reference"].append(one_pass(render.unparse_reference))
        times["printer"].append(one_pass(render.unparse))
    ref, new = (statistics.median(times[k]) for k in ("reference", "printer"))
    print(f"{files} files, {kernels} kernels, {len(nodes)} trees printed; median of {args.rounds} alternated passes:")
    print(f"  reference (ast.unparse + comment passes): {ref * 1000:7.1f} ms")
    print(f"  printer.py:                               {new * 1000:7.1f} ms   ({ref / new:.1f}x faster)")


if __name__ == "__main__":
    main()
