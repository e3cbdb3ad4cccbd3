"""The values lowering tracks: a Python expression and the static type of what it computes.

:class:`Ty` is the small lattice that lets Rust's meaning survive the trip: whether a value is
known when Triton compiles (:attr:`Kind.CONST`: literals, const generics) or only at run
time (a scalar, a tensor, a pointer), and its Rust element type. Lowering asks it the
questions Rust's rules depend on (integer ``/`` truncates, ``!`` is logical on a compile-time
bool and bitwise otherwise, compile-time values cannot be ``.to()``-cast...).
"""

from __future__ import annotations

import ast
import enum
from dataclasses import dataclass
from typing import NamedTuple

from rs2triton.rust.semantics import round_float
from rs2triton.transpiler.dsl.ops import REQUIRED, Param
from rs2triton.transpiler.pyast import LOAD, literal_value


class Kind(enum.Enum):
    """What kind of value an expression is."""

    CONST = "const"  # a number or bool known when Triton compiles (a literal, a const generic)
    STR = "str"  # a string literal (compile time)
    LIST = "list"  # a `&[...]` slice of values (compile time)
    ENUM = "enum"  # a DSL enum value such as `Axis::X` (compile time)
    SCALAR = "scalar"  # a runtime scalar
    INDEX = "index"  # a `for` loop's variable
    TENSOR = "tensor"  # a block of values
    PTR = "ptr"  # a pointer parameter
    PTRS = "ptrs"  # a block of pointers
    BLOCK_PTR = "blockptr"  # a DSL block pointer (see BlockPtr)
    DESC = "desc"  # a tensor descriptor
    TUPLE = "tuple"
    FN = "fn"  # a combine function passed by name
    TILE = "tile"  # teenygrad's `Tile { tensor, mask }` (see TileParts)
    NONE = "none"  # no value (a store; host code's `()`)
    UNKNOWN = "unknown"  # (``elem``: the Rust type's name where it has one that lowering does not model)
    # Host code's values (Python values at run time; ``items[0]`` the element type where there is one):
    SEQ = "seq"  # a slice or a `Vec`: a Python sequence
    ARRAY = "array"  # a Rust array `[T; N]`: a tuple
    OPTION = "option"  # an `Option<T>`: the value or None
    ITER = "iter"  # an iterator: a Python iterable
    INPUT = "input"  # a `(RawPtr, &[usize])` pair: the tensor itself
    STRUCT = "struct"  # a value of a struct of the file (`self`, what `new` builds): ``elem`` its name
    KERNEL = "kernel"  # a configured kernel struct (`ReluForward<D>`): ``elem`` its launcher's name
    VISITOR = "visitor"  # teenygrad's `ArgVisitor` (what the `pack_*` methods return)
    PHANTOM = "phantom"  # a `PhantomData` field (no value in Python)

    # Members are compared by identity: hash them so too, in C (Enum's own hash is Python code,
    # and kinds are looked up in sets for most expressions lowered).
    __hash__ = object.__hash__


COMPILE_TIME = frozenset({Kind.CONST, Kind.STR, Kind.LIST, Kind.ENUM})
CONTAINERS = frozenset({Kind.SEQ, Kind.ARRAY, Kind.OPTION, Kind.ITER})  # host values with an element type
RUNTIME = frozenset({Kind.SCALAR, Kind.TENSOR, Kind.PTR, Kind.PTRS, Kind.INDEX})
BLOCKS = frozenset({Kind.TENSOR, Kind.PTRS})  # values with a shape: `.to()` casts, `&`/`|` for `&&`/`||`


class Ty(NamedTuple):
    """The static type of a lowered value (an immutable tuple: lowering makes one or more per node).

    ``elem``: a Rust element type (``i32``, ``f32``, ``bool``) or a dtype parameter's name, or
    None when unknown or not a number. ``items``: a tuple's item types. ``wide``: a
    half-precision value (``elem`` f16/bf16 or a dtype parameter) still held in f32 after
    f32-only math; lowering rounds it to ``elem`` where it meets ``elem`` again
    (``Lowerer.narrow``). ``length``: a host array's length `N` of `[T; N]`, where known (rustc
    checks it: a constant index past it, an array of another length where one is expected).
    """

    kind: Kind
    elem: str | None = None
    items: tuple[Ty, ...] = ()
    wide: bool = False
    length: int | None = None

    @property
    def runtime(self) -> bool:
        return self.kind in RUNTIME

    @property
    def compile_time(self) -> bool:
        return self.kind in COMPILE_TIME

    @property
    def inner(self) -> Ty:
        """The element type of a container (a slice, an array, an Option, an iterator)."""
        return self.items[0] if self.kind in CONTAINERS and self.items else UNKNOWN


def container(kind: Kind, inner: Ty) -> Ty:
    """A host container type: ``container(Kind.SEQ, USIZE)`` is ``&[usize]``."""
    return Ty(kind, None, (inner,))


