"""Host Rust expressions lowered to Python, with Rust's meaning.

Integer arithmetic follows the operand types (:mod:`rs2triton.rust.semantics` and the
run-time functions of :mod:`rs2triton.runtime.host`): unsigned ``-`` panics below zero,
signed ``/`` and ``%`` truncate, ``as`` casts wrap or saturate, f32 results are rounded to f32.
A cast that cannot change the value (``u32 as usize``) is left out, so is ``&``/``*`` of a
reference. Method calls of the standard library are :mod:`.std`'s.
"""

from __future__ import annotations

import ast
from typing import Any

from tree_sitter import Node

from rs2triton.rust.semantics import ConstError, check_int_literal, parse_int_literal, round_float
from rs2triton.rust.types import SCALARS
from rs2triton.transpiler.frontend.parse import named_children, text
from rs2triton.transpiler.host.context import HostUnsupported, reparse
from rs2triton.transpiler.host.std import method_call, path_call
from rs2triton.transpiler.host.types import (
    BOOL,
    FLOAT_LITERAL,
    INPUT,
    INT_LITERAL,
    PTR,
    SHAPE,
    STR,
    UNIT,
    UNKNOWN,
    USIZE,
    HTy,
    array,
    element,
    fits_in,
    scalar,
    seq,
)
from rs2triton.transpiler.pyast import LOAD, STORE, attr_path, call, const, name, python_name

HostLowerer = Any  # the lowerer of host/lower.py (which imports this module)

_BIN = {"+": ast.Add, "-": ast.Sub, "*": ast.Mult, "/": ast.Div, "%": ast.Mod, "&": ast.BitAnd, "|": ast.BitOr,
        "^": ast.BitXor, "<<": ast.LShift, ">>": ast.RShift}
_CMP = {"==": ast.Eq, "!=": ast.NotEq, "<": ast.Lt, "<=": ast.LtE, ">": ast.Gt, ">=": ast.GtE}
_NULL = ("null_mut", "null")
_PANICS = {"panic": "panic", "unreachable": "panic", "unimplemented": "unimplemented", "todo": "unimplemented"}
_ASSERTS = ("assert", "debug_assert", "assert_eq", "debug_assert_eq", "assert_ne", "debug_assert_ne")


