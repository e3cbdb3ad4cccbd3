"""Rust's operand type rules, for both targets: what rustc's type check rejects in ``a op b``,
``a op= b`` and a value where a type is expected (``let s: i64 = n``), in rustc's words, code and
place. Kernels and host code are one language: the same statement gets the same verdict in a
``#[kernel]`` and in an ``impl`` (tests/test_typeck.py holds both to rustc).

Rust converts no operand: ``i32 + i64`` is E0308 at the right operand, ``f32 + 1`` E0277 at the
operator, ``n > 1.5`` E0308 at the right operand, ``true + 1`` and ``f32 & b`` E0369 (the left type
has no such operator at all), ``n && b`` E0308 at the operand that is no ``bool``. An unsuffixed
literal (``Val.weak``) takes the other operand's type where its class (integer, float) allows.

The DSL's tensors have the operators the trait states (teeny-triton's ``Triton``:
``I32Tensor: Add<i32> + Sub<i32> + Mul<i32> + Div<i32>``, ``Tensor<D>: Add<Tensor<D>>`` ...): an
integer tensor's ``+ - * /`` takes an ``i32``, so a float there (``offsets + 1.5``) is E0308 at it.
Other tensor operands are left to the bounds a kernel's ``where`` clause may add.

Casts and unary operators too: only a ``bool`` is cast to a ``bool`` (E0054), a ``bool`` only to
an integer (E0606), a float has no ``!`` (E0600), ``-1 as u32`` negates a ``u32`` (E0600).

Rust infers an unsuffixed literal's `let` from its uses: the typing pass (lowering/typing.py, run
over the body before it is lowered, for both targets) answers first; where it knows nothing, host
code joins integer `let`s by its lowerer's hooks (``inferred_int``, ``int_let_met``; no-ops for
kernels) and kernels with ``Lowerer.let_types`` (a `let`'s Rust
type: ``{integer}`` until a use types it, :func:`_met`) and ``Val.rust`` (a value's Rust type where
lowering holds Triton's promoted one: :func:`typed`), read by the checks only."""

from __future__ import annotations

import ast
import dataclasses
from typing import TYPE_CHECKING

from tree_sitter import Node

from rs2triton.rust import semantics
from rs2triton.rust.types import FLOAT_TYPES, INT_TYPES, SCALARS
from rs2triton.transpiler.frontend.parse import named_children, text
from rs2triton.transpiler.lowering.lowerer import names_in, unparen
from rs2triton.transpiler.lowering.typing import branch_tails
from rs2triton.transpiler.lowering.values import Kind, Val

if TYPE_CHECKING:
    from rs2triton.transpiler.lowering.lowerer import Lowerer

# values of Rust's own number types and bool (not a kernel's loop index: Triton's `range` types it i32,
# where Rust infers it from the bounds and the uses)
_PRIMITIVE = frozenset({Kind.SCALAR, Kind.CONST})
_ARITH = frozenset({"+", "-", "*", "/", "%"})
_BITS = frozenset({"&", "|", "^"})
_SHIFTS = frozenset({"<<", ">>"})
COMPARISONS = frozenset({"<", "<=", ">", ">=", "==", "!="})
_TENSOR_OPS = frozenset({"+", "-", "*", "/"})  # the integer tensor's `Add<i32>` .. `Div<i32>`


def e0277(op: str, a: str, b: str) -> str:
    """rustc's E0277 (and E0369) words for ``a op b`` without an implementation."""
    words = {"+": f"cannot add `{b}` to `{a}`", "-": f"cannot subtract `{b}` from `{a}`",
             "*": f"cannot multiply `{a}` by `{b}`", "/": f"cannot divide `{a}` by `{b}`",
             "%": f"cannot calculate the remainder of `{a}` divided by `{b}`"}
    return words.get(op, f"no implementation for `{a} {op} {b}`")


# the class of a Rust scalar type, of `{integer}` and `{float}` (an unsuffixed literal's)
_CLASSES = {**dict.fromkeys(INT_TYPES, "int"), **dict.fromkeys(FLOAT_TYPES, "float"), "bool": "bool",
            "{integer}": "int", "{float}": "float"}
_class = _class_of = _CLASSES.get


