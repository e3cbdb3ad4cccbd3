"""A stress corpus for the transpiler: many varied, realistic teeny-triton kernel files.

    python benchmarks/gen_corpus.py OUTDIR [--files 100] [--seed 0]

Writes OUTDIR/<family>/<name>.rs. Files look like a kernel library's: a licence
header, `use` lines, forward/backward kernel pairs and other kernel families
(element-wise maths, binary ops with scalars, row reductions, norms, tiled matmul
with epilogues, strided 2-D copies, scans, atomics), module-level consts, combine
functions, then host-side glue (a runtime-op `impl` for most kernels, structs,
`impl` blocks, tests) that is parsed but not translated. Some files hold no kernel at all. Each kernel is assembled from random
choices (formulas, parameters, block sizes, masks, loops), so no two are copies.
Deterministic for a given seed; `bench_transpile.py` calls :func:`generate`.
"""

from __future__ import annotations

import argparse
import random
import re
from pathlib import Path

HEADER = """\
// Copyright (c) {year} The Example Kernels Authors.
//
// Generated for benchmarking rs2triton: a stress corpus of teeny-triton kernels.
// Licensed under the Apache License, Version 2.0.

#![allow(non_snake_case)]

use teeny_core::dtype::{{Float, Num}};
use teeny_macros::kernel;
use teeny_triton::triton::{{
    types::{{AddOffsets, Comparison}},
    *,
}};
"""

WHERE_1D = """\
where
    T::I32Tensor: types::Tensor<i32, 1>,
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<D>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,"""

WHERE_2D = """\
where
    T::I32Tensor: types::Tensor<i32, 2>,
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<D>: AddOffsets<i32, 2, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,"""

LOAD_MULTI = """T::load(
        {ptr}.add_offsets({offs}),
        {mask},
        {other},
        &[],
        None,
        None,
        None,
        false,
    )"""

STORE_MULTI = """T::store(
        {ptr}.add_offsets({offs}),
        {val},
        {mask},
        &[],
        None,
        None,
    );"""

# Element-wise forward formulas over `x` (a tile of D); `one`/`zero` are tiles.
UNARY = {
    "relu": "T::maximum(x, zero)",
    "leaky": "T::where_(T::gt(x, zero), x, x * slope)",
    "sigmoid": "one / (one + T::exp(zero - x))",
    "softplus": "T::log(one + T::exp(x))",
    "swish": "x / (one + T::exp(zero - x))",
    "tanh": "(T::exp(x + x) - one) / (T::exp(x + x) + one)",
    "gelu_tanh": "half * x * (one + T::erf(x * inv_sqrt2))",
    "square": "x * x",
    "cube": "x * x * x",
    "softsign": "x / (one + T::abs(x))",
    "hardtanh": "T::clamp(x, zero - one, one)",
    "mish_ish": "x * T::sigmoid(T::log(one + T::exp(x)))",
    "elu": "T::where_(T::gt(x, zero), x, slope * (T::exp(x) - one))",
    "silu": "x * T::sigmoid(x)",
    "rsqrt_abs": "T::rsqrt(T::abs(x) + one)",
    "log1p_abs": "T::log(T::abs(x) + one)",
    "sinusoid": "T::sin(x) * T::cos(x)",
    "exp2_neg": "T::exp2(zero - x * x)",
}

# Their derivatives in terms of x, dy (tiles).
BACKWARD = {
    "relu": "T::where_(T::gt(x, zero), dy, zero)",
    "leaky": "T::where_(T::gt(x, zero), dy, dy * slope)",
    "sigmoid": "dy * (one / (one + T::exp(zero - x))) * (one - one / (one + T::exp(zero - x)))",
    "softplus": "dy / (one + T::exp(zero - x))",
    "swish": "dy * (T::sigmoid(x) + x * T::sigmoid(x) * (one - T::sigmoid(x)))",
    "square": "dy * (x + x)",
    "cube": "dy * x * x * three",
    "softsign": "dy / ((one + T::abs(x)) * (one + T::abs(x)))",
    "hardtanh": "T::where_(T::lt_scalar(T::abs(x), D::ONE), dy, zero)",
    "elu": "T::where_(T::gt(x, zero), dy, dy * slope * T::exp(x))",
    "silu": "dy * T::sigmoid(x) * (one + x * (one - T::sigmoid(x)))",
}

