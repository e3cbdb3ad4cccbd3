"""Which rows of the torch mapping run on a kernel tree's ops, and whether they match torch.

    python benchmarks/backend_rows.py TREE   # teenygrad's kernels/teeny-kernels/src, say

For every row, f32, shapes 7, 3x16 and 2x3x17 (strided), without and with a gradient: "ran"
(on the op, forward and, with a gradient, backward, matching torch to 1e-4), "fb:" and the
reason it ran on torch, or the error; a "MISMATCH" mark where the op ran and disagreed. On the
interpreter; the samples are the test-suite's (tests/test_backend.py).
"""

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("TRITON_INTERPRET", "1")

import torch  # noqa: E402

import rs2triton  # noqa: E402
from rs2triton.backend.plan import _reference  # noqa: E402
from tests.test_backend import ENTRIES, sample  # noqa: E402

if len(sys.argv) != 2:
    sys.exit(__doc__)
be = rs2triton.torch_backend(sys.argv[1], name="backend_rows", register=False)
for name, e in sorted(ENTRIES.items()):
    res = []
    for shape in [(7,), (3, 16), (2, 3, 17)]:
        for grad in (False, True):
            args, kw = sample(name, shape, torch.float32, False)
            if grad:
                args = tuple(a.detach().requires_grad_() if isinstance(a, torch.Tensor) else a for a in args)
            be.reset_report()
            try:
                out = getattr(be.functional, name)(*args, **kw)
                ref = _reference(e.reference)(*[a.detach() if isinstance(a, torch.Tensor) else a for a in args], **kw)
                ok = torch.allclose(out.detach(), ref, atol=1e-4, rtol=1e-4)
                r = be.report()
                if grad and r.ran(name):
                    g = torch.randn_like(out)
                    out.backward(g)
                    ra = tuple(a.detach().requires_grad_() if isinstance(a, torch.Tensor) else a for a in args)
                    _reference(e.reference)(*ra, **kw).backward(g)
                    ok = ok and all(torch.allclose(a.grad, b.grad, atol=1e-4, rtol=1e-4) for a, b in zip(args, ra, strict=True) if isinstance(a, torch.Tensor) and a.grad is not None)
                res.append(("ran" if r.ran(name) else "fb:" + next(iter(r.fallbacks(name)))[:60]) + ("" if ok else " MISMATCH"))
            except Exception as ex:
                res.append(f"ERR {type(ex).__name__}: {str(ex)[:80]}")
    print(name, res)