UNKNOWN = Ty(Kind.UNKNOWN)
NONE_TY = Ty(Kind.NONE)
BOOL = Ty(Kind.SCALAR, "bool")
USIZE = Ty(Kind.SCALAR, "usize")
I32 = Ty(Kind.SCALAR, "i32")
STR = Ty(Kind.STR)
PTR = Ty(Kind.PTR)
SHAPE = Ty(Kind.SEQ, None, (USIZE,))


def join_kind(*tys: Ty) -> Kind:
    """The kind of a value computed from values of these kinds."""
    kinds = {Kind.CONST if t.compile_time else t.kind for t in tys}
    if Kind.PTRS in kinds:
        return Kind.PTRS
    if Kind.TENSOR in kinds:
        return Kind.TENSOR
    if kinds & {Kind.SCALAR, Kind.PTR, Kind.INDEX}:
        return Kind.SCALAR if Kind.PTR not in kinds else Kind.PTRS
    if kinds == {Kind.CONST}:
        return Kind.CONST
    return Kind.UNKNOWN


@dataclass(slots=True)
class BlockPtr:
    """A DSL block pointer, kept apart at translation time (Triton 3.9 has none).

    ``offsets`` are runtime values (variables once the pointer is bound); the rest are
    expressions fixed when the pointer is made. Loads and stores through it become pointer
    arithmetic plus a boundary mask (see ``rules.block_ptr_access``). ``label`` names the index
    temporaries of its loads and stores (``{label}_idx0``).
    """

    base: ast.expr
    shape: list[ast.expr]
    strides: list[ast.expr]
    offsets: list[ast.expr]
    block: list[ast.expr]
    label: str = "block"


@dataclass(slots=True)
class TileParts:
    """A ``Tile { tensor, mask }`` value (teenygrad's tile DSL), kept apart at translation time:
    its two fields are values of their own (Python locals once bound), so nothing of the pair
    ever crosses a Triton function boundary as an aggregate. ``mask`` is None for ``mask: None``
    (every lane in bounds)."""

    tensor: Val
    mask: Val | None


class Known(NamedTuple):
    """The value rustc's lints know an expression has though it is no literal: a `const` item,
    or a `let` (and arithmetic on them) whose value rustc's constant propagation follows.
    ``via``: the `let` names it went through (rustc follows one only if the function never
    borrows or reassigns it: see ``rustc.known_to_rustc``)."""

    value: int | float
    via: tuple[str, ...] = ()
    weak: bool = False  # bound from an unsuffixed literal: its type is what Rust infers from the uses


@dataclass(slots=True)
class Val:
    """A lowered expression and what lowering knows of it.

    ``static_choice``: ``if CONST { a } else { b }`` with a compile-time branch; ``weak``: an
    unsuffixed literal (or arithmetic on them), whose type Rust infers from its use;
    ``block_ptr``: the parts of a block pointer; ``f32_fill``: for ``T::full::<f32>(shape, v)``,
    the fill's exact f32 value (so a ``cast::<f32, D>`` of it is the same fill made in ``D``);
    ``known``: its value where rustc's lints know it and the expression does not show it (a name
    bound to a constant): for the checks only, the code still reads the name. ``rust``: its Rust
    scalar type where that is not ``ty.elem`` (Triton's promoted type, in a kernel): `x & y` with
    ``x: u8`` and ``let y = 2;`` is a ``u8`` (:mod:`.typeck`; for the checks only).
    """

    expr: ast.expr
    ty: Ty = UNKNOWN
    static_choice: bool = False
    weak: bool = False
    block_ptr: BlockPtr | None = None
    f32_fill: ast.expr | None = None
    tile: TileParts | None = None
    known: Known | None = None
    rust: str | None = None


def known_value(v: Val) -> Known | None:
    """``v``'s value as rustc's lints see it: a literal's, or what it is :attr:`Val.known` to be."""
    lit = literal_value(v.expr)
    return Known(lit, (), v.weak) if lit is not None else v.known


class Omit:
    """An argument left out of the generated call (`None`, or a Triton default)."""

    def __repr__(self) -> str:
        return "OMIT"


OMIT = Omit()
Arg = Val | Omit


def exact_in_f32(e: ast.expr) -> bool:
    """A numeric literal that f32 holds exactly (so rounding it to f32 first changes nothing)."""
    v = literal_value(e)
    if isinstance(v, int):
        return abs(v) <= 2 ** 24
    return isinstance(v, float) and round_float(v, "f32") == v


def shape_form(lst: ast.List, form: str) -> ast.expr:
    """A ``&[...]`` argument as the Triton parameter takes it (see ``ops.Param.form``)."""
    if form == "tuple":
        return ast.Tuple(elts=lst.elts, ctx=LOAD)
    if form == "scalar_or_list" and len(lst.elts) == 1:
        return lst.elts[0]
    return lst


def is_default(v: Val, p: Param) -> bool:
    """Whether ``v`` is Triton's own default for ``p`` (so the argument is left out)."""
    if p.default is REQUIRED:
        return False
    e = v.expr
    if isinstance(e, (ast.List, ast.Tuple)):
        return not e.elts and p.default == ()
    if isinstance(e, ast.Constant):
        return type(e.value) is type(p.default) and e.value == p.default
    return False