BINARY = {
    "add": "a + b",
    "sub": "a - b",
    "mul": "a * b",
    "div": "a / b",
    "max": "T::maximum(a, b)",
    "min": "T::minimum(a, b)",
    "axpy": "a * alpha_t + b",
    "lerp": "a + (b - a) * alpha_t",
    "hypot": "T::sqrt(a * a + b * b)",
    "sq_diff": "(a - b) * (a - b)",
    "fma": "T::fma(a, b, a)",
}

EPILOGUE = {
    "none": "acc",
    "relu": "T::maximum(acc, T::zeros::<f32>(&[BLOCK_M, BLOCK_N]))",
    "scale": "acc * alpha",
    "sigmoid": "T::sigmoid(acc)",
    "square": "acc * acc",
}


def _ptr(r: random.Random, name: str, kind: str) -> str:
    ty = "T::Pointer<D>" if not name.endswith("stat_ptr") else "T::Pointer<f32>"
    if r.random() < 0.4:
        return f"{name}: {kind}<{ty}>"
    return f"{name}: {ty}"


def _doc(r: random.Random, lines: list[str]) -> str:
    extra = r.choice(["", "\n///\n/// Grid: `[cdiv(n, BLOCK_SIZE)]`, one program per block.",
                      "\n///\n/// Lanes past the end are masked off; nothing is read out of bounds."])
    return "\n".join(f"/// {line}" for line in lines) + extra


def _load(r: random.Random, ptr: str, offs: str, mask: str | None, other: str = "None") -> str:
    m = f"Some({mask})" if mask else "None"
    if r.random() < 0.5:
        return LOAD_MULTI.format(ptr=ptr, offs=offs, mask=m, other=other)
    return f"T::load({ptr}.add_offsets({offs}), {m}, {other}, &[], None, None, None, false)"


def _store(r: random.Random, ptr: str, offs: str, val: str, mask: str | None) -> str:
    m = f"Some({mask})" if mask else "None"
    if r.random() < 0.5:
        return STORE_MULTI.format(ptr=ptr, offs=offs, val=val, mask=m)
    return f"T::store({ptr}.add_offsets({offs}), {val}, {m}, &[], None, None);"


def _block_prologue(r: random.Random, block: str) -> str:
    axis = "Axis::X"
    if r.random() < 0.5:
        return (f"    let pid = T::program_id({axis});\n"
                f"    let block_start = pid * {block};\n"
                f"    let offsets = T::arange(0, {block}) + block_start;\n"
                f"    let in_bounds = offsets.lt(n_elements);\n")
    return (f"    let offsets = T::program_id({axis}) * {block} + T::arange(0, {block});\n"
            f"    let in_bounds = offsets.lt(n_elements);\n")


def _tiles(block: str, names: set[str]) -> str:
    table = {
        "zero": f"    let zero = T::zeros::<D>(&[{block}]);\n",
        "one": f"    let one = T::full(&[{block}], D::ONE);\n",
        "half": f"    let half = T::full(&[{block}], D::from_f64(0.5));\n",
        "three": f"    let three = T::full(&[{block}], D::from_f64(3.0));\n",
        "inv_sqrt2": f"    let inv_sqrt2 = T::full(&[{block}], D::from_f64(0.7071067811865476));\n",
        "slope": f"    let slope = T::full(&[{block}], D::from_f64(slope_v as f64));\n",
    }
    return "".join(table[n] for n in table if n in names)


