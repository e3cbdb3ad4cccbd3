"""The generated code is what a Triton expert would write: counted `while` loops are
ranges (so Triton can pipeline them), `let mut` values are never `tl.constexpr`, and no
f64 reaches the GPU when the Rust kernel does not compute in f64.

Kernels: tests/kernels/codegen.rs, and kernels_rs/ for the GPU compilation checks.
"""


import pytest
import torch

import rs2triton
from rs2triton.transpiler.driver.pipeline import transpile_file
from tests.compile_helper import compile_in_subprocess
from tests.conftest import DEVICE, jit_sources
from tests.numerics import assert_matches, slot_labels

SRC = "tests/kernels/codegen.rs"


@pytest.fixture(scope="module")
def mod():
    return rs2triton.load(SRC)


@pytest.fixture(scope="module")
def generated() -> dict[str, str]:
    """The generated source of each kernel of SRC (plain: no launchers after the last kernel)."""
    return {k: v.rstrip() + "\n" for k, v in jit_sources(transpile_file(SRC, launchers=False).text).items()}


def _fold(values):
    acc = 0
    for i in values:
        acc = acc * 3 + i
    return acc


LOHI = [(0, 7), (2, 9), (3, 3), (-4, 2), (5, 1), (-3, -3)]


def test_counted_while_loops_are_ranges(generated):
    src = generated["counted"]
    assert "while" not in src
    assert "for i in range(lo, hi, STEP):" in src
    assert "for j in range(hi, lo - 1, -2):" in src  # `while j >= lo { ..; j -= 2; }`
    assert "for k in range(lo, hi + 1):" in src  # `while hi >= k { ..; k = k + 1; }`
    assert "i = lo" not in src  # the counter's `let` became the range start
    assert "for n in range(lo, hi, 2):" in src and "for n in range(lo + 1, hi, 2):" in src  # a reused counter


@pytest.mark.parametrize("lo,hi", LOHI)
def test_counted_loops_visit_what_rust_visits(mod, lo, hi):
    out = torch.zeros(4, dtype=torch.int32, device=DEVICE)
    mod.counted[(1,)](out, lo, hi, STEP=3)
    assert_matches("out", out, [_fold(range(lo, hi, 3)), _fold(range(hi, lo - 1, -2)), _fold(range(lo, hi + 1)),
                                _fold([*range(lo, hi, 2), *range(lo + 1, hi, 2)])],
                   labels=["while i < hi { i += STEP }", "while j >= lo { j -= 2 }", "while hi >= k { k = k + 1 }",
                           "n reused: from lo, then from lo + 1"])


def test_loops_that_are_not_ranges_stay_while(generated):
    src = generated["not_counted"]
    assert src.count("while ") == 4, src
    assert src.count("for ") == 1 and "in range(lo, hi, 3):" in src  # the reused counter's second loop


@pytest.mark.parametrize("lo,hi", LOHI)
def test_not_counted_loops_visit_what_rust_visits(mod, lo, hi):
    out = torch.zeros(4, dtype=torch.int32, device=DEVICE)
    mod.not_counted[(1,)](out, lo, hi, 2)
    j = lo
    while j < hi:
        j += 2
    c, k, end = 0, lo, hi
    while k < end:
        c, end, k = c * 3 + k, end - 1, k + 1
    assert_matches("out", out, [_fold(range(lo, hi, 2)), j, c, _fold([*range(lo, hi, 2), *range(lo, hi, 3)])],
                   labels=["while i < hi { i += step }", "j after the loop", "while k < end { end -= 1 }",
                           "m reused: a while, then a range"])


def test_let_mut_values_are_never_constexpr(generated):
    src = generated["runtime_counter"]
    assert "kw_idx: tl.constexpr" not in src and "pick: tl.constexpr" not in src
    assert "kw_idx = iter % KW" in src


@pytest.mark.parametrize("n", [0, 1, 2, 4])
def test_runtime_counter_branches_at_run_time(mod, n):
    out = torch.zeros(3, dtype=torch.int32, device=DEVICE)
    mod.runtime_counter[(1,)](out, n, KW=3)
    kw = n % 3
    assert_matches("out", out, [10 if kw == 1 else 20, kw, 30 if kw == 1 else 40],
                   labels=["store in if kw_idx == 1", "kw_idx", "if kw_idx == 1 { 30 } else { 40 }"])


