"""Rust's debug-build checks in kernels (``transpile --debug``, ``rs2triton.load(..., debug=True)``).

In the default profile a kernel's integer arithmetic is rustc's release build: ``+ - *`` wrap,
shift amounts are masked to the width (:mod:`.builder`). In the debug profile each integer
``+ - * / %``, ``<< >>`` and signed ``-x`` on a run-time value of a concrete Rust type goes
through a module helper that checks what Rust's debug build checks and then computes the
release result (so a kernel whose checks pass computes what the release kernel computes):

- ``+ - *`` overflow the Rust type (``attempt to add with overflow``...);
- ``/`` and ``%`` by zero, ``MIN / -1`` and ``MIN % -1`` (Rust panics there in every build);
- a shift amount of the width or more, or a negative one (``attempt to shift left with overflow``);
- ``-MIN`` (``attempt to negate with overflow``).

A failed check is ``tl.device_assert`` with the Rust ``file:line:col`` and Rust's panic message,
which Triton keeps when the kernel is compiled with ``debug=True`` (the launcher's ``debug``
option) and which rs2triton's launcher makes the interpreter honour. ``as`` casts never panic in
Rust and are not checked. Compile-time values (literals, const generics) are folded or refused
by the shared rules as rustc does; a value of a dtype parameter (``D: Int``) is not checked.

The helpers are written out per operator and type (``_checked_add_i32``), only where used: for
types of 32 bits or fewer the exact result is computed in 64 bits and compared with the type's
range; for 64-bit types the overflow is read from the wrapped result.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from tree_sitter import Node

from rs2triton.rust import semantics
from rs2triton.rust.types import INT_TYPES, TRITON_DTYPES
from rs2triton.transpiler.pyast import call, literal_value, without_positions

if TYPE_CHECKING:
    from rs2triton.transpiler.lowering.lowerer import Lowerer
    from rs2triton.transpiler.lowering.values import Val

# operator -> (helper stem, Rust's panic message)
CHECKED = {
    "+": ("add", "attempt to add with overflow"),
    "-": ("sub", "attempt to subtract with overflow"),
    "*": ("mul", "attempt to multiply with overflow"),
    "/": ("div", "attempt to divide with overflow"),
    "%": ("rem", "attempt to calculate the remainder with overflow"),
    "<<": ("shl", "attempt to shift left with overflow"),
    ">>": ("shr", "attempt to shift right with overflow"),
}
ZERO_DIVISOR = {"/": "attempt to divide by zero", "%": "attempt to calculate the remainder with a divisor of zero"}
NEGATE = "attempt to negate with overflow"
_PY = {"+": "+", "-": "-", "*": "*", "/": "//", "%": "%", "<<": "<<", ">>": ">>"}


def helper_name(op: str, elem: str) -> str:
    return f"_checked_{CHECKED[op][0] if op in CHECKED else 'neg'}_{elem}"


def helper_source(op: str, elem: str) -> str:
    """The ``@triton.jit`` helper for ``op`` (or ``"neg"``) on values of the Rust type ``elem``."""
    bits, signed = semantics.int_info(elem)
    lo, hi = semantics.int_limits(elem)
    dt = TRITON_DTYPES[elem]
    fn = helper_name(op, elem)
    if op == "neg":
        return (f"@triton.jit\ndef {fn}(a, at: tl.constexpr):\n"
                f'    """`-a` of `{elem}`, as Rust\'s debug build: `-{elem}::MIN` panics."""\n'
                f'    tl.device_assert(a != {lo}, at + ": {NEGATE}")\n'
                f"    return -a\n")
    stem, message = CHECKED[op]
    py = _PY[op]
    head = (f"@triton.jit\ndef {fn}(a, b, at: tl.constexpr):\n"
            f'    """`a {op} b` of `{elem}`, as Rust\'s debug build: {_what(op)}."""\n')
    if op in ("<<", ">>"):
        return head + (f'    tl.device_assert((b >= 0) & (b < {bits}), at + ": {message}")\n'
                       f"    return a {py} (b & {bits - 1})\n")
    if op in ("/", "%"):
        body = f'    tl.device_assert(b != 0, at + ": {ZERO_DIVISOR[op]}")\n'
        if signed:
            body += f'    tl.device_assert((a != {lo}) | (b != -1), at + ": {message}")\n'
        return head + body + f"    return a {py} b\n"
    if bits <= 32:  # the exact result in 64 bits, against the type's range
        wide = "tl.int64" if signed else "tl.uint64"
        body = (f"    exact = tl.cast(a, {dt}).to({wide}) {py} tl.cast(b, {dt}).to({wide})\n"
                + (f'    tl.device_assert((exact >= {lo}) & (exact <= {hi}), at + ": {message}")\n' if signed else
                   f'    tl.device_assert(exact <= {hi}, at + ": {message}")\n'))
        return head + body + f"    return a {py} b\n"
    body = f"    x = tl.cast(a, {dt})\n    y = tl.cast(b, {dt})\n    r = x {py} y\n"
    if op == "+":
        ok = "((x ^ r) & (y ^ r)) >= 0" if signed else "r >= x"
    elif op == "-":
        ok = "((x ^ y) & (x ^ r)) >= 0" if signed else "x >= y"
    elif signed:  # `*`: divide back; -1 apart (MIN // -1 itself overflows)
        body += "    d = tl.where((x == 0) | (x == -1), 1, x)\n"
        ok = f"tl.where(x == -1, y != {lo}, (x == 0) | (r // d == y))"
    else:
        body += "    d = tl.where(x == 0, 1, x)\n"
        ok = "(x == 0) | (r // d == y)"
    return head + body + f'    tl.device_assert({ok}, at + ": {message}")\n' + f"    return a {py} b\n"


def _what(op: str) -> str:
    if op in ("<<", ">>"):
        return "an amount of the width or more panics"
    if op in ("/", "%"):
        return "a zero divisor, or `MIN` by -1, panics"
    return "overflow panics"


def checks(lw: Lowerer, op: str, left: Val, right: Val | None) -> bool:
    """Whether ``left op right`` (``right`` None: ``-left``) is checked: the debug profile, a
    run-time integer of a concrete Rust type, and an operation that can panic there."""
    if not lw.ctx.debug or left.ty.compile_time or left.ty.elem not in INT_TYPES:
        return False
    if right is None:
        return op == "-" and semantics.int_info(left.ty.elem)[1]
    if op not in CHECKED:
        return False
    amount = literal_value(right.expr)
    if op in ("<<", ">>"):
        return not (type(amount) is int and 0 <= amount < semantics.int_info(left.ty.elem)[0])
    if op in ("/", "%"):  # a literal divisor other than 0 and -1 cannot panic (0 is rustc's error)
        return not (type(amount) is int and amount not in (0, -1))
    return True


def checked(lw: Lowerer, op: str, elem: str, operands: list[ast.expr], node: Node) -> ast.expr:
    """A call of the checked helper of ``op`` (``"neg"`` for ``-x``) on ``elem``, which the module
    now defines, with the Rust location of ``node``."""
    fn = helper_name(op, elem)
    ctx = lw.ctx
    if fn not in ctx.helpers:
        tree = without_positions(ast.parse(helper_source(op, elem)).body[0])
        assert isinstance(tree, ast.FunctionDef)
        ctx.helpers[fn] = tree
    where = lw.smap.diag(node, "", "")  # (the line and column in characters, as rustc counts them)
    at = f"{lw.smap.shown}:{where.line}:{where.col}"
    return call(fn, [*operands, ast.Constant(at)])
