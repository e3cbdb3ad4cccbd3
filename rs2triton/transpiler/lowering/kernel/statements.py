"""The kernel target's statements: `let` (with shadowing, tuple patterns, compile-time bindings,
Tiles and block pointers), `const` items in a body, assignments, compound assignments, `return;`,
nested blocks, nested fn items and `if` statements. (The statements both targets share are in
:mod:`..statements`; host code's in :mod:`..host.statements`.)"""

from __future__ import annotations

import ast
import re

from tree_sitter import Node

from rs2triton.rust.types import INT_TYPES, SCALARS
from rs2triton.transpiler.frontend.items import check_generic_arity
from rs2triton.transpiler.frontend.parse import named_children, part, text
from rs2triton.transpiler.frontend.types import read_type
from rs2triton.transpiler.lowering import rustc, typeck
from rs2triton.transpiler.lowering.kernel.control import if_statement, if_value, simple_if
from rs2triton.transpiler.lowering.lowerer import COMMENTS, UNSUPPORTED_HINTS, Lowerer
from rs2triton.transpiler.lowering.names import Binding
from rs2triton.transpiler.lowering.operators import binop
from rs2triton.transpiler.lowering.registry import KERNEL, statement
from rs2triton.transpiler.lowering.values import UNKNOWN, BlockPtr, Kind, TileParts, Ty, Val
from rs2triton.transpiler.pyast import attr_path, literal_value, name


@statement("function_item", target=KERNEL)
def nested_fn(lw: Lowerer, node: Node) -> None:
    """A fn item in the body (`#[inline(always)] fn helper(..) { .. }`): no statement of its own;
    it is a @triton.jit helper of the module, made where it is called (helpers.call_helper)."""
    return None


@statement("expression_statement", target=KERNEL)
def expression_statement(lw: Lowerer, node: Node) -> None:
    lw.as_statement(named_children(node)[0])


@statement("block", target=KERNEL)
def nested_block(lw: Lowerer, node: Node) -> None:
    """A nested block: its own Rust scope, but no Python block."""
    with lw.names.scope(python_block=False):
        lw.stmts(list(node.named_children), node)


@statement("let_declaration", target=KERNEL)
def let(lw: Lowerer, node: Node) -> None:
    pattern = part(node, "pattern")
    value = node.child_by_field_name("value")
    if value is None:
        raise lw.err(node, "E0002", "`let` without an initializer is not supported",
                     "initialize the variable where it is declared (an `if` expression works)")
    if node.child_by_field_name("alternative") is not None:
        raise lw.err(node, "E0002", "`let ... else` is not supported", UNSUPPORTED_HINTS["match_expression"])
    if node.child_by_field_name("type") is not None:
        check_generic_arity(part(node, "type"), lw.T, lw.smap)
    annotated = annotation_elem(lw, node.child_by_field_name("type"))
    second = node.child(1)  # `let mut x`: the specifier follows `let` (unless a comment comes first)
    mutable = second is not None and (second.type == "mutable_specifier" or (
        second.type in COMMENTS and any(c.type == "mutable_specifier" for c in node.children)))
    type_node = node.child_by_field_name("type")
    typeck.check_branches(lw, read_type(type_node).scalar if type_node is not None else None, value)
    if pattern.type in ("identifier", "mut_pattern"):
        rust = text(pattern).removeprefix("mut").strip()
        rustc.not_a_const_generic(lw, rust, named_children(pattern)[-1] if pattern.type == "mut_pattern" else pattern)
        bind_new(lw, rust, value, annotated, node, mutable or pattern.type == "mut_pattern")
        typeck.check_pattern_names(lw, pattern, node.child_by_field_name("type"), value, mutable)  # (after the value, as rustc)
        if mutable or pattern.type == "mut_pattern":
            rustc.declared(lw, rust, "mut")
        return
    if text(pattern) == "_":  # `let _ = expr;` evaluates for its effect
        lw.as_statement(value)
        return
    if pattern.type == "tuple_pattern":
        names: list[str | None] = []
        tuple_items = [c for c in pattern.children if c.type not in ("(", ")", ",", *COMMENTS)]
        for p in tuple_items:
            if text(p) == "_":
                names.append(None)
                continue
            if p.type not in ("identifier", "mut_pattern"):
                raise lw.err(p, "E0002", "only plain names can be bound in a tuple pattern")
            bound_name = text(p).removeprefix("mut").strip()
            rustc.not_a_const_generic(lw, bound_name, named_children(p)[-1] if p.type == "mut_pattern" else p)
            names.append(bound_name)
        v = lw.expr(value)
        typeck.check_pattern_names(lw, pattern, node.child_by_field_name("type"), value, mutable)
        items = v.ty.items if v.ty.kind is Kind.TUPLE else ()
        targets: list[ast.expr] = []
        for i, bound in enumerate(names):
            ity = items[i] if i < len(items) else UNKNOWN
            py = "_" if bound is None else lw.names.declare(bound, ity)
            if bound is not None and text(tuple_items[i]).startswith("mut"):
                rustc.declared(lw, bound, "mut")
            targets.append(ast.Name(id=py, ctx=ast.Store()))
        lw.emit(ast.Assign(targets=[ast.Tuple(elts=targets, ctx=ast.Store())], value=v.expr), node)
        return
    raise lw.err(pattern, "E0002", f"unsupported pattern `{text(pattern)}`", "bind a plain name or a tuple of names")


