"""Time rs2triton's generated kernels against hand-written Triton and torch, in one run.

    python benchmarks/bench_kernels.py [--json results.json]

Needs a GPU (timings on Triton's CPU interpreter mean nothing); with --smoke it runs
tiny sizes on whatever backend is available, to check the script itself.
Reported: median milliseconds (triton.testing.do_bench) and the ratio
generated / hand-written (1.00 = no cost for going through rs2triton).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", default=None)
    ap.add_argument("--smoke", action="store_true", help="tiny sizes, any backend")
    opts = ap.parse_args()

    import rs2triton
    from rs2triton.loading.loader import use_interpreter

    interp = use_interpreter(None)
    if interp and not opts.smoke:
        sys.exit("no GPU visible to torch: timings would be meaningless (use --smoke to test the script)")
    gen = rs2triton.load(ROOT / "kernels_rs" / "vector_add.rs")  # fixes the backend before triton
    import torch
    import triton
    from triton.testing import do_bench

    sys.path.insert(0, str(ROOT / "benchmarks"))
    import handwritten as hw

    dev = "cpu" if interp else "cuda"
    small = opts.smoke
    sm = rs2triton.load(ROOT / "kernels_rs" / "softmax.rs")
    mm = rs2triton.load(ROOT / "kernels_rs" / "matmul.rs")
    ln = rs2triton.load(ROOT / "kernels_rs" / "layernorm.rs")
    lin = rs2triton.load(ROOT / "kernels_rs" / "linear.rs")
    act = rs2triton.load(ROOT / "kernels_rs" / "activations.rs")

    def bench(fn):
        if small:
            fn()
            return float("nan")
        return do_bench(fn, warmup=25, rep=100)

    results = []
    cdiv = triton.cdiv
    for dtype in (torch.float32, torch.float16):
        # vector add
        n = 1 << 12 if small else 1 << 26
        a, b = (torch.randn(n, device=dev, dtype=dtype) for _ in range(2))
        out = torch.empty_like(a)
        blk = 1024
        g = (cdiv(n, blk),)
        results.append({
            "kernel": "vector_add", "dtype": str(dtype), "size": n, "bytes": 3 * n * a.element_size(),
            "generated": bench(lambda: gen.vector_add[g](a, b, out, n, BLOCK_SIZE=blk)),
            "handwritten": bench(lambda: hw.vector_add[g](a, b, out, n, BLOCK_SIZE=blk)),
            "torch": bench(lambda: torch.add(a, b, out=out)),
        })
        # softmax
        rows, cols = (64, 1000) if small else (8192, 1000)
        x = torch.randn(rows, cols, device=dev, dtype=dtype)
        y = torch.empty_like(x)
        results.append({
            "kernel": "softmax", "dtype": str(dtype), "size": f"{rows}x{cols}", "bytes": 2 * x.numel() * x.element_size(),
            "generated": bench(lambda: sm.softmax_forward[(rows,)](x, y, rows, cols, cols, BLOCK_SIZE=1024)),
            "handwritten": bench(lambda: hw.softmax[(rows,)](x, y, cols, cols, BLOCK_SIZE=1024)),
            "torch": bench(lambda: torch.softmax(x, dim=1)),
        })
        # matmul
        M = N = K = 128 if small else 4096
        A = torch.randn(M, K, device=dev, dtype=dtype)
        B = torch.randn(K, N, device=dev, dtype=dtype)
        C = torch.empty(M, N, device=dev, dtype=dtype)
        bm, bn, bk = 128, 128, 32
        grid = (cdiv(M, bm), cdiv(N, bn))
        strides = (A.stride(0), A.stride(1), B.stride(0), B.stride(1), C.stride(0), C.stride(1))
        results.append({
            "kernel": "matmul", "dtype": str(dtype), "size": f"{M}x{N}x{K}",
            "generated": bench(lambda: mm.matmul[grid](A, B, C, M, N, K, *strides, BLOCK_M=bm, BLOCK_N=bn,
                                                         BLOCK_K=bk)),
            "handwritten": bench(lambda: hw.matmul[grid](A, B, C, M, N, K, *strides, BLOCK_M=bm, BLOCK_N=bn,
                                                          BLOCK_K=bk)),
            "torch": bench(lambda: torch.matmul(A, B, out=C)),
        })
        # layernorm
        rows, cols = (16, 3000) if small else (8192, 3000)
        x = torch.randn(rows, cols, device=dev, dtype=dtype)
        w, bias = torch.randn(cols, device=dev, dtype=dtype), torch.randn(cols, device=dev, dtype=dtype)
        y = torch.empty_like(x)
        mean = torch.empty(rows, device=dev)
        rstd = torch.empty(rows, device=dev)
        results.append({
            "kernel": "layer_norm", "dtype": str(dtype), "size": f"{rows}x{cols}",
            "bytes": (2 * x.numel() + 2 * cols) * x.element_size() + 2 * rows * 4,
            "generated": bench(lambda: ln.layer_norm_forward[(rows,)](x, y, w, bias, mean, rstd, cols, cols, 1e-5,
                                                                       BLOCK_N=1024)),
            "handwritten": bench(lambda: hw.layer_norm[(rows,)](x, y, w, bias, mean, rstd, cols, cols, 1e-5,
                                                                 BLOCK_N=1024)),
            "torch": bench(lambda: torch.nn.functional.layer_norm(x, (cols,), w, bias, 1e-5)),
        })
        # linear: y = x @ w^T + b
        M = N = K = 128 if small else 4096
        X = torch.randn(M, K, device=dev, dtype=dtype)
        W = torch.randn(N, K, device=dev, dtype=dtype)
        B = torch.randn(N, device=dev, dtype=dtype)
        Y = torch.empty(M, N, device=dev, dtype=dtype)
        grid = (cdiv(M, 128), cdiv(N, 128))
        results.append({
            "kernel": "linear", "dtype": str(dtype), "size": f"{M}x{N}x{K}",
            "generated": bench(lambda: lin.linear_forward[grid](X, W, B, Y, M, N, K, BLOCK_M=128, BLOCK_N=128,
                                                                 BLOCK_K=32)),
            "handwritten": bench(lambda: hw.linear_forward[grid](X, W, B, Y, M, N, K, BLOCK_M=128, BLOCK_N=128,
                                                                  BLOCK_K=32)),
            "torch": bench(lambda: torch.nn.functional.linear(X, W, B)),
        })
        # activations (element-wise, memory-bound); torch: the same function from torch.nn.functional
        n = 1 << 12 if small else 1 << 26
        x = torch.randn(n, device=dev, dtype=dtype)
        y = torch.empty_like(x)
        g = (cdiv(n, 1024),)
        F = torch.nn.functional
        for name, scalar, ref in (("softplus", (1.0,), lambda: F.softplus(x)), ("logsigmoid", (), lambda: F.logsigmoid(x)),
                                  ("mish", (), lambda: F.mish(x)), ("gelu_tanh", (), lambda: F.gelu(x, approximate="tanh")),
                                  ("elu", (1.0,), lambda: F.elu(x)), ("celu", (1.0,), lambda: F.celu(x))):
            gen_fn, hand_fn = getattr(act, f"{name}_forward"), getattr(hw, f"{name}_forward")
            results.append({
                "kernel": name, "dtype": str(dtype), "size": n, "bytes": 2 * n * x.element_size(),
                "generated": bench(lambda: gen_fn[g](x, y, n, *scalar, BLOCK_SIZE=1024)),
                "handwritten": bench(lambda: hand_fn[g](x, y, n, *scalar, BLOCK_SIZE=1024)),
                "torch": bench(ref),
            })
    # The reference for memory-bound kernels: a device-to-device copy of 1 GiB (read + write).
    src = torch.empty((1 << 12 if small else 1 << 28), device=dev, dtype=torch.float32)
    dst = torch.empty_like(src)
    copy_ms = bench(lambda: dst.copy_(src))
    copy_gbs = 2 * src.numel() * 4 / copy_ms / 1e6
    backend = "interpreter" if interp else torch.cuda.get_device_name(0)
    print(f"backend: {backend}; triton {triton.__version__}; torch {torch.__version__}")
    print(f"copy bandwidth (torch copy_ of 1 GiB): {copy_gbs:.1f} GB/s")
    print(f"{'kernel':<11} {'dtype':<14} {'size':<15} {'generated ms':>13} {'hand ms':>9} {'torch ms':>9} "
          f"{'gen/hand':>9} {'gen/torch':>9}")
    for r in results:
        r["gen_over_hand"] = r["generated"] / r["handwritten"]
        r["gen_over_torch"] = r["generated"] / r["torch"]
        if "bytes" in r:  # memory-bound: achieved bandwidth as a fraction of the copy's
            r["generated_gbs"] = r["bytes"] / r["generated"] / 1e6
            r["fraction_of_copy"] = r["generated_gbs"] / copy_gbs
        print(f"{r['kernel']:<11} {r['dtype']:<14} {str(r['size']):<15} {r['generated']:>13.4f} "
              f"{r['handwritten']:>9.4f} {r['torch']:>9.4f} {r['gen_over_hand']:>9.3f} {r['gen_over_torch']:>9.3f}"
              + (f"  {r['generated_gbs']:.1f} GB/s = {r['fraction_of_copy']:.2f} of copy" if "bytes" in r else ""))
    if opts.json:
        Path(opts.json).write_text(json.dumps({"backend": backend, "triton": triton.__version__,
                                               "copy_gbs": copy_gbs, "results": results}, indent=2))


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    main()