class Expressions:
    def __init__(self, lw: HostLowerer):
        self.lw = lw

    # ----------------------------------------------------------------- dispatch
    def expr(self, node: Node, expected: HTy | None = None) -> tuple[ast.expr, HTy]:
        kind = node.type
        rule = getattr(self, "e_" + kind, None)
        if rule is None:
            raise HostUnsupported(node, f"{kind.replace('_', ' ')} `{_short(node)}`")
        return rule(node, expected)

    def e_parenthesized_expression(self, node: Node, expected):
        return self.expr(node.named_children[0], expected)

    def e_reference_expression(self, node: Node, expected):
        value = node.child_by_field_name("value")
        assert value is not None
        return self.expr(value, expected)

    def e_unit_expression(self, node: Node, expected):
        return const(None), UNIT

    # ----------------------------------------------------------------- literals and names
    def e_integer_literal(self, node: Node, expected):
        parsed = parse_int_literal(text(node))
        if parsed is None:
            raise HostUnsupported(node, f"the literal `{text(node)}`")
        value, suffix = parsed
        if suffix is not None and suffix.startswith("f"):
            return const(float(value)), scalar(suffix) or FLOAT_LITERAL
        ty = scalar(suffix) if suffix else (expected if expected is not None and expected.kind in ("int", "float")
                                            else INT_LITERAL)
        assert ty is not None
        if ty.kind == "float":
            return const(float(value)), ty
        if ty.elem in SCALARS:
            try:
                check_int_literal(value, ty.elem)
            except ConstError as e:
                raise HostUnsupported(node, f"{e.message}: {e.hint}") from None
        return const(value), ty

    def e_float_literal(self, node: Node, expected):
        raw = text(node).replace("_", "")
        suffix = "f32" if raw.endswith("f32") else "f64" if raw.endswith("f64") else None
        value = float(raw.removesuffix("f32").removesuffix("f64"))
        ty = scalar(suffix) if suffix else (expected if expected is not None and expected.kind == "float"
                                            else FLOAT_LITERAL)
        assert ty is not None
        if ty.elem == "f32":
            value = round_float(value, "f32")
        return const(value), ty

    def e_boolean_literal(self, node: Node, expected):
        return const(text(node) == "true"), BOOL

    def e_string_literal(self, node: Node, expected):
        return ast.Constant(rust_string(node)), STR

    e_raw_string_literal = e_string_literal

    def e_identifier(self, node: Node, expected):
        rust = text(node)
        local = self.lw.lookup(rust)
        if local is not None:
            return local.load(), local.ty
        if rust == "None":
            from rs2triton.transpiler.host.types import option

            return const(None), option(UNKNOWN)
        if rust in self.lw.module.consts:
            self.lw.module.used_consts.add(rust)
            return name(rust), self.lw.module.consts[rust][1]
        raise HostUnsupported(node, f"the name `{rust}` (not a local, a parameter or a constant of this file)")

    def e_self(self, node: Node, expected):
        return name("self"), HTy("op", self.lw.struct)

    def e_scoped_identifier(self, node: Node, expected):
        path = text(node).replace(" ", "")
        *prefix, last = path.split("::")
        owner = prefix[-1] if prefix else ""
        if owner in SCALARS and last in ("MAX", "MIN"):
            s = SCALARS[owner]
            return const(s.max if last == "MAX" else s.min), scalar(owner) or UNKNOWN
        if owner in ("f32", "f64") and last in ("INFINITY", "NEG_INFINITY", "NAN", "EPSILON"):
            value = {"INFINITY": "inf", "NEG_INFINITY": "-inf", "NAN": "nan"}.get(last)
            if value is not None:
                return call("float", [ast.Constant(value)]), scalar(owner) or UNKNOWN
        if path in ("Option::None", "None"):
            from rs2triton.transpiler.host.types import option

            return const(None), option(UNKNOWN)
        if owner == "Self" and last in self.lw.module.consts:
            return self.e_identifier(node.child_by_field_name("name") or node, expected)
        if last in self.lw.module.consts and not prefix[:-1]:
            self.lw.module.used_consts.add(last)
            return name(last), self.lw.module.consts[last][1]
        raise HostUnsupported(node, f"the path `{path}`")

    # ----------------------------------------------------------------- fields and indexing
    def e_field_expression(self, node: Node, expected):
        value_node = node.child_by_field_name("value")
        field_node = node.child_by_field_name("field")
        assert value_node is not None and field_node is not None
        value, ty = self.expr(value_node)
        field = text(field_node)
        if ty.kind == "input" and field in ("0", "1"):
            return (value, PTR) if field == "0" else (ast.Attribute(value=value, attr="shape", ctx=LOAD), SHAPE)
        if ty.kind == "tuple" and field.isdigit():
            i = int(field)
            item = ty.items[i] if i < len(ty.items) else UNKNOWN
            return ast.Subscript(value=value, slice=const(i), ctx=LOAD), item
        if ty.kind == "op" and ty.elem == self.lw.struct:
            fty = self.lw.fields.get(field)
            if fty is None:
                raise HostUnsupported(node, f"`self.{field}`: `{self.lw.struct}` has no field `{field}` "
                                            "that rs2triton knows")
            return ast.Attribute(value=value, attr=self.lw.module.field_attr(self.lw.struct, field), ctx=LOAD), fty
        if ty.kind == "kernel":
            consts = self.lw.module.kernels.get(ty.elem or "", {})
            if field in ("source", "kernel_source"):
                return value, ty  # a kernel's source stands for the kernel it compiles to
            if field == "name":
                return ast.Attribute(value=value, attr="name", ctx=LOAD), STR
            const_name = next((c for c in consts if c.lower() == field), None)
            if const_name is not None:
                return ast.Attribute(value=value, attr=field, ctx=LOAD), scalar(consts[const_name]) or UNKNOWN
            raise HostUnsupported(node, f"field `{field}` of kernel struct `{ty.elem}`")
        raise HostUnsupported(node, f"field `{field}` of `{_short(value_node)}`")

    def e_index_expression(self, node: Node, expected):
        value_node, index_node = named_children(node)[:2]
        value, ty = self.expr(value_node)
        if index_node.type == "range_expression":
            lo, hi = self.range_bounds(index_node)
            return ast.Subscript(value=value, slice=ast.Slice(lower=lo, upper=hi, step=None), ctx=LOAD), \
                (seq(element(ty)) if ty.kind in ("seq", "array") else ty)
        index, _ = self.expr(index_node, USIZE)
        if ty.kind not in ("seq", "array", "unknown"):
            raise HostUnsupported(node, f"indexing a value of kind {ty.kind}")
        return ast.Subscript(value=value, slice=index, ctx=LOAD), element(ty)

    def range_bounds(self, node: Node) -> tuple[ast.expr | None, ast.expr | None]:
        parts = named_children(node)
        op = next((c.type for c in node.children if c.type in ("..", "..=")), "..")
        start = node.child_by_field_name("start") if hasattr(node, "child_by_field_name") else None
        if start is None and parts and parts[0].start_byte < node.children[0].end_byte and \
                node.children[0].type not in ("..", "..="):
            start = parts[0]
        end = next((p for p in parts if p is not start), None)
        lo = self.expr(start, USIZE)[0] if start is not None else None
        hi = self.expr(end, USIZE)[0] if end is not None else None
        if op == "..=" and hi is not None:
            hi = ast.BinOp(left=hi, op=ast.Add(), right=const(1))
        return lo, hi

    # ----------------------------------------------------------------- operators
    def e_binary_expression(self, node: Node, expected):
        op_node = node.child_by_field_name("operator")
        left_node, right_node = node.child_by_field_name("left"), node.child_by_field_name("right")
        assert op_node is not None and left_node is not None and right_node is not None
        op = text(op_node)
        if op in ("&&", "||"):
            a, _ = self.expr(left_node, BOOL)
            b, _ = self.expr(right_node, BOOL)
            return ast.BoolOp(op=ast.And() if op == "&&" else ast.Or(), values=[a, b]), BOOL
        want = expected if op not in _CMP else None
        a, ta = self.expr(left_node, want)
        b, tb = self.expr(right_node, ta if not ta.literal and ta.kind in ("int", "float") else want)
        if ta.literal and not tb.literal and tb.kind in ("int", "float"):
            a, ta = self.expr(left_node, tb)
        if op in _CMP:
            return ast.Compare(left=a, ops=[_CMP[op]()], comparators=[b]), BOOL
        ty = ta if not ta.literal else tb
        return binop(self.lw, op, a, b, ty, node), ty

    def e_unary_expression(self, node: Node, expected):
        op = node.children[0].type
        operand_node = node.named_children[0]
        value, ty = self.expr(operand_node, expected)
        if op == "*":
            return value, ty  # a dereference: the same value in Python
        if op == "!":
            if ty.kind == "bool":
                return ast.UnaryOp(op=ast.Not(), operand=value), BOOL
            out: ast.expr = ast.UnaryOp(op=ast.Invert(), operand=value)
            if ty.unsigned:
                out = call(self.lw.helper(f"as_{ty.elem}"), [out])
            return out, ty
        if op == "-":
            if ty.unsigned:
                raise HostUnsupported(node, f"negation of an unsigned `{ty.elem}` (rustc rejects it)")
            result: ast.expr = ast.UnaryOp(op=ast.USub(), operand=value)
            if isinstance(value, ast.Constant) and isinstance(value.value, int | float):
                result = const(-value.value)
            return result, ty
        raise HostUnsupported(node, f"the operator `{op}`")

    def e_type_cast_expression(self, node: Node, expected):
        value_node, type_node = node.child_by_field_name("value"), node.child_by_field_name("type")
        assert value_node is not None and type_node is not None
        target = text(type_node).replace(" ", "")
        value, ty = self.expr(value_node, scalar(target))
        if type_node.type == "pointer_type" or target.split("::")[-1] in ("RawPtr", "c_void"):
            if ty.kind != "ptr":
                raise HostUnsupported(node, "a cast of a non-pointer to a pointer")
            pointee = type_node.child_by_field_name("type")
            if pointee is not None and text(pointee) in ("u8", "i8") :
                raise HostUnsupported(node, "byte pointer arithmetic")
            return value, PTR
        dst = scalar(target)
        if dst is None:
            raise HostUnsupported(node, f"a cast to `{target}`")
        return cast(self.lw, value, ty, dst), dst

    # ----------------------------------------------------------------- aggregates
    def e_array_expression(self, node: Node, expected):
        length = node.child_by_field_name("length")
        if length is not None:
            item, ity = self.expr(named_children(node)[0], element(expected) if expected else None)
            n, _ = self.expr(length, USIZE)
            return repeat(item, ity, n), array(ity)
        items = [self.expr(c, element(expected) if expected else None) for c in named_children(node)]
        ity = items[0][1] if items else UNKNOWN
        return ast.Tuple(elts=[e for e, _ in items], ctx=LOAD), array(ity)

    def e_tuple_expression(self, node: Node, expected):
        items = [self.expr(c) for c in named_children(node)]
        return ast.Tuple(elts=[e for e, _ in items], ctx=LOAD), HTy("tuple", items=tuple(t for _, t in items))

    def e_struct_expression(self, node: Node, expected):
        name_node = node.child_by_field_name("name")
        body = node.child_by_field_name("body")
        assert name_node is not None and body is not None
        struct = text(name_node).split("::")[-1].split("<")[0]
        if struct == "Self":
            struct = self.lw.struct
        if struct != self.lw.struct or struct not in self.lw.module.structs:
            raise HostUnsupported(node, f"a `{struct} {{ ... }}` value (only the op's own struct is built)")
        fields = self.lw.module.structs[struct]
        keywords = []
        for init in named_children(body):
            if init.type == "shorthand_field_initializer":
                field = text(init)
                value, _ = self.e_identifier(init.named_children[0] if init.named_children else init, None)
            elif init.type == "field_initializer":
                fnode, vnode = init.child_by_field_name("field"), init.child_by_field_name("value")
                assert fnode is not None and vnode is not None
                field = text(fnode)
                if fields.get(field, UNKNOWN).kind == "phantom":
                    continue
                value, vty = self.expr(vnode, fields.get(field))
                if vty.kind == "kernel" and fields.get(field, UNKNOWN).kind != "kernel":
                    # a `String` field given a kernel's `source` holds that kernel (as its source stands
                    # for it): its class checks it as one
                    self.lw.module.source_fields.setdefault(struct, {})[field] = vty.elem or ""
            else:
                raise HostUnsupported(init, "`..` in a struct expression")
            if fields.get(field, UNKNOWN).kind == "phantom":
                continue
            keywords.append(ast.keyword(arg=python_name(field), value=value))
        if self.lw.in_classmethod:  # `new(..., *, D=None)` hands its type parameters on
            keywords += [ast.keyword(arg=tp, value=name(tp)) for tp in self.lw.type_params]
        owner = name("cls") if self.lw.in_classmethod else call("type", [name("self")])
        return ast.Call(func=owner, args=[], keywords=keywords), HTy("op", struct)

    def e_if_expression(self, node: Node, expected):
        """``if c { a } else { b }`` inside a larger expression: a conditional expression (each
        branch must be a plain value there)."""
        cond_node = node.child_by_field_name("condition")
        then, alt = node.child_by_field_name("consequence"), node.child_by_field_name("alternative")
        if cond_node is None or then is None or alt is None or cond_node.type in ("let_condition", "let_chain"):
            raise HostUnsupported(node, "this `if` in a value")
        cond, _ = self.expr(cond_node, BOOL)
        a, ta = self.tail_value(then, expected)
        other = alt.named_children[-1] if alt.type == "else_clause" else alt
        b, _ = self.tail_value(other, expected) if other.type == "block" else self.expr(other, expected)
        return ast.IfExp(test=cond, body=a, orelse=b), ta

    def tail_value(self, block: Node, expected) -> tuple[ast.expr, HTy]:
        items = [c for c in named_children(block)]
        if len(items) != 1 or items[0].type in ("let_declaration", "expression_statement"):
            raise HostUnsupported(block, "a block with statements inside an expression")
        return self.expr(items[0], expected)

    def e_block(self, node: Node, expected):
        return self.tail_value(node, expected)

    def e_unsafe_block(self, node: Node, expected):
        inner = next(c for c in named_children(node) if c.type == "block")
        return self.tail_value(inner, expected)

    # ----------------------------------------------------------------- calls
    def e_call_expression(self, node: Node, expected):
        fn = node.child_by_field_name("function")
        args_node = node.child_by_field_name("arguments")
        assert fn is not None and args_node is not None
        args = named_children(args_node)
        if fn.type == "field_expression":
            receiver = fn.child_by_field_name("value")
            method = fn.child_by_field_name("field")
            assert receiver is not None and method is not None
            return method_call(self, node, receiver, text(method), args, None, expected)
        if fn.type == "generic_function":
            inner = fn.child_by_field_name("function")
            targs = fn.child_by_field_name("type_arguments")
            assert inner is not None
            turbofish = [text(t) for t in named_children(targs)] if targs is not None else []
            if inner.type == "field_expression":
                receiver = inner.child_by_field_name("value")
                method = inner.child_by_field_name("field")
                assert receiver is not None and method is not None
                return method_call(self, node, receiver, text(method), args, turbofish, expected)
            return path_call(self, node, text(inner).replace(" ", ""), turbofish, args, expected)
        if fn.type in ("identifier", "scoped_identifier"):
            return path_call(self, node, text(fn).replace(" ", ""), [], args, expected)
        raise HostUnsupported(node, f"a call of `{_short(fn)}`")

    def visitor_call(self, node: Node) -> list[ast.stmt] | None:
        """``visitor.visit_i32(x)`` as a statement; a trait method taking the visitor
        (``self.pack_args_for_launch(0, ..., visitor)``): its arguments visited here."""
        from rs2triton.transpiler.host.trait import METHODS

        fn = node.child_by_field_name("function")
        args_node = node.child_by_field_name("arguments")
        if fn is None or args_node is None or fn.type != "field_expression" or self.lw.visitor is None:
            return None
        receiver, method = fn.child_by_field_name("value"), fn.child_by_field_name("field")
        assert receiver is not None and method is not None
        args = named_children(args_node)
        m = text(method)
        if text(receiver) == self.lw.visitor and m.startswith("visit_"):
            kind = m.removeprefix("visit_")
            if kind != "ptr" and kind not in SCALARS:
                raise HostUnsupported(node, f"`visitor.{m}`")
            if len(args) != 1:
                raise HostUnsupported(node, f"`visitor.{m}` with {len(args)} arguments")
            value, ty = self.expr(args[0], scalar(kind) if kind != "ptr" else PTR)
            if kind != "ptr" and ty.kind in ("int", "float") and ty.elem != kind and not ty.literal:
                raise HostUnsupported(node, f"`visitor.{m}` of a `{ty.elem}` (rustc rejects the mismatch)")
            visit = ast.Attribute(value=name("visitor"), attr=m, ctx=LOAD)
            return [ast.Expr(value=ast.Call(func=visit, args=[value], keywords=[]), lineno=node.start_point[0] + 1)]
        if text(receiver) == "self" and m in METHODS and METHODS[m].visitor:
            call_expr, _ = self.self_method(node, m, args[:-1])
            visit_all = ast.Attribute(value=name("visitor"), attr="extend_visited", ctx=LOAD)
            return [ast.Expr(value=ast.Call(func=visit_all, args=[call_expr], keywords=[]),
                             lineno=node.start_point[0] + 1)]
        return None

    def self_method(self, node: Node, method: str, args: list[Node]) -> tuple[ast.expr, HTy]:
        from rs2triton.transpiler.host.trait import METHODS

        spec = METHODS.get(method)
        lowered = []
        for i, a in enumerate(args):
            want = spec.params[i][1] if spec is not None and i < len(spec.params) else None
            lowered.append(self.expr(a, want)[0])
        fn = ast.Attribute(value=name("self"), attr=method, ctx=LOAD)
        return ast.Call(func=fn, args=lowered, keywords=[]), spec.returns if spec is not None else UNKNOWN

    def macro_statement(self, node: Node) -> list[ast.stmt] | None:
        """``assert!``/``panic!``/``unimplemented!``-style macros as statements; None for others."""
        macro = text(node.child_by_field_name("macro") or node).split("::")[-1]
        if macro in _PANICS:
            message = self.panic_message(node, macro)
            exc = "NotImplementedError" if _PANICS[macro] == "unimplemented" else "RuntimeError"
            return [ast.Raise(exc=call(exc, [message]), cause=None, lineno=node.start_point[0] + 1)]
        if macro in _ASSERTS:
            args = self.macro_args(node)
            if macro.endswith("_eq") or macro.endswith("_ne"):
                if len(args) < 2:
                    raise HostUnsupported(node, f"`{macro}!` with fewer than two arguments")
                a, _ = self.expr(args[0])
                b, _ = self.expr(args[1])
                test: ast.expr = ast.Compare(left=a, ops=[ast.Eq() if macro.endswith("_eq") else ast.NotEq()],
                                             comparators=[b])
                rest = args[2:]
            else:
                if not args:
                    raise HostUnsupported(node, f"`{macro}!` without a condition")
                test, _ = self.expr(args[0], BOOL)
                rest = args[1:]
            message = self.format_message(rest, node) if rest else ast.Constant(
                f"assertion failed: {' '.join(text(args[0]).split())}" if not macro.endswith(("_eq", "_ne"))
                else f"assertion `left {'==' if macro.endswith('_eq') else '!='} right` failed")
            return [ast.If(test=negate(test),
                           body=[ast.Raise(exc=call("AssertionError", [message]), cause=None)], orelse=[],
                           lineno=node.start_point[0] + 1)]
        return None

    def panic_message(self, node: Node, macro: str) -> ast.expr:
        args = self.macro_args(node)
        if not args:
            return ast.Constant({"unimplemented": "not implemented", "todo": "not yet implemented",
                                 "unreachable": "internal error: entered unreachable code"}.get(macro,
                                                                                               "explicit panic"))
        message = self.format_message(args, node)
        if macro == "unimplemented":
            if isinstance(message, ast.Constant) and isinstance(message.value, str):
                return ast.Constant("not implemented: " + message.value)
        return message

    def format_message(self, args: list[Node], node: Node) -> ast.expr:
        """A ``format!``-style message: a string literal (``concat!``/``stringify!`` folded) with
        ``{}`` placeholders filled by ``str.format`` at run time (the Rust text stays data)."""
        template = self.const_string(args[0])
        if template is None:
            raise HostUnsupported(args[0], "a panic message that is not a string literal")
        if len(args) == 1 and "{" not in template:
            return ast.Constant(template)
        values = [self.expr(a)[0] for a in args[1:]]
        py_template = template.replace("{:?}", "{!r}")
        return call(ast.Attribute(value=ast.Constant(py_template), attr="format", ctx=LOAD), values)

    def const_string(self, node: Node) -> str | None:
        """A string known now: a literal, ``concat!(...)`` of such, ``stringify!(tokens)``."""
        if node.type in ("string_literal", "raw_string_literal"):
            return rust_string(node)
        if node.type == "macro_invocation":
            macro = text(node.child_by_field_name("macro") or node).split("::")[-1]
            tree = next((c for c in node.children if c.type == "token_tree"), None)
            if macro == "stringify" and tree is not None:
                return " ".join(text(tree)[1:-1].split())
            if macro == "concat":
                parts = [self.const_string(a) for a in self.macro_args(node)]
                if all(p is not None for p in parts):
                    return "".join(p for p in parts if p is not None)
        return None

    def macro_args(self, node: Node) -> list[Node]:
        tree = next((c for c in node.children if c.type == "token_tree"), None)
        if tree is None:
            return []
        inner = text(tree)[1:-1]
        if not inner.strip():
            return []
        call_node = reparse(inner, "__f({})")
        args = call_node.child_by_field_name("arguments")
        return named_children(args) if args is not None else []

    def e_macro_invocation(self, node: Node, expected):
        macro = text(node.child_by_field_name("macro") or node).split("::")[-1]
        if macro == "vec":
            tree = next((c for c in node.children if c.type == "token_tree"), None)
            inner = text(tree)[1:-1] if tree is not None else ""
            if not inner.strip():
                return ast.List(elts=[], ctx=LOAD), seq(element(expected) if expected else UNKNOWN)
            arr = reparse(inner, "[{}]")
            value, ty = self.expr(arr, expected)
            if isinstance(value, ast.Tuple):
                return ast.List(elts=value.elts, ctx=LOAD), seq(element(ty))
            return value, seq(element(ty))
        s = self.const_string(node)
        if s is not None:
            return ast.Constant(s), STR
        raise HostUnsupported(node, f"the macro `{macro}!` in host code")

    # ----------------------------------------------------------------- assignments and patterns
    def assignment(self, node: Node) -> list[ast.stmt]:
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        assert left is not None and right is not None
        target, ty = self.expr(left)
        if not isinstance(target, ast.Name | ast.Subscript | ast.Attribute):
            raise HostUnsupported(left, "this assignment target")
        store = _as_store(target)
        value, _ = self.expr(right, ty)
        if node.type == "compound_assignment_expr":
            op = text(node.child_by_field_name("operator") or node).removesuffix("=")
            value = binop(self.lw, op, target, value, ty, node)
            if isinstance(value, ast.BinOp) and value.left is target and isinstance(store, ast.Name | ast.Subscript
                                                                                       | ast.Attribute):
                # Python's operator means Rust's here: `x += y`
                return [ast.AugAssign(target=store, op=value.op, value=value.right, lineno=node.start_point[0] + 1)]
        return [ast.Assign(targets=[store], value=value, lineno=node.start_point[0] + 1)]

    def pattern_test(self, pattern: Node, subject: ast.expr, ty: HTy) -> ast.expr | None:
        """The test of a match arm's pattern against ``subject``; None for a catch-all."""
        kind = pattern.type
        if text(pattern) == "_" or kind == "identifier":
            if kind == "identifier":
                self.lw.bind(text(pattern), ty, subject)
            return None
        if kind == "or_pattern":
            tests = [self.pattern_test(p, subject, ty) for p in named_children(pattern)]
            if any(t is None for t in tests):
                return None
            return ast.BoolOp(op=ast.Or(), values=[t for t in tests if t is not None])
        if kind == "range_pattern":
            bounds = named_children(pattern)
            inclusive = any(c.type == "..=" for c in pattern.children)
            lo, _ = self.expr(bounds[0], ty)
            hi = self.expr(bounds[1], ty)[0] if len(bounds) > 1 else None
            if hi is None:
                return ast.Compare(left=subject, ops=[ast.GtE()], comparators=[lo])
            return ast.Compare(left=lo, ops=[ast.LtE(), ast.LtE() if inclusive else ast.Lt()],
                               comparators=[subject, hi])
        if kind in ("integer_literal", "boolean_literal", "negative_literal", "string_literal", "char_literal",
                    "float_literal"):
            if kind == "negative_literal":
                value, _ = self.expr(pattern.named_children[0], ty)
                assert isinstance(value, ast.Constant) and isinstance(value.value, int | float)
                value = const(-value.value)
            else:
                value, _ = self.expr(pattern, ty)
            return ast.Compare(left=subject, ops=[ast.Eq()], comparators=[value])
        raise HostUnsupported(pattern, f"this match pattern (`{text(pattern)}`)")

    def iterable(self, node: Node) -> tuple[ast.expr, HTy]:
        """What a `for` loop iterates: a range, or an iterator/sequence."""
        if node.type == "range_expression":
            lo, hi = self.range_bounds(node)
            if hi is None:
                raise HostUnsupported(node, "an unbounded range")
            args = [hi] if lo is None or (isinstance(lo, ast.Constant) and lo.value == 0) else [lo, hi]
            return call("range", args), HTy("iter", inner=USIZE)
        value, ty = self.expr(node)
        if ty.kind not in ("iter", "seq", "array"):
            raise HostUnsupported(node, f"a loop over a value of kind {ty.kind}")
        return value, HTy("iter", inner=element(ty))


