"""AOTAutograd's graphs on teenygrad's ops: each ATen node a row maps runs the row's op.

The backend hands Dynamo's graph to ``aot_module_simplified`` (functionalized, as aot_eager and
Inductor do), which traces the forward and the joint backward down to ATen operators and
partitions them, deciding what the backward saves. :func:`compile_graph` then rewrites one of
those graphs: every node whose ATen operator a row's :class:`~rs2triton.runtime.mapping_rules.Aten`
names runs the row's op (``plan.py``, once per shape) — a forward operator through the op's
``pack_args``/``grid``, a backward operator (``threshold_backward``, ``_softmax_backward_data``)
through the op's backward kernels — and every other compute node runs on torch, counted with
its reason. Views, copies, casts and SymInt arithmetic stay as they are: autocast's casts,
in-place updates, views and dynamic shapes are torch's own.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeAlias

from rs2triton.backend.plan import Args, Fallback, Plan, Tensor, _same, _strict
from rs2triton.runtime.mapping_rules import Aten, Entry, OnesRow, Sized, Table, Transposed
from rs2triton.runtime.values import _torch

if TYPE_CHECKING:
    from rs2triton.backend.protocols import BackendView
    from rs2triton.backend.wrapper import GraphWrapper, Recorded

# What a row argument is of an ATen call (:class:`Aten`'s ``args``): an argument's name, or a
# tensor made of one
ArgExpr: TypeAlias = str | Transposed | OnesRow | Sized | Table

log = logging.getLogger("rs2triton.backend")

# ATen operators that only move, view, cast, allocate or describe tensors: they run on torch and
# are no fallback (no teenygrad op computes anything of theirs). Any view operator is one too.
MOVES = frozenset({
    "aten.clone", "aten._to_copy", "aten.copy", "aten.copy_", "aten.detach", "aten.alias", "aten.lift_fresh_copy",
    "aten.empty", "aten.empty_like", "aten.empty_strided", "aten.zeros", "aten.zeros_like", "aten.ones",
    "aten.ones_like", "aten.full", "aten.full_like", "aten.new_empty", "aten.new_empty_strided", "aten.new_zeros",
    "aten.new_ones", "aten.new_full", "aten.scalar_tensor", "aten.sym_size", "aten.sym_stride", "aten.sym_numel",
    "aten.sym_storage_offset", "aten.view", "aten._unsafe_view", "aten.reshape", "aten.expand", "aten.contiguous",
    "aten.t", "aten.permute", "aten.transpose", "aten.squeeze", "aten.unsqueeze", "aten.slice", "aten.select",
    "aten._assert_tensor_metadata", "aten.view_as", "aten._reshape_alias", "aten.as_strided",
    # (a range of integers, made: position ids; a tensor padded with a constant: a loss's shifted labels;
    # a triangle of a tensor kept, the rest zeroed: a causal mask made of a constant)
    "aten.arange", "aten.constant_pad_nd", "aten.triu", "aten.tril",
    # (a tensor's order along dimensions reversed: a cumulative sum's gradient; a dtype conversion
    # as PyTorch's primitives write it: Gemma's norm)
    "aten.flip", "prims.convert_element_type",
    # (a slice's gradient: the output's gradient copied into zeros)
    "aten.slice_backward",
})


_OWN: dict[Any, Callable[..., Any]] = {}  # an ATen overload -> its decomposition


def own_decompositions() -> dict[Any, Callable[..., Any]]:
    """Backward operators that take a tensor the forward makes only for them, made operators that
    do not: ``max_pool2d_with_indices_backward`` takes the forward's indices, so the partitioner
    saves them and the forward must compute them, which a teenygrad pooling op does not; it is
    made ``rs2triton_aot::max_pool2d_backward`` (the same arguments with the forward's output in
    place of the indices, the pooling computed again in the backward graph, where the op's
    forward kernel runs it; on torch, it finds the indices again), which the max-pooling row
    maps to the op's backward kernels. Defined once per process."""
    if not _OWN:
        torch = _torch()
        aten = torch.ops.aten
        schema = ("(Tensor grad_output, Tensor self, Tensor output, int[2] kernel_size, int[2] stride, "
                  "int[2] padding, int[2] dilation, bool ceil_mode) -> Tensor")

        def impl(grad_output: Tensor, self: Tensor, output: Tensor, kernel_size: list[int], stride: list[int],
                 padding: list[int], dilation: list[int], ceil_mode: bool) -> Tensor:
            indices = aten.max_pool2d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode)[1]
            return aten.max_pool2d_with_indices_backward(grad_output, self, kernel_size, stride, padding, dilation,
                                                         ceil_mode, indices)

        op = torch.library.custom_op("rs2triton_aot::max_pool2d_backward", impl, mutates_args=(), schema=schema)
        op.register_fake(lambda grad_output, self, *rest: torch.empty_like(self))

        def decomposed(grad_output: Tensor, self: Tensor, kernel_size: list[int], stride: list[int],
                       padding: list[int], dilation: list[int], ceil_mode: bool, indices: Tensor) -> Tensor:
            output = aten.max_pool2d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode)[0]
            return torch.ops.rs2triton_aot.max_pool2d_backward(grad_output, self, output, kernel_size, stride,
                                                               padding, dilation, ceil_mode)

        _OWN[aten.max_pool2d_with_indices_backward.default] = decomposed
    return dict(_OWN)


