"""docs/ops.md is generated from the op table; the table covers the whole DSL trait."""

import os
import re

import pytest

from rs2triton.transpiler.dsl.docs import ops_markdown
from rs2triton.transpiler.dsl.ops import OPS, TESTED
from tests.conftest import ROOT

# The DSL contract's list of the trait's methods (shared/dsl/triton_trait.txt), kept in the repository.
TRAIT = ROOT / "tests" / "data" / "triton_trait.txt"


def test_ops_md_is_generated_from_the_table():
    path = ROOT / "docs" / "ops.md"
    want = ops_markdown()
    if os.environ.get("RS2TRITON_UPDATE_GOLDEN") == "1" and path.read_text() != want:
        path.write_text(want)
        pytest.skip("docs/ops.md was stale and is rewritten: review the diff")
    assert path.read_text() == want, "docs/ops.md is stale; run `make golden`"


def _trait() -> dict[str, int]:
    """{method: how many parameters} of every method the trait file lists."""
    out = {}
    for line in TRAIT.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        name = re.split(r"[<(]", line)[0]
        params, depth, count, started = line[line.index("(", len(name)) + 1:], 0, 0, False
        for i, c in enumerate(params):
            if c in "(<[":
                depth += 1
            elif c in ")>]" and not (c == ">" and params[i - 1] == "-"):  # (`->` is no bracket)
                if depth == 0:
                    break
                depth -= 1
            elif c == "," and depth == 0:
                count += 1
            elif not c.isspace():
                started = True
        out[name] = count + 1 if started else 0
    return out


def test_table_has_every_trait_method_with_its_parameters():
    trait = _trait()
    assert len(trait) == len(OPS) == 111
    assert set(trait) == set(OPS)
    assert {name: n for name, n in trait.items() if len(OPS[name].params) != n} == {}


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


def test_docs_list_no_translated_op_as_unsupported():
    """diagnostics.md's E0002 row and translation.md's "Not in the DSL" / "Not supported yet"
    sections name no method the op table translates (only the `untranslatable` rows, which are
    E0002 by the table itself)."""
    translated = {name for name, op in OPS.items() if op.rule != "untranslatable"}
    diag = (ROOT / "docs" / "diagnostics.md").read_text()
    e0002 = next(line for line in diag.splitlines() if line.startswith("| E0002 |"))
    trans = (ROOT / "docs" / "translation.md").read_text()
    unsupported = trans[trans.index("## Not in the DSL"):]
    named = set(re.findall(r"`(?:T::)?(\w+)`", e0002 + unsupported))
    assert not named & translated, sorted(named & translated)


def test_generic_parameter_counts_are_the_traits():
    from rs2triton.transpiler.dsl.ops import GENERIC_PARAMS

    counts = {}
    for line in TRAIT.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name = re.split(r"[<(]", line)[0]
            generics = re.match(r"\w+<([^()]*?)>\(", line)
            counts[name] = len(generics.group(1).split(",")) if generics else 0
    assert {n: GENERIC_PARAMS.get(n, 0) for n in OPS} == counts
