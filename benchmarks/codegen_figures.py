"""The figures of the code-quality rules (docs/translation.md), for this checkout's rs2triton
or another's: ``PYTHONPATH=/path/to/other/checkout python benchmarks/codegen_figures.py``
measures that checkout's transpiler on THIS checkout's kernels_rs/ (so an older commit
can be compared on the same kernels). No GPU needed.

- f16 over [-30, 30]: values of each activation kernel that are inf/nan where torch's own
  f16 result is finite, and the largest difference (Triton's interpreter);
- linear_forward (a counted `while` over K), f32, sm_90, num_stages=3: async copies in
  TTGIR and PTX, and whether the loop is an scf.while;
- `.f64` instructions in the PTX of the f32 activation kernels (sm_90);
- TTIR op counts of every kernels_rs/ case (sm_90).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
_OP = re.compile(r'^\s*(?:%[\w#:, %]+ = )?"?([a-z_]+\.[a-z_.]+)', re.M)


def _cases():
    """This checkout's tests/cases.py, whichever rs2triton is measured."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("_figures_cases", HERE / "tests" / "cases.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module.CASES


def numerics() -> dict:
    import torch

    import rs2triton

    CASES = _cases()

    out = {}
    for c in CASES:
        if not c.file.endswith("activations.rs"):
            continue
        args = c.make_args(torch.float16, torch.Generator().manual_seed(1))
        mod = rs2triton.load(str(HERE / c.file), interpret=True)
        getattr(mod, c.kernel)[c.grid(args)](*args.values(), **c.consts)
        want, got = c.reference(args)["y_ptr"], args["y_ptr"]
        out[c.kernel] = {"inf_or_nan_where_torch_finite": int((~torch.isfinite(got) & torch.isfinite(want)).sum()),
                         "max_abs_diff": float((got.float() - want.float()).abs().nan_to_num(float("inf")).max())}
    return out


def compiled() -> dict:
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    from rs2triton.loading.loader import load
    from rs2triton.tools.aot import signature

    CASES = _cases()

    def build(file, kernel, dtypes, consts, **options):
        mod = load(str(HERE / file), interpret=False)
        info = mod.__rs2triton_kernels__[kernel]
        src = ASTSource(fn=getattr(mod, kernel), signature=signature(info, dtypes), constexprs=dict(consts))
        return triton.compile(src, target=GPUTarget("cuda", 90, 32), options=options).asm

    out: dict = {}
    asm = build("kernels_rs/linear.rs", "linear_forward", {"D": "f32"},
                {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}, num_stages=3)
    out["linear_forward_f32_num_stages_3"] = {
        "ttgir_async_copies": asm["ttgir"].count("async_copy_global_to_local"),
        "ptx_cp_async": len(re.findall(r"cp\.async\.(?:ca|cg)", asm["ptx"])),
        "scf_while": asm["ttir"].count("scf.while")}
    out["ptx_f64_instructions_f32"] = {
        k: len(re.findall(r"\.f64\b", build("kernels_rs/activations.rs", k, {"D": "f32"}, {"BLOCK_SIZE": 256})["ptx"]))
        for k in ("softplus_forward", "elu_forward", "celu_forward")}
    names = {"torch.float32": "f32", "torch.float16": "f16", "torch.int32": "i32"}
    ttir = {}
    for c in CASES:
        for dt in c.dtypes:
            d = names[str(dt)]
            text = build(c.file, c.kernel, {"D": d}, c.consts)["ttir"]
            ttir[f"{c.id}-{d}"] = sum(1 for m in _OP.finditer(text) if m.group(1) != "builtin.module")
    out["ttir_ops"] = ttir
    return out


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] in ("numerics", "compiled"):
        import warnings

        warnings.filterwarnings("ignore")
        print(json.dumps(numerics() if sys.argv[1] == "numerics" else compiled()))
        return
    path = os.pathsep.join(p for p in (os.environ.get("PYTHONPATH", ""), str(HERE)) if p)
    figures = {}
    for part, interpret in (("numerics", "1"), ("compiled", None)):
        env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"} | {"PYTHONPATH": path}
        if interpret:
            env["TRITON_INTERPRET"] = interpret
        proc = subprocess.run([sys.executable, __file__, part], env=env, capture_output=True, text=True, cwd=HERE)
        if proc.returncode:
            sys.exit(proc.stderr[-3000:])
        figures[part] = json.loads(proc.stdout.splitlines()[-1])
    print(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
