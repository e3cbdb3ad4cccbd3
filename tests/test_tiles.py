"""teenygrad's tile DSL (tests/kernels/tiles.rs): `#[tiled_kernel]` expanded as its macro
expands it, `Tile` values as their fields, plain fns called from kernels as `@triton.jit`
helpers, `loop {}` placeholders as the endless loops they are. Numerics under the
interpreter in f32 and f16 against torch, compiled for sm_90 and gfx942 (Triton 3.6 and 3.9:
no helper returns a `None` field), and the generated text."""


import pytest
import torch

import rs2triton
from rs2triton import TranspileError, transpile_source
from rs2triton.transpiler.driver.pipeline import transpile_file
from tests.compile_helper import compile_in_subprocess
from tests.conftest import DEVICE, ROOT, jit_sources
from tests.numerics import assert_matches

SRC = "tests/kernels/tiles.rs"
DTYPES = [torch.float32, torch.float16]
N, BLOCK = 50, 16  # four programs, the last one partly masked


@pytest.fixture(scope="module")
def mod():
    return rs2triton.load(SRC)


@pytest.fixture(scope="module")
def generated() -> dict[str, str]:
    text = transpile_file(SRC, launchers=True).text
    return jit_sources(text) | {"": text}


def _x(dtype, n=N, seed=0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(n, generator=g) * 3).to(dtype).to(DEVICE)


