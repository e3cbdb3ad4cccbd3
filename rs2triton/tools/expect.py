"""``rs2triton run --expect OUT=EXPR``: a torch expression of a launch's inputs, evaluated by an
allow-list, never by Python's ``eval``.

What an expression may hold: the inputs' names (tensors and scalars); numbers, strings,
``True``/``False``/``None``; arithmetic, comparisons, ``and``/``or``/``not``, conditional
expressions, indexing and slicing, tuples and lists; the methods and properties of a tensor
(``x.sum(dim=1)``, ``x.T``, ``x.shape``; never a name that starts with ``_``); and calls of the
torch functions listed in :data:`FUNCTIONS` (``torch.softmax(x, dim=1)``,
``torch.nn.functional.gelu(x, approximate="tanh")``) and the dtypes in :data:`DTYPES`. Nothing
else: no other attribute of a module (``torch.os``, ``torch.save``), no attribute of a value
that is not a tensor, no dunder, no lambda or comprehension. Each is checked before the
launch (:func:`check`) and again as it is evaluated (:func:`evaluate`).
"""

from __future__ import annotations

import ast
import operator
from types import ModuleType
from typing import Any

# torch's functions an expression may call, by the name it writes (`torch.X` or
# `torch.nn.functional.X`).
FUNCTIONS = frozenset({
    *(f"torch.{n}" for n in (
        "abs", "acos", "add", "addmm", "all", "allclose", "amax", "amin", "any", "arange", "argmax", "argmin",
        "asin", "atan", "atan2", "bmm", "broadcast_to", "cat", "ceil", "clamp", "clip", "cos", "cosh", "cummax",
        "cummin", "cumprod", "cumsum", "diag", "div", "dot", "einsum", "eq", "erf", "exp", "exp2", "expm1",
        "flatten", "flip", "floor", "floor_divide", "fmod", "full", "full_like", "gather", "ge", "gt", "isfinite",
        "isinf", "isnan", "le", "lerp", "log", "log10", "log1p", "log2", "log_softmax", "logical_and",
        "logical_not", "logical_or", "logsumexp", "lt", "matmul", "max", "maximum", "mean", "min", "minimum", "mm",
        "mul", "ne", "neg", "norm", "ones", "ones_like", "outer", "permute", "pow", "prod", "reciprocal",
        "remainder", "reshape", "round", "rsqrt", "sigmoid", "sign", "sin", "sinh", "softmax", "sort", "sqrt",
        "square", "squeeze", "stack", "std", "sub", "sum", "t", "tan", "tanh", "tensor", "tile", "topk",
        "transpose", "tril", "triu", "trunc", "unsqueeze", "var", "where", "zeros", "zeros_like")),
    *(f"torch.nn.functional.{n}" for n in (
        "avg_pool2d", "celu", "conv1d", "conv2d", "cross_entropy", "dropout", "elu", "gelu", "hardsigmoid",
        "hardswish", "hardtanh", "layer_norm", "leaky_relu", "linear", "log_softmax", "logsigmoid", "max_pool2d",
        "mish", "mse_loss", "nll_loss", "normalize", "pad", "relu", "relu6", "rms_norm", "selu", "sigmoid",
        "silu", "softmax", "softplus", "softsign", "tanh", "tanhshrink")),
})
DTYPES = frozenset(f"torch.{n}" for n in (
    "float16", "bfloat16", "float32", "float64", "half", "float", "double", "int8", "int16", "int32", "int64",
    "uint8", "bool", "long", "int"))

_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
           ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
           ast.MatMult: operator.matmul, ast.BitAnd: operator.and_, ast.BitOr: operator.or_,
           ast.BitXor: operator.xor, ast.LShift: operator.lshift, ast.RShift: operator.rshift}
_UNARY = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert, ast.Not: operator.not_}
_COMPARE = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
            ast.Gt: operator.gt, ast.GtE: operator.ge}


class NotAllowed(ValueError):
    """What an expression may not hold, said in its terms."""


