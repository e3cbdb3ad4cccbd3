"""Generated vs hand-written Triton, compiled for sm_90 without a GPU: TTGIR ops and PTX instructions.

    python benchmarks/compare_handwritten.py [--target cuda:90] [--json FILE]

Compiles every kernel of kernels_rs/ (through ``rs2triton.load``) and its hand-written
counterpart in ``handwritten.py`` (same tiling) with Triton's full pipeline, for f16 and
f32, and counts the operations in the TTGIR (``dialect.op`` lines) and the instructions
in the PTX (lines ending in ``;`` that are not directives). Fewer is not always faster,
but a large difference points at code a Triton programmer would not write.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
os.environ.pop("TRITON_INTERPRET", None)  # compile mode

# kernel file, generated kernel, hand-written kernel, the hand-written signature, consts
KERNELS = [
    ("vector_add.rs", "vector_add", "vector_add", ["*D", "*D", "*D", "i32"], {"BLOCK_SIZE": 1024}),
    ("relu.rs", "relu_forward", "relu_forward", ["*D", "*D", "i32"], {"BLOCK_SIZE": 1024}),
    ("relu.rs", "relu_backward", "relu_backward", ["*D", "*D", "*D", "i32"], {"BLOCK_SIZE": 1024}),
    ("softmax.rs", "softmax_forward", "softmax", ["*D", "*D", "i32", "i32"], {"BLOCK_SIZE": 1024}),
    ("matmul.rs", "matmul", "matmul", ["*D", "*D", "*D"] + ["i32"] * 9,
     {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32}),
    ("layernorm.rs", "layer_norm_forward", "layer_norm", ["*D"] * 4 + ["*fp32", "*fp32", "i32", "i32", "fp32"],
     {"BLOCK_N": 1024}),
    ("linear.rs", "linear_forward", "linear_forward", ["*D"] * 4 + ["i32"] * 3,
     {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32}),
] + [("activations.rs", k, k, ["*D", "*D", "i32"] + (["fp32"] if k in ("softplus_forward", "elu_forward",
                                                                   "celu_forward") else []), {"BLOCK_SIZE": 1024})
     for k in ("softplus_forward", "logsigmoid_forward", "mish_forward", "gelu_tanh_forward", "elu_forward",
               "celu_forward")]

_TTGIR_OP = re.compile(r"^\s*(?:%[^=]*=\s*)?\"?([a-z_][a-z0-9_]*\.[a-z0-9_.]+)")


def ttgir_ops(text: str) -> int:
    return sum(1 for line in text.splitlines() if _TTGIR_OP.match(line))


def ptx_instructions(text: str) -> int:
    n = 0
    for line in text.splitlines():
        s = line.split("//")[0].strip()
        if s.endswith(";") and not s.startswith("."):
            n += 1
    return n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--target", default="cuda:90")
    ap.add_argument("--json", type=Path)
    a = ap.parse_args()

    import rs2triton
    from rs2triton.tools.aot import TARGETS, compile_kernel

    mods = {f: rs2triton.load(ROOT / "kernels_rs" / f, interpret=False) for f in {k[0] for k in KERNELS}}
    import handwritten as hw
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    backend, arch, warp = TARGETS[a.target]
    rows = []
    for file, gen_name, hand_name, hand_sig, consts in KERNELS:
        for dtype, sig_d in (("f16", "fp16"), ("f32", "fp32")):
            mod = mods[file]
            info = mod.__rs2triton_kernels__[gen_name]
            gen = compile_kernel(getattr(mod, gen_name), info, a.target, {p.name: dtype for p in info.dtype_params}, consts)
            fn = getattr(hw, hand_name)
            sig = {name: t.replace("D", sig_d) for name, t in zip(fn.arg_names, hand_sig, strict=False)}
            sig.update(dict.fromkeys(consts, "constexpr"))
            hand = triton.compile(ASTSource(fn=fn, signature=sig, constexprs=dict(consts)),
                                  target=GPUTarget(backend, arch, warp))
            row = {"kernel": gen_name, "dtype": dtype,
                   "ttgir_generated": ttgir_ops(gen.asm["ttgir"]), "ttgir_handwritten": ttgir_ops(hand.asm["ttgir"]),
                   "ptx_generated": ptx_instructions(gen.asm["ptx"]),
                   "ptx_handwritten": ptx_instructions(hand.asm["ptx"])}
            rows.append(row)
    print(f"target {a.target}; triton {triton.__version__}")
    print(f"{'kernel':<20} {'dtype':<5} {'TTGIR gen':>9} {'hand':>6} {'ratio':>6}   {'PTX gen':>8} {'hand':>6} {'ratio':>6}")
    for r in rows:
        print(f"{r['kernel']:<20} {r['dtype']:<5} {r['ttgir_generated']:>9} {r['ttgir_handwritten']:>6} "
              f"{r['ttgir_generated'] / r['ttgir_handwritten']:>6.2f}   {r['ptx_generated']:>8} "
              f"{r['ptx_handwritten']:>6} {r['ptx_generated'] / r['ptx_handwritten']:>6.2f}")
    if a.json:
        a.json.write_text(json.dumps({"target": a.target, "triton": triton.__version__, "rows": rows}, indent=2))


if __name__ == "__main__":
    main()
