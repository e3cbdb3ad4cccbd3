"""Lowering: a kernel's tree-sitter tree -> a Python ``ast.FunctionDef`` for Triton.

One method per tree-sitter node kind: ``stmt_<kind>`` for statements and
``expr_<kind>`` for expressions. A node kind without a method is reported as an
unsupported construct, located at the node. Op calls (``T::load(...)``) are
looked up in :mod:`rs2triton.transpiler.dsl.ops`; how each is built is a rule in
:mod:`rs2triton.transpiler.lowering.rules`.

Expressions lower to :class:`Val`: the Python AST plus a small static type
(:class:`Ty`) so that Rust's semantics survive the trip (integer ``/`` must
truncate, ``!`` is logical on bools and bitwise on ints, compile-time values
cannot be ``.to()``-cast, and so on).
"""

from __future__ import annotations

import ast
import contextlib
import functools
import re

from tree_sitter import Node

from rs2triton.diagnostics import SourceMap, TranspileError
from rs2triton.rust import semantics
from rs2triton.rust.types import (
    FLOAT_CONSTANTS,
    FLOAT_TYPES,
    INT_BITS,
    INT_TYPES,
    SCALARS,
    TRITON_DTYPES,
    bound,
    float_limit,
)
from rs2triton.transpiler.dsl.ops import (
    ENUMS,
    F32_MATH,
    KEEPS_F32,
    METHODS,
    OPS,
    REQUIRED,
    UNSUPPORTED,
    Op,
    Param,
)
from rs2triton.transpiler.frontend.items import Kernel
from rs2triton.transpiler.frontend.parse import named_children, text
from rs2triton.transpiler.lowering.loops import CountedLoop, counted_loops
from rs2triton.transpiler.lowering.names import Binding, Names
from rs2triton.transpiler.lowering.rules import SPECIAL_RULES
from rs2triton.transpiler.pyast import (
    LOAD,
    NONE_TY,
    OMIT,
    UNKNOWN,
    BlockPtr,
    Ty,
    Val,
    _Omit,
    attr_path,
    call,
    comment_lines,
    comment_marker,
    const,
    exact_in_f32,
    float_const,
    is_comment_marker,
    is_default,
    literal_value,
    name,
    python_name,
    shape_form,
)
from rs2triton.transpiler.record import Record

# Why a construct is not in the DSL, and what to write instead.
UNSUPPORTED_HINTS = {
    "match_expression": "Triton has no pattern matching; use `if` / `else if` chains",
    "loop_expression": "use `while cond { ... }` or `for i in 0..n { ... }`",
    "break_expression": "Triton loops cannot exit early; fold the condition into a mask or the loop bound",
    "continue_expression": "Triton loops cannot skip iterations; guard the body with `if` or a mask",
    "return_expression": "kernels return no value; write results with `T::store` (a bare `return;` may end a program early)",
    "closure_expression": "closures are not part of the DSL; write a plain `fn` (combine functions are passed by name)",
    "macro_invocation": "macros are not part of the DSL; use `T::device_print`, `T::static_print` or `T::static_assert`",
    "index_expression": "tensors cannot be indexed; compute pointer offsets and use `T::load`",
    "unsafe_block": "`unsafe` has no meaning in a kernel; remove it",
    "async_block": "kernels are not async",
    "struct_expression": "structs are not part of the DSL; pass values as kernel parameters",
    "await_expression": "kernels are not async",
    "try_expression": "`?` is not part of the DSL",
    "let_chain": "split the condition into nested `if`s",
    "yield_expression": "kernels cannot yield",
}


class ModuleContext(Record):
    """What lowering of one file needs beyond a single kernel."""

    __slots__ = _fields = ("smap", "functions", "consts", "imports", "helpers", "used_consts", "lowering_helpers",
                           "evaluating_consts", "param_comments")

    def __init__(self, smap: SourceMap, functions: dict[str, Node], consts: dict[str, Node]):
        self.smap = smap
        self.functions = functions
        self.consts = consts
        self.imports: set[str] = set()
        self.helpers: dict[str, ast.FunctionDef] = {}
        self.used_consts: dict[str, ast.stmt] = {}
        self.lowering_helpers: set[str] = set()
        self.evaluating_consts: set[str] = set()  # module consts being evaluated: cycles
        # {function: {parameter: (the comment lines above it, the comment ending its line)}}
        self.param_comments: dict[str, dict[str, tuple[list[str], str | None]]] = {}


def is_float_elem(elem: str | None, kernel: Kernel | None) -> bool | None:
    if elem is None:
        return None
    if elem in FLOAT_TYPES:
        return True
    if elem in INT_TYPES or elem == "bool":
        return False
    if kernel is not None:
        dp = kernel.dtype_param(elem)
        if dp is not None:
            return dp.is_float
    return None


_BINOPS = {
    "+": ast.Add, "-": ast.Sub, "*": ast.Mult, "%": ast.Mod, "&": ast.BitAnd, "|": ast.BitOr,
    "^": ast.BitXor, "<<": ast.LShift, ">>": ast.RShift,
}
_CMPOPS = {"<": ast.Lt, "<=": ast.LtE, ">": ast.Gt, ">=": ast.GtE, "==": ast.Eq, "!=": ast.NotEq}
_BOOLOPS = {"&&": ast.And, "||": ast.Or}
BLOCK_PTR_OPS = frozenset({"load", "store", "advance"})


_EXPR_METHODS: dict[str, str] = {}  # node type -> the name of the FunctionLowerer method for it


def _guarded(method):
    """An unexpected exception while lowering ``node`` becomes an internal error located there."""
    @functools.wraps(method)
    def lower(self, node: Node):
        # What SourceMap.guard does, inlined: this runs for every node, and a context
        # manager per node costs a tenth of lowering.
        try:
            return method(self, node)
        except (TranspileError, RecursionError):  # (too deeply nested source: see pipeline.py)
            raise
        except Exception as exc:  # noqa: BLE001 - the safety net: never a bare traceback
            raise TranspileError([self.smap.ice(node, "lowering", exc)]) from exc
    return lower


class _RustRules:
    """The context of :meth:`FunctionLowerer.rust_rules` (a plain class: it runs for every
    literal, where a generator-based context manager costs several calls)."""

    __slots__ = ("lowerer", "node")

    def __init__(self, lowerer: FunctionLowerer, node: Node):
        self.lowerer, self.node = lowerer, node

    def __enter__(self) -> None:
        return None

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is not None and issubclass(exc_type, semantics.ConstError):
            raise self.lowerer.err(self.node, "E0012", exc.message, exc.hint) from None