# --------------------------------------------------------------------- arithmetic with Rust's meaning


def binop(lw: HostLowerer, op: str, a: ast.expr, b: ast.expr, ty: HTy, node: Node) -> ast.expr:
    """``a op b`` of Rust type ``ty``."""
    if op not in _BIN:
        raise HostUnsupported(node, f"the operator `{op}`")
    if ty.kind == "float":
        out: ast.expr = ast.BinOp(left=a, op=_BIN[op](), right=b)
        if op == "%":
            lw.use("math")
            out = call("math.fmod", [a, b])
        return call(lw.helper("f32"), [out]) if ty.elem == "f32" else out
    if ty.kind == "bool" and op in ("&", "|", "^"):
        return ast.BinOp(left=a, op=_BIN[op](), right=b)
    signed = not ty.unsigned
    literal = isinstance(a, ast.Constant) and isinstance(b, ast.Constant)
    if op == "-" and not signed and not literal:
        return call(lw.helper("sub"), [a, b] + ([ast.Constant(ty.elem)] if ty.elem != "usize" else []))
    if op == "/":
        return call(lw.helper("div"), [a, b]) if signed and ty.kind == "int" else \
            ast.BinOp(left=a, op=ast.FloorDiv(), right=b)
    if op == "%" and signed and ty.kind == "int":
        return call(lw.helper("rem"), [a, b])
    if op == "<<" and ty.elem in SCALARS:
        return call(lw.helper(f"as_{ty.elem}"), [ast.BinOp(left=a, op=ast.LShift(), right=b)])
    return ast.BinOp(left=a, op=_BIN[op](), right=b)


