"""``RuntimeOp.apply``: one op run as teenygrad's executor runs a graph node, with autograd.

The forward mirrors ``LoadedModel::forward`` (``drivers/teeny-cuda/src/model/mod.rs``): the
output shape through ``compute_concrete_output_shape``; the parameters checked against
``param_shapes``; an output padded to ``forward_output_row_stride`` (zeroed) where that is
wider than ``forward_output_row_elems``, its rows copied back after the launches; then
``n_launches`` launches of ``pack_args``/``grid`` (``pack_args_for_launch``/``grid_for_launch``
when there are several). The backward mirrors ``backward_multi``: zeroed gradient buffers for
every input and parameter, the incoming gradient padded to ``backward_grad_output_row_stride``,
``n_backward_launches`` launches of ``pack_backward_args``/``backward_grid``.

Everything is checked before anything launches: the input count, devices, parameter shapes,
and each visited argument against the kernel's parameter (a ``visit_f32`` where the kernel
takes an ``i32`` is teenygrad's bug, reported as such rather than launched).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from rs2triton.runtime.values import _torch, rust_dtype_of

if TYPE_CHECKING:  # (torch is not followed by mypy: its types are Any to it)
    import torch
    from torch import Tensor

    from rs2triton.runtime.protocols import ConfiguredKernel, Grid, Op, Shape, Shapes, Visited

P = ParamSpec("P")
R = TypeVar("R")

_INT_KINDS = {"i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"}


class _Output:
    """Stands for the output buffer in a dry run of ``pack_args`` (to learn its dtype)."""

    def __init__(self, offset: int = 0) -> None:
        self.offset = offset

    def offset_by(self, count: int) -> _Output:
        return _Output(self.offset + count)


def _name(op: object) -> str:
    name: str = getattr(op, "RUST_NAME", type(op).__name__)
    return name


def _shape(t: Tensor) -> tuple[int, ...]:
    return tuple(int(s) for s in t.shape)


def _tensor_check(op: Op, what: str, t: object) -> None:
    torch = _torch()
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{_name(op)}.apply: {what} must be a torch.Tensor, got {type(t).__name__}")


@contextmanager
def host_code(op: Op, input_shapes: Shapes, output_shape: Shape | None = None) -> Iterator[None]:
    """Runs teenygrad's host logic of ``op``: where it panics, as its Rust would (an index out of
    bounds: the input has fewer dimensions than the op reads; a division by zero; an overflow),
    a ``ValueError`` naming the op and the shapes it was given."""
    from rs2triton.runtime.host import Panic

    try:
        yield
    except (Panic, IndexError, KeyError, ArithmeticError) as e:
        given = f"input shapes {[list(s) for s in input_shapes]}"
        if output_shape is not None:
            given += f" and output shape {list(output_shape)}"
        what = f"Rust's panic: {e}" if isinstance(e, Panic) else f"{type(e).__name__}: {e}; Rust would panic here too"
        raise ValueError(f"{_name(op)}.apply: teenygrad's host code for {_name(op)} fails on {given} "
                         f"({what}): the shapes do not fit the op") from e


def _check_out_shape(op: Op, out_shape: Shape | None) -> None:
    if out_shape is None:
        return
    if isinstance(out_shape, (str, bytes)) or not hasattr(out_shape, "__iter__") or not all(
            hasattr(s, "__index__") and not isinstance(s, bool) for s in out_shape):  # (ints, SymInts, numpy ints)
        raise TypeError(f"{_name(op)}.apply: out_shape must be a sequence of ints (out_shape=(40,)), "
                        f"got {out_shape!r}")
    if any(int(s) < 0 for s in out_shape):
        raise ValueError(f"{_name(op)}.apply: out_shape has a negative size: {list(out_shape)}")


def resolve_output_shape(op: Op, input_shapes: Shapes, out: Tensor | None, out_shape: Shape | None) -> list[int]:
    name = _name(op)
    _check_out_shape(op, out_shape)
    overridden = not getattr(type(op).compute_concrete_output_shape, "trait_default", False)
    if out is not None:
        resolved = _shape(out)
        if out_shape is not None and tuple(out_shape) != resolved:
            raise ValueError(f"{name}.apply: out has shape {list(resolved)} but out_shape is {list(out_shape)}")
    elif out_shape is not None:
        resolved = tuple(int(s) for s in out_shape)
    elif overridden:
        resolved = ()
    else:
        raise ValueError(f"{name}.apply: give the output shape (out_shape=...) or the output (out=...): teenygrad's "
                         f"{name} does not compute it (it does not override compute_concrete_output_shape; "
                         "its graph decides), and rs2triton never guesses one")
    shape = [int(s) for s in op.compute_concrete_output_shape(input_shapes, list(resolved))]
    if out is None and out_shape is not None and overridden and tuple(shape) != tuple(resolved):
        raise ValueError(f"{name}.apply: out_shape is {list(resolved)}, but {name} computes the output shape {shape} "
                         "(its compute_concrete_output_shape)")
    if out is not None and tuple(shape) != _shape(out):
        raise ValueError(f"{name}.apply: out has shape {list(_shape(out))}, but {name} computes the output "
                         f"shape {shape}")
    return shape


def check_mapped(op: Op, input_shapes: Shapes, output_shape: Shape) -> None:
    """What the torch mapping's rows know of the op (``runtime/torch_mapping.py``): an elementwise
    op keeps its input's shape; a kernel that reads a row in one block needs a block that holds it."""
    from rs2triton.runtime.torch_mapping import apply_problem

    roles = getattr(getattr(op, "launcher", None), "roles", None)
    problem = apply_problem(_name(op), dict(getattr(op, "consts", {}) or {}), input_shapes, output_shape, roles)
    if problem:
        raise ValueError(f"{_name(op)}.apply: {problem}")