def _scalar(lw: Lowerer, v: Val) -> str | None:
    """``v``'s Rust scalar type where lowering knows it (``{integer}``/``{float}``: an unsuffixed
    literal or a `let` of one no use has typed yet, whose type Rust still infers), else None."""
    if v.ty.kind not in _PRIMITIVE or v.ty.elem not in SCALARS:
        return None
    if v.rust is not None:
        return v.rust
    if v.weak:
        return _WEAK.get(_CLASSES.get(v.ty.elem, ""))
    if lw.let_types:
        e = v.expr.operand if isinstance(v.expr, ast.UnaryOp) else v.expr  # (`-eps`: what `eps` is)
        if isinstance(e, ast.Name) and e.id in lw.let_types:
            return lw.let_types[e.id]
    return v.ty.elem


rust_type = _scalar


def _met(lw: Lowerer, v: Val, vt: str | None, t: str | None) -> None:
    """``v`` (of the Rust type ``vt``) met the concrete type ``t`` where Rust needs one type: where
    ``vt`` is still inferred, the `let`s of unsuffixed literals in it (not typed by a use yet) take
    ``t``, as Rust's inference does at their first such use."""
    if t is None or _weak(t) or not lw.let_types or vt is None or not _weak(vt):
        return
    for n in names_in(v.expr):
        had = lw.let_types.get(n)
        if had is not None and _weak(had) and _class_of(had) == _class(t):
            lw.let_types[n] = t


def typed(lw: Lowerer, op: str, types: tuple[str, str] | None, out: Val) -> Val:
    """``out``, the value of an operator whose operands are of the Rust types ``types`` (what
    :func:`check_operands` gave), with its Rust type where that is not its lowered one (``u8 &
    {integer}`` is a ``u8``; Triton's promotion may say ``i32``)."""
    if types is None or op in COMPARISONS:
        return out
    a, b = types
    t = a if op in _SHIFTS or not _weak(a) or _weak(b) else b
    if t == out.ty.elem and not _weak(t) or _scalar(lw, out) == t:
        return out
    return dataclasses.replace(out, rust=t)


def _weak(t: str) -> bool:
    return t in ("{integer}", "{float}")


_WEAK = {"int": "{integer}", "float": "{float}"}


def _found(t: str) -> str:
    """How rustc's E0308 names a found type: `i64`, or "integer" / "floating-point number"."""
    return {"{integer}": "integer", "{float}": "floating-point number"}.get(t, f"`{t}`")


def _at(node: Node, field: str) -> Node:
    """Where rustc points in ``node``: its operand or operator (``field``)."""
    return node.child_by_field_name(field) or node


def check_operands(lw: Lowerer, op: str, left: Val, right: Val, node: Node) -> tuple[str, str] | None:
    """What rustc's type rules reject in ``left op right`` (``node``: a binary expression or a
    compound assignment, whose fields name the operands and the operator); the operands' Rust types
    (for :func:`typed`), where both are known."""
    if op in ("&&", "||"):
        for v, side in ((left, "left"), (right, "right")):
            if v.ty.elem not in ("bool", None) and v.ty.kind in (Kind.SCALAR, Kind.CONST):
                t = _scalar(lw, v) or v.ty.elem
                raise lw.rejects(_at(node, side), "E0308", f"mismatched types: expected `bool`, found {_found(t)}",
                                 f"`{op}` takes two `bool`s; compare the value (`x != 0`)")
        return None
    if left.ty.kind is Kind.TENSOR and left.ty.elem in INT_TYPES and op in _TENSOR_OPS:
        r = _scalar(lw, right)
        if r is not None and _class_of(r) == "float":
            raise lw.rejects(_at(node, "right"), "E0308", f"mismatched types: expected `{left.ty.elem}`, found "
                             f"{_found(r)}", f"an integer tensor's `{op}` takes an `{left.ty.elem}`; convert the "
                             f"tensor with `{lw.T}::cast` first")
        return None
    a, b = _scalar(lw, left), _scalar(lw, right)
    if a is None or b is None:
        if left.ty.kind in _PRIMITIVE or right.ty.kind in _PRIMITIVE:  # (else tensors: the trait's operators)
            _inferred(lw, op, left, right, a, b, node)
        return None
    ca, cb = _class_of(a), _class_of(b)
    hint = "Rust converts no operand: cast one with `as`"
    if op in COMPARISONS:
        if a == b or (ca == cb and (_weak(a) or _weak(b))):
            _met(lw, left, a, b)
            _met(lw, right, b, a)
            return a, b
        if _weak(a) and _weak(b):
            raise lw.rejects(_at(node, "operator"), "E0277", f"can't compare `{a}` with `{b}`", hint)
        expected = {"{integer}": "integer", "{float}": "float"}.get(a, f"`{a}`")
        raise lw.rejects(_at(node, "right"), "E0308", f"mismatched types: expected {expected}, found {_found(b)}", hint)
    if ca == "float" and (op in _BITS or op in _SHIFTS) or ca == "bool" and (op in _ARITH or op in _SHIFTS):
        raise lw.rejects(_at(node, "operator"), "E0369", e0277(op, a, b), f"`{a}` has no `{op}`")
    if op in _SHIFTS:
        if cb != "int":
            raise lw.rejects(_at(node, "operator"), "E0277", e0277(op, a, b), "a shift's amount is an integer")
        return a, b
    if a == b or (ca == cb and (_weak(a) or _weak(b))):
        _met(lw, left, a, b)
        _met(lw, right, b, a)
        return a, b
    if ca != cb or _weak(a) or _weak(b):
        if op == "+" and _weak(a) and _weak(b):
            raise lw.rejects(_at(node, "operator"), "E0277", f"cannot add a{'n integer' if cb == 'int' else ' float'} to "
                             f"a{'n integer' if ca == 'int' else ' float'}", hint)
        raise lw.rejects(_at(node, "operator"), "E0277", e0277(op, a, b), hint)
    raise lw.rejects(_at(node, "right"), "E0308", f"mismatched types: expected `{a}`, found `{b}`", hint)


