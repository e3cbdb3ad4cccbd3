"""Kernel facts: what the runtime and the torch backend must know of a kernel's code, recorded
by the transpiler in its launcher (``facts=``, docs/python-api.md "Kernel facts") and read from
there, for representative kernels: a dot, tensor descriptors, a NaN-dropping maximum, unmasked
loads, the pointers a kernel stores through, the bounds of its flat accesses and what it does
with each const generic (a tile masked and stepped, read whole with or without a mask, a value,
a flag)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import rs2triton
import rs2triton.runtime
from rs2triton.transpiler.emit.facts import kernel_facts, kernel_uses
from rs2triton.transpiler.emit.roles import const_roles
from tests.conftest import ROOT, TEENYGRAD_SRC


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
    maximum = rs2triton.load(ROOT / "kernels_rs" / "elementwise.rs").MaximumForward  # Rust's f32::max: tl.maximum
    assert "nan_dropping_max" in maximum.uses
    relu = rs2triton.load(ROOT / "kernels_rs" / "relu.rs").ReluForward  # a where on x < 0: NaN kept
    assert "nan_dropping_max" not in relu.uses and relu.stores == {"y_ptr"}
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


# ---------------------------------------------------------------------- const-generic roles
TG_FEAT = TEENYGRAD_SRC


def _roles(path: Path, **options) -> dict[str, dict[str, dict]]:
    """Each launcher of the module ``path`` -> its const generics' roles."""
    module = rs2triton.load(path, **options)
    return {n: v.roles for n, v in vars(module).items() if isinstance(v, rs2triton.runtime.Launcher)}


def test_the_roles_of_const_generics_are_found_in_what_the_kernel_does_with_them():
    fn = ast.parse(
        "def k(x_ptr, n, w, B: tl.constexpr, C: tl.constexpr, R: tl.constexpr, V: tl.constexpr, F: tl.constexpr,"
        " U: tl.constexpr, E: tl.constexpr):\n"
        "    offs = tl.program_id(0) * B + tl.arange(0, B)\n"      # a tile masked and stepped: block
        "    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)\n"
        "    cols = tl.arange(0, C)\n"                             # masked, one tile: cover
        "    tl.load(x_ptr + cols, mask=n > cols)\n"
        "    rows = tl.expand_dims(tl.arange(0, R), 1)\n"          # never masked: exact
        "    acc = tl.zeros([R, C], dtype=tl.float32) + tl.load(x_ptr + rows * V)\n"  # V: a stride
        "    if F:\n"
        "        acc += 1\n"
        "    x = tl.load(x_ptr + offs, mask=offs < n)\n"
        "    y = x < w\n"                                           # (loaded data under a bound: no mask of a tile)
        "    e = tl.arange(0, E)\n"
        "    unused = e < n\n"                                      # (a comparison that masks nothing)
        "    tl.store(x_ptr + e, tl.where(e < n, 1.0, 0.0))\n").body[0]  # (nor does a select)
    assert isinstance(fn, ast.FunctionDef)
    consts = {c: (c, "i32") for c in "BCRVFUE"}
    got = const_roles(fn, {}, consts, {"n": "n", "w": "w"})
    assert got == {"B": {"role": "block", "bounds": ["n"]}, "C": {"role": "cover", "bounds": ["n"]},
                   "R": {"role": "exact"}, "V": {"role": "value"}, "F": {"role": "flag"}, "U": {"role": "unused"},
                   "E": {"role": "exact"}}
    assert const_roles(fn, {}, {"F": ("F", "bool")}, {})["F"] == {"role": "flag"}  # (a bool is a flag)