def check_params(op: Op, params: Sequence[Tensor], input_shapes: Shapes, output_shape: Shape) -> None:
    name = _name(op)
    want = [list(s) for s in op.param_shapes(input_shapes, output_shape)]
    if len(params) != len(want):
        raise TypeError(f"{name}.apply: takes {len(want)} parameter tensor{'s' if len(want) != 1 else ''} "
                        f"(param_shapes: {want}), got {len(params)}")
    for p, shape, label in zip(params, want, param_labels(op, len(want)), strict=True):
        _tensor_check(op, f"parameter `{label}`", p)
        if list(_shape(p)) != shape:
            raise ValueError(f"{name}.apply: parameter `{label}` has shape {list(_shape(p))}, but param_shapes "
                             f"asks for {shape} (for input shapes {[list(s) for s in input_shapes]})")


def _kernel_dtype(kernel: ConfiguredKernel, args: Iterable[object], index: int, fallback: torch.dtype) -> torch.dtype:
    """The dtype of kernel parameter ``index`` from the other visited tensors that share its dtype
    parameter, or from its concrete element type."""
    torch = _torch()
    launcher = kernel.launcher
    p = launcher._params[index] if index < len(launcher._params) else None
    if p is None or not p.pointer:
        return fallback
    if not p.dtype_param:
        from rs2triton.rust.types import TORCH_DTYPES

        return getattr(torch, TORCH_DTYPES.get(p.elem, ""), fallback)
    for q, v in zip(launcher._params, args, strict=False):
        if q.pointer and q.elem == p.elem and isinstance(v, torch.Tensor):
            return v.dtype
    return fallback


