"""Ahead-of-time compilation of generated kernels for GPU targets, without a GPU.

``compile_kernel(jit_fn, kernel, "cuda:90", {"D": "f16"}, {"BLOCK_SIZE": 128})`` runs
Triton's whole pipeline (TTIR -> TTGIR -> LLVM -> PTX/cubin, or AMDGCN/hsaco).
Compilation needs Triton imported in compile mode (no ``TRITON_INTERPRET``), so
``python -m rs2triton.tools.aot`` compiles a JSON batch of requests in a fresh
process; the test-suite, which runs the interpreter in-process, uses that.
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any

from rs2triton.rust.types import SIGNATURE_TYPES
from rs2triton.transpiler.frontend.items import Kernel
from rs2triton.transpiler.pyast import python_name

TARGETS = {"cuda:90": ("cuda", 90, 32), "cuda:80": ("cuda", 80, 32), "hip:gfx942": ("hip", "gfx942", 64),
           "hip:gfx90a": ("hip", "gfx90a", 64)}


def signature(kernel: Kernel, dtypes: dict[str, str]) -> dict[str, str]:
    sig = {}
    for p in kernel.params:
        elem = dtypes.get(p.elem, p.elem)
        sig[python_name(p.name)] = ("*" if p.kind == "pointer" else "") + SIGNATURE_TYPES[elem]
    for c in kernel.consts:
        sig[python_name(c.name)] = "constexpr"
    return sig


def compile_kernel(jit_fn: object, kernel: Kernel, target: str, dtypes: dict[str, str], consts: dict[str, object],
                   options: dict[str, object] | None = None) -> Any:  # (Triton's CompiledKernel)
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    backend, arch, warp = TARGETS[target]
    src = ASTSource(fn=jit_fn, signature=signature(kernel, dtypes), constexprs=dict(consts))
    return triton.compile(src, target=GPUTarget(backend, arch, warp), options=dict(options or {}))


# An MLIR operation line: `%x = dialect.op ...`, `dialect.op ...` or `"dialect.op"(...)`.
_MLIR_OP = re.compile(r'^\s*(?:%[\w#:, %]+ = )?"?([a-z_]+\.[a-z_.]+)', re.M)


def ttir_ops(ttir: str) -> int:
    """How many operations a TTIR module has (its size, for regression checks)."""
    return sum(1 for m in _MLIR_OP.finditer(ttir) if m.group(1) not in ("module", "builtin.module"))


def compile_batch(requests: list[dict[str, Any]]) -> list[dict[str, Any]]:  # (JSON objects)
    """Each request: {file, kernel, target, dtypes, consts, options?, count?, debug?}; each result adds
    ok/error/asm sizes, ``ttir_ops``, and for ``count`` ({label: [stage, regex]}) the number
    of matches of each regex in that stage's text (``ttgir``, ``ptx``, ...)."""
    from rs2triton.loading.loader import load

    results = []
    for req in requests:
        res = dict(req)
        module = None
        try:
            module = load(req["file"], interpret=False, debug=bool(req.get("debug", False)))
            info = module.__rs2triton_kernels__[req["kernel"]]
            compiled = compile_kernel(getattr(module, python_name(req["kernel"])), info, req["target"],
                                      req.get("dtypes", {}), req.get("consts", {}), req.get("options"))
            res["ok"] = True
            res["asm"] = {k: len(v) for k, v in compiled.asm.items()}
            res["ttir_ops"] = ttir_ops(compiled.asm["ttir"])
            res["counts"] = {label: len(re.findall(rx, _text(compiled.asm.get(stage, ""))))
                             for label, (stage, rx) in req.get("count", {}).items()}
            text = compiled.asm.get("ptx") or compiled.asm.get("amdgcn") or ""
            res["entry"] = req["kernel"] in text
        except Exception as e:  # reported to the caller, which decides
            from rs2triton.runtime.errors import triton_diagnostic

            res["ok"] = False
            res["error"] = f"{type(e).__name__}: {e}"[-3000:]
            diag = triton_diagnostic(e, module) if module is not None else None
            if diag is not None:
                res["rust_line"] = diag.line
                res["diagnostic"] = diag.render()
        results.append(res)
    return results


def _text(asm: object) -> str:
    return asm if isinstance(asm, str) else ""


def main() -> None:
    import contextlib

    requests = json.load(sys.stdin)
    out = sys.stdout
    with contextlib.redirect_stdout(sys.stderr):  # `tl.static_print` writes while compiling
        results = compile_batch(requests)
    json.dump(results, out)


if __name__ == "__main__":
    main()