def test_the_roles_follow_the_tile_into_helpers():
    """A helper given the tile's extent (as its own constexpr) and its offsets, which masks them;
    one given a mask the kernel made, which masks its load with it."""
    module = ast.parse(
        "def k(x_ptr, n, BLOCK: tl.constexpr, R: tl.constexpr):\n    h(x_ptr, tl.arange(0, BLOCK), n, BLOCK)\n"
        "    rows = tl.arange(0, R)\n    g(x_ptr + rows, rows < n)\n\n"
        "def h(p, offs, count, W: tl.constexpr):\n    tl.store(p + offs, tl.zeros([W], dtype=tl.float32), "
        "mask=offs < count)\n\n"
        "def g(p, m):\n    return tl.load(p, mask=m)\n")
    fns = {f.name: f for f in module.body if isinstance(f, ast.FunctionDef)}
    consts = {"BLOCK": ("BLOCK", "i32"), "R": ("R", "i32")}
    assert const_roles(fns["k"], fns, consts, {"n": "n"}) == \
        {"BLOCK": {"role": "cover", "bounds": ["n"]}, "R": {"role": "cover", "bounds": ["n"]}}
    assert const_roles(fns["k"], {}, consts, {"n": "n"}) == {"BLOCK": {"role": "exact"}, "R": {"role": "exact"}}


def test_the_launchers_of_real_kernels_record_their_consts_roles():
    block = {"role": "block", "bounds": ["n_elements"]}
    assert _roles(ROOT / "kernels_rs" / "vector_add.rs")["VectorAdd"] == {"BLOCK_SIZE": block}
    assert _roles(ROOT / "kernels_rs" / "relu.rs")["ReluBackward"] == {"BLOCK_SIZE": block}
    softmax = _roles(ROOT / "kernels_rs" / "softmax.rs")  # (a masked row, no loop over its columns)
    assert softmax["SoftmaxForward"] == softmax["LogSoftmaxForward"] == \
        {"BLOCK_SIZE": {"role": "cover", "bounds": ["n_cols"]}}
    assert _roles(ROOT / "kernels_rs" / "matmul.rs")["Matmul"] == {
        c: {"role": "block", "bounds": [b]} for c, b in (("BLOCK_M", "M"), ("BLOCK_N", "N"), ("BLOCK_K", "K"))}
    values = {c: {"role": "value"} for c in ("KH", "KW", "STRIDE_H", "STRIDE_W", "PAD_H", "PAD_W")}
    plane = {"role": "block", "bounds": ["H", "OH", "OW", "W"]}  # (its positions, and the windows they read)
    assert _roles(ROOT / "kernels_rs" / "pool2d.rs")["MaxPool2dForward"] == {**values, "BLOCK_P": plane}
    assert _roles(ROOT / "kernels_rs" / "conv2d.rs")["Conv2dForward"] == {**values, "G": {"role": "value"},
                                                                          "BLOCK_P": plane}


def test_the_facts_hold_the_roles_and_a_launcher_copies_them():
    text = rs2triton.transpile_source((ROOT / "kernels_rs" / "vector_add.rs").read_text(), "vector_add.rs").text
    assert '"consts": {"BLOCK_SIZE": {"role": "block", "bounds": ["n_elements"]}}' in _launcher_text(text, "VectorAdd")
    add = rs2triton.load(ROOT / "kernels_rs" / "vector_add.rs").VectorAdd
    assert add.autotune([{"BLOCK_SIZE": 64}]).roles == add.roles and add.facts["consts"] == add.roles


@pytest.mark.teenygrad
def test_teenygrad_s_feature_branch_kernels_record_their_roles():
    """Its log-softmax reads a row with no mask (exact); its linear layer's tiles are tensor
    descriptors' blocks (bounded by the descriptors' shapes), ``USE_BIAS`` a flag, ``GROUP_M`` a
    number its backward does nothing with."""
    extra = _roles(TG_FEAT / "nn" / "activation" / "extra.rs")
    assert extra["LogSoftmaxForward"] == extra["LogSoftmaxBackward"] == {"BLOCK_SIZE": {"role": "exact"}}
    linear = _roles(TG_FEAT / "nn" / "mlp" / "linear.rs")
    tiles = {c: {"role": "block", "bounds": [b]} for c, b in (("BLOCK_M", "M"), ("BLOCK_N", "N"), ("BLOCK_K", "K"))}
    assert linear["LinearForward"] == {"USE_BIAS": {"role": "flag"}, **tiles, "GROUP_M": {"role": "value"}}
    assert linear["LinearBackward"]["GROUP_M"] == {"role": "unused"}
