"""teenygrad's ``RuntimeOp`` trait in Python, and ``apply``: an op run as teenygrad's executor runs it.

teenygrad states, beside each kernel, how its executor launches it: ``impl RuntimeOp for X``
(``core/teeny-core/src/model/mod.rs``) says how many activation inputs the op takes, the
shapes of its parameter buffers, the kernel arguments (``pack_args``, through an
``ArgVisitor``), the grid, how many launches, and the same for the backward kernel.
Generated modules translate those impls into subclasses of :class:`RuntimeOp`, whose methods
keep the Rust names and take Python values where Rust takes raw pointers and shapes:

- ``(RawPtr, &[usize])`` pairs and ``RawPtr`` s are torch tensors (a pair's shape is the
  tensor's); ``&[usize]`` a sequence of ints; ``&[&[usize]]`` a sequence of those;
- the visitor is what ``pack_args`` returns: an :class:`ArgVisitor`, the list of the kernel
  arguments in order (``visit_ptr(p)`` appends ``p``; a null pointer is ``None``);
- ``[u32; 3]`` is a tuple, a ``Vec`` a list.

:meth:`RuntimeOp.apply` mirrors ``LoadedModel::forward`` and ``backward_multi`` of
``drivers/teeny-cuda/src/model/mod.rs``; it is differentiable when the op has a backward.
The trait's default methods are here, as Rust writes them; nothing here imports torch until
an op runs.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NoReturn

from rs2triton.runtime.values import _torch, check_field
from rs2triton.rust.types import TORCH_DTYPES

if TYPE_CHECKING:
    from typing import Self  # (Python 3.11's)

    import torch  # (not followed by mypy: its types are Any)
    from torch import Tensor

    from rs2triton.runtime.protocols import ConfiguredKernel, Shape, Shapes

    Grid = tuple[int, int, int]  # `[u32; 3]`

# teenygrad's trait, stated once, in Rust (``core/teeny-core/src/model/mod.rs``): the transpiler
# reads the parameters and their types from it (``transpiler/lowering/host/classes.TRAIT``), and
# :class:`RuntimeOp` below has the same methods with the same parameters (a test holds them equal).
# A Rust parameter takes the trait's name in Python whatever an impl calls it (``_``,
# ``_output_row_stride``), so every op's methods can be called alike; the visitor is no Python
# parameter: the ``pack_*`` methods return what they visit.
TRAIT_RUST = """
pub trait RuntimeOp {
    fn n_activation_inputs(&self) -> usize;
    fn param_shapes(&self, input_shapes: &[&[usize]], output_shape: &[usize]) -> Vec<Vec<usize>>;
    fn param_names(&self) -> &'static [&'static str];
    fn forward_output_row_stride(&self, output_shape: &[usize]) -> usize;
    fn forward_output_row_elems(&self, output_shape: &[usize]) -> usize;
    fn param_init_data(&self, param_idx: usize) -> Option<Vec<u8>>;
    fn compute_concrete_output_shape(&self, input_shapes: &[&[usize]], resolved: &[usize]) -> Vec<usize>;
    fn pack_args(&self, inputs: &[(RawPtr, &[usize])], params: &[RawPtr], output: RawPtr, output_shape: &[usize],
                 output_row_stride: i32, visitor: &mut dyn ArgVisitor);
    fn grid(&self, output_shape: &[usize]) -> [u32; 3];
    fn n_launches(&self) -> usize;
    fn pack_args_for_launch(&self, launch_idx: usize, inputs: &[(RawPtr, &[usize])], params: &[RawPtr],
                            output: RawPtr, output_shape: &[usize], output_row_stride: i32,
                            visitor: &mut dyn ArgVisitor);
    fn grid_for_launch(&self, launch_idx: usize, input_shapes: &[&[usize]], output_shape: &[usize]) -> [u32; 3];
    fn has_backward(&self) -> bool;
    fn backward_grad_output_row_stride(&self, output_shape: &[usize]) -> usize;
    fn pack_backward_args(&self, inputs: &[(RawPtr, &[usize])], params: &[RawPtr], output: RawPtr,
                          output_shape: &[usize], grad_output: RawPtr, grad_output_row_stride: i32,
                          grad_inputs: &[RawPtr], grad_params: &[RawPtr], visitor: &mut dyn ArgVisitor);
    fn backward_grid(&self, input_shapes: &[&[usize]], output_shape: &[usize]) -> [u32; 3];
    fn n_backward_launches(&self) -> usize;
    fn pack_backward_args_for_launch(&self, launch_idx: usize, inputs: &[(RawPtr, &[usize])], params: &[RawPtr],
                                     output: RawPtr, output_shape: &[usize], grad_output: RawPtr,
                                     grad_output_row_stride: i32, grad_inputs: &[RawPtr], grad_params: &[RawPtr],
                                     visitor: &mut dyn ArgVisitor);
    fn backward_grid_for_launch(&self, launch_idx: usize, input_shapes: &[&[usize]],
                                output_shape: &[usize]) -> [u32; 3];
}
"""


class ArgVisitor(list[Any]):  # (tensors, None for a null pointer, and scalars)
    """teenygrad's ``ArgVisitor``: the kernel arguments ``pack_args`` visits, in order. It is a
    list (``op.pack_args(...) == [x, y, 3000]``); :attr:`kinds` says what each was visited as
    (``"ptr"``, ``"i32"``, ``"f32"``...), which ``apply`` checks against the kernel's parameters."""

    __slots__ = ("kinds",)

    def __init__(self) -> None:
        super().__init__()
        self.kinds: list[str] = []

    def _visit(self, kind: str, value: object) -> None:
        self.append(value)
        self.kinds.append(kind)

    def extend_visited(self, other: ArgVisitor) -> None:
        """What another ``pack_*`` call visited, visited here too (a method that delegates)."""
        for value, kind in zip(other, other.kinds, strict=True):
            self._visit(kind, value)

    def visit_ptr(self, ptr: Tensor | None) -> None:
        self._visit("ptr", ptr)

    def visit_bool(self, value: bool) -> None:
        self._visit("bool", value)

    def visit_i8(self, value: int) -> None:
        self._visit("i8", value)

    def visit_i16(self, value: int) -> None:
        self._visit("i16", value)

    def visit_i32(self, value: int) -> None:
        self._visit("i32", value)

    def visit_i64(self, value: int) -> None:
        self._visit("i64", value)

    def visit_u8(self, value: int) -> None:
        self._visit("u8", value)

    def visit_u16(self, value: int) -> None:
        self._visit("u16", value)

    def visit_u32(self, value: int) -> None:
        self._visit("u32", value)

    def visit_u64(self, value: int) -> None:
        self._visit("u64", value)

    def visit_f32(self, value: float) -> None:
        self._visit("f32", value)

    def visit_f64(self, value: float) -> None:
        self._visit("f64", value)