def _check_visited(op: Op, kernel: ConfiguredKernel, args: Visited, method: str) -> None:
    """Each visited argument against the kernel parameter it lands on."""
    launcher = kernel.launcher
    name = _name(op)
    if len(args) != len(launcher._params):
        raise TypeError(f"{name}.{method} visits {len(args)} arguments, but kernel {launcher.name} takes "
                        f"{len(launcher._params)} ({', '.join(p.name for p in launcher._params)})")
    for kind, p in zip(args.kinds, launcher._params, strict=True):
        if p.pointer != (kind == "ptr"):
            raise TypeError(f"{name}.{method} visits a{'' if kind == 'ptr' else 'n'} {kind} for parameter "
                            f"`{p.rust}` of kernel {launcher.name}")
        if kind != "ptr" and not p.dtype_param and kind != p.elem:
            same_class = (kind in _INT_KINDS) == (p.elem in _INT_KINDS)
            if not same_class or kind not in _INT_KINDS | {"f32", "f64"}:
                raise TypeError(f"{name}.{method} visits an {kind} (visit_{kind}) for parameter `{p.rust}` of "
                                f"kernel {launcher.name}")


def _check_windows(op: Op, kernel: ConfiguredKernel, args: Visited, method: str, labels: dict[int, str]) -> None:
    """Each tensor a launch hands to a pointer the kernel addresses as a flat buffer under a
    bound (``offs < n_elements``: :func:`mask_bounds_of`) holds that
    many elements: a view too small, or an ``out_shape`` that does not fit the inputs, would have
    the kernel read or write past it (into the rest of its storage, or another tensor)."""
    bounds = mask_bounds_of(kernel)
    if not bounds:
        return
    torch = _torch()
    from rs2triton.rust.types import SCALARS, Class

    params = kernel.launcher._params
    index = {p.name: i for i, p in enumerate(params)}
    for p, v in zip(params, args, strict=False):
        if p.name not in bounds or not isinstance(v, torch.Tensor):
            continue
        for n_name in sorted(bounds[p.name]):
            i = index.get(n_name)
            n = args[i] if i is not None and i < len(args) else None
            count = SCALARS.get(params[i].elem) if i is not None else None
            if count is not None and i is not None and count.cls is Class.INT and v.numel() > count.max:
                # (2^31 elements or more for an i32 count: Rust's `as i32` of the count wrapped, so the
                # kernel would address a fraction of the tensor, or a negative count)
                what = labels.get(id(v), f"the tensor {method} hands to `{p.name}`")
                raise ValueError(f"{_name(op)}.apply: {what} holds {v.numel()} elements, more than kernel "
                                 f"{kernel.launcher.name}'s `{params[i].rust}` can count (at most {int(count.max)}; "
                                 f"{method} gives it {n}: the count wrapped), and the kernel addresses `{p.name}` "
                                 f"under it (its mask `< {n_name}`): split the tensor, or use a kernel with a "
                                 f"wider count")
            if type(n) is int and n > v.numel():
                what = labels.get(id(v), f"the tensor {method} hands to `{p.name}`")
                raise ValueError(f"{_name(op)}.apply: kernel {kernel.launcher.name} addresses {n} elements through "
                                 f"`{p.name}` (its mask `< {n_name}`, {n_name} = {n} from {method}), but {what} holds "
                                 f"{v.numel()}: the shapes do not fit the op")


def mask_bounds_of(kernel: ConfiguredKernel) -> dict[str, frozenset[str]]:
    """The kernel's pointer parameters addressed as flat buffers under a bound, each with the
    count parameters of its bounds: the fact its launcher records (``facts={"bounds": ...}``)."""
    bounds: dict[str, frozenset[str]] = getattr(kernel.launcher, "bounds", {})
    return bounds


def _check_interpreter_dtypes(op: Op, kernel: ConfiguredKernel, args: Visited, method: str,
                              labels: dict[int, str]) -> None:
    """On Triton's interpreter, no tensor of a dtype it computes wrongly for the kernel
    (:func:`~rs2triton.runtime.values.interpreter_dtype_problem`): refused before the launch, naming
    the op, the tensor and the kernel parameter it lands on."""
    launcher = kernel.launcher
    if not launcher.interpreted:
        return
    from rs2triton.runtime.values import interpreter_dtype_problem

    for p, v in zip(launcher._params, args, strict=False):
        dtype = getattr(v, "dtype", None) if p.pointer else None
        problem = interpreter_dtype_problem(launcher, dtype) if dtype is not None else None
        if problem is not None:
            what = labels.get(id(v), f"the tensor {method} hands to `{p.name}`")
            raise TypeError(f"{_name(op)}.apply: {what} has dtype {dtype}, and {method} hands it to `{p.rust}` of "
                            f"kernel {launcher.name}: {problem}")


