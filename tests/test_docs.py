"""docs/ops.md is generated from the op table; the table covers the whole DSL trait."""

import os
import re

from rs2triton.transpiler.dsl.docs import ops_markdown
from rs2triton.transpiler.dsl.ops import OPS, TESTED
from tests.conftest import ROOT

TRAIT = ROOT.parent / "shared" / "dsl" / "triton_trait.txt"


def test_ops_md_is_generated_from_the_table():
    path = ROOT / "docs" / "ops.md"
    want = ops_markdown()
    if os.environ.get("RS2TRITON_UPDATE_GOLDEN") == "1":
        path.write_text(want)
    assert path.read_text() == want, "docs/ops.md is stale; run `make golden`"


def test_table_has_every_trait_method():
    expected = {"program_id", "load", "store", "dot", "atomic_cas", "inline_asm_elementwise", "static_print"}
    assert expected <= set(OPS)
    assert len(OPS) == 106
    if TRAIT.exists():  # the DSL contract beside the checkout
        names = {re.split(r"[<(]", line)[0] for line in TRAIT.read_text().splitlines()
                 if line.strip() and not line.startswith("#")}
        assert names == set(OPS)


def test_ops_marked_tested_are_exercised_by_kernels_under_test():
    sources = "".join(p.read_text() for d in ("kernels_rs", "tests/kernels") for p in (ROOT / d).glob("*.rs"))
    used = set(re.findall(r"T::(\w+)", sources))
    from rs2triton.transpiler.dsl.ops import COMPILED_ONLY

    missing = sorted((TESTED | COMPILED_ONLY) - used)
    assert not missing, f"ops marked tested but used by no kernel under test: {missing}"


def test_every_diagnostic_code_is_documented():
    from rs2triton.diagnostics import CODES

    text = (ROOT / "docs" / "diagnostics.md").read_text()
    missing = [code for code in CODES if f"| {code} |" not in text]
    assert not missing


def test_readme_example_is_what_the_transpiler_writes():
    from rs2triton import transpile_source

    readme = (ROOT / "README.md").read_text()
    rust = re.search(r"```rust\n(.*?)```", readme, re.S).group(1)
    python = re.search(r"```python\n(# Generated.*?)```", readme, re.S).group(1)
    assert transpile_source(rust, "vector_add.rs").text == python
