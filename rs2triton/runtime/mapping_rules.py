"""What a row of the torch mapping (``runtime/torch_mapping.py``) is made of: the rules that
choose a kernel's const generics from a call, the records of a row, and :func:`const_rules`, which
picks each const's rule by what the kernel does with it (the fact its launcher records,
``facts={"consts": ...}``), not by its name.

The rules are small records, each naming what it is chosen from and which limit of the kernel
it keeps:

- :class:`Tile`: a tile over a size, whose kind (one of the next three) the kernel's facts say;
- :class:`Block`: a tile the kernel masks (``offsets.lt(n)``, a loop over tiles): any power
  of two is correct, so the one nearest the size, within ``lo``..``hi``;
- :class:`Cover`: a tile the kernel reads whole, with no loop over it (softmax's row): the
  block must hold the size; a size past ``hi`` has no block that fits;
- :class:`Exact`: a tile read with no mask at all: exactly the size, a power of two;
- :class:`Fixed`, :class:`Present` (whether an optional argument was given: ``USE_BIAS``);
- :class:`Value` (an argument of the call: a convolution's ``stride``), :class:`Dim` (a
  dimension of a tensor argument: the weight's kernel height), :class:`Count`.

A row is an :class:`Entry`; its ATen operators are :class:`Aten` records, and a row that runs
kernels with no ``impl RuntimeOp`` states each launch as a :class:`Launch`.
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
    "plane": "the output's last two dimensions' element count (an image's positions)",
}


def _what(size: str) -> str:
    """A size's name in a reason: ``"output's last dimension"``."""
    return SIZES.get(size, size).split(" (")[0].removeprefix("the ")


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
            return None, (f"the kernel reads its {_what(self.size)} "
                          f"({n}) in one block, and no block up to {self.hi} holds it")
        return block, ""


@dataclass(frozen=True)
class Exact:
    """A tile the kernel reads with no mask at all: exactly ``size``, which must be a power of two."""

    size: str

    def choose(self, sizes: dict[str, int]) -> tuple[int | None, str]:
        n = sizes[self.size]
        if n < 1 or next_pow2(n) != n:
            return None, (f"the kernel reads exactly one block of its {_what(self.size)} "
                          f"with no mask, and {n} is not a power of two")
        return n, ""


@dataclass(frozen=True)
class Tile:
    """A tile over ``size`` whose kind the kernel's facts say (its launcher's ``facts={"consts":
    ...}``, recorded by the transpiler): a tile it masks and steps over is a :class:`Block`
    within ``lo``..``hi``; one it masks and reads in one piece a :class:`Cover` up to ``cover``;
    one it never masks an :class:`Exact`. (A kernel without those facts: a :class:`Block`.)"""

    size: str
    lo: int = 16
    hi: int = 1024
    cover: int = 1 << 16

    def rule(self, role: str | None) -> Block | Cover | Exact:
        if role == "cover":
            return Cover(self.size, self.cover, self.lo)
        if role == "exact":
            return Exact(self.size)
        return Block(self.size, self.lo, self.hi)

    def choose(self, sizes: dict[str, int]) -> tuple[int | None, str]:
        return self.rule(None).choose(sizes)


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


@dataclass(frozen=True)
class Value:
    """A value of the call: the argument ``arg`` (an ``int``), or item ``index`` of it when it is a
    list (``stride=[2, 1]``; a single int stands for every item, as torch reads ``stride=2``);
    where the call leaves ``arg`` out (``None`` or an empty list), the argument ``otherwise``
    (pooling's ``stride`` defaults to its ``kernel_size``)."""

    arg: str
    index: int | None = None
    otherwise: str = ""

    def choose(self, sizes: dict[str, int]) -> tuple[Any, str]:  # (resolved by the planner)
        raise AssertionError("Value is read from the call's arguments")


@dataclass(frozen=True)
class Dim:
    """Dimension ``dim`` of the tensor argument ``arg`` (a kernel size: ``weight``'s ``KH``)."""

    arg: str
    dim: int

    def choose(self, sizes: dict[str, int]) -> tuple[Any, str]:  # (resolved by the planner)
        raise AssertionError("Dim is read from the call's arguments")