def _used(expr: str) -> set[str]:
    return set(re.findall(r"\b(zero|one|half|three|inv_sqrt2|slope)\b", expr))


def _elementwise(r: random.Random, doc: str, attr: str, fn: str, bound: str, block: str,
                 inputs: list[str], out: str, expr: str) -> str:
    """One 1-D element-wise kernel: load ``inputs``, store ``expr`` into ``out``."""
    names = _used(expr)
    ptrs = [_ptr(r, f"{i}_ptr", "InPtr") for i in inputs] + [_ptr(r, f"{out}_ptr", "OutPtr")]
    params = ",\n    ".join(ptrs + ["n_elements: i32"] + (["slope_v: f32"] if "slope" in names else []))
    loads = "".join(f"    let {i} = {_load(r, f'{i}_ptr', 'offsets', 'in_bounds')};\n" for i in inputs)
    return f"""\
{doc}
#[kernel{attr}]
pub fn {fn}<T: Triton, D: {bound}, const {block}: i32>(
    {params},
) {WHERE_1D}
{{
{_block_prologue(r, block)}
{loads}{_tiles(block, names)}    let {out} = {expr};
    {_store(r, f"{out}_ptr", "offsets", out, "in_bounds")}
}}
"""


def unary_pair(r: random.Random, op: str, uid: str) -> list[str]:
    block = r.choice(["BLOCK_SIZE", "BLOCK"])
    bound = r.choice(["Float", "Float", "Num"]) if op in ("relu", "square", "cube") else "Float"
    backward = "".join(w.title() for w in f"{op}_{uid}_backward".split("_"))
    out = [_elementwise(r, _doc(r, [f"Forward {op}, element by element: y = {UNARY[op].replace('T::', '')}."]),
                        f"(backward = {backward})" if op in BACKWARD else "", f"{op}_{uid}_forward", bound,
                        block, ["x"], "y", UNARY[op])]
    if op in BACKWARD:
        out.append(_elementwise(r, f"/// Backward {op}: dx = dy * d{op}/dx.", "", f"{op}_{uid}_backward", bound,
                                block, ["dy", "x"], "dx", BACKWARD[op]))
    return out


def binary(r: random.Random, op: str, uid: str) -> list[str]:
    expr = BINARY[op]
    alpha = "alpha_t" in expr
    scalar = ",\n    alpha: f32" if alpha else ""
    tiles = "    let alpha_t = T::full(&[BLOCK_SIZE], D::from_f64(alpha as f64));\n" if alpha else ""
    grid_stride = r.random() < 0.3
    body_load = (f"        let a = {_load(r, 'a_ptr', 'offs', 'mask')};\n"
                 f"        let b = {_load(r, 'b_ptr', 'offs', 'mask')};\n"
                 f"        let out = {expr};\n"
                 f"        {_store(r, 'out_ptr', 'offs', 'out', 'mask')}\n")
    if grid_stride:
        body = (f"    let step = T::num_programs(Axis::X) * BLOCK_SIZE;\n"
                f"    let mut start = T::program_id(Axis::X) * BLOCK_SIZE;\n{tiles}"
                f"    while start < n_elements {{\n"
                f"        let offs = T::arange(0, BLOCK_SIZE) + start;\n"
                f"        let mask = offs.lt(n_elements);\n{body_load}"
                f"        start += step;\n    }}\n")
    else:
        body = (f"    let offs = T::program_id(Axis::X) * BLOCK_SIZE + T::arange(0, BLOCK_SIZE);\n"
                f"    let mask = offs.lt(n_elements);\n{tiles}"
                + "\n".join("    " + line[8:] if line.startswith("        ") else line
                            for line in body_load.splitlines()) + "\n")
    return [f"""\
{_doc(r, [f"Element-wise `{op}` of two vectors" + (" (grid-stride loop)." if grid_stride else ".")])}
#[kernel]
pub fn {op}_{uid}<T: Triton, D: {r.choice(["Num", "Float"])}, const BLOCK_SIZE: i32>(
    {_ptr(r, "a_ptr", "InPtr")},
    {_ptr(r, "b_ptr", "InPtr")},
    {_ptr(r, "out_ptr", "OutPtr")},
    n_elements: i32{scalar},
) {WHERE_1D}
{{
{body}}}
"""]


