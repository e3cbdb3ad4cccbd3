"""What rustc rejects although Triton would run it, reported where lowering meets it, in rustc's
words and with its code: E0014 for Rust's type and name rules (rustc's E0070, E0107, E0158,
E0308), E0015 for its borrow checker (E0382, E0384). Code after a call of a `loop {}` helper is
checked too (``Lowerer._check_unreachable``): such a helper returns its type parameter, not
`!`, so for rustc that code is reached.

- assigning an immutable binding (E0384): a `let` without `mut`, a parameter not declared
  `mut x`, a loop variable; a const generic is no place at all (E0070);
- using a moved ``Tile`` (E0382): teenygrad's Tile is not ``Copy``, so binding it to another
  name or passing it to a helper moves it; reading it (or its fields) afterwards is an error,
  unless the move and the use are in different branches of one `if`; a move inside a loop of a
  Tile bound outside it is one too (the next iteration would use it);
- a turbofish with the wrong number of generic arguments (E0107): DSL methods (as many as
  teenygrad's trait declares, :data:`~rs2triton.transpiler.dsl.ops.GENERIC_PARAMS`), helpers
  (their own generic parameters), and the DSL's types (``T::Tensor<D>``, ``Tile<T, D>``:
  ``frontend.items.check_generic_arity``);
- a `let` (or loop variable) named as a const generic (E0158);
- an `if` or `while` whose condition is a tensor, a pointer or a Tile rather than a `bool` (E0308).
"""

from __future__ import annotations

import re

from tree_sitter import Node

from rs2triton.rust.semantics import ConstError
from rs2triton.transpiler.dsl.ops import GENERIC_PARAMS, METHODS, NOTHING, OPS, TUPLE
from rs2triton.transpiler.frontend.items import check_generic_arity
from rs2triton.transpiler.frontend.parse import named_children, part, text
from rs2triton.transpiler.frontend.types import read_type
from rs2triton.transpiler.lowering.lowerer import BORROW_CODE, TYPE_CODE, Lowerer, unparen
from rs2triton.transpiler.lowering.names import Binding, rust_key
from rs2triton.transpiler.lowering.values import Kind, Known, Val, known_value


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


# ---------------------------------------------------------------------- assignments (E0384, E0070)


def declared(lw: Lowerer, rust: str, decl: str) -> None:
    """The binding of ``rust`` just made is a `let mut` / `mut` parameter (``"mut"``), a
    parameter (``"param"``) or a const generic (``"const"``)."""
    b = lw.names.lookup(rust)
    if b is not None:
        b.decl = decl


def is_mut(param: Node) -> bool:
    """Whether a parameter is declared `mut x: ..`."""
    return any(c.type == "mutable_specifier" for c in param.children) or part(param, "pattern").type == "mut_pattern"


def check_assign(lw: Lowerer, b: Binding, target: Node, node: Node) -> None:
    """``target = ..`` / ``target op= ..`` (``node``) of the binding ``b``: it must be mutable."""
    if b.decl == "mut":
        return
    rust = text(target)
    if b.decl == "const":  # (rustc points at the `=`)
        eq = node.child_by_field_name("operator") or next((c for c in node.children if c.type == "="), node)
        raise lw.err(eq, TYPE_CODE,
                     "invalid left-hand side of assignment (rustc's E0070)",
                     f"`{rust}` is a const generic, a value fixed at compile time: bind a new name, "
                     f"`let mut v = {rust};`")
    if b.decl == "param":
        raise lw.err(node, BORROW_CODE, f"cannot assign to immutable argument `{rust}` (rustc's E0384)",
                     f"declare the parameter mutable: `mut {rust}: ..`")
    raise lw.err(node, BORROW_CODE, f"cannot assign twice to immutable variable `{rust}` (rustc's E0384)",
                 f"make the binding mutable, `let mut {rust} = ..`, or shadow it with a new `let {rust} = ..`")