def _inferred(lw: Lowerer, op: str, left: Val, right: Val, a: str | None, b: str | None, node: Node) -> None:
    """``left op right`` where an operand's type is not known yet: an integer `let` whose type Rust
    infers from its uses (host code), which takes the other operand's."""
    left_node, right_node = node.child_by_field_name("left") or node, node.child_by_field_name("right") or node
    operator = node.child_by_field_name("operator") or node
    # (a tensor's element type is no operand type: its operators are the trait's, checked above)
    ea = left.ty.elem if left.ty.kind in _PRIMITIVE else None
    eb = right.ty.elem if right.ty.kind in _PRIMITIVE else None
    if (ea in FLOAT_TYPES and lw.inferred_int(right)) or (eb in FLOAT_TYPES and lw.inferred_int(left)):
        raise lw.rejects(operator, "E0277", e0277(op, a or "{integer}", b or "{integer}"),
                         "an integer `let` is no float: cast it with `as`")
    if op in _SHIFTS:  # (a shift's amount has a type of its own)
        return
    ta, tb = (ea if ea in SCALARS else None) or lw.int_let_type(left), \
        (eb if eb in SCALARS else None) or lw.int_let_type(right)
    if ta in INT_TYPES and tb in INT_TYPES and ta != tb and not (left.weak or right.weak):
        raise lw.rejects(right_node, "E0308", f"mismatched types: expected `{ta}`, found `{tb}`",
                         "Rust converts no operand: cast one with `as`")
    lw.int_let_met(right, None if left.weak or ea not in SCALARS else ea, right_node)  # (`b | n`: `n` is `b`'s type)
    lw.int_let_met(left, None if right.weak or eb not in SCALARS else eb, left_node)


def check_expected(lw: Lowerer, want: str | None, v: Val, node: Node, hint: str | None = None) -> None:
    """``v`` where the context expects a value of the scalar type ``want`` (a `let` annotation, an
    assignment): rustc's E0308 for a value of another type (an unsuffixed literal of another class
    too: ``let f: f32 = 1``)."""
    if want not in SCALARS:
        return
    t = _scalar(lw, v)
    if t is None or t == want or _weak(t) and _class_of(t) == _class(want):
        _met(lw, v, t, want)
        return
    if hint is None and _weak(t) and t == "{integer}" and want in FLOAT_TYPES:
        hint = "write a float literal (`1.0`)"
    raise lw.rejects(node, "E0308", f"mismatched types: expected `{want}`, found {_found(t)}",
                     hint if hint is not None else f"convert it with `as {want}`")