def _launch(op: Op, kernel: ConfiguredKernel, args: Visited, grid: Grid, method: str, torch_op: bool = False,
            labels: dict[int, str] | None = None) -> None:
    _check_visited(op, kernel, args, method)
    _check_interpreter_dtypes(op, kernel, args, method, labels or {})
    _check_windows(op, kernel, args, method, labels or {})
    grid = tuple(int(g) for g in grid)
    if any(g == 0 for g in grid):
        return  # no program to run (an empty output: check_launch_grid refused any other)
    from rs2triton.runtime.bounds import own_elements

    with own_elements():  # (on the interpreter, no access past a view into the rest of its storage)
        (kernel.for_torch_op() if torch_op else kernel)[grid](*args)


def check_launch_grid(op: Op, grid: Grid, method: str, empty: bool) -> None:
    """The grid the op's ``method`` gave may have an axis of 0 (run no program) only where ``empty``:
    what the launch writes holds no element. teenygrad's executor hands the grid to
    ``cuLaunchKernel``, which refuses an axis of 0 (``CUDA_ERROR_INVALID_VALUE``:
    ``LoadedModel::forward`` returns that error), so where the output has elements such a grid is
    a ``ValueError``: no program would write them, and the output would be left as it was
    allocated (uninitialised memory)."""
    if empty or not any(int(g) == 0 for g in grid):
        return
    raise ValueError(f"{_name(op)}.apply: `{method}` gives the grid {list(grid)}, which runs no program, but the "
                     "output has elements for the kernel to write: teenygrad's executor refuses such a launch "
                     "(cuLaunchKernel: CUDA_ERROR_INVALID_VALUE); check the op's grid against the shapes")


def _substitute(args: Visited, output: Tensor, op: Op | None = None) -> Visited:
    out = type(args)()
    for v, kind in zip(args, args.kinds, strict=True):
        if isinstance(v, _Output):
            if v.offset > output.numel():
                raise ValueError(f"{_name(op)}.apply: pack_args addresses the output from element {v.offset}, but "
                                 f"it holds {output.numel()} (output shape {list(output.shape)}): the shapes do "
                                 "not fit the op")
            v = output.reshape(-1)[v.offset:] if v.offset else output
        out._visit(kind, v)
    return out


def output_dtype(op: Op, inputs: Sequence[Tensor], params: Sequence[Tensor], output_shape: list[int],
                 launches: Iterable[tuple[Visited, Grid]] | None = None) -> torch.dtype:
    """The dtype of the op's output: the first launch's arguments (``launches``, else a dry run of
    ``pack_args``), with a stand-in for the output, tell which kernel parameter it lands on
    (``*D``: the inputs' dtype; ``*i64``: int64)."""
    torch = _torch()
    if launches is None:
        launches = forward_launches(op, inputs, params, output_shape, int(op.forward_output_row_stride(output_shape)))
    first = next(iter(launches), None)
    probe: Iterable[object] = first[0] if first is not None else []
    index = next((i for i, v in enumerate(probe) if isinstance(v, _Output)), None)
    fallback = inputs[0].dtype if inputs else torch.float32
    return _kernel_dtype(op.forward_kernel(), probe, index, fallback) if index is not None else fallback


WRITES = ("out", "inout")  # the access of a kernel parameter the kernel writes


def param_labels(op: Op, n: int) -> list[str]:
    """What messages call the op's ``n`` parameters: its ``param_names``, else ``params[i]``."""
    names = list(op.param_names())
    return [names[i] if i < len(names) else f"params[{i}]" for i in range(n)]


