"""One call of a mapped torch operation, planned: which teenygrad op runs it, built with which
const generics, on which views of the call's tensors — or why it runs on torch instead.

A plan depends only on what a call's shapes, dtypes, devices and non-tensor arguments are, so
the backend keeps one per such key (dynamic shapes: each new shape is planned once). Its
:meth:`Plan.forward` and :meth:`Plan.backward` run the op's own kernels through its translated
host logic (``runtime/apply.py``: ``pack_args``/``grid`` and the output padded as teenygrad's
executor pads it; ``pack_backward_args``/``backward_grid`` with zeroed gradient buffers), with
the layout's views and pads undone on the way out.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from rs2triton.runtime.mapping_rules import Count, Cover, Dim, Entry, Exact, Present, Rule, Value, const_rules
from rs2triton.runtime.values import _torch

if TYPE_CHECKING:
    from rs2triton.backend.tree import Maker

# torch is Any to mypy (``follow_imports = skip``): these say what such a value is.
Tensor: TypeAlias = Any  # a torch.Tensor
DType: TypeAlias = Any  # a torch.dtype
# A configured op: a kernel struct (``runtime.launcher.Configured``) or a wrapper struct's
# RuntimeOp, whose methods are the ones its file's ``impl RuntimeOp`` generated.
Op: TypeAlias = Any
Args: TypeAlias = dict[str, Any]  # a call's arguments by name (bound to a schema): tensors, numbers, lists...
# What Plan.forward keeps for Plan.backward: the prepared inputs, the parameters (then the bias), the kernel's output
Saved: TypeAlias = tuple[tuple[Tensor, ...], tuple[Tensor, ...], Tensor]

_DESCRIPTOR_ALIGN = 16  # bytes: a tensor descriptor's row strides (Triton's and TMA's rule)


def plan_key(value: Any) -> object:
    """What a plan depends on of a call's argument: a tensor's shape, dtype, device and whether
    it requires grad; the argument itself otherwise (an unhashable one: no plan is kept)."""
    torch = _torch()
    if isinstance(value, torch.Tensor):
        return ("T", tuple(value.shape), value.dtype, value.device, value.requires_grad)
    if isinstance(value, (list, tuple)):
        return tuple(plan_key(v) for v in value)
    return value


class Fallback(Exception):
    """The call runs on torch; the message says why."""


class StrictFallback(RuntimeError):
    """A node ran on torch under ``strict=True``."""


def _strict(node: str, operation: str, reason: str) -> StrictFallback:
    return StrictFallback(f"teenygrad backend (strict): node `{node}` ({operation}) would run on torch: {reason}")


def _reference(path: str) -> Any:
    """The torch callable a dotted path names: a module's attribute (``torch.nn.functional.gelu``)
    or an attribute of one (``torch.ops.aten.tanh_backward``: ``torch.ops`` is no module)."""
    import importlib

    parts = path.split(".")
    for i in range(len(parts) - 1, 0, -1):
        try:
            value: Any = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for name in parts[i:]:
            value = getattr(value, name)
        return value
    raise ImportError(f"no module in {path!r}")


def _meta(value: Any) -> Any:
    torch = _torch()
    if isinstance(value, torch.Tensor):
        return torch.empty(value.shape, dtype=value.dtype, device="meta")
    if isinstance(value, (list, tuple)):
        return type(value)(_meta(v) for v in value)
    return value


def lookup(args: Args, name: str) -> Any:
    """A call's argument by name; ``"tensors.1"`` is item 1 of the list argument ``tensors``."""
    if name in args:
        return args[name]
    base, _, index = name.rpartition(".")
    return args[base][int(index)]


def _listed(entry: Entry, args: Args) -> tuple[Args, tuple[str, ...]]:
    """The call's arguments with each list of tensors among the inputs (``cat``'s ``tensors``)
    spread out as ``"tensors.0"``, ``"tensors.1"``..., leaving out empty tensors (they add
    nothing to a concatenation); and the inputs' names so spread."""
    torch = _torch()
    names: list[str] = []
    spread = dict(args)
    for n in entry.inputs:
        value = args.get(n)
        if isinstance(value, (list, tuple)) and all(isinstance(t, torch.Tensor) for t in value):
            kept = [i for i, t in enumerate(value) if t.numel()]
            if not kept:
                raise Fallback(f"`{n}` holds no element")
            for i in kept:
                spread[f"{n}.{i}"] = value[i]
                names.append(f"{n}.{i}")
        else:
            names.append(n)
    return spread, tuple(names)


