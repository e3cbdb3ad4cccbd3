"""The mapping from torch operations to teenygrad ops: one row per operation, data only.

Each row names the torch operation (its schema, and what it is called in a captured graph),
the teenygrad op that implements it (by its Rust struct, as teenygrad names it), and how the
op's inputs, parameters, output shape and const generics come from the call
(:class:`Entry` says what each field means). A const generic's rule is chosen by what the
kernel does with it, the fact its launcher records (``facts={"consts": ...}``:
:func:`const_rules`), not by its name: a kernel that masks its tile and steps over it
(``offsets.lt(n)``, a loop over tiles) takes any block (:class:`Block`); kernels_rs' softmax
reads a row in one masked tile and has no loop over columns, so its block must cover the row
(:class:`Cover`); teenygrad's log-softmax reads exactly its tile's columns with no mask
(:class:`Exact`); a row's :class:`Tile` says only which size a tile is over. The linear kernel builds tensor
descriptors (``T::make_tensor_descriptor``) over its input and weight, whose row strides must
be 16-byte multiples, and zero-padding the reduction dimension keeps the product
(``zero_pad``). To add an operation, add a row (``docs/torch-backend.md``).

:mod:`rs2triton.backend.plan` reads a row for each call. The rules for const generics are small records, each naming what it is
chosen from and which limit of the kernel it keeps:

- :class:`Tile`: a tile over a size, whose kind (one of the next three) the kernel's facts say;
- :class:`Block`: a tile the kernel masks (``offsets.lt(n)``, a loop over tiles): any power
  of two is correct, so the one nearest the size, within ``lo``..``hi``;
- :class:`Cover`: a tile the kernel reads whole, with no loop over it (softmax's row): the
  block must hold the size; a size past ``hi`` has no block that fits;
- :class:`Exact`: a tile read with no mask at all: exactly the size, a power of two;
- :class:`Fixed`, :class:`Present` (whether an optional argument was given: ``USE_BIAS``);
- :class:`Value` (an argument of the call: a convolution's ``stride``), :class:`Dim` (a
  dimension of a tensor argument: the weight's kernel height).

The rows serve the torch.compile backend (``rs2triton/backend/``) and ``RuntimeOp.apply``'s checks
(``runtime/apply.py``): a wrong ``out_shape``, a block that would drop data.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

# What a rule's size is read from, on the call's shapes as the op sees them (after the layout):
SIZES = {
    "numel": "the output's element count",
    "rows": "the output's element count over its last dimension",
    "cols": "the output's last dimension",
    "k": "the input's last dimension (the reduction of a matrix product)",
    "plane": "the output's last two dimensions' element count (an image's positions)",
}


def _what(size: str) -> str:
    """A size's name in a reason: ``"output's last dimension"``."""
    return SIZES.get(size, size).split(" (")[0].removeprefix("the ")


def next_pow2(n: int) -> int:
    return 1 << max(int(n) - 1, 0).bit_length()


@dataclass(frozen=True)
class Block:
    """A masked tile over ``size``: the power of two nearest it, within ``lo``..``hi``."""

    size: str
    lo: int = 16
    hi: int = 1024

    def choose(self, sizes: dict[str, int]) -> tuple[int | None, str]:
        return min(max(next_pow2(sizes[self.size]), self.lo), self.hi), ""


@dataclass(frozen=True)
class Cover:
    """A tile the kernel reads in one piece: at least ``size`` (the kernel would drop the rest)."""

    size: str
    hi: int = 1 << 16
    lo: int = 16

    def choose(self, sizes: dict[str, int]) -> tuple[int | None, str]:
        n = sizes[self.size]
        block = max(next_pow2(n), self.lo)
        if block > self.hi:
            return None, (f"the kernel reads its {_what(self.size)} "
                          f"({n}) in one block, and no block up to {self.hi} holds it")
        return block, ""


@dataclass(frozen=True)
class Exact:
    """A tile the kernel reads with no mask at all: exactly ``size``, which must be a power of two."""

    size: str

    def choose(self, sizes: dict[str, int]) -> tuple[int | None, str]:
        n = sizes[self.size]
        if n < 1 or next_pow2(n) != n:
            return None, (f"the kernel reads exactly one block of its {_what(self.size)} "
                          f"with no mask, and {n} is not a power of two")
        return n, ""


@dataclass(frozen=True)
class Tile:
    """A tile over ``size`` whose kind the kernel's facts say (its launcher's ``facts={"consts":
    ...}``, recorded by the transpiler): a tile it masks and steps over is a :class:`Block`
    within ``lo``..``hi``; one it masks and reads in one piece a :class:`Cover` up to ``cover``;
    one it never masks an :class:`Exact`. (A kernel without those facts: a :class:`Block`.)"""

    size: str
    lo: int = 16
    hi: int = 1024
    cover: int = 1 << 16

    def rule(self, role: str | None) -> Block | Cover | Exact:
        if role == "cover":
            return Cover(self.size, self.cover, self.lo)
        if role == "exact":
            return Exact(self.size)
        return Block(self.size, self.lo, self.hi)

    def choose(self, sizes: dict[str, int]) -> tuple[int | None, str]:
        return self.rule(None).choose(sizes)


@dataclass(frozen=True)
class Fixed:
    value: Any

    def choose(self, sizes: dict[str, int]) -> tuple[Any, str]:
        return self.value, ""


@dataclass(frozen=True)
class Present:
    """True when the optional argument ``arg`` was given (not None)."""

    arg: str

    def choose(self, sizes: dict[str, int]) -> tuple[Any, str]:  # (resolved by the planner)
        raise AssertionError("Present is read from the call's arguments")


@dataclass(frozen=True)
class Value:
    """A value of the call: the argument ``arg`` (an ``int``), or item ``index`` of it when it is a
    list (``stride=[2, 1]``; a single int stands for every item, as torch reads ``stride=2``);
    where the call leaves ``arg`` out (``None`` or an empty list), the argument ``otherwise``
    (pooling's ``stride`` defaults to its ``kernel_size``)."""

    arg: str
    index: int | None = None
    otherwise: str = ""

    def choose(self, sizes: dict[str, int]) -> tuple[Any, str]:  # (resolved by the planner)
        raise AssertionError("Value is read from the call's arguments")


