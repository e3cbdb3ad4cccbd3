"""teenygrad's ``RuntimeOp`` trait (``core/teeny-core/src/model/mod.rs``) as data: each method's
parameters, their host types, and what it returns. The runtime's :class:`~rs2triton.runtime.
ops.RuntimeOp` has the same methods with the same Python parameters (a test holds them equal).

A Rust parameter takes the trait's name in Python whatever the impl calls it (``_``,
``_output_row_stride``), so every op's methods can be called alike; the visitor is not a
parameter but what the ``pack_*`` methods return.
"""

from __future__ import annotations

from dataclasses import dataclass

from rs2triton.transpiler.host.types import (
    BOOL,
    I32,
    INPUT,
    PTR,
    SHAPE,
    STR,
    USIZE,
    VISITOR,
    HTy,
    array,
    option,
    seq,
)

SHAPES = seq(SHAPE)
PTRS = seq(PTR)
INPUTS = seq(INPUT)
U32 = HTy("int", "u32")


@dataclass(frozen=True, slots=True)
class Method:
    params: tuple[tuple[str, HTy], ...]
    returns: HTy
    visitor: bool = False  # takes `visitor: &mut dyn ArgVisitor` last (returned in Python)


_PACK = (("inputs", INPUTS), ("params", PTRS), ("output", PTR), ("output_shape", SHAPE),
         ("output_row_stride", I32))
_PACK_BACKWARD = (("inputs", INPUTS), ("params", PTRS), ("output", PTR), ("output_shape", SHAPE),
                  ("grad_output", PTR), ("grad_output_row_stride", I32), ("grad_inputs", PTRS),
                  ("grad_params", PTRS))
_LAUNCH = (("launch_idx", USIZE),)

METHODS: dict[str, Method] = {
    "n_activation_inputs": Method((), USIZE),
    "param_shapes": Method((("input_shapes", SHAPES), ("output_shape", SHAPE)), seq(SHAPE)),
    "param_names": Method((), array(STR)),
    "forward_output_row_stride": Method((("output_shape", SHAPE),), USIZE),
    "forward_output_row_elems": Method((("output_shape", SHAPE),), USIZE),
    "param_init_data": Method((("param_idx", USIZE),), option(seq(HTy("int", "u8")))),
    "compute_concrete_output_shape": Method((("input_shapes", SHAPES), ("resolved", SHAPE)), SHAPE),
    "pack_args": Method(_PACK, VISITOR, visitor=True),
    "grid": Method((("output_shape", SHAPE),), array(U32)),
    "n_launches": Method((), USIZE),
    "pack_args_for_launch": Method(_LAUNCH + _PACK, VISITOR, visitor=True),
    "grid_for_launch": Method(_LAUNCH + (("input_shapes", SHAPES), ("output_shape", SHAPE)), array(U32)),
    "has_backward": Method((), BOOL),
    "backward_grad_output_row_stride": Method((("output_shape", SHAPE),), USIZE),
    "pack_backward_args": Method(_PACK_BACKWARD, VISITOR, visitor=True),
    "backward_grid": Method((("input_shapes", SHAPES), ("output_shape", SHAPE)), array(U32)),
    "n_backward_launches": Method((), USIZE),
    "pack_backward_args_for_launch": Method(_LAUNCH + _PACK_BACKWARD, VISITOR, visitor=True),
    "backward_grid_for_launch": Method(_LAUNCH + (("input_shapes", SHAPES), ("output_shape", SHAPE)), array(U32)),
}

# Rust's spellings of the types in the trait's signatures, for recognising a parameter's
# type in an impl (any path to RawPtr / ArgVisitor).
TRAIT_NAMES = ("RuntimeOp",)