def forward_launches(op: Op, inputs: Sequence[Tensor], params: Sequence[Tensor], output_shape: Shape,
                     required: int) -> Iterator[tuple[Visited, Grid]]:
    """(visited arguments, grid) of each of the op's ``n_launches`` forward launches, the output a
    stand-in (:class:`_Output`), made one at a time as they are taken (the count is checked first)."""
    n_launches = launch_count(op, int(op.n_launches()), "n_launches")
    if n_launches == 1:
        return iter([(op.pack_args(inputs, params, _Output(), output_shape, required), op.grid(output_shape))])
    input_shapes = [_shape(x) for x in inputs]
    return ((op.pack_args_for_launch(i, inputs, params, _Output(), output_shape, required),
             op.grid_for_launch(i, input_shapes, output_shape)) for i in range(n_launches))


MAX_LAUNCHES = 4096  # launches of one op (teenygrad's launch one per input at most: a handful)


def launch_count(op: Op, n: int, method: str) -> int:
    """``n``, the op's count of launches, if it is one a launch list can be made of: at least
    one and at most :data:`MAX_LAUNCHES` (``usize::MAX`` built a 4.9 GB list before)."""
    if not 1 <= n <= MAX_LAUNCHES:
        raise ValueError(f"{_name(op)}: `{method}` says {n} launches; an op makes from 1 to {MAX_LAUNCHES}")
    return n


def written_params(kernel: ConfiguredKernel, launches: Iterable[tuple[Visited, Grid]],
                   params: Sequence[Tensor]) -> list[tuple[int, str]]:
    """(index in ``params``, kernel parameter) for each parameter a launch hands to a kernel
    parameter that the kernel writes: one the Rust marks ``Out``/``InOut``, or any pointer the
    kernel stores through (:func:`stored_pointers`: an unmarked ``T::Pointer``, or an ``InPtr``)."""
    kernel_params = kernel.launcher._params
    stored = stored_pointers(kernel)
    found: list[tuple[int, str]] = []
    for args, _grid in launches:
        for pos, v in enumerate(args):
            if pos < len(kernel_params) and (kernel_params[pos].access in WRITES or kernel_params[pos].name in stored):
                found += [(i, kernel_params[pos].name) for i, p in enumerate(params) if v is p]
    return found


def stored_pointers(kernel: ConfiguredKernel) -> frozenset[str]:
    """The kernel's pointer parameters it stores through: the fact its launcher records
    (``facts={"stores": ...}``, found by the transpiler)."""
    return frozenset(getattr(getattr(kernel, "launcher", None), "stores", ()))


