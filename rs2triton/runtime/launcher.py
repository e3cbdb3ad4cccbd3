"""Launchers: named, checked launches of generated kernels.

A generated module defines, beside each unchanged ``@triton.jit`` function, a
:class:`Launcher` named like teenygrad's kernel struct (``relu_forward`` ->
``ReluForward``)::

    ReluForward(BLOCK_SIZE=1024)[grid](x, y, n)          # by position
    ReluForward(BLOCK_SIZE=1024)[grid](x_ptr=x, y_ptr=y, n_elements=n)

Every argument is checked against the Rust signature before anything is
launched; a mistake is a ``TypeError`` / ``ValueError`` naming the launcher and
the Rust parameter. This module is imported by generated code, so it imports
neither torch nor triton at import time (only when a kernel is launched or
tuned), and nothing from the transpiler.
"""

from __future__ import annotations

import difflib
import itertools
import numbers
import sys
import time
from collections.abc import Callable, Container, Iterable, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from rs2triton.runtime import values as _values
from rs2triton.runtime.ops import RuntimeOp
from rs2triton.runtime.values import (
    _torch,
    _triton,
    _type_name,
    check_grid,
    check_option,
    check_scalar,
    rust_dtype_of,
)
from rs2triton.rust.types import TORCH_DTYPES

if TYPE_CHECKING:  # (torch and triton are not followed by mypy: their types are Any to it)
    import torch
    from triton import Config

    from rs2triton.diagnostics import TranspileError
    from rs2triton.runtime.protocols import CheckedGridFn, Facts, GridFn, Launch, Scalar

# Triton launch options accepted on a launcher, a launch or a tuning config.
LAUNCH_OPTIONS = ("num_warps", "num_stages", "num_ctas", "maxnreg", "enable_fp_fusion", "waves_per_eu",
                  "matrix_instr_nonkdim", "kpack", "launch_cooperative_grid", "launch_pdl")
_LAUNCH_OPTION_SET = frozenset(LAUNCH_OPTIONS)
_CONFIG_FIELDS = ("num_warps", "num_stages", "num_ctas", "maxnreg")  # triton.Config's own fields
class _Param:
    __slots__ = ("name", "index", "pointer", "elem", "dtype_param", "access", "rust")

    def __init__(self, name: str, index: int, spec: str, dtype_params: Container[str], access: str | None) -> None:
        self.name = name
        self.index = index
        self.pointer = spec.startswith("*")
        self.elem = spec.removeprefix("*")
        self.dtype_param = self.elem in dtype_params
        self.access = access
        self.rust = f"{name}: T::Pointer<{self.elem}>" if self.pointer else f"{name}: {self.elem}"


