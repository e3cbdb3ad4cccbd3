"""The output comparison the numeric tests use names the output and every differing element."""

import pytest
import torch

from tests.numerics import assert_matches


def test_a_mismatch_names_the_output_and_the_element():
    want = torch.zeros(4, 32)
    got = want.clone()
    got[3, 17] = 1.5
    want[3, 17] = 2.0
    with pytest.raises(AssertionError) as info:
        assert_matches("out_ptr", got, want, atol=1e-5, rtol=1e-5)
    assert str(info.value) == ("out_ptr: 1 of 128 elements differ (atol=1e-05, rtol=1e-05)\n"
                               "  out_ptr[3, 17]: got 1.5, expected 2.0")


def test_labels_say_what_a_packed_slot_holds():
    with pytest.raises(AssertionError, match=r"out\[1\] \(a % b\): got 1, expected -1$"):
        assert_matches("out", [3, 1], [3, -1], labels=["a / b", "a % b"])


def test_many_mismatches_are_summarised():
    with pytest.raises(AssertionError) as info:
        assert_matches("y_ptr", torch.ones(100), torch.zeros(100))
    text = str(info.value)
    assert text.startswith("y_ptr: 100 of 100 elements differ (atol=1e-05, rtol=1.3e-06)\n") and text.endswith("... and 92 more")
    assert text.count("got 1.0, expected 0.0") == 8


@pytest.mark.parametrize("got, want, kw", [
    (torch.tensor([1.0, float("nan")]), torch.tensor([1.0, float("nan")]), {"equal_nan": True}),
    (torch.tensor([float("inf"), 1.0]), torch.tensor([float("inf"), 1.0 + 1e-7]), {"rtol": 1e-6}),
    (torch.tensor([7], dtype=torch.int32), torch.tensor([7], dtype=torch.int32), {}),
    ([1, 2, 3], [1, 2, 3], {}),
])
def test_equal_outputs_pass(got, want, kw):
    assert_matches("out", got, want, **kw)


@pytest.mark.parametrize("got, want, kw, message", [
    (torch.tensor([float("nan")]), torch.tensor([float("nan")]), {}, "out[0]: got nan, expected nan"),
    (torch.tensor([1.0]), torch.tensor([1.0], dtype=torch.float16), {}, "out: dtype torch.float32, expected"),
    (torch.zeros(3), torch.zeros(4), {}, "out: shape (3,), expected (4,)"),
    (torch.tensor([2**31 - 1], dtype=torch.int64), torch.tensor([-(2**31)], dtype=torch.int64), {},
     "out[0]: got 2147483647, expected -2147483648"),
])
def test_differences_are_reported(got, want, kw, message):
    with pytest.raises(AssertionError, match=message.replace("[", r"\[").replace("(", r"\(").replace(")", r"\)")):
        assert_matches("out", got, want, **kw)


def test_slot_labels_are_the_rust_expressions_stored():
    from tests.numerics import slot_labels

    labels = slot_labels("tests/kernels/semantics.rs", "int_div_rem")
    assert labels[:4] == ["a / b", "a % b", "(a * 3 + 1) / b", "-a % b"] and len(labels) == 8
    assert slot_labels("tests/kernels/semantics.rs", "shadowing")[1] == "x + y | y"  # one per branch
