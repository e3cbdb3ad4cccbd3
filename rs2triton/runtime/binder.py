"""A launcher's fast path: a check-and-launch function generated for its signature.

Triton binds a ``@triton.jit`` function's arguments with a function it generates per signature;
a launcher does the same for its checks. :func:`make_binder` writes, for one Rust signature, a
function per grid that takes the launch's arguments (by position or by name) and launches them
in order when every check passes -- each pointer a ``torch.Tensor`` of an accepted dtype (never
one Triton's interpreter computes wrongly, where it runs), the pointers of one dtype parameter
of one dtype, all on one device that can run the kernel, each integer an ``int`` in its Rust
type's range, each float a ``float`` in range, each bool a ``bool`` -- and otherwise hands them
to the general path (``Launcher.bind``), which accepts what
the fast path does not (a null pointer, an int for a float, a tensor subclass) and raises the
``TypeError``/``ValueError`` naming the parameter for what is wrong: so the fast path changes how
fast a launch is checked, never what it accepts. What it costs is measured by
``benchmarks/bench_launch.py``: three integers or more have their ranges checked by one
``struct`` pack, a
device's kind is read only for a device not seen last, and a Triton kernel's ``run`` is called
without Triton's grid proxy (``fn[grid]`` is a lambda calling it).

The generated source holds only the parameters' names (checked to be identifiers) and local
names; every value it compares against is passed in, never written into the text.
"""

from __future__ import annotations

import keyword
import struct
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from rs2triton.rust.types import SCALARS, TORCH_DTYPES, Class

if TYPE_CHECKING:
    from rs2triton.runtime.protocols import Kernel, Launch


class _Missing:
    def __repr__(self) -> str:
        return "<missing>"


MISSING = _Missing()  # a parameter the launch did not give


# struct's codes for Rust's integer types, by range: packing the integers of a launch checks all
# their ranges in one C call (struct raises struct.error for one out of range)
_PACK_CODES = {(-2 ** 7, 2 ** 7 - 1): "b", (0, 2 ** 8 - 1): "B", (-2 ** 15, 2 ** 15 - 1): "h", (0, 2 ** 16 - 1): "H",
               (-2 ** 31, 2 ** 31 - 1): "i", (0, 2 ** 32 - 1): "I", (-2 ** 63, 2 ** 63 - 1): "q",
               (0, 2 ** 64 - 1): "Q"}