@dataclass(frozen=True)
class Count:
    """How many tensors of the list argument ``arg`` the op takes (``cat``'s inputs; empty ones
    are left out)."""

    arg: str

    def choose(self, sizes: dict[str, int]) -> tuple[Any, str]:  # (resolved by the planner)
        raise AssertionError("Count is read from the call's arguments")


Rule = Block | Cover | Exact | Tile | Fixed | Present | Value | Dim | Count
_TILES = ("block", "cover", "exact")  # the roles of a tile extent (transpiler/emit/roles.py)


@dataclass(frozen=True)
class Launch:
    """One launch of a kernel struct, stated as data: how a row runs a kernel that has no
    ``impl RuntimeOp`` (a teenygrad ``#[kernel]`` used directly: ``flash_attn2.rs``' kernels).

    ``kernel``: the kernel struct (``FlashAttention2Forward``, in the tree's ``kernels``);
    ``grid``: its grid, each item a size of the row's ``sizes`` or an int; ``args``: one per
    kernel parameter, in the kernel's order — a tensor argument of the ATen call (by its schema
    name; made dense), a tensor the launches make (:class:`Aten`'s ``made``), a size, a scalar
    argument of the call, or a number (``float("-inf")``); ``consts``: a rule per const generic
    (a rule reads the row's ``sizes``: ``Exact("head_dim")``), or the name of a call argument
    (``"is_causal"``). A tensor reaches a pointer parameter in the dtype the kernel declares for
    it (``*D``: the data's dtype, ``*f32``): converted where it is not (an ``f32`` log-sum-exp to
    a kernel that keeps it in ``D``)."""

    kernel: str
    grid: tuple[str | int, ...]
    args: tuple[str | float | int, ...]
    consts: dict[str, Rule | str] = field(default_factory=dict)


@dataclass(frozen=True)
class Transposed:
    """A row argument that is the ATen argument ``arg`` transposed (``addmm``'s ``mat2`` is
    ``weight.t()``: a linear layer's weight is ``mat2.t()``, a view)."""

    arg: str


@dataclass(frozen=True)
class OnesRow:
    """A ``[1, n]`` tensor of ones, ``n`` the first dimension of the ATen argument ``arg`` (a sum
    over the first dimension is ``ones @ arg``: made on torch)."""

    arg: str


@dataclass(frozen=True)
class Sized:
    """A tensor of the sizes the ATen argument ``arg`` lists (None where it is None), made like
    the argument ``like``: it stands for a tensor whose values the op does not read
    (``convolution_backward``'s bias: only its gradient's shape)."""

    arg: str
    like: str


@dataclass(frozen=True)
class Table:
    """A ``[n, d]`` tensor standing for a table whose values the op's backward does not read:
    ``n`` the ATen argument ``arg`` (an int: ``embedding_dense_backward``'s ``num_weights``),
    ``d`` the last dimension of the ATen argument ``like`` (the output's gradient)."""

    arg: str
    like: str


@dataclass(frozen=True)
class Aten:
    """An ATen operator (what AOTAutograd's graphs call) that a row's op computes.

    ``target``: the overload (``"aten.add.Tensor"``); ``args``: a row argument -> what it is of
    the ATen call (an argument's name, :class:`Transposed`, :class:`OnesRow`, :class:`Sized`,
    :class:`Table`: a tensor made for it is a stand-in the op's backward must not read; a row argument not
    named here is the ATen argument of the same name, or ``self`` for ``input``); ``fixed``: row
    arguments the operator leaves implicit (``_softmax``'s ``dtype=None``); ``require``: ATen
    argument values this needs (``half_to_float=False``), another value runs on torch;
    ``outputs``: how many tensors the operator returns (only the first is the op's: the call
    runs on torch where a graph uses the others).

    A backward operator (``grad``: the argument that holds the output's gradient) runs the op's
    backward kernels: ``output`` names the argument that is the forward's output, where the
    operator is given it; ``from_output``: the operator is given the forward's output and not its
    input (``threshold_backward``: ReLU's result), which then stands for the input — the op's
    backward must not read it (checked on its ``pack_backward_args``, once per shape);
    ``returns``: which gradients the operator returns, by row argument; ``mask``: the argument
    that says which of them it is asked for (``output_mask``).
    """

    target: str
    args: dict[str, Any] = field(default_factory=dict)
    fixed: dict[str, Any] = field(default_factory=dict)
    require: dict[str, Any] = field(default_factory=dict)
    outputs: int = 1
    grad: str = ""
    output: str = ""
    from_output: bool = False
    returns: tuple[str, ...] = ("input",)
    mask: str = ""
    # (a row whose kernels have no `impl RuntimeOp`: the launches, in order, that compute the
    # operator; the tensors they make, name -> shape in the row's sizes; what it returns, by name)
    launches: tuple[Launch, ...] = ()
    made: dict[str, tuple[str | int, ...]] = field(default_factory=dict)
    results: tuple[str, ...] = ()
    filled: dict[str, float] = field(default_factory=dict)  # (made tensors that start as this value)