@dataclass(frozen=True)
class Dim:
    """Dimension ``dim`` of the tensor argument ``arg`` (a kernel size: ``weight``'s ``KH``)."""

    arg: str
    dim: int

    def choose(self, sizes: dict[str, int]) -> tuple[Any, str]:  # (resolved by the planner)
        raise AssertionError("Dim is read from the call's arguments")


@dataclass(frozen=True)
class Count:
    """How many tensors of the list argument ``arg`` the op takes (``cat``'s inputs; empty ones
    are left out)."""

    arg: str

    def choose(self, sizes: dict[str, int]) -> tuple[Any, str]:  # (resolved by the planner)
        raise AssertionError("Count is read from the call's arguments")


Rule = Block | Cover | Exact | Tile | Fixed | Present | Value | Dim | Count
_TILES = ("block", "cover", "exact")  # the roles of a tile extent (transpiler/emit/roles.py)


@dataclass(frozen=True)
class Launch:
    """One launch of a kernel struct, stated as data: how a row runs a kernel that has no
    ``impl RuntimeOp`` (a teenygrad ``#[kernel]`` used directly: ``flash_attn2.rs``' kernels).

    ``kernel``: the kernel struct (``FlashAttention2Forward``, in the tree's ``kernels``);
    ``grid``: its grid, each item a size of the row's ``sizes`` or an int; ``args``: one per
    kernel parameter, in the kernel's order — a tensor argument of the ATen call (by its schema
    name; made dense), a tensor the launches make (:class:`Aten`'s ``made``), a size, a scalar
    argument of the call, or a number (``float("-inf")``); ``consts``: a rule per const generic
    (a rule reads the row's ``sizes``: ``Exact("head_dim")``), or the name of a call argument
    (``"is_causal"``). A tensor reaches a pointer parameter in the dtype the kernel declares for
    it (``*D``: the data's dtype, ``*f32``): converted where it is not (an ``f32`` log-sum-exp to
    a kernel that keeps it in ``D``)."""

    kernel: str
    grid: tuple[str | int, ...]
    args: tuple[str | float | int, ...]
    consts: dict[str, Rule | str] = field(default_factory=dict)


@dataclass(frozen=True)
class Transposed:
    """A row argument that is the ATen argument ``arg`` transposed (``addmm``'s ``mat2`` is
    ``weight.t()``: a linear layer's weight is ``mat2.t()``, a view)."""

    arg: str


@dataclass(frozen=True)
class OnesRow:
    """A ``[1, n]`` tensor of ones, ``n`` the first dimension of the ATen argument ``arg`` (a sum
    over the first dimension is ``ones @ arg``: made on torch)."""

    arg: str


@dataclass(frozen=True)
class Sized:
    """A tensor of the sizes the ATen argument ``arg`` lists (None where it is None), made like
    the argument ``like``: it stands for a tensor whose values the op does not read
    (``convolution_backward``'s bias: only its gradient's shape)."""

    arg: str
    like: str


@dataclass(frozen=True)
class Table:
    """A ``[n, d]`` tensor standing for a table whose values the op's backward does not read:
    ``n`` the ATen argument ``arg`` (an int: ``embedding_dense_backward``'s ``num_weights``),
    ``d`` the last dimension of the ATen argument ``like`` (the output's gradient)."""

    arg: str
    like: str


@dataclass(frozen=True)
class Aten:
    """An ATen operator (what AOTAutograd's graphs call) that a row's op computes.

    ``target``: the overload (``"aten.add.Tensor"``); ``args``: a row argument -> what it is of
    the ATen call (an argument's name, :class:`Transposed`, :class:`OnesRow`, :class:`Sized`,
    :class:`Table`: a tensor made for it is a stand-in the op's backward must not read; a row argument not
    named here is the ATen argument of the same name, or ``self`` for ``input``); ``fixed``: row
    arguments the operator leaves implicit (``_softmax``'s ``dtype=None``); ``require``: ATen
    argument values this needs (``half_to_float=False``), another value runs on torch;
    ``outputs``: how many tensors the operator returns (only the first is the op's: the call
    runs on torch where a graph uses the others).

    A backward operator (``grad``: the argument that holds the output's gradient) runs the op's
    backward kernels: ``output`` names the argument that is the forward's output, where the
    operator is given it; ``from_output``: the operator is given the forward's output and not its
    input (``threshold_backward``: ReLU's result), which then stands for the input — the op's
    backward must not read it (checked on its ``pack_backward_args``, once per shape);
    ``returns``: which gradients the operator returns, by row argument; ``mask``: the argument
    that says which of them it is asked for (``output_mask``).
    """

    target: str
    args: dict[str, Any] = field(default_factory=dict)
    fixed: dict[str, Any] = field(default_factory=dict)
    require: dict[str, Any] = field(default_factory=dict)
    outputs: int = 1
    grad: str = ""
    output: str = ""
    from_output: bool = False
    returns: tuple[str, ...] = ("input",)
    mask: str = ""
    # (a row whose kernels have no `impl RuntimeOp`: the launches, in order, that compute the
    # operator; the tensors they make, name -> shape in the row's sizes; what it returns, by name)
    launches: tuple[Launch, ...] = ()
    made: dict[str, tuple[str | int, ...]] = field(default_factory=dict)
    results: tuple[str, ...] = ()
    filled: dict[str, float] = field(default_factory=dict)  # (made tensors that start as this value)


