"""The DSL -> Triton op table: data, one row per method of the DSL's ``Triton`` trait.

This is the single place that says what every DSL method becomes in Python Triton.
Lowering, the generated op reference (``docs/ops.md``, :mod:`.docs`) and the coverage tests
all read it; nothing else spells out op names.

A row (:class:`Op`) names the DSL method, its positional parameters in DSL order
(:class:`Param`), the Triton callee, the *rule* that builds the call and what the call
returns (:data:`Returns`). Most rows use the generic ``call`` rule: positional DSL arguments
become Triton arguments, ``Some(x)`` is unwrapped, and any argument equal to Triton's own
default (``None``, ``&[]``, ``false``, ``EvictionPolicy::NoEvict``...) is dropped. Other rules
are functions registered under the row's rule name in ``lowering/rules.py``; a row naming a
rule that is not registered stops the import.
"""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED = _Required()  # a parameter without a default: always passed


@dataclass(frozen=True, slots=True)
class Param:
    """One positional DSL parameter.

    ``kw`` is the Triton keyword it becomes (``None``: same as ``name``; ``""``: never passed).
    ``positional`` keeps it positional in the generated call (what a Triton programmer writes
    for ``tl.load(ptr, ...)`` or ``tl.arange(0, N)``). ``default`` is Triton's default value: an
    argument equal to it is omitted. ``form`` says how a ``&[...]`` argument is written:
    ``list`` or ``tuple``, or ``scalar_or_list`` (a one-element slice becomes the bare value).
    """

    name: str
    kw: str | None = None
    positional: bool = False
    default: object = REQUIRED
    form: str = "list"

    @property
    def keyword(self) -> str:
        return self.kw or self.name


class Shape(enum.Enum):
    """What a call returns when no element-type rule applies."""

    NOTHING = "nothing"  # no value (a store, a barrier)
    TUPLE = "tuple"  # several values
    DESCRIPTOR = "descriptor"  # a tensor descriptor
    POINTERS = "pointers"  # a block of pointers
    BLOCK_POINTER = "block pointer"


@dataclass(frozen=True, slots=True)
class Elem:
    """A runtime value of this Rust element type."""

    elem: str


@dataclass(frozen=True, slots=True)
class LikeArg:
    """A value of the same element type (and scalar or tensor kind) as argument ``index``."""

    index: int


@dataclass(frozen=True, slots=True)
class PointeeOf:
    """A value of the element type behind pointer argument ``index``."""

    index: int


@dataclass(frozen=True, slots=True)
class Turbofish:
    """A value of the turbofish type argument ``index`` (``T::zeros::<D>``)."""

    index: int


Returns = Elem | LikeArg | PointeeOf | Turbofish | Shape
NOTHING, TUPLE, DESCRIPTOR, POINTERS, BLOCK_POINTER = Shape


@dataclass(frozen=True, slots=True)
class Op:
    """One DSL method and what it becomes.

    ``returns`` drives the little type inference that lowering needs (is a value an int or a
    float, a compile-time constant or a runtime tensor). ``generics`` maps each turbofish type
    argument to a Triton keyword (``None``: the argument only names an input type and is
    dropped). ``group`` and ``note`` are for ``docs/ops.md``; ``tested``: the test-suite checks
    the method (see :data:`TESTED`).
    """

    name: str
    params: tuple[Param, ...]
    target: str
    rule: str = "call"
    returns: Returns = LikeArg(0)
    generics: tuple[str | None, ...] = ()
    note: str = ""
    group: str = "misc"
    tested: bool = False


def P(name: str, kw: str | None = None, positional: bool = False, default: object = REQUIRED,
      form: str = "list") -> Param:
    return Param(name, kw, positional, default, form)


def Pos(name: str, form: str = "list") -> Param:
    return Param(name, None, True, REQUIRED, form)


_UNARY_FLOAT = ("ceil", "floor", "cos", "sin", "exp", "exp2", "log", "log2", "rsqrt",
                "sigmoid", "sqrt", "sqrt_rn", "erf")