class FunctionLowerer:
    """Lowers one ``#[kernel]`` fn (or one combine helper) to an ``ast.FunctionDef``."""

    def __init__(self, ctx: ModuleContext, kernel: Kernel | None, fn: Node, triton: str,
                 dtype_bounds: dict[str, str] | None = None):
        self.ctx = ctx
        self.smap = ctx.smap
        self.kernel = kernel
        self.fn = fn
        self.T = triton
        self.names = Names()
        self.bodies: list[list[ast.stmt]] = [[]]
        self.dtype_bounds = dtype_bounds or {}
        self.expected_elem: str | None = None
        self.loop_depth = 0
        self.block_ptrs: dict[str, BlockPtr] = {}  # Python name of a bound block pointer -> its parts
        # Counted `while` loops lowered as `for` (see loops.py): by `while` node id, and
        # the statements they absorb (the counter's `let`, the step) by node id.
        self.counted: dict[int, CountedLoop] = {}
        self.absorbed: set[int] = set()

    # ------------------------------------------------------------------ helpers
    def err(self, node: Node, code: str, msg: str, hint: str | None = None) -> TranspileError:
        return self.smap.error(node, code, msg, hint)

    def emit(self, stmt: ast.stmt, node: Node | None = None) -> None:
        if node is not None:
            stmt.lineno = node.start_point[0] + 1  # the Rust line (see pyast)
        self.bodies[-1].append(stmt)

    def is_float(self, ty: Ty) -> bool | None:
        if ty.elem is not None and ty.elem in self.dtype_bounds:
            return bound(self.dtype_bounds[ty.elem]).is_float
        return is_float_elem(ty.elem, self.kernel)

    def narrow(self, v: Val, node: Node) -> Val:
        """A value computed in f32 for f32-only math, rounded once to its Rust type here,
        where it meets that type again (a store, an operand of a non-math op, a branch
        merge, a mutable binding). Arithmetic and f32 math keep it in f32 (docs/translation.md)."""
        if not v.ty.wide:
            return v
        dtype = self.dtype_expr(v.ty.elem, node)
        return Val(call(ast.Attribute(value=v.expr, attr="to", ctx=LOAD), [dtype]),
                   Ty(v.ty.kind, v.ty.elem), v.static_choice, v.block_ptr)

    def dtype_expr(self, rust_ty: str, node: Node) -> ast.expr:
        if rust_ty in TRITON_DTYPES:
            return attr_path(TRITON_DTYPES[rust_ty])
        if self.kernel is not None and self.kernel.dtype_param(rust_ty) is not None:
            ptr = self.kernel.pointer_for(rust_ty)
            if ptr is None:
                raise self.err(node, "E0005", f"cannot resolve dtype parameter `{rust_ty}`",
                               f"no pointer parameter is declared `{self.T}::Pointer<{rust_ty}>`, so its "
                               "element type is unknown in Python; add one or use a concrete type")
            return name(self.names.dtype_alias(rust_ty))
        raise self.err(node, "E0005", f"unknown element type `{rust_ty}`",
                       "use a dtype parameter of the kernel or one of f16, bf16, f32, f64, i8..i64, u8..u64, bool")

    # ------------------------------------------------------------- blocks/stmts
    def lower_block_into(self, block: Node, body: list[ast.stmt], scoped: bool = True) -> dict[str, Ty]:
        """Lower a `{ ... }` block's statements into ``body``; returns the names it bound."""
        with self.names.scope() if scoped else contextlib.nullcontext():
            self.bodies.append(body)
            children = named_children_with_comments(block)
            if self.smap.source.find(b"while", block.start_byte, block.end_byte) >= 0:  # (most blocks: none)
                self.find_counted_loops(children)
            try:
                self.lower_stmts(children, block)
            finally:
                self.bodies.pop()
            defined = self.names.bindings()
        if not any(not is_comment_marker(s) for s in body):
            body.append(ast.Pass())
        return defined

    def lower_stmts(self, children: list[Node], block: Node, stop: Node | None = None) -> None:
        """A block's statements up to ``stop``; `stmt; // note` (or `{ // note`) keeps the
        note at the end of that statement's (or the header's) line when it has one."""
        line_end, emitted = block.start_point[0], True
        body = self.bodies[-1]
        for child in children:
            if stop is not None and child.id == stop.id:
                break
            if child.type in ("line_comment", "block_comment") and child.start_point[0] == line_end:
                self.emit_comment(child, trailing=emitted)
                continue
            before = len(body)
            self.lower_stmt(child)
            line_end, emitted = child.end_point[0], len(body) > before

    def find_counted_loops(self, children: list[Node]) -> None:
        for loop_id, info in counted_loops(children).items():
            self.counted[loop_id] = info
            self.absorbed |= {info.let.id, info.step_stmt.id}

    @_guarded
    def lower_stmt(self, node: Node) -> None:
        if node.id in self.absorbed:
            self.emit_inner_comments(node)
            return
        kind = node.type
        if kind in ("line_comment", "block_comment"):
            self.emit_comment(node)
            return
        self.emit_inner_comments(node)
        if kind == "expression_statement":
            inner = named_children(node)[0]
            self.lower_expr_stmt(inner)
            return
        if kind in ("use_declaration", "empty_statement", "attribute_item"):
            return
        method = getattr(self, f"stmt_{kind}", None)
        if method is not None:
            method(node)
            return
        # A block's tail expression (no `;`) in statement position.
        self.lower_expr_stmt(node)

    def emit_comment(self, node: Node, trailing: bool = False) -> None:
        """A comment on lines of its own, or (``trailing``) at the end of the line before it."""
        lines = comment_lines(text(node))
        for line in lines:
            self.emit(comment_marker(line, trailing and len(lines) == 1), node)

    def emit_inner_comments(self, node: Node) -> None:
        """Comments inside a statement (between call arguments, ...) go above it: Python
        has no place for them inside an expression. Comments of nested blocks stay there."""
        src = self.smap.source
        if src.find(b"//", node.start_byte, node.end_byte) < 0 and src.find(b"/*", node.start_byte, node.end_byte) < 0:
            return  # no comment can be inside: skip the walk (most statements)
        for c in node.children:
            if c.type in ("line_comment", "block_comment"):
                self.emit_comment(c)
            elif c.type != "block":
                self.emit_inner_comments(c)

    def lower_expr_stmt(self, node: Node) -> None:
        kind = node.type
        if kind == "if_expression":
            self.emit(self.lower_if_stmt(node), node)
        elif kind == "for_expression":
            self.stmt_for(node)
        elif kind == "while_expression":
            self.stmt_while(node)
        elif kind == "block":
            # A nested block: its own Rust scope, but no Python block.
            with self.names.scope(python_block=False):
                self.lower_stmts(named_children_with_comments(node), node)
        elif kind == "return_expression":
            self.stmt_return_expression(node)
        elif kind == "assignment_expression":
            self.stmt_assign(node)
        elif kind == "compound_assignment_expr":
            self.stmt_compound_assign(node)
        else:
            v = self.expr(node)
            if isinstance(v.expr, ast.Call):
                self.emit(ast.Expr(v.expr), node)

    def stmt_let_declaration(self, node: Node) -> None:
        pattern = node.child_by_field_name("pattern")
        value = node.child_by_field_name("value")
        ty_node = node.child_by_field_name("type")
        if value is None:
            raise self.err(node, "E0002", "`let` without an initializer is not supported",
                           "initialize the variable where it is declared (an `if` expression works)")
        if node.child_by_field_name("alternative") is not None:
            raise self.err(node, "E0002", "`let ... else` is not supported", UNSUPPORTED_HINTS["match_expression"])
        annotated = self._annotation_elem(ty_node)
        second = node.child(1)  # `let mut x`: the specifier follows `let` (unless a comment comes first)
        mutable = second is not None and (second.type == "mutable_specifier" or (
            second.type in ("line_comment", "block_comment")
            and any(c.type == "mutable_specifier" for c in node.children)))
        if pattern.type in ("identifier", "mut_pattern"):
            rust = text(pattern).removeprefix("mut").strip()
            self._assign_new(rust, value, annotated, node, mutable or pattern.type == "mut_pattern")
            return
        if text(pattern) == "_":  # `let _ = expr;` evaluates for its effect
            self.lower_expr_stmt(value)
            return
        if pattern.type == "tuple_pattern":
            names = []
            for p in [c for c in pattern.children if c.type not in ("(", ")", ",", "line_comment", "block_comment")]:
                if text(p) == "_":
                    names.append(None)
                    continue
                if p.type not in ("identifier", "mut_pattern"):
                    raise self.err(p, "E0002", "only plain names can be bound in a tuple pattern")
                names.append(text(p).removeprefix("mut").strip())
            v = self.expr(value)
            items = v.ty.items if v.ty.kind == "tuple" else ()
            targets = []
            for i, rust in enumerate(names):
                ity = items[i] if i < len(items) else UNKNOWN
                py = "_" if rust is None else self.names.declare(rust, ity)
                targets.append(ast.Name(id=py, ctx=ast.Store()))
            self.emit(ast.Assign(targets=[ast.Tuple(elts=targets, ctx=ast.Store())], value=v.expr), node)
            return
        raise self.err(pattern, "E0002", f"unsupported pattern `{text(pattern)}`",
                       "bind a plain name or a tuple of names")

    def _annotation_elem(self, ty_node: Node | None) -> str | None:
        if ty_node is None:
            return None
        t = text(ty_node).replace(" ", "")
        if t in SCALARS:
            return t
        m = re.fullmatch(rf"{re.escape(self.T)}::Tensor<(\w+)>", t)
        if m:
            return m.group(1)
        return None

    def _assign_new(self, rust: str, value: Node, annotated: str | None, node: Node,
                    mutable: bool = True) -> None:
        prev_expected = self.expected_elem
        self.expected_elem = annotated
        try:
            if value.type == "if_expression" and not self._simple_if(value):
                py = self.names.declare_pending(rust)
                stmt, ty = self.lower_if_value(value, py)
                self.emit(stmt, node)
                self.names.bind(rust, py, ty)
                return
            v = self.expr(value)
        finally:
            self.expected_elem = prev_expected
        if v.block_ptr is not None:
            py = self.names.declare(rust, v.ty)
            self.bind_block_ptr(py, v.block_ptr, node, fresh=True)
            return
        ty = v.ty
        if annotated and ty.kind == "const" and annotated in SCALARS:
            ty = Ty("const", annotated)
        if (ty.kind == "const" or v.static_choice) and not mutable and ty.elem not in ("str", "list", "enum"):
            # Triton turns a plain `x = 4` into a runtime tensor; an immutable compile-time
            # `let` stays compile-time (a shape, an arange bound, a weakly typed scalar).
            py = self.names.declare(rust, ty, constexpr=True)
            self.emit(ast.AnnAssign(target=ast.Name(id=py, ctx=ast.Store()), annotation=attr_path("tl.constexpr"),
                                    value=v.expr, simple=1), node)
            return
        if mutable:
            v = self.narrow(v, value)  # a `let mut` may be loop-carried: keep its Rust type
            ty = v.ty
            if ty.kind == "const":
                # `let mut i = 0;` is a runtime value from here on (it may change in a loop):
                # nothing computed from it may be treated as compile-time.
                ty = Ty("scalar", ty.elem)
        py = self.names.declare(rust, ty)
        self.emit(ast.Assign(targets=[ast.Name(id=py, ctx=ast.Store())], value=v.expr), node)

    def stmt_return_expression(self, node: Node) -> None:
        """A bare `return;` ends the program early (`if row >= n { return; }`)."""
        if named_children(node):
            raise self.err(node, "E0002", "kernels return no value",
                           "write results with `T::store`; a bare `return;` may end a program early")
        if self.loop_depth:
            raise self.err(node, "E0002", "`return` inside a loop is not supported by Triton",
                           "move the early exit before the loop, or guard the loop body with `if`")
        if self.kernel is None:
            raise self.err(node, "E0002", "a combine function returns its tail expression",
                           "end the body with the value instead of `return`")
        self.emit(ast.Return(value=None), node)

    def stmt_const_item(self, node: Node) -> None:
        rust = text(node.child_by_field_name("name"))
        self._assign_new(rust, node.child_by_field_name("value"), None, node)

    def _target(self, node: Node) -> Binding:
        if node.type != "identifier":
            raise self.err(node, "E0002", "only plain variables can be assigned to",
                           UNSUPPORTED_HINTS["index_expression"])
        b = self.names.lookup(text(node))
        if b is None:
            raise self.err(node, "E0006", f"cannot find value `{text(node)}` in this scope")
        return b

    def stmt_assign(self, node: Node) -> None:
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        b = self._target(left)
        if right.type == "if_expression" and not self._simple_if(right):
            stmt, _ = self.lower_if_value(right, b.py)
            self.emit(stmt, node)
            return
        v = self.narrow(self.expr(right), right)
        if v.block_ptr is not None or b.py in self.block_ptrs:
            if v.block_ptr is None or b.py not in self.block_ptrs:
                raise self.err(node, "E0002", "a block pointer can only be assigned to a block pointer")
            self.bind_block_ptr(b.py, v.block_ptr, node, fresh=False)
            return
        self.emit(ast.Assign(targets=[ast.Name(id=b.py, ctx=ast.Store())], value=v.expr), node)

    def bind_block_ptr(self, py: str, bp: BlockPtr, node: Node, fresh: bool) -> None:
        """Give a block pointer's offsets variables of their own (``{py}_off0``...)."""
        if fresh:
            parts = [self.names.fresh_local(f"{py}_off{i}") for i in range(len(bp.offsets))]
            fixed = BlockPtr(self.snapshot(bp.base, f"{py}_base", node),
                             [self.snapshot(e, f"{py}_shape{i}", node) for i, e in enumerate(bp.shape)],
                             [self.snapshot(e, f"{py}_stride{i}", node) for i, e in enumerate(bp.strides)],
                             [name(v) for v in parts], bp.block, py)
            self.block_ptrs[py] = fixed
        target = self.block_ptrs[py]
        if len(bp.offsets) != len(target.offsets):
            raise self.err(node, "E0002", "block pointers of different ranks cannot be assigned")
        for var, value in zip(target.offsets, bp.offsets, strict=True):
            if isinstance(value, ast.Name) and value.id == var.id:
                continue  # advanced by 0 along this dim
            self.emit(ast.Assign(targets=[ast.Name(id=var.id, ctx=ast.Store())], value=value), node)

    def snapshot(self, e: ast.expr, base: str, node: Node) -> ast.expr:
        """Keep a name or literal as is; store anything else once, so later code cannot change it."""
        if isinstance(e, (ast.Name, ast.Constant)) or literal_value(e) is not None:
            return e
        var = self.names.fresh(base)
        self.emit(ast.Assign(targets=[ast.Name(id=var, ctx=ast.Store())], value=e), node)
        return name(var)

    def stmt_compound_assign(self, node: Node) -> None:
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        op_text = text(node.child_by_field_name("operator"))[:-1]
        b = self._target(left)
        rhs = self.narrow(self.expr(right), right)
        # `x op= y` is `x = x op y`, with every rule of `op` (truncation, fmod...).
        v = self.binop(op_text, Val(name(b.py), b.ty), rhs, node)
        e = v.expr
        if isinstance(e, ast.BinOp) and isinstance(e.left, ast.Name) and e.left.id == b.py and e.right is rhs.expr:
            self.emit(ast.AugAssign(target=ast.Name(id=b.py, ctx=ast.Store()), op=e.op, value=e.right), node)
        else:
            self.emit(ast.Assign(targets=[ast.Name(id=b.py, ctx=ast.Store())], value=e), node)

    # --------------------------------------------------------------- control flow
    def _simple_if(self, node: Node) -> bool:
        """An if-expression whose branches are single expressions (-> a Python ternary)."""
        cons = node.child_by_field_name("consequence")
        alt = node.child_by_field_name("alternative")
        if alt is None or len(named_children(cons)) != 1:
            return False
        tail = named_children(cons)[0]
        if tail.type in ("let_declaration", "expression_statement") or tail.type.endswith("_item"):
            return False
        if tail.type in ("if_expression", "block", "for_expression", "while_expression"):
            return False
        other = named_children(alt)[0]
        if other.type == "if_expression":
            return self._simple_if(other)
        parts = named_children(other)
        return len(parts) == 1 and parts[0].type not in (
            "let_declaration", "expression_statement", "if_expression", "block",
            "for_expression", "while_expression")

    def lower_if_stmt(self, node: Node) -> ast.If:
        cond = self.expr(node.child_by_field_name("condition"))
        then: list[ast.stmt] = []
        defined = self.lower_block_into(node.child_by_field_name("consequence"), then)
        orelse: list[ast.stmt] = []
        alt = node.child_by_field_name("alternative")
        if alt is not None:
            other = named_children(alt)[0]
            # Triton merges names defined in both branches; keep the branches' own lets apart.
            with self.names.else_branch(defined):
                if other.type == "if_expression":
                    orelse.append(self.lower_if_stmt(other))
                else:
                    self.lower_block_into(other, orelse)
        return ast.If(test=cond.expr, body=then, orelse=orelse)

    def lower_if_value(self, node: Node, target: str) -> tuple[ast.If, Ty]:
        """`if c { stmts; a } else { stmts; b }` as a value: assign ``target`` in each branch."""
        cond = self.expr(node.child_by_field_name("condition"))
        then: list[ast.stmt] = []
        t_ty = self._branch_value(node.child_by_field_name("consequence"), then, target)
        alt = node.child_by_field_name("alternative")
        if alt is None:
            raise self.err(node, "E0002", "an `if` used as a value needs an `else` branch")
        other = named_children(alt)[0]
        orelse: list[ast.stmt] = []
        if other.type == "if_expression":
            stmt, e_ty = self.lower_if_value(other, target)
            orelse.append(stmt)
        else:
            e_ty = self._branch_value(other, orelse, target)
        return ast.If(test=cond.expr, body=then, orelse=orelse), t_ty if t_ty.kind != "unknown" else e_ty

    def _branch_value(self, block: Node, body: list[ast.stmt], target: str) -> Ty:
        children = named_children_with_comments(block)
        real = [c for c in children if c.type not in ("line_comment", "block_comment")]
        if not real or real[-1].type in ("let_declaration", "expression_statement"):
            raise self.err(block, "E0002", "this block has no value",
                           "end the block with an expression (no trailing `;`)")
        tail = real[-1]
        with self.names.scope():
            self.bodies.append(body)
            try:
                self.lower_stmts(children, block, stop=tail)
                self.emit_inner_comments(tail)
                v = self.narrow(self.expr(tail), tail)
                self.emit(ast.Assign(targets=[ast.Name(id=target, ctx=ast.Store())], value=v.expr), tail)
                after = children[next(i for i, c in enumerate(children) if c.id == tail.id) + 1:]
                for c in after:  # comments after the block's value: on its line, or below it
                    self.emit_comment(c, trailing=c.start_point[0] == tail.end_point[0])
            finally:
                self.bodies.pop()
        return v.ty

    def stmt_for(self, node: Node) -> None:
        pattern = node.child_by_field_name("pattern")
        if pattern.type != "identifier":
            raise self.err(pattern, "E0002", "only a plain loop variable is supported")
        it = self.range_args(node.child_by_field_name("value"))
        self.emit_range_for(text(pattern), "i32", it, node)

    def emit_range_for(self, rust_var: str, elem: str, range_args: list[ast.expr], node: Node) -> None:
        """`for var in range(...)` with the loop's Rust body."""
        body: list[ast.stmt] = []
        with self.names.scope():
            var = self.names.declare(rust_var, Ty("index", elem))
            self.loop_depth += 1
            try:
                self.lower_block_into(node.child_by_field_name("body"), body)
            finally:
                self.loop_depth -= 1
        loop = ast.For(target=ast.Name(id=var, ctx=ast.Store()), iter=call("range", range_args), body=body, orelse=[])
        self.emit(loop, node)

    def range_args(self, node: Node) -> list[ast.expr]:
        """`a..b`, `a..=b`, `(a..b).step_by(s)`, `.rev()` -> range() arguments."""
        rev = False
        step: Val | None = None
        cur = node
        while True:
            if cur.type == "parenthesized_expression":
                cur = named_children(cur)[0]
                continue
            if cur.type == "call_expression" and cur.child_by_field_name("function").type == "field_expression":
                f = cur.child_by_field_name("function")
                meth = text(f.child_by_field_name("field"))
                args = named_children(cur.child_by_field_name("arguments"))
                # Adapters are met outermost first.
                if meth == "rev" and not args:
                    if rev:
                        raise self.err(cur, "E0002", "`.rev().rev()` is not supported", "drop both")
                    rev = True
                elif meth == "step_by" and len(args) == 1:
                    if rev or step is not None:
                        raise self.err(cur, "E0002", f"`.{'step_by(..).rev()' if rev else 'step_by().step_by()'}` "
                                       "is not supported",
                                       "write `(a..b).rev().step_by(s)` (from b - 1 down) or compute the bounds")
                    step = self.expr(args[0])
                elif meth == "into_iter" and not args:
                    pass
                else:
                    raise self.err(f, "E0002", f"unsupported iterator adapter `.{meth}()`",
                                   "loops run over ranges: `a..b`, `a..=b`, `.step_by(s)`, `.rev()`")
                cur = f.child_by_field_name("value")
                continue
            break
        if cur.type != "range_expression":
            raise self.err(cur, "E0002", "a `for` loop must run over a range",
                           "write `for i in 0..n { ... }`")
        parts = named_children(cur)
        if len(parts) != 2:
            raise self.err(cur, "E0002", "a loop range needs both ends", "write `a..b`")
        lo, hi = self.expr(parts[0]), self.expr(parts[1])
        inclusive = "..=" in text(cur)[len(text(parts[0])):].lstrip()[:3]
        hi_expr = ast.BinOp(left=hi.expr, op=ast.Add(), right=ast.Constant(1)) if inclusive else hi.expr
        if not rev:
            if step is None:
                return [hi_expr] if literal_value(lo.expr) == 0 else [lo.expr, hi_expr]
            return [lo.expr, hi_expr, step.expr]
        # (a..b).rev() visits b-1 down to a.
        start = hi.expr if inclusive else _minus_one(hi.expr)
        stop = _minus_one(lo.expr)
        neg = ast.UnaryOp(op=ast.USub(), operand=step.expr) if step is not None else const(-1)
        return [start, stop, neg]

    def stmt_counted_while(self, node: Node, info: CountedLoop) -> bool:
        """`let mut i = a; while i < b { ..; i += s; }` as `for i in range(a, b, s)` (see loops.py)."""
        stop, step = self.expr(info.bound), self.expr(info.step)
        if self.is_float(stop.ty) is not False or step.ty.kind != "const" or self.is_float(step.ty) is not False:
            return False  # a float bound, or a runtime step of unknown sign: keep the while
        start = self.expr(info.start)
        if self.is_float(start.ty) is not False:
            self.start_counter(info, start)
            self.absorbed.discard(info.let.id)
            return False
        if info.inclusive:
            stop = Val(_plus(stop.expr, -1 if info.descending else 1), stop.ty)
        step_expr = step.expr
        if info.descending:
            step_expr = const(-literal_value(step_expr)) if literal_value(step_expr) is not None \
                else ast.UnaryOp(op=ast.USub(), operand=step_expr)
        args = [stop.expr] if literal_value(start.expr) == 0 and literal_value(step_expr) == 1 \
            else [start.expr, stop.expr] + ([] if literal_value(step_expr) == 1 else [step_expr])
        self.emit_range_for(info.counter, start.ty.elem or "i32", args, node)
        return True

    def start_counter(self, info: CountedLoop, start: Val | None = None) -> None:
        """The absorbed `let mut i = a;` (or `i = a;`) of a loop that stays a `while`, given back."""
        start = start or self.expr(info.start)
        b = self.names.lookup(info.counter) if info.let.type != "let_declaration" else None
        if b is None:  # its `let` went to an earlier loop of the chain that became a `for`
            ty = Ty("scalar", start.ty.elem) if start.ty.kind == "const" else start.ty
            py = self.names.declare(info.counter, ty)
        else:
            py = b.py
        self.emit(ast.Assign(targets=[ast.Name(id=py, ctx=ast.Store())], value=self.narrow(start, info.start).expr),
                  info.let)

    def stmt_while(self, node: Node) -> None:
        info = self.counted.get(node.id)
        if info is not None and self.stmt_counted_while(node, info):
            return
        if info is not None:  # not a range after all: the counter's start and step come back
            self.absorbed.discard(info.step_stmt.id)
            if info.let.id in self.absorbed:
                self.absorbed.discard(info.let.id)
                self.start_counter(info)
        cond = self.expr(node.child_by_field_name("condition"))
        body: list[ast.stmt] = []
        self.loop_depth += 1
        try:
            self.lower_block_into(node.child_by_field_name("body"), body)
        finally:
            self.loop_depth -= 1
        self.emit(ast.While(test=cond.expr, body=body, orelse=[]), node)

    # ---------------------------------------------------------------- expressions
    def expr(self, node: Node) -> Val:
        """Lower an expression with its ``expr_<node type>`` method (what ``_guarded`` does,
        written out: this runs for every expression node)."""
        try:
            kind = node.type
            method = getattr(self, _EXPR_METHODS.get(kind) or _EXPR_METHODS.setdefault(kind, "expr_" + kind), None)
            if method is None:
                hint = UNSUPPORTED_HINTS.get(kind, "this Rust construct is not part of the kernel DSL")
                what = kind.replace("_expression", "").replace("_", " ")
                raise self.err(node, "E0002", f"unsupported construct: {what}", hint)
            return method(node)
        except (TranspileError, RecursionError):  # (too deeply nested source: see pipeline.py)
            raise
        except Exception as exc:  # noqa: BLE001 - the safety net: never a bare traceback
            raise TranspileError([self.smap.ice(node, "lowering", exc)]) from exc

    def expr_parenthesized_expression(self, node: Node) -> Val:
        return self.expr(named_children(node)[0])

    def expr_integer_literal(self, node: Node, negated: bool = False) -> Val:
        parsed = semantics.parse_int_literal(text(node))
        if parsed is None:
            raise self.err(node, "E0002", f"unsupported integer literal `{text(node)}`")
        value, suffix = parsed
        if suffix in ("f32", "f64"):
            return Val(const(-float(value) if negated else float(value)), Ty("const", suffix))
        with self.rust_rules(node):
            semantics.check_int_literal(value, suffix, negated)
        return Val(const(-value if negated else value), Ty("const", suffix or "i32"), weak=suffix is None)

    def rust_rules(self, node: Node) -> _RustRules:
        """What rustc rejects at compile time (see semantics.ConstError) is an E0012 at ``node``."""
        return _RustRules(self, node)

    def expr_float_literal(self, node: Node) -> Val:
        raw = text(node).replace("_", "")
        suffix = None
        for s in ("f32", "f64", "f16"):
            if raw.endswith(s):
                raw, suffix = raw[: -len(s)], s
        try:
            value = float(raw)
        except ValueError:  # `3.0f30`: rustc's "invalid suffix for float literal"
            m = re.search(r"[a-zA-Z_][a-zA-Z0-9_]*$", raw)
            what = f"invalid suffix `{m.group()}` for float literal" if m else f"invalid float literal `{text(node)}`"
            raise self.err(node, "E0001", what, "valid suffixes are `f32` and `f64`") from None
        return Val(ast.Constant(value), Ty("const", suffix or "f32"), weak=suffix is None)

    def expr_boolean_literal(self, node: Node) -> Val:
        return Val(ast.Constant(text(node) == "true"), Ty("const", "bool"))

    def expr_string_literal(self, node: Node) -> Val:
        try:
            value = _rust_string(text(node))
        except ValueError as e:
            raise self.err(node, "E0001", f"invalid string literal: {e}",
                           "Rust escapes are \\n \\r \\t \\\\ \\0 \\' \\\" \\x00-\\x7F and \\u{...}") from None
        return Val(ast.Constant(value), Ty("const", "str"))

    def expr_raw_string_literal(self, node: Node) -> Val:
        raw = text(node)
        body = raw[raw.index('"') + 1: raw.rindex('"')]
        return Val(ast.Constant(body), Ty("const", "str"))

    def expr_identifier(self, node: Node) -> Val:
        ident = text(node)
        if ident == "None":
            raise self.err(node, "E0002", "`None` is only an argument of a DSL method",
                           "it stands for an argument left at its default: `T::load(ptr, None, ...)`")
        b = self.names.lookup(ident)
        if b is not None:
            return Val(name(b.py), b.ty, block_ptr=self.block_ptrs.get(b.py))
        if ident in self.ctx.consts:
            return self.module_const(ident, node)
        if ident in self.ctx.functions:
            return self.helper_ref(ident, node)
        raise self.err(node, "E0006", f"cannot find value `{ident}` in this scope",
                       "kernels can use their parameters, const generics, local `let`s and module `const`s")

    def module_const(self, ident: str, node: Node) -> Val:
        item = self.ctx.consts[ident]
        ty_node = item.child_by_field_name("type")
        value = item.child_by_field_name("value")
        if value is None:
            raise self.smap.error(item, "E0002", f"module constant `{ident}` has no value",
                                  "give it one: `const NAME: i32 = 4;`")
        if ident in self.ctx.evaluating_consts:  # rustc's E0391
            raise self.err(node, "E0002", f"cycle detected when evaluating module constant `{ident}`",
                           "a constant cannot be defined in terms of itself")
        sub = FunctionLowerer(self.ctx, None, item, self.T)
        self.ctx.evaluating_consts.add(ident)
        try:
            v = sub.expr(value)
        finally:
            self.ctx.evaluating_consts.discard(ident)
        if v.ty.kind != "const":
            raise self.err(node, "E0002", f"module constant `{ident}` is not a compile-time value",
                           "module `const`s used by kernels must be literals or arithmetic on literals")
        elem = text(ty_node) if ty_node is not None and text(ty_node) in SCALARS else v.ty.elem
        self.ctx.used_consts[ident] = ast.Assign(
            targets=[ast.Name(id=python_name(ident), ctx=ast.Store())], value=call("tl.constexpr", [v.expr]))
        return Val(name(python_name(ident)), Ty("const", elem))

    def expr_unary_expression(self, node: Node) -> Val:
        op = text(node.children[0])
        operand = named_children(node)[0]
        if op == "-" and operand.type == "integer_literal":
            return self.expr_integer_literal(operand, negated=True)  # `-128i8` is in range
        v = self.expr(operand)
        if op == "-":
            if isinstance(v.expr, ast.Constant) and isinstance(v.expr.value, (int, float)):
                return Val(const(-v.expr.value), v.ty, weak=v.weak)
            return Val(ast.UnaryOp(op=ast.USub(), operand=v.expr), v.ty, weak=v.weak)
        if op == "!":
            lit = literal_value(v.expr)
            if v.ty.elem in INT_TYPES:
                if isinstance(lit, int):
                    return Val(const(semantics.bitwise_not(lit, v.ty.elem)), v.ty, weak=v.weak)
                lo, hi = semantics.int_limits(v.ty.elem)
                if lo == 0:
                    # Python's `~` is signed, and Triton 3.6's interpreter cannot `~` an unsigned
                    # tensor: flip the bits of an unsigned value with `^ MAX`.
                    return Val(ast.BinOp(left=v.expr, op=ast.BitXor(), right=const(hi)), v.ty)
            pyop = ast.Not() if semantics.not_is_logical(v.ty) else ast.Invert()
            return Val(ast.UnaryOp(op=pyop, operand=v.expr), v.ty)
        raise self.err(node, "E0002", f"unsupported unary operator `{op}`",
                       "references and dereferences have no meaning in a kernel")

    def _arith_op(self, op: str, left: Val, right: Val, node: Node) -> ast.operator:
        if op == "/":
            integer = semantics.int_division(self.is_float(left.ty), self.is_float(right.ty),
                                             left.ty.kind == "const", right.ty.kind == "const")
            # `//` truncates on Triton's runtime ints, as in Rust (compile-time values: see binop)
            return ast.FloorDiv() if integer else ast.Div()
        if op in _BINOPS:
            return _BINOPS[op]()
        raise self.err(node, "E0002", f"unsupported operator `{op}`")

    def expr_binary_expression(self, node: Node) -> Val:
        op = text(node.child_by_field_name("operator"))
        left = self.expr(node.child_by_field_name("left"))
        right = self.expr(node.child_by_field_name("right"))
        return self.binop(op, left, right, node)

    def binop(self, op: str, left: Val, right: Val, node: Node) -> Val:
        if left.block_ptr is not None or right.block_ptr is not None:
            raise self.err(node, "E0008", "block pointers have no arithmetic",
                           "move a block pointer with `T::advance(ptr, &[..])`")
        if op in _CMPOPS or op in _BOOLOPS:
            left, right = self.narrow(left, node), self.narrow(right, node)
        kind = semantics.join_kind(left.ty, right.ty)
        if op in _CMPOPS:
            return Val(ast.Compare(left=left.expr, ops=[_CMPOPS[op]()], comparators=[right.expr]),
                       Ty(kind, "bool"))
        if op in _BOOLOPS:
            if semantics.bool_op_is_bitwise(kind):
                pyop = ast.BitAnd() if op == "&&" else ast.BitOr()
                return Val(ast.BinOp(left=left.expr, op=pyop, right=right.expr), Ty(kind, "bool"))
            return Val(ast.BoolOp(op=_BOOLOPS[op](), values=[left.expr, right.expr]), Ty(kind, "bool"))
        pyop = self._arith_op(op, left, right, node)
        if left.ty.kind in ("ptr", "ptrs"):
            if literal_value(right.expr) == 0:
                return Val(left.expr, Ty(left.ty.kind, left.ty.elem))
            return Val(ast.BinOp(left=left.expr, op=pyop, right=right.expr), Ty("ptrs", left.ty.elem))
        elem = semantics.result_elem(left.ty, right.ty, op, self.is_float, left.weak, right.weak)
        # Rust knows the type of a suffixed literal; an unsuffixed one takes its type from the use.
        weak = left.weak if op in ("<<", ">>") else left.weak and right.weak
        folded = None
        lit_left = literal_value(left.expr)
        lit_right = literal_value(right.expr) if lit_left is not None else None
        if lit_right is not None:  # two literals: Rust computes it now
            with self.rust_rules(node):
                folded = semantics.fold(op, lit_left, lit_right, None if weak else elem)
        if folded is not None:
            return Val(const(folded), Ty("const", elem), weak=weak)
        left_float = self.is_float(left.ty)
        if (kind == "const" and (isinstance(pyop, ast.FloorDiv) and left_float is False
                                 or isinstance(pyop, ast.Mod) and left_float is not None)
                and semantics.const_div_needs_trunc(left.expr, right.expr)):
            # Compile-time values use Python's floor semantics; Rust truncates toward zero.
            quotient = call("int", [ast.BinOp(left=left.expr, op=ast.Div(), right=right.expr)])
            if isinstance(pyop, ast.FloorDiv):
                return Val(quotient, Ty("const", elem))
            rem = ast.BinOp(left=left.expr, op=ast.Sub(),
                            right=ast.BinOp(left=right.expr, op=ast.Mult(), right=quotient))
            return Val(rem, Ty("const", elem))
        lhs = left.expr
        if isinstance(pyop, ast.Mod) and kind == "scalar" and left_float:
            # Triton's float `%` is fmod, as Rust's; but the interpreter passes float arguments
            # as Python floats, whose `%` floors: make the dividend a Triton scalar.
            lhs = call("tl.cast", [lhs, self.dtype_expr(left.ty.elem, node)])
        # f32 arithmetic on a value held in f32 (Triton promotes a half operand) stays in f32.
        wide = (left.ty.wide or right.ty.wide) and elem in (left.ty.elem, right.ty.elem)
        return Val(ast.BinOp(left=lhs, op=pyop, right=right.expr), Ty(kind, elem, wide=wide))

    def expr_type_cast_expression(self, node: Node) -> Val:
        target = text(node.child_by_field_name("type"))
        v = self.expr(node.child_by_field_name("value"))
        if target not in SCALARS:
            raise self.err(node.child_by_field_name("type"), "E0002", f"cannot cast to `{target}`",
                           "`as` casts take a scalar type such as f32 or i64; use T::cast for tensors")
        return self.cast_value(v, target, node)

    def cast_value(self, v: Val, target: str, node: Node) -> Val:
        lit = literal_value(v.expr)
        if isinstance(v.expr, ast.Constant) and isinstance(v.expr.value, bool):
            lit = v.expr.value
        if isinstance(lit, int) and v.weak:
            lit = semantics.wrap_int(lit, "i32")  # `as` does not infer its operand's type: it is i32
        if lit is not None:
            return Val(const(semantics.cast_constant(lit, target)), Ty("const", target))
        if v.ty.elem == target:
            return v
        if v.ty.kind == "const" and target in INT_TYPES and v.ty.elem in INT_TYPES:
            if semantics.int_cast_keeps_value(v.ty.elem, target, not semantics.may_be_negative(v.expr)):
                return Val(v.expr, Ty("const", target))
            # A compile-time value that may not fit: wrap it as Rust does (Python ints never wrap).
            offset, modulus = semantics.wrap_terms(target)
            shifted = ast.BinOp(left=v.expr, op=ast.Add(), right=const(offset)) if offset else v.expr
            wrapped: ast.expr = ast.BinOp(left=shifted, op=ast.Mod(), right=const(modulus))
            if offset:
                wrapped = ast.BinOp(left=wrapped, op=ast.Sub(), right=const(offset))
            return Val(wrapped, Ty("const", target))
        return self.convert(v, target, node)

    def convert(self, v: Val, target: str, node: Node) -> Val:
        """A runtime conversion: ``x.to(dtype)`` on tensors, ``tl.cast(x, dtype)`` on scalars.

        Scalars may be plain Python numbers (compile-time values; loop indices and float
        arguments in the interpreter): ``tl.cast`` takes them all, ``.to`` does not.
        """
        if v.ty.wide and target == "f32" and v.ty.elem in ("f16", "bf16"):
            return Val(v.expr, Ty(v.ty.kind, target))  # already computed in f32
        if v.ty.wide and target not in ("f32", "f64"):
            v = self.narrow(v, node)
        dtype = self.dtype_expr(target, node)
        if v.ty.kind in ("tensor", "ptrs"):
            return Val(call(ast.Attribute(value=v.expr, attr="to", ctx=LOAD), [dtype]), Ty(v.ty.kind, target))
        return Val(call("tl.cast", [v.expr, dtype]), Ty("scalar", target))

    def expr_tuple_expression(self, node: Node) -> Val:
        vals = [self.narrow(self.expr(c), c) for c in named_children(node)]
        return Val(ast.Tuple(elts=[v.expr for v in vals], ctx=LOAD),
                   Ty("tuple", None, tuple(v.ty for v in vals)))

    def expr_array_expression(self, node: Node) -> Val:
        vals = [self.expr(c) for c in named_children(node)]
        return Val(ast.List(elts=[v.expr for v in vals], ctx=LOAD), Ty("const", "list"))

    def expr_reference_expression(self, node: Node) -> Val:
        inner = node.child_by_field_name("value")
        if inner.type == "array_expression":
            return self.expr(inner)
        raise self.err(node, "E0002", "references are not part of the DSL",
                       "pass the value itself; only `&[...]` slices are references in the DSL")

    def expr_block(self, node: Node) -> Val:
        """`{ stmts; tail }` as a value: hoist the statements, keep the tail."""
        children = named_children_with_comments(node)
        real = [c for c in children if c.type not in ("line_comment", "block_comment")]
        if not real or real[-1].type in ("let_declaration", "expression_statement"):
            raise self.err(node, "E0002", "this block has no value",
                           "end the block with an expression (no trailing `;`)")
        with self.names.scope(python_block=False):
            self.lower_stmts(children, node, stop=real[-1])
            self.emit_inner_comments(real[-1])
            return self.expr(real[-1])

    def expr_if_expression(self, node: Node) -> Val:
        if self._simple_if(node):
            # A ternary has no lines of its own: comments in its branches go above the statement.
            self.emit_inner_comments(node.child_by_field_name("consequence"))
            other = named_children(node.child_by_field_name("alternative"))[0]
            if other.type == "block":
                self.emit_inner_comments(other)
            cond = self.expr(node.child_by_field_name("condition"))
            body = self.narrow(self.expr(named_children(node.child_by_field_name("consequence"))[0]), node)
            other = named_children(node.child_by_field_name("alternative"))[0]
            orelse = self.narrow(self.expr(other if other.type == "if_expression" else named_children(other)[0]), node)
            elem = body.ty.elem or orelse.ty.elem
            if cond.ty.kind == body.ty.kind == orelse.ty.kind == "const":
                ty = Ty("const", elem)
            else:
                kind = semantics.join_kind(body.ty, orelse.ty)
                ty = Ty("scalar" if kind in ("const", "unknown") else kind, elem)
            picked = _min_max(cond.expr, body.expr, orelse.expr)
            if picked is not None and ty.kind != "const" and self.is_float(ty) is False:
                # `if a < b { a } else { b }` on integers is `tl.minimum(a, b)` (no branch, one op).
                return Val(call(picked[0], list(picked[1:])), ty)
            # A compile-time choice keeps a compile-time branch compile-time (see _assign_new).
            static = cond.ty.kind == "const" and "const" in (body.ty.kind, orelse.ty.kind)
            return Val(ast.IfExp(test=cond.expr, body=body.expr, orelse=orelse.expr), ty, static)
        tmp = self.names.fresh("_tmp")
        stmt, ty = self.lower_if_value(node, tmp)
        self.emit(stmt, node)
        return Val(name(tmp), ty)

    def expr_field_expression(self, node: Node) -> Val:
        field_node = node.child_by_field_name("field")
        base = self.expr(node.child_by_field_name("value"))
        if field_node.type == "integer_literal":
            i = int(text(field_node))
            ty = base.ty.items[i] if base.ty.kind == "tuple" and i < len(base.ty.items) else UNKNOWN
            return Val(ast.Subscript(value=base.expr, slice=ast.Constant(i), ctx=LOAD), ty)
        raise self.err(node, "E0002", f"field access `.{text(field_node)}` is not part of the DSL",
                       "kernels have no structs; pass the value as a parameter")

    def expr_scoped_identifier(self, node: Node) -> Val:
        path = text(node).replace(" ", "")
        for prefix in ("std::", "core::"):
            path = path.removeprefix(prefix)
        head, _, rest = path.partition("::")
        if head in ENUMS:
            if rest not in ENUMS[head]:
                raise self.err(node, "E0006", f"`{path}` is not a variant of `{head}`",
                               "variants: " + ", ".join(f"{head}::{k}" for k in ENUMS[head]))
            value = ENUMS[head][rest]
            return Val(ast.Constant(value), Ty("const", "enum"))
        if head in FLOAT_TYPES and rest in FLOAT_CONSTANTS:
            return Val(float_const(FLOAT_CONSTANTS[rest]), Ty("const", head))
        limit = float_limit(head, rest)
        if limit is not None:
            return Val(float_const(limit), Ty("const", head))
        if head in INT_BITS and rest in ("MAX", "MIN"):
            lo, hi = semantics.int_limits(head)
            return Val(const(hi if rest == "MAX" else lo), Ty("const", head))
        if self.kernel is not None and self.kernel.dtype_param(head) is not None or head in self.dtype_bounds:
            return self.dtype_const(head, rest, node)
        if head in ("self", "crate", "super") and rest in self.ctx.consts:
            return self.module_const(rest, node)
        raise self.err(node, "E0006", f"unknown path `{text(node)}`",
                       "paths in kernels are DSL enums (Axis::X ...), scalar constants (f32::INFINITY) or D::ZERO / D::ONE")

    def dtype_const(self, dtype: str, what: str, node: Node) -> Val:
        is_float = self.is_float(Ty("const", dtype))
        if what in ("ZERO", "ONE"):
            value = 0 if what == "ZERO" else 1
            return Val(ast.Constant(float(value) if is_float else value), Ty("const", dtype))
        raise self.err(node, "E0006", f"unknown associated constant `{dtype}::{what}`",
                       f"dtype parameters provide `{dtype}::ZERO`, `{dtype}::ONE` and `{dtype}::from_f64(v)`")

    def expr_generic_function(self, node: Node) -> Val:
        # A combine function passed by name: `add_combine::<T, D>`.
        f = node.child_by_field_name("function")
        if f.type == "identifier" and text(f) in self.ctx.functions:
            return self.helper_ref(text(f), f)
        raise self.err(node, "E0002", "generic paths are only valid as DSL calls or combine functions")

    def helper_ref(self, fn_name: str, node: Node) -> Val:
        from rs2triton.transpiler.lowering.helpers import lower_helper

        lower_helper(self.ctx, fn_name, self.T, node, self.dtype_bounds_for_helpers())
        return Val(name(python_name(fn_name)), Ty("fn"))

    def dtype_bounds_for_helpers(self) -> dict[str, str]:
        if self.kernel is None:
            return dict(self.dtype_bounds)
        return {d.name: d.bound for d in self.kernel.dtype_params}

    # --------------------------------------------------------------------- calls
    def expr_call_expression(self, node: Node) -> Val:
        func = node.child_by_field_name("function")
        args = named_children(node.child_by_field_name("arguments"))
        generics: list[Node] = []
        if func.type == "generic_function":
            targs = func.child_by_field_name("type_arguments")
            generics = named_children(targs) if targs is not None else []
            func = func.child_by_field_name("function")
        if func.type == "field_expression":
            return self.method_call(func, args, node)
        if func.type == "identifier":
            fname = text(func)
            if fname == "Some":
                if len(args) != 1:
                    raise self.err(node, "E0004", "`Some` takes one value")
                return self.expr(args[0])
            if fname in self.ctx.functions:
                ref = self.helper_ref(fname, func)
                vals = [self.narrow(self.expr(a), a) for a in args]
                return Val(call(ref.expr, [v.expr for v in vals]), UNKNOWN)
            raise self.err(func, "E0003", f"cannot call `{fname}`",
                           "kernels call DSL methods (`T::load`, ...) and combine functions defined in the same file")
        if func.type == "scoped_identifier":
            path = func.child_by_field_name("path")
            fname = text(func.child_by_field_name("name"))
            head = text(path) if path is not None else ""
            if head == self.T:
                op = OPS.get(fname)
                if op is None:
                    raise self.err(func.child_by_field_name("name"), "E0003",
                                   f"`{self.T}::{fname}` is not a method of the Triton trait",
                                   _suggest(fname, OPS))
                return self.lower_op(op, args, generics, node)
            if (self.kernel is not None and self.kernel.dtype_param(head) is not None) \
                    or head in self.dtype_bounds or head in SCALARS:
                return self.dtype_ctor(head, fname, args, node)
        raise self.err(func, "E0003", f"cannot call `{text(func)}`",
                       f"kernels call methods of the Triton trait as `{self.T}::name(...)`")

    def dtype_ctor(self, dtype: str, fname: str, args: list[Node], node: Node) -> Val:
        if fname not in ("from_f64", "from_f32", "from_i32", "from", "new") or len(args) != 1:
            raise self.err(node, "E0003", f"unsupported dtype constructor `{dtype}::{fname}`",
                           f"use `{dtype}::from_f64(v)`")
        v = self.without_f64(args[0]) if dtype in ("f16", "bf16", "f32") or (
            dtype not in SCALARS and self.is_float(Ty("const", dtype))) else None
        v = v or self.expr(args[0])
        if v.ty.kind == "const":
            # A compile-time value stays a (weakly typed) Python scalar: it takes D's type
            # where it meets a D tensor, without promoting f16 math to f32.
            is_float = self.is_float(Ty("const", dtype))
            lit = literal_value(v.expr)
            if lit is not None:
                return Val(const(int(lit) if is_float is False else float(lit)), Ty("const", dtype))
            if is_float is False:
                return Val(call("tl.cast", [v.expr, self.dtype_expr(dtype, node)]), Ty("scalar", dtype))
            return Val(v.expr, Ty("const", dtype))
        return self.convert(v, dtype, node)

    def without_f64(self, node: Node) -> Val | None:
        """`D::from_f64(e)` where the f64 in ``e`` is only the constructor's signature: ``x as f64``
        of an f32 (or narrower) value, its negation, or one `+ - * /` of such casts and literals exact in f32.
        Computed in f32 and rounded to D it is the same number (f32 has more than 2p + 2 bits
        for D = f16/bf16, so the two roundings are one), and the GPU never runs f64 code."""
        node = _unparen(node)
        if node.type == "type_cast_expression":
            inner = _unparen(node.child_by_field_name("value"))
            if text(node.child_by_field_name("type")) != "f64" or inner.type != "identifier":
                return None
            v = self.expr(inner)
            narrow = ("f32", "f16", "bf16", "i8", "i16", "i32", "u8", "u16", "u32")
            return v if v.ty.elem in narrow and v.ty.kind in ("scalar", "const", "index") else None
        if node.type == "unary_expression" and text(node).startswith("-"):
            # `-(x as f64)`: negation is exact, so it stays in the narrow type too.
            operand = _unparen(named_children(node)[-1])
            v = self.without_f64(operand) if operand.type in ("type_cast_expression", "unary_expression") else None
            if v is None or v.ty.elem not in ("f32", "f16", "bf16"):
                return None
            return Val(ast.UnaryOp(op=ast.USub(), operand=v.expr), v.ty)
        if node.type == "binary_expression" and text(node.child_by_field_name("operator")) in ("+", "-", "*", "/"):
            sides = []
            for side in (node.child_by_field_name("left"), node.child_by_field_name("right")):
                side = _unparen(side)
                if side.type == "float_literal" and exact_in_f32(self.expr(side).expr):
                    sides.append(Val(self.expr(side).expr, Ty("const", "f32")))
                    continue
                v = self.without_f64(side) if side.type in ("type_cast_expression", "unary_expression") else None
                if v is None or v.ty.elem not in ("f32", "f16", "bf16"):
                    return None
                sides.append(v)
            return self.binop(text(node.child_by_field_name("operator")), sides[0], sides[1], node)
        return None

    def method_call(self, func: Node, args: list[Node], node: Node) -> Val:
        meth = text(func.child_by_field_name("field"))
        recv_node = func.child_by_field_name("value")
        op = METHODS.get(meth)
        if op is not None:
            return self.lower_op(op, [recv_node, *args], [], node)
        recv = self.expr(recv_node)
        if meth in ("clone", "into") and not args:
            return recv
        if meth in ("min", "max") and len(args) == 1:
            recv, other = self.narrow(recv, recv_node), self.narrow(self.expr(args[0]), args[0])
            if recv.ty.kind == "const" and other.ty.kind == "const":
                return Val(call(meth, [recv.expr, other.expr]), recv.ty)
            fn = "tl.minimum" if meth == "min" else "tl.maximum"
            return Val(call(fn, [recv.expr, other.expr]), Ty(semantics.join_kind(recv.ty, other.ty), recv.ty.elem))
        if meth in ("abs", "sqrt", "exp", "exp2", "ln", "log2", "sin", "cos", "floor", "ceil") and not args:
            target = {"ln": "log"}.get(meth, meth)
            return Val(call(f"tl.{target}", [recv.expr]), Ty("scalar" if recv.ty.kind == "const" else recv.ty.kind,
                                                              recv.ty.elem))
        raise self.err(func.child_by_field_name("field"), "E0003", f"unknown method `.{meth}()`",
                       "values support `.add_offsets(..)`, the comparisons `.lt/.le/.gt/.ge/.eq/.ne(..)`, "
                       "and on scalars `.min/.max/.abs()`")

    def lower_op(self, op: Op, arg_nodes: list[Node], generics: list[Node], node: Node) -> Val:
        if op.rule == UNSUPPORTED:
            raise self.err(node, "E0002", f"`{op.name}` is not supported by rs2triton",
                           op.note or "see docs/ops.md for the methods that are translated")
        if len(arg_nodes) != len(op.params):
            sig = ", ".join(p.name for p in op.params)
            raise self.err(node, "E0004",
                           f"`{op.name}` takes {len(op.params)} argument{'s' if len(op.params) != 1 else ''} "
                           f"but {len(arg_nodes)} {'were' if len(arg_nodes) != 1 else 'was'} supplied",
                           f"the DSL signature is `{op.name}({sig})`: every argument is positional")
        return SPECIAL_RULES[op.rule](self, op, arg_nodes, generics, node)

    def arg(self, node: Node) -> Val | _Omit:
        """A DSL method argument: `None` is the argument left out, `Some(x)` is `x`."""
        if node.type == "identifier" and node.end_byte - node.start_byte == 4 and text(node) == "None":
            return OMIT
        return self.expr(node)

    def lower_args(self, op: Op, arg_nodes: list[Node]) -> list[tuple[Param, Val | _Omit, Node]]:
        out = []
        vals = [self.arg(a) for a in arg_nodes]
        keep = op.name in F32_MATH or (op.name in KEEPS_F32 and not self.meets_half(vals))
        for i, (p, a, v) in enumerate(zip(op.params, arg_nodes, vals, strict=True)):
            if v is not OMIT and not keep and not (op.rule == "cast" and i == 0):
                v = self.narrow(v, a)  # an operand of a non-math op meets its Rust type again
            if v is OMIT and p.default is REQUIRED:
                raise self.err(a, "E0008", f"`{op.name}` needs a value for `{p.name}`",
                               "`None` only stands for optional arguments")
            if v is not OMIT and v.block_ptr is not None and (i != 0 or op.name not in BLOCK_PTR_OPS):
                raise self.err(a, "E0008", "a block pointer can only be passed to `load`, `store` and `advance`",
                               "make it with `T::make_block_ptr` and move it with `T::advance`")
            if v is not OMIT and isinstance(v.expr, ast.List):
                v = Val(shape_form(v.expr, p.form), v.ty)
            out.append((p, v, a))
        return out

    def meets_half(self, vals: list) -> bool:
        """Whether values held in f32 meet a value of their half type among ``vals`` (a
        runtime D operand that is not itself held in f32)."""
        wide = {v.ty.elem for v in vals if v is not OMIT and v.ty.wide}
        return any(v is not OMIT and not v.ty.wide and v.ty.runtime and v.ty.elem in wide for v in vals)

    def build_call(self, target: str | ast.expr, lowered, extra_kw=()) -> ast.Call:
        pos: list[ast.expr] = []
        kws: list[tuple[str, ast.expr]] = []
        for p, v, _ in lowered:
            if v is OMIT or is_default(v, p) or p.kw == "":
                continue
            if p.positional and not kws:
                pos.append(v.expr)
            else:
                kws.append((p.keyword, v.expr))
        kws.extend(extra_kw)
        return call(target, pos, kws)

    def result_ty(self, op: Op, lowered, generics: list[Node]) -> Ty:
        vals = [v for _, v, _ in lowered]
        runtime_kind = "tensor"
        r = op.returns
        if r == "none":
            return NONE_TY
        if r == "tuple":
            base = vals[0].ty if vals and vals[0] is not OMIT else UNKNOWN
            return Ty("tuple", None, (Ty("tensor", base.elem), Ty("tensor", "i32")) * 2)
        if r == "desc":
            return Ty("desc", vals[0].ty.elem if vals[0] is not OMIT else None)
        if r in ("i32", "f32", "bool"):
            kind = "scalar" if op.name in ("program_id", "num_programs", "cdiv") else runtime_kind
            return Ty(kind, r)
        if r == "ptrs":
            return Ty("ptrs", vals[0].ty.elem)
        if r.startswith("arg"):
            i = int(r[3:])
            v = vals[i] if i < len(vals) else OMIT
            if v is OMIT:
                return Ty(runtime_kind)
            kind = v.ty.kind if v.ty.kind in ("scalar", "tensor") else runtime_kind
            return Ty(kind, v.ty.elem)
        if r == "ptr_elem0":
            return Ty(runtime_kind, vals[0].ty.elem if vals[0] is not OMIT else None)
        if r.startswith("generic"):
            i = int(r[7:])
            if i < len(generics):
                return Ty(runtime_kind, text(generics[i]))
            return Ty(runtime_kind)
        return UNKNOWN