def aten_index(table: tuple[Entry, ...]) -> dict[str, list[tuple[Entry, Aten]]]:
    """Each ATen overload the rows name (``"aten.relu.default"``) -> the (row, how it maps) of
    each row naming it, in the table's order (a node tries them in turn: ``sum.dim_IntList`` over
    the rows is a linear op's bias gradient, over the last dimension a row sum)."""
    index: dict[str, list[tuple[Entry, Aten]]] = {}
    for entry in table:
        for aten in entry.aten:
            index.setdefault(aten.target, []).append((entry, aten))
    return index


def _describe(node: Any) -> str:
    """What a report calls a node no row maps: the torch operation it came from, where Dynamo
    recorded one (``Tensor.cumsum``, ``torch.nn.functional.dropout``), else its ATen operator."""
    stack = node.meta.get("source_fn_stack") or ()
    if stack:
        target = stack[-1][1]
        if isinstance(target, str):
            return f"Tensor.{target}"
        if isinstance(target, type) and target.__module__.startswith("torch.nn.modules"):
            return f"torch.nn.{target.__name__}"
        return _describe_target(target)
    return str(node.target)


def _describe_target(target: object) -> str:
    """What a report calls a torch callable: ``torch.nn.functional.dropout``, ``torch.cumsum``."""
    module = getattr(target, "__module__", None) or ("operator" if type(target).__name__ == "builtin_function_or_method"
                                                      else "")
    name = getattr(target, "__name__", str(target))
    if module in ("torch._C._nn", "torch._C._VariableFunctions", "torch._C"):
        module = "torch"
    elif module == "_operator":  # (`a @ b`: operator.matmul, as Python names it)
        module = "operator"
    return f"{module}.{name}" if module else name


def _no_float(node: Any) -> bool:
    """Whether the node reads and makes no floating-point tensor: logic on masks and indices
    (a padding mask's ``le``, ``bitwise_and``, ``any``, an ``index`` of a bool tensor). The ops
    compute on floating-point data (``D: Float``), which this is not: it runs on torch and is no
    fallback. A node that reads or makes a float (a comparison of activations) is not this."""
    import torch.fx

    torch = _torch()
    values = [a.meta.get("val") for a in node.all_input_nodes if isinstance(a, torch.fx.Node)]
    out = node.meta.get("val")
    values += list(out) if isinstance(out, (list, tuple)) else [out]
    tensors = [v for v in values if isinstance(v, torch.Tensor)]
    return bool(tensors) and len(tensors) == len(values) and not any(
        t.is_floating_point() or t.is_complex() for t in tensors)