@dataclass(frozen=True)
class Entry:
    """One torch operation and the teenygrad op that runs it.

    ``name``: the operation (and its name in ``backend.functional``); ``schema``: torch's
    signature in ``torch.library`` schema syntax (its argument names are what the other fields
    name); ``targets``: what the operation is called in a captured graph (dotted paths of torch
    callables; ``Tensor.x``: the method ``x``); ``op``: the Rust struct of the teenygrad op (a
    kernel struct, or a wrapper built by ``new``), in order of preference; ``inputs`` and
    ``params``: which arguments are the op's activation inputs and its parameter tensors (a
    parameter may be None where ``consts`` has a :class:`Present` for it); ``consts``: a rule for
    a const generic of a kernel struct, by name, where the kernel's facts cannot say it (a value's
    argument, a flag's, which dimension each of several tiles is over: :func:`const_rules`);
    ``tile``: the rule of the kernel's one tile extent the row does not name (its kind from the
    facts: masked and stepped, read whole with or without a mask); ``new``: the arguments of a wrapper's ``new`` (a rule, or
    the name of a call argument); ``require``: argument values the op implements (another
    value runs on torch, with the reason); ``layout``: how the op sees the tensors —
    ``"flat"`` (elementwise: inputs broadcast to the output's shape), ``"rows"`` (along the
    last dimension of ``[rows, cols]``: ``dim`` must be the last), ``"matrix"`` (the input as
    ``[rows, k]``, a matrix product over its last dimension), ``"image"`` (``[B, C, H, W]``: an
    unbatched ``[C, H, W]`` is one image); ``absent``: what an optional parameter the call
    leaves out means, where the op takes it all the same (a linear layer's bias: zeros; a layer
    norm's weight: ones): the plan passes a tensor of that value; ``bias``: an optional
    per-channel (dimension 1) bias
    argument that the kernel does not take: the plan adds it on torch after the kernel, and its
    gradient is the output gradient summed over the other dimensions (teenygrad's own path for a
    convolution with a bias in training: the kernel, then a bias add); ``zero_pad``: arguments whose
    last dimension may be padded with zeros without changing the result (what makes an
    unaligned row fit a tensor-descriptor kernel); ``reference``: the torch function with the
    same meaning (the output's shape and dtype come from it, on meta tensors; the tests compare
    with it); ``aten``: the ATen operators (:class:`Aten`) of AOTAutograd's forward and backward
    graphs that the op computes, forward or backward (an ATen operator several rows name is
    tried on each, in the table's order, until one takes the call); ``indices``: inputs that are
    integer tensors of indices (an embedding's, a loss's targets), passed as they are, whatever
    the op's ``D``; ``dims``: for the ``"given"`` layout, which dimensions a reduction's ``dim``
    must name: ``"last"`` (or none: everything), ``"leading"`` (the first ones: the input is seen
    as ``[rows, cols]``, the rows those dimensions, and the op sums over its rows).
    ``sizes``: for a row whose ATen operators list :class:`Launch` records (kernels used directly,
    no ``impl RuntimeOp``: ``op`` then names the kernel structs, all of which the tree must
    have), the sizes its launches and rules name, each a :class:`Dim` of a tensor argument; such
    a row has no ``backend.functional`` function (it maps the backend's own ATen operators).
    An input that is a list of tensors (``cat``'s) gives the op each of them, empty ones left out.
    ``layout="given"``: the tensors reach the op as they are (made dense), in the call's shapes,
    and the output has torch's shape (the op's host logic must agree: a matrix product over a
    batch, an embedding, a reduction).
    """

    name: str
    schema: str
    targets: tuple[str, ...]
    op: tuple[str, ...]
    inputs: tuple[str, ...]
    reference: str
    params: tuple[str, ...] = ()
    consts: dict[str, Rule] = field(default_factory=dict)
    tile: Tile | None = None
    new: tuple[str | Rule, ...] = ()
    require: dict[str, Any] = field(default_factory=dict)
    layout: str = "flat"
    zero_pad: tuple[str, ...] = ()
    bias: str = ""
    absent: dict[str, float] = field(default_factory=dict)
    note: str = ""
    aten: tuple[Aten, ...] = ()
    indices: tuple[str, ...] = ()
    dims: str = ""
    sizes: dict[str, Dim] = field(default_factory=dict)

    @property
    def launched(self) -> bool:
        """Whether the row runs its kernels by the :class:`Launch` records it states (no ``RuntimeOp``)."""
        return any(a.launches for a in self.aten)

    def __hash__(self) -> int:
        return hash(self.name)


# ---------------------------------------------------------------------- the rows
ELEMENT_TILE = Tile("numel", hi=1024)  # an elementwise kernel's tile, whatever it is called
_MATMUL: dict[str, Rule] = {"BLOCK_M": Tile("rows", 16, 64), "BLOCK_N": Tile("cols", 16, 64),
                            "BLOCK_K": Tile("k", 16, 64)}


def _binary(name: str, struct: str | tuple[str, ...], operator: str | None, *, alpha: bool = False, reference: str = "",
            extra: str = "", require: dict[str, Any] | None = None, aten: tuple[Aten, ...] = ()) -> Entry:
    schema = f"{name}(Tensor input, Tensor other{', *, Scalar alpha=1' if alpha else ''}{extra}) -> Tensor"
    dunder = (f"operator.{operator}", f"Tensor.__{operator}__") if operator else ()
    return Entry(name, schema, (f"torch.{name}", f"Tensor.{name}", *dunder),
                 struct if isinstance(struct, tuple) else (struct,), ("input", "other"), reference or f"torch.{name}", tile=ELEMENT_TILE,
                 require={**({"alpha": 1} if alpha else {}), **(require or {})},
                 aten=(Aten(f"aten.{name}.Tensor" if operator else f"aten.{name}.default"), *aten))