def not_a_const_generic(lw: Lowerer, rust: str, where: Node) -> None:
    """A `let` or loop variable named ``rust`` (at ``where``): Rust reads a const generic's name
    in a pattern as that constant, which it cannot match (E0158)."""
    b = lw.names.lookup(rust)
    if b is not None and b.decl == "const":
        raise lw.err(where, TYPE_CODE, f"constant parameters cannot be referenced in patterns (rustc's E0158): `{rust}`",
                     f"`{rust}` is a const generic of this kernel: bind another name")


# ---------------------------------------------------------------------- moved values (E0382)


def tile_bound(lw: Lowerer, rust: str, what: str = "Tile") -> None:
    """``rust`` was just bound to a value that is not ``Copy`` (a kernel's Tile, host code's
    ``Vec``: ``what``): from now on moves of it are tracked."""
    b = lw.names.lookup(rust)
    if b is not None:
        lw.tile_moves[id(b)] = (b, None, lw.loop_depth, what)


def reinitialized(lw: Lowerer, rust: str) -> None:
    """``rust`` is assigned a new value: a move of the old one no longer matters."""
    b = lw.names.lookup(rust)
    entry = lw.tile_moves.get(id(b)) if b is not None else None
    if entry is not None:
        lw.tile_moves[id(b)] = (entry[0], None, entry[2], entry[3])


def moved(lw: Lowerer, value: Node) -> None:
    """``value``, a Tile (or a ``Vec``), is moved here (bound to another name, passed to a helper by value)."""
    node = unparen(value)
    if node.type != "identifier":
        return
    b = lw.names.lookup(text(node))
    entry = lw.tile_moves.get(id(b)) if b is not None else None
    if entry is None:
        return
    if lw.loop_depth > entry[2]:
        raise lw.err(node, BORROW_CODE, f"use of moved value: `{text(node)}` (rustc's E0382)",
                     f"value moved here, in the previous iteration of the loop: a `{entry[3]}` is not `Copy`"
                     + ("; make a new one in the loop from its `.tensor` and `.mask`" if entry[3] == "Tile" else
                        "; borrow it (`&v`) or clone it"))
    lw.tile_moves[id(b)] = (entry[0], node, entry[2], entry[3])


def tile_use(lw: Lowerer, b: Binding, node: Node) -> None:
    """A use of the Tile bound as ``b`` at ``node``: it must not have been moved before."""
    entry = lw.tile_moves.get(id(b))
    if entry is None or entry[1] is None:
        return
    at = entry[1]
    if at.id == node.id or _exclusive(at, node):
        return
    how = ("read its `.tensor` and `.mask` before moving it, or use the value it was moved into"
           if entry[3] == "Tile" else "borrow it (`&v`) or clone it (`v.clone()`) where it is moved")
    raise lw.err(node, BORROW_CODE, f"use of moved value: `{text(node)}` (rustc's E0382)",
                 f"`{text(node)}` was moved at line {at.start_point[0] + 1} (a `{entry[3]}` is not `Copy`): {how}")


def _exclusive(a: Node, b: Node) -> bool:
    """Whether ``a`` and ``b`` lie in different branches of one `if` (only one of them runs)."""
    on_path: dict[int, Node] = {}  # ancestor of a -> its child on the way down to a
    child, n = a, a.parent
    while n is not None:
        on_path[n.id] = child
        child, n = n, n.parent
    child, n = b, b.parent
    while n is not None and n.id not in on_path:
        child, n = n, n.parent
    if n is None or n.type != "if_expression":
        return False
    cons, alt = n.child_by_field_name("consequence"), n.child_by_field_name("alternative")
    ids = {on_path[n.id].id, child.id}
    return cons is not None and alt is not None and ids == {cons.id, alt.id}


# ---------------------------------------------------------------------- generic arity (E0107)


def _arity_error(lw: Lowerer, where: Node, what: str, takes: int, given: int) -> None:
    if takes != given:
        raise lw.err(where, TYPE_CODE, f"{what} takes {_plural(takes, 'generic argument')} but "
                     f"{_plural(given, 'generic argument')} {'was' if given == 1 else 'were'} supplied (rustc's E0107)",
                     "give every generic argument, or none and let Rust infer them" if takes else
                     "remove the turbofish: nothing here is generic")