def _min_max(cond: ast.expr, body: ast.expr, orelse: ast.expr) -> tuple[str, ast.expr, ast.expr] | None:
    """`a if a < b else b` -> ("tl.minimum", a, b), and the other three spellings of min/max."""
    if not (isinstance(cond, ast.Compare) and len(cond.ops) == 1
            and isinstance(cond.ops[0], (ast.Lt, ast.LtE, ast.Gt, ast.GtE))):
        return None
    a, b = cond.left, cond.comparators[0]
    less = isinstance(cond.ops[0], (ast.Lt, ast.LtE))
    same = [ast.dump(x) for x in (a, b, body, orelse)]
    if same[2] == same[0] and same[3] == same[1]:
        return ("tl.minimum" if less else "tl.maximum", a, b)
    if same[2] == same[1] and same[3] == same[0]:
        return ("tl.maximum" if less else "tl.minimum", a, b)
    return None


def _unparen(node: Node) -> Node:
    while node.type == "parenthesized_expression":
        node = named_children(node)[0]
    return node


def _plus(e: ast.expr, k: int) -> ast.expr:
    v = literal_value(e)
    if isinstance(v, int):
        return const(v + k)
    return ast.BinOp(left=e, op=ast.Add() if k > 0 else ast.Sub(), right=ast.Constant(abs(k)))