@dataclass(frozen=True)
class Entry:
    """One torch operation and the teenygrad op that runs it.

    ``name``: the operation (and its name in ``backend.functional``); ``schema``: torch's
    signature in ``torch.library`` schema syntax (its argument names are what the other fields
    name); ``targets``: what the operation is called in a captured graph (dotted paths of torch
    callables; ``Tensor.x``: the method ``x``); ``op``: the Rust struct of the teenygrad op (a
    kernel struct, or a wrapper built by ``new``), in order of preference; ``inputs`` and
    ``params``: which arguments are the op's activation inputs and its parameter tensors (a
    parameter may be None where ``consts`` has a :class:`Present` for it); ``consts``: a rule for
    a const generic of a kernel struct, by name, where the kernel's facts cannot say it (a value's
    argument, a flag's, which dimension each of several tiles is over: :func:`const_rules`);
    ``tile``: the rule of the kernel's one tile extent the row does not name (its kind from the
    facts: masked and stepped, read whole with or without a mask); ``new``: the arguments of a wrapper's ``new`` (a rule, or
    the name of a call argument); ``require``: argument values the op implements (another
    value runs on torch, with the reason); ``layout``: how the op sees the tensors —
    ``"flat"`` (elementwise: inputs broadcast to the output's shape), ``"rows"`` (along the
    last dimension of ``[rows, cols]``: ``dim`` must be the last), ``"matrix"`` (the input as
    ``[rows, k]``, a matrix product over its last dimension), ``"image"`` (``[B, C, H, W]``: an
    unbatched ``[C, H, W]`` is one image); ``absent``: what an optional parameter the call
    leaves out means, where the op takes it all the same (a linear layer's bias: zeros; a layer
    norm's weight: ones): the plan passes a tensor of that value; ``bias``: an optional
    per-channel (dimension 1) bias
    argument that the kernel does not take: the plan adds it on torch after the kernel, and its
    gradient is the output gradient summed over the other dimensions (teenygrad's own path for a
    convolution with a bias in training: the kernel, then a bias add); ``zero_pad``: arguments whose
    last dimension may be padded with zeros without changing the result (what makes an
    unaligned row fit a tensor-descriptor kernel); ``reference``: the torch function with the
    same meaning (the output's shape and dtype come from it, on meta tensors; the tests compare
    with it); ``aten``: the ATen operators (:class:`Aten`) of AOTAutograd's forward and backward
    graphs that the op computes, forward or backward (an ATen operator several rows name is
    tried on each, in the table's order, until one takes the call); ``indices``: inputs that are
    integer tensors of indices (an embedding's, a loss's targets), passed as they are, whatever
    the op's ``D``; ``dims``: for the ``"given"`` layout, which dimensions a reduction's ``dim``
    must name: ``"last"`` (or none: everything), ``"leading"`` (the first ones: the input is seen
    as ``[rows, cols]``, the rows those dimensions, and the op sums over its rows).
    ``sizes``: for a row whose ATen operators list :class:`Launch` records (kernels used directly,
    no ``impl RuntimeOp``: ``op`` then names the kernel structs, all of which the tree must
    have), the sizes its launches and rules name, each a :class:`Dim` of a tensor argument; such
    a row has no ``backend.functional`` function (it maps the backend's own ATen operators).
    An input that is a list of tensors (``cat``'s) gives the op each of them, empty ones left out.
    ``layout="given"``: the tensors reach the op as they are (made dense), in the call's shapes,
    and the output has torch's shape (the op's host logic must agree: a matrix product over a
    batch, an embedding, a reduction).
    """

    name: str
    schema: str
    targets: tuple[str, ...]
    op: tuple[str, ...]
    inputs: tuple[str, ...]
    reference: str
    params: tuple[str, ...] = ()
    consts: dict[str, Rule] = field(default_factory=dict)
    tile: Tile | None = None
    new: tuple[str | Rule, ...] = ()
    require: dict[str, Any] = field(default_factory=dict)
    layout: str = "flat"
    zero_pad: tuple[str, ...] = ()
    bias: str = ""
    absent: dict[str, float] = field(default_factory=dict)
    note: str = ""
    aten: tuple[Aten, ...] = ()
    indices: tuple[str, ...] = ()
    dims: str = ""
    sizes: dict[str, Dim] = field(default_factory=dict)

    @property
    def launched(self) -> bool:
        """Whether the row runs its kernels by the :class:`Launch` records it states (no ``RuntimeOp``)."""
        return any(a.launches for a in self.aten)

    def __hash__(self) -> int:
        return hash(self.name)