def check_method_operand(lw: Lowerer, method: str, receiver: Val, arg: Val, node: Node) -> None:
    """The argument of ``receiver.add_offsets(arg)`` or of a comparison method (``offs.lt(arg)``):
    the trait takes integer offsets (``AddOffsets<i32, 1, I32Tensor>``), and an integer tensor is
    compared with an ``i32`` (``Comparison<i32>``): a float there is rustc's E0308 at it."""
    if method != "add_offsets" and not (receiver.ty.kind is Kind.TENSOR and receiver.ty.elem in INT_TYPES):
        return
    t = _scalar(lw, arg) or (arg.ty.elem if arg.ty.kind is Kind.TENSOR else None)
    if t is None or _class_of(t) != "float":
        return
    expected = f"{lw.T}::I32Tensor" if method == "add_offsets" else receiver.ty.elem
    raise lw.rejects(node, "E0308", f"mismatched types: expected `{expected}`, found {_found(t)}",
                     "offsets are integers: convert with `as i32` or `T::cast`" if method == "add_offsets"
                     else f"an integer tensor is compared with an `{receiver.ty.elem}`")


def negated_literal(node: Node) -> bool:
    """Whether ``node`` is `-1` or `-(1)`: an unsuffixed integer literal, negated."""
    if node.type != "unary_expression" or text(node.children[0]) != "-":
        return False
    operand = unparen(named_children(node)[0])
    parsed = semantics.parse_int_literal(text(operand)) if operand.type == "integer_literal" else None
    return parsed is not None and parsed[1] is None


def check_compound_operand(lw: Lowerer, op: str, elem: str | None, right: Node) -> None:
    """``x op= -1`` with ``x`` unsigned: the literal's type is inferred through the operator's trait
    (``AddAssign<u8>``), so rustc says the trait bound ``u8: Neg`` is not satisfied (E0277) where
    ``let y: u8 = -1`` is its E0600."""
    if op in ("<<", ">>") or elem not in INT_TYPES or SCALARS[elem].signed or not negated_literal(unparen(right)):
        return
    raise lw.rejects(unparen(right), "E0277", f"the trait bound `{elem}: Neg` is not satisfied",
                     "unsigned values cannot be negated; subtract instead (`x -= 1`)")


def check_assigned(lw: Lowerer, want: str | None, v: Val, node: Node) -> None:
    """``x = v`` where ``x`` is of the Rust type ``want`` (``{integer}``/``{float}``: a `let` of an
    unsuffixed literal no use typed yet, which takes any type of its class): rustc's E0308 for
    another."""
    if want in ("{integer}", "{float}"):
        t = _scalar(lw, v)
        if t is not None and _class_of(t) != _class_of(want):
            raise lw.rejects(node, "E0308", f"mismatched types: expected {_found(want)}, "
                             f"found {_found(t)}", "Rust converts no value: cast it with `as`")
        return
    check_expected(lw, want, v, node)


def check_pattern_names(lw: Lowerer, pattern: Node, annotation: Node | None, value: Node | None = None,
                        mutable: bool = False) -> None:
    """The names a `let` pattern or a parameter binds: ``None`` is no name but `Option`'s variant, a
    pattern of an `Option<_>`, so ``let None = 5;`` and ``fn f(None: i32)`` are rustc's E0308 at it
    (``annotation``, ``value``: what rustc says was expected), and ``let mut None`` (a binding that
    would shadow the variant; ``mutable``: a `let mut`) its E0530."""
    if b"None" not in (pattern.text or b""):  # (nearly every pattern: no walk)
        return
    stack = [(pattern, mutable)]
    while stack:
        n, binding = stack.pop()
        if n.type == "identifier" and text(n) == "None":
            if binding:
                what = "function parameters" if pattern.type == "parameter" else "let bindings"
                raise lw.rejects(n, "E0530", f"{what} cannot shadow unit variants",
                                 "`None` is `Option`'s variant, not a name: choose another name")
            literal = unparen(value) if value is not None else None
            expected = f"`{text(annotation)}`" if annotation is not None else \
                {"integer_literal": "integer", "float_literal": "floating-point number"}.get(
                    literal.type if literal is not None else "", "`_`")
            raise lw.rejects(n, "E0308", f"mismatched types: expected {expected}, found `Option<_>`",
                             "`None` is a pattern of `Option`, not a name: choose another name")
        if n.type in ("tuple_pattern", "mut_pattern", "reference_pattern", "ref_pattern", "parameter"):
            inner = binding or n.type in ("mut_pattern", "ref_pattern") or (
                n.type == "parameter" and any(c.type == "mutable_specifier" for c in n.children))
            stack.extend((c, inner) for c in n.named_children if c.type != "mutable_specifier")