def row_reduce(r: random.Random, kind: str, uid: str) -> list[str]:
    fill = "D::from_f64(f64::NEG_INFINITY)" if kind in ("softmax", "logsumexp", "rowmax") else "D::ZERO"
    if kind == "softmax":
        math = ("    let x = x - T::max(x, Some(0), false);\n"
                "    let num = T::exp(x);\n"
                "    let y = num / T::sum(num, Some(0), false);\n")
        store = _store(r, "y_ptr", "row * stride + cols", "T::cast::<f32, D>(y, None, false)", "mask")
    elif kind == "logsumexp":
        math = ("    let m = T::max(x, Some(0), false);\n"
                "    let y = T::log(T::sum(T::exp(x - m), Some(0), false)) + m;\n")
        store = _store(r, "y_ptr", "row", "T::cast::<f32, D>(y, None, false)", None)
    elif kind == "rowmax":
        math = "    let y = T::max(x, Some(0), false);\n"
        store = _store(r, "y_ptr", "row", "T::cast::<f32, D>(y, None, false)", None)
    else:
        scale = "inv_n" if kind == "mean" else "1.0f32"
        math = (f"    let inv_n = 1.0f32 / (n_cols as f32);\n"
                f"    let y = T::sum(x, Some(0), false) * {scale};\n")
        store = _store(r, "y_ptr", "row", "T::cast::<f32, D>(y, None, false)", None)
    return [f"""\
{_doc(r, [f"Row-wise `{kind}` of a `[n_rows, n_cols]` matrix with row stride `stride`.",
          "The whole row must fit in one block: `BLOCK_N >= n_cols`."])}
#[kernel]
pub fn row_{kind}_{uid}<T: Triton, D: Float, const BLOCK_N: i32>(
    {_ptr(r, "x_ptr", "InPtr")},
    {_ptr(r, "y_ptr", "OutPtr")},
    n_cols: i32,
    stride: i32,
) {WHERE_1D}
{{
    let row = T::program_id(Axis::X);
    let cols = T::arange(0, BLOCK_N);
    let mask = cols.lt(n_cols);
    let fill = T::full(&[BLOCK_N], {fill});
    let x = {_load(r, "x_ptr", "row * stride + cols", "mask", "Some(fill)")};
    // Accumulate in f32 whatever D is.
    let x = T::cast::<D, f32>(x, None, false);
{math}    {store}
}}
"""]