def check_op_generics(lw: Lowerer, op_name: str, generics: list[Node], node: Node) -> None:
    """``T::op::<..>(..)``: as many generic arguments as the trait's method declares (or none)."""
    for g in generics:
        check_generic_arity(g, lw.T, lw.smap)
    if generics:
        _arity_error(lw, _callee_name(node), "associated function", GENERIC_PARAMS.get(op_name, 0), len(generics))


def check_fn_generics(lw: Lowerer, fn: Node, generic_fn: Node) -> None:
    """``helper::<..>`` (``generic_fn``, a `generic_function` node) of the fn item ``fn``."""
    targs = generic_fn.child_by_field_name("type_arguments")
    given = [a for a in named_children(targs) if a.type not in ("lifetime", "line_comment", "block_comment")] \
        if targs is not None else []
    if not given:
        return
    tparams = fn.child_by_field_name("type_parameters")
    takes = len([tp for tp in named_children(tparams) if tp.type in ("type_parameter", "const_parameter")]) \
        if tparams is not None else 0
    _arity_error(lw, part(generic_fn, "function"), "function", takes, len(given))


def check_signature(lw: Lowerer, fn: Node) -> None:
    """The DSL types of a helper's parameters and result have their generic arguments (E0107)."""
    for p in named_children(part(fn, "parameters")):
        ty = p.child_by_field_name("type") if p.type == "parameter" else None
        if ty is not None:
            check_generic_arity(ty, lw.T, lw.smap)
    ret = fn.child_by_field_name("return_type")
    if ret is not None:
        check_generic_arity(ret, lw.T, lw.smap)


def _callee_name(call_node: Node) -> Node:
    """The method name of a `T::name::<..>(..)` call (where rustc points)."""
    f = part(call_node, "function")
    if f.type == "generic_function":
        f = part(f, "function")
    return f.child_by_field_name("name") or f


# ---------------------------------------------------------------------- conditions (E0308)

_NOT_TENSORS = frozenset({"program_id", "num_programs", "cdiv", "load_scalar_f32_as_i32"})  # Rust `i32`s
_TENSOR_KINDS = frozenset({Kind.TENSOR, Kind.PTRS, Kind.PTR, Kind.TILE, Kind.BLOCK_PTR, Kind.DESC})


def check_condition(lw: Lowerer, cond: Node, v: Val, what: str = "if") -> None:
    """The condition of an `if` / `while`: Rust takes a `bool`, never a tensor (a mask), a pointer
    or a Tile. Flagged where the Rust source says it is one (a DSL call, a comparison method, a
    name bound to one) and lowering agrees."""
    if v.ty.kind not in _TENSOR_KINDS and not (v.ty.kind is Kind.NONE and unparen(cond).type == "field_expression"):
        return
    found = _rust_type(lw, unparen(cond), 0)
    if found is None:
        return
    raise lw.err(cond, TYPE_CODE, f"mismatched types: expected `bool`, found `{found}` (rustc's E0308)",
                 f"`{what}` takes a `bool`; a tensor of bools is a mask: pass it to `{lw.T}::load` / "
                 f"`{lw.T}::store`, or select with `{lw.T}::where_(mask, a, b)`")


