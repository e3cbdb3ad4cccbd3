"""Kernel facts: what the runtime and the torch backend must know of a kernel's code, recorded
by the transpiler in its launcher (``facts=``, docs/python-api.md "Kernel facts") and read from
there, for representative kernels: a dot, tensor descriptors, a NaN-dropping maximum, unmasked
loads, the pointers a kernel stores through and the bounds of its flat accesses."""

from __future__ import annotations

import ast

import rs2triton
from rs2triton.transpiler.emit.facts import kernel_facts, kernel_uses
from tests.conftest import ROOT


def _launcher_text(text: str, name: str) -> str:
    """The ``name = Launcher(...)`` definition in a generated module's text."""
    start = text.index(f"\n{name} = Launcher(")
    return text[start:text.index("\n)", start) + 2]


def test_each_flag_is_recorded_where_the_kernel_calls_it_itself_or_through_helpers():
    module = ast.parse(
        "def k(x):\n    return h(x)\n\n"
        "def h(x):\n    return tl.maximum(x, 0.0) + tl.load(x)\n\n"
        "def keep(x):\n    return tl.maximum(x, 0.0, propagate_nan=tl.PropagateNan.ALL)\n\n"
        "def d(x):\n    a = tl.make_tensor_descriptor(x, [1], [1], [1])\n    return tl.load(x, mask=x < 1)\n")
    fns = {f.name: f for f in module.body if isinstance(f, ast.FunctionDef)}
    assert kernel_uses(fns["k"], fns) == ["nan_dropping_max", "unmasked_loads"]
    assert kernel_uses(fns["k"], {}) == []  # (without the helper, nothing)
    assert kernel_uses(fns["keep"], fns) == []  # a maximum that keeps NaN drops nothing
    assert kernel_uses(fns["d"], fns) == ["descriptor"]  # a masked load: its loads are masked


def test_stores_and_bounds_are_named_by_rust_names():
    fn = ast.parse("def k(in_, out, n):\n    o = tl.arange(0, 4)\n    m = o < n\n"
                   "    tl.store(out + o, tl.load(in_ + o, mask=m), mask=m)\n").body[0]
    assert isinstance(fn, ast.FunctionDef)
    facts = kernel_facts(fn, {}, {"in_": "in", "out": "out"}, {"in_": "in", "out": "out", "n": "n"})
    assert facts == {"stores": ["out"], "bounds": {"in": ["n"], "out": ["n"]}}


def test_the_launchers_of_real_kernels_carry_their_facts():
    matmul = rs2triton.load(ROOT / "kernels_rs" / "matmul.rs").Matmul
    assert "dot" in matmul.uses and matmul.stores == {"c_ptr"}
    relu = rs2triton.load(ROOT / "kernels_rs" / "relu.rs").ReluForward  # Rust's f32::max: tl.maximum
    assert "nan_dropping_max" in relu.uses and relu.stores == {"y_ptr"}
    add = rs2triton.load(ROOT / "kernels_rs" / "vector_add.rs").VectorAdd
    assert add.uses == frozenset() and add.stores == {"out_ptr"}
    assert add.bounds == {p: frozenset({"n_elements"}) for p in ("a_ptr", "b_ptr", "out_ptr")}
    desc = rs2triton.load(ROOT / "tests" / "kernels" / "semantics.rs", interpret=True).Descriptors
    assert "descriptor" in desc.uses and desc.stores == {"y_ptr"}  # (stored through its descriptor)


def test_the_facts_are_written_into_the_generated_module_and_a_launcher_copies_them():
    text = rs2triton.transpile_source((ROOT / "kernels_rs" / "vector_add.rs").read_text(), "vector_add.rs").text
    assert '        "stores": ["out_ptr"],\n' in _launcher_text(text, "VectorAdd")
    add = rs2triton.load(ROOT / "kernels_rs" / "vector_add.rs").VectorAdd
    tuned = add.autotune([{"BLOCK_SIZE": 64}])
    assert tuned.facts == add.facts and add.facts["stores"] == ["out_ptr"]


def test_the_runtime_reads_the_recorded_facts_not_the_kernels_code():
    """A launcher's facts are what the runtime believes: a launcher given other facts for the
    same jit function is believed (nothing re-reads the function)."""
    from rs2triton.backend.plan import drops_nan, loads_masked
    from rs2triton.runtime import Launcher
    from rs2triton.runtime.apply import mask_bounds_of, stored_pointers

    add = rs2triton.load(ROOT / "kernels_rs" / "vector_add.rs").VectorAdd
    other = Launcher(add.fn, "VectorAdd", params=add.params, consts=add.consts,
                     facts={"uses": ["nan_dropping_max", "unmasked_loads"], "stores": ["a_ptr"]})
    kernel = other(BLOCK_SIZE=64)
    assert stored_pointers(kernel) == {"a_ptr"} and mask_bounds_of(kernel) == {}
    assert drops_nan(kernel) and not loads_masked(other)
    plain = add(BLOCK_SIZE=64)
    assert stored_pointers(plain) == {"out_ptr"} and not drops_nan(plain) and loads_masked(add)