def _minus_one(e: ast.expr) -> ast.expr:
    if isinstance(e, ast.Constant) and isinstance(e.value, int):
        return const(e.value - 1)
    return ast.BinOp(left=e, op=ast.Sub(), right=ast.Constant(1))


_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "\\": "\\", "0": "\0", "'": "'", '"': '"'}
_ESCAPE = re.compile(r"\\(?:x(?P<x>[0-9a-fA-F]{2})|u\{(?P<u>[0-9a-fA-F_]{1,8})\}|\r?\n[ \t\r\n]*|(?P<c>.?))", re.S)


def _rust_string(literal: str) -> str:
    """The value of a Rust string literal (`"a\\tb\\u{e9}"`), by Rust's escape rules.

    Raises ValueError for what rustc rejects: an unknown escape, `\\x` above 0x7F, a `\\u{..}`
    that is not a Unicode scalar value.
    """
    def unescape(m: re.Match) -> str:
        if m.group("x") is not None:
            code = int(m.group("x"), 16)
            if code > 0x7F:
                raise ValueError(f"`\\x{m.group('x')}` is out of range (at most `\\x7F` in a string)")
            return chr(code)
        if m.group("u") is not None:
            code = int(m.group("u").replace("_", ""), 16)
            if code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
                raise ValueError(f"`\\u{{{m.group('u')}}}` is not a Unicode scalar value")
            return chr(code)
        c = m.group("c")
        if c is None:  # `\` at the end of a line: the line break and the next line's indent vanish
            return ""
        if c not in _ESCAPES:
            raise ValueError(f"unknown character escape `\\{c}`")
        return _ESCAPES[c]

    return _ESCAPE.sub(unescape, literal[literal.index('"') + 1:literal.rindex('"')])