def _unary(name: str, struct: str | tuple[str, ...], *, functional: bool = False, inplace: bool = False,
           method: bool = True, reference: str = "", extra: str = "", require: dict[str, Any] | None = None,
           also: tuple[str, ...] = (), backward: Aten | None = None, forward: Aten | None = None) -> Entry:
    schema = f"{name}(Tensor input{', bool inplace=False' if inplace else ''}{extra}) -> Tensor"
    targets: tuple[str, ...] = (f"torch.{name}",) if not functional else ()
    targets += (f"torch.nn.functional.{name}",) if functional or inplace else ()
    targets += (f"Tensor.{name}",) if method else ()
    reference = reference or (f"torch.nn.functional.{name}" if inplace or functional else f"torch.{name}")
    return Entry(name, schema, targets + also, struct if isinstance(struct, tuple) else (struct,), ("input",), reference,
                 tile=ELEMENT_TILE, require={**({"inplace": False} if inplace else {}), **(require or {})},
                 aten=(forward or Aten(f"aten.{name}.default"), *((backward,) if backward else ())))


def _given_output(target: str, **require: Any) -> Aten:
    """A backward operator given the output's gradient and the forward's output (``output``, or
    ``self`` for ``threshold_backward``), which stands for the input."""
    arg = "self" if target == "aten.threshold_backward.default" else "output"
    return Aten(target, {"input": arg}, grad="grad_output", output=arg, from_output=True, require=require)


def _given_input(target: str, **args: Any) -> Aten:
    """A backward operator given the output's gradient and the forward's input (``self``)."""
    return Aten(target, args, grad="grad_output")


def _attention(name: str, kernels: tuple[str, str, str], consts: dict[str, Rule | str], note: str,
               require: dict[str, Any] | None = None) -> Entry:
    """A row of attention on flash-attention kernels used directly (no ``impl RuntimeOp``): the
    backend's own ``rs2triton_aot::attention`` on ``[BH, N, HEAD_DIM]`` tensors (what
    ``scaled_dot_product_attention`` is made in Dynamo's graph: ``backend/own_ops.py``) and its
    backward, each kernel launched as its Rust documents it (grids ``[N_CTX_Q, BH]`` and
    ``[N_CTX_K, BH]``)."""
    forward, dq, dkv = kernels
    require = require or {}
    grad_args = ("query", "key", "value", "output", "grad_output", "lse")
    return Entry(
        name, "attention(Tensor query, Tensor key, Tensor value, float scale, bool is_causal) -> (Tensor, Tensor)",
        (), kernels, ("query", "key", "value"), "torch.ops.rs2triton_aot.attention", note=note, layout="given",
        sizes={"bh": Dim("query", 0), "n_q": Dim("query", 1), "n_k": Dim("key", 1), "head_dim": Dim("query", 2)},
        aten=(Aten("rs2triton_aot.attention.default", require=require, outputs=2,
                   launches=(Launch(forward, ("n_q", "bh"), ("query", "key", "value", "output", "lse", "n_q", "n_k",
                                                             "scale", float("-inf")), consts),),
                   made={"output": ("bh", "n_q", "head_dim"), "lse": ("bh", "n_q")}, results=("output", "lse")),
              Aten("rs2triton_aot.attention_backward.default", require=require, grad="grad_output",
                   returns=("query", "key", "value"),
                   launches=(Launch(dq, ("n_q", "bh"), (*grad_args, "dq", "n_q", "n_k", "scale"), consts),
                             Launch(dkv, ("n_k", "bh"), (*grad_args, "dk", "dv", "n_q", "n_k", "scale"), consts)),
                   made={"dq": ("bh", "n_q", "head_dim"), "dk": ("bh", "n_k", "head_dim"),
                         "dv": ("bh", "n_k", "head_dim")},
                   results=("dq", "dk", "dv"))))


_RMS_SIZES: dict[str, Dim] = {"rows": Dim("input", 0), "n": Dim("input", 1)}
_RMS_BLOCK: dict[str, Rule | str] = {"BLOCK_N": Block("n", 16, 1024)}
_RMS_BACKWARD = Aten("rs2triton_aot.rms_norm_backward.default", grad="grad_output",
                     launches=(Launch("RmsNormRowsBackward", ("rows",), ("grad_output", "input", "rrms", "dx", "n"),
                                      _RMS_BLOCK),),
                     made={"dx": ("rows", "n")}, results=("dx",))


def _rms_norm(name: str, forward: Launch, made: dict[str, tuple[str | int, ...]], note: str,
              filled: dict[str, float] | None = None, backward: bool = True) -> Entry:
    """A row of RMS normalisation without a weight (``rs2triton_aot::rms_norm`` on ``[rows, n]``:
    what a model's RMSNorm is made in Dynamo's graph, ``backend/own_ops.py``), its forward
    ``forward``; with ``backward``, its backward: kernels_rs' ``RmsNormRowsBackward`` (each row's
    ``dx`` alone)."""
    return Entry(name, "rms_norm(Tensor input, float eps) -> (Tensor, Tensor)", (),
                 (forward.kernel, *(("RmsNormRowsBackward",) if backward else ())), ("input",),
                 "torch.ops.rs2triton_aot.rms_norm", layout="given", note=note, sizes=_RMS_SIZES,
                 aten=(Aten("rs2triton_aot.rms_norm.default", outputs=2, launches=(forward,), made=made,
                            filled=filled or {}, results=("output", "rrms")), *((_RMS_BACKWARD,) if backward else ())))


def _pool_consts() -> dict[str, Rule]:
    """A 2-D pooling kernel's const generics, from ``kernel_size``, ``stride`` (by default the
    kernel size) and ``padding``; ``BLOCK_P`` (kernels_rs) tiles an output plane's positions,
    ``BLOCK_OW`` (teenygrad) an output row."""
    return {"KH": Value("kernel_size", 0), "KW": Value("kernel_size", 1),
            "STRIDE_H": Value("stride", 0, "kernel_size"), "STRIDE_W": Value("stride", 1, "kernel_size"),
            "PAD_H": Value("padding", 0), "PAD_W": Value("padding", 1),
            "BLOCK_P": Tile("plane", 16, 256), "BLOCK_OW": Tile("cols", 16, 128)}