def _uses_descriptors(op: Op) -> bool:
    """Whether the op's kernels build tensor descriptors (``T::make_tensor_descriptor``: the fact
    ``"descriptor"`` their launchers record): their bases' row strides must then be 16-byte multiples."""
    return any("descriptor" in getattr(getattr(kernel, "launcher", None), "uses", ())
               for kernel in (op.forward_kernel(), op.backward_kernel() if op.has_backward() else None))


@dataclass
class Arg:
    """How one tensor argument reaches the op: broadcast to ``expand`` (flat layout), viewed as
    ``view``, then zero-padded by ``pad`` elements in its last dimension."""

    name: str
    shape: tuple[int, ...]
    expand: tuple[int, ...] | None = None
    view: tuple[int, ...] | None = None
    pad: int = 0
    fill: float | None = None  # a parameter the call leaves out, or a number operand: a tensor of it, made here

    def prepare(self, t: Tensor) -> Tensor:
        torch = _torch()
        if self.expand is not None:
            t = t.expand(self.expand)
        t = t.contiguous()
        if self.view is not None:
            t = t.reshape(self.view)
        if self.pad:
            t = torch.nn.functional.pad(t, (0, self.pad))
        return t.contiguous()

    def undo(self, g: Tensor | None) -> Tensor | None:
        """A gradient of the prepared tensor, as the gradient of the call's argument."""
        if g is None:
            return None
        if self.pad:
            g = g[..., :g.shape[-1] - self.pad]
        if self.expand is not None:
            g = g.reshape(self.expand).sum_to_size(self.shape)
        return g.reshape(self.shape)


@dataclass
class Plan:
    entry: Entry
    struct: str
    op: Any
    inputs: list[Arg]
    params: list[Arg | None]
    op_shape: list[int]
    out_shape: tuple[int, ...]
    notes: tuple[str, ...] = ()
    bias: Arg | None = None  # the entry's bias, given: added on torch after the kernel
    keep_nan: bool = False  # the kernel drops NaN (a maximum, as Rust's f32::max): put back where an input has one
    # (found by backend/aten.py at the plan's first backward node: why its backward cannot run on
    # the stand-ins the node makes, None where it can, False until looked at; whether the forward
    # runs again in the backward, None until looked at)
    _stand_in_problem: str | Literal[False] | None = field(default=False, init=False, repr=False, compare=False)
    _forward_again: bool | None = field(default=None, init=False, repr=False, compare=False)

    def tensors(self, args: Args) -> list[Tensor]:
        """The call's tensors the op takes, inputs then the parameters that are given (then the
        bias added on torch, if given)."""
        return [lookup(args, a.name) for a in [*self.inputs, *self.params] if a is not None and a.fill is None] \
            + ([args[self.bias.name]] if self.bias is not None else [])

    def prepare(self, tensors: list[Tensor]) -> tuple[tuple[Tensor, ...], tuple[Tensor, ...], Tensor | None]:
        """The op's inputs and parameters as its kernels take them (views, pads, the tensors made
        for what the call leaves out), and the bias added on torch (or None)."""
        like, rest = tensors[0], iter(tensors)

        def prepared(a: Arg) -> Tensor:
            return a.prepare(next(rest) if a.fill is None else like.new_full(a.shape, a.fill))

        inputs = tuple(prepared(a) for a in self.inputs)
        kernel_params = tuple(prepared(p) for p in self.params if p is not None)
        return inputs, kernel_params, prepared(self.bias) if self.bias is not None else None

    def forward(self, tensors: list[Tensor]) -> tuple[Tensor, Saved]:
        """The output (in torch's shape), and what :meth:`backward` needs: the prepared inputs, the
        op's parameters (those the call left out made here) then the bias, if any, and the
        kernel's output."""
        from rs2triton.runtime import apply

        inputs, kernel_params, bias = self.prepare(tensors)
        out = apply.forward(self.op, inputs, kernel_params, None, list(self.op_shape))
        if self.keep_nan:
            out = out.masked_fill(nan_mask(inputs), float("nan"))
        result = out if bias is None else out + bias.reshape(1, -1, *[1] * (out.dim() - 2))
        return result.reshape(self.out_shape), (inputs, kernel_params + (() if bias is None else (bias,)), out)

    def backward(self, saved: Saved, grad_output: Tensor, needs: list[bool]) -> list[Tensor | None]:
        """The gradients of :meth:`tensors`' tensors (``needs``: which are wanted)."""
        from rs2triton.runtime import apply

        inputs, params, out = saved
        dy = grad_output.reshape(self.op_shape).contiguous()
        taken = [*self.inputs, *(p for p in self.params if p is not None)]
        wanted = iter(needs)
        op_needs = [a.fill is None and next(wanted) for a in taken]
        bias_grad: list[Tensor | None] = []
        if self.bias is not None:
            params = params[:-1]
            bias_grad = [self.bias.undo(dy.sum(dim=[d for d in range(dy.dim()) if d != 1])) if next(wanted) else None]
        grads = apply.backward(self.op, inputs, params, out, list(self.op_shape), dy, op_needs)
        return [a.undo(g) for a, g in zip(taken, grads, strict=True) if a.fill is None] + bias_grad


