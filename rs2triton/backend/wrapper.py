"""One generated Python function per graph and shape set, as Inductor writes its ``call()``.

A rewritten ATen graph (``aten.py``) runs, the first time it sees a set of input shapes, node by
node: each mapped node binds its call, plans it, runs the op's host logic (``pack_args``,
``grid``, the dtype of the output, every check of ``apply``) and launches. What it found is
fixed for those shapes, so :class:`GraphWrapper` then writes the graph as Python source, once
per shape set: a forward node whose op makes one launch is its inputs' views, an allocation and
the launch through the launcher's fast path, with the grid, the scalar arguments and the output
dtype as constants; a gradient node whose op's backward is one launch returning the input's
gradient is its tensors' views, zeroed gradient buffers and that launch; a node that runs on torch (no row maps it, or its plan says why not) is
torch's operator called directly; every other node (a view, a backward operator, an op with
several launches or a padded row) is a call of what the node runs. A later call with those
shapes is that function: allocations plus launches. The report counts a generated function's
calls and multiplies out when it is read.
"""

from __future__ import annotations

import math
import operator
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeAlias

from rs2triton.backend.plan import Arg, Args, Plan, Tensor, nan_mask
from rs2triton.runtime.mapping_rules import Aten, Entry, OnesRow, Transposed
from rs2triton.runtime.values import _torch

if TYPE_CHECKING:
    from rs2triton.backend.protocols import BackendView
    from rs2triton.backend.report import Report
    from rs2triton.runtime.launcher import Configured

# One kernel argument of a generated launch: (kind, index or value), see FastNode's and BackwardNode's ``args``
Slot: TypeAlias = tuple[str, Any]
# What the report counts per call of a node run on an op: (operation, struct, direction, notes)
Record: TypeAlias = tuple[str, str, str, tuple[str, ...]]
# Where one of a fast node's op inputs (or parameters) comes from: a tensor made once, or a row
# argument, broadcast to ``expand`` and viewed as ``view``
Source: TypeAlias = (tuple[Literal["const"], Tensor]
                     | tuple[Literal["arg"], str, tuple[int, ...] | None, tuple[int, ...] | None])

MAX_VARIANTS = 64  # shape sets one graph keeps generated functions for (then it starts again)
GENERATE = True  # False: every call runs node by node (what benchmarks/bench_backend.py compares with)


@dataclass
class FastNode:
    """A forward node as the generated code runs it: its op's one launch."""

    kernel: Configured  # the configured kernel (``op.forward_kernel()``)
    grid: tuple[int, ...]
    args: list[Slot]  # per kernel argument: ("in", i) | ("param", j) | ("out", None) | ("const", value)
    inputs: list[Source]  # per op input and parameter: ("arg", row argument, expand, view) | ("const", tensor)
    op_shape: tuple[int, ...]
    out_shape: tuple[int, ...]
    dtype: Any  # (a torch.dtype)
    device: Any  # (a torch.device)
    outputs: int
    keep_nan: bool  # (put NaN back where an input has one: Plan.keep_nan)
    n_inputs: int  # (``inputs`` lists the op's inputs, then its parameters)
    record: Record  # what the report counts per call


def taken_args(plan: Plan) -> list[Arg]:
    """The plan's inputs, then the parameters the op takes (as ``plan.prepare`` returns them)."""
    return [a for a in [*plan.inputs, *plan.params] if a is not None]


