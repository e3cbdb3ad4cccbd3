"""The lowerer of one function: its state, and the one dispatch that every node goes through.

A :class:`Lowerer` lowers one ``#[kernel]`` fn (or one combine helper, or one module
constant) to Python statements. Each tree-sitter node kind is lowered by the rule
registered for it (:mod:`.registry`): in expression position by :meth:`Lowerer.expr`, in
statement position by :meth:`Lowerer.stmt` (a node kind without a statement rule is an
expression whose value is dropped). Both go through :meth:`Lowerer.dispatch`, the one
safety net: a kind without a rule is an "unsupported construct" located at the node, and an
unexpected exception an internal error (E0999) located there.

The rule modules (:mod:`.statements`, :mod:`.control`, :mod:`.expressions`, :mod:`.calls`)
register themselves when the package is imported (``lowering/__init__.py``).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, cast

from tree_sitter import Node

from rs2triton.diagnostics import TranspileError
from rs2triton.rust import semantics
from rs2triton.rust.types import FLOAT_TYPES, INT_TYPES, SCALARS, TRITON_DTYPES, bound
from rs2triton.transpiler.frontend.items import cfg_holds
from rs2triton.transpiler.frontend.parse import named_children, text
from rs2triton.transpiler.lowering.context import ModuleContext
from rs2triton.transpiler.lowering.names import Names, rust_key
from rs2triton.transpiler.lowering.registry import BUILDERS, EXPRESSIONS, KERNEL, STATEMENTS, Target
from rs2triton.transpiler.lowering.typing import Env, Seq, Typing, infer
from rs2triton.transpiler.lowering.typing import Type as PassType
from rs2triton.transpiler.lowering.values import BlockPtr, Kind, TileParts, Ty, Val
from rs2triton.transpiler.pyast import Comment, attr_path, comment_lines, name

if TYPE_CHECKING:
    from rs2triton.transpiler.frontend.items import Kernel

R = TypeVar("R")

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
    "struct_expression": "structs are not part of the DSL (but teenygrad's `Tile { tensor, mask }`); pass values "
                         "as kernel parameters",
    "await_expression": "kernels are not async",
    "try_expression": "`?` is not part of the DSL",
    "let_chain": "split the condition into nested `if`s",
    "yield_expression": "kernels cannot yield",
}
COMMENTS = ("line_comment", "block_comment")
TYPE_CODE = "E0014"  # Rust's type and name rules reject this (rustc's code in the message)
BORROW_CODE = "E0015"  # Rust's borrow checker rejects this
_BORROW_RULES = frozenset({"E0381", "E0382", "E0384", "E0499", "E0502", "E0505"})


def _unsupported(lw: Lowerer, node: Node) -> Val:
    kind = node.type
    hint = UNSUPPORTED_HINTS.get(kind, "this Rust construct is not part of the kernel DSL")
    raise lw.err(node, "E0002", f"unsupported construct: {kind.replace('_expression', '').replace('_', ' ')}", hint)


class Builder(Protocol):
    """What a target's builder provides the shared rules (kernel/builder.py, host/builder.py): the
    Python for what they decided, and what a name, a path or a field means for the target. (``lw``
    is the target's own lowerer.)"""

    def bool_kind(self, kind: Kind) -> Kind: ...
    def block_entered(self, lw: Any, block: Node, children: list[Node]) -> None: ...
    def pointer_arith(self, lw: Any, op: str, left: Val, right: Val, node: Node) -> Val: ...
    def arith(self, lw: Any, op: str, left: Val, right: Val, ty: Ty, node: Node) -> Val: ...
    def negate(self, lw: Any, v: Val, node: Node) -> Val: ...
    def invert(self, lw: Any, v: Val, node: Node) -> Val: ...
    def deref(self, lw: Any, v: Val, node: Node) -> Val: ...
    def cast(self, lw: Any, v: Val, target: str, node: Node) -> Val: ...
    def cast_to_type(self, lw: Any, v: Val, type_node: Node, node: Node) -> Val: ...
    def narrow(self, lw: Any, v: Val, node: Node) -> Val: ...
    def free_name(self, lw: Any, ident: str, node: Node) -> Val: ...
    def path_value(self, lw: Any, head: str, rest: str, node: Node) -> Val: ...
    def field_value(self, lw: Any, base: Val, field_node: Node, node: Node) -> Val: ...


class _RustRules:
    """The context of :meth:`Lowerer.rust_rules` (a plain class: it runs for every literal,
    where a generator-based context manager costs several calls). What one of rustc's lints or
    its constant evaluation rejects is kept for later (``ModuleContext.deferred``) and the block
    is left, as rustc goes on checking types; a rule that is no lint is an error now."""

    __slots__ = ("lowerer", "node")

    def __init__(self, lowerer: Lowerer, node: Node):
        self.lowerer, self.node = lowerer, node

    def __enter__(self) -> None:
        return None

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: object) -> bool:
        if isinstance(exc, semantics.ConstError):
            lint = exc.lint
            hint: str | None
            if self.lowerer.in_const_item and lint in ("arithmetic_overflow", "unconditional_panic"):
                hint = ((exc.hint + "; ") if exc.hint else "") + "rustc's E0080: evaluation of constant value failed"
            elif lint is not None:
                hint = ((exc.hint + " ") if exc.hint else "") + f"(rustc's `{lint}` lint, denied by default)"
            else:
                hint = exc.hint
            error = self.lowerer.err(self.node, "E0012", exc.message, hint)
            if lint is None:
                raise error from None
            self.lowerer.ctx.deferred.extend(error.diagnostics)
            return True
        return False


