"""The torch.compile backend: each captured graph's nodes rewritten to run teenygrad's ops.

Dynamo hands the backend a graph of torch-level calls (``torch._C._nn.linear``,
``torch.nn.functional.relu``, ``operator.add``, ``x.softmax(-1)``). Every node whose operation
has a row in the mapping table (``runtime/torch_mapping.py``) is replaced by a call that plans the
teenygrad op for the call's shapes (``backend/plan.py``, once per shape) and runs it, forward
through the op's ``pack_args``/``grid`` and, where a gradient is needed, backward through the
op's own ``pack_backward_args``/``backward_grid``; the rest runs on torch and is counted as a
fallback with its reason. No AOT tracing: the graph runs eagerly, so autograd sees one node
per teenygrad op, and dynamic shapes need nothing more than a plan per new shape.
"""

from __future__ import annotations

import importlib
import inspect
import logging
from collections.abc import Collection
from typing import Any

from rs2triton.backend.plan import Fallback, Plan, make_plan
from rs2triton.backend.report import Report
from rs2triton.runtime.torch_mapping import IDENTITY_WHEN, SHAPE_ONLY, TABLE, Entry
from rs2triton.runtime.values import _torch

log = logging.getLogger("rs2triton.backend")

_CURRENT: dict[str, Backend] = {}  # backend name -> the backend it stands for now


class StrictFallback(RuntimeError):
    """A node ran on torch under ``strict=True``."""


def _strict(node: str, operation: str, reason: str) -> StrictFallback:
    return StrictFallback(f"teenygrad backend (strict): node `{node}` ({operation}) would run on torch: {reason}")


def _resolve(path: str):
    """A dotted target of the table: the torch callable, or ``("method", name)`` for ``Tensor.x``."""
    if path.startswith("Tensor."):
        return ("method", path.removeprefix("Tensor."))
    module, _, name = path.rpartition(".")
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError):
        obj: Any = importlib.import_module(module.split(".")[0])
        for part in path.split(".")[1:]:
            obj = getattr(obj, part, None)
            if obj is None:
                return None
        return obj


def _signature(schema: str) -> inspect.Signature:
    """Python's signature of a torch.library schema (names, defaults, keyword-only)."""
    parsed = _torch()._C.parse_schema(schema)
    params = []
    for a in parsed.arguments:
        kind = inspect.Parameter.KEYWORD_ONLY if a.kwarg_only else inspect.Parameter.POSITIONAL_OR_KEYWORD
        default = a.default_value if a.has_default_value() else inspect.Parameter.empty
        params.append(inspect.Parameter(a.name, kind, default=default))
    return inspect.Signature(params)


def _describe(node) -> str:
    """What a report calls an unmapped node's operation."""
    if node.op == "call_method":
        return f"Tensor.{node.target}"
    if node.op == "call_module":
        return f"module {node.target}"
    target = node.target
    module = getattr(target, "__module__", None) or ("operator" if type(target).__name__ == "builtin_function_or_method"
                                                      else "")
    name = getattr(target, "__name__", str(target))
    if module in ("torch._C._nn", "torch._C._VariableFunctions", "torch._C"):
        module = "torch"
    return f"{module}.{name}" if module else name


def _key(value):
    torch = _torch()
    if isinstance(value, torch.Tensor):
        return ("T", tuple(value.shape), value.dtype, value.device, value.requires_grad)
    if isinstance(value, (list, tuple)):
        return tuple(_key(v) for v in value)
    return value


def _returns_input(when: tuple, args: tuple, kwargs: dict) -> bool | None:
    """Whether a call returns its input by an IDENTITY_WHEN rule ((argument names, {name: the
    value that makes it the identity})): None where a value that decides is not a plain number."""
    names, values = when
    given = dict(zip(names, args, strict=False)) | dict(kwargs)
    undecided = False
    for name, value in values.items():
        got = given.get(name)
        if type(got) in (bool, int, float):
            if got == value:
                return True
        elif name in given:
            undecided = True
    return None if undecided else False


def _computes_tensor(node) -> bool:
    torch = _torch()
    value = node.meta.get("example_value")
    if isinstance(value, (list, tuple)):
        return any(isinstance(v, torch.Tensor) for v in value)
    return isinstance(value, torch.Tensor)


