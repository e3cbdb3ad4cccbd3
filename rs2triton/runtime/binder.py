"""A launcher's fast path: a check-and-bind function generated for its signature.

Triton binds a ``@triton.jit`` function's arguments with a function it generates per signature;
a launcher does the same for its checks. :func:`make_binder` writes, for one Rust signature, a
function that takes the launch's arguments (by position or by name) and returns them in order
when every check passes — each pointer a ``torch.Tensor`` of an accepted dtype, the pointers of
one dtype parameter of one dtype, all on one device that can run the kernel, each integer an
``int`` in its Rust type's range, each float a ``float`` in range, each bool a ``bool`` — and
``None`` otherwise. ``None`` sends the launch down the general path (``Launcher.bind``), which
accepts what the fast path does not (a null pointer, an int for a float, a tensor subclass) and
raises the ``TypeError``/``ValueError`` naming the parameter for what is wrong: so the fast path
changes how fast a launch is checked, never what it accepts.

The generated source holds only the parameters' names (checked to be identifiers) and local
names; every value it compares against is passed in, never written into the text.
"""

from __future__ import annotations

import keyword
from typing import Any

from rs2triton.rust.types import SCALARS, TORCH_DTYPES, Class


class _Missing:
    def __repr__(self) -> str:
        return "<missing>"


MISSING = _Missing()  # a parameter the launch did not give


def make_binder(launcher, fn, keywords: dict, slow) -> Any | None:
    """The fast check-and-launch function of ``launcher``: ``f(grid, *args, **kwargs)`` launches
    ``fn[grid](*args, **keywords)`` when every check passes, else returns ``slow(grid, args,
    kwargs)`` (the general path); None where the signature has a shape the fast path leaves to
    the general one (a scalar typed by a dtype parameter)."""
    from rs2triton.runtime.values import _torch

    torch = _torch()
    params = launcher._params
    names = [p.name for p in params]
    if any(not n.isidentifier() or keyword.iskeyword(n) or n.startswith("_rs") for n in names):
        return None
    # What the generated code compares against, under names no parameter can have (`_rs...`),
    # builtins too (a Rust parameter may be called `int`).
    env: dict[str, Any] = {"_rs_Tensor": torch.Tensor, "_rs_type": type, "_rs_int": int, "_rs_float": float,
                           "_rs_bool": bool, "_rs_dict": dict}
    body: list[str] = []
    seen_dtype: dict[str, str] = {}
    device = None
    ints: list[str] = []
    ranges: list[str] = []
    for i, p in enumerate(params):
        v = p.name
        if p.pointer:
            body.append(f"if _rs_type({v}) is not _rs_Tensor: return None")
            if launcher.dense:
                body.append(f"if not {v}.is_contiguous(): return None")
            if device is None:
                device = f"_rs_dev{i}"
                # (`t.device.type` costs five times `t.is_meta`: the flags say the same)
                body.append(f"if {v}.is_meta{'' if launcher.interpreted else f' or {v}.is_cpu'}: return None")
                body.append(f"{device} = {v}.device")
            else:
                body.append(f"if {v}.device != {device}: return None")
            if p.dtype_param:
                if p.elem in seen_dtype:
                    body.append(f"if {v}.dtype is not {seen_dtype[p.elem]}: return None")
                else:
                    dt = f"_rs_dt{i}"
                    seen_dtype[p.elem] = dt
                    env[f"_rs_ok{i}"] = frozenset(getattr(torch, TORCH_DTYPES[r]) for r in launcher.dtypes[p.elem]
                                                  if hasattr(torch, TORCH_DTYPES.get(r, "")))
                    body.append(f"{dt} = {v}.dtype")
                    body.append(f"if {dt} not in _rs_ok{i}: return None")
            else:
                want = getattr(torch, TORCH_DTYPES.get(p.elem, ""), None)
                if want is None:
                    return None
                env[f"_rs_want{i}"] = want
                body.append(f"if {v}.dtype is not _rs_want{i}: return None")
            continue
        s = SCALARS.get(p.elem)
        if s is None:  # a scalar of a dtype parameter: its type is known only from the tensors
            return None
        if s.cls is Class.BOOL:
            body.append(f"if _rs_type({v}) is not _rs_bool: return None")
        elif s.cls is Class.INT:  # (the bounds are ints, written as numbers: they are no user text)
            ints.append(v)
            ranges.append(f"{int(s.min)} <= {v} <= {int(s.max)}")
        else:
            env[f"_rs_max{i}"] = s.max_finite
            body.append(f"if _rs_type({v}) is not _rs_float or not -_rs_max{i} <= {v} <= _rs_max{i}: return None")
    env["_rs_fn"], env["_rs_kw"], env["_rs_slow"], env["_rs_M"] = fn, dict(keywords), slow, MISSING
    # A failed check hands the launch to the general path, with the arguments as they came: all
    # of them in order where more came than there are parameters, else by name (a missing one is
    # MISSING, which fails its check, so it reaches the general path too).
    given = ", ".join(f"{n}={n}" for n in names)
    slow_call = (f"return _rs_slow(_rs_grid, ({', '.join(names)},) + _rs_more, {{}}) if _rs_more else "
                 f"_rs_slow(_rs_grid, (), {{k: v for k, v in _rs_dict({given}, **_rs_extra).items() if v is not _rs_M}})")
    if ints:  # every integer at once: one test of their types, one of their ranges
        body.append(f"if {' or '.join(f'_rs_type({v}) is not _rs_int' for v in ints)}: return None")
        body.append(f"if not ({' and '.join(ranges)}): return None")
    body = [line.replace("return None", slow_call) for line in body]
    body.insert(0, f"if _rs_more or _rs_extra: {slow_call}")
    body.append(f"return _rs_fn[_rs_grid]({', '.join(names)}, **_rs_kw)")
    # The compared values are the closure's cells (fast to read), made by an outer function. The
    # function has the launcher's name: Python's own error for an argument given twice names it.
    fn_name = launcher.name if launcher.name.isidentifier() and not keyword.iskeyword(launcher.name) \
        and not launcher.name.startswith("_rs") else "launch"
    params_text = ", ".join(f"{n}=_rs_M" for n in names)
    source = "\n".join([f"def _rs_make({', '.join(env)}):",
                        f"    def {fn_name}(_rs_grid, {params_text}, *_rs_more, **_rs_extra):",
                        *(" " * 8 + line for line in body), f"    return {fn_name}", ""])
    scope: dict[str, Any] = {"__builtins__": {}}
    exec(compile(source, f"<rs2triton binder of {launcher.name}>", "exec"), scope)  # noqa: S102
    return scope["_rs_make"](**env)