def _nested_fns(fn: Node) -> dict[str, Node]:
    """The fn items inside ``fn``'s body (in its blocks, at any depth), by name."""
    body = fn.child_by_field_name("body")
    found: dict[str, Node] = {}
    if body is None or b"fn" not in (body.text or b""):  # (most bodies: no `fn` anywhere, no walk)
        return found
    stack = [body]
    while stack:
        n = stack.pop()
        for c in n.named_children:
            if c.type == "function_item":
                name_node = c.child_by_field_name("name")
                if name_node is not None:
                    found.setdefault(text(name_node), c)
            elif c.type not in (*COMMENTS, "string_literal"):
                stack.append(c)
    return found


class Lowerer:
    """The state of one function's lowering: its names, the bodies being filled, what its
    loops and block pointers are, and the kernel it belongs to (None for a helper).

    ``target`` says what the function becomes, and picks the rules the dispatch uses and the
    builder the shared rules hand their decisions to: this class lowers for the kernel target
    (its Triton state — block pointers, Tiles, counted loops — stays empty elsewhere); the host
    target's lowerer is :class:`~rs2triton.transpiler.lowering.host.lowerer.HostLowerer`.
    """

    target: Target = KERNEL
    in_const_item = False  # lowering a `const` item's value (rustc evaluates it: E0080)

    @property
    def build(self) -> Builder:
        """The target's builder (registry.BUILDERS: kernel/builder.py, host/builder.py)."""
        return cast(Builder, BUILDERS[self.target])

    def __init__(self, ctx: ModuleContext, kernel: Kernel | None, fn: Node, triton: str,
                 dtype_bounds: dict[str, str] | None = None):
        self.ctx = ctx
        self.smap = ctx.smap
        self.kernel = kernel
        self.fn = fn
        self.T = triton  # the name of the Triton-bound type parameter
        self.names = Names()
        self.bodies: list[list[ast.stmt]] = [[]]
        self.dtype_bounds = dtype_bounds or {}  # a helper's own dtype parameters -> bounds
        self.expected_elem: str | None = None  # the element type a `let x: T = ...` annotation gives
        self.loop_depth = 0
        self.block_ptrs: dict[str, BlockPtr] = {}  # Python name of a bound block pointer -> its parts
        self.tiles: dict[str, TileParts] = {}  # Python name of a bound Tile -> its fields (as locals)
        self.let_target: tuple[Node, str] | None = None  # (value, name) of the `let` being lowered
        # the call of a `loop {}` helper just lowered, and the endless loop it became
        self.diverged: tuple[Node, ast.stmt] | None = None
        # fn items nested in the body (`#[inline(always)] fn helper(..)`): visible in the whole
        # body, as Rust's items are; lowered to @triton.jit helpers when called
        self.local_fns: dict[str, Node] = _nested_fns(fn) if self.target is KERNEL else {}
        # a helper's dtype parameters -> where their Triton dtype comes from (`t_tensor.dtype`)
        self.dtype_sources: dict[str, ast.expr] = {}
        # a called helper's own dtype parameters that no argument's dtype gives: the caller passes
        # them, as trailing `tl.constexpr` arguments (None: not needed so far)
        self.dtype_args: dict[str, str | None] = {}
        # the Tiles bound, by id of their Binding: (it, the node that moved it or None, the loop
        # depth it was bound at), for rustc's use-after-move check (rustc.py)
        self.tile_moves: dict[int, tuple[Any, ...]] = {}
        # Counted `while` loops lowered as `for` (see loops.py): by `while` node id, and
        # the statements they absorb (the counter's `let`, the step) by node id.
        self.counted: dict[int, Any] = {}  # (kernel.loops.CountedLoop: the kernel target's)
        self.absorbed: set[int] = set()
        # the names rustc's constant propagation does not follow here (rustc.known_to_rustc;
        # None until a check asks)
        self.untracked: set[str] | None = None
        # the Rust types of `let`s whose lowered type is not Rust's (typeck): one without a type
        # bound to an unsuffixed literal's value (`let eps = 1e-5;`) is `{integer}` or `{float}`
        # until a use gives it a type (`x & eps` with `x: u8`), as Rust infers it; Python name -> type
        self.let_types: dict[str, str] = {}
        # the types Rust's inference gives the body's `let`s and unsuffixed literals from all their
        # uses (lowering/typing.py, over the body as it was before lowering: :meth:`start_typing`)
        self._typing: Typing | None = None
        self._typing_body: Node | None = None
        self._typing_env = Env()

    # ------------------------------------------------------------------ dispatch

    def dispatch(self, rule: Callable[[Lowerer, Node], R], node: Node) -> R:
        """``rule(self, node)``, with the safety net: an unexpected exception is an internal
        error located at ``node``, never a bare traceback."""
        try:
            return rule(self, node)
        except (TranspileError, RecursionError):  # (too deeply nested source: see driver/pipeline.py)
            raise
        except Exception as exc:  # noqa: BLE001 - the safety net
            raise TranspileError([self.smap.ice(node, "lowering", exc)]) from exc

    def expr(self, node: Node) -> Val:
        """Lower an expression with the rule registered for its node kind."""
        return cast(Val, self.dispatch(EXPRESSIONS[self.target].get(node.type, _unsupported), node))

    def stmt(self, node: Node) -> None:
        """Lower a statement: its comments, then the rule registered for its kind (an
        expression whose value is dropped when none is)."""
        if node.id in self.absorbed:  # the start or step of a counted loop, lowered by the loop
            self.emit_inner_comments(node)
            return
        if node.type in COMMENTS:
            self.emit_comment(node)
            return
        self.emit_inner_comments(node)
        self.as_statement(node)

    def as_statement(self, node: Node) -> None:
        """Lower ``node`` in statement position (its comments already emitted)."""
        self.dispatch(STATEMENTS[self.target].get(node.type, _expression_statement), node)

    # ------------------------------------------------------------------ helpers

    def err(self, node: Node, code: str, msg: str, hint: str | None = None) -> TranspileError:
        return self.smap.error(node, code, msg, hint)

    def rejects(self, node: Node, rustc_code: str, msg: str, hint: str | None = None) -> TranspileError:
        """What rustc rejects (its ``rustc_code``): E0015 for the borrow checker's rules, E0014 for
        its type and name rules (:mod:`.rustc`), the message naming rustc's code."""
        code = BORROW_CODE if rustc_code in _BORROW_RULES else TYPE_CODE
        return self.err(node, code, f"{msg} (rustc's {rustc_code})", hint)

    # ------------------------------------------------------------------ Rust's inference of `let` types
    # (typeck asks; the host target follows an integer or float `let`'s type from its uses and
    # overrides these: host/lowerer.py)

    def inferred_int(self, v: Val) -> bool:
        """Whether ``v`` is an integer whose type Rust still infers from its uses."""
        return False

    def int_let_type(self, v: Val) -> str | None:
        return None

    def int_let_met(self, v: Val, elem: str | None, node: Node) -> None:
        return None

    def start_typing(self, body: Node) -> None:
        """Rust's inference over ``body`` (lowering/typing.py), from what the names bound before it
        (the parameters), the fields of ``self`` and the return type are: taken now, before the
        body is lowered; the pass itself runs when lowering first asks (:attr:`typing`), over the
        whole body (most kernels never ask: what they hold needs no inferred type)."""
        params = self.names.visible()
        self._typing, self._typing_body = None, body
        self._typing_env = Env(name=lambda rust: self.name_type(params, rust), field=self.field_type,
                               returns=self.return_type())

    @property
    def typing(self) -> Typing:
        """The typing pass's answer for the body (:meth:`start_typing`; empty where none started)."""
        if self._typing is None:
            self._typing = infer(self._typing_body, self._typing_env) if self._typing_body is not None else Typing()
        return self._typing

    def name_type(self, params: dict[str, Ty], rust: str) -> PassType:
        """What the typing pass knows of the name ``rust`` bound before the body (``params``)."""
        ty = params.get(rust_key(rust))
        return pass_type(ty) if ty is not None else None

    def field_type(self, field: str) -> PassType:
        return None

    def return_type(self) -> PassType:
        return None

    def rust_rules(self, node: Node) -> _RustRules:
        """What rustc rejects at compile time (see semantics.ConstError) is an E0012 at ``node``."""
        return _RustRules(self, node)

    def literal_type(self, node: Node) -> str | None:
        """The type a `let x: T = ..` annotation gives an unsuffixed literal (or constant
        arithmetic) at ``node``, as Rust's inference does: through arithmetic, negation and
        parentheses up to the `let`'s value (not through comparisons, calls or a shift's
        amount). None where no annotation reaches it."""
        target = self.let_target
        if target is None or self.expected_elem is None:
            return self.inferred_literal(node)
        at = node
        while at.id != target[0].id:
            parent = at.parent
            if parent is None:
                return self.inferred_literal(node)
            if parent.type == "binary_expression":
                op = text(parent.child_by_field_name("operator") or parent)
                if op not in _TYPED_OPS or (op in ("<<", ">>") and parent.child_by_field_name("right") == at):
                    return self.inferred_literal(node)
            elif parent.type not in ("unary_expression", "parenthesized_expression"):
                return self.inferred_literal(node)
            at = parent
        return self.expected_elem

    def inferred_literal(self, node: Node, force: bool = False) -> str | None:
        """The type the typing pass gave the unsuffixed literal at ``node`` (`-1`, `(1)`: the
        literal's) from its uses, None where none did (Rust's fallback). Unless ``force``, not
        asked for what no type could reject (a literal in 0..=127, a float below f32's range): the
        checks that ask need no type there."""
        negated = False
        while node.type in ("unary_expression", "parenthesized_expression") and node.named_children:
            negated = negated or node.type == "unary_expression"
            node = node.named_children[-1]
        if not force and not negated:
            if node.type == "integer_literal":
                written = text(node)
                if len(written) < 3 and written.isdigit():  # (the most common: `0`, `1`, `64`)
                    return None
                parsed = semantics.parse_int_literal(written)
                if parsed is None or parsed[0] <= 127:
                    return None
            elif node.type == "float_literal":
                raw = text(node).replace("_", "")
                try:
                    if abs(float(raw[:-3] if raw.endswith(("f16", "f32", "f64")) else raw)) < 3e38:
                        return None
                except ValueError:
                    return None
        return self.typing.literal_type(node.id)

    def emit(self, stmt: ast.stmt, node: Node | None = None) -> None:
        if node is not None:
            stmt.lineno = node.start_point[0] + 1  # the Rust line (see pyast)
        self.bodies[-1].append(stmt)

    def assign(self, target: str, value: ast.expr, node: Node | None = None) -> None:
        self.emit(ast.Assign(targets=[ast.Name(id=target, ctx=ast.Store())], value=value), node)

    def is_float(self, ty: Ty) -> bool | None:
        """Whether values of this type are floats (None: unknown, such as a ``Num`` dtype parameter)."""
        elem = ty.elem
        if elem is None:
            return None
        if elem in self.dtype_bounds:
            return bound(self.dtype_bounds[elem]).is_float
        if elem in FLOAT_TYPES:
            return True
        if elem in INT_TYPES or elem == "bool":
            return False
        dp = self.kernel.dtype_param(elem) if self.kernel is not None else None
        return dp.is_float if dp is not None else None

    def operand(self, v: Val) -> semantics.Operand:
        return semantics.Operand(v.ty.elem, self.is_float(v.ty), v.ty.runtime, v.weak)

    def narrow(self, v: Val, node: Node) -> Val:
        """``v`` as a value of its Rust type where it is observed: a value the target holds wider
        (``Ty.wide``: a half in f32 in a kernel, an int not yet wrapped in host code) is brought
        back to its type by the target's builder."""
        return self.build.narrow(self, v, node) if v.ty.wide else v

    def dtype_expr(self, rust_ty: str, node: Node) -> ast.expr:
        """The Triton dtype of a Rust element type or of a dtype parameter (its Python alias)."""
        if rust_ty in TRITON_DTYPES:
            return attr_path(TRITON_DTYPES[rust_ty])
        if rust_ty in self.dtype_sources:
            return self.dtype_sources[rust_ty]
        if rust_ty in self.dtype_args:
            py = self.dtype_args[rust_ty] or self.names.fresh(rust_ty)
            self.dtype_args[rust_ty] = py
            return name(py)
        if self.kernel is not None and self.kernel.dtype_param(rust_ty) is not None:
            if self.kernel.pointer_for(rust_ty) is None:
                raise self.err(node, "E0005", f"cannot resolve dtype parameter `{rust_ty}`",
                               f"no pointer parameter is declared `{self.T}::Pointer<{rust_ty}>`, so its "
                               "element type is unknown in Python; add one or use a concrete type")
            return name(self.names.dtype_alias(rust_ty))
        raise self.err(node, "E0005", f"unknown element type `{rust_ty}`",
                       "use a dtype parameter of the kernel or one of f16, bf16, f32, f64, i8..i64, u8..u64, bool")

    def is_dtype(self, head: str) -> bool:
        """Whether ``head`` names a dtype parameter (of the kernel or of this helper)."""
        return (self.kernel is not None and self.kernel.dtype_param(head) is not None) or head in self.dtype_bounds

    # ------------------------------------------------------------------ blocks

    @contextmanager
    def into(self, body: list[ast.stmt]) -> Iterator[list[ast.stmt]]:
        """Statements emitted inside go to ``body``."""
        self.bodies.append(body)
        try:
            yield body
        finally:
            self.bodies.pop()

    def branch_value(self, node: Node, what: str) -> Val:
        """``node`` lowered where only an expression may go (a branch of a ternary, the right of
        `&&`): a value that needs statements of its own there (a call that never returns, a
        Tile result) would run unconditionally, so it is an error."""
        body: list[ast.stmt] = []
        with self.into(body):
            v = self.expr(node)
        if any(type(s) is not Comment for s in body):
            raise self.err(node, "E0002", f"this needs statements of its own, which {what} cannot hold",
                           "bind the value with `let` inside an `if` statement instead")
        self.bodies[-1].extend(body)
        return v

    def block_into(self, block: Node, body: list[ast.stmt], scoped: bool = True) -> dict[str, Ty]:
        """Lower a `{ ... }` block's statements into ``body`` (its own Rust scope and Python
        block unless not ``scoped``); returns the Python names it bound with their types."""
        with self.names.scope() if scoped else nullcontext(), self.into(body):
            children = list(block.named_children)
            self.build.block_entered(self, block, children)
            self.stmts(children, block)
            defined = self.names.bindings()
        if all(type(s) is Comment for s in body):
            body.append(ast.Pass())
        return defined

    def stmts(self, children: list[Node], block: Node, stop: Node | None = None) -> bool:
        """A block's statements up to ``stop``; `stmt; // note` (or `{ // note`) keeps the
        note at the end of that statement's (or the header's) line when it has one."""
        line_end, emitted = block.start_point[0], True
        body = self.bodies[-1]
        attrs: list[Node] = []  # the attributes before the next statement (`#[cfg(...)]`)
        outer, self.diverged = self.diverged, None
        for i, child in enumerate(children):
            if stop is not None and child.id == stop.id:
                break
            if child.type in COMMENTS and child.start_point[0] == line_end:
                self.emit_comment(child, trailing=emitted)
                continue
            if child.type == "attribute_item":
                attrs.append(child)
                continue
            if attrs and child.type not in COMMENTS:
                held, attrs = cfg_holds(attrs, self.ctx.features), []
                if not held:
                    continue  # configured out, as rustc leaves it out
            before = len(body)
            self.diverged = None
            self.stmt(child)
            line_end, emitted = child.end_point[0], len(body) > before
            if self.diverged is not None and _always_reached(self.diverged[0], child):
                # what follows a call that never returns is never reached: rustc checks it and
                # drops it, and so does this (its code, and the rest of the statement, are cut)
                loop = self.diverged[1]
                if any(s is loop for s in body):
                    del body[next(j for j, s in enumerate(body) if s is loop) + 1:]
                self._check_unreachable(children[i + 1:], block, stop)
                self.diverged = outer
                return True
        self.diverged = outer
        return False

    def _check_unreachable(self, rest: list[Node], block: Node, stop: Node | None) -> None:
        """Lower unreachable statements for their errors alone: what Rust rejects there is still
        an error (an unknown name, a wrong call); what Triton merely cannot express (E0002,
        E0008) is not, since it never runs. Nothing of it reaches the module."""
        ctx = self.ctx
        saved = (dict(ctx.helpers), dict(ctx.helper_calls), set(ctx.imports), dict(ctx.used_consts))
        try:
            with self.into([]):
                self.stmts(rest, block, stop)
        except TranspileError as e:
            if any(d.code not in ("E0002", "E0008") for d in e.diagnostics):
                raise
        finally:
            ctx.helpers, ctx.helper_calls, ctx.imports, ctx.used_consts = saved

    def block_value(self, block: Node, what: str = "block") -> Node:
        """The tail expression of a block used as a value (an error when it has none)."""
        real = [c for c in block.named_children if c.type not in COMMENTS]
        if not real or real[-1].type in ("let_declaration", "expression_statement"):
            raise self.err(block, "E0002", f"this {what} has no value", "end the block with an expression (no trailing `;`)")
        return real[-1]

    # ------------------------------------------------------------------ comments

    def emit_comment(self, node: Node, trailing: bool = False) -> None:
        """A comment on lines of its own, or (``trailing``) at the end of the line before it."""
        lines = comment_lines(text(node))
        for line in lines:
            self.emit(Comment(text=line, trailing=trailing and len(lines) == 1), node)

    def emit_inner_comments(self, node: Node) -> None:
        """Comments inside a statement (between call arguments, ...) go above it: Python
        has no place for them inside an expression. Comments of nested blocks stay there."""
        src = self.smap.source
        if src.find(b"//", node.start_byte, node.end_byte) < 0 and src.find(b"/*", node.start_byte, node.end_byte) < 0:
            return  # no comment can be inside: skip the walk (most statements)
        for c in node.children:
            if c.type in COMMENTS:
                self.emit_comment(c)
            elif c.type != "block":
                self.emit_inner_comments(c)