class Backend:
    """The teenygrad backend over one kernel tree (see :func:`rs2triton.torch_backend`)."""

    def __init__(self, tree, *, name: str = "teenygrad", strict: bool = False, table: tuple[Entry, ...] = TABLE):
        from rs2triton.backend.functional import Functional

        self.tree = tree
        self.name = name
        self.strict = strict
        self.table = table
        self._report = Report()
        self._plans: dict[Any, Plan | str] = {}
        self._signatures = {e.name: _signature(e.schema) for e in table}
        self._targets: dict[Any, Entry] = {}
        for entry in table:
            for path in entry.targets:
                target = _resolve(path)
                if target is not None:
                    self._targets.setdefault(target, entry)
        self._shape_only = {t for t in (_resolve(p) for p in SHAPE_ONLY) if t is not None}
        self._identity_when = {t: when for t, when in ((_resolve(p), w) for p, w in IDENTITY_WHEN.items())
                               if t is not None}
        self._graphs = 0
        self.functional = Functional(self)

    def _identity(self, node) -> bool | None:
        """Whether the node's call returns its input (a dropout outside training, or with p = 0):
        True or False where its arguments say, None where that is known only at run time (a
        module's `p` is a graph input under dynamic shapes), or False for any other operation."""
        if node.op != "call_function" or not _hashable_in(node.target, self._identity_when):
            return False
        return _returns_input(self._identity_when[node.target], node.args, node.kwargs)

    # ------------------------------------------------------------------ torch.compile's entry point

    def __call__(self, gm, example_inputs=None):
        return self.compile(gm, example_inputs)

    def __repr__(self) -> str:
        return (f"<rs2triton teenygrad backend {self.name!r}: {len(self.tree.ops)} ops from "
                f"{', '.join(map(str, self.tree.roots))}{', strict' if self.strict else ''}>")

    def report(self) -> Report:
        """What ran so far: per torch operation, calls per teenygrad op (forward, backward) and fallbacks."""
        return self._report.copy()

    def reset_report(self) -> None:
        self._report.clear()

    def entry_for(self, node) -> Entry | None:
        if node.op == "call_function":
            try:
                return self._targets.get(node.target)
            except TypeError:  # (an unhashable target)
                return None
        if node.op == "call_method":
            return self._targets.get(("method", node.target))
        return None

    def compile(self, gm, example_inputs=None):
        self._graphs += 1
        graph_id = self._graphs
        lines = []
        for node in list(gm.graph.nodes):
            if node.op not in ("call_function", "call_method", "call_module"):
                continue
            entry = self.entry_for(node)
            shape_only = (node.op == "call_method" and ("method", node.target) in self._shape_only) or (
                node.op == "call_function" and _hashable_in(node.target, self._shape_only))
            if entry is None:
                identity = self._identity(node)
                if shape_only or not _computes_tensor(node) or identity:
                    continue
                operation = _describe(node)
                reason = "no teenygrad op implements it (no row of the mapping)"
                if identity is None:  # (decided at each call)
                    self._wrap_fallback(node, operation, reason, self._identity_when[node.target])
                    continue
                lines.append(f"  {node.name}: {operation} -> on torch: {reason}")
                if self.strict:
                    raise _strict(node.name, operation, reason)
                self._wrap_fallback(node, operation, reason)
                continue
            struct = next((s for s in entry.op if s in self.tree.ops), None)
            lines.append(f"  {node.name}: {entry.name} -> "
                         + (f"{struct} (planned per shape)" if struct else f"on torch: the tree has no {entry.op[0]}"))
            self._wrap_entry(node, entry)
        gm.recompile()
        if log.isEnabledFor(logging.INFO):
            log.info("teenygrad backend %r, graph %d:\n%s", self.name, graph_id, "\n".join(lines) or "  (no compute nodes)")
        return gm.forward

    # ------------------------------------------------------------------ the calls that replace nodes

    def _original(self, node):
        if node.op == "call_method":
            method = node.target

            def original(self_, *args, **kwargs):
                return getattr(self_, method)(*args, **kwargs)

            return original
        return node.target

    def _set(self, node, fn) -> None:
        fn.__name__ = fn.__qualname__ = f"teenygrad_{node.name}"
        node.op = "call_function"
        node.target = fn

    def _wrap_fallback(self, node, operation: str, reason: str, identity_when=None) -> None:
        """The node runs on torch, each call counted as a fallback (under ``strict``, an error) —
        but for a call that returns its input by ``identity_when``'s rule (see IDENTITY_WHEN)."""
        original, report, strict, name = self._original(node), self._report, self.strict, node.name

        def call(*args, **kwargs):
            if identity_when is not None and _returns_input(identity_when, args, kwargs):
                return original(*args, **kwargs)
            if identity_when is not None and strict:
                raise _strict(name, operation, reason)
            report.record_fallback(operation, reason)
            return original(*args, **kwargs)

        self._set(node, call)

    def _wrap_entry(self, node, entry: Entry) -> None:
        original = self._original(node)
        name = node.name

        def call(*args, **kwargs):
            return self.run(entry, args, kwargs, original, name)

        self._set(node, call)

    def bind(self, entry: Entry, args: tuple, kwargs: dict) -> dict:
        kwargs = {k: v for k, v in kwargs.items() if k != "_stacklevel"}
        try:
            bound = self._signatures[entry.name].bind(*args, **kwargs)
        except TypeError as e:
            raise Fallback(f"a call the mapping does not know ({e})") from e
        bound.apply_defaults()
        return dict(bound.arguments)

    def plan(self, entry: Entry, args: dict, grad: bool) -> Plan:
        try:
            key = (entry.name, grad, tuple((k, _key(v)) for k, v in args.items()))
            hash(key)
        except TypeError:
            key = None
        cached = self._plans.get(key) if key is not None else None
        if cached is None:
            try:
                cached = make_plan(entry, self.tree.ops, args, grad)
            except Fallback as f:
                cached = str(f)
            if key is not None:
                self._plans[key] = cached
        if isinstance(cached, str):
            raise Fallback(cached)
        return cached

    def run(self, entry: Entry, args: tuple, kwargs: dict, original, node: str):
        torch = _torch()
        try:
            bound = self.bind(entry, args, kwargs)
            tensors = [v for v in bound.values() if isinstance(v, torch.Tensor)]
            grad = torch.is_grad_enabled() and any(t.requires_grad for t in tensors)
            plan = self.plan(entry, bound, grad)
        except Fallback as f:
            reason = str(f)
            if self.strict:
                raise _strict(node, entry.name, reason) from None
            self._report.record_fallback(entry.name, reason)
            return original(*args, **kwargs)
        self._report.record_run(entry.name, plan.struct, "forward", plan.notes)
        if grad:
            return _NodeFunction.apply(plan, self._report, *plan.tensors(bound))
        with torch.no_grad():
            return plan.forward(plan.tensors(bound))[0]