def forward(op: Op, inputs: Sequence[Tensor], params: Sequence[Tensor], out: Tensor | None, output_shape: list[int],
            torch_op: bool = False, params_mutable: bool = True) -> Tensor:
    """The output of one forward pass (no autograd); ``torch_op``: launched through
    ``torch.library.wrap_triton`` (inside a ``triton_op``); ``params_mutable`` false: a launch
    that would write a parameter is an error (a custom op registered as not mutating it)."""
    torch = _torch()
    name = _name(op)
    kernel = op.forward_kernel()
    input_shapes = [_shape(x) for x in inputs]
    with host_code(op, input_shapes, output_shape):
        natural = int(op.forward_output_row_elems(output_shape))
        required = int(op.forward_output_row_stride(output_shape))
        launches = forward_launches(op, inputs, params, output_shape, required)
        single = int(op.n_launches()) == 1
        first = next(launches)
        dtype = output_dtype(op, inputs, params, output_shape, [first]) if out is None else out.dtype
    given = out is not None
    if out is None:
        device = inputs[0].device if inputs else (params[0].device if params else None)
        out = torch.empty(output_shape, dtype=dtype, device=device)
    elif not out.is_contiguous():
        raise ValueError(f"{name}.apply: out must be contiguous (teenygrad's buffers are dense, row-major)")
    n_rows = out.numel() // max(natural, 1)
    buffer = out
    if required > natural:
        buffer = torch.zeros((n_rows, required), dtype=out.dtype, device=out.device)
    labels = {id(x): f"input {i} (shape {list(x.shape)})" for i, x in enumerate(inputs)}
    labels |= {id(p): f"parameter `{label}` (shape {list(p.shape)})"
               for p, label in zip(params, param_labels(op, len(params)), strict=True)}
    labels[id(buffer)] = (f"out (shape {list(out.shape)})" if given else f"the output (shape {list(output_shape)})") \
        if buffer is out else f"the output buffer ({n_rows} rows of {required})"
    launch: tuple[Visited, Grid] | None = first
    while launch is not None:
        if not params_mutable and (written := written_params(kernel, [launch], params)):
            i, kernel_param = written[0]
            raise ValueError(f"{name}: kernel {kernel.launcher.name} writes parameter "
                             f"`{param_labels(op, len(params))[i]}` (as `{kernel_param}`, which it stores through), "
                             "but the custom op was registered as not mutating its params: register it with "
                             "register_op(..., mutates_params=True)")
        args, grid = launch
        check_launch_grid(op, grid, "grid" if single else "grid_for_launch", buffer.numel() == 0)
        _launch(op, kernel, _substitute(args, buffer, op), grid, "pack_args", torch_op, labels)
        with host_code(op, input_shapes, output_shape):  # (each launch is made as it is taken)
            launch = next(launches, None)
    if buffer is not out:
        out.view(n_rows, natural).copy_(buffer[:, :natural])
    return out


def backward(op: Op, inputs: Sequence[Tensor], params: Sequence[Tensor], output: Tensor, output_shape: list[int],
             grad_output: Tensor, needs: list[bool], torch_op: bool = False) -> list[Tensor | None]:
    """The gradients of the inputs and parameters (None where not needed)."""
    torch = _torch()
    name = _name(op)
    kernel = op.backward_kernel()
    if kernel is None:
        raise NotImplementedError(f"{name}: has_backward() is true but rs2triton found no backward kernel for it "
                                  "(no `backward_source`, no paired `#[kernel(backward = ...)]`)")
    grad_inputs = [torch.zeros_like(x) for x in inputs]
    grad_params = [torch.zeros_like(p) for p in params]
    dy = grad_output.contiguous()
    natural = _last(output_shape)
    with host_code(op, [_shape(x) for x in inputs], output_shape):
        required = int(op.backward_grad_output_row_stride(output_shape))
    if required > natural:
        n_rows = dy.numel() // max(natural, 1)
        padded = torch.zeros((n_rows, required), dtype=dy.dtype, device=dy.device)
        padded[:, :natural] = dy.reshape(n_rows, natural)
        dy = padded
    input_shapes = [_shape(x) for x in inputs]
    with host_code(op, input_shapes, output_shape):
        n_launches = launch_count(op, int(op.n_backward_launches()), "n_backward_launches")
    labels = {id(x): f"input {i} (shape {list(x.shape)})" for i, x in enumerate(inputs)}
    labels |= {id(p): f"parameter `{label}` (shape {list(p.shape)})"
               for p, label in zip(params, param_labels(op, len(params)), strict=True)}
    labels |= {id(g): f"the gradient of input {i}" for i, g in enumerate(grad_inputs)}
    labels |= {id(output): f"the output (shape {list(output.shape)})", id(dy): "the incoming gradient"}
    written: set[int] = set()
    for i in range(n_launches):  # (each launch made as it is taken)
        with host_code(op, input_shapes, output_shape):
            if n_launches == 1:
                args = op.pack_backward_args(inputs, params, output, output_shape, dy, required, grad_inputs,
                                             grad_params)
                grid = op.backward_grid(input_shapes, output_shape)
            else:
                args = op.pack_backward_args_for_launch(i, inputs, params, output, output_shape, dy, required,
                                                        grad_inputs, grad_params)
                grid = op.backward_grid_for_launch(i, input_shapes, output_shape)
        written |= {id(a) for a in args}
        check_launch_grid(op, grid, "backward_grid" if n_launches == 1 else "backward_grid_for_launch",
                          dy.numel() == 0 or all(g.numel() == 0 for g in (*grad_inputs, *grad_params)))
        _launch(op, kernel, args, grid, "pack_backward_args", torch_op, labels)
    grads = grad_inputs + grad_params
    grad_labels = [f"input {i}" for i in range(len(inputs))] + [f"parameter `{n}`" for n in param_labels(op, len(params))]
    for g, need, label in zip(grads, needs, grad_labels, strict=False):
        if need and id(g) not in written:
            raise NotImplementedError(f"{name}'s backward (teenygrad's pack_backward_args) computes no gradient "
                                      f"for {label}, which requires grad")
    return [g if need else None for g, need in zip(grads, needs, strict=True)]