def _grid(n, block=BLOCK):
    return ((n + block - 1) // block,)


# ---------------------------------------------------------------------------- numerics


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("alpha", [0.5, -2.0])
def test_tiled_kernel_prelude_loads_and_masks(mod, dtype, alpha):
    x = _x(dtype)
    y = torch.full((N + 7,), 99.0, dtype=dtype, device=DEVICE)  # past n_elements: never written
    mod.tile_affine[_grid(N)](x, y, N, alpha, BLOCK_SIZE=BLOCK)
    a = torch.tensor(alpha, dtype=dtype)
    scaled = x.cpu() * a
    want = (scaled * scaled) / (a * a) + scaled
    tol = {"atol": 2e-2, "rtol": 2e-2} if dtype == torch.float16 else {"atol": 1e-5, "rtol": 1e-5}
    assert_matches("y", y[:N], want, **tol)
    assert_matches("y (past n_elements)", y[N:], [99.0] * 7)


@pytest.mark.parametrize("dtype", DTYPES)
def test_composed_tile_ops(mod, dtype, generated):
    x, y = _x(dtype), torch.full((N,), 5.0, dtype=dtype, device=DEVICE)
    mod.TileComposed(BLOCK_SIZE=BLOCK)[_grid(N)](x, y, N)
    assert_matches("y", y, torch.relu(x.cpu()))
    assert "    r_tensor, r_mask = relu_tile(x_tensor, in_bounds)\n    store_tile(y_tensor, in_bounds, r_tensor, r_mask)\n" \
        in generated["tile_composed"]


def test_tile_parameters_take_their_new_names(mod):
    x, y = _x(torch.float32), torch.zeros(N, device=DEVICE)
    mod.tile_affine[_grid(N)](x=x, y=y, n_elements=N, alpha=1.0, BLOCK_SIZE=BLOCK)
    assert_matches("y", y, x.cpu() * x.cpu() + x.cpu(), atol=1e-4, rtol=1e-5)
    launch = mod.TileAffine(BLOCK_SIZE=BLOCK)[_grid(N)]
    y2 = torch.zeros(N, device=DEVICE)
    launch(x=x, y=y2, n_elements=N, alpha=1.0)  # the launcher takes them too
    assert torch.equal(y2, y)
    with pytest.raises(TypeError, match="TileAffine.*x_ptr"):  # the old name is no parameter of it
        launch(x_ptr=x, y=y2, n_elements=N, alpha=1.0)


@pytest.mark.parametrize("dtype", DTYPES)
def test_shadowed_prelude_names_and_inout_tiles(mod, dtype):
    a, b = _x(dtype, seed=1), _x(dtype, seed=2)
    acc = _x(dtype, seed=3)
    acc0 = acc.clone()
    out = torch.zeros(N, dtype=dtype, device=DEVICE)
    mod.tile_shadowing[_grid(N)](a, b, acc, out, N, BLOCK_SIZE=BLOCK)
    bigger = torch.maximum(a, b).cpu()
    assert_matches("out", out, bigger)  # every element written: the mask is the prelude's
    assert_matches("acc", acc, acc0.cpu() + bigger, atol=1e-2 if dtype == torch.float16 else 1e-6)


@pytest.mark.parametrize("dtype", DTYPES)
def test_tile_literals_and_nested_helpers(mod, dtype):
    x = _x(dtype, n=BLOCK)
    n = BLOCK - 3
    y = torch.full((2 * BLOCK,), 7.0, dtype=dtype, device=DEVICE)
    mod.tile_literals[(1,)](x, y, n, BLOCK_SIZE=BLOCK)
    xc = x.cpu()
    # masked twice + unmasked twice (the load gave 0 past n, so the masked store keeps 7 there)
    assert_matches("y[:B]", y[:n], (xc + xc)[:n] * 2)
    assert_matches("y[:B] past n", y[n:BLOCK], [7.0] * 3)
    assert_matches("y[B:]", y[BLOCK:BLOCK + n], (xc + xc + 1)[:n])


def test_same_named_helpers_of_two_kernels_stay_apart(mod, generated):
    x, y = _x(torch.float32, n=BLOCK), torch.zeros(BLOCK, device=DEVICE)
    mod.other_twice[(1,)](x, y, BLOCK, BLOCK_SIZE=BLOCK)
    assert_matches("y", y, x.cpu() * 3)
    assert "def twice(t_tensor, t_mask):" in generated[""]
    assert "def twice_3(v):\n    return v * 3.0\n" in generated[""]
    assert "twice_3(x)" in generated["other_twice"]


def test_helper_lowered_once_per_mask_shape(generated):
    text = generated[""]
    # a Some mask crosses the call as a local; a None one does not cross at all
    assert "def twice(t_tensor, t_mask):\n    doubled = t_tensor + t_tensor\n    return (doubled, t_mask)\n" in text
    assert "def twice_2(t_tensor):\n    doubled = t_tensor + t_tensor\n    return doubled\n" in text
    assert "m2_tensor, m2_mask = twice(x, in_bounds)" in generated["tile_literals"]
    assert "b2_tensor = twice_2(x)" in generated["tile_literals"]
    assert text.count("@triton.jit") == 17  # 8 helpers (one per shape), _loop_forever, 8 kernels


def test_helpers_keep_their_doc_comments(generated):
    assert 'def scale(t_tensor, t_mask, by):\n    """Scales a tile by a tensor; the mask goes along."""\n' \
        in generated[""]
    assert '    """A plain tensor helper at module level, generic over its dtype; a tail expression returns."""' \
        in generated[""]


@pytest.mark.parametrize("dtype", DTYPES)
def test_placeholder_in_a_branch_never_taken(mod, dtype):
    x, y = _x(dtype), torch.zeros(N, dtype=dtype, device=DEVICE)
    mod.placeholders[(1,)](x, y, N, 0, BLOCK_SIZE=64)
    assert_matches("y", y, x.cpu() + x.cpu())


@pytest.mark.skipif(DEVICE != "cpu", reason="on a GPU the kernel would spin for ever (Rust's `loop {}`)")
def test_reaching_a_placeholder_on_the_interpreter_is_an_error_not_a_hang(mod):
    from rs2triton.runtime.bounds import LOOP_HELPER, NeverReturns
    from rs2triton.transpiler.lowering.kernel.helpers import HELPER_SOURCES

    assert f"def {LOOP_HELPER}():" in HELPER_SOURCES[LOOP_HELPER]
    rust = (ROOT / SRC).read_text().splitlines()
    line = next(i for i, s in enumerate(rust, 1) if "let v = T::full(&[BLOCK_SIZE], never::<D>());" in s)
    x, y = _x(torch.float32), torch.zeros(N)
    with pytest.raises(NeverReturns, match=rf"Placeholders: the launch reached a `loop {{}}` at {SRC}:{line}, "
                                           r"program \(0, 0, 0\): it never returns"):
        mod.Placeholders(BLOCK_SIZE=64)[(1,)](x, y, N, 1)
    assert torch.count_nonzero(y) == 0  # nothing after it ran
    mod.Placeholders(BLOCK_SIZE=64)[(1,)](x, y, N, 0)  # the branch not taken: the launch returns
    assert_matches("y", y, x.cpu() + x.cpu())
    with pytest.raises(NeverReturns, match="Spins: the launch reached") as info:
        mod.Spins(BLOCK_SIZE=16)[(1,)](torch.zeros(16))
    assert "`fn dummy() -> D { loop {} }`" in str(info.value)


@pytest.mark.parametrize("dtype", DTYPES)
def test_a_tensor_of_null_pointers(mod, dtype, generated):
    x, y = _x(dtype, n=40), torch.full((64,), 3.0, dtype=dtype, device=DEVICE)
    mod.NullPointers(BLOCK_SIZE=64)[(1,)](x, y, 40)
    assert_matches("y", y[:40], x.cpu() + x.cpu())
    assert_matches("y past n", y[40:], [3.0] * 24)
    assert "nowhere = tl.zeros([BLOCK_SIZE], dtype=tl.int64).to(tl.pointer_type(D))" in generated["null_pointers"]


# ---------------------------------------------------------------------------- generated text


def test_prelude_is_the_macros_expansion(generated):
    src = generated["tile_affine"]
    assert "def tile_affine(x, y, n_elements, alpha, BLOCK_SIZE: tl.constexpr):" in src
    body = [line.strip() for line in src.splitlines()[3:11]]
    assert body == [
        "D = x.dtype.element_ty",
        "pid = tl.program_id(0)",
        "block_start = pid * BLOCK_SIZE",
        "offsets = tl.arange(0, BLOCK_SIZE) + block_start",
        "in_bounds = offsets < n_elements",
        "x_tensor = tl.load(x + offsets, mask=in_bounds)",
        "y_tensor = y + offsets",
        "a = tl.full([BLOCK_SIZE], tl.cast(alpha, D), dtype=D)",
    ]
    launcher = generated[""].split("TileAffine = Launcher(")[1]
    assert 'params={"x": "*D", "y": "*D", "n_elements": "i32", "alpha": "f32"}' in launcher
    assert 'access={"x": "in", "y": "out"}' in launcher and 'dtypes={"D": "f32, f16"}' in launcher


def test_inout_tile_gets_no_prelude(generated):
    src = generated["tile_shadowing"]
    assert "acc_tensor" not in src and "tl.load(acc + offsets, mask=in_bounds)" in src
    assert "in_bounds_1 = a_tensor > b_tensor" in src and "tl.store(out_tensor, bigger, mask=in_bounds)" in src
    assert 'access={"a": "in", "b": "in", "acc": "inout", "out": "out"}' in generated[""]


def test_unreachable_code_is_left_out(generated):
    src = generated["spins"]
    assert src.split("\n\n# Launchers")[0].rstrip().endswith("offsets = tl.arange(0, BLOCK_SIZE)\n    _loop_forever()"), src
    assert "tl.store" not in src and "dot_scaled" not in src
    branch = generated["placeholders"]
    assert "    if spin > 0:\n        _loop_forever()\n    tl.store(y_ptr + offsets, x + x" in branch
    # the loop a placeholder runs, once per module: a barrier keeps the compiler from deleting it
    assert "def _loop_forever():\n" in generated[""] and "tl.debug_barrier()" in generated[""]


# ---------------------------------------------------------------------------- errors


def _error(src: str):
    with pytest.raises(TranspileError) as info:
        transpile_source(src, "kernels/bad.rs")
    return info.value.diagnostics[0]


KERNEL = """use teeny_triton::triton::*;

#[kernel]
pub fn k<T: Triton, D: Float, const B: i32>(x_ptr: T::Pointer<D>, n: i32) {{
    fn stop<DD: Dtype>() -> DD {{
        loop {{}}
    }}
    fn id<TT: Triton, DD: Float>(t: Tile<TT, DD>) -> Tile<TT, DD> {{
        t
    }}
    let offs = T::arange(0, B);
    let x = T::load(x_ptr.add_offsets(offs), None, None, &[], None, None, None, false);
{body}}}
"""


@pytest.mark.parametrize("body,code,message,line", [
    # what Rust rejects after a call that never returns is still an error ...
    ("    let v = stop::<D>();\n    let w = missing + 1;\n", "E0006", "cannot find value `missing`", 14),
    # ... what Triton alone cannot express there is not (it never runs): see the next test
    ("    let mut t = Tile { tensor: x, mask: None };\n", "E0002", "mutable `Tile`", 13),
    ("    let t = id::<T, D>(x);\n", "E0008", "takes a `Tile` here", 13),
    ("    let t = Tile { tensor: x, mask: None };\n    let v = T::exp(id::<T, D>(t));\n", "E0008", "", 14),
    ("    let f = DotFormat::Int8;\n", "E0008", "`DotFormat::Int8` has no Triton equivalent", 13),
    # a call that never returns (or a Tile result) cannot hide in an expression's branch
    ("    let v = if n > 0 { stop::<D>() } else { D::from_f64(1.0) };\n", "E0002", "conditional expression", 13),
    ("    let v = n > 0 && stop::<bool>();\n", "E0002", "the right of `&&`", 13),
    ("    let t = Tile { tensor: x, mask: None };\n    let v = if n > 0 { id::<T, D>(t) } else { t };\n",
     "E0002", "conditional expression", 14),
])
def test_located_errors(body, code, message, line):
    d = _error(KERNEL.format(body=body))
    assert (d.code, d.line) == (code, line), d.render()
    assert message in d.message


def test_a_placeholder_in_an_if_statement_loops_in_that_branch_only():
    src = KERNEL.format(body="    if n > 0 {\n        let s = stop::<D>();\n        T::store(x_ptr, s, None, &[], None, None);\n"
                             "    }\n    T::store(x_ptr.add_offsets(offs), x + x, None, &[], None, None);\n")
    text = transpile_source(src, "kernels/ok.rs").text
    assert "    if n > 0:\n        _loop_forever()\n    tl.store(x_ptr + offs, x + x)\n" in text, text
    # as an `if` value, Triton would need the branch's value after its endless loop
    src = KERNEL.format(body="    let v = if n > 0 {\n        let s = stop::<D>();\n        s\n    } else {\n"
                             "        D::from_f64(1.0)\n    };\n")
    d = _error(src)
    assert (d.code, d.line) == ("E0002", 13) and "never returns" in d.message


def test_what_triton_cannot_express_is_fine_where_it_is_never_reached():
    src = KERNEL.format(body="    let v = stop::<D>();\n    let f = DotFormat::Int8;\n"
                             "    let buf = T::shared_alloc::<D>(&[B, B]);\n")
    text = transpile_source(src, "kernels/ok.rs").text
    assert "_loop_forever()" in text and "shared" not in text


# ---------------------------------------------------------------------------- GPU targets

KERNELS = {"tile_affine": {"BLOCK_SIZE": 128}, "tile_composed": {"BLOCK_SIZE": 128}, "tile_shadowing": {"BLOCK_SIZE": 128},
           "tile_literals": {"BLOCK_SIZE": 16}, "other_twice": {"BLOCK_SIZE": 64},
           "placeholders": {"BLOCK_SIZE": 64}, "spins": {"BLOCK_SIZE": 64}, "null_pointers": {"BLOCK_SIZE": 64}}


@pytest.fixture(scope="module")
def compiled():
    reqs = [{"file": SRC, "kernel": k, "target": t, "dtypes": {"D": d}, "consts": c}
            for k, c in KERNELS.items() for t in ("cuda:90", "hip:gfx942") for d in ("f32", "f16", "bf16")]
    return compile_in_subprocess(reqs)


def test_tile_kernels_compile_for_sm90_and_gfx942(compiled):
    failures = [f"{r['kernel']} {r['target']} {r['dtypes']}: {r.get('error')}" for r in compiled if not r["ok"]]
    assert not failures, "\n".join(failures)
    assert len(compiled) == 48 and all(r["entry"] for r in compiled)