def _is_move(target: object) -> bool:
    return bool(getattr(target, "is_view", False)) or str(getattr(target, "overloadpacket", "")) in MOVES


def _value(expr: ArgExpr, given: Args) -> Any:
    """A row argument from the ATen call (see :class:`Aten`)."""
    torch = _torch()
    if isinstance(expr, Transposed):
        t = given[expr.arg]
        if not isinstance(t, torch.Tensor) or t.dim() != 2:
            raise Fallback(f"`{expr.arg}` is not a matrix")
        return t.t()
    if isinstance(expr, Sized):
        sizes = given[expr.arg]
        return None if sizes is None else given[expr.like].new_empty(list(sizes))
    if isinstance(expr, Table):
        like = given[expr.like]
        return like.new_empty((int(given[expr.arg]), int(like.shape[-1]) if like.dim() else 1))
    if isinstance(expr, OnesRow):
        t = given[expr.arg]
        if not isinstance(t, torch.Tensor) or t.dim() != 2:
            raise Fallback(f"`{expr.arg}` is not a matrix")
        return t.new_ones((1, t.shape[0]))
    return given[expr]


def _channels_last(value: Any) -> bool:
    """Whether torch's output (the node's fake value) is a channels-last image, not a contiguous one."""
    torch = _torch()
    if isinstance(value, (list, tuple)):
        value = value[0] if value else None
    if not isinstance(value, torch.Tensor) or value.dim() != 4:
        return False
    try:
        return bool(not value.is_contiguous() and value.is_contiguous(memory_format=torch.channels_last))
    except Exception:  # noqa: BLE001 (a symbolic stride torch cannot decide: as torch lays it out)
        return False


def _other_outputs_used(node: Any) -> bool:
    import operator

    return any(not (u.target is operator.getitem and u.args[1] == 0) for u in node.users)