@statement("const_item", target=KERNEL)
def const_item(lw: Lowerer, node: Node) -> None:
    bind_new(lw, text(part(node, "name")), part(node, "value"), None, node, False)


def annotation_elem(lw: Lowerer, ty_node: Node | None) -> str | None:
    """The element type a `let` annotation names (`i32`, `T::Tensor<f32>`), if any."""
    if ty_node is None:
        return None
    t = read_type(ty_node)
    if t.scalar is not None:
        return t.scalar
    elem = t.generic(f"{lw.T}::Tensor")
    return elem.head if elem is not None and not elem.args and re.fullmatch(r"\w+", elem.head) else None


def bind_new(lw: Lowerer, rust: str, value: Node, annotated: str | None, node: Node, mutable: bool) -> None:
    """`let rust = value;`: a new binding of the name (shadowing the old one)."""
    prev_expected, prev_target = lw.expected_elem, lw.let_target
    lw.expected_elem, lw.let_target = annotated, (value, rust)
    try:
        if value.type == "if_expression" and not simple_if(value):
            py = lw.names.declare_pending(rust)
            stmt, ty = if_value(lw, value, py)
            lw.emit(stmt, node)
            lw.names.bind(rust, py, ty)
            # (`let y = if c { 0.5 } else { 1e-3 };`: a `{float}` whose type the uses give it)
            _let_type(lw, py, annotated if annotated in SCALARS else lw.typing.let_class(node.id), ty, node)
            return
        v = lw.expr(value)
    finally:
        lw.expected_elem, lw.let_target = prev_expected, prev_target
    if v.block_ptr is not None:
        py = lw.names.declare(rust, v.ty)
        bind_block_ptr(lw, py, v.block_ptr, node, fresh=True)
        return
    if v.tile is not None:
        if mutable:
            raise lw.err(node, "E0002", "a mutable `Tile` binding is not supported",
                         "bind a new Tile with `let` (Tiles are moved, not changed, in teenygrad)")
        rustc.moved(lw, value)  # `let u = t;` moves `t`
        bind_tile(lw, rust, v, node)
        return
    if value.type != "if_expression":  # (an `if`'s branches are checked each: typeck.check_branches)
        typeck.check_expected(lw, annotated, v, value)  # (`let s: i64 = n;` with `n: i32`)
    # (`let eps = 1e-5;`: a `{float}` until a use types it; `let z = x & y;`: the Rust type of `x & y`)
    rust_ty = typeck.rust_type(lw, v) if annotated is None else annotated if annotated in SCALARS else None
    if annotated is None and value.type == "if_expression" and lw.typing.let_class(node.id) is not None:
        rust_ty = lw.typing.let_class(node.id)  # (branches of unsuffixed literals: typed by the uses, below)
    ty = v.ty
    if annotated and ty.compile_time and annotated in SCALARS:
        ty = Ty(Kind.CONST, annotated)
    if (ty.kind is Kind.CONST or (v.static_choice and not ty.compile_time)) and not mutable:
        # Triton turns a plain `x = 4` into a runtime tensor; an immutable compile-time
        # `let` stays compile-time (a shape, an arange bound, a weakly typed scalar).
        py = lw.names.declare(rust, ty, constexpr=True)
        lw.emit(ast.AnnAssign(target=ast.Name(id=py, ctx=ast.Store()), annotation=attr_path("tl.constexpr"),
                              value=v.expr, simple=1), node)
        _let_type(lw, py, rust_ty, ty, node)
        rustc.bound_known(lw, rust, v, const_item=node.type == "const_item", typed=annotated is not None)
        return
    if mutable:
        v = lw.narrow(v, value)  # a `let mut` may be loop-carried: keep its Rust type
        ty = v.ty
        if ty.compile_time:
            # `let mut i = 0;` is a runtime value from here on (it may change in a loop):
            # nothing computed from it may be treated as compile-time.
            ty = Ty(Kind.SCALAR, ty.elem)
    py = lw.names.declare(rust, ty)
    _let_type(lw, py, rust_ty, ty, node)
    if mutable:
        lw.names.mutable.add(py)
    lw.assign(py, v.expr, node)
    rustc.bound_known(lw, rust, v, const_item=False, typed=annotated is not None)