def make_binder(launcher: Kernel, fn: Any, keywords: Mapping[str, object],
                slow: Callable[[tuple[int, ...], tuple[object, ...], dict[str, object]], Any],
                on_error: Callable[[Exception], Exception | None]) -> Callable[[tuple[int, ...]], Launch] | None:
    """The fast check-and-launch functions of ``launcher``: ``make(grid)`` gives the function
    ``f(*args, **kwargs)`` that launches ``fn[grid](*args, **keywords)`` when every check passes,
    else returns ``slow(grid, args, kwargs)`` (the general path); an exception of the launch goes
    through ``on_error(exc)`` (which returns the error to raise instead, or None). None where the
    signature has a shape the fast path leaves to the general one (a scalar typed by a dtype
    parameter)."""
    from rs2triton.runtime.values import _torch, interpreter_dtype_problem

    torch = _torch()
    params = launcher._params
    names = [p.name for p in params]
    if any(not n.isidentifier() or keyword.iskeyword(n) or n.startswith("_rs") for n in names):
        return None
    # What the generated code compares against, under names no parameter can have (`_rs...`),
    # builtins too (a Rust parameter may be called `int`).
    # (a parameter is a tensor to the kernel: an optimizer step launches on nn.Parameters)
    env: dict[str, Any] = {"_rs_Tensors": frozenset({torch.Tensor, torch.nn.Parameter}), "_rs_type": type, "_rs_int": int, "_rs_float": float,
                           "_rs_bool": bool, "_rs_dict": dict, "_rs_Exception": Exception,
                           "_rs_error": struct.error, "_rs_on_error": on_error}
    tensors: list[str] = []
    body: list[str] = []
    seen_dtype: dict[str, str] = {}
    device = None
    ints: list[str] = []
    codes = ""
    ranges: list[str] = []
    for i, p in enumerate(params):
        v = p.name
        if p.pointer:
            tensors.append(v)
            if launcher.dense:
                body.append(f"if not {v}.is_contiguous(): return None")
            if device is None:
                # The device must be one the kernel can run on: the flags say so (`t.device.type`
                # costs five times `t.is_meta`), read only when the device is not the last one
                # seen, which comparing costs less.
                device = f"_rs_dev{i}"
                body.append(f"{device} = {v}.device")
                body.append(f"if {device} != _rs_seen[0]:")
                body.append(f"    if {v}.is_meta{'' if launcher.interpreted else f' or {v}.is_cpu'}: return None")
                body.append(f"    _rs_seen[0] = {device}")
                env["_rs_seen"] = [None]
            else:
                body.append(f"if {v}.device != {device}: return None")
            if p.dtype_param:
                if p.elem in seen_dtype:
                    body.append(f"if {v}.dtype is not {seen_dtype[p.elem]}: return None")
                else:
                    dt = f"_rs_dt{i}"
                    seen_dtype[p.elem] = dt
                    # (a dtype Triton's interpreter computes wrongly is the general path's to refuse)
                    env[f"_rs_ok{i}"] = frozenset(
                        dt for dt in (getattr(torch, TORCH_DTYPES.get(r, ""), None) for r in launcher.dtypes[p.elem])
                        if dt is not None and interpreter_dtype_problem(launcher, dt) is None)
                    body.append(f"{dt} = {v}.dtype")
                    body.append(f"if {dt} not in _rs_ok{i}: return None")
            else:
                want = getattr(torch, TORCH_DTYPES.get(p.elem, ""), None)
                if want is None or interpreter_dtype_problem(launcher, want) is not None:
                    return None
                env[f"_rs_want{i}"] = want
                body.append(f"if {v}.dtype is not _rs_want{i}: return None")
            continue
        s = SCALARS.get(p.elem)
        if s is None:  # a scalar of a dtype parameter: its type is known only from the tensors
            return None
        if s.cls is Class.BOOL:
            body.append(f"if _rs_type({v}) is not _rs_bool: return None")
        elif s.cls is Class.INT:
            code = _PACK_CODES.get((int(s.min), int(s.max)))
            if code is None:
                return None
            ints.append(v)
            codes += code
            ranges.append(f"{int(s.min)} <= {v} <= {int(s.max)}")  # (numbers, no user text)
        else:
            env[f"_rs_max{i}"] = s.max_finite
            body.append(f"if _rs_type({v}) is not _rs_float or not -_rs_max{i} <= {v} <= _rs_max{i}: return None")
    if tensors:  # every pointer's type at once, ahead of reading any tensor's attributes
        body.insert(0, f"if {' or '.join(f'_rs_type({v}) not in _rs_Tensors' for v in tensors)}: return None")
    if ints:  # every integer at once: one test of their types, then of their ranges
        body.append(f"if {' or '.join(f'_rs_type({v}) is not _rs_int' for v in ints)}: return None")
        if len(ints) < 3:  # (comparing costs less than packing for one or two)
            body.append(f"if not ({' and '.join(ranges)}): return None")
        else:  # one C call checks them all
            env["_rs_pack"] = struct.Struct("=" + codes).pack
            body += ["try:", f"    _rs_pack({', '.join(ints)})", "except _rs_error:", "    return None"]
    # Triton's own `fn[grid]` is a lambda that calls `fn.run(grid=grid, warmup=False, ...)`: a
    # launcher of a Triton kernel calls `run` itself, saving that proxy's call per launch.
    from rs2triton.runtime.values import _triton

    kernel_interface = _triton().runtime.jit.KernelInterface
    per_grid = ""
    if isinstance(fn, kernel_interface) and type(fn).__getitem__ is kernel_interface.__getitem__:
        env["_rs_run"] = fn.run
        if "grid" in keywords or "warmup" in keywords:  # (Triton's own error: keyword given twice)
            launch = f"_rs_run({', '.join(names)}, grid=_rs_grid, warmup=False, **_rs_kw)"
        else:  # the keywords with the grid's, made once per grid
            per_grid = "_rs_kwg = {**_rs_kw, 'grid': _rs_grid, 'warmup': False}"
            launch = f"_rs_run({', '.join(names)}, **_rs_kwg)"
    else:
        env["_rs_fn"] = fn
        launch = f"_rs_fn[_rs_grid]({', '.join(names)}, **_rs_kw)"
    env["_rs_kw"], env["_rs_slow"], env["_rs_M"] = dict(keywords), slow, MISSING
    # A failed check hands the launch to the general path, with the arguments as they came: all
    # of them in order where more came than there are parameters, else by name (a missing one is
    # MISSING, which fails its check, so it reaches the general path too).
    given = ", ".join(f"{n}={n}" for n in names)
    slow_call = (f"return _rs_slow(_rs_grid, ({', '.join(names)},) + _rs_more, {{}}) if _rs_more else "
                 f"_rs_slow(_rs_grid, (), {{k: v for k, v in _rs_dict({given}, **_rs_extra).items() if v is not _rs_M}})")
    body = [line.replace("return None", slow_call) for line in body]
    body.insert(0, f"if _rs_more or _rs_extra: {slow_call}")
    # (Triton's error about the kernel is raised at its Rust line, as the general path raises it)
    body += ["try:", f"    return {launch}", "except _rs_Exception as _rs_e:", "    _rs_mapped = _rs_on_error(_rs_e)",
             "    if _rs_mapped is None:", "        raise", "    raise _rs_mapped from _rs_e"]
    # The compared values are the closure's cells (fast to read), made by an outer function; the
    # grid is one more cell, bound once per grid. The function has the launcher's name: Python's
    # own error for an argument given twice names it.
    fn_name = launcher.name if launcher.name.isidentifier() and not keyword.iskeyword(launcher.name) \
        and not launcher.name.startswith("_rs") else "launch"
    params_text = ", ".join(f"{n}=_rs_M" for n in names)
    source = "\n".join([f"def _rs_make({', '.join(env)}):",
                        "    def _rs_for_grid(_rs_grid):",
                        *([" " * 8 + per_grid] if per_grid else []),
                        f"        def {fn_name}({params_text}, *_rs_more, **_rs_extra):",
                        *(" " * 12 + line for line in body), f"        return {fn_name}",
                        "    return _rs_for_grid", ""])
    scope: dict[str, Any] = {"__builtins__": {}}
    exec(compile(source, f"<rs2triton binder of {launcher.name}>", "exec"), scope)  # noqa: S102
    make: Callable[..., Callable[[tuple[int, ...]], Launch]] = scope["_rs_make"]
    return make(**env)