def _cols_dim(entry: Entry, args: Args, x: Tensor) -> None:
    """The rows layout works along the last dimension: ``dim`` (or ``normalized_shape``) must say so."""
    nd = x.dim()
    if "normalized_shape" in args:
        shape = list(args["normalized_shape"])
        if len(shape) != 1 or nd == 0 or shape[0] != x.shape[-1]:
            raise Fallback(f"it normalizes over the last dimension only; normalized_shape is {shape}")
        return
    dim = args.get("dim")
    if dim is None or nd == 0 or dim not in (-1, nd - 1):
        raise Fallback(f"it works along the last dimension; the call has dim={dim} on a {nd}-d tensor")


def _dims(entry: Entry, args: Args, x: Tensor) -> None:
    """A reduction's ``dim`` names what the op reduces (:class:`Entry`'s ``dims``)."""
    if not entry.dims:
        return
    nd = x.dim()
    dim = args.get("dim")
    named = None if dim is None or (isinstance(dim, (list, tuple)) and not dim and entry.dims == "last") \
        else sorted({d % nd if nd else d for d in ([dim] if isinstance(dim, int) else dim)})
    if entry.dims == "last" and named not in (None, [nd - 1]):
        raise Fallback(f"it reduces the last dimension (or all); the call has dim={dim} on a {nd}-d tensor")
    if entry.dims == "leading" and (named is None or nd < 2 or named != list(range(len(named)))
                                    or len(named) >= nd):
        raise Fallback(f"it reduces leading dimensions (not all); the call has dim={dim} on a {nd}-d tensor")


def make_plan(entry: Entry, ops: Mapping[str, Maker], args: Args, grad: bool) -> Plan:
    """The plan for one call (``args``: the call bound to the entry's schema; ``grad``: whether
    a gradient will be needed), or :class:`Fallback`."""
    structs = [s for s in entry.op if s in ops]
    if not structs:
        raise Fallback(f"the kernel tree has no {' or '.join(entry.op)}")
    first: Fallback | None = None
    for struct in structs:  # (in order of preference: the first that takes the call)
        try:
            return _make_plan(entry, struct, ops[struct], args, grad)
        except Fallback as f:
            first = first or f
        # (a name several trees define: the later definitions in turn, looked for only now)
        for maker, path in (ops.alternatives(struct)[1:] if hasattr(ops, "alternatives") else ()):
            try:
                plan = _make_plan(entry, struct, maker, args, grad)
            except Fallback:
                continue
            plan.notes += (f"{struct} of {path.parent.name}/{path.name} (the first {struct} does not take the call)",)
            return plan
    assert first is not None
    raise first


