"""Rows that run kernels with no ``impl RuntimeOp``: the launches a row states as data.

A teenygrad kernel struct may come with no host logic (``flash_attn2.rs``' kernels: an op
wrapper and no ``impl RuntimeOp``). A row maps such kernels by listing, on each ATen operator it
computes, the launches that compute it (:class:`~rs2triton.runtime.mapping_rules.Launch`: the
kernel struct, its grid, what goes to each parameter, its const generics), the tensors they
make and what the operator returns. :func:`plan_launches` resolves them once per shape set
(sizes, const generics, the configured kernels, the grid, each argument's place) into a
:class:`LaunchPlan`, whose :meth:`LaunchPlan.run` is allocations and launches through the
launcher's fast path (``Configured[grid]``: the generated check-and-launch function).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from rs2triton.backend.plan import Fallback, plan_key
from rs2triton.runtime.mapping_rules import Aten, Dim, Entry, Fixed
from rs2triton.runtime.values import _torch
from rs2triton.rust.types import TORCH_DTYPES


@dataclass
class LaunchPlan:
    """One ATen call's launches, resolved for its shapes: ``made`` the tensors to allocate
    (name, shape, dtype, the value it starts as or None), ``calls`` per launch the fast launch function and each argument's
    place — ``("given", name, dtype)`` (the call's tensor, dense, in that dtype), ``("made",
    name)``, ``("value", v)``; ``results`` the names returned, each in the dtype ``dtypes`` says."""

    struct: str
    made: list[tuple[str, tuple[int, ...], Any, float | None]]
    calls: list[tuple[Any, list[tuple[Any, ...]]]]
    results: tuple[str, ...]
    dtypes: tuple[Any, ...]
    notes: tuple[str, ...] = ()
    device: Any = None

    def run(self, given: dict[str, Any]) -> Any:
        torch = _torch()
        tensors = {name: torch.empty(shape, dtype=dtype, device=self.device) if fill is None
                   else torch.full(shape, fill, dtype=dtype, device=self.device) for name, shape, dtype, fill in self.made}
        for launch, places in self.calls:
            values = []
            for place in places:
                if place[0] == "made":
                    values.append(tensors[place[1]])
                elif place[0] == "given":
                    t = given[place[1]]
                    values.append(t.to(place[2]).contiguous() if t.dtype != place[2] else t.contiguous())
                else:
                    values.append(place[1])
            launch(*values)
        out = tuple(tensors[n] if tensors[n].dtype == d else tensors[n].to(d)
                    for n, d in zip(self.results, self.dtypes, strict=True))
        return out[0] if len(out) == 1 else out


def _size(entry: Entry, rule: Dim, given: dict[str, Any]) -> int:
    t = given.get(rule.arg)
    torch = _torch()
    if not isinstance(t, torch.Tensor) or not -t.dim() <= rule.dim < t.dim():
        raise Fallback(f"`{rule.arg}` has no dimension {rule.dim}")
    return int(t.shape[rule.dim])


def _const(rule: Any, sizes: dict[str, int], given: dict[str, Any]) -> Any:
    if isinstance(rule, str):
        return given[rule]
    if isinstance(rule, Fixed):
        return rule.value
    chosen, why = rule.choose(sizes)
    if chosen is None:
        raise Fallback(why)
    return chosen


def plan_launches(kernels: Any, entry: Entry, aten: Aten, given: dict[str, Any], out_dtypes: tuple[Any, ...]) -> LaunchPlan:
    """The launches of ``aten`` (a row's ATen operator with :class:`Launch` records) for the call
    ``given`` (its arguments by schema name), or :class:`Fallback` with the reason; ``kernels``:
    the tree's kernel structs; ``out_dtypes``: the dtypes torch's operator returns."""
    torch = _torch()
    from rs2triton.runtime.values import rust_dtype_of

    for key, want in aten.require.items():
        if given.get(key) != want:
            raise Fallback(f"{entry.note or entry.name} implements {key}={want!r} only; the call has "
                           f"{key}={given.get(key)!r}")
    missing = [launch.kernel for launch in aten.launches if launch.kernel not in kernels]
    if missing:
        raise Fallback(f"the kernel tree has no {missing[0]}")
    tensors = [given[n] for n in entry.inputs]
    if not all(isinstance(t, torch.Tensor) for t in tensors):
        raise Fallback("its inputs are not all tensors")
    dtype, device = tensors[0].dtype, tensors[0].device
    if any(t.dtype != dtype for t in tensors) or any(t.device != device for t in tensors):
        raise Fallback("the tensors' dtypes or devices differ")
    sizes = {name: _size(entry, rule, given) for name, rule in entry.sizes.items()}
    if any(t.numel() == 0 for t in tensors):
        raise Fallback("a tensor is empty")
    made_dtype: dict[str, Any] = {}
    calls = []
    from rs2triton.runtime import values as runtime_values

    for launch in aten.launches:
        launcher = kernels[launch.kernel]
        allowed = launcher.dtypes.get("D")
        if allowed is not None and rust_dtype_of(dtype) not in allowed:
            raise Fallback(f"{launch.kernel} takes D = {', '.join(allowed)}; the tensors are "
                           f"{str(dtype).removeprefix('torch.')}")
        ask = getattr(runtime_values, "interpreter_dtype_problem", None)
        problem = ask(launcher, dtype) if ask is not None and launcher.interpreted else None
        if problem:
            raise Fallback(problem)
        missing_consts = [c for c in launcher.consts if c not in launch.consts]
        if missing_consts:
            raise Fallback(f"no rule of the mapping chooses {launch.kernel}'s const generic {missing_consts[0]}")
        configured = launcher(**{c: _const(launch.consts[c], sizes, given) for c in launcher.consts})
        params = list(launcher.params.items())
        if len(params) != len(launch.args):
            raise Fallback(f"the mapping's launch of {launch.kernel} gives {len(launch.args)} arguments; the kernel "
                           f"takes {len(params)}")
        places: list[tuple[Any, ...]] = []
        for (pname, spec), arg in zip(params, launch.args, strict=True):
            pointer = spec.startswith("*")
            want = dtype if spec in ("*D", "*T") else _torch_dtype(spec[1:]) if pointer else None
            if isinstance(arg, str) and arg in aten.made:
                if not pointer:
                    raise Fallback(f"{launch.kernel}'s `{pname}` is not a pointer")
                made_dtype.setdefault(arg, want)
                places.append(("made", arg))
            elif isinstance(arg, str) and arg in sizes:
                places.append(("value", sizes[arg]))
            elif isinstance(arg, str) and isinstance(given.get(arg), torch.Tensor):
                places.append(("given", arg, want))
            elif isinstance(arg, str):
                value = given.get(arg)
                if not isinstance(value, (int, float)):
                    raise Fallback(f"{launch.kernel}'s `{pname}` is the call's `{arg}`, which is {value!r}")
                places.append(("value", value))
            else:
                places.append(("value", arg))
        grid = tuple(sizes[g] if isinstance(g, str) else int(g) for g in launch.grid)
        if not math.prod(grid):
            raise Fallback("the grid is empty")
        calls.append((configured[grid], places))
    made = [(n, tuple(sizes[s] if isinstance(s, str) else int(s) for s in shape), made_dtype.get(n, dtype),
             aten.filled.get(n)) for n, shape in aten.made.items()]
    if len(out_dtypes) != len(aten.results):
        out_dtypes = tuple(made_dtype.get(n, dtype) for n in aten.results)
    # (the report names every kernel of the call: flash attention's backward is dq's and dkv's)
    struct = " + ".join(dict.fromkeys(launch.kernel for launch in aten.launches))
    return LaunchPlan(struct, made, calls, aten.results, out_dtypes, device=device)


def _torch_dtype(rust: str) -> Any:
    """The torch dtype of a Rust scalar type (``rust.types``), None for one torch has not."""
    return getattr(_torch(), TORCH_DTYPES.get(rust, ""), None)


def launched(backend: Any, entry: Entry, aten: Aten, given: dict[str, Any], val: Any) -> tuple[LaunchPlan, Any]:
    """Runs the call ``given`` on the row's launches (planned once per shape set, kept on the
    backend with the other plans): the plan and the result."""
    torch = _torch()
    outs = val if isinstance(val, (list, tuple)) else (val,)
    out_dtypes = tuple(v.dtype for v in outs if isinstance(v, torch.Tensor))
    key = ("launches", entry.name, aten.target, tuple((k, plan_key(v)) for k, v in sorted(given.items())))
    cached = backend._plans.get(key)
    if cached is None:
        try:
            cached = plan_launches(backend.tree.kernels, entry, aten, given, out_dtypes)
        except Fallback as f:
            cached = str(f)
        backend._plans[key] = cached
    if isinstance(cached, str):
        raise Fallback(cached)
    return cached, cached.run(given)
