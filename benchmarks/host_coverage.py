"""How much of a kernel tree's host logic rs2triton translates.

    python benchmarks/host_coverage.py DIR [DIR ...]

For every ``.rs`` file under the DIRs (teenygrad's ``kernels/teeny-kernels/src``, say): the
``impl RuntimeOp`` blocks it holds, direct or written by one of its ``macro_rules!`` (counted
on the parsed tree, as rustc would see them after expansion), the ones rs2triton translates
into an op class, and the methods it could not translate (each a W0010 warning, listed).
Files without a ``#[kernel]`` are counted apart: rs2triton translates kernel files.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rs2triton import TranspileError  # noqa: E402
from rs2triton.transpiler.driver.pipeline import lower_source  # noqa: E402
from rs2triton.transpiler.frontend.items import collect  # noqa: E402
from rs2triton.transpiler.frontend.macros import MacroError, expand  # noqa: E402
from rs2triton.transpiler.frontend.parse import parser, text  # noqa: E402
from rs2triton.transpiler.frontend.source import SourceMap  # noqa: E402


def impls_in(source: bytes, path: str) -> tuple[int, int]:
    """(impl RuntimeOp blocks, of which `unimplemented!` stubs) in a file, macros expanded."""
    items = collect(parser().parse(source).root_node, SourceMap(path, source))
    nodes = [i.node for i in items.impls]
    for inv in items.invocations:
        definition = items.macros.get(text(inv.node.child_by_field_name("macro") or inv.node))
        if definition is None:
            continue
        try:
            expansion = expand(definition, inv.node, source)
        except MacroError:
            continue
        nodes += [i.node for i in collect(expansion.tree.root_node, SourceMap(path, expansion.source)).impls]
    ops = [n for n in nodes if n.child_by_field_name("trait") is not None
           and text(n.child_by_field_name("trait")).endswith("RuntimeOp")]
    stubs = [n for n in ops if text(n).count("unimplemented!") >= 3]
    return len(ops), len(stubs)


def main() -> None:
    roots = [Path(a) for a in sys.argv[1:]]
    if not roots:
        sys.exit(__doc__)
    totals: Counter[str] = Counter()
    untranslated: list[str] = []
    for root in roots:
        for f in sorted(root.rglob("*.rs")):
            if {"tests", "examples", "benches"} & set(f.relative_to(root).parts):
                continue
            source = f.read_bytes()
            n_impls, n_stubs = impls_in(source, str(f))
            try:
                result = lower_source(source, str(f.relative_to(root)))
            except TranspileError as e:
                totals["files that do not transpile"] += 1
                untranslated.append(f"{f}: {e.diagnostics[0].message}")
                continue
            kind = "kernel files" if result.text is not None else "files without kernels"
            totals[f"impls in {kind}"] += n_impls
            totals[f"stubs in {kind}"] += n_stubs
            totals["ops translated"] += len(result.host)
            for w in result.warnings:
                if w.code == "W0010":
                    totals["methods or impls not translated (W0010)"] += 1
                    untranslated.append(f"{w.path}:{w.line}: {w.message}")
    for key in sorted(totals):
        print(f"{key:45} {totals[key]}")
    for line in untranslated:
        print("  " + line)


if __name__ == "__main__":
    main()