def norm(r: random.Random, kind: str, uid: str) -> list[str]:
    center = kind == "layer"
    affine = r.random() < 0.7
    mean_pass = ("        sum_acc += T::cast::<D, f32>(x, None, false);\n" if center else
                 "        let xf = T::cast::<D, f32>(x, None, false);\n        sum_acc += xf * xf;\n")
    stat = ("    let mean = T::sum(sum_acc, Some(0), false) / (n_cols as f32);\n" if center else
            "    let mean = 0.0f32;\n"
            "    let rstd = 1.0f32 / T::sqrt(T::full(&[1], T::sum(sum_acc, Some(0), false) / (n_cols as f32) + eps));\n")
    var = ("    let mut var_acc = T::zeros::<f32>(&[BLOCK_N]);\n"
           "    for start in (0..n_cols).step_by(BLOCK_N as usize) {\n"
           "        let offs = cols + start;\n"
           "        let mask = offs.lt(n_cols);\n"
           f"        let x = {_load(r, 'x_ptr', 'row * stride + offs', 'mask', 'Some(zero)')};\n"
           "        let d = T::where_(mask, T::cast::<D, f32>(x, None, false) - mean, T::zeros::<f32>(&[BLOCK_N]));\n"
           "        var_acc += d * d;\n"
           "    }\n"
           "    let rstd = T::rsqrt(T::full(&[1], T::sum(var_acc, Some(0), false) / (n_cols as f32) + eps));\n"
           if center else "")
    w = ("        let w = T::cast::<D, f32>(" + _load(r, "w_ptr", "offs", "mask", "None") + ", None, false);\n"
         "        let y = y * w;\n") if affine else ""
    wparam = f"\n    {_ptr(r, 'w_ptr', 'InPtr')}," if affine else ""
    return [f"""\
{_doc(r, [f"{kind.title()} norm of each row, in column blocks of `BLOCK_N` (any row length)."])}
#[kernel]
pub fn {kind}_norm_{uid}<T: Triton, D: Float, const BLOCK_N: i32>(
    {_ptr(r, "x_ptr", "InPtr")},
    {_ptr(r, "y_ptr", "OutPtr")},{wparam}
    n_cols: i32,
    stride: i32,
    eps: f32,
) {WHERE_1D}
{{
    let row = T::program_id(Axis::X);
    let cols = T::arange(0, BLOCK_N);
    let zero = T::zeros::<D>(&[BLOCK_N]);
    let mut sum_acc = T::zeros::<f32>(&[BLOCK_N]);
    for start in (0..n_cols).step_by(BLOCK_N as usize) {{
        let offs = cols + start;
        let mask = offs.lt(n_cols);
        let x = {_load(r, "x_ptr", "row * stride + offs", "mask", "Some(zero)")};
{mean_pass}    }}
{stat}{var}    for start in (0..n_cols).step_by(BLOCK_N as usize) {{
        let offs = cols + start;
        let mask = offs.lt(n_cols);
        let x = T::cast::<D, f32>({_load(r, "x_ptr", "row * stride + offs", "mask", "Some(zero)")}, None, false);
        let y = (x - mean) * rstd;
{w}        {_store(r, "y_ptr", "row * stride + offs", "T::cast::<f32, D>(y, None, false)", "mask")}
    }}
}}
"""]


