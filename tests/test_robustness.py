"""Property: no input crashes the transpiler. Any mutation of a valid kernel file either
transpiles to Python that parses, or is rejected with located diagnostics - never a traceback."""

import ast
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rs2triton import TranspileError, transpile_source
from tests.conftest import ROOT

SOURCES = [p.read_text() for p in sorted((ROOT / "kernels_rs").glob("*.rs"))] + [
    p.read_text() for p in sorted((ROOT / "tests" / "kernels").glob("*.rs"))]
TOKENS = [re.findall(r"\w+|[^\w\s]|\s+", s) for s in SOURCES]


@st.composite
def mutated_sources(draw):
    toks = list(draw(st.sampled_from(TOKENS)))
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(toks) - 1))
        action = draw(st.sampled_from(["delete", "duplicate", "replace"]))
        other = toks[draw(st.integers(0, len(toks) - 1))]
        if action == "delete":
            del toks[i]
        elif action == "duplicate":
            toks.insert(i, other)
        else:
            toks[i] = other
    return "".join(toks)


@settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_sources())
def test_mutated_kernels_never_crash_the_transpiler(src):
    try:
        result = transpile_source(src, "mutant.rs")
    except TranspileError as err:
        lines = src.splitlines() or [""]
        for d in err.diagnostics:
            assert d.code.startswith("E") and d.message
            assert 1 <= d.line <= len(lines) + 1 and d.col >= 1
            assert "mutant.rs" in d.render()
        return
    if result.text is not None:
        ast.parse(result.text)