def const_rules(entry: Entry, struct: str, consts: dict[str, str],
                roles: dict[str, dict[str, Any]]) -> tuple[dict[str, Rule], str]:
    """The rule of each const generic (``consts``: name -> Rust type) of the kernel struct
    ``struct`` on the row ``entry``, from what the kernel does with it (``roles``: its launcher's
    facts, ``transpiler/emit/roles.py``) and what the row says: a tile the row does not name takes
    the row's ``tile``, its kind (block, cover, exact) from the facts; a row's :class:`Tile` too.
    And why the op cannot be built so ("" when it can): a const no rule chooses, or a row's rule
    the kernel's facts contradict (a :class:`Block` for a tile the kernel reads whole, a tile
    rule for a value or a flag). The rules are those of every const that has one."""
    def role(c: str) -> str | None:
        got = roles.get(c, {}).get("role")
        return got if isinstance(got, str) else None

    unnamed = [c for c in consts if c not in entry.consts and role(c) in _TILES]
    rules: dict[str, Rule] = {}
    problems: list[str] = []
    for c in consts:
        rule, kind = entry.consts.get(c), role(c)
        if rule is None and kind in _TILES and entry.tile is not None and len(unnamed) == 1:
            rule = entry.tile
        if rule is None:
            if kind == "unused":
                rules[c] = Fixed(1)  # (the kernel does nothing with it: any value)
            elif kind in _TILES and len(unnamed) > 1:
                problems.append(f"{struct} has several tiles ({', '.join(unnamed)}), and the mapping's row "
                                f"`{entry.name}` does not say which dimension each is over")
            else:
                problems.append(f"no rule of the mapping chooses {struct}'s const generic {c}")
            continue
        if isinstance(rule, Tile | Block | Cover | Exact) and kind in ("value", "flag", "unused"):
            problems.append(f"the mapping's row `{entry.name}` chooses {c} as a tile, but {struct} uses it as "
                            f"{'a ' + kind if kind != 'unused' else 'nothing'}, no tile (its facts)")
            continue
        if isinstance(rule, Block) and kind in ("cover", "exact"):
            what = "masked, with no loop over it" if kind == "cover" else "with no mask"
            problems.append(f"the mapping's row `{entry.name}` chooses {c} as any block over the "
                            f"{_what(rule.size)}, but {struct} reads its tile {c} whole ({what}: its facts), "
                            "so a block narrower than that would drop data")
            continue
        if isinstance(rule, Tile):
            rule = rule.rule(kind)
        elif isinstance(rule, Cover) and kind == "exact":
            rule = Exact(rule.size)
        rules[c] = rule
    return rules, problems[0] if problems else ""