def fast_node(run: NodeRun, plan: Plan, bound: Args) -> tuple[FastNode | None, Tensor]:
    """Runs one forward node's plan as ``plan.forward`` does (every check included), and returns
    what the generated code needs to do it again (None where the node is not one launch of a
    plain output) with the output."""
    from rs2triton.runtime import apply

    tensors = plan.tensors(bound)
    if plan.bias is not None or any(a is not None and a.pad for a in [*plan.inputs, *plan.params]):
        return None, plan.forward(tensors)[0]
    inputs, params, _ = plan.prepare(tensors)
    out = apply.forward(plan.op, inputs, params, None, list(plan.op_shape))
    if plan.keep_nan:
        out.masked_fill_(nan_mask(inputs), float("nan"))
    result = out.reshape(plan.out_shape)
    op = plan.op
    shapes = [tuple(int(s) for s in x.shape) for x in inputs]
    with apply.host_code(op, shapes, plan.op_shape):
        natural = int(op.forward_output_row_elems(plan.op_shape))
        required = int(op.forward_output_row_stride(plan.op_shape))
        if int(op.n_launches()) != 1 or required != natural:
            return None, result
        args = op.pack_args(inputs, params, apply._Output(), list(plan.op_shape), required)
        grid = tuple(int(g) for g in op.grid(list(plan.op_shape)))
    made = [t for a, t in zip(taken_args(plan), [*inputs, *params], strict=True) if a.fill is not None]
    if apply.written_params(op.forward_kernel(), [(args, grid)], [*params, *made]):
        return None, result  # (a parameter, or a tensor made once, that the kernel writes is no constant)
    slots: list[Slot] = []
    for v in args:
        if isinstance(v, apply._Output):
            if v.offset:
                return None, result
            slots.append(("out", None))
        elif any(v is x for x in inputs):
            slots.append(("in", next(i for i, x in enumerate(inputs) if v is x)))
        elif any(v is p for p in params):
            slots.append(("param", next(i for i, p in enumerate(params) if v is p)))
        elif isinstance(v, (int, float)) or v is None:
            slots.append(("const", v))
        else:
            return None, result
    sources: list[Source] = []
    for a, prepared in zip(taken_args(plan), [*inputs, *params], strict=True):
        if a.fill is not None or isinstance(run.aten.args.get(a.name), OnesRow):
            sources.append(("const", prepared))  # (made of a number: the same every call; the kernel reads it)
        else:
            sources.append(("arg", a.name, a.expand, a.view))
    return FastNode(op.forward_kernel(), grid, slots, sources, tuple(plan.op_shape), tuple(plan.out_shape), out.dtype,
                    out.device, run.aten.outputs, plan.keep_nan, len(inputs), (run.entry.name, plan.struct, run.direction, plan.notes)), result


def _literal(value: object) -> str:
    """A constant as Python source, where it has a literal (an infinity or a NaN has none)."""
    if value is None or isinstance(value, (bool, int, str)) or (isinstance(value, float) and math.isfinite(value)):
        return repr(value)
    return ""


def _fold(report: Report, variants: dict[tuple[Any, ...], Variant]) -> None:
    for v in variants.values():
        n, v.calls[0] = v.calls[0], 0
        for operation, struct, direction, notes in v.records if n else ():
            report.record_run(operation, struct, direction, notes, times=n)
        for operation, reason in v.fallbacks if n else ():
            report.record_fallback(operation, reason, times=n)


@dataclass
class BackwardNode:
    """A gradient node as the generated code runs it: its op's one backward launch, into zeroed
    gradient buffers, the input's gradient returned."""

    kernel: Configured  # the configured backward kernel (``op.backward_kernel()``)
    grid: tuple[int, ...]
    args: list[Slot]  # per kernel argument: ("in", i) | ("param", j) | ("out", None) | ("dy", None) | ("gin", i) |
    #             ("gparam", j) | ("const", value)
    inputs: list[tuple[str, tuple[int, ...] | None]]  # per op input and parameter: (row argument, view)
    shapes: list[tuple[int, ...]]  # the prepared inputs' and parameters' shapes (their gradient buffers')
    op_shape: tuple[int, ...]
    grad_shape: tuple[int, ...]  # the returned gradient's shape (the call's input's)
    dtype: Any  # (a torch.dtype)
    device: Any  # (a torch.device)
    n_inputs: int
    record: Record


