"""Const-generic roles on the torch backend (issue 34 part 3): a const's rule comes from what the
kernel does with it (its launcher's ``facts={"consts": ...}``), not from its name. A kernel whose
tile is called ``TILE`` runs as the one called ``BLOCK_SIZE`` did; a row whose rule the kernel's
facts contradict is refused, with the reason, instead of computing wrong numbers."""

from __future__ import annotations

import dataclasses

import pytest
import torch

from rs2triton.backend.compiler import Backend
from rs2triton.backend.tree import load_tree
from rs2triton.runtime.mapping_rules import Block, Cover, Entry, Exact, Tile, const_rules
from rs2triton.runtime.torch_mapping import TABLE
from tests.conftest import DEVICE, ROOT
from tests.numerics import assert_matches


def _renamed(tmp_path, file: str, old: str, new: str) -> None:
    """``kernels_rs/<file>`` with the const generic ``old`` called ``new`` (and the op struct's
    field, teenygrad's lowercased const, with it)."""
    text = (ROOT / "kernels_rs" / file).read_text()
    assert old in text and old.lower() in text
    (tmp_path / file).write_text(text.replace(old, new).replace(old.lower(), new.lower()))


def _entry(name: str) -> Entry:
    return next(e for e in TABLE if e.name == name)


@pytest.mark.parametrize("file, old, new, op, call", [
    ("relu.rs", "BLOCK_SIZE", "TILE", "relu", torch.relu),
    ("softmax.rs", "BLOCK_SIZE", "TILE_N", "softmax", lambda t: torch.softmax(t, dim=-1)),
], ids=["relu", "softmax"])
def test_a_renamed_tile_runs_through_the_backend_as_torch(tmp_path, file, old, new, op, call):
    """The kernels with their tile renamed: the rows name no const of theirs (before, "no rule of
    the mapping chooses ReluForward's const generic TILE": the call ran on torch)."""
    _renamed(tmp_path, file, old, new)
    backend = Backend(load_tree(tmp_path), name=f"roles_{op}")
    x = torch.randn(5, 37, generator=torch.Generator().manual_seed(0)).to(DEVICE).requires_grad_()
    x_ref = x.detach().clone().requires_grad_()
    dy = torch.randn(5, 37, generator=torch.Generator().manual_seed(1)).to(DEVICE)
    got = torch.compile(call, backend=backend)(x)
    got.backward(dy)
    want = call(x_ref)
    want.backward(dy)
    assert_matches(f"{op}: forward", got, want)
    assert_matches(f"{op}: grad", x.grad, x_ref.grad, atol=1e-6, rtol=1e-5)
    report = backend.report()
    assert report.ran(op, "forward") == 1 and report.ran(op, "backward") == 1, str(report)
    assert not report.fallbacks(op), str(report)


def test_a_row_read_with_no_mask_takes_exactly_its_row(tmp_path):
    """kernels_rs' softmax with its masks taken out (as teenygrad's): its facts say its tile is
    read whole with no mask, so the block is the row: a row of 16 runs as torch, one of 10 (no
    power of two) runs on torch with why (a block of 16 would read past each row)."""
    text = (ROOT / "kernels_rs" / "softmax.rs").read_text()
    for masked in ("Some(col_mask)", "Some(neg_inf)", "Some(zero)"):
        assert masked in text
        text = text.replace(masked, "None")
    (tmp_path / "softmax.rs").write_text(text)
    backend = Backend(load_tree(tmp_path), name="roles_exact")
    f = torch.compile(lambda t: torch.log_softmax(t, dim=-1), backend=backend)
    for cols in (16, 10):
        x = torch.randn(3, cols, generator=torch.Generator().manual_seed(cols)).to(DEVICE)
        assert_matches(f"log_softmax over {cols}", f(x), torch.log_softmax(x, dim=-1))
    report = backend.report()
    assert report.ran("log_softmax", "forward") == 1, str(report)
    assert list(report.fallbacks("log_softmax")) == [
        "the kernel reads exactly one block of its output's last dimension with no mask, and 10 is not a power "
        "of two"], str(report)


def test_a_row_the_kernel_s_facts_contradict_is_refused_with_the_reason():
    """A row that says any block will do (a :class:`Block`) for softmax's tile, which the kernel
    masks but reads in one piece (no loop over it): refused, with why (a row of 2000 columns would
    have run on a 1024-wide block and dropped the rest)."""
    row = dataclasses.replace(_entry("softmax"), consts={"BLOCK_SIZE": Block("cols", hi=1024)}, tile=None)
    backend = Backend(load_tree(ROOT / "kernels_rs" / "softmax.rs"), name="roles_contradicted", table=(row,))
    x = torch.randn(3, 20, generator=torch.Generator().manual_seed(0)).to(DEVICE)
    assert_matches("softmax", torch.compile(lambda t: torch.softmax(t, dim=-1), backend=backend)(x),
                   torch.softmax(x, dim=-1))  # (on torch: right all the same)
    report = backend.report()
    assert report.ran("softmax", "forward") == 0
    reasons = list(report.fallbacks("softmax"))
    assert reasons == ["the mapping's row `softmax` chooses BLOCK_SIZE as any block over the output's last "
                       "dimension, but SoftmaxForward reads its tile BLOCK_SIZE whole (masked, with no loop over "
                       "it: its facts), so a block narrower than that would drop data"], reasons


def test_the_rules_come_from_the_facts_where_the_row_does_not_say_more():
    softmax, relu, linear = _entry("softmax"), _entry("relu"), _entry("linear")
    cover = {"TILE": {"role": "cover", "bounds": ["n_cols"]}}
    assert const_rules(softmax, "S", {"TILE": "i32"}, cover) == ({"TILE": Cover("cols", 1 << 16, 16)}, "")
    assert const_rules(softmax, "S", {"TILE": "i32"}, {"TILE": {"role": "exact"}}) == ({"TILE": Exact("cols")}, "")
    block = {"B": {"role": "block", "bounds": ["n"]}}
    assert const_rules(relu, "R", {"B": "i32"}, block) == ({"B": Block("numel", 16, 1024)}, "")
    # (a value the row does not name: no rule says which argument it is)
    assert const_rules(relu, "R", {"B": "i32", "K": "i32"}, {**block, "K": {"role": "value"}})[1] == \
        "no rule of the mapping chooses R's const generic K"
    # (two tiles the row does not name: which dimension each is over, the facts cannot say)
    two = {"A": {"role": "block", "bounds": ["m"]}, "B": {"role": "block", "bounds": ["n"]}}
    assert const_rules(relu, "R", {"A": "i32", "B": "i32"}, two)[1] == \
        "R has several tiles (A, B), and the mapping's row `relu` does not say which dimension each is over"
    # (a tile rule for what the kernel uses as a number)
    assert const_rules(linear, "L", {"BLOCK_M": "i32"}, {"BLOCK_M": {"role": "value"}})[1] == \
        "the mapping's row `linear` chooses BLOCK_M as a tile, but L uses it as a value, no tile (its facts)"
    # (what the kernel does nothing with takes any value)
    assert const_rules(relu, "R", {"B": "i32", "U": "i32"}, {**block, "U": {"role": "unused"}})[0]["U"].value == 1
    assert Tile("cols").rule(None) == Block("cols")  # (a module without the facts: as the rows said before)