def _rust_type(lw: Lowerer, node: Node, depth: int) -> str | None:
    """The DSL type the Rust source gives ``node``, where it is plainly a tensor, pointer or Tile
    (None: a `bool`, a scalar, or not plain from the source alone)."""
    if depth > 32:
        return None
    node = unparen(node)
    T = lw.T
    if node.type == "call_expression":
        func = part(node, "function")
        if func.type == "generic_function":
            func = part(func, "function")
        if func.type == "scoped_identifier" and text(func.child_by_field_name("path") or func) == T:
            op = OPS.get(text(part(func, "name")))
            if op is None or op.name in _NOT_TENSORS or op.returns in (NOTHING, TUPLE):
                return None
            return f"{T}::Pointer<..>" if op.name in ("make_block_ptr", "advance", "make_tensor_descriptor") \
                else f"{T}::Tensor<..>"
        if func.type == "field_expression" and text(part(func, "field")) in METHODS:
            recv = _rust_type(lw, part(func, "value"), depth + 1)
            if recv is None:
                return None
            return recv if text(part(func, "field")) == "add_offsets" else f"{T}::BoolTensor"
        return None
    if node.type == "binary_expression" and text(part(node, "operator")) in ("+", "-", "*", "/", "%", "&", "|", "^"):
        left, right = (_rust_type(lw, part(node, s), depth + 1) for s in ("left", "right"))
        return left or right
    if node.type == "struct_expression" and \
            text(part(node, "name")).replace(" ", "").split("<")[0].removesuffix("::").split("::")[-1] == "Tile":
        return f"Tile<{T}, ..>"
    if node.type == "field_expression" and text(part(node, "field")) in ("tensor", "mask"):
        base = _rust_type(lw, part(node, "value"), depth + 1)
        if base is None or not base.startswith("Tile"):
            return None
        return f"{T}::Tensor<..>" if text(part(node, "field")) == "tensor" else f"Option<{T}::BoolTensor>"
    if node.type == "identifier":
        decl = _declaration(node)
        if decl is None:
            return None
        kind, at = decl
        if kind == "param":
            ty = read_type(at).source
            if "Tile<" in ty:
                return f"Tile<{T}, ..>"
            return ty if ty.startswith(f"{T}::") or "Ptr<" in ty or ty.split("<")[0] in ("In", "Out", "InOut") else None
        ann = at.child_by_field_name("type")
        if ann is not None:
            ty = read_type(ann).source
            return ty if ty.startswith(f"{T}::") or ty.startswith("Tile<") else None
        value = at.child_by_field_name("value")
        return _rust_type(lw, value, depth + 1) if value is not None else None
    return None


def _declaration(use: Node) -> tuple[str, Node] | None:
    """Where the name ``use`` reads is bound, by Rust's scoping: ("let", the `let` binding it as a
    plain name) or ("param", the parameter's type) of the fn it is in; None for anything else (a
    tuple pattern, a loop variable, a name of the tiled prelude this cannot see...)."""
    rust = text(use)
    at = use
    while at.parent is not None:
        parent = at.parent
        if parent.type == "function_item":
            for p in named_children(part(parent, "parameters")):
                pattern = p.child_by_field_name("pattern") if p.type == "parameter" else None
                if pattern is not None and text(pattern).removeprefix("mut").strip() == rust:
                    return "param", part(p, "type")
            return None
        if parent.type in ("for_expression", "closure_expression"):
            pattern = parent.child_by_field_name("pattern")
            if pattern is not None and _names(rust, pattern):
                return None
        if parent.type == "block":
            for sib in reversed([c for c in parent.named_children if c.end_byte <= at.start_byte]):
                if sib.type == "let_declaration":
                    pattern = sib.child_by_field_name("pattern")
                    if pattern is None:
                        continue
                    if pattern.type in ("identifier", "mut_pattern") and text(pattern).removeprefix("mut").strip() == rust:
                        return "let", sib
                    if _names(rust, pattern):  # bound by a tuple pattern: not plain from here
                        return None
        at = parent
    return None


# ---------------------------------------------------------------------- constant propagation (lints)


def bound_known(lw: Lowerer, rust: str, v: Val, *, const_item: bool, typed: bool) -> None:
    """The binding of ``rust`` just made holds ``v``: where rustc's constant propagation may know
    its value (a constant, or a name of one), the binding keeps it (see :class:`Known`), with its
    own name as a `let` it goes through (a `const` item's is always known). ``typed``: the
    binding's type is written (`let x: u8 = 255;`), not inferred from its uses."""
    k = known_value(v)
    if k is None:
        return
    b = lw.names.lookup(rust)
    if b is not None:
        b.known = Known(k.value, k.via if const_item else (*k.via, rust_key(rust)),
                        k.weak and not typed and not const_item)



