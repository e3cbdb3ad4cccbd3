"""Compiled optimizer steps on teenygrad's optimizer kernels (``nn/optim/``).

``torch.compile(opt.step, backend=...)`` hands the backend a graph with no backward: AOTAutograd's
functionalized ATen graph takes each parameter, its gradient and its optimizer state (and step
count) as inputs, and returns their new values (inputs it mutates: AOTAutograd copies them back).
:func:`fuse_steps` finds each parameter's update in that graph and, where a row of
``optim_rows.py`` computes it, replaces it with one launch of the row's kernel:

1. The graph's mutated inputs and the outputs that update them are AOTAutograd's own metadata
   (``fw_metadata``). Each mutated input's update depends on some inputs (followed per list
   element through ``_foreach_*`` operators, so a for-each step's lists split per parameter); the
   inputs one update reads are one *unit*: a parameter with its gradient, state and step count.
2. A unit whose inputs have a row's roles (one gradient, the row's state of the parameter's
   shape, a 0-d step count where the row has one) is evaluated, in float64, on the row's probes
   (each role one constant): the hyperparameters follow (each snapped to a float constant of the
   graph when within 1e-9). The row is then *confirmed*: the unit's outputs on random inputs must
   be the row's formula's (relative 1e-7), so an update that only looks like Adam's (amsgrad,
   maximize...) is never taken. Each assignment of the unit's mutated inputs to the row's roles
   is tried; all units are evaluated together, one run of the graph per probe.
3. A confirmed unit's outputs become its inputs themselves, updated in place by the kernel,
   launched at the end of the graph (after every other node that reads them) with the grid
   ``cdiv(n, BLOCK_SIZE)`` and the row's host scalars (from the step count, which the launch
   increments as torch's step does: confirmed to be the graph's count plus 1); the nodes only
   the update used are removed. A unit no row takes runs on torch as it is,
   its reason counted in the report under ``optimizer step``.
4. Numbers the graph is given (hyperparameters Dynamo made inputs: a scheduled lr) stand in as
   made-up values at compile time; at run time the probes read the hyperparameters for each
   set of values given (:class:`_Dynamic`, cached), confirmed again, else that call runs the
   update as the graph computes it, on torch.
"""

from __future__ import annotations

import itertools
import math
import operator
import struct
import weakref
from dataclasses import dataclass
from typing import Any

from rs2triton.backend.optim_rows import ROWS, OptimRow
from rs2triton.runtime.values import _torch

OPERATION = "optimizer step"  # the report's row
BLOCK_SIZE = 1024
_REL = 1e-7  # the confirmation's tolerance (float64 against float64; a different formula is off by far more)

_KERNELS: weakref.WeakKeyDictionary[Any, dict[str, Any]] = weakref.WeakKeyDictionary()  # backend -> {kernel name: launcher | reason}


@dataclass
class Unit:
    """One parameter's update: input indices by role, and the outputs that update each mutated one."""

    mutated: list[int]  # inputs the update mutates (each with an output)
    grads: list[int]  # float inputs of the parameter's shape it only reads
    scalars: list[int]  # 0-d inputs it mutates (a step count)
    others: list[int]  # any other input it reads
    out: dict[int, int]  # mutated input -> its output's position


@dataclass
class Match:
    row: OptimRow
    roles: dict[str, int]  # role -> input index
    hyper: dict[str, float]