class _NodeRun:
    """What one ATen node the rows ``candidates`` map runs: its call bound to the ATen schema,
    made the first candidate row's call that its op takes, planned (once per shape) and run on
    the op — or on torch, with the reason."""

    def __init__(self, backend: BackendView, candidates: list[tuple[Entry, Aten]], node: Any, direction: str) -> None:
        schema = node.target._schema
        self.backend, self.candidates, self.direction = backend, candidates, direction
        self.entry, self.aten = candidates[0]
        self.node_name = node.name
        self.original = node.target
        self.names = [a.name for a in schema.arguments]
        self.defaults = {a.name: a.default_value for a in schema.arguments if a.has_default_value()}
        self.other_outputs_used = _other_outputs_used(node)
        self.recorder: dict[str, Recorded] | None = None  # (set while the graph's wrapper records a shape set: wrapper.py)
        self.val = node.meta.get("val")
        self.made: set[str] = set()  # (row arguments made for the call: stand-ins the op must not read)

    @property
    def signature(self) -> inspect.Signature:
        return self.backend._signatures[self.entry.name]

    @property
    def outputs_used(self) -> bool:
        return self.aten.outputs > 1 and self.other_outputs_used and not self.aten.launches

    @property
    def channels_last(self) -> bool:
        return not self.aten.grad and _channels_last(self.val)

    def row_args(self, given: Args) -> Args:
        aten = self.aten
        for key, want in aten.require.items():
            if not _same(given.get(key), want):
                raise Fallback(f"{self.entry.name}'s op implements {self.original}'s {key}={want!r} only; the call "
                               f"has {key}={given.get(key)!r}")
        args: dict[str, Any] = {}
        self.made = {n for n, e in aten.args.items() if isinstance(e, (Sized, Table))}
        for name in self.signature.parameters:
            if name in aten.args:
                args[name] = _value(aten.args[name], given)
            elif name in aten.fixed:
                args[name] = aten.fixed[name]
            elif name in given:
                args[name] = given[name]
            elif name == "input" and "self" in given:
                args[name] = given["self"]
        bound = self.signature.bind(**args)
        bound.apply_defaults()
        return dict(bound.arguments)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        backend = self.backend
        given = self.defaults | dict(zip(self.names, args, strict=False)) | kwargs
        reasons: list[str] = []
        for entry, aten in self.candidates:
            self.entry, self.aten = entry, aten
            try:
                if self.outputs_used:
                    raise Fallback(f"the graph uses the other outputs of {self.original} (saved for its backward), "
                                   "which the op does not compute")
                if self.aten.launches:  # (kernels used directly: the row's launches, as data)
                    from rs2triton.backend.launches import launched

                    launch_plan, launch_result = launched(backend, entry, aten, given, self.val)
                    backend._report.record_run(entry.name, launch_plan.struct, self.direction, launch_plan.notes)
                    return launch_result
                bound = self.row_args(given)
                backward = bool(self.aten.grad)
                plan = backend.plan(self.entry, bound, backward)
                result = self._backward(plan, bound, given) if backward else self._forward(plan, bound)
                # (a backward that runs the forward again, or reads a stand-in made here, stays a call)
                if backward and self.recorder is not None and not plan._forward_again \
                        and not self.made:
                    from rs2triton.backend.wrapper import backward_node

                    spec = backward_node(self, plan, bound, given)
                    if spec is not None:
                        self.recorder[self.node_name] = spec
            except Fallback as f:
                reasons.append(f"{entry.name}: {f}" if len(self.candidates) > 1 else str(f))
                continue
            backend._report.record_run(self.entry.name, plan.struct, self.direction, plan.notes)
            return result
        self.entry, self.aten = self.candidates[0]
        reason = "; ".join(reasons)
        if backend.strict:
            raise _strict(self.node_name, self.entry.name, reason) from None
        backend._report.record_fallback(self.entry.name, reason)
        if self.recorder is not None:  # (the generated function calls torch's operator, and counts it)
            self.recorder[self.node_name] = (self.entry.name, reason, self.original)
        return self.original(*args, **kwargs)

    def _forward(self, plan: Plan, bound: Args) -> Any:
        if self.channels_last:  # (the op's output is dense row-major; torch's keeps the input's memory format)
            out = plan.forward(plan.tensors(bound))[0]
            out = out.contiguous(memory_format=_torch().channels_last)
        elif self.recorder is not None:
            from rs2triton.backend.wrapper import fast_node

            spec, out = fast_node(self, plan, bound)
            if spec is not None:
                self.recorder[self.node_name] = spec
        else:
            out = plan.forward(plan.tensors(bound))[0]
        return (out,) + (None,) * (self.aten.outputs - 1) if self.aten.outputs > 1 else out

    def _backward(self, plan: Plan, bound: Args, given: Args) -> Any:
        torch = _torch()
        aten = self.aten
        tensors = plan.tensors(bound)
        inputs, params, bias = plan.prepare(tensors)
        if aten.from_output:  # (the output stands for the input: views of their own, so that a read shows)
            inputs = tuple(x.view(x.shape) for x in inputs)
        if aten.output:
            out = given[aten.output].reshape(plan.op_shape).contiguous()
        else:
            out = torch.empty(plan.op_shape, dtype=inputs[0].dtype, device=inputs[0].device)
        dy = given[aten.grad]
        stand_ins = inputs if aten.from_output else ()
        stand_ins += tuple(t for a, t in zip([a for a in [*plan.inputs, *plan.params] if a is not None],
                                             [*inputs, *params], strict=True) if a.name in self.made)
        if stand_ins:
            problem = plan._stand_in_problem
            if problem is False:
                problem = plan._stand_in_problem = _reads(plan, inputs, params, out, dy, stand_ins)
            if problem:
                raise Fallback(problem)
        if not aten.output:  # (an operator given the input, not the output: silu_backward, gelu_backward)
            again = plan._forward_again
            if again is None:
                again = plan._forward_again = _reads(plan, inputs, params, out, dy, (out,)) is not None
                if again and aten.from_output:
                    raise Fallback(_reads(plan, inputs, params, out, dy, (out,)))
                if again:
                    plan.notes += (f"the forward run again in the backward ({plan.struct}'s backward kernel reads "
                                   "its output, which the ATen operator is not given)",)
            if again:  # (the op's forward, on its input, gives what its backward reads)
                from rs2triton.runtime import apply

                out = apply.forward(plan.op, inputs, params, None, list(plan.op_shape))
        names = [a.name for a in [*plan.inputs, *plan.params] if a is not None and a.fill is None]
        names += [plan.bias.name] if plan.bias is not None else []
        saved = (inputs, params + ((bias,) if bias is not None else ()), out)
        wanted = set(aten.returns)
        if aten.mask:  # (which of the gradients the operator is asked for)
            wanted = {n for n, m in zip(aten.returns, given[aten.mask], strict=True) if m}
        grads = dict(zip(names, plan.backward(saved, dy, [n in wanted for n in names]), strict=True))
        got = tuple(grads.get(n) if n in wanted else None for n in aten.returns)
        return got[0] if len(got) == 1 else got