def cast(lw: Lowerer, v: Val, target: str) -> Val:
    """``x as target``'s value, of the Rust type ``target`` whatever lowering kept (a cast to the
    lowered type gives back the same value: ``n as i32`` of a `let n = 3;`)."""
    if target not in SCALARS or v.ty.kind not in _PRIMITIVE or _scalar(lw, v) == target:
        return v
    return dataclasses.replace(v, rust=target)


def check_branches(lw: Lowerer, want: str | None, value: Node) -> None:
    """``let x: want = if c { a } else { b };``: each branch's value is a ``want`` (rustc's E0308 at
    the first that is not, as the typing pass found the branches' types), in both targets; without
    an annotation (``want`` None) each is the first branch's type (rustc's E0308, "`if` and `else`
    have incompatible types", at the first that is not)."""
    if value.type != "if_expression" or want is not None and want not in SCALARS:
        return
    first = want
    for tail in branch_tails(value):
        t = lw.typing.tail_type(tail.id)
        if t is None:
            continue
        if first is None:
            first = t
            continue
        if t == first or _class_of(t) == _class_of(first) and (_weak(t) or _weak(first)):
            continue
        if want is None:
            raise lw.rejects(tail, "E0308", "`if` and `else` have incompatible types",
                             f"the first branch is {_found(first)}, this one {_found(t)}: convert one with `as`")
        hint = "write a float literal (`1.0`)" if t == "{integer}" and want in FLOAT_TYPES else f"convert it with `as {want}`"
        raise lw.rejects(tail, "E0308", f"mismatched types: expected `{want}`, found {_found(t)}", hint)


def check_cast(lw: Lowerer, v: Val, target: str, node: Node) -> None:
    """``v as target``: only a ``bool`` is cast to a ``bool`` (rustc's E0054), and a ``bool`` only to
    an integer (E0606)."""
    t = _scalar(lw, v) or ("{integer}" if lw.inferred_int(v) else None)
    if t is None:
        return
    t = {"{integer}": "i32", "{float}": "f64"}.get(t, t)  # (`as` infers nothing for its operand: Rust's fallback)
    if target == "bool" and t != "bool":
        raise lw.rejects(node, "E0054", f"cannot cast `{t}` as `bool`", "compare with zero instead (`x != 0`)")
    if t == "bool" and target in FLOAT_TYPES:
        raise lw.rejects(node, "E0606", f"casting `bool` as `{target}` is invalid",
                         "cast through an integer (`b as u8 as f32`)")


def check_negated(lw: Lowerer, v: Val, node: Node) -> None:
    """``-v`` of an unsigned integer is rustc's E0600, ``v``'s Rust type being what counts (a kernel's
    `let x = 0;` that a use makes a `u8` is lowered as an i32)."""
    later = lw.typing.negated_before_known(node.id) if v.ty.kind in _PRIMITIVE and (
        v.ty.elem in INT_TYPES or v.ty.elem is None) and not v.weak else None
    if later is not None:  # (`let x = 0; let y: u8 = -x;`: rustc learns `x: u8` after the `-`)
        if later in INT_TYPES and not SCALARS[later].signed:
            raise lw.rejects(node, "E0277", f"the trait bound `{later}: Neg` is not satisfied",
                             "unsigned values cannot be negated; use a signed type")
        return
    t = None if v.weak else _scalar(lw, v)
    if t in INT_TYPES and not SCALARS[t].signed:
        raise lw.rejects(node, "E0600", f"cannot apply unary operator `-` to type `{t}`",
                         "unsigned values cannot be negated; use a signed type")


def check_unary(lw: Lowerer, op: str, v: Val, node: Node) -> None:
    """``!v``: a float has no ``!`` (rustc's E0600)."""
    t = _scalar(lw, v)
    if op == "!" and t is not None and _class_of(t) == "float":
        raise lw.rejects(node, "E0600", f"cannot apply unary operator `!` to type `{t}`",
                         "`!` is a bool's negation or an integer's bitwise not; compare the float instead")