class Launcher:
    """A kernel's launcher. ``Launcher(BLOCK_SIZE=...)`` fixes the const generics (and
    any launch options); the result, indexed with a grid, launches the kernel.

    ``params`` maps each Rust parameter to its type: ``"*D"`` a pointer to the
    dtype parameter ``D``, ``"*i32"`` a pointer to ``i32``, ``"i32"`` / ``"D"`` a
    scalar. ``consts`` maps const generics to Rust types, ``dtypes`` each dtype
    parameter to the element types it accepts, ``access`` pointer parameters to
    ``"in"`` / ``"out"`` / ``"inout"`` where the Rust source marks them, ``names`` the
    jit function's name of a parameter or const generic where it differs from the
    Rust name (a Python keyword gets a trailing ``_``).
    ``tuning`` (``{"configs": [...], "key": [...]}``) makes launches without
    const values go through Triton's autotuner. ``debug``: the kernel was transpiled with Rust's
    debug-build checks (``transpile --debug``): it is compiled with Triton's ``debug`` option (and
    without Triton's own overflow checks, which are not Rust's), the interpreter honours its
    assertions, and a failed one is a :class:`KernelPanic`. ``facts``: what the runtime and the
    torch backend must know of the kernel's code, as the transpiler found it (nothing reads the
    generated Python at run time; docs/python-api.md, "Kernel facts"): ``uses``, flags (``"dot"``:
    it calls ``tl.dot``, and on Triton's interpreter a dtype it computes wrongly for such a kernel
    is refused, :func:`~rs2triton.runtime.values.interpreter_dtype_problem`; ``"descriptor"``,
    ``"nan_dropping_max"``, ``"unmasked_loads"``), ``stores`` (the pointer parameters it stores
    through), ``bounds`` (per pointer addressed as a flat buffer under ``offs < n``, the ``n``) and
    ``consts`` (per const generic, what the kernel does with it: ``{"role": "block", "bounds":
    ["n"]}``; :attr:`roles`).
    ``uses``: flags given alone (modules generated before ``facts``).
    """

    def __init__(self, fn: Any, name: str, *, params: dict[str, str], consts: dict[str, str] | None = None,
                 dtypes: Mapping[str, str | tuple[str, ...]] | None = None, access: dict[str, str] | None = None,
                 backward: str | None = None, names: dict[str, str] | None = None, tuning: dict[str, Any] | None = None,
                 op: type[RuntimeOp] | None = None, debug: bool = False, uses: Iterable[str] = (),
                 facts: Facts | None = None) -> None:
        self.fn = fn  # the @triton.jit function (an InterpretedFunction on Triton's interpreter)
        facts = facts or {}
        self.uses = frozenset(uses) | frozenset(facts.get("uses", ()))
        self.stores = frozenset(facts.get("stores", ()))
        self.bounds = {p: frozenset(ns) for p, ns in dict(facts.get("bounds", {})).items()}
        # const generic -> {"role": ..., "bounds": [...]} (transpiler/emit/roles.py)
        self.roles: dict[str, dict[str, Any]] = {c: dict(r) for c, r in dict(facts.get("consts", {})).items()}
        self.debug = debug
        self.name = name
        self.params = dict(params)
        self.consts = dict(consts or {})
        self.dtypes = {k: tuple(t.strip() for t in v.split(",")) if isinstance(v, str) else tuple(v)
                       for k, v in (dtypes or {}).items()}
        self.access = dict(access or {})
        self.backward_name = backward
        self.names = dict(names or {})  # Rust name -> the jit function's name, where they differ
        self._params = [_Param(n, i, s, self.dtypes, self.access.get(n)) for i, (n, s) in enumerate(params.items())]
        self._index = {p.name: p for p in self._params}
        self._names = tuple(self._index)
        self._pointers = [p for p in self._params if p.pointer]
        # A kernel with stride parameters addresses its tensors through them; any other one
        # treats each pointer as a dense, row-major buffer, so its tensors must be contiguous.
        self.dense = not any("stride" in n.lower() for n in self.params)
        self._scalars = [p for p in self._params if not p.pointer]
        self.interpreted = type(fn).__name__ == "InterpretedFunction"
        # on Triton's interpreter every access of a launch is checked against its tensors
        # (runtime/bounds.py); such launches take the general path, not the generated binder
        self.checks_accesses = self.interpreted
        self.tuning: dict[str, Any] | None = None  # configs, key, and triton.autotune's options
        self._tuned_consts: tuple[str, ...] = ()
        self._tuned_options: frozenset[str] = frozenset()
        self._autotuner: Any = None
        if tuning is not None:
            self._set_tuning(dict(tuning))
        self.op = op  # the translated `impl RuntimeOp for <name>`, if its file has one
        self._configured = _op_class(self, op)
        # `help(ReluForward)` shows the kernel's Rust doc comments and its op's: the launcher's
        # class is its own, with that docstring.
        if type(self) is Launcher:
            self.__class__ = type(name, (Launcher,), {"__doc__": _doc(self), "__module__": self._configured.__module__})
        # teenygrad's kernel struct has a field per const generic, lowercased (`block_size`)
        self.fields = {k.lower(): k for k in self.consts}

    def __repr__(self) -> str:
        params = ", ".join(p.rust for p in self._params)
        consts = ", ".join(f"{k}: {v}" for k, v in self.consts.items())
        return f"<Launcher {self.name}[{consts}]({params})>"

    # ── construction ──────────────────────────────────────────────────────
    def __call__(self, **values: Any) -> Configured:
        """Fix the const generics (keyword-only, by Rust name) and launch options."""
        consts, options, type_args = {}, {}, {}
        for key, value in values.items():
            if key in self.consts:
                consts[key] = check_scalar(self.consts[key], value,
                                           f"{self.name}: const generic `{key}: {self.consts[key]}`")
            elif key in LAUNCH_OPTIONS:
                options[key] = check_option(key, value, f"{self.name}()")
            elif key in self.dtypes:
                type_args[key] = value
            else:
                raise TypeError(f"{self.name}(): unexpected keyword `{key}`"
                                f"{self._suggest(key, list(self.consts) + list(LAUNCH_OPTIONS))}; "
                                f"it takes the const generics {self._const_list()} and launch options "
                                f"such as num_warps, num_stages")
        required = [k for k in self.consts if k not in self._tuned_consts]
        missing = [k for k in required if k not in consts]
        tuned_given = [k for k in self._tuned_consts if k in consts]
        if tuned_given and len(tuned_given) != len(self._tuned_consts):
            missing += [k for k in self._tuned_consts if k not in consts]
        if missing:
            hint = ("; the tuned ones may be left out together to let the autotuner choose"
                    if self._tuned_consts and all(k in self._tuned_consts for k in missing) else "")
            raise TypeError(f"{self.name}(): missing const generic"
                            f"{'s' if len(missing) > 1 else ''} "
                            + ", ".join(f"`{k}: {self.consts[k]}`" for k in missing) + hint)
        autotuned = bool(self._tuned_consts) and not tuned_given
        if autotuned:
            clash = sorted(set(options) & self._tuned_options)
            if clash:
                raise TypeError(f"{self.name}(): {', '.join(clash)} {'is' if len(clash) == 1 else 'are'} "
                                "chosen by the autotuner; give every tuned const generic to launch one "
                                "fixed configuration instead")
        configured = self._configured(self, consts, options, autotuned)
        if type_args:
            configured = configured.with_dtypes(**type_args)
        return configured

    def new(self, *values: Any) -> Configured:
        """Rust's ``Kernel::<D>::new(c1, c2, ...)``: the const generics by position."""
        if len(values) != len(self.consts):
            raise TypeError(f"{self.name}::new takes {len(self.consts)} const generic"
                            f"{'s' if len(self.consts) != 1 else ''} ({self._const_list()}), got {len(values)}")
        return self(**dict(zip(self.consts, values, strict=True)))

    def _const_list(self) -> str:
        return ", ".join(f"{k}: {v}" for k, v in self.consts.items()) or "(none)"

    @staticmethod
    def _suggest(name: str, choices: Iterable[str]) -> str:
        close = difflib.get_close_matches(name, list(choices), n=1)
        return f" (did you mean `{close[0]}`?)" if close else ""

    @property
    def facts(self) -> Facts:
        """The kernel facts as the ``facts=`` mapping the launcher was given (with ``uses`` merged)."""
        out: Facts = {}
        if self.uses:
            out["uses"] = sorted(self.uses)
        if self.stores:
            out["stores"] = sorted(self.stores)
        if self.bounds:
            out["bounds"] = {p: sorted(ns) for p, ns in self.bounds.items()}
        if self.roles:
            out["consts"] = {c: dict(r) for c, r in self.roles.items()}
        return out

    @property
    def backward(self) -> Launcher | None:
        """The launcher named by ``#[kernel(backward = ...)]``, from the same module."""
        if self.backward_name is None:
            return None
        python_fn = getattr(self.fn, "fn", self.fn)  # the module's globals, however it was imported
        found = getattr(python_fn, "__globals__", {}).get(self.backward_name)
        if found is None:
            module = sys.modules.get(getattr(python_fn, "__module__", ""), None)
            found = getattr(module, self.backward_name, None)
        if not isinstance(found, Launcher):
            raise AttributeError(f"{self.name}.backward: `{self.backward_name}` is not defined in the module "
                                 f"that defines {self.name} (is its kernel in another file?)")
        return found

    def paired_backward(self) -> Launcher | None:
        """``XBackward`` of the same module for a kernel ``XForward`` with no ``#[kernel(backward =
        ...)]``: teenygrad's graph pairs them so (``make_num_kernel!(XForward(..), XBackward(..), node)``)."""
        if not self.name.endswith("Forward"):
            return None
        python_fn = getattr(self.fn, "fn", self.fn)
        found = getattr(python_fn, "__globals__", {}).get(self.name.removesuffix("Forward") + "Backward")
        return found if isinstance(found, Launcher) else None

    # ── tuning ────────────────────────────────────────────────────────────
    def autotune(self, configs: Iterable[dict[str, Scalar] | Config], key: Iterable[str] = (), **autotune_options: Any) -> Launcher:
        """A launcher whose launches without (tuned) const values use Triton's autotuner.

        ``configs``: dicts of const generics and launch options
        (``{"BLOCK_SIZE": 256, "num_warps": 4}``) or ``triton.Config`` objects;
        ``key``: parameter names whose values select a cached best config.
        Other ``triton.autotune`` options (``reset_to_zero``, ``restore_value``,
        ``prune_configs_by``, ``warmup``, ``rep``, ``do_bench``...) pass through.
        """
        tuning = {"configs": list(configs), "key": list(key), **autotune_options}
        return Launcher(self.fn, self.name, params=self.params, consts=self.consts, dtypes=self.dtypes,
                        access=self.access, backward=self.backward_name, names=self.names, tuning=tuning,
                        op=self.op, debug=self.debug, facts=self.facts)

    def _set_tuning(self, tuning: dict[str, Any]) -> None:
        configs = [self._config_dict(c, i) for i, c in enumerate(tuning.get("configs") or [])]
        if not configs:
            raise ValueError(f"{self.name}.autotune: give at least one config")
        tuned = tuple(k for k in self.consts if k in configs[0])
        for i, c in enumerate(configs):
            have = tuple(k for k in self.consts if k in c)
            if have != tuned:
                raise ValueError(f"{self.name}.autotune: config {i} sets const generics {list(have)} but "
                                 f"config 0 sets {list(tuned)}; every config must set the same ones")
        if not tuned:
            raise ValueError(f"{self.name}.autotune: the configs set no const generic; "
                             f"tune one of {self._const_list()}")
        for name in tuning.get("key") or []:
            if name not in self._index:
                raise ValueError(f"{self.name}.autotune: key `{name}` is not a parameter"
                                 f"{self._suggest(name, self._index)}")
        for opt in ("reset_to_zero", "restore_value"):
            for name in tuning.get(opt) or []:
                p = self._index.get(name)
                if p is None or not p.pointer:
                    raise ValueError(f"{self.name}.autotune: {opt} names `{name}`, which is not a pointer "
                                     "parameter")
        tuning["configs"] = configs
        self.tuning = tuning
        self._tuned_consts = tuned
        self._tuned_options = frozenset(k for c in configs for k in c if k in LAUNCH_OPTIONS)

    def _config_dict(self, config: dict[str, Scalar] | Config, i: int) -> dict[str, Scalar]:
        if not isinstance(config, dict):  # a triton.Config
            kwargs = dict(getattr(config, "kwargs", None) or {})
            for f in _CONFIG_FIELDS:
                if getattr(config, f, None) is not None:
                    kwargs[f] = getattr(config, f)
            config = kwargs
        out: dict[str, Scalar] = {}
        for k, v in config.items():
            if k in self.consts:
                out[k] = check_scalar(self.consts[k], v, f"{self.name}.autotune: config {i}: `{k}: {self.consts[k]}`")
            elif k in LAUNCH_OPTIONS:
                out[k] = check_option(k, v, f"{self.name}.autotune: config {i}")
            else:
                raise ValueError(f"{self.name}.autotune: config {i} sets `{k}`, which is neither a const generic "
                                 f"({self._const_list()}) nor a launch option"
                                 f"{self._suggest(k, list(self.consts) + list(LAUNCH_OPTIONS))}")
        return out

    def autotuner(self) -> Any:  # (a triton Autotuner)
        """The ``triton.autotune`` object behind this launcher's tuned launches (built once)."""
        if self.tuning is None:
            raise ValueError(f"{self.name} has no tuning; use {self.name}.autotune(configs=..., key=...)")
        if self._autotuner is None:
            triton = _triton()
            options = {k: v for k, v in self.tuning.items() if k not in ("configs", "key")}
            if "restore_value" not in options:
                # Each config runs on the same tensors: what a kernel writes (its `inout` and `out`
                # pointers) is restored between configs, so an in-place kernel is applied once.
                written = [p.name for p in self._pointers if p.access in ("inout", "out")]
                if written:
                    options["restore_value"] = written
            if self.interpreted and "do_bench" not in options:
                options["do_bench"] = _interpreter_bench  # the interpreter has no GPU timer
            py = self.names.get
            for opt in ("reset_to_zero", "restore_value"):
                if options.get(opt):
                    options[opt] = [py(n, n) for n in options[opt]]
            key = [py(k, k) for k in self.tuning["key"]] + [py(k, k) for k in self.consts
                                                            if k not in self._tuned_consts]
            configs = []
            for c in self.tuning["configs"]:
                fields = {f: c[f] for f in _CONFIG_FIELDS if f in c}
                kwargs = {py(k, k): v for k, v in c.items() if k not in _CONFIG_FIELDS}
                configs.append(triton.Config(kwargs, **fields))
            self._autotuner = triton.autotune(configs=configs, key=key, **options)(self.fn)
        return self._autotuner

    @property
    def best_config(self) -> dict[str, Scalar] | None:
        """The config the autotuner chose last (const generics and launch options), or None."""
        best = getattr(self._autotuner, "best_config", None)
        if best is None:
            return None
        rust = {v: k for k, v in self.names.items()}
        out = {rust.get(k, k): v for k, v in best.kwargs.items()}
        for f in ("num_warps", "num_stages"):
            out[f] = getattr(best, f)
        return out

    # ── checking ──────────────────────────────────────────────────────────
    def bind(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
        """Arguments in Rust order, checked and converted; raises before any launch."""
        params = self._params
        n = len(args)
        if n > len(params):
            raise TypeError(f"{self.name}: takes {len(params)} arguments ({', '.join(p.name for p in params)}) "
                            f"but {n} were given")
        values: list[Any] | None = None
        if not n and len(kwargs) == len(params):  # all by name: no unknown names if all are found
            try:
                values = [kwargs[name] for name in self._names]
            except KeyError:
                values = None
        if values is not None:
            pass
        elif kwargs or n < len(params):
            values = list(args) + [_MISSING] * (len(params) - n)
            for key, value in kwargs.items():
                p = self._index.get(key)
                if p is None:
                    raise TypeError(self._unknown(key))
                if values[p.index] is not _MISSING:
                    raise TypeError(f"{self.name}: got argument `{key}` twice (by position and by name)")
                values[p.index] = value
            missing = [p for p in params if values[p.index] is _MISSING]
            if missing:
                raise TypeError(f"{self.name}: missing argument{'s' if len(missing) > 1 else ''} "
                                + ", ".join(f"`{p.rust}`" for p in missing))
        else:
            values = list(args)
        self._check(values)
        return values

    def _check_pointer_like(self, p: _Param, v: object, dt: object) -> None:
        """A pointer argument that is no plain ``torch.Tensor``: a tensor subclass, or what Triton
        takes for a pointer (an object with ``data_ptr()`` and a torch ``dtype``). Triton's
        interpreter copies each pointer argument's storage (``untyped_storage()``), so there it
        must be a tensor."""
        torch = _torch()
        if isinstance(v, torch.Tensor):
            return
        if not callable(getattr(v, "data_ptr", None)) or not isinstance(dt, torch.dtype):
            raise TypeError(f"{self.name}: argument `{p.rust}` must be a torch.Tensor (or an object with data_ptr() "
                            f"and a torch dtype), got {_type_name(v)}")
        if self.interpreted:
            raise TypeError(f"{self.name}: argument `{p.rust}` is a {_type_name(v)} (an object with data_ptr() and "
                            "dtype), which Triton's CPU interpreter cannot launch on: it copies each pointer "
                            "argument's storage (untyped_storage()); pass a torch.Tensor, or launch on a GPU")

    def _unknown(self, key: str) -> str:
        if key in self.consts:
            return (f"{self.name}: `{key}` is a const generic; give it when building the launcher: "
                    f"{self.name}({key}=...)")
        if key in LAUNCH_OPTIONS:
            return f"{self.name}: launch option `{key}` must be given to {self.name}(...) or the launch, not twice"
        return (f"{self.name}: no parameter `{key}`{self._suggest(key, self._index)}; "
                f"its parameters are {', '.join(p.name for p in self._params)}")

    def _check(self, values: list[Any]) -> None:
        name = self.name
        device: Any = None  # the first tensor's device, and its parameter
        first: Any = None
        bound: dict[str, tuple[torch.dtype, _Param]] = {}
        interpreted = self.interpreted  # (where a dtype the interpreter computes wrongly is refused)
        for p in self._pointers:
            v = values[p.index]
            if v is None:
                continue  # a null pointer (Rust's `null_mut()`), which the kernel must not read
            dt = getattr(v, "dtype", None)
            if type(v) is not _values._TENSOR or dt is None:
                self._check_pointer_like(p, v, dt)
            if self.dense and hasattr(v, "is_contiguous") and not v.is_contiguous():
                raise ValueError(f"{name}: argument `{p.name}` is not contiguous (shape {list(v.shape)}, strides "
                                 f"{list(v.stride())}), but {name} reads it as a dense row-major buffer; pass "
                                 f"`{p.name}.contiguous()`")
            at = getattr(v, "device", None)  # (an object with only data_ptr() and dtype has none: Triton's own)
            if device is None:
                device, first = at, p
            elif at is not None and at != device:
                raise ValueError(f"{name}: argument `{p.name}` is on {at} but `{first.name}` is on "
                                 f"{device}; every tensor must be on one device")
            rust = rust_dtype_of(dt)
            if interpreted and rust in ("bf16", "f64"):
                problem = _values.interpreter_dtype_problem(self, dt)
                if problem is not None:
                    raise TypeError(f"{name}: argument `{p.rust}` has dtype {dt}: {problem}")
            if p.dtype_param:
                seen = bound.get(p.elem)
                if seen is None:
                    allowed = self.dtypes[p.elem]
                    if rust not in allowed:
                        raise TypeError(f"{name}: argument `{p.rust}` has dtype {dt}, but `{p.elem}` accepts "
                                        f"{', '.join(allowed)}")
                    bound[p.elem] = (dt, p)
                elif seen[0] != dt:
                    raise TypeError(f"{name}: argument `{p.name}` has dtype {dt} but `{seen[1].name}` has "
                                    f"{seen[0]}; both are `T::Pointer<{p.elem}>`, so they must share one dtype")
            elif rust != p.elem:
                want = getattr(_torch(), TORCH_DTYPES.get(p.elem, ""), p.elem)
                raise TypeError(f"{name}: argument `{p.rust}` must have dtype {want}, got {dt}")
        if device is not None and device.type == "meta":
            raise ValueError(f"{name}: argument `{first.name}` is a meta tensor (a shape with no data), so there "
                             f"is nothing to launch {name} on; pass tensors that hold data")
        if device is not None and not self.interpreted and device.type == "cpu":
            raise ValueError(f"{name}: argument `{first.name}` is a CPU tensor, but {name} runs on the GPU; "
                             "move the tensors to the GPU (or use Triton's interpreter, TRITON_INTERPRET=1)")
        for p in self._scalars:
            elem = p.elem
            if p.dtype_param:
                seen = bound.get(elem)
                fixed = rust_dtype_of(seen[0]) if seen else None
                if fixed is None:  # no pointer fixes D: the value's own kind decides
                    continue
                elem = fixed
            v = values[p.index]
            if type(v) is int and elem == "i32" and -2147483648 <= v <= 2147483647:
                continue  # the common case, checked inline
            values[p.index] = check_scalar(elem, v, f"{name}: argument `{p.rust}`")


if TYPE_CHECKING:  # every configured kernel's class derives from the op's RuntimeOp too (_op_class)
    _OpBase = RuntimeOp
else:
    _OpBase = object


class Configured(_OpBase):
    """A launcher with its const generics fixed: index it with a grid, then call it.

    It is also teenygrad's kernel struct: its const generics are its lowercased fields
    (``ReluForward(BLOCK_SIZE=1024).block_size == 1024``), ``name`` is the kernel fn's name,
    and it has the methods of the ``RuntimeOp`` its file implements for it
    (:mod:`rs2triton.runtime.ops`: ``grid``, ``pack_args``, ``apply``...).
    """

    # What an instance holds of its own (the transpiler keeps a kernel struct's fields apart from them)
    ATTRIBUTES = ("launcher", "consts", "options", "autotuned", "wrap", "type_args")

    def __init__(self, launcher: Launcher, consts: dict[str, Scalar], options: Mapping[str, Scalar], autotuned: bool, wrap: bool = False) -> None:
        self.launcher = launcher
        self.consts = consts
        self.options = options
        self.autotuned = autotuned
        self.wrap = wrap
        self.type_args: dict[str, torch.dtype] = {}
        names = launcher.names
        self._const_kw = {names.get(k, k): v for k, v in consts.items()} if names else consts
        # a debug build's kernel: compiled with its assertions (Triton's overflow checks are not Rust's)
        self._debug_kw = {"debug": True, "sanitize_overflow": False} if launcher.debug and not launcher.interpreted else {}
        self._kw = {**self._const_kw, **options, **self._debug_kw}
        # A grid of ints takes the fast path (runtime/binder.py) unless the launch goes through
        # the autotuner or torch.library.wrap_triton.
        self._general = autotuned or wrap
        self._checked: Callable[[tuple[int, ...]], Launch] | None = None  # grid -> the fast path's check-and-launch (runtime/binder.py)
        self._grids: dict[tuple[int, ...], Launch] = {}  # grid -> its launch function, for grids seen before

    def _checked_launch(self) -> Callable[[tuple[int, ...]], Launch]:
        """What makes the generated check-and-launch function of a grid (runtime/binder.py), made
        at the first launch."""
        from rs2triton.runtime.binder import make_binder

        # (on the interpreter every launch takes the general path, which checks its accesses:
        # a launch there costs far more than binding its arguments)
        made = None if self.launcher.checks_accesses else make_binder(
            self.launcher, self.launcher.fn, self._kw, self._slow, partial(_at_rust_line, fn=self.launcher.fn))
        checked = made if made is not None else (lambda grid: partial(self._launch, grid))
        self._checked = checked
        return checked

    def _slow(self, grid: tuple[int, ...], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        return self._launch(grid, *args, **kwargs)

    def __getattr__(self, attr: str) -> Any:  # (a field: a const generic's value, or the kernel fn's name)
        # Only called for names that are not attributes: the kernel struct's fields.
        launcher = self.__dict__.get("launcher")
        if launcher is not None:
            const = launcher.fields.get(attr)
            if const is not None and const in self.consts:
                return self.consts[const]
            if attr == "name":
                return getattr(getattr(launcher.fn, "fn", launcher.fn), "__name__", launcher.name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {attr!r}")

    def forward_kernel(self) -> Configured:
        """The kernel this op launches: itself."""
        return self

    def backward_kernel(self) -> Configured | None:
        """The kernel of ``#[kernel(backward = ...)]``, built as teenygrad's dispatcher builds it: with
        this kernel's const generics, in order."""
        backward = self.launcher.backward or self.launcher.paired_backward()
        if backward is None or len(backward.consts) != len(self.consts):
            return None
        return backward.new(*self.consts.values()).with_dtypes(**self.type_args)

    def __repr__(self) -> str:
        fixed = ", ".join(f"{k}={v!r}" for k, v in {**self.consts, **self.options}.items())
        return f"<{self.launcher.name}({fixed}){' autotuned' if self.autotuned else ''}>"

    def __getitem__(self, grid: int | Sequence[int] | GridFn) -> Launch:
        # The common case, tested inline: 1 to 3 ints (types first: a grid of floats or bools is
        # equal to one of ints, and is no such grid), and launched before.
        if type(grid) is tuple and 0 < (n := len(grid)) <= 3 and type(grid[0]) is int and (
                n == 1 or type(grid[1]) is int and (n == 2 or type(grid[2]) is int)):
            try:
                return self._grids[grid]
            except KeyError:
                pass
            check_grid(grid, self.launcher.name)
            if len(self._grids) >= 64:
                self._grids.clear()
            if self._general:
                known: Launch = partial(self._launch, grid)
            else:
                known = (self._checked or self._checked_launch())(grid)
            self._grids[grid] = known
            return known
        if callable(grid):
            return partial(self._launch, _CheckedGrid(grid, self.launcher.name))
        given: object = (grid,) if isinstance(grid, numbers.Integral) else grid
        if not isinstance(given, tuple | list) or not 1 <= len(given) <= 3 or not all(
                isinstance(g, numbers.Integral) and not isinstance(g, bool) for g in given):
            raise TypeError(f"{self.launcher.name}: the grid must be 1 to 3 ints or a callable of the "
                            f"launch's named arguments, got {given!r}")
        return partial(self._launch, check_grid(tuple(int(g) for g in given), self.launcher.name))

    def bind(self, *args: Any, **kwargs: Any) -> tuple[list[Any], dict[str, Any]]:
        """What a launch would pass to the ``@triton.jit`` function: (arguments, keywords); nothing runs."""
        launch_options = {k: kwargs.pop(k) for k in [k for k in kwargs if k in LAUNCH_OPTIONS
                                                      and k not in self.launcher._index]}
        values = self.launcher.bind(args, kwargs)
        return values, {**self._const_kw, **self.options, **launch_options}

    def _launch(self, grid: tuple[int, ...] | CheckedGridFn, *args: Any, **kwargs: Any) -> Any:
        launcher = self.launcher
        options = self.options
        if kwargs and not _LAUNCH_OPTION_SET.isdisjoint(kwargs):
            extra = [k for k in kwargs if k in _LAUNCH_OPTION_SET and k not in launcher._index]
            if extra:
                options = {**options, **{k: check_option(k, kwargs.pop(k), launcher.name) for k in extra}}
                if self.autotuned and set(extra) & launcher._tuned_options:
                    raise TypeError(f"{launcher.name}: {', '.join(sorted(set(extra) & launcher._tuned_options))} "
                                    "is chosen by the autotuner")
        values = launcher.bind(args, kwargs)
        if callable(grid) and (launcher.interpreted or launcher.names):
            # The user's grid sees the arguments as given (not the interpreter's wrapped scalars),
            # by Rust name.
            grid = _GridOfArguments(grid, launcher, values)
        fn = launcher.autotuner() if self.autotuned else launcher.fn
        if self.wrap:
            from torch.library import wrap_triton

            fn = wrap_triton(fn)
        try:
            if launcher.checks_accesses:  # no access outside the tensors given (runtime/bounds.py)
                from rs2triton.runtime import bounds
                from rs2triton.runtime.panics import interpreter_debug

                with bounds.checked_launch(launcher.name, launcher.fn,
                                           [(p.name, values[p.index]) for p in launcher._pointers]), \
                        interpreter_debug(launcher.debug and launcher.interpreted):
                    return fn[grid](*values, **self._const_kw, **options)
            return fn[grid](*values, **self._const_kw, **options, **self._debug_kw)
        except Exception as e:
            from rs2triton.runtime.panics import kernel_panic

            panic = kernel_panic(e, launcher.name) if launcher.debug else None
            if panic is not None:
                raise panic from None
            mapped = _at_rust_line(e, launcher.fn)
            if mapped is None:
                raise
            raise mapped from e

    def for_torch_op(self) -> Configured:
        """The same launches made through ``torch.library.wrap_triton``, as ``torch.library.triton_op``
        bodies must be so that ``torch.compile`` can trace them."""
        wrapped = type(self)(self.launcher, self.consts, self.options, self.autotuned, wrap=True)
        wrapped.type_args = dict(self.type_args)
        return wrapped


def _at_rust_line(exc: BaseException, fn: Any) -> TranspileError | None:
    """Triton's error at the Rust line (:func:`rs2triton.runtime.errors.at_rust_line`), loaded when one
    comes; None for the interpreter's bounds and an interrupt."""
    from rs2triton.runtime import bounds

    if isinstance(exc, (bounds.OutOfBounds, bounds.NeverReturns, KeyboardInterrupt)):
        return None
    from rs2triton.runtime.errors import at_rust_line

    return at_rust_line(exc, fn)


def _op_class(launcher: Launcher, op: type[RuntimeOp] | None) -> type[Configured]:
    """The class of ``launcher``'s configured kernels: :class:`Configured` and the ``RuntimeOp``
    translated for its kernel struct (the trait's defaults where its file has no impl)."""
    base = op if op is not None else RuntimeOp
    module = getattr(getattr(launcher.fn, "fn", launcher.fn), "__module__", None) or base.__module__
    return type(launcher.name, (Configured, base), {"RUST_NAME": launcher.name, "__module__": module,
                                                     "__doc__": _doc(launcher, op), "TYPE_PARAMS": tuple(launcher.dtypes)})


def _doc(launcher: Launcher, op: type[RuntimeOp] | None = None) -> str:
    """A kernel's documentation: its Rust doc comments (the jit function's docstring), its
    signature, and the doc comments of its ``impl RuntimeOp``, where the file has one."""
    import inspect

    op = op if op is not None else launcher.op
    kernel_doc = inspect.getdoc(getattr(launcher.fn, "fn", launcher.fn)) or ""
    parts = [f"{launcher.name}: the launcher of kernel `{getattr(getattr(launcher.fn, 'fn', launcher.fn), '__name__', '?')}`"
             f" — {launcher!r}", kernel_doc]
    if op is not None and op.__doc__:
        parts.append(inspect.cleandoc(op.__doc__))
    return "\n\n".join(p for p in parts if p)


class _CheckedGrid:
    """A grid callable whose result is checked as a grid of ints is (Triton calls it at the launch)."""

    __slots__ = ("grid", "name")

    def __init__(self, grid: GridFn, name: str) -> None:
        self.grid, self.name = grid, name

    def __call__(self, meta: dict[str, Any]) -> tuple[int, ...]:
        got: object = self.grid(meta)
        got = (got,) if isinstance(got, numbers.Integral) else got
        if not isinstance(got, tuple | list) or not 1 <= len(got) <= 3 or not all(
                isinstance(g, numbers.Integral) and not isinstance(g, bool) for g in got):
            raise TypeError(f"{self.name}: the grid function must give 1 to 3 ints, gave {got!r}")
        return check_grid(tuple(int(g) for g in got), self.name)


class _GridOfArguments:
    __slots__ = ("grid", "launcher", "values")

    def __init__(self, grid: CheckedGridFn, launcher: Launcher, values: list[Any]) -> None:
        self.grid, self.launcher, self.values = grid, launcher, values

    def __call__(self, meta: dict[str, Any]) -> tuple[int, ...]:
        names = self.launcher.names
        consts = {k: meta[py] for k, py in names.items() if k in self.launcher.consts and py in meta}
        return self.grid({**meta, **consts, **dict(zip(self.launcher._names, self.values, strict=True))})


class _Missing:
    def __repr__(self) -> str:
        return "<missing>"


_MISSING = _Missing()


def _interpreter_bench(kernel_call: Callable[[], object], quantiles: list[float] | None = None, **_: Any) -> float | list[float]:
    """Wall-clock time of one run: the interpreter has no GPU timer (its timings mean nothing)."""
    start = time.perf_counter()
    kernel_call()
    ms = (time.perf_counter() - start) * 1000
    return [ms] * len(quantiles) if quantiles else ms


def sweep(**values: Iterable[Scalar]) -> list[dict[str, Scalar]]:
    """Every combination of the given values: ``sweep(BLOCK_SIZE=[64, 128], num_warps=[2, 4])``."""
    names = list(values)
    return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*(values[n] for n in names))]
