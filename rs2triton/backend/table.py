"""The mapping from torch operations to teenygrad ops: one row per operation, data only.

Each row names the torch operation (its schema, and what it is called in a captured graph),
the teenygrad op that implements it (by its Rust struct, as teenygrad names it), and how the
op's inputs, parameters, output shape and const generics come from the call
(:class:`rs2triton.backend.entry.Entry` says what each field means). The limits stated here
are the kernels' own, read from their Rust: a kernel that masks its tile (``offsets.lt(n)``)
takes any block (:class:`Block`); softmax reads a row in one masked tile and has no loop over
columns, so its block must cover the row (:class:`Cover`); log-softmax reads exactly
``BLOCK_SIZE`` columns with no mask (:class:`Exact`); the linear kernel builds tensor
descriptors (``T::make_tensor_descriptor``) over its input and weight, whose row strides must
be 16-byte multiples, and zero-padding the reduction dimension keeps the product
(``zero_pad``). To add an operation, add a row (``docs/torch-backend.md``).
"""

from __future__ import annotations

from rs2triton.backend.entry import Block, Cover, Entry, Exact, Fixed, Present

ELEMENTS = {"BLOCK_SIZE": Block("numel", hi=1024)}


def _binary(name: str, struct: str | tuple[str, ...], operator: str | None, *, alpha: bool = False, reference: str = "",
            extra: str = "", require: dict | None = None) -> Entry:
    schema = f"{name}(Tensor input, Tensor other{', *, Scalar alpha=1' if alpha else ''}{extra}) -> Tensor"
    dunder = (f"operator.{operator}", f"Tensor.__{operator}__") if operator else ()
    return Entry(name, schema, (f"torch.{name}", f"Tensor.{name}", *dunder),
                 struct if isinstance(struct, tuple) else (struct,), ("input", "other"), reference or f"torch.{name}", consts=ELEMENTS,
                 require={**({"alpha": 1} if alpha else {}), **(require or {})})


def _unary(name: str, struct: str, *, functional: bool = False, inplace: bool = False, method: bool = True,
           reference: str = "", extra: str = "", require: dict | None = None, also: tuple[str, ...] = ()) -> Entry:
    schema = f"{name}(Tensor input{', bool inplace=False' if inplace else ''}{extra}) -> Tensor"
    targets = (f"torch.{name}",) if not functional else ()
    targets += (f"torch.nn.functional.{name}",) if functional or inplace else ()
    targets += (f"Tensor.{name}",) if method else ()
    reference = reference or (f"torch.nn.functional.{name}" if inplace or functional else f"torch.{name}")
    return Entry(name, schema, targets + also, (struct,), ("input",), reference,
                 consts=ELEMENTS, require={**({"inplace": False} if inplace else {}), **(require or {})})