def matmul(r: random.Random, epi: str, uid: str) -> list[str]:
    bias = r.random() < 0.5
    alpha = "alpha" in EPILOGUE[epi]
    extra = (",\n    alpha: f32" if alpha else "") + (f",\n    {_ptr(r, 'bias_ptr', 'InPtr')}" if bias else "")
    bias_code = ("    let bias = T::cast::<D, f32>(" + _load(r, "bias_ptr", "offs_n", "offs_n.lt(N)", "None")
                 + ", None, false);\n    let acc = acc + T::expand_dims(bias, 0);\n") if bias else ""
    precision = r.choice(["InputPrecision::IEEE", "InputPrecision::TF32"])
    strides = ",\n    ".join(f"stride_{m}{d}: i32" for m, dims in (("a", "mk"), ("b", "kn"), ("c", "mn")) for d in dims)
    return [f"""\
{_doc(r, [f"`C = {epi}(A @ B{' + bias' if bias else ''})`, tiled `BLOCK_M x BLOCK_N`, accumulated in f32.",
          "Grid: `[cdiv(M, BLOCK_M), cdiv(N, BLOCK_N)]`."])}
#[kernel]
pub fn matmul_{epi}_{uid}<
    T: Triton,
    D: Num,
    const BLOCK_M: i32,
    const BLOCK_N: i32,
    const BLOCK_K: i32,
>(
    {_ptr(r, "a_ptr", "InPtr")},
    {_ptr(r, "b_ptr", "InPtr")},
    {_ptr(r, "c_ptr", "OutPtr")},
    M: i32, N: i32, K: i32,
    {strides}{extra},
) {WHERE_2D}
{{
    let pid_m = T::program_id(Axis::X);
    let pid_n = T::program_id(Axis::Y);
    let offs_m = pid_m * BLOCK_M + T::arange(0, BLOCK_M);
    let offs_n = pid_n * BLOCK_N + T::arange(0, BLOCK_N);
    let offs_k = T::arange(0, BLOCK_K);
    let rows = T::expand_dims(offs_m, 1);
    let cols = T::expand_dims(offs_n, 0);
    let mut acc = T::zeros::<f32>(&[BLOCK_M, BLOCK_N]);
    for k in 0..T::cdiv(K, BLOCK_K) {{
        let ks = offs_k + k * BLOCK_K;
        let a_mask = rows.lt(M) & T::expand_dims(ks, 0).lt(K);
        let b_mask = T::expand_dims(ks, 1).lt(K) & cols.lt(N);
        let a = {_load(r, "a_ptr", "rows * stride_am + T::expand_dims(ks, 0) * stride_ak", "a_mask",
                       "Some(T::zeros::<D>(&[BLOCK_M, BLOCK_K]))")};
        let b = {_load(r, "b_ptr", "T::expand_dims(ks, 1) * stride_bk + cols * stride_bn", "b_mask",
                       "Some(T::zeros::<D>(&[BLOCK_K, BLOCK_N]))")};
        acc = T::dot::<D, f32>(a, b, Some(acc), {precision}, None);
    }}
{bias_code}    let out = {EPILOGUE[epi]};
    let c_mask = rows.lt(M) & cols.lt(N);
    {_store(r, "c_ptr", "rows * stride_cm + cols * stride_cn", "T::cast::<f32, D>(out, None, false)", "c_mask")}
}}
"""]


def copy2d(r: random.Random, kind: str, uid: str) -> list[str]:
    if kind == "transpose":
        src, dst = "rows * stride_in + cols", "cols * stride_out + rows"
    else:
        src, dst = "rows * stride_in + cols", "rows * stride_out + cols"
    val = {"transpose": "x", "copy": "x", "scale": "x * factor_t", "shift": "x + factor_t"}[kind]
    factor = kind in ("scale", "shift")
    return [f"""\
{_doc(r, [f"2-D strided `{kind}` of a `[n_rows, n_cols]` tile grid."])}
#[kernel]
pub fn {kind}_2d_{uid}<T: Triton, D: {r.choice(["Num", "Float"])}, const BLOCK_R: i32, const BLOCK_C: i32>(
    {_ptr(r, "x_ptr", "InPtr")},
    {_ptr(r, "y_ptr", "OutPtr")},
    n_rows: i32,
    n_cols: i32,
    stride_in: i32,
    stride_out: i32{',' + chr(10) + '    factor: f32' if factor else ''},
) {WHERE_2D}
{{
    let r0 = T::program_id(Axis::X) * BLOCK_R;
    let c0 = T::program_id(Axis::Y) * BLOCK_C;
    let rows = T::expand_dims(T::arange(0, BLOCK_R) + r0, 1);
    let cols = T::expand_dims(T::arange(0, BLOCK_C) + c0, 0);
    let mask = rows.lt(n_rows) & cols.lt(n_cols);
    let x = {_load(r, "x_ptr", src, "mask")};
{'    let factor_t = T::full(&[BLOCK_R, BLOCK_C], D::from_f64(factor as f64));' + chr(10) if factor else ''}    {_store(r, "y_ptr", dst, val, "mask")}
}}
"""]


