"""One generated Python function per graph and shape set, as Inductor writes its ``call()``.

A rewritten ATen graph (``aten.py``) runs, the first time it sees a set of input shapes, node by
node: each mapped node binds its call, plans it, runs the op's host logic (``pack_args``,
``grid``, the dtype of the output, every check of ``apply``) and launches. What it found is
fixed for those shapes, so :class:`GraphWrapper` then writes the graph as Python source, once
per shape set: a forward node whose op makes one launch is its inputs' views, an allocation and
the launch through the launcher's fast path, with the grid, the scalar arguments and the output
dtype as constants; every other node (a fallback, a view, a backward operator, an op with several
launches or a padded row) is a call of what the node runs. A later call with those shapes is
that function: allocations plus launches. The report counts a generated function's calls and
multiplies out when it is read.
"""

from __future__ import annotations

import math
import operator
import weakref
from dataclasses import dataclass, field
from typing import Any

from rs2triton.backend.plan import nan_mask
from rs2triton.runtime.torch_mapping import OnesRow, Transposed
from rs2triton.runtime.values import _torch

MAX_VARIANTS = 64  # shape sets one graph keeps generated functions for (then it starts again)
GENERATE = True  # False: every call runs node by node (what benchmarks/bench_backend.py compares with)


@dataclass
class FastNode:
    """A forward node as the generated code runs it: its op's one launch."""

    kernel: Any  # the configured kernel (``op.forward_kernel()``)
    grid: tuple[int, ...]
    args: list  # per kernel argument: ("in", i) | ("param", j) | ("out", None) | ("const", value)
    inputs: list  # per op input and parameter: ("arg", row argument, expand, view) | ("const", tensor)
    op_shape: tuple[int, ...]
    out_shape: tuple[int, ...]
    dtype: Any
    device: Any
    outputs: int
    keep_nan: bool  # (put NaN back where an input has one: Plan.keep_nan)
    n_inputs: int  # (``inputs`` lists the op's inputs, then its parameters)
    record: tuple  # (operation, struct, direction, notes): what the report counts per call


def fast_node(run, plan, bound: dict) -> tuple[FastNode | None, Any]:
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
    if apply.written_params(op.forward_kernel(), [(args, grid)], params):
        return None, result  # (a parameter the kernel writes is no constant)
    slots: list = []
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
    sources: list[tuple] = []
    for a, prepared in zip([a for a in [*plan.inputs, *plan.params] if a is not None], [*inputs, *params],
                           strict=True):
        if a.fill is not None or isinstance(run.aten.args.get(a.name), OnesRow):
            sources.append(("const", prepared))  # (made of a number: the same every call; the kernel reads it)
        else:
            sources.append(("arg", a.name, a.expand, a.view))
    return FastNode(op.forward_kernel(), grid, slots, sources, tuple(plan.op_shape), tuple(plan.out_shape), out.dtype,
                    out.device, run.aten.outputs, plan.keep_nan, len(inputs), (run.entry.name, plan.struct, run.direction, plan.notes)), result


def _fold(report, variants: dict) -> None:
    for v in variants.values():
        n, v.calls[0] = v.calls[0], 0
        for operation, struct, direction, notes in v.records if n else ():
            report.record_run(operation, struct, direction, notes, times=n)


@dataclass
class Variant:
    """A generated function of one shape set, and the calls it made."""

    fn: Any
    source: str
    records: list
    calls: list = field(default_factory=lambda: [0])


class GraphWrapper:
    """The callable of a rewritten graph: a generated function per shape set (see the module)."""

    def __init__(self, backend, gm, runs: dict):
        self.backend = backend
        self.gm = gm
        self.runs = runs  # node name -> its _NodeRun (the mapped nodes)
        self.variants: dict[Any, Variant] = {}
        self.placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
        backend._wrappers.add(self)  # (a weak set: a graph Dynamo drops folds its counts into the report)
        weakref.finalize(self, _fold, backend._report, self.variants)

    def key(self, args) -> tuple:
        torch = _torch()
        return tuple(tuple(a.shape) if isinstance(a, torch.Tensor) else a for a in args)

    def __call__(self, *args):
        if not GENERATE:
            return self.gm.forward(*args)
        key = self.key(args)
        variant = self.variants.get(key)
        if variant is not None:
            return variant.fn(*args)
        fast: dict[str, FastNode] = {}
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

    def generate(self, fast: dict[str, FastNode]) -> Variant:
        torch = _torch()
        names: dict[Any, str] = {}
        consts: dict[str, Any] = {"_empty": torch.empty, "_getitem": operator.getitem}
        lines: list[str] = []
        records: list = []

        def const(value) -> str:
            name = f"_c{len(consts)}"
            consts[name] = value
            return name

        def expr(a) -> str:
            if isinstance(a, torch.fx.Node):
                return names[a]
            if isinstance(a, (list, tuple)):
                inner = ", ".join(expr(x) for x in a)
                return f"[{inner}]" if isinstance(a, list) else f"({inner}{',' if len(a) == 1 else ''})"
            if a is None or isinstance(a, (bool, int, str)) or isinstance(a, float) and math.isfinite(a):
                return repr(a)
            return const(a)  # (an inf or NaN too: its repr is no Python literal)

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
            if spec is not None:
                lines += self._emit(spec, self.runs[node.name], node, var, expr, const)
                records.append(spec.record)
                continue
            target = const(node.target)
            call_args = ", ".join([expr(a) for a in node.args] + [f"{k}={expr(v)}" for k, v in node.kwargs.items()])
            lines.append(f"{var} = {target}({call_args})")
        calls = [0]
        consts["_calls"] = calls
        params = ", ".join(names[p] for p in self.placeholders)
        body = "\n    ".join(["_calls[0] += 1", *lines])
        source = f"def call({params}):\n    {body}\n"
        exec(compile(source, f"<rs2triton graph {self.backend.name}>", "exec"), consts)  # noqa: S102
        return Variant(consts["call"], source, records, calls)

    @staticmethod
    def _emit(spec: FastNode, run, node, var: str, expr, const) -> list[str]:
        """The lines of one fast node: its inputs as the op takes them, the output, the launch."""
        given = dict(run.defaults)
        given |= dict(zip(run.names, node.args, strict=False)) | dict(node.kwargs)
        lines = []
        prepared = []
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
        args = []
        for kind, value in spec.args:
            if kind == "out":
                args.append(f"{var}_out")
            elif kind == "in":
                args.append(prepared[value])
            elif kind == "param":
                args.append(prepared[spec.n_inputs + value])
            else:
                literal = value is None or isinstance(value, int) or isinstance(value, float) and math.isfinite(value)
                args.append(repr(value) if literal else const(value))
        if all(g > 0 for g in spec.grid):
            lines.append(f"{const(spec.kernel)}[{spec.grid!r}]({', '.join(args)})")
        if spec.keep_nan:
            lines.append(f"{var}_out.masked_fill_({const(nan_mask)}([{', '.join(prepared[:spec.n_inputs])}]), "
                         "float('nan'))")
        out = f"{var}_out" if spec.out_shape == spec.op_shape else f"{var}_out.view({list(spec.out_shape)})"
        lines.append(f"{var} = ({out},) + (None,) * {spec.outputs - 1}" if spec.outputs > 1 else f"{var} = {out}")
        return lines