TABLE: tuple[Entry, ...] = (
    # ---------------------------------------------------------------- elementwise, two tensors
    _binary("add", ("ElemwiseAddForward", "VectorAdd"), "add", alpha=True),
    _binary("sub", "ElemwiseSubForward", "sub", alpha=True),
    _binary("mul", "ElemwiseMulForward", "mul"),
    _binary("div", "ElemwiseDivForward", "truediv", extra=", *, str? rounding_mode=None",
            require={"rounding_mode": None}),
    _binary("maximum", "ElemwiseMaxForward", None),
    _binary("minimum", "ElemwiseMinForward", None),
    # ---------------------------------------------------------------- activations
    _unary("relu", "ReluForward", inplace=True),
    _unary("sigmoid", "SigmoidForward", also=("torch.nn.functional.sigmoid",)),
    _unary("tanh", "TanhForward", also=("torch.nn.functional.tanh",)),
    _unary("silu", "SiluForward", functional=True, inplace=True, method=False),
    Entry("gelu", "gelu(Tensor input, *, str approximate='none') -> Tensor",
          ("torch.nn.functional.gelu",), ("GeluForward", "GeluTanhForward"), ("input",), "torch.nn.functional.gelu",
          consts=ELEMENTS, require={"approximate": "tanh"}, note="both kernels compute the tanh approximation"),
    _unary("logsigmoid", "LogsigmoidForward", functional=True, method=False),
    _unary("mish", "MishForward", functional=True, inplace=True, method=False),
    Entry("softplus", "softplus(Tensor input, Scalar beta=1, Scalar threshold=20) -> Tensor",
          ("torch.nn.functional.softplus",), ("SoftplusRuntimeOp",), ("input",), "torch.nn.functional.softplus",
          new=(Block("numel", hi=1024), "beta"), require={"threshold": 20},
          note="the kernel has no threshold: torch's default (20) is where log(1 + exp(x)) is x in f32"),
    Entry("elu", "elu(Tensor input, float alpha=1.0, bool inplace=False) -> Tensor",
          ("torch.nn.functional.elu",), ("EluRuntimeOp",), ("input",), "torch.nn.functional.elu",
          new=(Block("numel", hi=1024), "alpha"), require={"inplace": False}),
    Entry("celu", "celu(Tensor input, float alpha=1.0, bool inplace=False) -> Tensor",
          ("torch.nn.functional.celu", "torch.celu"), ("CeluRuntimeOp",), ("input",), "torch.nn.functional.celu",
          new=(Block("numel", hi=1024), "alpha"), require={"inplace": False}),
    # ---------------------------------------------------------------- elementwise math
    _unary("exp", "ElemwiseExpForward"),
    _unary("log", "ElemwiseLogForward"),
    _unary("sqrt", "ElemwiseSqrtForward"),
    _unary("abs", "ElemwiseAbsForward", also=("Tensor.__abs__",)),
    _unary("neg", "ElemwiseNegForward", also=("operator.neg", "Tensor.__neg__")),
    _unary("sin", "ElemwiseSinForward"),
    _unary("cos", "ElemwiseCosForward"),
    _unary("erf", "ElemwiseErfForward"),
    _unary("reciprocal", "ElemwiseReciprocalForward"),
    # ---------------------------------------------------------------- rows
    Entry("softmax", "softmax(Tensor input, int dim, ScalarType? dtype=None) -> Tensor",
          ("torch.softmax", "torch.nn.functional.softmax", "Tensor.softmax", "torch.special.softmax"),
          ("SoftmaxForward",), ("input",), "torch.softmax", consts={"BLOCK_SIZE": Cover("cols")},
          require={"dtype": None}, layout="rows"),
    Entry("log_softmax", "log_softmax(Tensor input, int dim, ScalarType? dtype=None) -> Tensor",
          ("torch.log_softmax", "torch.nn.functional.log_softmax", "Tensor.log_softmax"),
          ("LogSoftmaxForward",), ("input",), "torch.log_softmax", consts={"BLOCK_SIZE": Exact("cols")},
          require={"dtype": None}, layout="rows"),
    Entry("layer_norm", "layer_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, Tensor? bias=None, "
          "float eps=1e-05) -> Tensor",
          ("torch.layer_norm", "torch.nn.functional.layer_norm"),
          ("LayerNormForwardInferenceRuntimeOp", "LayerNormForward"), ("input",), "torch.nn.functional.layer_norm",
          params=("weight", "bias"), consts={"BLOCK_N": Block("cols", hi=1024)},
          new=(Block("cols", hi=1024), "eps"), layout="rows"),
    # ---------------------------------------------------------------- matrices
    Entry("linear", "linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor",
          ("torch._C._nn.linear", "torch.nn.functional.linear"), ("LinearForward",), ("input",),
          "torch.nn.functional.linear", params=("weight", "bias"),
          consts={"USE_BIAS": Present("bias"), "BLOCK_M": Block("rows", 16, 64), "BLOCK_N": Block("cols", 16, 64),
                  "BLOCK_K": Block("k", 16, 64), "GROUP_M": Fixed(8)},
          layout="matrix", zero_pad=("input", "weight")),
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
