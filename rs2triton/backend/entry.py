"""What a row of the mapping table says: one torch operation, the teenygrad op that implements it,
and how the op's inputs, parameters, output shape and const generics come from a call.

A row is data (:mod:`rs2triton.backend.table` lists them); :mod:`rs2triton.backend.plan` reads
it for each call. The rules for const generics are small records, each naming what it is
chosen from and which limit of the kernel it keeps:

- :class:`Block`: a tile the kernel masks (``offsets.lt(n)``, a loop over tiles): any power
  of two is correct, so the one nearest the size, within ``lo``..``hi``;
- :class:`Cover`: a tile the kernel reads whole, with no loop over it (softmax's row): the
  block must hold the size; a size past ``hi`` has no block that fits;
- :class:`Exact`: a tile read with no mask at all: exactly the size, a power of two;
- :class:`Fixed`, :class:`Present` (whether an optional argument was given: ``USE_BIAS``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# What a rule's size is read from, on the call's shapes as the op sees them (after the layout):
SIZES = {
    "numel": "the output's element count",
    "rows": "the output's element count over its last dimension",
    "cols": "the output's last dimension",
    "k": "the input's last dimension (the reduction of a matrix product)",
}


def next_pow2(n: int) -> int:
    return 1 << max(int(n) - 1, 0).bit_length()


@dataclass(frozen=True)
class Block:
    """A masked tile over ``size``: the power of two nearest it, within ``lo``..``hi``."""

    size: str
    lo: int = 16
    hi: int = 1024

    def choose(self, sizes: dict[str, int]) -> tuple[int | None, str]:
        return min(max(next_pow2(sizes[self.size]), self.lo), self.hi), ""


@dataclass(frozen=True)
class Cover:
    """A tile the kernel reads in one piece: at least ``size`` (the kernel would drop the rest)."""

    size: str
    hi: int = 1 << 16
    lo: int = 16

    def choose(self, sizes: dict[str, int]) -> tuple[int | None, str]:
        n = sizes[self.size]
        block = max(next_pow2(n), self.lo)
        if block > self.hi:
            return None, (f"the kernel reads its {SIZES[self.size].split(' (')[0].removeprefix('the ')} "
                          f"({n}) in one block, and no block up to {self.hi} holds it")
        return block, ""


@dataclass(frozen=True)
class Exact:
    """A tile the kernel reads with no mask at all: exactly ``size``, which must be a power of two."""

    size: str

    def choose(self, sizes: dict[str, int]) -> tuple[int | None, str]:
        n = sizes[self.size]
        if n < 1 or next_pow2(n) != n:
            return None, (f"the kernel reads exactly one block of its {SIZES[self.size].split(' (')[0].removeprefix('the ')} "
                          f"with no mask, and {n} is not a power of two")
        return n, ""


@dataclass(frozen=True)
class Fixed:
    value: Any

    def choose(self, sizes: dict[str, int]) -> tuple[Any, str]:
        return self.value, ""


@dataclass(frozen=True)
class Present:
    """True when the optional argument ``arg`` was given (not None)."""

    arg: str

    def choose(self, sizes: dict[str, int]) -> tuple[Any, str]:  # (resolved by the planner)
        raise AssertionError("Present is read from the call's arguments")


Rule = Block | Cover | Exact | Fixed | Present


@dataclass(frozen=True)
class Entry:
    """One torch operation and the teenygrad op that runs it.

    ``name``: the operation (and its name in ``backend.functional``); ``schema``: torch's
    signature in ``torch.library`` schema syntax (its argument names are what the other fields
    name); ``targets``: what the operation is called in a captured graph (dotted paths of torch
    callables; ``Tensor.x``: the method ``x``); ``op``: the Rust struct of the teenygrad op (a
    kernel struct, or a wrapper built by ``new``), in order of preference; ``inputs`` and
    ``params``: which arguments are the op's activation inputs and its parameter tensors (a
    parameter may be None where ``consts`` has a :class:`Present` for it); ``consts``: a rule per
    const generic of a kernel struct; ``new``: the arguments of a wrapper's ``new`` (a rule, or
    the name of a call argument); ``require``: argument values the op implements (another
    value runs on torch, with the reason); ``layout``: how the op sees the tensors —
    ``"flat"`` (elementwise: inputs broadcast to the output's shape), ``"rows"`` (along the
    last dimension of ``[rows, cols]``: ``dim`` must be the last), ``"matrix"`` (the input as
    ``[rows, k]``, a matrix product over its last dimension); ``zero_pad``: arguments whose
    last dimension may be padded with zeros without changing the result (what makes an
    unaligned row fit a tensor-descriptor kernel); ``reference``: the torch function with the
    same meaning (the output's shape and dtype come from it, on meta tensors; the tests compare
    with it).
    """

    name: str
    schema: str
    targets: tuple[str, ...]
    op: tuple[str, ...]
    inputs: tuple[str, ...]
    reference: str
    params: tuple[str, ...] = ()
    consts: dict[str, Rule] = field(default_factory=dict)
    new: tuple[str | Rule, ...] = ()
    require: dict[str, Any] = field(default_factory=dict)
    layout: str = "flat"
    zero_pad: tuple[str, ...] = ()
    note: str = ""

    def __hash__(self) -> int:
        return hash(self.name)