TABLE: tuple[Entry, ...] = (
    # ---------------------------------------------------------------- elementwise, two tensors
    _binary("add", ("ElemwiseAddForward", "AddForward", "VectorAdd"), "add", alpha=True,
            aten=(Aten("aten.add.Scalar"),)),
    _binary("sub", ("ElemwiseSubForward", "SubForward"), "sub", alpha=True),
    _binary("mul", ("ElemwiseMulForward", "MulForward"), "mul", aten=(Aten("aten.mul.Scalar"),)),
    _binary("div", ("ElemwiseDivForward", "DivForward"), "truediv", extra=", *, str? rounding_mode=None",
            require={"rounding_mode": None}, aten=(Aten("aten.div.Tensor_mode"), Aten("aten.div.Scalar"))),
    _binary("maximum", ("ElemwiseMaxForward", "MaximumForward"), None),
    _binary("minimum", ("ElemwiseMinForward", "MinimumForward"), None),
    # ---------------------------------------------------------------- activations
    _unary("relu", "ReluForward", inplace=True, backward=_given_output("aten.threshold_backward.default", threshold=0)),
    _unary("sigmoid", "SigmoidForward", also=("torch.nn.functional.sigmoid",),
           backward=_given_output("aten.sigmoid_backward.default")),
    _unary("tanh", "TanhForward", also=("torch.nn.functional.tanh",), backward=_given_output("aten.tanh_backward.default")),
    # (ATen's gradients of tanh and sigmoid are given the output, not the input that the two ops'
    # backward kernels read: kernels_rs computes them from the output, as functions of two tensors)
    Entry("tanh_backward", "tanh_backward(Tensor grad_output, Tensor output) -> Tensor", (), ("TanhGradForward",),
          ("grad_output", "output"), "torch.ops.aten.tanh_backward", tile=ELEMENT_TILE,
          aten=(Aten("aten.tanh_backward.default"),)),
    Entry("sigmoid_backward", "sigmoid_backward(Tensor grad_output, Tensor output) -> Tensor", (),
          ("SigmoidGradForward",), ("grad_output", "output"), "torch.ops.aten.sigmoid_backward", tile=ELEMENT_TILE,
          aten=(Aten("aten.sigmoid_backward.default"),)),
    _unary("silu", "SiluForward", functional=True, inplace=True, method=False,
           backward=_given_input("aten.silu_backward.default")),
    Entry("gelu", "gelu(Tensor input, *, str approximate='none') -> Tensor",
          ("torch.nn.functional.gelu",), ("GeluForward", "GeluTanhForward"), ("input",), "torch.nn.functional.gelu",
          tile=ELEMENT_TILE, require={"approximate": "tanh"}, note="both kernels compute the tanh approximation",
          aten=(Aten("aten.gelu.default"), _given_input("aten.gelu_backward.default"))),
    # (the exact GELU, from erf: BERT's, GPT-NeoX's; kernels_rs only, teenygrad's GELU is the tanh form)
    Entry("gelu_erf", "gelu_erf(Tensor input, *, str approximate='none') -> Tensor", (), ("GeluErfForward",),
          ("input",), "torch.nn.functional.gelu", tile=ELEMENT_TILE, require={"approximate": "none"},
          aten=(Aten("aten.gelu.default"), _given_input("aten.gelu_backward.default"))),
    _unary("logsigmoid", "LogsigmoidForward", functional=True, method=False,
           forward=Aten("aten.log_sigmoid_forward.default", outputs=2)),
    _unary("mish", "MishForward", functional=True, inplace=True, method=False,
           backward=_given_input("aten.mish_backward.default")),
    Entry("softplus", "softplus(Tensor input, Scalar beta=1, Scalar threshold=20) -> Tensor",
          ("torch.nn.functional.softplus",), ("SoftplusRuntimeOp",), ("input",), "torch.nn.functional.softplus",
          new=(Block("numel", hi=1024), "beta"), require={"threshold": 20},
          note="the kernel has no threshold: torch's default (20) is where log(1 + exp(x)) is x in f32",
          aten=(Aten("aten.softplus.default"), _given_input("aten.softplus_backward.default"))),
    Entry("elu", "elu(Tensor input, float alpha=1.0, bool inplace=False) -> Tensor",
          ("torch.nn.functional.elu",), ("EluRuntimeOp",), ("input",), "torch.nn.functional.elu",
          new=(Block("numel", hi=1024), "alpha"), require={"inplace": False},
          aten=(Aten("aten.elu.default", require={"scale": 1, "input_scale": 1}),)),
    Entry("celu", "celu(Tensor input, float alpha=1.0, bool inplace=False) -> Tensor",
          ("torch.nn.functional.celu", "torch.celu"), ("CeluRuntimeOp",), ("input",), "torch.nn.functional.celu",
          new=(Block("numel", hi=1024), "alpha"), require={"inplace": False}),
    # ---------------------------------------------------------------- elementwise math
    _unary("exp", ("ElemwiseExpForward", "ExpForward")),
    _unary("log", ("ElemwiseLogForward", "LogForward")),
    _unary("sqrt", ("ElemwiseSqrtForward", "SqrtForward")),
    _unary("abs", ("ElemwiseAbsForward", "AbsForward"), also=("Tensor.__abs__",)),
    _unary("neg", ("ElemwiseNegForward", "NegForward"), also=("operator.neg", "Tensor.__neg__")),
    _unary("sin", ("ElemwiseSinForward", "SinForward")),
    _unary("cos", ("ElemwiseCosForward", "CosForward")),
    _unary("erf", ("ElemwiseErfForward", "ErfForward")),
    _unary("reciprocal", ("ElemwiseReciprocalForward", "ReciprocalForward")),
    _unary("rsqrt", ("RsqrtForward",)),
    Entry("pow", "pow(Tensor input, Scalar exponent) -> Tensor",
          ("torch.pow", "Tensor.pow", "operator.pow", "Tensor.__pow__"), ("PowScalarRuntimeOp",), ("input",),
          "torch.pow", new=(Block("numel", hi=1024), "exponent"), aten=(Aten("aten.pow.Tensor_Scalar"),)),
    # ---------------------------------------------------------------- rows
    Entry("softmax", "softmax(Tensor input, int dim, ScalarType? dtype=None) -> Tensor",
          ("torch.softmax", "torch.nn.functional.softmax", "Tensor.softmax", "torch.special.softmax"),
          ("SoftmaxForward",), ("input",), "torch.softmax", tile=Tile("cols"),
          require={"dtype": None}, layout="rows",
          aten=(Aten("aten._softmax.default", fixed={"dtype": None}, require={"half_to_float": False}),
                Aten("aten._softmax_backward_data.default", {"input": "output"}, grad="grad_output", output="output",
                     from_output=True))),
    Entry("log_softmax", "log_softmax(Tensor input, int dim, ScalarType? dtype=None) -> Tensor",
          ("torch.log_softmax", "torch.nn.functional.log_softmax", "Tensor.log_softmax"),
          ("LogSoftmaxForward",), ("input",), "torch.log_softmax", tile=Tile("cols"),
          require={"dtype": None}, layout="rows",
          aten=(Aten("aten._log_softmax.default", fixed={"dtype": None}, require={"half_to_float": False}),
                Aten("aten._log_softmax_backward_data.default", {"input": "output"}, grad="grad_output",
                     output="output", from_output=True))),
    Entry("layer_norm", "layer_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, Tensor? bias=None, "
          "float eps=1e-05) -> Tensor",
          ("torch.layer_norm", "torch.nn.functional.layer_norm"),
          ("LayerNormForwardInferenceRuntimeOp", "LayerNormForward", "LayerNormRowsRuntimeOp"), ("input",),
          "torch.nn.functional.layer_norm",
          params=("weight", "bias"), tile=Tile("cols"),
          new=(Block("cols", hi=1024), "eps"), layout="rows", absent={"weight": 1.0, "bias": 0.0},
          # (in a graph that trains, the backend makes torch's layer_norm its own operator, whose
          # backward is given the input and eps, not the mean and reciprocal standard deviation:
          # backend/aten.py, own_operators)
          aten=(Aten("aten.native_layer_norm.default", outputs=3), Aten("rs2triton_aot.layer_norm.default"),
                Aten("rs2triton_aot.layer_norm_backward.default", grad="grad_output",
                     returns=("input", "weight", "bias"), mask="output_mask"))),
    # ---------------------------------------------------------------- matrices
    Entry("linear", "linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor",
          ("torch._C._nn.linear", "torch.nn.functional.linear"), ("LinearForward",), ("input",),
          "torch.nn.functional.linear", params=("weight", "bias"),
          consts={"USE_BIAS": Present("bias"), **_MATMUL, "GROUP_M": Fixed(8)},
          layout="matrix", zero_pad=("input", "weight"), absent={"bias": 0.0},
          # (AOTAutograd's linear is addmm(bias, x, w.t()) or mm(x, w.t()); its gradients are matrix
          # products, and a bias's gradient a sum over the rows: ones @ g)
          aten=(Aten("aten.addmm.default", {"input": "mat1", "weight": Transposed("mat2"), "bias": "self"},
                     require={"beta": 1, "alpha": 1}),
                Aten("aten.mm.default", {"input": "self", "weight": Transposed("mat2")}),
                Aten("aten.sum.dim_IntList", {"input": OnesRow("self"), "weight": Transposed("self")},
                     require={"dim": [0], "keepdim": True, "dtype": None}))),
    # ---------------------------------------------------------------- a model's (kernels_rs: docs/kernels.md)
    Entry("cat", "cat(Tensor[] tensors, int dim=0) -> Tensor", ("torch.cat", "torch.concat", "torch.concatenate"),
          ("CatRuntimeOp",), ("tensors",), "torch.cat", new=(Block("numel", hi=1024), Count("tensors"), "dim"),
          layout="given", aten=(Aten("aten.cat.default"),)),
    Entry("bmm", "bmm(Tensor input, Tensor mat2) -> Tensor", ("torch.bmm", "Tensor.bmm"), ("BmmForward",),
          ("input", "mat2"), "torch.bmm", consts=_MATMUL, layout="given", aten=(Aten("aten.bmm.default"),)),
    Entry("embedding", "embedding(Tensor weight, Tensor indices, int padding_idx=-1, bool scale_grad_by_freq=False, "
          "bool sparse=False) -> Tensor", ("torch.embedding",), ("Embedding",), ("weight", "indices"),
          "torch.embedding", new=(Block("rows", 16, 64), Block("cols", 16, 256), "padding_idx"),
          require={"scale_grad_by_freq": False, "sparse": False}, layout="given", indices=("indices",),
          aten=(Aten("aten.embedding.default"),
                Aten("aten.embedding_dense_backward.default", {"weight": Table("num_weights", "grad_output")},
                     require={"scale_grad_by_freq": False}, grad="grad_output", returns=("weight",)))),
    # (a cumulative sum along the last dimension: OPT's positions; its gradient, a flip, this op and a flip.
    # teenygrad's CumSumForward reads a row in one tile, kernels_rs' walks it)
    Entry("cumsum", "cumsum(Tensor input, int dim, *, ScalarType? dtype=None) -> Tensor", ("torch.cumsum", "Tensor.cumsum"),
          ("CumSumForward", "CumsumRowsForward"), ("input",), "torch.cumsum",
          tile=Tile("cols"), require={"dtype": None},
          layout="rows", aten=(Aten("aten.cumsum.default"),)),
    Entry("sum", "sum(Tensor input, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
          ("torch.sum", "Tensor.sum"), ("SumRowsForward",), ("input",), "torch.sum",
          tile=Tile("k"), require={"dtype": None}, layout="given", dims="last",
          aten=(Aten("aten.sum.dim_IntList"), Aten("aten.sum.default"))),
    Entry("sum_rows", "sum_rows(Tensor input, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> "
          "Tensor", (), ("SumColsForward",), ("input",), "torch.sum",
          consts={"BLOCK_R": Tile("rows", 16, 64), "BLOCK_N": Tile("k", 16, 256)}, require={"dtype": None},
          layout="given", dims="leading", aten=(Aten("aten.sum.dim_IntList"),)),
    Entry("mean", "mean(Tensor input, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
          ("torch.mean", "Tensor.mean"), ("MeanRowsForward",), ("input",), "torch.mean",
          tile=Tile("k"), require={"dtype": None}, layout="given", dims="last",
          aten=(Aten("aten.mean.dim"), Aten("aten.mean.default"))),
    # (torch._C._nn.nll_loss's own defaults are not F.nll_loss's: the schema has none)
    Entry("nll_loss", "nll_loss(Tensor input, Tensor target, Tensor? weight, int reduction, int ignore_index) -> Tensor", ("torch._C._nn.nll_loss",), ("NllMeanRuntimeOp",), ("input", "target"),
          "torch._C._nn.nll_loss", new=(Block("rows", 16, 256), "ignore_index"),
          require={"weight": None, "reduction": 1}, layout="given", indices=("target",),
          note="the mean over the rows (reduction='mean'), without class weights",
          # (its backward is given no total weight: backend/aten.py, own_decompositions)
          aten=(Aten("aten.nll_loss_forward.default", outputs=2),
                Aten("rs2triton_aot.nll_loss_backward.default", grad="grad_output"))),
    # ---------------------------------------------------------------- attention (kernels used directly)
    # (teenygrad's flash_attn2.rs, which has no causal mask, then kernels_rs' flash_attention.rs,
    # causal or not: a node tries them in this order)
    _attention("scaled_dot_product_attention",
               ("FlashAttention2Forward", "FlashAttention2BackwardDq", "FlashAttention2BackwardDkv"),
               {"HEAD_DIM": Exact("head_dim")}, "teenygrad's flash_attn2.rs (no causal mask)",
               require={"is_causal": False}),
    _attention("attention", ("FlashAttentionForward", "FlashAttentionBackwardDq", "FlashAttentionBackwardDkv"),
               {"HEAD_DIM": Exact("head_dim"), "CAUSAL": "is_causal"}, "kernels_rs' flash_attention.rs"),
    # ---------------------------------------------------------------- RMS normalisation (kernels used directly)
    # (teenygrad's rmsnorm.rs forward, given a weight of ones; its backward is not used: it adds
    # every row's dweight into one buffer with a plain read-modify-write, a race on a GPU. The
    # backward is the next row's, kernels_rs')
    _rms_norm("rms_norm", Launch("RmsNormForward", ("rows",), ("input", "output", "weight", "rrms", "rows", "n", "eps"),
                                 _RMS_BLOCK),
              {"output": ("rows", "n"), "weight": ("n",), "rrms": ("rows",)},
              "teenygrad's rmsnorm.rs forward (a weight of ones)", filled={"weight": 1.0}, backward=False),
    _rms_norm("rms_norm_rows", Launch("RmsNormRowsForward", ("rows",), ("input", "output", "rrms", "n", "eps"),
                                      _RMS_BLOCK),
              {"output": ("rows", "n"), "rrms": ("rows",)}, "kernels_rs' rmsnorm.rs"),
    # ---------------------------------------------------------------- images
    Entry("conv2d", "conv2d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=1, SymInt[2] padding=0, "
          "SymInt[2] dilation=1, SymInt groups=1) -> Tensor",
          ("torch.conv2d", "torch.nn.functional.conv2d"), ("Conv2dForward",), ("input",),
          "torch.nn.functional.conv2d", params=("weight",), bias="bias",
          consts={"KH": Dim("weight", 2), "KW": Dim("weight", 3), "STRIDE_H": Value("stride", 0),
                  "STRIDE_W": Value("stride", 1), "PAD_H": Value("padding", 0), "PAD_W": Value("padding", 1),
                  "G": Value("groups"), "BLOCK_P": Tile("plane", 16, 256), "BLOCK_OW": Tile("cols", 16, 128)},
          require={"dilation": (1, 1)}, layout="image",
          note="a bias is added on torch after the kernel, as teenygrad's training path does",
          aten=(Aten("aten.convolution.default", require={"transposed": False, "output_padding": [0, 0]}),
                Aten("aten.convolution_backward.default", {"bias": Sized("bias_sizes", "weight")},
                     require={"transposed": False, "output_padding": [0, 0]}, grad="grad_output",
                     returns=("input", "weight", "bias"), mask="output_mask"))),
    Entry("max_pool2d", "max_pool2d(Tensor input, int[2] kernel_size, int[2]? stride=None, int[2] padding=0, "
          "int[2] dilation=1, bool ceil_mode=False, bool return_indices=False) -> Tensor",
          ("torch.nn.functional.max_pool2d", "torch.max_pool2d", "torch._C._nn.max_pool2d"),
          ("MaxPool2dForward", "Maxpool2dForward"), ("input",), "torch.nn.functional.max_pool2d",
          consts=_pool_consts(), require={"dilation": (1, 1), "ceil_mode": False, "return_indices": False},
          layout="image", aten=(Aten("aten.max_pool2d_with_indices.default", outputs=2),
                                Aten("rs2triton_aot.max_pool2d_backward.default", grad="grad_output",
                                     output="output"))),
    Entry("avg_pool2d", "avg_pool2d(Tensor input, int[2] kernel_size, int[2]? stride=None, int[2] padding=0, "
          "bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None) -> Tensor",
          ("torch.nn.functional.avg_pool2d", "torch._C._nn.avg_pool2d"),
          ("AvgPool2dForward", "Avgpool2dForward"), ("input",), "torch.nn.functional.avg_pool2d",
          consts=_pool_consts(), require={"ceil_mode": False, "count_include_pad": True, "divisor_override": None},
          layout="image", aten=(Aten("aten.avg_pool2d.default"), _given_input("aten.avg_pool2d_backward.default"))),
)