def _hashable_in(target, targets: Collection) -> bool:
    try:
        return target in targets
    except TypeError:
        return False


class _LazyFunction:
    """The autograd.Function of a planned node, made when first used (torch is imported then)."""

    fn: Any = None

    def apply(self, *args):
        if self.fn is None:
            self.fn = _make_function()
        return self.fn.apply(*args)


def _make_function():
    torch = _torch()

    class NodeFunction(torch.autograd.Function):  # type: ignore[name-defined]
        """One node run on a teenygrad op: its backward is the op's own backward kernels."""

        @staticmethod
        def forward(ctx, plan, report, *tensors):
            out, (inputs, params, raw) = plan.forward(list(tensors))
            ctx.plan, ctx.report, ctx.n_inputs = plan, report, len(inputs)
            ctx.save_for_backward(*inputs, *params, raw)
            return out

        @staticmethod
        def backward(ctx, grad_output):
            *prepared, raw = ctx.saved_tensors
            plan = ctx.plan
            saved = (tuple(prepared[:ctx.n_inputs]), tuple(prepared[ctx.n_inputs:]), raw)
            grads = plan.backward(saved, grad_output, list(ctx.needs_input_grad[2:]))
            ctx.report.record_run(plan.entry.name, plan.struct, "backward")
            return (None, None, *grads)

    return NodeFunction


_NodeFunction = _LazyFunction()


def register(backend: Backend) -> None:
    """Make ``backend`` what ``torch.compile(..., backend=name)`` calls; a later backend of the
    same name takes its place. A name another library registered is refused."""
    torch = _torch()
    from torch._dynamo import list_backends

    name = backend.name
    if name not in _CURRENT:
        if name in list_backends(exclude_tags=()):
            raise ValueError(f"torch_backend: a torch.compile backend named {name!r} is already registered by "
                             "another library; choose another with name=...")

        def dispatch(gm, example_inputs):
            return _CURRENT[name](gm, example_inputs)

        dispatch.__name__ = f"rs2triton_{name}"
        torch._dynamo.register_backend(dispatch, name=name)
    _CURRENT[name] = backend