def cast(lw: HostLowerer, value: ast.expr, src: HTy, dst: HTy) -> ast.expr:
    """Rust's ``value as dst``."""
    if src.kind == "int" and dst.kind == "int" and (src.literal or fits_in(src.elem or "", dst.elem or "")):
        return value
    if src.kind == "float" and dst.kind == "float":
        return value if dst.elem == "f64" or src.elem == "f32" else call(lw.helper("f32"), [value])
    if src.kind == "bool" and dst.kind == "int":
        return call("int", [value])
    if dst.kind == "float":
        return call(lw.helper("f32"), [value]) if dst.elem == "f32" else call("float", [value])
    if dst.kind == "int":
        if isinstance(value, ast.Constant) and isinstance(value.value, int):
            from rs2triton.rust.semantics import wrap_int

            return const(wrap_int(value.value, dst.elem or "i32"))
        return call(lw.helper(f"as_{dst.elem}"), [value])
    if dst.kind == "bool":
        raise HostUnsupported(None, "a cast to bool (rustc rejects it)")
    return value


# (`not a < b` is no `a >= b` for a NaN: orderings keep their `not`)
_OPPOSITE = {ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.In: ast.NotIn,
             ast.NotIn: ast.In}


def negate(test: ast.expr) -> ast.expr:
    """``not test``; an (in)equality with its opposite operator (``a != b``)."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in _OPPOSITE:
        return ast.Compare(left=test.left, ops=[_OPPOSITE[type(test.ops[0])]()], comparators=test.comparators)
    return ast.UnaryOp(op=ast.Not(), operand=test)


def repeat(item: ast.expr, ty: HTy, n: ast.expr) -> ast.expr:
    """``[item; n]``: a list of n items (each its own copy when it is a list, as Rust clones it)."""
    if ty.kind in ("seq", "array"):
        return ast.ListComp(elt=item, generators=[ast.comprehension(target=ast.Name("_", STORE),
                                                                    iter=call("range", [n]), ifs=[], is_async=0)])
    return ast.BinOp(left=ast.List(elts=[item], ctx=LOAD), op=ast.Mult(), right=n)


def _as_store(target: ast.expr) -> ast.expr:
    if isinstance(target, ast.Name):
        return ast.Name(target.id, STORE)
    if isinstance(target, ast.Subscript):
        return ast.Subscript(value=target.value, slice=target.slice, ctx=STORE)
    assert isinstance(target, ast.Attribute)
    return ast.Attribute(value=target.value, attr=target.attr, ctx=STORE)


def rust_string(node: Node) -> str:
    """The value of a Rust string literal: escapes decoded, raw strings as written."""
    if node.type == "raw_string_literal":
        raw = text(node)
        body = raw[raw.index('"') + 1:raw.rindex('"')]
        return body
    out = []
    for c in node.named_children:
        if c.type == "string_content":
            out.append(text(c))
        elif c.type == "escape_sequence":
            out.append(_escape(text(c)))
    return "".join(out)


def _escape(seq_text: str) -> str:
    simple = {"\\n": "\n", "\\r": "\r", "\\t": "\t", "\\\\": "\\", "\\0": "\0", '\\"': '"', "\\'": "'"}
    if seq_text in simple:
        return simple[seq_text]
    if seq_text.startswith("\\x"):
        return chr(int(seq_text[2:4], 16))
    if seq_text.startswith("\\u{"):
        return chr(int(seq_text[3:-1].replace("_", ""), 16))
    if seq_text.startswith("\\\n") or seq_text.startswith("\\\r"):
        return ""  # a line continuation: the newline and the next line's leading whitespace go
    return seq_text


def _short(node: Node) -> str:
    s = " ".join(text(node).split())
    return s if len(s) <= 40 else s[:37] + "..."


__all__ = ["Expressions", "binop", "cast", "rust_string", "INPUT", "attr_path"]
