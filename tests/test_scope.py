"""The scope object that owns a lowered function's names, and the op table's rule check."""

import dataclasses

import pytest

from rs2triton import TranspileError, transpile_source
from rs2triton.transpiler.dsl import ops
from rs2triton.transpiler.lowering import registry
from rs2triton.transpiler.lowering.names import Names
from rs2triton.transpiler.lowering.values import Kind, Ty

I32 = Ty(Kind.SCALAR, "i32")
F32 = Ty(Kind.TENSOR, "f32")


def test_fresh_names_are_reserved_when_made():
    names = Names()
    first, second = names.fresh("tmp"), names.fresh("tmp")
    assert (first, second) == ("tmp", "tmp_1")
    assert names.fresh("lambda") == "lambda_"  # Python keywords are never handed out
    assert names.fresh("tl") == "tl_"  # nor the module's own names
    assert names.fresh("tmp") == "tmp_2"
    names.declare("v", I32)
    assert names.fresh("v") == "v_1"  # declared names are taken too


def test_shadowing_in_one_scope_reuses_the_name():
    names = Names()
    assert names.declare("x", I32) == "x"
    assert names.declare("x", F32) == "x"
    assert names.lookup("x").ty == F32


def test_inner_binding_of_a_live_name_is_renamed_and_outer_survives():
    names = Names()
    names.declare("x", I32)
    with names.scope():
        inner = names.declare("x", F32)
        assert inner == "x_1"
        assert names.lookup("x").py == "x_1"
    assert names.lookup("x").py == "x" and names.lookup("x").ty == I32
    # the inner name stays reserved: a later temporary cannot take it
    assert names.fresh("x") == "x_2"


def test_rust_only_block_shares_the_python_block():
    names = Names()
    names.declare("x", I32)
    with names.scope(python_block=False):
        assert names.declare("y", I32) == "y"
    assert names.lookup("y") is None
    # `y` was assigned in the same Python block: a new outer `y` must not reuse it blindly
    with names.scope():
        assert names.declare("y", I32) == "y_1"


def test_pending_binding_is_invisible_until_bound():
    names = Names()
    names.declare("x", I32)
    with names.scope():
        py = names.declare_pending("x")
        assert py == "x_1"
        assert names.lookup("x").py == "x"  # the initializer still sees the outer x
        names.bind("x", py, F32)
        assert names.lookup("x").py == "x_1"


def test_else_branch_reuses_a_then_name_only_with_the_same_type():
    names = Names()
    with names.scope():
        names.declare("t", I32)
        then_bound = names.bindings()
    assert then_bound == {"t": I32}
    with names.else_branch(then_bound), names.scope():
        assert names.declare("t", I32) == "t"
    with names.else_branch(then_bound), names.scope():
        assert names.declare("t", F32) != "t"
    with names.else_branch(then_bound), names.scope():
        assert names.declare("t", I32, constexpr=True) != "t"


def test_constexpr_binding_is_never_rebound():
    names = Names()
    assert names.declare("n", Ty("const", "i32"), constexpr=True) == "n"
    assert names.declare("n", I32) == "n_1"


def test_dtype_alias_is_made_once_and_never_taken_by_a_let():
    names = Names()
    names.fresh("D")
    alias = names.dtype_alias("D")
    assert alias == "D_1" and names.dtype_alias("D") == alias
    assert names.declare("D_1", I32) != "D_1"
    assert names.dtype_aliases() == [("D", "D_1")]


def test_scopes_are_restored_when_lowering_fails():
    names = Names()
    names.declare("x", I32)
    with pytest.raises(ValueError), names.scope():
        names.declare("x", F32)
        raise ValueError
    assert names.lookup("x").ty == I32
    assert names.declare("x", F32) == "x"  # back in the outer scope: shadowing reuses


# ---------------------------------------------------------------- the op table's rules

def test_a_row_whose_rule_has_no_implementation_fails_at_import():
    row = dataclasses.replace(ops.OPS["exp"], rule="expp")
    with pytest.raises(RuntimeError, match=r"exp \(rule 'expp'\)"):
        registry.check_op_table([row])


def test_every_row_of_the_real_table_has_a_rule():
    registry.check_op_table([*ops.OPS.values(), *ops.METHODS.values()])
    assert all(op.rule in registry.OP_RULES for op in ops.OPS.values())


def test_a_node_kind_or_rule_registered_twice_stops_the_import():
    with pytest.raises(RuntimeError, match="two kernel lowering rules for `binary_expression` nodes"):
        registry.expression("binary_expression")(lambda lw, node: None)
    with pytest.raises(RuntimeError, match="two rules for op-table rule `call`"):
        registry.op_rule("call")(lambda *args: None)


SRC = """use teeny_triton::triton::*;

#[kernel]
pub fn k<T: Triton, const B: i32>(x_ptr: T::Pointer<f32>) {
    let offs = T::arange(0, B);
    let x = T::load(x_ptr.add_offsets(offs), None, None, &[], None, None, None, false);
    T::store(x_ptr.add_offsets(offs), T::exp(x), None, &[], None, None);
}
"""


def test_a_row_whose_rule_vanished_fails_loudly_not_as_a_plain_call(monkeypatch):
    monkeypatch.setitem(ops.OPS, "exp", dataclasses.replace(ops.OPS["exp"], rule="nonexistent"))
    with pytest.raises(TranspileError) as info:  # an internal error (E0999), never the plain call
        transpile_source(SRC, "k.rs")
    [d] = info.value.diagnostics
    assert d.code == "E0999" and any("KeyError" in n for n in d.notes)


def test_records_compare_and_print_without_their_nodes():
    from rs2triton.transpiler.frontend.items import KernelParam

    a, b = KernelParam("x", "pointer", "f32", node=object()), KernelParam("x", "pointer", "f32", node=None)
    assert a == b and repr(a) == "KernelParam(name='x', kind='pointer', elem='f32', access=None)"  # node left out
    assert a != KernelParam("x", "pointer", "f16")
    row = ops.OPS["exp"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        row.rule = "binop"  # type: ignore[misc]