def _let_type(lw: Lowerer, py: str, rust: str | None, ty: Ty, node: Node) -> None:
    """``py`` is bound by the `let` ``node`` to a value of the Rust type ``rust``: kept
    (``Lowerer.let_types``) where it is not its lowered type (`u8 & {integer}` lowered as i32; an
    unsuffixed literal's `{integer}`: the type the typing pass found its uses give it, if one does)."""
    if rust in ("{integer}", "{float}"):
        rust = lw.typing.let_type(node.id) or rust
    if rust is not None and rust != ty.elem or rust in ("{integer}", "{float}"):
        lw.let_types[py] = rust
    else:
        lw.let_types.pop(py, None)


@statement("return_expression", target=KERNEL)
def return_(lw: Lowerer, node: Node) -> None:
    """A bare `return;` ends the program early (`if row >= n { return; }`)."""
    if named_children(node):
        raise lw.err(node, "E0002", "kernels return no value",
                     "write results with `T::store`; a bare `return;` may end a program early")
    if lw.loop_depth:
        raise lw.err(node, "E0002", "`return` inside a loop is not supported by Triton",
                     "move the early exit before the loop, or guard the loop body with `if`")
    if lw.kernel is None:
        raise lw.err(node, "E0002", "a combine function returns its tail expression",
                     "end the body with the value instead of `return`")
    lw.emit(ast.Return(value=None), node)


def _target(lw: Lowerer, node: Node) -> Binding:
    if node.type != "identifier":
        raise lw.err(node, "E0002", "only plain variables can be assigned to", UNSUPPORTED_HINTS["index_expression"])
    b = lw.names.lookup(text(node))
    if b is None:
        raise lw.err(node, "E0006", f"cannot find value `{text(node)}` in this scope")
    return b


@statement("assignment_expression", target=KERNEL)
def assignment(lw: Lowerer, node: Node) -> None:
    left, right = part(node, "left"), part(node, "right")
    b = _target(lw, left)
    rustc.check_assign(lw, b, left, node)
    if right.type == "if_expression" and not simple_if(right):
        stmt, _ = if_value(lw, right, b.py)
        lw.emit(stmt, node)
        return
    settled = _settled(lw, b)
    v = lw.narrow(_typed_by(lw, settled, right, left), right)
    # (`x = 0.1;` with `let mut x: i64`; `let mut a = 0;` takes an integer of any type, once)
    typeck.check_assigned(lw, lw.let_types.get(b.py, settled), v, right)
    assigned = typeck.rust_type(lw, v)
    if b.py in lw.let_types and assigned is not None and assigned in SCALARS:
        lw.let_types[b.py] = assigned  # (`a = m;`: `a` is `m`'s type from the `let` on)
    if v.block_ptr is not None or b.py in lw.block_ptrs:
        if v.block_ptr is None or b.py not in lw.block_ptrs:
            raise lw.err(node, "E0002", "a block pointer can only be assigned to a block pointer")
        bind_block_ptr(lw, b.py, v.block_ptr, node, fresh=False)
        return
    lw.assign(b.py, v.expr, node)


