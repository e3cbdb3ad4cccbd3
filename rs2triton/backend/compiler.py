"""The torch.compile backend: AOTAutograd's ATen graphs, their nodes run on teenygrad's ops.

Dynamo hands the backend a graph of torch-level calls; the backend hands it to AOTAutograd
(``aot_module_simplified``: functionalization, the joint forward and backward traced to ATen
operators and partitioned, as aot_eager and Inductor do), whose forward and backward graphs
``backend/aten.py`` rewrites: every ATen node a row of the mapping (``runtime/torch_mapping.py``)
names runs the row's teenygrad op, planned once per shape (``backend/plan.py``), forward through
the op's ``pack_args``/``grid``, backward through its ``pack_backward_args``/``backward_grid``;
the rest runs on torch and is counted as a fallback with its reason. ``Backend.run`` runs one
torch-level call on a row (``backend.functional``, eagerly), differentiable through the op's
own backward.
"""

from __future__ import annotations

import inspect
import logging
import sys
import weakref
from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import TYPE_CHECKING, Any

from rs2triton.backend.plan import Args, Fallback, Plan, StrictFallback, Tensor, _strict, make_plan, plan_key

if TYPE_CHECKING:
    from rs2triton.backend.protocols import Folds
    from rs2triton.backend.tree import Tree

__all__ = ["Backend", "StrictFallback", "register"]
from rs2triton.backend.report import Report
from rs2triton.runtime.mapping_rules import Entry
from rs2triton.runtime.torch_mapping import TABLE
from rs2triton.runtime.values import _torch

log = logging.getLogger("rs2triton.backend")

_CURRENT: dict[str, Backend] = {}  # backend name -> the backend it stands for now


def _signature(schema: str) -> inspect.Signature:
    """Python's signature of a torch.library schema (names, defaults, keyword-only)."""
    parsed = _torch()._C.parse_schema(schema)
    params = []
    for a in parsed.arguments:
        kind = inspect.Parameter.KEYWORD_ONLY if a.kwarg_only else inspect.Parameter.POSITIONAL_OR_KEYWORD
        default = a.default_value if a.has_default_value() else inspect.Parameter.empty
        params.append(inspect.Parameter(a.name, kind, default=default))
    return inspect.Signature(params)


def _graph_breaks() -> Counter[str]:
    """Dynamo's count of graph breaks by reason, in this process (none where it is not imported)."""
    utils = sys.modules.get("torch._dynamo.utils")
    return Counter(utils.counters["graph_break"]) if utils is not None else Counter()