class Unsupported:
    """A host method whose Rust lies outside what rs2triton translates: calling it says so."""

    def __init__(self, op: str, method: str, why: str) -> None:
        self.op, self.method, self.why = op, method, why

    def __set_name__(self, owner: type, name: str) -> None:
        self.method = name

    def __get__(self, obj: object, owner: type | None = None) -> Callable[..., NoReturn]:
        def unsupported(*args: object, **kwargs: object) -> NoReturn:
            raise NotImplementedError(f"{self.op}.{self.method}: {self.why}")

        unsupported.__name__ = self.method
        return unsupported


def _last_or_one(shape: Shape) -> int:
    return shape[-1] if len(shape) else 1


class RuntimeOp:
    """teenygrad's ``RuntimeOp`` trait, with its default methods. A generated subclass holds the
    translated ``impl RuntimeOp``; :meth:`apply` runs the op.

    ``FIELDS`` (a generated class's) maps each field of the Rust struct to its type; a wrapper
    struct's class is built with them by keyword (``ChannelCatRuntimeOp(fwd=..., bwd=...,
    n_inputs=2)``) or by its translated ``new``. A kernel struct's class is its launcher's:
    ``ReluForward(BLOCK_SIZE=1024)`` has these methods, its const generics the lowercased fields.
    """

    RUST_NAME = "RuntimeOp"
    FIELDS: dict[str, str] = {}
    # a field named as one of the class's methods (Rust keeps them apart) -> the attribute holding it
    FIELD_ATTRS: dict[str, str] = {}
    TYPE_PARAMS: tuple[str, ...] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """A generated class's methods report Rust's panics at the Rust line (runtime/host.py)."""
        super().__init_subclass__(**kwargs)
        from rs2triton.runtime.host import rust_panics

        for key, value in list(vars(cls).items()):
            if isinstance(value, classmethod):
                setattr(cls, key, classmethod(rust_panics(value.__func__)))
            elif callable(value) and getattr(value, "__code__", None) is not None and not key.startswith("__"):
                setattr(cls, key, rust_panics(value))

    def __init__(self, **fields: object) -> None:
        dtypes = {k: fields.pop(k) for k in list(fields) if k in self.TYPE_PARAMS}
        unknown = [k for k in fields if k not in self.FIELDS]
        if unknown:
            raise TypeError(f"{self.RUST_NAME}: no field `{unknown[0]}`; its fields are "
                            f"{', '.join(self.FIELDS) or '(none)'}")
        missing = [k for k in self.FIELDS if k not in fields]
        if missing:
            raise TypeError(f"{self.RUST_NAME}: missing field{'s' if len(missing) > 1 else ''} "
                            + ", ".join(f"`{k}: {self.FIELDS[k]}`" for k in missing))
        for key, value in fields.items():
            setattr(self, self.FIELD_ATTRS.get(key, key),
                    check_field(self.FIELDS[key], value, f"{self.RUST_NAME}: field `{key}`"))
        self.type_args: dict[str, torch.dtype] = {k: _dtype_of(v, f"{self.RUST_NAME}: `{k}`") for k, v in dtypes.items() if v is not None}

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={getattr(self, self.FIELD_ATTRS.get(k, k))!r}" for k in self.FIELDS)
        return f"{self.RUST_NAME}({fields})"

    # ------------------------------------------------------------------ the trait's required methods

    def _no_impl(self, method: str) -> NoReturn:
        raise NotImplementedError(f"{self.RUST_NAME} has no `impl RuntimeOp` (no `{method}`) in its file; "
                                  "launch its kernel with a grid instead")

    def n_activation_inputs(self) -> int:
        self._no_impl("n_activation_inputs")

    def param_shapes(self, input_shapes: Shapes, output_shape: Shape) -> list[list[int]]:
        self._no_impl("param_shapes")

    def pack_args(self, inputs: Sequence[Tensor], params: Sequence[Tensor], output: Tensor, output_shape: Shape,
                  output_row_stride: int) -> ArgVisitor:
        self._no_impl("pack_args")

    def grid(self, output_shape: Shape) -> Grid:
        self._no_impl("grid")

    # ------------------------------------------------------------------ its default methods

    def param_names(self) -> Sequence[str]:
        return ()

    def forward_output_row_stride(self, output_shape: Shape) -> int:
        return self.forward_output_row_elems(output_shape)

    def forward_output_row_elems(self, output_shape: Shape) -> int:
        return _last_or_one(output_shape)

    def param_init_data(self, param_idx: int) -> list[int] | None:  # (`Option<Vec<u8>>`)
        return None

    def compute_concrete_output_shape(self, input_shapes: Shapes, resolved: Shape) -> list[int]:
        return list(resolved)

    compute_concrete_output_shape.trait_default = True  # type: ignore[attr-defined]  # (apply asks)

    def n_launches(self) -> int:
        return 1

    def pack_args_for_launch(self, launch_idx: int, inputs: Sequence[Tensor], params: Sequence[Tensor], output: Tensor,
                             output_shape: Shape, output_row_stride: int) -> ArgVisitor:
        return self.pack_args(inputs, params, output, output_shape, output_row_stride)

    def grid_for_launch(self, launch_idx: int, input_shapes: Shapes, output_shape: Shape) -> Grid:
        return self.grid(output_shape)

    def has_backward(self) -> bool:
        return False

    def backward_grad_output_row_stride(self, output_shape: Shape) -> int:
        return _last_or_one(output_shape)

    def pack_backward_args(self, inputs: Sequence[Tensor], params: Sequence[Tensor], output: Tensor, output_shape: Shape,
                           grad_output: Tensor, grad_output_row_stride: int, grad_inputs: Sequence[Tensor | None],
                           grad_params: Sequence[Tensor | None]) -> ArgVisitor:
        return ArgVisitor()

    def backward_grid(self, input_shapes: Shapes, output_shape: Shape) -> Grid:
        return (0, 0, 0)

    def n_backward_launches(self) -> int:
        return 1

    def pack_backward_args_for_launch(self, launch_idx: int, inputs: Sequence[Tensor], params: Sequence[Tensor],
                                      output: Tensor, output_shape: Shape, grad_output: Tensor,
                                      grad_output_row_stride: int, grad_inputs: Sequence[Tensor | None],
                                      grad_params: Sequence[Tensor | None]) -> ArgVisitor:
        return self.pack_backward_args(inputs, params, output, output_shape, grad_output, grad_output_row_stride,
                                       grad_inputs, grad_params)

    def backward_grid_for_launch(self, launch_idx: int, input_shapes: Shapes, output_shape: Shape) -> Grid:
        return self.backward_grid(input_shapes, output_shape)

    # ------------------------------------------------------------------ the kernels it launches

    def forward_kernel(self) -> ConfiguredKernel:
        """The configured kernel ``apply`` launches (a kernel struct's op is its own kernel)."""
        raise NotImplementedError(f"{self.RUST_NAME}: rs2triton found no kernel for it to launch (no "
                                  "`forward_source` and no field holding a kernel of its file)")

    def backward_kernel(self) -> ConfiguredKernel | None:
        """The configured backward kernel, or None."""
        return None

    def size_of(self, type_param: str) -> int:
        """``core::mem::size_of::<D>()``: the element size of the dtype ``type_param`` stands for."""
        dt: torch.dtype | None = getattr(self, "type_args", {}).get(type_param)
        if dt is None:
            raise TypeError(f"{self.RUST_NAME}: `size_of::<{type_param}>()` needs the dtype `{type_param}`: give it "
                            f"when building the op ({type_param}=torch.float16, say), or call apply, which "
                            "takes it from the inputs")
        size: int = dt.itemsize
        return size

    # ------------------------------------------------------------------ running it

    def apply(self, *inputs: Tensor, params: Sequence[Tensor] = (), out: Tensor | None = None,
              out_shape: Shape | None = None) -> Tensor:
        """Run the op as teenygrad's executor runs a graph node; the output tensor.

        ``inputs``: the activation tensors (``n_activation_inputs`` of them); ``params``: the
        parameter tensors, of the shapes ``param_shapes`` asks for; the output is ``out``, or a
        new tensor of shape ``out_shape`` — which teenygrad's own logic decides only where the op
        overrides ``compute_concrete_output_shape``, so one of them is needed otherwise. The
        output is zero-padded to ``forward_output_row_stride`` where the op asks for it, and the
        op's ``n_launches`` launches run in order. Differentiable when the op ``has_backward``:
        the backward runs its kernel with zeroed gradient buffers, as the executor does.
        """
        from rs2triton.runtime.apply import run

        return run(self, inputs, params, out, out_shape)

    def with_dtypes(self, **type_args: torch.dtype | str) -> Self:
        """A copy with these type parameters bound (``D=torch.float16``)."""
        op = copy.copy(self)
        op.type_args = {**getattr(self, "type_args", {}),
                        **{k: _dtype_of(v, f"{self.RUST_NAME}: `{k}`") for k, v in type_args.items()}}
        return op


def _dtype_of(value: object, what: str) -> torch.dtype:
    """A torch dtype from a torch dtype or a Rust type name (``"f16"``)."""
    torch = _torch()
    if isinstance(value, torch.dtype):
        return value
    if isinstance(value, str) and value in TORCH_DTYPES:
        return getattr(torch, TORCH_DTYPES[value])
    raise TypeError(f"{what} must be a torch dtype or a Rust type name such as \"f32\", got {value!r}")