def bind_dtype(op: Op, inputs: Sequence[Tensor]) -> Op:
    """``op`` with its dtype parameter ``D`` bound to the inputs' dtype, unless it was given."""
    if inputs and "D" in getattr(type(op), "TYPE_PARAMS", ()) and "D" not in getattr(op, "type_args", {}):
        if rust_dtype_of(inputs[0].dtype) is not None:
            return op.with_dtypes(D=inputs[0].dtype)
    return op


def _last(shape: Shape) -> int:
    return int(shape[-1]) if len(shape) else 1


def run(op: Op, inputs: tuple[Tensor, ...], params: object, out: Tensor | None, out_shape: Shape | None) -> Tensor:
    torch = _torch()
    name = _name(op)
    if isinstance(params, torch.Tensor) or not isinstance(params, (list, tuple)):
        raise TypeError(f"{name}.apply: params must be a list or tuple of tensors (params=[w]), got "
                        f"{type(params).__name__}")
    params = tuple(params)
    n = int(op.n_activation_inputs())
    if len(inputs) != n:
        raise TypeError(f"{name}.apply: takes {n} input{'s' if n != 1 else ''} (n_activation_inputs), "
                        f"got {len(inputs)}")
    for i, x in enumerate(inputs):
        _tensor_check(op, f"input {i}", x)
    for i, p in enumerate(params):
        _tensor_check(op, f"params[{i}]", p)
    if out is not None:
        _tensor_check(op, "out", out)
    devices = {t.device for t in (*inputs, *params)} | ({out.device} if out is not None else set())
    if len(devices) > 1:
        raise ValueError(f"{name}.apply: the tensors are on {sorted(map(str, devices))}; put them on one device")
    op = bind_dtype(op, inputs)
    inputs = tuple(x.contiguous() for x in inputs)  # teenygrad's buffers are dense, row-major
    params = tuple(p.contiguous() for p in params)
    input_shapes = [_shape(x) for x in inputs]
    with host_code(op, input_shapes, out_shape if out is None else _shape(out)):
        output_shape = resolve_output_shape(op, input_shapes, out, out_shape)
        check_params(op, params, input_shapes, output_shape)
    check_mapped(op, input_shapes, output_shape)
    needs = [t.requires_grad for t in (*inputs, *params)]
    if not (torch.is_grad_enabled() and any(needs)):
        with torch.no_grad():
            if out is not None and _out_is_an_argument(op, out, inputs, params):
                # out= an input itself: the kernel writes a new buffer, as teenygrad's executor
                # always does, and out takes it (torch's `torch.mm(a, b, out=a)`)
                return out.copy_(forward(op, inputs, params, torch.empty_like(out), output_shape))
            return forward(op, inputs, params, out, output_shape)
    if out is not None:
        raise ValueError(f"{name}.apply: out= cannot be used where gradients are needed (an input or "
                         "parameter requires grad): leave it out and take the returned tensor")
    return _Function.apply(op, len(inputs), output_shape, *inputs, *params)