def known_to_rustc(lw: Lowerer, via: tuple[str, ...]) -> bool:
    """Whether rustc's lints (``unconditional_panic``, ``arithmetic_overflow``) know a value that
    went through the `let`s ``via`` (:attr:`Known.via`) too. They run on rustc's constant propagation, which follows a local only when the
    function assigns it once and never borrows it: a `let` of a constant (or a `let mut` no
    statement assigns again) whose name is never the operand of `&`, the receiver of a method
    that takes `&self` (`clone`, `cmp`, `to_string`...), inside a macro's arguments (`format!`
    and the asserts borrow them; `vec!` copies them) or a closure (which captures it). Names are
    checked by their Rust text over the whole function, shadowed or not, so a doubt always means
    "not known": rs2triton never rejects what rustc accepts. (Asked only when a check would
    fail: the function is walked then, once.)"""
    if not via:
        return True  # (a `const` item, or literals: always known)
    found = lw.untracked
    if found is None:
        found = lw.untracked = _untracked(lw.fn)
    return not any(rust_key(n) in found for n in via)


class lints_on:  # noqa: N801 - (used as a function: `with rustc.lints_on(lw, node, via):`)
    """A check of rustc's lints on values its constant propagation knows through the `let`s ``via``:
    what the block rejects (a ``semantics.ConstError``) is rustc's error at ``node`` when rustc knows
    those values too (kept by ``Lowerer.rust_rules``), and nothing when it does not; ``failed``
    says whether the block rejected them."""

    __slots__ = ("lw", "node", "via", "failed")

    def __init__(self, lw: Lowerer, node: Node, via: tuple[str, ...]):
        self.lw, self.node, self.via, self.failed = lw, node, via, False

    def __enter__(self) -> lints_on:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: object) -> bool:
        if not isinstance(exc, ConstError):
            return False
        self.failed = True
        return self.lw.rust_rules(self.node).__exit__(exc_type, exc, tb) if known_to_rustc(self.lw, self.via) else True


def const_known(lw: Lowerer, ident: str, v: Val) -> Known | None:
    """What rustc's lints know of the module `const` ``ident`` whose value ``v`` a target just
    lowered (they know every const item's value: `b / ZERO` is rejected), kept for its other reads."""
    k = known_value(v)
    if k is not None:
        lw.ctx.known_consts[ident] = Known(k.value)
    return lw.ctx.known_consts.get(ident)


_MAY_BORROW = {"reference_expression", "assignment_expression", "compound_assignment_expr"}
# the methods a number has that take `&self` (the rest take `self`: no borrow)
_BY_REFERENCE = frozenset({"clone", "to_string", "to_owned", "cmp", "partial_cmp", "eq", "ne", "lt", "le", "gt", "ge",
                           "hash", "fmt", "borrow", "borrow_mut", "as_ref", "as_mut", "clone_from"})
_IDENT = re.compile(r"(?:r#)?[^\W\d]\w*")
_BORROWED = re.compile(r"&\s*(?:mut\s+)?((?:r#)?[^\W\d]\w*)")


def _untracked(fn: Node) -> set[str]:
    """The names ``fn`` assigns, borrows, calls a `&self` method on, or uses in a macro's arguments
    or a closure (see :func:`known_to_rustc`)."""
    found: set[str] = set()
    stack = [fn]
    while stack:
        n = stack.pop()
        kind = n.type
        if kind == "macro_invocation" and text(n.child_by_field_name("macro") or n) == "vec":
            found.update(rust_key(m.group(1)) for m in _BORROWED.finditer(text(n)))  # (`vec![z]` copies `z`)
            continue
        if kind in ("macro_invocation", "closure_expression"):
            found.update(rust_key(m.group()) for m in _IDENT.finditer(text(n)))
            continue
        if kind in _MAY_BORROW:
            target = unparen(n.child_by_field_name("value" if kind == "reference_expression" else "left") or n)
            if target.type == "identifier":
                found.add(rust_key(text(target)))
        elif kind == "call_expression":
            callee = n.child_by_field_name("function") or n
            if callee.type == "field_expression" and text(callee.child_by_field_name("field") or n) in _BY_REFERENCE:
                receiver = unparen(callee.child_by_field_name("value") or n)
                if receiver.type == "identifier":
                    found.add(rust_key(text(receiver)))
        stack.extend(n.named_children)
    return found


def _names(rust: str, pattern: Node) -> bool:
    return re.search(rf"(?<![\w$]){re.escape(rust)}(?!\w)", text(pattern)) is not None