def _make_plan(entry: Entry, struct: str, maker: Maker, args: Args, grad: bool) -> Plan:
    torch = _torch()
    from rs2triton.runtime import apply

    for key, want in entry.require.items():
        if not _same(args.get(key), want):
            raise Fallback(f"{struct} implements {key}={want!r} only; the call has {key}={args.get(key)!r}")
    call = args
    args, input_names = _listed(entry, args)
    scalars = _scalar_operands(entry, args)
    inputs = [args[n] for n in input_names if n not in scalars]
    for n in input_names:
        if n not in scalars and not isinstance(args[n], torch.Tensor):
            raise Fallback(f"`{n}` is a {type(args[n]).__name__}, and {struct} takes tensors")
    given = [args.get(n) for n in entry.params]
    bias = args.get(entry.bias) if entry.bias else None
    if bias is not None and not isinstance(bias, torch.Tensor):
        raise Fallback(f"`{entry.bias}` is a {type(bias).__name__}, and {struct} takes tensors")
    for n in entry.indices:
        if args[n].dtype.is_floating_point or args[n].dtype.is_complex or args[n].dtype == torch.bool:
            raise Fallback(f"`{n}` holds indices, and is {args[n].dtype}")
    tensors = [t for n, t in zip([n for n in input_names if n not in scalars], inputs, strict=True)
               if n not in entry.indices]
    tensors += [p for p in given if p is not None] + ([bias] if bias is not None else [])
    if len({t.dtype for t in tensors}) > 1:
        raise Fallback(f"the tensors' dtypes differ ({', '.join(sorted({str(t.dtype) for t in tensors}))})")
    if len({t.device for t in tensors}) > 1:
        raise Fallback("the tensors are on different devices")
    dtype = inputs[0].dtype
    try:
        ref = _reference(entry.reference)(**{k: _meta(v) for k, v in call.items()})
    except (TypeError, ValueError, RuntimeError, IndexError) as e:  # (torch's own error, raised again on torch)
        raise Fallback(f"torch rejects the call: {e}") from e
    out_shape = tuple(int(s) for s in ref.shape)
    if ref.dtype != dtype:
        raise Fallback(f"torch's result is {ref.dtype}, and {struct} returns its inputs' dtype {dtype}")

    notes: list[str] = []
    x = inputs[0]
    if entry.layout == "flat":
        shapes = {n: () if n in scalars else tuple(args[n].shape) for n in entry.inputs}
        arg_list = [Arg(n, shapes[n], expand=out_shape if shapes[n] != out_shape else None, fill=scalars.get(n))
                    for n in entry.inputs]
        if any(a.expand is not None and a.fill is None for a in arg_list):
            notes.append("inputs broadcast on torch")
        notes += [f"`{n}` = {v!r} made a tensor on torch" for n, v in scalars.items()]
        op_shape = list(out_shape)
        cols = out_shape[-1] if out_shape else 1
    elif entry.layout == "rows":
        _cols_dim(entry, args, x)
        cols = int(x.shape[-1])
        rows = x.numel() // cols if cols else 0
        op_shape = [rows, cols]
        arg_list = [Arg(n, tuple(t.shape), view=(rows, cols)) for n, t in zip(input_names, inputs, strict=True)]
    elif entry.layout == "matrix":
        if x.dim() == 0:
            raise Fallback("its input is a 0-d tensor")
        k = int(x.shape[-1])
        cols = out_shape[-1] if out_shape else 1
        rows = x.numel() // k if k else 0
        op_shape = [rows, cols]
        arg_list = [Arg(n, tuple(t.shape), view=(rows, k)) for n, t in zip(input_names, inputs, strict=True)]
    elif entry.layout == "given":
        _dims(entry, args, x)
        op_shape = list(out_shape)
        arg_list = [Arg(n, tuple(t.shape)) for n, t in zip(input_names, inputs, strict=True)]
        if entry.dims == "leading":  # (as [rows, cols]: the rows are the dimensions reduced)
            lead = len([args["dim"]] if isinstance(args["dim"], int) else args["dim"])
            cols = math.prod(x.shape[lead:])
            op_shape = [cols]
            arg_list[0].view = (x.numel() // cols if cols else 0, cols)
        cols = op_shape[-1] if op_shape else 1
    elif entry.layout == "image":
        if x.dim() not in (3, 4):
            raise Fallback(f"it takes [B, C, H, W] images (or one [C, H, W]); the input is {x.dim()}-d")
        batched = x.dim() == 4
        op_shape = list(out_shape) if batched else [1, *out_shape]
        arg_list = [Arg(n, tuple(t.shape), view=None if batched else (1, *t.shape))
                    for n, t in zip(input_names, inputs, strict=True)]
    else:  # pragma: no cover (the table's layouts)
        raise AssertionError(entry.layout)
    param_list = [None if t is None else Arg(n, tuple(t.shape)) for n, t in zip(entry.params, given, strict=True)]
    numel = math.prod(op_shape)
    sizes = {"numel": numel, "cols": op_shape[-1] if op_shape else 1,
             "rows": numel // op_shape[-1] if op_shape and op_shape[-1] else 0,
             "k": int(x.shape[-1]) if x.dim() else 1,
             "plane": math.prod(op_shape[-2:]) if len(op_shape) >= 2 else numel}
    if entry.layout == "given":  # (a reduction's or a product's rows are its input's)
        k = (arg_list[0].view or x.shape or (1,))[-1]
        sizes["k"], sizes["rows"] = int(k), x.numel() // int(k) if k else 0
    if numel == 0 or x.numel() == 0:
        raise Fallback("the output is empty")

    op = _build(entry, struct, maker, args, sizes)
    problem = _dtype_problem(op, struct, dtype, grad)
    if problem:
        raise Fallback(problem)
    op = apply.bind_dtype(op, tuple(inputs))
    if grad and not op.has_backward():
        raise Fallback(f"{struct} has no backward in teenygrad (has_backward() is false), and a gradient is needed")
    if entry.zero_pad and _uses_descriptors(op):
        align = _DESCRIPTOR_ALIGN // dtype.itemsize
        for a in arg_list + [p for p in param_list if p is not None]:
            width = (a.view or a.shape)[-1] if (a.view or a.shape) else 1
            if a.name in entry.zero_pad and width % align:
                a.pad = next_multiple(width, align) - width
        if any(a.pad for a in arg_list + [p for p in param_list if p is not None]):
            notes.append(f"rows zero-padded to {_DESCRIPTOR_ALIGN} bytes (its kernels use tensor descriptors)")
            sizes["k"] += next((a.pad for a in arg_list if a.pad), 0)
            op = apply.bind_dtype(_build(entry, struct, maker, args, sizes), tuple(inputs))
    param_list = _check_host(op, struct, arg_list, param_list, op_shape, dtype, entry)
    notes += [f"`{p.name}` not given: {_FILLS.get(p.fill, f'a tensor of {p.fill:g}')} passed ({struct} takes one)"
              for p in param_list if p is not None and p.fill is not None]
    bias_arg = None
    if bias is not None:
        if tuple(bias.shape) != (op_shape[1],):
            raise Fallback(f"`{entry.bias}` has shape {list(bias.shape)}, not [{op_shape[1]}] (one per channel)")
        bias_arg = Arg(entry.bias, tuple(bias.shape))
        notes.append(f"`{entry.bias}` added on torch ({struct} takes none)")
    keep_nan = entry.layout == "flat" and dtype.is_floating_point and drops_nan(op.forward_kernel())
    if keep_nan:
        notes.append(f"NaN put back on torch where an input has one ({struct} takes a maximum or minimum, which "
                     "drops it as Rust's f32::max does; torch keeps it)")
    return Plan(entry, struct, op, arg_list, param_list, op_shape, out_shape, tuple(notes), bias_arg, keep_nan)


def nan_mask(inputs: Sequence[Tensor]) -> Tensor:
    """Where any of the (prepared, same-shaped) inputs is NaN."""
    mask = inputs[0].isnan()
    for x in inputs[1:]:
        mask = mask | x.isnan()
    return mask


def drops_nan(kernel: object) -> bool:
    """Whether the kernel takes a maximum or minimum that drops NaN (``tl.maximum``/``tl.minimum``
    without ``propagate_nan``: Triton's default, and Rust's ``f32::max``; the fact
    ``"nan_dropping_max"`` its launcher records); torch's relu, maximum and minimum keep NaN."""
    return bool("nan_dropping_max" in getattr(getattr(kernel, "launcher", None), "uses", ()))


def _dtype_problem(op: Op, struct: str, dtype: DType, grad: bool) -> str | None:
    """Why the op's kernels cannot take tensors of ``dtype``: a dtype its generics do not take
    (an int or bool tensor where the kernel's ``D: Float`` takes f32, f64, f16 and bf16: read
    from the launcher's ``dtypes``), or one Triton's interpreter computes wrong for the kernel."""
    from rs2triton.runtime.values import rust_dtype_of

    kernels = [op.forward_kernel()] + ([op.backward_kernel()] if grad and op.has_backward() else [])
    rust = rust_dtype_of(dtype)
    for kernel in kernels:
        launcher = getattr(kernel, "launcher", None)
        if launcher is None:
            continue
        allowed = launcher.dtypes.get("D")
        if allowed is not None and rust not in allowed:
            who = struct if launcher.name == struct else f"{struct}'s kernel {launcher.name}"
            return f"{who} takes D = {', '.join(allowed)}; the tensors are {str(dtype).removeprefix('torch.')}"
        # INTEGRATION POINT (issue 33, the PyTorch user's contract): the one place a plan asks
        # rs2triton.runtime.values.interpreter_dtype_problem(launcher, dtype) -> str | None (written
        # elsewhere: where Triton's interpreter computes this dtype wrong for this kernel, bf16
        # arithmetic say); a reason it gives makes the call run on torch, with that reason.
        from rs2triton.runtime import values

        ask = getattr(values, "interpreter_dtype_problem", None)
        reason: str | None = ask(launcher, dtype) if ask is not None and launcher.interpreted else None
        if reason:
            return reason
    return None


def _scalar_operands(entry: Entry, args: Args) -> dict[str, float]:
    """An elementwise op's Python number operands (``x + 1e-6``), where another operand is a
    tensor: each becomes a tensor of the output's shape (torch's broadcasting, materialised)."""
    torch = _torch()
    if entry.layout != "flat" or not any(isinstance(args.get(n), torch.Tensor) for n in entry.inputs):
        return {}
    return {n: args[n] for n in entry.inputs
            if isinstance(args.get(n), int | float) and not isinstance(args[n], bool)}


def _same(got: object, want: object) -> bool:
    """Whether an argument has a required value; a list argument (``SymInt[2] dilation``) given
    as one int, a list or a tuple means the same."""
    if isinstance(want, tuple):
        if isinstance(got, int) and not isinstance(got, bool):
            got = (got,) * len(want)
        elif isinstance(got, (list, tuple)) and len(got) == 1:
            got = tuple(got) * len(want)
        return isinstance(got, (list, tuple)) and tuple(got) == want
    return got == want


def next_multiple(n: int, m: int) -> int:
    return -(-n // m) * m


def loads_masked(launcher: object) -> bool:
    """Whether the kernel masks its loads (``T::load(..., Some(mask), ...)``): false where its
    launcher records ``"unmasked_loads"`` (it loads, and no load has a mask). One whose loads have
    no mask reads exactly its block, so a block that must cover a row must equal it (teenygrad's
    softmax; kernels_rs' masks its row)."""
    return bool("unmasked_loads" not in getattr(launcher, "uses", ()))


def _build(entry: Entry, struct: str, maker: Maker, args: Args, sizes: dict[str, int]) -> Op:
    """The op: a kernel struct configured with a value for each const generic, or a wrapper
    built by its ``new``."""
    from rs2triton.runtime import Launcher

    def value(rule: str | Rule) -> Any:
        if isinstance(rule, str):
            return args[rule]
        if isinstance(rule, Present):
            return args.get(rule.arg) is not None
        if isinstance(rule, Value):
            return _int_value(args, rule)
        if isinstance(rule, Count):
            return sum(1 for k in args if k.rpartition(".")[0] == rule.arg)
        if isinstance(rule, Dim):
            t = args.get(rule.arg)
            if t is None or t.dim() <= rule.dim:
                raise Fallback(f"`{rule.arg}` has no dimension {rule.dim}")
            return int(t.shape[rule.dim])
        chosen, why = rule.choose(sizes)
        if chosen is None:
            raise Fallback(why)
        return chosen

    if isinstance(maker, Launcher):
        rules, problem = const_rules(entry, struct, maker.consts, maker.roles)
        if problem:
            raise Fallback(problem)
        if not maker.roles:  # (a module generated before const facts: its loads say whether it masks)
            rules = {c: Exact(r.size) if isinstance(r, Cover) and not loads_masked(maker) else r
                     for c, r in rules.items()}
        return maker(**{c: value(rules[c]) for c in maker.consts})
    if not entry.new:
        raise Fallback(f"the mapping does not say how to build {struct} (no `new` arguments)")
    assert hasattr(maker, "new"), struct  # (a wrapper's class: the tree loads those that have one)
    return maker.new(*[value(r) for r in entry.new])


def _int_value(args: Args, rule: Value) -> int:
    """The int a :class:`Value` rule reads, or :class:`Fallback` (``padding='same'``, say)."""
    got = args.get(rule.arg)
    if rule.otherwise and (got is None or got in ([], ())):
        got = args.get(rule.otherwise)
    if isinstance(got, (list, tuple)) and rule.index is not None:
        got = got[0] if len(got) == 1 else got[rule.index] if rule.index < len(got) else None
    if not isinstance(got, int) or isinstance(got, bool):
        raise Fallback(f"the kernel takes `{rule.arg}` as integers; the call has {rule.arg}={args.get(rule.arg)!r}")
    return got


def _check_host(op: Op, struct: str, inputs: list[Arg], params: list[Arg | None], op_shape: list[int], dtype: DType,
                entry: Entry) -> list[Arg | None]:
    """The op's own host logic agrees with torch: the output shape it computes, the parameter
    shapes it asks for, and the dtype of its output. The parameters, where the op takes one the
    call leaves out and the row's ``absent`` says what that means (a linear layer's bias: zeros),
    with a tensor of that value made for it."""
    torch = _torch()
    from rs2triton.runtime import apply

    class Stand:  # a tensor as host code sees one
        def __init__(self, shape: Sequence[int]) -> None:
            self.shape = tuple(shape)
            self.dtype = dtype

    def prepared(a: Arg) -> tuple[int, ...]:
        shape = list(a.view or a.expand or a.shape)
        if a.pad:
            shape[-1] += a.pad
        return tuple(shape)

    input_shapes = [prepared(a) for a in inputs]
    try:
        with apply.host_code(op, input_shapes, op_shape):
            n = int(op.n_activation_inputs())
            if n != len(inputs):
                raise Fallback(f"{struct} takes {n} inputs, the operation {len(inputs)}")
            shape = apply.resolve_output_shape(op, input_shapes, None, op_shape)
            if list(shape) != list(op_shape):
                raise Fallback(f"{struct} computes the output shape {shape}, torch {op_shape}")
            want = [list(s) for s in op.param_shapes(input_shapes, op_shape)]
            params = _filled(params, entry.params, want, entry.absent)
            given = [p for p in params if p is not None]
            have = [list(prepared(p)) for p in given]
            if want != have:
                raise Fallback(f"{struct} takes parameters of shapes {want}; the call gives {have}")
            out_dtype = apply.output_dtype(op, tuple(Stand(s) for s in input_shapes),
                                           tuple(Stand(prepared(p)) for p in given), op_shape)
    except (TypeError, ValueError, NotImplementedError) as e:
        raise Fallback(str(e)) from e
    if out_dtype not in (dtype, None) and isinstance(out_dtype, torch.dtype):
        raise Fallback(f"{struct}'s output is {out_dtype}, torch's {dtype}")
    return params


_FILLS = {0.0: "zeros", 1.0: "ones"}


def _filled(params: list[Arg | None], names: tuple[str, ...], want: list[list[int]],
            absent: dict[str, float]) -> list[Arg | None]:
    """The parameters, each one the call left out (``None``, named in ``absent``) made of its value
    in the shape the op asks for, where the op asks for one in every place (``want``)."""
    if len(want) != len(params) or all(p is not None for p in params):
        return params
    return [Arg(n, tuple(w), fill=absent[n]) if p is None and n in absent else p
            for p, n, w in zip(params, names, want, strict=True)]