def backward_node(run: NodeRun, plan: Plan, bound: Args, given: Args) -> BackwardNode | None:
    """What the generated code needs to run a gradient node again: only the plain case (one
    launch, one gradient returned, no view, pad, broadcast, bias or parameter made here: the
    rest stays a call of the node)."""
    from rs2triton.runtime import apply

    aten = run.aten
    taken = taken_args(plan)
    if (aten.returns != ("input",) or aten.mask or plan.bias is not None
            or any(a.fill is not None or a.pad or a.expand is not None for a in taken)
            or any(not isinstance(aten.args.get(a.name, ""), str) for a in taken)):
        return None
    inputs, params, _ = plan.prepare(plan.tensors(bound))
    if aten.from_output:
        inputs = tuple(x.view(x.shape) for x in inputs)
    out = given[aten.output].reshape(plan.op_shape).contiguous() if aten.output else None
    dy = given[aten.grad].reshape(plan.op_shape).contiguous()
    op = plan.op
    shapes = [tuple(int(d) for d in x.shape) for x in inputs]
    grad_inputs = [x.view(x.shape) for x in inputs]  # (markers: the kernel's arguments are only told apart)
    grad_params = [p.view(p.shape) for p in params]
    with apply.host_code(op, shapes, plan.op_shape):
        if int(op.n_backward_launches()) != 1:
            return None
        required = int(op.backward_grad_output_row_stride(plan.op_shape))
        if required != (plan.op_shape[-1] if plan.op_shape else 1):
            return None
        args = op.pack_backward_args(inputs, params, out, list(plan.op_shape), dy, required, grad_inputs, grad_params)
        grid = tuple(int(g) for g in op.backward_grid(shapes, list(plan.op_shape)))
    groups = (("in", inputs), ("param", params), ("gin", grad_inputs), ("gparam", grad_params))
    slots: list[Slot] = []
    for v in args:
        if out is not None and v is out:
            slots.append(("out", None))
        elif v is dy:
            slots.append(("dy", None))
        elif (found := next(((k, i) for k, group in groups for i, t in enumerate(group) if v is t), None)):
            slots.append(found)
        elif isinstance(v, (int, float)) or v is None:
            slots.append(("const", v))
        else:
            return None
    if ("gin", 0) not in slots:
        return None
    return BackwardNode(op.backward_kernel(), grid, slots, [(a.name, a.view) for a in taken],
                        [tuple(x.shape) for x in [*inputs, *params]], tuple(plan.op_shape), tuple(plan.inputs[0].shape),
                        inputs[0].dtype, inputs[0].device, len(inputs),
                        (run.entry.name, plan.struct, run.direction, plan.notes))


@dataclass
class Variant:
    """A generated function of one shape set, and the calls it made."""

    fn: Callable[..., Any]
    source: str
    records: list[Record]  # (operation, struct, direction, notes) of each node run on an op
    fallbacks: list[tuple[str, str]]  # (operation, reason) of each node run on torch
    calls: list[int] = field(default_factory=lambda: [0])  # (the function's own counter: a list it adds to)


# What a node's first run (node by node) found for the generated function: its launch, or
# (operation, reason, torch's operator) where it ran on torch
Recorded: TypeAlias = FastNode | BackwardNode | tuple[str, str, Callable[..., Any]]


class NodeRun(Protocol):
    """What one mapped node runs (``aten._NodeRun``), as this module reads it."""

    entry: Entry  # the row that took the call
    aten: Aten  # how that row maps the node's ATen operator
    direction: str  # "forward" | "backward"
    names: list[str]  # the ATen schema's argument names
    defaults: dict[str, Any]  # its defaults
    recorder: dict[str, Recorded] | None  # (set while a shape set is recorded)