def _suggest(word: str, table: dict) -> str:
    import difflib

    close = difflib.get_close_matches(word, list(table), n=3)
    if close:
        return "did you mean " + " or ".join(f"`{c}`" for c in close) + "?"
    return "see docs/ops.md for the methods of the Triton trait"




def named_children_with_comments(block: Node) -> list[Node]:
    return list(block.named_children)


def lower_kernel(ctx: ModuleContext, kernel: Kernel) -> ast.FunctionDef:
    """The ``@triton.jit`` function for one kernel: Rust parameters, then const generics."""
    fn = kernel.node
    lw = FunctionLowerer(ctx, kernel, fn, kernel.triton)
    args: list[ast.arg] = []
    notes = _parameter_comments(fn.child_by_field_name("parameters"))
    comments: dict[str, tuple[list[str], str | None]] = {}
    for p in kernel.params:
        ty = Ty("ptr", p.elem) if p.kind == "pointer" else Ty("scalar", p.elem)
        args.append(ast.arg(arg=lw.names.declare(p.name, ty)))
        if p.name in notes:
            comments[args[-1].arg] = notes[p.name]
    const_notes = _parameter_comments(fn.child_by_field_name("type_parameters"))
    for c in kernel.consts:
        args.append(ast.arg(arg=lw.names.declare(c.name, Ty("const", c.rust_type)),
                            annotation=attr_path("tl.constexpr")))
        if c.name in const_notes:
            comments[args[-1].arg] = const_notes[c.name]
    body: list[ast.stmt] = []
    lw.lower_block_into(fn.child_by_field_name("body"), body, scoped=False)
    prelude: list[ast.stmt] = []
    if kernel.doc:
        prelude.append(ast.Expr(ast.Constant(_docstring(kernel.doc))))
    for dtype_name, alias in lw.names.dtype_aliases():
        ptr = kernel.pointer_for(dtype_name)
        prelude.append(ast.Assign(targets=[ast.Name(id=alias, ctx=ast.Store())],
                                  value=attr_path(f"{ptr.name}.dtype.element_ty")))
    for p, a in zip(kernel.params, args, strict=False):
        # Triton types an int argument by its value: one that fits in 32 bits arrives as
        # i32 even for an `i64` parameter, and `a * b` would then wrap where Rust does not.
        s = SCALARS.get(p.elem) if p.kind == "scalar" else None
        if s is not None and s.is_int and s.bits == 64 and not p.name.startswith("_"):
            prelude.append(ast.Assign(targets=[ast.Name(id=a.arg, ctx=ast.Store())],
                                      value=call("tl.cast", [name(a.arg), attr_path(s.triton)])))
    if prelude and len(body) == 1 and isinstance(body[0], ast.Pass):
        body = []
    fn_line = fn.child_by_field_name("name").start_point[0] + 1
    for stmt in prelude:
        stmt.lineno = fn_line
    func = ast.FunctionDef(
        name=python_name(kernel.name),  # `fn lambda` -> `lambda_`, as for every name
        args=ast.arguments(posonlyargs=[], args=args, kwonlyargs=[], kw_defaults=[], defaults=[]),
        body=prelude + body, decorator_list=[attr_path("triton.jit")], returns=None, type_params=[])
    func.lineno = fn_line
    if comments:
        ctx.param_comments[func.name] = comments
    return func