def _reads(plan: Plan, inputs: tuple[Tensor, ...], params: tuple[Tensor, ...], output: Tensor, dy: Tensor,
           stand_ins: tuple[Tensor, ...]) -> str | None:
    """Why the op's backward cannot run on these stand-ins: where its ``pack_backward_args`` hands
    one to a kernel (the backward would read a tensor the ATen operator was not given)."""
    from rs2triton.runtime import apply

    op = plan.op
    shapes = [tuple(x.shape) for x in inputs]
    with apply.host_code(op, shapes, plan.op_shape):
        if int(op.n_backward_launches()) != 1:
            return f"{plan.struct}'s backward makes several launches, and the stand-ins it would read are not checked"
        required = int(op.backward_grad_output_row_stride(plan.op_shape))
        visited = op.pack_backward_args(inputs, params, output, plan.op_shape, dy, required,
                                        [x.view(x.shape) for x in inputs], [p.view(p.shape) for p in params])
    for v in visited:
        if any(v is s for s in stand_ins):
            what = "output" if v is output else "input"
            return (f"{plan.struct}'s backward reads the forward's {what}, which the ATen operator is not given "
                    f"(its `pack_backward_args` hands it to the kernel)")
    return None


def _fallback_call(backend: BackendView, node: Any, operation: str, reason: str) -> Callable[..., Any]:
    original, report = node.target, backend._report

    def call(*args: Any, **kwargs: Any) -> Any:
        report.record_fallback(operation, reason)
        return original(*args, **kwargs)

    call.fallback = (operation, reason, original)  # type: ignore[attr-defined]  # (what the generated function calls)
    return call


def _as_function(run: _NodeRun) -> Callable[..., Any]:
    def call(*args: Any, **kwargs: Any) -> Any:
        return run(*args, **kwargs)

    return call