def test_comments_stay_where_they_were(generated):
    assert generated["comments"].split('"""')[2] == """
    x: tl.constexpr = 2.5  # a trailing note
    if n > 0:  # on the header line
        # inside the call: moved above it
        tl.store(out, x)
    # in a branch of a ternary: moved above it
    # so is this one
    v = x if n > 1 else 0.0
    if n > 3:
        t = v * 2.0
        w = t + 1.0  # after a block's value
        # and below it
    else:
        w = v
    tl.store(out, w)
"""
    assert generated["comments"].split('"""')[0].endswith("""def comments(
    # where the result goes
    out,  # one element
    n,
    UNUSED: tl.constexpr,  # a const generic's comment
):
    """)


def test_noise_is_left_out(generated):
    src = generated["tidy"]
    for line in ("lo = tl.minimum(a, b)", "hi = tl.maximum(a, b)", "top = tl.maximum(a, b)",
                 "floor = tl.minimum(a, b)", "eps_t = tl.full([B], eps, dtype=D)",
                 "two = tl.full([B], 2.0, dtype=D)",
                 "lowest = tl.full([B], -3.4028234663852886e38, dtype=D)"):  # the literal's f32 value
        assert f"    {line}\n" in src, line
    assert " if " not in src and ".to(" not in src


@pytest.mark.parametrize("a,b", [(3, 5), (5, 3), (-2, -2), (-7, 4)])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_tidied_forms_compute_the_same(mod, a, b, dtype):
    out = torch.zeros(4, dtype=torch.int32, device=DEVICE)
    x = torch.zeros(16, dtype=dtype, device=DEVICE)
    z = torch.zeros(16, dtype=dtype, device=DEVICE)
    mod.tidy[(1,)](x, z, out, a, b, 0.1, B=16)
    assert_matches("out", out, [min(a, b), max(a, b), max(a, b), min(a, b)], labels=slot_labels("tests/kernels/codegen.rs", "tidy"))
    want = torch.full((16,), 0.1, dtype=torch.float32).to(dtype) * torch.tensor(2.0, dtype=dtype)
    assert_matches("x_ptr", x, want, atol=0, rtol=0)
    # Rust: the f32 literal is f32::MIN, then cast to D (-inf in f16).
    assert_matches("z_ptr", z, torch.full((16,), torch.finfo(torch.float32).min).to(dtype), atol=0, rtol=0)


def test_values_held_in_f32_pass_through_reductions(generated):
    src = generated["held_in_f32"]
    assert "s = tl.sum(tl.where(mask, e, tl.zeros_like(e)), axis=0)\n" in src  # no rounding before the sum
    assert "tl.store(y_ptr + offs, (e / s).to(D), mask=mask)\n" in src  # once, at the store
    assert "tl.maximum(e.to(D), x)" in src  # it meets a plain D value


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_held_in_f32_matches_torch(mod, dtype):
    n = 1000
    x = torch.linspace(-30, 30, n, dtype=torch.float32).to(dtype).to(DEVICE)
    y, z = torch.zeros_like(x), torch.zeros_like(x)
    mod.held_in_f32[(1,)](x, y, z, n, B=1024)
    want = torch.softmax(x.cpu().float(), dim=0)
    torch.testing.assert_close(y.cpu().float(), want.to(dtype).float(), atol=1e-6, rtol=2e-3 if dtype == torch.float16 else 1e-5)
    e = torch.exp(x.cpu().float() - x.cpu().float().max())
    torch.testing.assert_close(z.cpu(), torch.maximum(e.to(dtype), x.cpu()), atol=0, rtol=1e-5)


def test_negated_f64_casts_stay_narrow(generated):
    src = generated["shrink"]
    assert "lo = tl.full([B], tl.cast(-lambda_, D), dtype=D)\n" in src and "float64" not in src


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
@pytest.mark.parametrize("lambd", [0.5, 1.75])
def test_shrink_matches_torch(mod, dtype, lambd):
    n = 1000
    x = torch.linspace(-3, 3, n, dtype=torch.float32).to(dtype).to(DEVICE)
    y = torch.full_like(x, 7.0)
    mod.shrink[(1,)](x, y, lambd, n, B=1024)
    assert_matches("y_ptr", y, torch.nn.functional.hardshrink(x.cpu().float(), lambd).to(dtype), atol=0, rtol=0)


def test_casts_of_values_held_in_f32(generated):
    src = generated["held_casts"]
    assert "    tl.store(f_ptr + offs, e, mask=mask)\n" in src  # to f32: no round trip through f16
    assert "    tl.store(i_ptr + offs, e.to(tl.float16).to(tl.int32), mask=mask)\n" in src  # rounded to f16 first