def scan_or_atomic(r: random.Random, kind: str, uid: str) -> list[str]:
    if kind == "cumsum":
        return [f"""\
/// Inclusive prefix sum of each block (a block-local scan).
#[kernel]
pub fn block_cumsum_{uid}<T: Triton, const BLOCK: i32>(
    x_ptr: T::Pointer<f32>,
    y_ptr: T::Pointer<f32>,
    n_elements: i32,
) {{
    let offs = T::program_id(Axis::X) * BLOCK + T::arange(0, BLOCK);
    let mask = offs.lt(n_elements);
    let x = {_load(r, "x_ptr", "offs", "mask", "Some(T::zeros::<f32>(&[BLOCK]))")};
    {_store(r, "y_ptr", "offs", "T::cumsum(x, 0, false)", "mask")}
}}
"""]
    if kind == "reduce":
        return [f"""\
/// Block sums with a user combine function, one partial per program.
#[kernel]
pub fn block_reduce_{uid}<T: Triton, const BLOCK: i32>(
    x_ptr: T::Pointer<f32>,
    partial_ptr: T::Pointer<f32>,
    n_elements: i32,
) {{
    let pid = T::program_id(Axis::X);
    let offs = pid * BLOCK + T::arange(0, BLOCK);
    let x = {_load(r, "x_ptr", "offs", "offs.lt(n_elements)", "Some(T::zeros::<f32>(&[BLOCK]))")};
    let total = T::reduce(x, 0, combine_{uid}::<T, f32>, false);
    {_store(r, "partial_ptr", "pid", "total", None)}
}}

/// Combine function for `block_reduce_{uid}`.
fn combine_{uid}<T: Triton, D: Num>(a: T::Tensor<D>, b: T::Tensor<D>) -> T::Tensor<D> {{
    a + b
}}
"""]
    return [f"""\
/// Histogram-style accumulation: every element adds its weight to `out[bucket]`.
#[kernel]
pub fn scatter_add_{uid}<T: Triton, const BLOCK: i32>(
    idx_ptr: T::Pointer<i32>,
    w_ptr: T::Pointer<f32>,
    out_ptr: T::Pointer<f32>,
    n_elements: i32,
    n_buckets: i32,
) {{
    let offs = T::program_id(Axis::X) * BLOCK + T::arange(0, BLOCK);
    let mask = offs.lt(n_elements);
    let idx = {_load(r, "idx_ptr", "offs", "mask", "None")};
    let w = {_load(r, "w_ptr", "offs", "mask", "None")};
    let ok = mask & idx.lt(n_buckets) & idx.ge(0);
    let _ = T::atomic_add(out_ptr.add_offsets(idx), w, Some(ok), None, None);
}}
"""]


FAMILIES = [
    ("activation", lambda r: r.choice(sorted(UNARY)), unary_pair),
    ("binary", lambda r: r.choice(sorted(BINARY)), binary),
    ("reduce", lambda r: r.choice(["softmax", "logsumexp", "rowmax", "sum", "mean"]), row_reduce),
    ("norm", lambda r: r.choice(["layer", "rms"]), norm),
    ("matmul", lambda r: r.choice(sorted(EPILOGUE)), matmul),
    ("layout", lambda r: r.choice(["transpose", "copy", "scale", "shift"]), copy2d),
    ("scan", lambda r: r.choice(["cumsum", "reduce", "scatter"]), scan_or_atomic),
]

HOST = """\
/// Host-side launch settings for the kernels above.
#[derive(Clone, Copy, Debug)]
pub struct {name}Config {{
    pub block_size: i32,
    pub num_warps: u32,
}}

impl {name}Config {{
    pub fn new(n: usize) -> Self {{
        let block_size = (n.min({cap}) as u32).next_power_of_two() as i32;
        Self {{ block_size, num_warps: if block_size >= 1024 {{ 8 }} else {{ 4 }} }}
    }}

    pub fn grid(&self, n: usize) -> [u32; 3] {{
        let blocks = (n as i32 + self.block_size - 1) / self.block_size;
        [blocks as u32, 1, 1]
    }}
}}

#[cfg(test)]
mod tests {{
    use super::*;

    #[test]
    fn grid_covers_{snake}() {{
        for n in [1usize, 17, 1000, {cap}] {{
            let c = {name}Config::new(n);
            assert!(c.grid(n)[0] as i32 * c.block_size >= n as i32);
        }}
    }}
}}
"""