_COMPARE = {"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}
_REDUCE_SIMPLE = ("sum", "xor_sum")
_ATOMIC_RMW = ("atomic_add", "atomic_and", "atomic_or", "atomic_xor", "atomic_max",
               "atomic_min", "atomic_xchg")

# Triton computes these only in f32/f64: f16/bf16 inputs are promoted and the result
# rounded back, so `T::exp(x)` keeps meaning "exp of a D tensor, as a D tensor".
F32_MATH = frozenset({"exp", "exp2", "log", "log2", "cos", "sin", "sqrt", "rsqrt", "erf", "floor",
                      "ceil", "sigmoid", "softmax", "sqrt_rn", "atan", "fdiv", "div_rn"})

# Ops that pass a value held in f32 for f32-only math through (reductions, shape ops,
# selections): a half-precision value stays in f32 across them unless one of their
# operands is a plain D value (then it is rounded there; see docs/translation.md).
KEEPS_F32 = frozenset({"sum", "max", "min", "zeros_like", "broadcast_to", "expand_dims", "permute", "reshape", "view",
                       "where_", "maximum", "minimum", "abs", "clamp"})

# Checked by compiling only (the interpreter cannot run them).
COMPILED_ONLY = frozenset({"inline_asm_elementwise"})

# Methods checked by the test-suite: numerically under the interpreter (and on a GPU
# when one is available) and compiled for sm_90 and gfx942. Everything else in the
# table is mapped but not yet proven.
TESTED = frozenset(
    """program_id num_programs arange arange_f32 zeros zeros_like full cast load store
    lt le gt ge eq ne lt_scalar le_scalar gt_scalar ge_scalar eq_scalar ne_scalar where_
    maximum minimum abs exp exp2 log log2 sqrt rsqrt sigmoid sum max min cdiv dot
    expand_dims broadcast_to trans
    cos sin erf floor ceil atan clamp fma fdiv div_rn sqrt_rn softmax cumsum cumprod flip sort
    argmax argmin reshape ravel permute split join interleave gather xor_sum broadcast
    multiple_of max_contiguous max_constancy max_with_indices min_with_indices histogram
    reduce associative_scan static_assert device_assert debug_barrier shared_barrier
    atomic_add atomic_max atomic_min atomic_and atomic_or atomic_xor atomic_xchg atomic_cas
    make_tensor_descriptor load_tensor_descriptor store_tensor_descriptor
    rand randn randint randint4x swizzle2d load_scalar_f32_as_i32 view cat
    umulhi assume static_print device_print make_block_ptr advance dot_scaled""".split()
)


def _ops() -> list[Op]:
    ops: list[Op] = [
        # --- program / index space ---------------------------------------------------
        Op("program_id", (Pos("axis"),), "tl.program_id", returns=Elem("i32"), group="program"),
        Op("num_programs", (Pos("axis"),), "tl.num_programs", returns=Elem("i32"), group="program"),
        Op("arange", (Pos("start"), Pos("end")), "tl.arange", returns=Elem("i32"), group="creation"),
        Op("arange_f32", (Pos("start"), Pos("end")), "tl.arange", rule="arange_f32",
           returns=Elem("f32"), group="creation", note="`tl.arange(a, b).to(tl.float32)`"),
        Op("load_scalar_f32_as_i32", (Pos("ptr"), Pos("offset")), "tl.load",
           rule="load_scalar_f32_as_i32", returns=Elem("i32"), group="memory",
           note="`tl.load(ptr + offset).to(tl.int32)` (truncates)"),
        # --- creation -------------------------------------------------------------------
        Op("zeros", (Pos("shape"),), "tl.zeros", rule="zeros", returns=Turbofish(0),
           generics=("dtype",), group="creation",
           note="dtype from the turbofish; `tl.float32` when absent"),
        Op("zeros_like", (Pos("x"),), "tl.zeros_like", group="creation"),
        Op("full", (Pos("shape"), Pos("value")), "tl.full", rule="full", returns=Turbofish(0),
           generics=("dtype",), group="creation",
           note="dtype from the turbofish, else from the value's type"),
        Op("cast", (Pos("x"), P("fp_downcast_rounding", default=None), P("bitcast", default=False)),
           "to", rule="cast", returns=Turbofish(1), generics=(None, "dtype"), group="creation",
           note="`x.to(Dst, ...)`; Src only names the input type"),
        # --- shape manipulation ---------------------------------------------------------
        Op("cat", (Pos("a"), Pos("b"), P("can_reorder", default=False)), "tl.cat", rule="cat", group="shape",
           note="`can_reorder=false` (Triton cannot) becomes an ordered 1-D `_cat` helper"),
        Op("broadcast", (Pos("a"), Pos("b")), "tl.broadcast", returns=TUPLE, group="shape"),
        Op("broadcast_to", (Pos("x"), Pos("shape")), "tl.broadcast_to", group="shape"),
        Op("expand_dims", (Pos("x"), Pos("axis")), "tl.expand_dims", group="shape"),
        Op("permute", (Pos("x"), Pos("dims", form="tuple")), "tl.permute", group="shape"),
        Op("reshape", (Pos("x"), Pos("shape"), P("can_reorder", kw="")), "tl.reshape",
           group="shape", note="`can_reorder` is dropped: deprecated in Triton 3.9, and keeping order is always valid"),
        Op("trans", (Pos("x"), Pos("dims", form="tuple")), "tl.trans", rule="trans", group="shape",
           note="`&[]` and `&[1, 0]` (the 2-D default) are dropped"),
        Op("ravel", (Pos("x"), P("can_reorder", kw="")), "tl.ravel", group="shape",
           note="`can_reorder` is dropped, as for reshape"),
        Op("view", (Pos("x"), Pos("shape")), "tl.reshape", group="shape",
           note="deprecated in Triton: `tl.reshape(x, shape)` (the order-keeping reshape is a valid view)"),
        Op("join", (Pos("a"), Pos("b")), "tl.join", group="shape"),
        Op("interleave", (Pos("a"), Pos("b")), "tl.interleave", group="shape"),
        Op("split", (Pos("x"),), "tl.split", returns=TUPLE, group="shape"),
        # --- linear algebra -------------------------------------------------------------
        Op("dot", (Pos("a"), Pos("b"), P("acc", default=None), P("input_precision", default="tf32"),
                   P("max_num_imprecise_acc", default=None)),
           "tl.dot", rule="dot", returns=Turbofish(1), generics=(None, "out_dtype"), group="linalg",
           note="`O` becomes `out_dtype` when there is no accumulator; TF32 is Triton's default"),
        Op("dot_scaled", (Pos("lhs"), Pos("lhs_scale"), Pos("lhs_format"), Pos("rhs"),
                          Pos("rhs_scale"), Pos("rhs_format"), P("acc", default=None),
                          P("fast_math", default=False)),
           "tl.dot_scaled", returns=Turbofish(2), generics=(None, None, "out_dtype"), group="linalg"),
        # --- memory ---------------------------------------------------------------------
        Op("make_block_ptr", (Pos("base"), P("shape"), P("strides"), P("offsets"),
                              P("block_shape"), P("order", form="tuple")),
           "tl.make_block_ptr", rule="make_block_ptr", returns=BLOCK_POINTER, group="memory",
           note="lowered (block pointers are gone from Triton 3.9): offsets become variables, "
                "loads/stores pointer arithmetic plus a boundary mask; `order` is a layout hint and dropped"),
        Op("advance", (Pos("ptr"), Pos("offsets")), "tl.advance", rule="advance", group="memory",
           note="adds to the offset variables"),
        Op("make_tensor_descriptor", (Pos("base"), P("shape"), P("strides"), P("block_shape"),
                                      P("padding_option", default="zero")),
           "tl.make_tensor_descriptor", returns=DESCRIPTOR, group="memory",
           note="the host must call `triton.set_allocator(...)`"),
        Op("load_tensor_descriptor", (Pos("desc"), Pos("offsets")), "load", rule="method",
           returns=PointeeOf(0), group="memory", note="`desc.load(offsets)`"),
        Op("store_tensor_descriptor", (Pos("desc"), Pos("offsets"), Pos("value")), "store",
           rule="method", returns=NOTHING, group="memory", note="`desc.store(offsets, value)`"),
        Op("load", (Pos("ptr"), P("mask", default=None), P("other", default=None),
                    P("boundary_check", default=(), form="tuple"), P("padding_option", default=None),
                    P("cache_modifier", default=""), P("eviction_policy", default=""),
                    P("volatile", default=False)),
           "tl.load", rule="load_store", returns=PointeeOf(0), group="memory",
           note="`boundary_check`/`padding_option` only mean something for block pointers"),
        Op("store", (Pos("dest"), Pos("src"), P("mask", default=None),
                     P("boundary_check", default=(), form="tuple"), P("cache_modifier", default=""),
                     P("eviction_policy", default="")),
           "tl.store", rule="load_store", returns=NOTHING, group="memory"),
        # --- selection / misc elementwise ----------------------------------------------
        Op("where_", (Pos("cond"), Pos("x"), Pos("y")), "tl.where", returns=LikeArg(1), group="elementwise"),
        Op("flip", (Pos("x"), P("dim", positional=True, default=None)), "tl.flip", rule="flip", group="shape",
           note="`None` becomes `-1` (the last dim), which Triton 3.6 also accepts"),
        Op("gather", (Pos("src"), Pos("index"), Pos("axis")), "tl.gather", group="shape"),
        Op("abs", (Pos("x"),), "tl.abs", group="elementwise"),
        Op("atan", (Pos("x"),), "_atan", group="elementwise",
           note="a generated `_atan` helper (libdevice's does not run on the interpreter); f32 accuracy"),
        Op("softmax", (Pos("x"), P("dim", default=None), P("keep_dims", default=False),
                       P("ieee_rounding", default=False)), "tl.softmax", group="reduction"),
        Op("maximum", (Pos("x"), Pos("y")), "tl.maximum", group="elementwise"),
        Op("minimum", (Pos("x"), Pos("y")), "tl.minimum", group="elementwise"),
        Op("clamp", (Pos("x"), Pos("lo"), Pos("hi")), "tl.clamp", group="elementwise"),
        Op("fma", (Pos("x"), Pos("y"), Pos("z")), "tl.fma", group="elementwise"),
        Op("fdiv", (Pos("x"), Pos("y"), P("ieee_rounding", default=False)), "tl.fdiv",
           group="elementwise"),
        Op("div_rn", (Pos("x"), Pos("y")), "tl.div_rn", group="elementwise"),
        Op("umulhi", (Pos("x"), Pos("y")), "tl.umulhi", group="elementwise"),
        Op("cdiv", (Pos("x"), Pos("div")), "tl.cdiv", group="elementwise"),
        Op("swizzle2d", (Pos("i"), Pos("j"), Pos("size_i"), Pos("size_j"), Pos("size_g")),
           "tl.swizzle2d", returns=TUPLE, group="program"),
        # --- reductions and scans -------------------------------------------------------
        Op("max", (Pos("x"), P("axis", default=None), P("keep_dims", default=False)), "tl.max",
           group="reduction"),
        Op("min", (Pos("x"), P("axis", default=None), P("keep_dims", default=False)), "tl.min",
           group="reduction"),
        Op("max_with_indices", (Pos("x"), P("axis"), P("return_indices_tie_break_left", default=True),
                                P("keep_dims", default=False)),
           "tl.max", rule="with_indices", returns=TUPLE, group="reduction",
           note="`tl.max(..., return_indices=True)`"),
        Op("min_with_indices", (Pos("x"), P("axis"), P("return_indices_tie_break_left", default=True),
                                P("keep_dims", default=False)),
           "tl.min", rule="with_indices", returns=TUPLE, group="reduction",
           note="`tl.min(..., return_indices=True)`"),
        Op("argmax", (Pos("x"), P("axis"), P("tie_break_left", default=True),
                      P("keep_dims", default=False)), "tl.argmax", returns=Elem("i32"), group="reduction"),
        Op("argmin", (Pos("x"), P("axis"), P("tie_break_left", default=True),
                      P("keep_dims", default=False)), "tl.argmin", returns=Elem("i32"), group="reduction"),
        Op("cumsum", (Pos("x"), P("axis", default=0), P("reverse", default=False)), "tl.cumsum",
           group="reduction"),
        Op("cumprod", (Pos("x"), P("axis", default=0), P("reverse", default=False)), "tl.cumprod",
           group="reduction"),
        Op("sort", (Pos("x"), P("dim", default=None), P("descending", default=False)), "tl.sort",
           group="reduction"),
        Op("histogram", (Pos("x"), Pos("num_bins"), P("mask", default=None)), "tl.histogram",
           returns=Elem("i32"), group="reduction"),
        Op("reduce", (Pos("x"), Pos("axis"), Pos("combine_fn"), P("keep_dims", default=False)),
           "tl.reduce", rule="combine", returns=LikeArg(0), group="reduction",
           note="the combine fn becomes a `@triton.jit` helper"),
        Op("associative_scan", (Pos("x"), Pos("axis"), Pos("combine_fn"), P("reverse", default=False)),
           "tl.associative_scan", rule="combine", group="reduction",
           note="the combine fn becomes a `@triton.jit` helper"),
        # --- atomics --------------------------------------------------------------------
        Op("atomic_cas", (Pos("ptr"), Pos("cmp"), Pos("val"), P("sem", default=None),
                          P("scope", default=None)), "tl.atomic_cas", returns=PointeeOf(0),
           group="atomic"),
        # --- random ---------------------------------------------------------------------
        Op("rand", (Pos("seed"), Pos("offsets"), P("n_rounds", default=10)), "tl.rand",
           returns=Elem("f32"), group="random"),
        Op("randn", (Pos("seed"), Pos("offsets"), P("n_rounds", default=10)), "tl.randn",
           returns=Elem("f32"), group="random"),
        Op("randint", (Pos("seed"), Pos("offsets"), P("n_rounds", default=10)), "tl.randint",
           returns=Elem("i32"), group="random"),
        Op("randint4x", (Pos("seed"), Pos("offsets"), P("n_rounds", default=10)), "tl.randint4x",
           returns=TUPLE, group="random"),
        # --- compiler hints and debugging ----------------------------------------------
        Op("inline_asm_elementwise", (Pos("asm"), Pos("constraints"), P("is_pure"), P("pack")),
           "tl.inline_asm_elementwise", rule="inline_asm", returns=Turbofish(0), generics=("dtype",),
           group="debug",
           note="the DSL passes no operands: `args=[]`, result dtype from `::<D>`; one scalar per program "
                "(e.g. `%laneid`); GPU only (Triton's interpreter has no inline asm)"),
        Op("assume", (Pos("cond"),), "tl.assume", returns=NOTHING, group="hint"),
        Op("multiple_of", (Pos("x"), Pos("values", form="scalar_or_list")), "tl.multiple_of",
           group="hint"),
        Op("max_contiguous", (Pos("x"), Pos("values", form="scalar_or_list")), "tl.max_contiguous",
           group="hint"),
        Op("max_constancy", (Pos("x"), Pos("values", form="scalar_or_list")), "tl.max_constancy",
           group="hint"),
        Op("debug_barrier", (), "tl.debug_barrier", returns=NOTHING, group="debug"),
        Op("device_assert", (Pos("cond"), P("msg", default=""), P("mask", default=None)),
           "tl.device_assert", returns=NOTHING, group="debug"),
        Op("device_print", (Pos("prefix"), Pos("val"), P("hex", default=False)), "tl.device_print",
           returns=NOTHING, group="debug"),
        Op("static_assert", (Pos("cond"), P("msg", positional=True, default="")), "tl.static_assert",
           returns=NOTHING, group="debug"),
        Op("static_print", (Pos("msg"),), "tl.static_print", returns=NOTHING, group="debug"),
        # --- indexed shared memory (teenygrad's tile branch) -----------------------------
        # Triton's language keeps shared memory to itself: a kernel cannot allocate, index or
        # transpose a buffer of it (Gluon can, Triton cannot), so these four are located errors.
        # The barrier alone has a faithful mapping.
        *(Op(name, params, "", rule="untranslatable", group="shared memory", returns=NOTHING,
             note="an error: Triton kernels cannot address shared memory")
          for name, params in (("shared_alloc", (Pos("shape"),)),
                               ("shared_store_index", (Pos("buf"), Pos("index"), Pos("src"))),
                               ("shared_trans", (Pos("buf"),)),
                               ("shared_load_index", (Pos("buf"), Pos("index"))))),
        Op("shared_barrier", (), "tl.debug_barrier", returns=NOTHING, group="shared memory",
           note="a CTA-wide barrier, as `debug_barrier`"),
    ]
    for name in _UNARY_FLOAT:
        ops.append(Op(name, (Pos("x"),), f"tl.{name}", group="elementwise"))
    for name, sym in _COMPARE.items():
        ops.append(Op(name, (Pos("x"), Pos("y")), sym, rule="binop", returns=Elem("bool"),
                      group="comparison", note=f"`x {sym} y`"))
        ops.append(Op(f"{name}_scalar", (Pos("x"), Pos("y")), sym, rule="binop", returns=Elem("bool"),
                      group="comparison", note=f"`x {sym} y`"))
    for name in _REDUCE_SIMPLE:
        ops.append(Op(name, (Pos("x"), P("axis", default=None), P("keep_dims", default=False)),
                      f"tl.{name}", group="reduction"))
    for name in _ATOMIC_RMW:
        ops.append(Op(name, (Pos("ptr"), Pos("val"), P("mask", default=None), P("sem", default=None),
                             P("scope", default=None)), f"tl.{name}", returns=PointeeOf(0),
                      group="atomic"))
    return [dataclasses.replace(op, tested=op.name in TESTED,
                                note=op.note or ("f16/bf16 computed in f32" if op.name in F32_MATH else ""))
            for op in ops]


OPS: dict[str, Op] = {op.name: op for op in _ops()}

# Methods called on a value (`recv.method(args)`): the receiver is argument 0.
METHODS: dict[str, Op] = {
    "add_offsets": Op("add_offsets", (Pos("ptr"), Pos("offsets")), "+", rule="binop",
                      returns=POINTERS, group="memory", note="`ptr + offsets`", tested=True),
    **{name: Op(name, (Pos("x"), Pos("y")), sym, rule="binop", returns=Elem("bool"), group="comparison",
                note=f"`x {sym} y`", tested=True)
       for name, sym in _COMPARE.items()},
}

# How many generic parameters (type and const) each trait method declares, as teenygrad's
# `Triton` trait does (`cast<Src, Dst>`, `load<D, const N: usize>`); the others declare none
# (`arange(start: impl Into<i32>, ..)` takes no explicit one). A turbofish with another count is
# rustc's E0107 (tests/test_docs.py holds this to the trait's list).
GENERIC_PARAMS: dict[str, int] = {
    **dict.fromkeys(("zeros", "zeros_like", "full", "cat", "broadcast", "broadcast_to", "expand_dims", "permute",
                     "reshape", "trans", "ravel", "view", "join", "interleave", "split", "make_block_ptr", "advance",
                     "make_tensor_descriptor", "load_tensor_descriptor", "store_tensor_descriptor", "where_", "flip",
                     "gather", "abs", *_UNARY_FLOAT, "atan", "softmax", "maximum", "minimum", "clamp", "fma", "fdiv",
                     "div_rn", "sum", "max", "max_with_indices", "min", "min_with_indices", "argmax", "argmin",
                     "xor_sum", "cumsum", "cumprod", "sort", "associative_scan", *_ATOMIC_RMW, "atomic_cas",
                     "inline_asm_elementwise", "multiple_of", "max_contiguous", "max_constancy", "device_print",
                     "shared_alloc", "shared_store_index", "shared_trans", "shared_load_index", *_COMPARE,
                     *(f"{c}_scalar" for c in _COMPARE)), 1),
    **dict.fromkeys(("cast", "dot", "load", "store", "reduce"), 2),
    "dot_scaled": 3,
}

# DSL enum paths -> Python values (`Axis::X` -> 0).
ENUMS: dict[str, dict[str, int | str | None]] = {  # None: a variant Triton has no value for
    "Axis": {"X": 0, "Y": 1, "Z": 2},
    "PaddingOption": {"Zero": "zero", "Nan": "nan"},
    "CacheModifier": {"Ca": ".ca", "Cg": ".cg", "Cv": ".cv", "Wb": ".wb", "Cs": ".cs", "Wt": ".wt"},
    "EvictionPolicy": {"EvictFirst": "evict_first", "EvictLast": "evict_last", "NoEvict": ""},
    "InputPrecision": {"TF32": "tf32", "TF32x3": "tf32x3", "IEEE": "ieee", "BF16x3": "bf16x3",
                       "BF16x6": "bf16x6"},
    "FpDowncastRounding": {"Rtne": "rtne", "Rtz": "rtz"},
    "MemSem": {"Relaxed": "relaxed", "Acquire": "acquire", "Release": "release",
               "AcqRel": "acq_rel"},
    "MemScope": {"Cta": "cta", "Gpu": "gpu", "Sys": "sys"},
    # teenygrad's variants; `tl.dot_scaled` has no format for fp4 packed four to a byte or
    # for 8-bit integers (it takes e2m1, e4m3, e5m2, bf16, fp16), so those three are errors.
    "DotFormat": {"E4M3": "e4m3", "E5M2": "e5m2", "E2M1x2": "e2m1", "E2M1x4": None, "BF16x2": "bf16",
                  "Int8": None, "UInt8": None},
}