def _sums_over_leading(gm: Any) -> None:
    """Each ``sum.dim_IntList`` over dimensions that are neither the last alone nor leading ones
    (an expansion's gradient: a sum over a middle dimension) made a sum over leading dimensions
    of its input permuted (a view: the reduced dimensions first), which the sum rows take; with
    ``keepdim`` the reduced dimensions are put back as 1s (``unsqueeze``: views). In place."""
    torch = _torch()
    aten = torch.ops.aten
    for node in list(gm.graph.nodes):
        if node.op != "call_function" or node.target is not aten.sum.dim_IntList:
            continue
        x, dim = node.args[0], node.args[1]
        keepdim = node.args[2] if len(node.args) > 2 else node.kwargs.get("keepdim", False)
        value = x.meta.get("val") if hasattr(x, "meta") else None
        if not isinstance(value, torch.Tensor) or not isinstance(dim, (list, tuple)) or not dim:
            continue
        nd = value.dim()
        dims = sorted({int(d) % nd for d in dim}) if nd else []
        if not dims or dims == [nd - 1] or dims == list(range(len(dims))) or len(dims) >= nd:
            continue
        order = dims + [d for d in range(nd) if d not in dims]
        kwargs = {k: v for k, v in node.kwargs.items() if k == "dtype"}
        with gm.graph.inserting_before(node):
            moved = gm.graph.call_function(aten.permute.default, (x, order))
            out = gm.graph.call_function(aten.sum.dim_IntList, (moved, list(range(len(dims))), False), kwargs)
            for d in dims if keepdim else ():
                out = gm.graph.call_function(aten.unsqueeze.default, (out, d))
        for new in {moved, out, *out.all_input_nodes}:
            new.meta.update({k: v for k, v in node.meta.items() if k in ("source_fn_stack", "stack_trace")})
        out.meta["val"] = node.meta.get("val")
        node.replace_all_uses_with(out)
        gm.graph.erase_node(node)
    gm.graph.lint()


def compile_graph(backend: BackendView, gm: Any, direction: str, graph_id: int) -> GraphWrapper:
    """``gm`` (an ATen graph of AOTAutograd's: the forward, or the backward) rewritten to run
    the rows' ops: its callable (boxed by the caller)."""
    torch = _torch()
    lines: list[str] = []
    index = backend._aten
    runs: dict[str, _NodeRun] = {}
    _sums_over_leading(gm)
    if direction == "forward":  # (a compiled optimizer step: its updates on teenygrad's optimizer kernels)
        from rs2triton.backend.optim import fuse_steps

        fuse_steps(backend, gm)
    for node in list(gm.graph.nodes):
        if node.op != "call_function" or not isinstance(node.target, torch._ops.OpOverload):
            continue  # (placeholders, outputs, getitem, SymInt arithmetic)
        found = index.get(str(node.target))
        if not found:
            if _is_move(node.target) or node.target.namespace.startswith("rs2triton_"):
                continue  # (a `backend.functional` op runs its row itself, and counts what ran)
            if _no_float(node):
                lines.append(f"  {node.name}: {_describe(node)} -> torch (bool/integer tensors only) [{node.target}]")
                continue
            operation = _describe(node)
            reason = "no teenygrad op implements it (no row of the mapping)"
            if torch.Tag.nondeterministic_seeded in getattr(node.target, "tags", ()):
                reason += ": it draws random numbers (a dropout's mask: attention's dropout stays on torch)"
            lines.append(f"  {node.name}: {operation} -> on torch: {reason} [{node.target}]")
            if backend.strict:
                raise _strict(node.name, operation, reason)
            fn = _fallback_call(backend, node, operation, reason)
        else:
            entry = found[0][0]
            struct = next((s for e, _ in found for s in e.op
                           if s in (backend.tree.kernels if e.launched else backend.tree.ops)), None)
            lines.append(f"  {node.name}: {'/'.join(e.name for e, _ in found)} -> "
                         + (f"{struct} (planned per shape)" if struct else f"on torch: the tree has no {entry.op[0]}")
                         + f" [{node.target}]")
            run = runs[node.name] = _NodeRun(backend, found, node, direction)
            fn = _as_function(run)
        fn.__name__ = fn.__qualname__ = f"teenygrad_{node.name}"
        node.target = fn
    gm.recompile()
    if log.isEnabledFor(logging.INFO):
        log.info("teenygrad backend %r, graph %d (%s):\n%s", backend.name, graph_id, direction,
                 "\n".join(lines) or "  (no compute nodes)")
    from rs2triton.backend.wrapper import GraphWrapper

    return GraphWrapper(backend, gm, runs)