@statement("compound_assignment_expr", target=KERNEL)
def compound_assignment(lw: Lowerer, node: Node) -> None:
    left, right = part(node, "left"), part(node, "right")
    op_text = text(part(node, "operator"))[:-1]
    b = _target(lw, left)
    rustc.check_assign(lw, b, left, node)
    settled = _settled(lw, b)
    typeck.check_compound_operand(lw, op_text, settled, right)
    rhs = lw.narrow(_typed_by(lw, settled if op_text not in ("<<", ">>") else None, right, left), right)
    current = Val(name(b.py), b.ty)
    typeck.check_operands(lw, op_text, current, rhs, node)  # (`x += b` takes a `b` of `x`'s type, as `x + b` does)
    # `x op= y` is `x = x op y`, with every rule of `op` (truncation, fmod...).
    e = binop(lw, op_text, current, rhs, node).expr
    if isinstance(e, ast.BinOp) and isinstance(e.left, ast.Name) and e.left.id == b.py and e.right is rhs.expr:
        lw.emit(ast.AugAssign(target=ast.Name(id=b.py, ctx=ast.Store()), op=e.op, value=e.right), node)
    else:
        lw.assign(b.py, e, node)


def _typed_by(lw: Lowerer, settled: str | None, right: Node, left: Node) -> Val:
    """``right`` lowered where it is assigned to a binding of the integer type ``settled``: an
    unsuffixed literal in it is one of that type (`x = -1;` and `x += -1` with `x: u8`; out of its
    range, rustc's lint), as in a `let` with that annotation."""
    if settled not in INT_TYPES:
        return lw.expr(right)
    saved = lw.expected_elem, lw.let_target
    lw.expected_elem, lw.let_target = settled, (right, text(left))
    try:
        return lw.expr(right)
    finally:
        lw.expected_elem, lw.let_target = saved


def _settled(lw: Lowerer, b: Binding) -> str | None:
    """``b``'s Rust scalar type where it is settled (not a `let` of an unsuffixed literal no use typed)."""
    t = lw.let_types.get(b.py, b.ty.elem)
    return t if b.ty.kind in (Kind.SCALAR, Kind.CONST) and t in SCALARS and b.ty.elem in SCALARS else None


@statement("if_expression", target=KERNEL)
def if_(lw: Lowerer, node: Node) -> None:
    lw.emit(if_statement(lw, node), node)


def bind_tile(lw: Lowerer, rust: str, v: Val, node: Node) -> None:
    """`let t = Tile { tensor, mask };`: each field a Python local of its own (``t_tensor``,
    ``t_mask``), unless it is one already; the name stands for the pair."""
    assert v.tile is not None
    py = lw.names.declare(rust, v.ty)
    rustc.tile_bound(lw, rust)

    def local(field: Val, suffix: str) -> Val:
        if field.ty.compile_time:
            return field
        if isinstance(field.expr, ast.Name) and field.expr.id not in lw.names.mutable:
            lw.names.pinned.add(field.expr.id)  # read by the Tile from now on: kept as it is
            return field
        tmp = lw.names.fresh(f"{py}_{suffix}")
        lw.assign(tmp, field.expr, node)
        return Val(name(tmp), field.ty, block_ptr=field.block_ptr)

    tensor = local(v.tile.tensor, "tensor")
    mask = local(v.tile.mask, "mask") if v.tile.mask is not None else None
    lw.tiles[py] = TileParts(tensor, mask)


def bind_block_ptr(lw: Lowerer, py: str, bp: BlockPtr, node: Node, fresh: bool) -> None:
    """Give a block pointer's offsets variables of their own (``{py}_off0``...)."""
    if fresh:
        parts = [lw.names.fresh_local(f"{py}_off{i}") for i in range(len(bp.offsets))]
        fixed = BlockPtr(snapshot(lw, bp.base, f"{py}_base", node),
                         [snapshot(lw, e, f"{py}_shape{i}", node) for i, e in enumerate(bp.shape)],
                         [snapshot(lw, e, f"{py}_stride{i}", node) for i, e in enumerate(bp.strides)],
                         [name(v) for v in parts], bp.block, py)
        lw.block_ptrs[py] = fixed
    target = lw.block_ptrs[py]
    if len(bp.offsets) != len(target.offsets):
        raise lw.err(node, "E0002", "block pointers of different ranks cannot be assigned")
    for var, value in zip(target.offsets, bp.offsets, strict=True):
        assert isinstance(var, ast.Name)
        if isinstance(value, ast.Name) and value.id == var.id:
            continue  # advanced by 0 along this dim
        lw.assign(var.id, value, node)


def snapshot(lw: Lowerer, e: ast.expr, base: str, node: Node) -> ast.expr:
    """Keep a name or literal as is; store anything else once, so later code cannot change it."""
    if isinstance(e, (ast.Name, ast.Constant)) or literal_value(e) is not None:
        return e
    var = lw.names.fresh(base)
    lw.assign(var, e, node)
    return name(var)