def fuse_steps(backend: Any, gm: Any) -> None:
    """Rewrites ``gm`` in place (see the module); a graph without optimizer updates is left as is."""
    torch = _torch()
    context = torch._guards.TracingContext.try_get()
    meta = getattr(context, "fw_metadata", None)
    mutated = list(getattr(meta, "mutated_inp_runtime_indices", None) or ())
    if not mutated or getattr(meta, "keep_input_mutations", False):
        return
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    output = next(n for n in gm.graph.nodes if n.op == "output")
    outs = list(output.args[0])
    if len(outs) < len(mutated) or len(placeholders) != len(getattr(meta, "input_info", ())) or not all(
            isinstance(o, torch.fx.Node) and _same_kind(_val(o), _val(placeholders[i]))
            for o, i in zip(outs[:len(mutated)], mutated, strict=True)):
        return  # (inputs AOTAutograd merged or split, as aliased ones: not the graph its metadata describes)
    units = _units(gm, placeholders, outs, mutated)
    if not units:
        return
    from torch._subclasses.fake_tensor import unset_fake_temporarily

    with unset_fake_temporarily():  # (AOTAutograd calls the compiler under its fake mode: the probes are real)
        matches, reasons = _match(backend, gm, placeholders, outs, units)
    aliased = _read_after(placeholders, outs, len(mutated))
    for unit, match in [(u, m) for u, m in matches if aliased & set(u.mutated)]:
        matches.remove((unit, match))  # (its old value is an output too, as one saved for a backward: left as it is)
    if not matches and not reasons:
        return
    if backend.strict and reasons:
        from rs2triton.backend.plan import _strict

        unit, why = reasons[0]
        raise _strict(placeholders[unit.mutated[0]].name, f"{OPERATION} of a parameter", why)
    dynamic = _Dynamic(gm, placeholders, outs, matches) if any(u.others for u, _ in matches) else None
    graph = gm.graph
    new_outs = list(outs)
    for unit, _ in matches:
        for i, k in unit.out.items():  # (the step count too: the launch adds its 1, as torch's step)
            new_outs[k] = placeholders[i]
    dead = {n for n in graph.nodes if not n.users and n.op == "call_function"}
    output.args = (tuple(new_outs) if isinstance(output.args[0], tuple) else new_outs, *output.args[1:])
    for node in reversed(list(graph.nodes)):  # (what only the updates used: not what was unused before)
        if node.op == "call_function" and not node.users and node not in dead and not node.is_impure():
            graph.erase_node(node)
    with graph.inserting_before(output):
        for unit, match in matches:
            launch = _Launch(backend, match, _val(placeholders[match.roles["param"]]), unit, dynamic)
            args = [placeholders[match.roles[r]] for r in ("param", "grad", *match.row.state)]
            if match.row.step:
                args.append(placeholders[match.roles["step"]])
            graph.call_function(launch, (*args, *(placeholders[j] for j in unit.others)))
        for _, reason in reasons:
            graph.call_function(_Fallback(backend, reason), ())
    graph.lint()
    gm.recompile()


def _read_after(placeholders: list[Any], outs: list[Any], mutated: int) -> set[int]:
    """The inputs (by index) the graph returns, or a view of, beyond the new values of those it
    mutates: an update in place at the graph's end would change them."""
    torch = _torch()
    index = {p: i for i, p in enumerate(placeholders)}
    found = set()
    for o in outs[mutated:]:
        while isinstance(o, torch.fx.Node) and o not in index and isinstance(o.target, torch._ops.OpOverload) and any(
                r.alias_info is not None for r in o.target._schema.returns) and o.args:
            o = o.args[0]  # (a view: of its first argument)
        if o in index:
            found.add(index[o])
    return found


def _same_kind(a: Any, b: Any) -> bool:
    torch = _torch()
    return isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and a.shape == b.shape and a.dtype == b.dtype


def _val(node: Any) -> Any:
    return node.meta.get("val") if hasattr(node, "meta") else None


# ---------------------------------------------------------------------- the units