def _dotted(node: ast.expr) -> str | None:
    """``torch.nn.functional.relu`` of an attribute chain on a name, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return ".".join([node.id, *reversed(parts)])
    return None


def check(text: str, names: set[str] | None = None) -> ast.Expression:
    """``text`` parsed, if an allowed expression (of the inputs ``names``, where given)."""
    tree = ast.parse(text, mode="eval")
    _check(tree.body, names)
    return tree


def _check(node: ast.expr, names: set[str] | None) -> None:
    path = _dotted(node) if isinstance(node, ast.Attribute) else None
    if path is not None and path.split(".")[0] == "torch":
        if path not in FUNCTIONS and path not in DTYPES:
            raise NotAllowed(f"`{path}` is not allowed here (a listed torch function or dtype)")
        return
    if isinstance(node, ast.Name):
        if node.id == "torch":
            raise NotAllowed("`torch` alone is not allowed here (only a listed function of it: `torch.softmax(..)`)")
        if node.id in ("True", "False", "None"):
            return
        if node.id.startswith("_") or (names is not None and node.id not in names):
            raise NotAllowed(f"`{node.id}` is not an input of the kernel" if not node.id.startswith("_")
                             else f"`{node.id}` is not allowed here (no private or special names)")
        return
    if isinstance(node, ast.Attribute):
        if node.attr.startswith("_"):
            raise NotAllowed(f"`{node.attr}` is not allowed here (no private or special names)")
        _check(node.value, names)
        return
    if isinstance(node, ast.Constant):
        if not isinstance(node.value, int | float | complex | str | bool | type(None)):
            raise NotAllowed(f"a constant of type {type(node.value).__name__} is not allowed here")
        return
    if isinstance(node, ast.Call):
        for kw in node.keywords:
            if kw.arg is None:
                raise NotAllowed("`**` arguments are not allowed here")
        if any(isinstance(a, ast.Starred) for a in node.args):
            raise NotAllowed("`*` arguments are not allowed here")
        for child in (node.func, *node.args, *(kw.value for kw in node.keywords)):
            _check(child, names)
        return
    children: list[Any]
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        children = [node.left, node.right]
    elif isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        children = [node.operand]
    elif isinstance(node, ast.Compare) and all(type(op) in _COMPARE for op in node.ops):
        children = [node.left, *node.comparators]
    elif isinstance(node, ast.BoolOp):
        children = list(node.values)
    elif isinstance(node, ast.IfExp):
        children = [node.test, node.body, node.orelse]
    elif isinstance(node, ast.Subscript):
        children = [node.value, node.slice]
    elif isinstance(node, ast.Slice):
        children = [c for c in (node.lower, node.upper, node.step) if c is not None]
    elif isinstance(node, ast.Tuple | ast.List):
        children = list(node.elts)
    else:
        raise NotAllowed(f"{type(node).__name__} is not allowed here (a torch expression of the inputs)")
    for child in children:
        _check(child, names)


def evaluate(text: str, inputs: dict[str, Any]) -> Any:
    """The value of an allowed expression of ``inputs`` (torch is imported: a launch ran)."""
    import torch

    tree = check(text, set(inputs))
    return _Evaluator(torch, inputs).value(tree.body)


class _Evaluator:
    def __init__(self, torch: ModuleType, inputs: dict[str, Any]):
        self.torch = torch
        self.inputs = inputs

    def _resolve(self, path: str) -> Any:
        obj = self.torch
        for part in path.split(".")[1:]:
            obj = getattr(obj, part)
        return obj

    def value(self, node: ast.expr) -> Any:
        path = _dotted(node) if isinstance(node, ast.Attribute) else None
        if path is not None and path.split(".")[0] == "torch":
            return self._resolve(path)  # (one of FUNCTIONS or DTYPES: check said so)
        if isinstance(node, ast.Name):
            return {"True": True, "False": False, "None": None}.get(node.id, self.inputs.get(node.id))
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Attribute):
            receiver = self.value(node.value)
            if not isinstance(receiver, self.torch.Tensor):  # (a tensor's methods and properties only)
                raise NotAllowed(f"`.{node.attr}` of a {type(receiver).__name__} is not allowed here (only of a tensor)")
            return getattr(receiver, node.attr)
        if isinstance(node, ast.Call):
            func = self.value(node.func)
            return func(*[self.value(a) for a in node.args], **{kw.arg: self.value(kw.value) for kw in node.keywords
                                                                   if kw.arg is not None})
        if isinstance(node, ast.BinOp):
            return _BINARY[type(node.op)](self.value(node.left), self.value(node.right))
        if isinstance(node, ast.UnaryOp):
            unary: Any = _UNARY[type(node.op)]
            return unary(self.value(node.operand))
        if isinstance(node, ast.Compare):
            left, result = self.value(node.left), True
            for op, right_node in zip(node.ops, node.comparators, strict=True):
                right = self.value(right_node)
                result = result & _COMPARE[type(op)](left, right)
                left = right
            return result
        if isinstance(node, ast.BoolOp):
            values = [self.value(v) for v in node.values]
            out = values[0]
            for v in values[1:]:
                out = (out and v) if isinstance(node.op, ast.And) else (out or v)
            return out
        if isinstance(node, ast.IfExp):
            return self.value(node.body) if self.value(node.test) else self.value(node.orelse)
        if isinstance(node, ast.Subscript):
            return self.value(node.value)[self.value(node.slice)]
        if isinstance(node, ast.Slice):
            return slice(*(self.value(c) if c is not None else None for c in (node.lower, node.upper, node.step)))
        if isinstance(node, ast.Tuple):
            return tuple(self.value(e) for e in node.elts)
        if isinstance(node, ast.List):
            return [self.value(e) for e in node.elts]
        raise NotAllowed(f"{type(node).__name__} is not allowed here")  # pragma: no cover (check refused it)