# Operations that only describe a tensor (its shape, a view of it): they run on torch and are no
# fallback (there is nothing for a kernel to compute).
SHAPE_ONLY = frozenset({
    "operator.getitem", "builtins.getattr", "Tensor.size", "Tensor.dim", "Tensor.view", "Tensor.reshape", "torch.reshape",
    "Tensor.flatten", "torch.flatten", "Tensor.unsqueeze", "torch.unsqueeze", "Tensor.squeeze", "torch.squeeze",
    "Tensor.permute", "torch.permute", "Tensor.transpose", "torch.transpose", "Tensor.t", "torch.t",
    "Tensor.expand", "Tensor.contiguous", "Tensor.detach", "Tensor.numel", "torch.sym_size", "torch.sym_int",
    "torch._C._set_grad_enabled",
})


# Operations that compute nothing for some argument values: dropout outside training or with
# p = 0 returns its input. Such a call runs on torch and is no fallback; for any other values,
# the operation is one no row maps. (The schema's argument names, by position.)
IDENTITY_WHEN = {
    path: (("input", "p", "training", "inplace"), {"p": 0.0, "training": False})
    for path in ("torch.nn.functional.dropout", "torch.dropout", "torch.nn.functional.dropout1d",
                 "torch.nn.functional.dropout2d", "torch.nn.functional.dropout3d", "torch.nn.functional.alpha_dropout",
                 "torch.nn.functional.feature_alpha_dropout")
}