def _parameter_comments(params: Node | None) -> dict[str, tuple[list[str], str | None]]:
    """{parameter: (comment lines above it, the comment ending its line)}, for a parameter
    list or a generic parameter list (where `const N: i32` become parameters, the rest not)."""
    out: dict[str, tuple[list[str], str | None]] = {}
    above: list[str] = []
    last: str | None = None  # the parameter the previous item was, if it becomes one
    last_row = -1
    for c in params.named_children if params is not None else []:
        if c.type in ("line_comment", "block_comment"):
            lines = comment_lines(text(c))
            if c.start_point[0] == last_row and len(lines) == 1:
                if last is not None:
                    out[last] = (out[last][0], lines[0])
            else:
                above.extend(lines)
            continue
        if c.type == "parameter":
            last = text(c.child_by_field_name("pattern")).removeprefix("mut").strip()
        elif c.type == "const_parameter":
            last = text(c.child_by_field_name("name"))
        else:  # `T: Triton`, `D: Float`, lifetimes: no Python parameter to carry a comment
            last = None
        if last is not None:
            out[last] = (above, None)
        above, last_row = [], c.end_point[0]
    return {k: v for k, v in out.items() if v[0] or v[1] is not None}


def _docstring(doc: str) -> str:
    lines = doc.split("\n")
    if len(lines) == 1:
        return lines[0]
    indent = "    "
    return lines[0] + "\n" + "\n".join(indent + ln if ln.strip() else "" for ln in lines[1:]) + "\n" + indent