class Backend:
    """The teenygrad backend over one kernel tree (see :func:`rs2triton.torch_backend`)."""

    def __init__(self, tree: Tree, *, name: str = "teenygrad", strict: bool = False,
                 table: tuple[Entry, ...] = TABLE) -> None:
        from rs2triton.backend.aten import aten_index
        from rs2triton.backend.functional import Functional

        self.tree = tree
        self.name = name
        self.strict = strict
        self.table = table
        self._report = Report()
        self._plans: dict[Hashable, Plan | str] = {}
        self._signatures = {e.name: _signature(e.schema) for e in table}
        self._aten = aten_index(table)
        self._breaks = _graph_breaks()  # (Dynamo's count when the report started)
        self._wrappers: weakref.WeakSet[Folds] = weakref.WeakSet()  # the graphs' wrappers (backend/wrapper.py): their calls
        # are counted in the report when it is read
        self._graphs = 0
        self.functional = Functional(self)

    # ------------------------------------------------------------------ torch.compile's entry point

    def __call__(self, gm: Any, example_inputs: Sequence[Tensor] | None = None, *, mode: str | None = None,
                 options: dict[str, Any] | None = None) -> Callable[..., Any]:
        """torch.compile's call: ``mode`` and ``options`` (``torch.compile(..., mode=...)``) are
        accepted; ``mode="reduce-overhead"`` records each graph's wrapper in CUDA graphs
        (``backend/cudagraphs.py``), the others change nothing."""
        return self.compile(gm, example_inputs, mode=mode)

    def __repr__(self) -> str:
        return (f"<rs2triton teenygrad backend {self.name!r}: the ops of "
                f"{', '.join(map(str, self.tree.roots))}{', strict' if self.strict else ''}>")

    def report(self) -> Report:
        """What ran so far: per torch operation, calls per teenygrad op (forward, backward) and fallbacks."""
        for w in list(self._wrappers):
            w.fold()
        report = self._report.copy()
        now = _graph_breaks()
        report.graph_breaks = Counter({reason.split("\n")[0]: n - self._breaks.get(reason, 0) for reason, n in now.items()
                                       if n > self._breaks.get(reason, 0)})
        return report

    def reset_report(self) -> None:
        for w in list(self._wrappers):
            w.fold()
        self._report.clear()
        self._breaks = _graph_breaks()

    def compile(self, gm: Any, example_inputs: Sequence[Tensor] | None = None, *,
                mode: str | None = None) -> Callable[..., Any]:
        """Dynamo's graph through AOTAutograd: its forward and backward ATen graphs rewritten to
        run the rows' ops (``backend/aten.py``); with ``mode="reduce-overhead"``, recorded in
        CUDA graphs where torch's own rules allow (``backend/cudagraphs.py``)."""
        from torch._functorch.aot_autograd import aot_module_simplified, make_boxed_func

        from rs2triton.backend.aten import compile_graph
        from rs2triton.backend.cudagraphs import MODE, CudaGraphs
        from rs2triton.backend.cudagraphs import compilers as cuda_graph_compilers
        from rs2triton.backend.own_ops import rewrite

        self._graphs += 1
        graph_id = self._graphs
        rewrite(gm)

        def make(g: Any, direction: str) -> Callable[[list[Any]], Any]:
            boxed: Callable[[list[Any]], Any] = make_boxed_func(compile_graph(self, g, direction, graph_id))
            return boxed

        compilers: dict[str, Callable[..., Any]]
        if mode == MODE:
            compilers = cuda_graph_compilers(CudaGraphs(self._report, len(example_inputs or ())), make)
        else:
            compilers = {"fw_compiler": lambda g, inputs: make(g, "forward"),
                         "bw_compiler": lambda g, inputs: make(g, "backward")}
        compiled: Callable[..., Any] = aot_module_simplified(gm, example_inputs, decompositions=_decompositions(),
                                                             **compilers)
        return compiled

    # ------------------------------------------------------------------ one torch-level call (functional)

    def bind(self, entry: Entry, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Args:
        kwargs = {k: v for k, v in kwargs.items() if k != "_stacklevel"}
        try:
            bound = self._signatures[entry.name].bind(*args, **kwargs)
        except TypeError as e:
            raise Fallback(f"a call the mapping does not know ({e})") from e
        bound.apply_defaults()
        return dict(bound.arguments)

    def plan(self, entry: Entry, args: Args, grad: bool) -> Plan:
        key: Hashable | None
        try:
            key = (entry.name, grad, tuple((k, plan_key(v)) for k, v in args.items()))
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

    def run(self, entry: Entry, args: tuple[Any, ...], kwargs: dict[str, Any], original: Callable[..., Any],
            node: str) -> Any:
        torch = _torch()
        try:
            bound = self.bind(entry, args, kwargs)
            tensors = [t for v in bound.values() for t in (v if isinstance(v, (list, tuple)) else [v])
                       if isinstance(t, torch.Tensor)]  # (a list's too: cat's)
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


class _LazyFunction:
    """The autograd.Function of a planned node, made when first used (torch is imported then)."""

    fn: Any = None

    def apply(self, *args: Any) -> Any:
        if self.fn is None:
            self.fn = _make_function()
        return self.fn.apply(*args)


def _make_function() -> type[Any]:
    torch = _torch()

    # (torch is Any to mypy, follow_imports = skip: a base it cannot resolve, name-defined, and under
    # --strict a subclass of Any, misc; unused-ignore: the project's config does not check the latter yet)
    class NodeFunction(torch.autograd.Function):  # type: ignore[name-defined, misc, unused-ignore]
        """One node run on a teenygrad op: its backward is the op's own backward kernels."""

        @staticmethod
        def forward(ctx: Any, plan: Plan, report: Report, *tensors: Tensor) -> Tensor:
            out, (inputs, params, raw) = plan.forward(list(tensors))
            ctx.plan, ctx.report, ctx.n_inputs = plan, report, len(inputs)
            ctx.save_for_backward(*inputs, *params, raw)
            return out

        @staticmethod
        def backward(ctx: Any, grad_output: Tensor) -> tuple[Tensor | None, ...]:
            *prepared, raw = ctx.saved_tensors
            plan = ctx.plan
            saved = (tuple(prepared[:ctx.n_inputs]), tuple(prepared[ctx.n_inputs:]), raw)
            grads = plan.backward(saved, grad_output, list(ctx.needs_input_grad[2:]))
            ctx.report.record_run(plan.entry.name, plan.struct, "backward")
            return (None, None, *grads)

    return NodeFunction


_NodeFunction = _LazyFunction()


def _decompositions() -> dict[Any, Callable[..., Any]]:
    """ATen operators no row maps whose decompositions land on rows' operators (an ELU's or a
    log-sigmoid's gradient: products and exponentials), and the backward operators that take what
    the ops do not compute, made ones that do not (``aten.own_decompositions``)."""
    torch = _torch()
    from torch._decomp import get_decompositions

    from rs2triton.backend.aten import own_decompositions
    from rs2triton.backend.own_ops import decompositions

    aten = torch.ops.aten
    made: dict[Any, Callable[..., Any]] = get_decompositions([aten.elu_backward, aten.log_sigmoid_backward])
    return made | own_decompositions() | decompositions()


_REGISTERED: set[str] = set()  # the names registered with Dynamo (the rest wait for its import)


def register(backend: Backend) -> None:
    """Make ``backend`` what ``torch.compile(..., backend=name)`` calls; a later backend of the
    same name takes its place. A name another library registered is refused. Where Dynamo is
    not imported yet, the name is registered when it is (importing it costs seconds, and
    ``torch.compile`` imports it anyway): nothing of it is imported here."""
    name = backend.name
    if "torch._dynamo" in sys.modules:
        _register_now(name)
    elif name not in _CURRENT:
        if name in _torch_names():
            raise _taken(name)
        _after_dynamo_import()
    _CURRENT[name] = backend


def _taken(name: str) -> ValueError:
    return ValueError(f"torch_backend: a torch.compile backend named {name!r} is already registered by another "
                      "library; choose another with name=...")


def _torch_names() -> set[str]:
    """The names torch's own backends register (``inductor``, ``aot_eager``...), read from the
    source of ``torch/_dynamo/backends`` (importing it is what registers them, and costs seconds)."""
    import re
    from pathlib import Path

    torch = _torch()
    names: set[str] = set()
    for f in (Path(torch.__file__).parent / "_dynamo" / "backends").glob("*.py"):
        text = f.read_text(errors="replace")
        names |= set(re.findall(r"register_(?:debug_)?backend\(\s*name=[\"'](\w+)", text))
        names |= set(re.findall(r"@register_(?:debug_)?backend\s*\n(?:@.*\n)*\s*def (\w+)", text))
    return names


def _register_now(name: str, *, everything: bool = True) -> None:
    """Registers ``name`` with Dynamo (``everything``: having Dynamo import its own backends
    first, where that is safe: not inside Dynamo's own import)."""
    if name in _REGISTERED:
        return
    from torch._dynamo.backends import registry

    if name in registry._COMPILER_FNS or name in registry._BACKENDS or name in _torch_names() or (
            everything and name in registry.list_backends(exclude_tags=())):
        raise _taken(name)

    def dispatch(gm: Any, example_inputs: Sequence[Tensor], **options: Any) -> Callable[..., Any]:
        return _CURRENT[name](gm, example_inputs, **options)

    dispatch.__name__ = f"rs2triton_{name}"
    registry.register_backend(dispatch, name=name)
    _REGISTERED.add(name)


def _register_waiting() -> None:
    import warnings

    for name in [n for n in _CURRENT if n not in _REGISTERED]:
        try:
            _register_now(name, everything=False)
        except ValueError as e:  # (found only now that Dynamo is imported: not registered)
            warnings.warn(str(e), stacklevel=2)


class _AfterDynamo:
    """A meta path finder that, once, lets ``torch._dynamo`` import as it would and then
    registers the names waiting for it."""

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        if fullname != "torch._dynamo":
            return None
        import importlib.util

        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)
        loader = getattr(spec, "loader", None)
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        execute = loader.exec_module

        def exec_module(module: ModuleType) -> None:
            execute(module)
            _register_waiting()

        loader.exec_module = exec_module
        return spec


def _after_dynamo_import() -> None:
    if not any(isinstance(f, _AfterDynamo) for f in sys.meta_path):
        sys.meta_path.insert(0, _AfterDynamo())


def entry_point(gm: Any, example_inputs: Sequence[Tensor], **options: Any) -> Callable[..., Any]:
    """The backend ``teenygrad`` as the ``torch_dynamo_backends`` entry point names it: the
    backend ``rs2triton.torch_backend(kernels=...)`` set up under that name."""
    backend = _CURRENT.get("teenygrad")
    if backend is None:
        raise RuntimeError("torch.compile(backend=\"teenygrad\"): no teenygrad kernels are set up: call "
                           "rs2triton.torch_backend(kernels=...) first (with the path of a kernel tree, as "
                           "teenygrad's kernels/teeny-kernels/src)")
    return backend(gm, example_inputs, **options)
