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

:mod:`rs2triton.backend.plan` reads a row for each call; what a row is made of (the rules of
const generics, the records) is :mod:`rs2triton.runtime.mapping_rules`.

The rows serve the torch.compile backend (``rs2triton/backend/``) and ``RuntimeOp.apply``'s checks
(``runtime/apply.py``): a wrong ``out_shape``, a block that would drop data.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rs2triton.runtime.mapping_rules import (
    Aten,
    Block,
    Count,
    Cover,
    Dim,
    Entry,
    Exact,
    Fixed,
    Launch,
    OnesRow,
    Present,
    Rule,
    Sized,
    Table,
    Tile,
    Transposed,
    Value,
    const_rules,
    next_pow2,
)

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