def _out_is_an_argument(op: Op, out: Tensor, inputs: Sequence[Tensor], params: Sequence[Tensor]) -> bool:
    """Whether ``out`` is the very memory of an input or parameter (same elements, same layout);
    an ``out`` that shares only some of its memory with one is refused, as torch refuses it: the
    kernel would read elements it has already overwritten."""
    from rs2triton.runtime.bounds import own_extent

    if out.device.type == "meta" or out.numel() == 0:
        return False  # (no memory to share)
    lo, hi = own_extent(out)
    labels = [f"input {i} (shape {list(x.shape)})" for i, x in enumerate(inputs)]
    labels += [f"parameter `{n}`" for n in param_labels(op, len(params))]
    same = False
    for t, label in zip((*inputs, *params), labels, strict=True):
        t_lo, t_hi = own_extent(t)
        if t_lo >= t_hi or t_lo >= hi or lo >= t_hi or t.device != out.device:
            continue
        if (t_lo, t_hi) == (lo, hi) and t.dtype == out.dtype and tuple(t.shape) == tuple(out.shape) \
                and t.stride() == out.stride():
            same = True
            continue
        raise ValueError(f"{_name(op)}.apply: unsupported operation: some elements of {label} and the written-to "
                         f"tensor out (shape {list(out.shape)}) refer to a single memory location; pass an out that "
                         "shares no memory with the inputs and parameters, or clone() the input")
    return same


def _make_function() -> Any:
    torch = _torch()

    function: Any = torch.autograd.Function  # (torch is not followed by mypy: its classes are Any)

    class Function(function):  # type: ignore[misc, unused-ignore]  # (a class of Any: --strict only)
        @staticmethod
        def forward(ctx: Any, op: Op, n_inputs: int, output_shape: list[int], *tensors: Tensor) -> Tensor:
            inputs, params = tensors[:n_inputs], tensors[n_inputs:]
            output = forward(op, inputs, params, None, output_shape)
            ctx.op, ctx.n_inputs, ctx.output_shape = op, n_inputs, output_shape
            ctx.save_for_backward(*tensors, output)
            return output

        @staticmethod
        def backward(ctx: Any, grad_output: Tensor) -> tuple[Tensor | None, ...]:
            op = ctx.op
            *tensors, output = ctx.saved_tensors
            if not op.has_backward():
                raise RuntimeError(f"{_name(op)} has no backward in teenygrad (has_backward() is false): "
                                   "its output cannot be differentiated")
            inputs, params = tuple(tensors[:ctx.n_inputs]), tuple(tensors[ctx.n_inputs:])
            needs = list(ctx.needs_input_grad[3:])
            grads = backward(op, inputs, params, output, ctx.output_shape, grad_output, needs)
            return (None, None, None, *grads)

    return Function


class _Lazy:
    """The autograd.Function, made when first used (torch is imported only then)."""

    fn: Any = None

    def apply(self, *args: Any) -> Any:
        if self.fn is None:
            self.fn = _make_function()
        return self.fn.apply(*args)


_Function = _Lazy()


def _outside_the_graph(fn: Callable[P, R]) -> Callable[P, R]:
    """``fn``, which launches kernels eagerly, kept out of ``torch.compile``'s graphs: a
    function that calls ``RuntimeOp.apply`` compiles with a graph break around the call, which
    runs as it does eagerly (Dynamo would otherwise trace Triton's launch, or its interpreter,
    with fake tensors). ``fullgraph=True`` cannot have the break, and says why."""
    disabled: Callable[P, R] = _torch().compiler.disable(
        fn, reason="RuntimeOp.apply launches its kernels eagerly, outside torch.compile's graph: to keep the op "
                   "in one graph, register it (rs2triton.register_op) or call the torch backend's functional API")
    return disabled


run = _outside_the_graph(run)