def _units(gm: Any, placeholders: list[Any], outs: list[Any], mutated: list[int]) -> list[Unit]:
    """Each mutated input's update's inputs, joined where they share one: the units that look like
    a parameter's update (a float tensor mutated, one of its shape read)."""
    torch = _torch()
    deps = _dependencies(gm, placeholders)
    parent = list(range(len(placeholders)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    vals = [_val(p) for p in placeholders]
    shared = {j for j, v in enumerate(vals) if j not in mutated and (not isinstance(v, torch.Tensor) or v.dim() == 0)}
    reads: dict[int, frozenset[int]] = {}
    for k, i in enumerate(mutated):
        d = deps.get(outs[k])
        if not isinstance(d, frozenset):
            return []
        reads[i] = d
        for j in (d | {i}) - shared:  # (a number every update reads, as lr made an input, joins none)
            parent[find(j)] = find(i)
    groups: dict[int, list[int]] = {}
    for k, i in enumerate(mutated):
        groups.setdefault(find(i), []).append(k)
    units = []
    for ks in groups.values():
        root = find(mutated[ks[0]])
        members = [j for j in range(len(placeholders)) if find(j) == root and j not in shared]
        if not all(isinstance(vals[j], torch.Tensor) for j in members):
            continue
        big = [j for j in members if vals[j].dim() > 0]
        shapes = {tuple(vals[j].shape) for j in big}
        out = {mutated[k]: k for k in ks}
        others = sorted(frozenset[int]().union(*(reads[mutated[k]] for k in ks)) & shared)
        unit = Unit([j for j in big if j in out], [j for j in big if j not in out],
                    [j for j in members if vals[j].dim() == 0 and j in out], others, out)
        if len(shapes) == 1 and unit.mutated and vals[unit.mutated[0]].is_floating_point() and len(unit.grads) == 1:
            units.append(unit)
    return units


def _dependencies(gm: Any, placeholders: list[Any]) -> dict[Any, Any]:
    """Per node, the placeholders (by index) its value depends on: a frozenset, or for a
    ``_foreach_*`` operator's list a list of them (element j depends on element j of its lists)."""
    torch = _torch()
    index = {p: i for i, p in enumerate(placeholders)}
    deps: dict[Any, Any] = {}

    def flat(a: Any) -> frozenset[int]:
        if isinstance(a, torch.fx.Node):
            d = deps.get(a, frozenset[int]())
            return frozenset[int]().union(*d) if isinstance(d, list) else d
        if isinstance(a, (list, tuple)):
            return frozenset[int]().union(*(flat(x) for x in a))
        return frozenset[int]()

    def element(a: Any, j: int) -> frozenset[int]:
        if isinstance(a, (list, tuple)):
            return flat(a[j]) if j < len(a) else frozenset[int]()
        if isinstance(a, torch.fx.Node) and isinstance(deps.get(a), list):
            d = deps[a]
            return d[j] if j < len(d) else frozenset[int]()
        return flat(a)

    for node in gm.graph.nodes:
        if node.op == "placeholder":
            deps[node] = frozenset({index[node]})
        elif node.op != "call_function":
            deps[node] = frozenset[int]()
        elif node.target is operator.getitem and isinstance(deps.get(node.args[0]), list):
            d = deps[node.args[0]]
            deps[node] = d[node.args[1]] if isinstance(node.args[1], int) and node.args[1] < len(d) else flat(node.args)
        elif isinstance(_val(node), (list, tuple)) and str(getattr(node.target, "__name__", "")).startswith("_foreach_"):
            args = [*node.args, *node.kwargs.values()]
            deps[node] = [frozenset[int]().union(*(element(a, j) for a in args)) for j in range(len(_val(node)))]
        else:
            deps[node] = flat([*node.args, *node.kwargs.values()])
    return deps


# ---------------------------------------------------------------------- the match


def _match(backend: Any, gm: Any, placeholders: list[Any], outs: list[Any],
           units: list[Unit]) -> tuple[list[tuple[Unit, Match]], list[tuple[Unit, str]]]:
    vals = [_val(p) for p in placeholders]
    consts = _constants(gm)
    matched: dict[int, Match] = {}
    tried: dict[int, list[str]] = {id(u): [] for u in units}
    for row in ROWS:
        fits = [u for u in units if id(u) not in matched and len(u.mutated) == 1 + len(row.state)
                and len(u.scalars) == int(row.step)]
        if not fits:
            continue
        for perm in itertools.permutations(range(1 + len(row.state))):
            todo = [u for u in fits if id(u) not in matched]
            if not todo:
                break
            roles = {id(u): _roles(u, row, perm) for u in todo}
            try:
                found = _probe(gm, vals, outs, row, todo, roles, consts, _stand_ins(todo))
            except Exception as e:  # noqa: BLE001  (a graph that does not evaluate in float64: not this row)
                for u in todo:
                    tried[id(u)].append(f"{row.kernel}: the update does not evaluate in float64 ({type(e).__name__})")
                break
            for u in todo:
                if id(u) in found:
                    matched[id(u)] = Match(row, roles[id(u)], found[id(u)])
    result: list[tuple[Unit, Match]] = []
    reasons: list[tuple[Unit, str]] = []
    for u in units:
        m = matched.get(id(u))
        why = _refuse(backend, m, vals) if m is not None else None
        if m is not None and why is None:
            result.append((u, m))
            continue
        if why is None:
            why = _unmatched(u, tried[id(u)])
        reasons.append((u, why))
    return result, reasons


def _unmatched(u: Unit, tried: list[str]) -> str:
    """Why no row takes the unit, as the report words it (its counts, not its shape: one line per kind)."""
    if tried:
        return "; ".join(sorted(set(tried)))
    fits = [r.kernel for r in ROWS if len(u.mutated) == 1 + len(r.state) and len(u.scalars) == int(r.step)
            and not u.others]
    if fits:
        return (f"the update has the inputs of {' and '.join(fits)} but computes another formula on random inputs "
                "(an option the kernels do not implement, as maximize=True)")
    return (f"no optimizer kernel keeps its state ({len(u.mutated) - 1} tensor(s) of the parameter's shape, "
            f"{len(u.scalars)} step count(s)): an option the kernels do not implement, as amsgrad=True")


def _roles(u: Unit, row: OptimRow, perm: tuple[int, ...]) -> dict[str, int]:
    names = ("param", *row.state)
    roles = {names[p]: u.mutated[k] for k, p in enumerate(perm)}
    roles["grad"] = u.grads[0]
    if row.step:
        roles["step"] = u.scalars[0]
    return roles


def _constants(gm: Any) -> list[float]:
    out: set[float] = set()
    for node in gm.graph.nodes:
        for a in [*node.args, *node.kwargs.values()]:
            for x in a if isinstance(a, (list, tuple)) else [a]:
                if isinstance(x, float) and math.isfinite(x):
                    out |= {x, 1 - x}
    return sorted(out)


def _snap(value: float, consts: list[float]) -> float:
    near = min(consts, key=lambda c: abs(c - value), default=value)
    return near if abs(near - value) <= 1e-9 * max(abs(near), abs(value)) else value


def _evaluate(gm: Any, vals: list[Any], given: dict[int, Any]) -> list[Any]:
    torch = _torch()
    args = [given[i] if i in given else torch.zeros(v.shape, dtype=torch.float64 if v.is_floating_point() else v.dtype,
                                                      device=v.device) if isinstance(v, torch.Tensor) else v
            for i, v in enumerate(vals)]
    with torch.no_grad():
        result = torch.fx.Interpreter(gm).run(*args)
    return list(result)


def _stand_ins(units: list[Unit]) -> dict[int, float]:
    """Values for the numbers the graph is given (hyperparameters Dynamo made inputs), at compile
    time: the row is confirmed with these, and again with each set of values the step is given."""
    return {j: 0.0125 * (1 + k) for k, j in enumerate(sorted({j for u in units for j in u.others}))}


def _probe(gm: Any, vals: list[Any], outs: list[Any], row: OptimRow, units: list[Unit],
           roles: dict[int, dict[str, int]], consts: list[float], fixed: dict[int, float],
           guess: dict[int, dict[str, float]] | None = None) -> dict[int, dict[str, float]]:
    """The units (by id) that the row computes with these roles (``fixed``: the values of the
    numbers the graph is given): their hyperparameters, read by the probes (or as ``guess``
    has them: then only confirmed)."""
    torch = _torch()
    hyper: dict[int, dict[str, float]] = {id(u): dict(guess[id(u)]) if guess else {} for u in units}
    consts = sorted({*consts, *fixed.values()})
    t: dict[int, float] = {}
    step_before = 3.0

    def full(i: int, value: float) -> Any:
        return torch.full(vals[i].shape, value, dtype=torch.float64, device=vals[i].device)

    def outputs(u: Unit, result: list[Any]) -> dict[str, Any]:
        by_input = {i: result[k] for i, k in u.out.items()}
        return {r: by_input[i] for r, i in roles[id(u)].items() if i in by_input}

    given: dict[int, Any] = {}
    shared = {j: torch.tensor(v, dtype=vals[j].dtype, device=vals[j].device) if isinstance(vals[j], torch.Tensor)
              else v for j, v in fixed.items()}
    for probe in row.probes if guess is None else ():
        given = dict(shared)
        for u in units:
            for role, i in roles[id(u)].items():
                given[i] = full(i, step_before if role == "step" else probe.inputs[role])
        result = _evaluate(gm, vals, given)
        for u in units:
            o = {r: v.flatten()[0] for r, v in outputs(u, result).items()}
            t[id(u)] = float(o["step"]) if row.step else 0.0
            for name, read in probe.read.items():
                try:
                    value = read(o, hyper[id(u)], t[id(u)])
                except (ArithmeticError, ValueError):  # (a value no such update has: not this row)
                    value = math.nan
                hyper[id(u)][name] = _snap(value, consts)
    generator = torch.Generator(device="cpu").manual_seed(0)
    given = dict(shared)
    inputs: dict[int, dict[str, Any]] = {}
    for u in units:
        inputs[id(u)] = {}
        for role, i in roles[id(u)].items():
            if role == "step":
                x = torch.full((), 7.0, dtype=torch.float64)
            else:
                x = torch.randn(vals[i].shape, generator=generator, dtype=torch.float64)
                x = x.abs() if role == "exp_avg_sq" else x  # (a second moment is never negative)
            given[i] = inputs[id(u)][role] = x.to(vals[i].device)
    result = _evaluate(gm, vals, given)
    found = {}
    for u in units:
        h = {k: v for k, v in hyper[id(u)].items() if not k.startswith("_")}
        if not all(math.isfinite(v) for v in h.values()):
            continue
        o = outputs(u, result)
        step = float(o["step"]) if row.step else 0.0
        if row.step and step != float(inputs[id(u)]["step"]) + 1:  # (torch counts steps by 1: the launch does)
            continue
        try:
            want = row.update(inputs[id(u)], h, step)
        except (ArithmeticError, ValueError):
            continue
        if all(_close(o[r], w) for r, w in want.items()):
            found[id(u)] = h
    return found


def _close(got: Any, want: Any) -> bool:
    torch = _torch()
    if not isinstance(got, torch.Tensor) or got.shape != want.shape:
        return False
    got, want = got.double(), want.double()
    return bool(((got - want).abs() <= _REL * (got.abs() + want.abs()) + 1e-12).all())


def _refuse(backend: Any, m: Match, vals: list[Any]) -> str | None:
    """Why the matched row's kernel cannot take the unit (None: it can)."""
    torch = _torch()
    kernel = _kernel(backend, m.row)
    if isinstance(kernel, str):
        return kernel
    for role in ("param", "grad", *m.row.state):
        v = vals[m.roles[role]]
        if v.dtype != torch.float32:
            return f"{m.row.kernel} takes float32 tensors; the {role} is {v.dtype}"
        if not v.is_contiguous():
            return f"{m.row.kernel} takes contiguous tensors; the {role} is not"
        if v.numel() > 2**31 - 1:
            return f"{m.row.kernel} counts elements in i32; the {role} has {v.numel()}"
    return None


def _kernel(backend: Any, row: OptimRow) -> Any:
    """The row's kernel in the backend's tree (its launcher, configured, and where it is from), or why not."""
    cache = _KERNELS.setdefault(backend, {})
    if row.kernel not in cache:
        cache[row.kernel] = _find_kernel(backend.tree, row)
    return cache[row.kernel]


def _find_kernel(tree: Any, row: OptimRow) -> Any:
    from rs2triton.backend.tree import kernel_struct

    # (the tree indexes every #[kernel] fn by its struct, whether or not its file has host logic)
    for value, f in tree.kernels.alternatives(kernel_struct(row.kernel)):
        expected = [*row.pointers, "n_elements", *(name for name, _ in row.scalars)]
        if list(value.params) != expected or list(value.consts) != ["BLOCK_SIZE"]:
            return f"the tree's {row.kernel} ({f}) takes ({', '.join(value.params)}), not ({', '.join(expected)})"
        return value(BLOCK_SIZE=BLOCK_SIZE), f"{row.kernel} of {f}"
    return f"the kernel tree has no {row.kernel} (a #[kernel] fn of that name)"


# ---------------------------------------------------------------------- at run time


class _Launch:
    """One parameter's update: the row's kernel, launched in place (what the graph calls)."""

    def __init__(self, backend: Any, match: Match, param: Any, unit: Unit, dynamic: _Dynamic | None) -> None:
        self.kernel, note = _kernel(backend, match.row)
        self.notes = (note,)
        self.row = match.row
        self.hyper = match.hyper
        self.n = param.numel()
        self.grid = (max(1, -(-self.n // BLOCK_SIZE)),)
        self.report = backend._report
        self.tensors = 2 + len(match.row.state)
        self.strict = backend.strict
        self.unit, self.dynamic = unit, dynamic if unit.others else None
        self.scalars = None if match.row.step or self.dynamic else [f(match.hyper, 0.0) for _, f in match.row.scalars]
        self.__name__ = self.__qualname__ = f"teenygrad_{match.row.kernel}"

    def __call__(self, *args: Any) -> None:
        tensors = args[:self.tensors]
        scalars = self.scalars
        if scalars is None:
            t = 0.0
            if self.row.step:  # (torch's step: the count, a tensor, is incremented, then read as a float)
                step = args[self.tensors]
                step.add_(1)
                t = float(step)
            hyper = self.hyper
            if self.dynamic is not None:
                found = self.dynamic.hyper(self.unit, tuple(float(x) for x in args[self.tensors + self.row.step:]))
                if found is None:
                    return self.dynamic.on_torch(self, args)
                hyper = found
            scalars = [f(hyper, t) for _, f in self.row.scalars]
        self.kernel[self.grid](*tensors, self.n, *scalars)
        self.report.record_run(OPERATION, self.row.kernel, "forward", self.notes)

    def __repr__(self) -> str:
        return f"<{self.row.kernel} launch, {self.n} elements>"


_NOT_CONFIRMED = "the update given these hyperparameters is not the kernel's formula"


def _f32(x: float) -> float:
    return float(struct.unpack("f", struct.pack("f", x))[0]) if math.isfinite(x) and abs(x) < 3.4e38 else x


class _Dynamic:
    """The hyperparameters of a graph's updates that read numbers the graph is given (Dynamo made
    them inputs), read again by the probes (on a copy of the graph as it was) for each set of
    values the step is given, and confirmed; an update not confirmed for some values runs, that
    time, as the graph computed it, on torch."""

    def __init__(self, gm: Any, placeholders: list[Any], outs: list[Any], matches: list[tuple[Unit, Match]]) -> None:
        torch = _torch()
        graph = torch.fx.Graph()
        out = graph.graph_copy(gm.graph, {})
        graph.output(out)
        self.gm = torch.fx.GraphModule(gm, graph)
        self.vals = [_val(p) for p in placeholders]
        self.outs = outs
        self.consts = _constants(gm)
        self.matches = {id(u): (u, m) for u, m in matches if u.others}
        self.seen: dict[tuple[float, ...], dict[int, dict[str, float]]] = {}
        # unit -> (its hyperparameters as last read, those that are a number given: its position,
        # and whether the graph rounds it to float32 first, as Dynamo's lr input is)
        self.links: dict[int, tuple[dict[str, float], dict[str, tuple[int, bool]]]] = {}

    def hyper(self, unit: Unit, values: tuple[float, ...]) -> dict[str, float] | None:
        key = (*unit.others, *values)
        found = self.seen.get(key)
        if found is None:
            if len(self.seen) >= 256:  # (a schedule gives a new lr each step: the last ones are kept)
                self.seen.clear()
            self.seen[key] = found = self._read(unit, values)
        return found.get(id(unit))

    def _read(self, unit: Unit, values: tuple[float, ...]) -> dict[int, dict[str, float]]:
        """The hyperparameters of the updates given these numbers: where the last ones read were
        the numbers given (an lr), the new numbers in their place, confirmed (one run of the
        graph); else (or not confirmed) read by the probes again."""
        fixed = dict(zip(unit.others, values, strict=True))
        same = [(u, m) for u, m in self.matches.values() if u.others == unit.others]
        found: dict[int, dict[str, float]] = {}
        for row in {m.row.kernel: m.row for _, m in same}.values():
            units = [u for u, m in same if m.row is row]
            roles = {id(u): self.matches[id(u)][1].roles for u in units}
            guess = {id(u): {**self.links[id(u)][0], **{h: _f32(values[k]) if rounded else values[k]
                                                        for h, (k, rounded) in self.links[id(u)][1].items()}}
                     for u in units if id(u) in self.links}
            try:
                if len(guess) == len(units):
                    found |= _probe(self.gm, self.vals, self.outs, row, units, roles, self.consts, fixed, guess)
                rest = [u for u in units if id(u) not in found]
                if rest:
                    found |= _probe(self.gm, self.vals, self.outs, row, rest, roles, self.consts, fixed)
            except Exception:  # noqa: BLE001  (not confirmed: on torch)
                continue
            for u in units:
                if id(u) in found:
                    h = found[id(u)]
                    self.links[id(u)] = (h, {n: (k, h[n] != x) for n in h for k, x in enumerate(values)
                                             if h[n] in (x, _f32(x))})
        return found

    def on_torch(self, launch: _Launch, args: tuple[Any, ...]) -> None:
        """The unit's update as the graph computes it (its other updates given zeros), written back."""
        if launch.strict:
            from rs2triton.backend.plan import _strict

            raise _strict(launch.__name__, OPERATION, _NOT_CONFIRMED)
        torch = _torch()
        unit, row = launch.unit, launch.row
        roles = self.matches[id(unit)][1].roles
        names = ("param", "grad", *row.state)
        given = {roles[r]: args[k] for k, r in enumerate(names)}
        if row.step:
            given[roles["step"]] = args[launch.tensors] - 1  # (the count before this step's)
        given |= dict(zip(unit.others, args[launch.tensors + row.step:], strict=True))
        args_all = [given[i] if i in given else torch.zeros(v.shape, dtype=v.dtype, device=v.device)
                    if isinstance(v, torch.Tensor) else 0.0 for i, v in enumerate(self.vals)]
        with torch.no_grad():
            result = torch.fx.Interpreter(self.gm).run(*args_all)
            for r in ("param", *row.state):
                given[roles[r]].copy_(result[unit.out[roles[r]]])
            if row.step:
                args[launch.tensors].copy_(result[unit.out[roles["step"]]])
        launch.report.record_fallback(OPERATION, _NOT_CONFIRMED)


class _Fallback:
    """A parameter's update that runs on torch: counts it, with why, in the report."""

    def __init__(self, backend: Any, reason: str) -> None:
        self.report = backend._report
        self.reason = reason
        self.__name__ = self.__qualname__ = "teenygrad_optimizer_step_on_torch"

    def __call__(self) -> None:
        self.report.record_fallback(OPERATION, self.reason)