def _expression_statement(lw: Lowerer, node: Node) -> None:
    """A node in statement position with no statement rule of its own (a block's tail
    expression): evaluated, and kept when it is a call."""
    v = lw.expr(node)
    if isinstance(v.expr, ast.Call):
        lw.emit(ast.Expr(v.expr), node)


# Operators whose operands have the result's type (so an annotation types their literals).
_TYPED_OPS = frozenset({"+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>"})

# The nodes under which a call may not run: a branch, a loop body, a closure, the right side of `&&`/`||`.
_CONDITIONAL = frozenset({"if_expression", "else_clause", "match_expression", "match_arm", "while_expression",
                          "loop_expression", "for_expression", "closure_expression"})


def _always_reached(call_node: Node, stmt: Node) -> bool:
    """Whether lowering ``stmt`` always runs ``call_node`` inside it (no branch, loop or
    short-circuit between them)."""
    node = call_node
    while node is not None and node.id != stmt.id:
        parent = node.parent
        if parent is None or parent.type in _CONDITIONAL:
            return False
        op = parent.child_by_field_name("operator") if parent.type == "binary_expression" else None
        if op is not None and text(op) in ("&&", "||") and parent.child_by_field_name("right") == node:
            return False
        node = parent
    return node is not None


def pass_type(ty: Ty | None) -> PassType:
    """A lowered type as the typing pass models it: a scalar, or a sequence of scalars."""
    if ty is None:
        return None
    if ty.kind in (Kind.SCALAR, Kind.CONST):
        return ty.elem if ty.elem in SCALARS else None
    if ty.kind in (Kind.SEQ, Kind.ARRAY, Kind.ITER) and len(ty.items) == 1:
        inner = pass_type(ty.items[0])
        return Seq(inner) if inner is not None else None
    return None


def names_in(e: ast.expr) -> list[str]:
    """The Python names ``e`` reads (to find the `let`s whose type Rust still infers in it)."""
    return [n.id for n in ast.walk(e) if isinstance(n, ast.Name)]


def unparen(node: Node) -> Node:
    while node.type == "parenthesized_expression":
        node = named_children(node)[0]
    return node


__all__ = ["Kind", "Lowerer", "ModuleContext", "Ty", "Val", "unparen"]
