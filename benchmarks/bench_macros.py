"""How transpiling grows with the number of macro invocations in one file.

    python benchmarks/bench_macros.py [--sizes 1000 4000] [--rounds 3] [--kinds const impl kernel]

Each kind is a file whose `macro_rules!` is invoked N times at item level (one short line
each: `op!(W0001);`), writing:

- ``const``: a `const` (the host side expands it, and reads nothing of it);
- ``impl``: a struct with its `impl RuntimeOp` (a class each, four methods lowered);
- ``kernel``: a `#[kernel]` fn (appended to the file and lowered, with a launcher each).

It prints the CPU seconds of an in-process `transpile_source` of each (the least of the
rounds, the expansion cache emptied before each) and, per kind, the ratio of each size's time
to the smallest size's: linear growth keeps it near the ratio of the sizes. The test-suite
checks the growth without timing (tests/test_trust_names.py counts the Python lines run).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

_RUNTIME_OP = """        impl teeny_core::model::RuntimeOp for $t {
            fn n_activation_inputs(&self) -> usize { 1 }
            fn param_shapes(&self, _: &[&[usize]], _: &[usize]) -> Vec<Vec<usize>> { vec![] }
            fn pack_args(&self, inputs: &[(teeny_core::model::RawPtr, &[usize])], params: &[teeny_core::model::RawPtr],
                         output: teeny_core::model::RawPtr, output_shape: &[usize], output_row_stride: i32,
                         visitor: &mut dyn teeny_core::device::program::ArgVisitor) { }
            fn grid(&self, output_shape: &[usize]) -> [u32; 3] { [self.n as u32, 1, 1] }
        }
"""

_WRITES = {
    "const": "        const $t: usize = 1;\n",
    "impl": "        pub struct $t { n: usize }\n" + _RUNTIME_OP,
    "kernel": "        #[kernel]\n        pub fn $t<T: Triton, const B: i32>(x: T::Pointer<f32>) { }\n",
}


def macro_source(kind: str, n: int) -> str:
    """A kernel file that invokes its macro ``n`` times, each writing a ``kind`` item (see above)."""
    head = "use teeny_macros::kernel;\n"
    if kind != "kernel":
        head += "#[kernel]\npub fn k<T: Triton, const B: i32>(x: T::Pointer<f32>) { }\n"
    head += "macro_rules! op {\n    ($t:ident) => {\n" + _WRITES[kind] + "    };\n}\n"
    name = "k" if kind == "kernel" else "W"
    return head + "".join(f"op!({name}{i:04d});\n" for i in range(n))


def transpile_seconds(source: str) -> float:
    from rs2triton.transpiler.driver.pipeline import transpile_source
    from rs2triton.transpiler.frontend import macros

    macros._EXPANSIONS.clear()  # (each run expands every invocation, as a new process does)
    start = time.process_time()
    transpile_source(source, "bench_macros.rs")
    return time.process_time() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 4000])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--kinds", nargs="+", default=list(_WRITES), choices=list(_WRITES))
    args = ap.parse_args()
    transpile_seconds(macro_source("const", 2))  # (imports and first-use caches, untimed)
    print(f"{'kind':8} {'invocations':>11} {'KiB':>6} {'CPU s':>7} {'ratio':>6}")
    for kind in args.kinds:
        first = None
        for n in args.sizes:
            source = macro_source(kind, n)
            best = min(transpile_seconds(source) for _ in range(args.rounds))
            first = first or best
            print(f"{kind:8} {n:>11} {len(source.encode()) / 1024:>6.1f} {best:>7.2f} {best / first:>6.2f}")


if __name__ == "__main__":
    main()