def test_casts_of_values_held_in_f32_match_rust(mod):
    n = 1000
    x = torch.linspace(0, 10, n, dtype=torch.float32).to(torch.float16).to(DEVICE)
    f = torch.zeros(n, dtype=torch.float32, device=DEVICE)
    i = torch.zeros(n, dtype=torch.int32, device=DEVICE)
    mod.held_casts[(1,)](x, f, i, n, B=1024)
    e = torch.exp(x.cpu().float())
    assert_matches("f_ptr", f, e, atol=0, rtol=1e-6)
    # As Rust computes: exp in f16 (rounded once), then truncated to i32. For 245 of these
    # 1,000 inputs that differs from truncating the f32 value.
    assert_matches("i_ptr", i, e.to(torch.float16).to(torch.int32), atol=0, rtol=0)


# ── GPU compilation (sm_90, no GPU needed) ────────────────────────────────────

ASYNC_COPIES = {"ttgir_async": ["ttgir", r"async_copy_global_to_local"], "ptx_cp_async": ["ptx", r"cp\.async\.(?:ca|cg)"]}
F64 = {"ptx_f64": ["ptx", r"\.f64\b"]}
# f32: without the divisibility hints a real launch gives (K % 16 == 0), a K-masked f16
# load is 2 bytes wide, below the 4 bytes an async copy needs.
LINEAR = {"file": "kernels_rs/linear.rs", "kernel": "linear_forward", "target": "cuda:90", "dtypes": {"D": "f32"},
          "consts": {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}, "count": ASYNC_COPIES}
ACT = {"file": "kernels_rs/activations.rs", "target": "cuda:90", "dtypes": {"D": "f32"},
       "consts": {"BLOCK_SIZE": 256}, "count": F64}


BF16_ACTIVATIONS = ["softplus_forward", "logsigmoid_forward", "mish_forward", "gelu_tanh_forward", "gelu_erf_forward",
                    "elu_forward", "celu_forward"]


@pytest.fixture(scope="module")
def compiled():
    requests = {
        "linear_stages3": {**LINEAR, "options": {"num_stages": 3}},
        "linear_stages1": {**LINEAR, "options": {"num_stages": 1}},
        "celu_f32": {**ACT, "kernel": "celu_forward"},
        "softplus_f32": {**ACT, "kernel": "softplus_forward"},
        "elu_f32": {**ACT, "kernel": "elu_forward"},
        "shrink_f32": {**ACT, "file": SRC, "kernel": "shrink", "consts": {"B": 256}},
        "runtime_counter": {"file": SRC, "kernel": "runtime_counter", "target": "cuda:90", "consts": {"KW": 3}},
        # bf16 cannot be judged on Triton's interpreter: compiled, and free of f64.
        **{f"{k}_bf16": {**ACT, "kernel": k, "dtypes": {"D": "bf16"}} for k in BF16_ACTIVATIONS},
    }
    return dict(zip(requests, compile_in_subprocess(list(requests.values())), strict=True))


def test_counted_loop_is_pipelined_when_num_stages_asks(compiled):
    """linear_forward's `while k < K { ..; k += BLOCK_K; }` is an scf.for: with num_stages=3
    Triton streams its loads through shared memory with async copies."""
    staged, single = compiled["linear_stages3"], compiled["linear_stages1"]
    assert staged["ok"] and single["ok"], staged.get("error") or single.get("error")
    assert staged["counts"]["ttgir_async"] > 0 and staged["counts"]["ptx_cp_async"] > 0, staged["counts"]
    assert single["counts"]["ttgir_async"] == 0, single["counts"]


@pytest.mark.parametrize("key", ["celu_f32", "softplus_f32", "elu_f32", "shrink_f32"])
def test_no_f64_on_the_gpu_for_f32_kernels(compiled, key):
    """`D::from_f64(alpha as f64)` and `D::from_f64(1.0 / alpha as f64)` of an f32 `alpha`."""
    res = compiled[key]
    assert res["ok"], res.get("error")
    assert res["counts"]["ptx_f64"] == 0


@pytest.mark.parametrize("kernel", BF16_ACTIVATIONS)
def test_bf16_activations_compile_without_f64(compiled, kernel):
    res = compiled[f"{kernel}_bf16"]
    assert res["ok"], res.get("error")
    assert res["counts"]["ptx_f64"] == 0


def test_runtime_counter_compiles(compiled):
    # Triton 3.6 rejects `kw_idx: tl.constexpr = iter % KW` used in an `if`.
    assert compiled["runtime_counter"]["ok"], compiled["runtime_counter"].get("error")