class GraphWrapper:
    """The callable of a rewritten graph: a generated function per shape set (see the module)."""

    def __init__(self, backend: BackendView, gm: Any, runs: Mapping[str, NodeRun]) -> None:
        self.backend = backend
        self.gm = gm
        self.runs = runs  # node name -> its _NodeRun (the mapped nodes)
        self.variants: dict[tuple[Any, ...], Variant] = {}
        self.placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
        backend._wrappers.add(self)  # (a weak set: a graph Dynamo drops folds its counts into the report)
        weakref.finalize(self, _fold, backend._report, self.variants)

    def key(self, args: Sequence[Any]) -> tuple[Any, ...]:
        torch = _torch()
        return tuple(tuple(a.shape) if isinstance(a, torch.Tensor) else a for a in args)

    def __call__(self, *args: Any) -> Any:
        if not GENERATE:
            return self.gm.forward(*args)
        key = self.key(args)
        variant = self.variants.get(key)
        if variant is not None:
            return variant.fn(*args)
        fast: dict[str, Recorded] = {}  # node name -> its FastNode, or (operation, reason, torch's operator)
        for run in self.runs.values():
            run.recorder = fast
        try:
            result = self.gm.forward(*args)
        finally:
            for run in self.runs.values():
                run.recorder = None
        if len(self.variants) >= MAX_VARIANTS:
            self.fold()
            self.variants.clear()
        self.variants[key] = self.generate(fast)
        return result

    def fold(self) -> None:
        """The generated functions' calls, added to the backend's report (and counted from zero)."""
        _fold(self.backend._report, self.variants)

    def generate(self, fast: dict[str, Recorded]) -> Variant:
        torch = _torch()
        names: dict[Any, str] = {}
        consts: dict[str, Any] = {"_empty": torch.empty, "_zeros": torch.zeros}
        lines: list[str] = []
        records: list[Record] = []
        fallbacks: list[tuple[str, str]] = []

        def const(value: Any) -> str:
            name = f"_c{len(consts)}"
            consts[name] = value
            return name

        def expr(a: Any) -> str:
            if isinstance(a, torch.fx.Node):
                return names[a]
            if isinstance(a, (list, tuple)):
                inner = ", ".join(expr(x) for x in a)
                return f"[{inner}]" if isinstance(a, list) else f"({inner}{',' if len(a) == 1 else ''})"
            return _literal(a) or const(a)

        for i, node in enumerate(self.gm.graph.nodes):
            var = names[node] = f"v{i}"
            if node.op == "placeholder":
                continue
            if node.op == "output":
                lines.append(f"return {expr(node.args[0])}")
                continue
            if node.op == "get_attr":  # (a tensor the graph holds: a constant AOTAutograd lifted)
                lines.append(f"{var} = {const(operator.attrgetter(node.target)(self.gm))}")
                continue
            spec = fast.get(node.name)
            if isinstance(spec, FastNode):
                lines += self._emit(spec, self.runs[node.name], node, var, expr, const)
                records.append(spec.record)
                continue
            if isinstance(spec, BackwardNode):
                lines += self._emit_backward(spec, self.runs[node.name], node, var, expr, const)
                records.append(spec.record)
                continue
            target = const(node.target)
            fell_back = spec or getattr(node.target, "fallback", None)
            if fell_back is not None:  # (torch's operator, called directly; the report counts the calls)
                operation, reason, original = fell_back
                target = const(original)
                fallbacks.append((operation, reason))
            call_args = ", ".join([expr(a) for a in node.args] + [f"{k}={expr(v)}" for k, v in node.kwargs.items()])
            lines.append(f"{var} = {target}({call_args})")
        calls = [0]
        consts["_calls"] = calls
        params = ", ".join(names[p] for p in self.placeholders)
        body = "\n    ".join(["_calls[0] += 1", *lines])
        source = f"def call({params}):\n    {body}\n"
        exec(compile(source, f"<rs2triton graph {self.backend.name}>", "exec"), consts)  # noqa: S102
        return Variant(consts["call"], source, records, fallbacks, calls)

    @staticmethod
    def _emit_backward(spec: BackwardNode, run: NodeRun, node: Any, var: str, expr: Callable[[Any], str],
                       const: Callable[[Any], str]) -> list[str]:
        """The lines of one gradient node: its tensors as the op's backward takes them, zeroed
        gradient buffers, the launch, the input's gradient."""
        given = dict(run.defaults) | dict(zip(run.names, node.args, strict=False)) | dict(node.kwargs)
        aten = run.aten
        lines: list[str] = []

        def dense(name: str, code: str, view: tuple[int, ...] | None) -> None:
            lines.append(f"{name} = {code}")
            lines.append(f"{name} = {name} if {name}.is_contiguous() else {name}.contiguous()")
            if view is not None:
                lines.append(f"{name} = {name}.view({list(view)})")

        prepared: list[str] = []
        for j, (arg, view) in enumerate(spec.inputs):
            mapped = aten.args.get(arg, arg if arg in given else "self")
            dense(f"{var}_{j}", expr(given[mapped]), view)
            prepared.append(f"{var}_{j}")
        used = {kind for kind, _ in spec.args}
        if "out" in used:
            dense(f"{var}_o", f"{expr(given[aten.output])}.reshape({list(spec.op_shape)})", None)
        dense(f"{var}_dy", f"{expr(given[aten.grad])}.reshape({list(spec.op_shape)})", None)
        zeros: dict[tuple[str, int], str] = {}
        for kind, i in spec.args:
            if kind in ("gin", "gparam") and (kind, i) not in zeros:
                index = i if kind == "gin" else spec.n_inputs + i
                zeros[(kind, i)] = name = f"{var}_{kind}{i}"
                lines.append(f"{name} = _zeros({list(spec.shapes[index])}, dtype={const(spec.dtype)}, "
                             f"device={const(spec.device)})")
        args: list[str] = []
        for kind, value in spec.args:
            if kind == "in":
                args.append(prepared[value])
            elif kind == "param":
                args.append(prepared[spec.n_inputs + value])
            elif kind == "out":
                args.append(f"{var}_o")
            elif kind == "dy":
                args.append(f"{var}_dy")
            elif kind in ("gin", "gparam"):
                args.append(zeros[(kind, value)])
            else:
                args.append(_literal(value) or const(value))
        if all(g > 0 for g in spec.grid):
            lines.append(f"{const(spec.kernel)}[{spec.grid!r}]({', '.join(args)})")
        lines.append(f"{var} = {zeros[('gin', 0)]}.reshape({list(spec.grad_shape)})")
        return lines

    @staticmethod
    def _emit(spec: FastNode, run: NodeRun, node: Any, var: str, expr: Callable[[Any], str],
              const: Callable[[Any], str]) -> list[str]:
        """The lines of one fast node: its inputs as the op takes them, the output, the launch."""
        given = dict(run.defaults)
        given |= dict(zip(run.names, node.args, strict=False)) | dict(node.kwargs)
        lines: list[str] = []
        prepared: list[str] = []
        for j, source in enumerate(spec.inputs):
            name = f"{var}_{j}"
            if source[0] == "const":
                lines.append(f"{name} = {const(source[1])}")
            else:
                _, arg, expand, view = source
                mapped = run.aten.args.get(arg, arg if arg in given else "self")
                base, _, index = arg.rpartition(".")
                if base in given and index.isdigit():  # (item `index` of a list argument: cat's tensors)
                    code = expr(given[base][int(index)])
                elif isinstance(mapped, Transposed):
                    code = f"{expr(given[mapped.arg])}.t()"
                else:
                    code = expr(given[mapped])
                if expand is not None:
                    code = f"{code}.expand({list(expand)})"
                lines.append(f"{name} = {code}")
                lines.append(f"{name} = {name} if {name}.is_contiguous() else {name}.contiguous()")
                if view is not None:
                    lines.append(f"{name} = {name}.view({list(view)})")
            prepared.append(name)
        lines.append(f"{var}_out = _empty({list(spec.op_shape)}, dtype={const(spec.dtype)}, "
                     f"device={const(spec.device)})")
        args: list[str] = []
        for kind, value in spec.args:
            if kind == "out":
                args.append(f"{var}_out")
            elif kind == "in":
                args.append(prepared[value])
            elif kind == "param":
                args.append(prepared[spec.n_inputs + value])
            else:
                args.append(_literal(value) or const(value))
        if all(g > 0 for g in spec.grid):
            lines.append(f"{const(spec.kernel)}[{spec.grid!r}]({', '.join(args)})")
        if spec.keep_nan:
            lines.append(f"{var}_out.masked_fill_({const(nan_mask)}([{', '.join(prepared[:spec.n_inputs])}]), "
                         "float('nan'))")
        out = f"{var}_out" if spec.out_shape == spec.op_shape else f"{var}_out.view({list(spec.out_shape)})"
        lines.append(f"{var} = ({out},) + (None,) * {spec.outputs - 1}" if spec.outputs > 1 else f"{var} = {out}")
        return lines
