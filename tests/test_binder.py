"""The launcher's fast path (runtime/binder.py) changes how fast a launch is checked, never what
it accepts: for every argument list, good or bad, it launches exactly what the general path
launches, or raises exactly what the general path raises."""

from __future__ import annotations

import itertools
import random

import pytest
import torch

import rs2triton
from rs2triton.runtime import Launcher
from tests.conftest import ROOT


class Recorder:
    """Stands in for a ``@triton.jit`` function: records each launch."""

    def __init__(self):
        self.calls = []

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.calls.append((grid, args, kwargs))


def _pair(launcher: Launcher, consts: dict):
    """The same launcher twice over a recorder: one launched through the fast path, one through
    the general path only."""
    out = []
    for _ in range(2):
        rec = Recorder()
        lau = Launcher(rec, launcher.name, params=launcher.params, consts=launcher.consts, dtypes=launcher.dtypes,
                       access=launcher.access)
        lau.interpreted = True
        out.append((lau(**consts), rec))
    return out


def _outcome(fn):
    try:
        fn()
    except (TypeError, ValueError) as e:
        return type(e).__name__, str(e)
    return "ok", None


VALUES = [torch.zeros(4), torch.zeros(4, dtype=torch.float16), torch.zeros(4, dtype=torch.int32),
          torch.zeros(4, device="meta"), torch.nn.Parameter(torch.zeros(4)), None, 4, -1, 2 ** 31, 2 ** 31 - 1, True,
          1.5, float("nan"), "x", [1, 2]]


@pytest.mark.parametrize("kernel,consts", [("vector_add", {"BLOCK_SIZE": 64}), ("softmax", {"BLOCK_SIZE": 64})])
def test_fast_and_general_paths_agree(kernel, consts):
    module = rs2triton.load(ROOT / "kernels_rs" / f"{kernel}.rs")
    launcher = next(v for v in vars(module).values() if isinstance(v, Launcher) and v.name.endswith("Forward")
                    or isinstance(v, Launcher) and kernel == "vector_add")
    (fast, fast_rec), (general, general_rec) = _pair(launcher, consts)
    names = list(launcher.params)
    rng = random.Random(7)
    cases = [tuple(rng.choice(VALUES) for _ in names) for _ in range(400)]
    cases += list(itertools.islice(itertools.product(VALUES[:3] + [4], repeat=len(names)), 200))
    for args in cases:
        for style in ("positional", "named", "short", "long", "option"):
            if style == "positional":
                call_args, call_kwargs = args, {}
            elif style == "named":
                call_args, call_kwargs = (), dict(zip(names, args, strict=True))
            elif style == "short":
                call_args, call_kwargs = args[:-1], {}
            elif style == "long":
                call_args, call_kwargs = args + (1,), {}
            else:
                call_args, call_kwargs = args, {"num_warps": 4}
            fast_rec.calls.clear()
            general_rec.calls.clear()
            a = _outcome(lambda a=call_args, k=call_kwargs: fast[(2,)](*a, **k))
            b = _outcome(lambda a=call_args, k=call_kwargs: general._launch((2,), *a, **k))
            assert a == b, (args, style)
            assert len(fast_rec.calls) == len(general_rec.calls)
            for (ga, aa, ka), (gb, ab, kb) in zip(fast_rec.calls, general_rec.calls, strict=True):
                assert ga == gb and ka == kb and len(aa) == len(ab)
                assert all(x is y or x == y or (x != x and y != y) for x, y in zip(aa, ab, strict=True))


def test_an_argument_given_twice_names_the_kernel():
    module = rs2triton.load(ROOT / "kernels_rs" / "vector_add.rs")
    (fast, _), _ = _pair(module.VectorAdd, {"BLOCK_SIZE": 64})
    x = torch.zeros(4)
    with pytest.raises(TypeError, match="VectorAdd.*a_ptr"):
        fast[(1,)](x, a_ptr=x)
