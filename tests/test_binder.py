"""The launcher's fast path (runtime/binder.py) changes how fast a launch is checked, never what
it accepts: for every argument list, good or bad, it launches exactly what the general path
launches, or raises exactly what the general path raises."""

from __future__ import annotations

import itertools
import random

import pytest
import torch
from triton.runtime.jit import KernelInterface

import rs2triton
from rs2triton.runtime import Launcher
from rs2triton.runtime.launcher import Configured
from tests.conftest import ROOT


class Recorder:
    """Stands in for a ``@triton.jit`` function: records each launch."""

    def __init__(self):
        self.calls = []

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.calls.append((grid, args, kwargs))


class TritonRecorder(KernelInterface):
    """Stands in for a ``@triton.jit`` function as Triton's own kernels are: ``fn[grid]`` is
    Triton's proxy to ``run``, which the fast path calls itself."""

    def __init__(self):
        self.calls = []

    def run(self, *args, grid, warmup, **kwargs):
        assert warmup is False
        self.calls.append((grid, args, kwargs))


def _pair(launcher: Launcher, consts: dict, recorder=Recorder):
    """The same launcher twice over a recorder: one launched through the fast path, one through
    the general path only."""
    out = []
    for _ in range(2):
        rec = recorder()
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


@pytest.mark.parametrize("recorder", [Recorder, TritonRecorder])
@pytest.mark.parametrize("kernel,consts", [("vector_add", {"BLOCK_SIZE": 64}), ("softmax", {"BLOCK_SIZE": 64})])
def test_fast_and_general_paths_agree(kernel, consts, recorder):
    module = rs2triton.load(ROOT / "kernels_rs" / f"{kernel}.rs")
    launcher = next(v for v in vars(module).values() if isinstance(v, Launcher) and v.name.endswith("Forward")
                    or isinstance(v, Launcher) and kernel == "vector_add")
    _agree(launcher, consts, recorder, VALUES)


# every Rust integer type at its bounds and past them, a bool, a float, and ints given as other things
INT_VALUES = [0, 1, -1, 127, 128, -128, -129, 255, 256, 65535, 65536, -32768, -32769, 2 ** 31 - 1, 2 ** 31, -2 ** 31,
              -2 ** 31 - 1, 2 ** 32 - 1, 2 ** 32, 2 ** 63 - 1, 2 ** 63, -2 ** 63, -2 ** 63 - 1, 2 ** 64 - 1, 2 ** 64,
              True, 2.0, 1e40, float("inf"), torch.zeros(4), None]


def test_every_integer_type_is_checked_alike():
    launcher = Launcher(Recorder(), "Ints", params={"x": "*f32", "a": "i8", "b": "u8", "c": "i16", "d": "u16",
                                                   "e": "i32", "f": "u32", "g": "i64", "h": "u64", "i": "isize",
                                                   "j": "usize", "k": "bool", "l": "f32", "m": "f16"})
    _agree(launcher, {}, TritonRecorder, INT_VALUES, n_random=3000, n_product=0)


def _agree(launcher: Launcher, consts: dict, recorder, values: list, n_random: int = 400, n_product: int = 200):
    (fast, fast_rec), (general, general_rec) = _pair(launcher, consts, recorder)
    names = list(launcher.params)
    rng = random.Random(7)
    cases = [tuple(rng.choice(values) for _ in names) for _ in range(n_random)]
    cases += list(itertools.islice(itertools.product(values[:3] + [4], repeat=len(names)), n_product))
    if n_product == 0:  # each value in each place, the others good
        good = tuple(torch.zeros(4) if p.pointer else 1.0 if p.elem.startswith("f") else True if p.elem == "bool"
                     else 1 for p in launcher._params)
        cases += [good[:i] + (v,) + good[i + 1:] for i in range(len(names)) for v in values]
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
            assert a[0] == "ok" or not fast_rec.calls
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


def test_a_grid_equal_to_a_known_one_is_checked_as_given():
    module = rs2triton.load(ROOT / "kernels_rs" / "vector_add.rs")
    (fast, rec), _ = _pair(module.VectorAdd, {"BLOCK_SIZE": 64}, TritonRecorder)
    x = torch.zeros(4)
    fast[(2,)](x, x, x, 4)
    fast[(2, 1)](x, x, x, 4)
    for grid in ((2.0,), (True,), (2, 1.0), (2, True)):  # equal to a grid launched before, but not ints
        with pytest.raises(TypeError, match="VectorAdd: the grid must be 1 to 3 ints"):
            fast[grid](x, x, x, 4)
    assert [g for g, _, _ in rec.calls] == [(2,), (2, 1)]


def test_the_fast_path_reports_a_triton_error_at_the_rust_line(monkeypatch):
    monkeypatch.chdir(ROOT)
    module = rs2triton.load("kernels_rs/vector_add.rs")
    v = module.VectorAdd
    launcher = Launcher(v.fn, v.name, params=v.params, consts=v.consts, dtypes=v.dtypes, access=v.access)
    launcher.checks_accesses = False  # the interpreter's kernel, launched through the fast path
    configured = launcher(BLOCK_SIZE=100)  # arange needs a power of two
    a = torch.ones(100)
    with pytest.raises(rs2triton.TranspileError) as info:
        configured[(1,)](a, a, a, 100)
    assert configured._checked is not None and (1,) in configured._grids  # (it took the fast path)
    d = info.value.diagnostics[0]
    assert (d.code, d.path) == ("E0011", "kernels_rs/vector_add.rs") and "power of 2" in d.message
    assert type(info.value.__cause__).__module__.startswith("triton")


def test_parameters_take_the_fast_path(monkeypatch):
    """An nn.Parameter is a tensor to the kernel (an optimizer step launches on them): the fast
    path takes it, not the general one (which it went to, at a microsecond and more a launch)."""
    module = rs2triton.load(ROOT / "kernels_rs" / "vector_add.rs")
    (fast, rec), _ = _pair(module.VectorAdd, {"BLOCK_SIZE": 64}, TritonRecorder)
    monkeypatch.setattr(Configured, "_slow", lambda *a: pytest.fail("the general path took the launch"))
    p = torch.nn.Parameter(torch.zeros(4))
    fast[(1,)](p, p, p, 4)
    assert len(rec.calls) == 1 and rec.calls[0][1][0] is p
