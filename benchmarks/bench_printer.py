"""Laying out the generated Python: the printer (``emit/printer.py``) against what it replaces,
``ast.unparse`` followed by one ``ruff format`` process for all the functions.

    python benchmarks/bench_printer.py [--files 100] [--seed 0] [--rounds 7]

Lowers a generated stress corpus (``gen_corpus.py``) once, keeping every kernel function,
then lays all of them out both ways in turn, alternating, and reports the median time of a
whole pass for each (in this process: no start-up, no parsing, no lowering). Both must give
the same text (the printer writes what ruff writes); the script checks that first. Needs the
dev extra (ruff).
"""

from __future__ import annotations

import argparse
import ast
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]


def functions(corpus: Path) -> list[ast.FunctionDef]:
    """Every kernel function lowered from ``corpus`` (no comments: ``ast.unparse`` has none)."""
    from rs2triton.diagnostics import TranspileError
    from rs2triton.transpiler.driver.pipeline import lower_source
    from rs2triton.transpiler.pyast import Comment

    out = []
    for path in sorted(corpus.rglob("*.rs")):
        try:
            result = lower_source(path.read_bytes(), str(path))
        except TranspileError:
            continue
        for fn in result.functions:
            for node in ast.walk(fn):
                for field in ("body", "orelse"):
                    body = getattr(node, field, None)
                    if isinstance(body, list):
                        setattr(node, field, [s for s in body if type(s) is not Comment] or [ast.Pass()])
            out.append(fn)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--files", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args()

    from gen_corpus import generate

    from rs2triton.transpiler.emit.module import print_statement
    from tests.ruff_format import reformat

    with tempfile.TemporaryDirectory() as tmp:
        generate(Path(tmp), files=args.files, seed=args.seed)
        fns = functions(Path(tmp))
    for fn in fns:  # ast.unparse wants locations on the statements it prints
        ast.fix_missing_locations(fn)

    def printer() -> list[str]:
        return ["\n".join(print_statement(f).lines) + "\n" for f in fns]

    def unparse_and_ruff() -> list[str]:
        return reformat([ast.unparse(f) + "\n" for f in fns])

    assert printer() == unparse_and_ruff(), "the printer and ruff lay the corpus out differently"
    times: dict[str, list[float]] = {"printer": [], "ast.unparse + ruff format": []}
    for _ in range(args.rounds):
        for label, run in (("printer", printer), ("ast.unparse + ruff format", unparse_and_ruff)):
            start = time.perf_counter()
            run()
            times[label].append(time.perf_counter() - start)
    base = statistics.median(times["printer"])
    print(f"{len(fns)} functions, median of {args.rounds} passes:")
    for label, ts in times.items():
        m = statistics.median(ts)
        print(f"  {label:<28} {m * 1000:8.1f} ms  {m / base:5.2f}x")


if __name__ == "__main__":
    main()