def const_rules(entry: Entry, struct: str, consts: dict[str, str],
                roles: dict[str, dict[str, Any]]) -> tuple[dict[str, Rule], str]:
    """The rule of each const generic (``consts``: name -> Rust type) of the kernel struct
    ``struct`` on the row ``entry``, from what the kernel does with it (``roles``: its launcher's
    facts, ``transpiler/emit/roles.py``) and what the row says: a tile the row does not name takes
    the row's ``tile``, its kind (block, cover, exact) from the facts; a row's :class:`Tile` too.
    And why the op cannot be built so ("" when it can): a const no rule chooses, or a row's rule
    the kernel's facts contradict (a :class:`Block` for a tile the kernel reads whole, a tile
    rule for a value or a flag). The rules are those of every const that has one."""
    def role(c: str) -> str | None:
        got = roles.get(c, {}).get("role")
        return got if isinstance(got, str) else None

    unnamed = [c for c in consts if c not in entry.consts and role(c) in _TILES]
    rules: dict[str, Rule] = {}
    problems: list[str] = []
    for c in consts:
        rule, kind = entry.consts.get(c), role(c)
        if rule is None and kind in _TILES and entry.tile is not None and len(unnamed) == 1:
            rule = entry.tile
        if rule is None:
            if kind == "unused":
                rules[c] = Fixed(1)  # (the kernel does nothing with it: any value)
            elif kind in _TILES and len(unnamed) > 1:
                problems.append(f"{struct} has several tiles ({', '.join(unnamed)}), and the mapping's row "
                                f"`{entry.name}` does not say which dimension each is over")
            else:
                problems.append(f"no rule of the mapping chooses {struct}'s const generic {c}")
            continue
        if isinstance(rule, Tile | Block | Cover | Exact) and kind in ("value", "flag", "unused"):
            problems.append(f"the mapping's row `{entry.name}` chooses {c} as a tile, but {struct} uses it as "
                            f"{'a ' + kind if kind != 'unused' else 'nothing'}, no tile (its facts)")
            continue
        if isinstance(rule, Block) and kind in ("cover", "exact"):
            what = "masked, with no loop over it" if kind == "cover" else "with no mask"
            problems.append(f"the mapping's row `{entry.name}` chooses {c} as any block over the "
                            f"{_what(rule.size)}, but {struct} reads its tile {c} whole ({what}: its facts), "
                            "so a block narrower than that would drop data")
            continue
        if isinstance(rule, Tile):
            rule = rule.rule(kind)
        elif isinstance(rule, Cover) and kind == "exact":
            rule = Exact(rule.size)
        rules[c] = rule
    return rules, problems[0] if problems else ""


