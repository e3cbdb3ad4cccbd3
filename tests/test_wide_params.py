"""64-bit scalar parameters stay 64-bit: Triton types an int argument by its value, so a
small value reaches an `i64` parameter as i32; the generated kernel widens it on entry."""

import os
import subprocess
import sys
import textwrap

import pytest
import torch

import rs2triton
from tests.conftest import DEVICE, ROOT

SRC = ROOT / "tests" / "kernels" / "wide.rs"


@pytest.mark.parametrize("a,b", [(100_000, 100_000), (-70_000, 40_000), (1, 3), (3, 2**40), (0, -5)])
def test_i64_products_do_not_wrap(a, b):
    mod = rs2triton.load(SRC)
    out = torch.zeros(1, dtype=torch.int64, device=DEVICE)
    mod.wide_mul[(1,)](out, a, b, 0)
    assert out.item() == a * b, f"out_ptr[0] (a * b as i64): got {out.item()}, expected {a * b}"


def test_widened_parameters_compile_when_triton_specialises_them():
    # A small value arrives as i32, and 1 as a compile-time constant: both must compile.
    code = textwrap.dedent(f"""
        import triton, rs2triton
        from triton.backends.compiler import GPUTarget
        from triton.compiler import ASTSource
        m = rs2triton.load({str(SRC)!r}, interpret=False)
        for sig, consts in [({{"out_ptr": "*i64", "a": "i32", "b": "i32", "_unused": "i32"}}, {{}}),
                            ({{"out_ptr": "*i64", "a": "constexpr", "b": "i32", "_unused": "i32"}}, {{"a": 1}})]:
            for target in (GPUTarget("cuda", 90, 32), GPUTarget("hip", "gfx942", 64)):
                ttir = triton.compile(ASTSource(fn=m.wide_mul, signature=sig, constexprs=consts),
                                      target=target).asm["ttir"]
                assert "i64" in ttir, ttir
        print("ok")
    """)
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    proc = subprocess.run([sys.executable, "-W", "ignore", "-c", code], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=600)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr[-3000:]