_SIGNATURE = re.compile(r"pub fn (\w+)<(.*?)>\(\n(.*?)\n\)", re.S)


def runtime_op(kernel: str) -> str:
    """Host glue for one kernel, the way a kernel library registers it with its runtime:
    which arguments come from activations, how they are packed, the launch grid."""
    m = _SIGNATURE.search(kernel)
    fn, generics, params = m.group(1), m.group(2), m.group(3)
    struct = "".join(w.title() for w in fn.split("_"))
    names = [p.strip().split(":")[0] for p in params.split(",") if p.strip()]
    ptrs = [n for n in names if n.endswith("_ptr")]
    lines = []
    for n in names:
        if n in ptrs:
            source = f"inputs[{ptrs.index(n)}].0" if ptrs.index(n) < len(ptrs) - 1 else "output"
            lines.append(f"        visitor.visit_ptr({source});")
        elif n in ("eps", "alpha", "slope_v", "factor"):
            lines.append(f"        visitor.visit_f32(self.{n});")
        else:
            lines.append(f"        visitor.visit_i32(dims.{n} as i32);")
    generic = "<D: Float + Send + Sync + 'static>" if "D:" in generics else ""
    args = "<D>" if generic else ""
    return f"""\
impl{generic} teeny_core::model::RuntimeOp for {struct}{args} {{
    fn n_activation_inputs(&self) -> usize {{
        {max(len(ptrs) - 1, 1)}
    }}

    fn pack_args(
        &self,
        inputs: &[(teeny_core::model::RawPtr, &[usize])],
        _params: &[teeny_core::model::RawPtr],
        output: teeny_core::model::RawPtr,
        output_shape: &[usize],
        visitor: &mut dyn teeny_core::device::program::ArgVisitor,
    ) {{
        let dims = Dims::from_shape(output_shape);
{chr(10).join(lines)}
    }}

    fn grid(&self, output_shape: &[usize]) -> [u32; 3] {{
        let n: usize = output_shape.iter().product();
        [((n + 1023) / 1024) as u32, 1, 1]
    }}
}}
"""


def generate(out: Path, files: int = 100, seed: int = 0) -> tuple[int, int]:
    """Write the corpus; returns (files, kernels)."""
    r = random.Random(seed)
    n_kernels = 0
    for i in range(files):
        family, pick, build = FAMILIES[i % len(FAMILIES)]
        stem = f"{family}_{i:03d}"
        parts = [HEADER.format(year=2024 + i % 3)]
        if r.random() < 0.2:
            parts.append(f"/// Largest row the fused kernels are tuned for.\nconst MAX_COLS_{i}: i32 = {r.choice([4096, 8192, 16384])};\n")
        if i % 11 == 10:  # host code only: parsed, nothing translated
            pass
        else:
            for j in range(r.randint(1, 5)):
                kernels = build(r, pick(r), f"{i}_{j}")
                n_kernels += sum(k.count("#[kernel") for k in kernels)
                parts.append(f"// ── {family} {j} " + "─" * 60 + "\n")
                parts.extend(kernels)
                parts.extend(runtime_op(k) for k in kernels if r.random() < 0.7)
        name = "".join(w.title() for w in stem.split("_"))
        parts.append(HOST.format(name=name, snake=stem, cap=r.choice([1024, 4096, 8192])))
        path = out / family / f"{stem}.rs"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(parts))
    return files, n_kernels


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("outdir", type=Path)
    ap.add_argument("--files", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    n_files, n_kernels = generate(a.outdir, a.files, a.seed)
    print(f"wrote {n_kernels} kernels in {n_files} files under {a.outdir}")


if __name__ == "__main__":
    main()