def apply_problem(struct: str, consts: dict[str, Any], input_shapes: Sequence[Sequence[int]],
                  output_shape: Sequence[int], roles: dict[str, dict[str, Any]] | None = None) -> str | None:
    """What is wrong with running the op ``struct`` (configured with ``consts``; ``roles``: its
    kernel's const-generic facts, :func:`const_rules`) on these shapes, by the rows that map it:
    an output shape its row says it cannot have (an elementwise or row op keeps its input's
    shape), or a block that would drop data (a :class:`Cover` narrower than the size, an
    :class:`Exact` not equal to it). None when nothing is known to be wrong."""
    output_shape = [int(s) for s in output_shape]
    for entry in TABLE:
        if struct not in entry.op:
            continue
        if entry.layout in ("flat", "rows") and input_shapes:
            same = {tuple(int(d) for d in s) for s in input_shapes}
            if len(same) == 1 and list(next(iter(same))) != output_shape:
                kind = "elementwise" if entry.layout == "flat" else "a row-by-row op"
                return (f"{struct} is {kind} (the mapping's row `{entry.name}`): its output has its input's shape "
                        f"{list(next(iter(same)))}, not {output_shape}")
        cols = output_shape[-1] if output_shape else 1
        rules, _ = const_rules(entry, struct, {c: "" for c in consts}, roles or {})
        for const, rule in rules.items():
            value = consts.get(const)
            if not isinstance(value, int) or not isinstance(rule, (Cover, Exact)) or rule.size != "cols":
                continue
            if isinstance(rule, Cover) and value < cols:
                return (f"{const}={value} would drop data: {struct} reads a row in one block (the mapping's row "
                        f"`{entry.name}`), and the rows have {cols} elements; give {const} >= {cols} "
                        f"({next_pow2(cols)})")
            if isinstance(rule, Exact) and value != cols:
                return (f"{const}={value} does not fit: {struct} reads exactly {const} elements of each row with "
                        f"no mask (the mapping's row `{entry.name}`), and the rows have {cols}")
    return None
