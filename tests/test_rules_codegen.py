"""The text each op rule (rs2triton/rules.py) generates, where numerics alone cannot tell.

Several rules choose between forms that compute the same numbers (`.to(tl.float32)` or the
`_upcast_f16` helper, dropping a default argument or passing it): the kernels' numeric
tests pass either way, so these tests pin the form. Each was added for a mutant of
benchmarks/mutate.py that survived the numeric tests (see docs/testing.md).
"""

import pytest

from rs2triton import TranspileError, transpile_source


def gen(body: str, params: str = "x_ptr: T::Pointer<f16>, n: i32", generics: str = "const B: i32") -> str:
    src = (f"use teeny_triton::triton::*;\n\n#[kernel]\npub fn k<T: Triton, {generics}>({params}) {{\n"
           f"    let offs = T::arange(0, B);\n{body}\n}}\n")
    text = transpile_source(src, "k.rs").text
    return text[text.index("def k("):]


LOAD = "    let x = T::load(x_ptr.add_offsets(offs), None, None, &[], None, None, None, false);\n"
STORE = "    T::store(x_ptr.add_offsets(offs), {}, None, &[], None, None);"


def test_f32_math_on_f16_is_a_plain_upcast_and_rounds_back():
    out = gen(LOAD + STORE.format("T::exp(x)"))
    assert "tl.exp(x.to(tl.float32))" in out
    assert "_upcast_f16" not in out


def test_f32_math_on_a_dtype_parameter_uses_the_helper():
    out = gen(LOAD + STORE.format("T::exp(x)"), params="x_ptr: T::Pointer<D>", generics="D: Float, const B: i32")
    assert "tl.exp(_upcast_f16(x)).to(D)" in out


def test_f32_math_on_f32_is_untouched():
    out = gen(LOAD + STORE.format("T::exp(x)"), params="x_ptr: T::Pointer<f32>")
    assert "tl.store(x_ptr + offs, tl.exp(x))" in out


@pytest.mark.parametrize("dims,want", [("&[1, 0]", "tl.trans(m)"), ("&[]", "tl.trans(m)"),
                                       ("&[0, 1]", "tl.trans(m, (0, 1))")])
def test_trans_drops_only_the_default_permutation(dims, want):
    body = LOAD + "    let m = T::reshape(x, &[2, B / 2], false);\n" \
        + STORE.format(f"T::reshape(T::trans(m, {dims}), &[B], false)")
    assert want + ", " in gen(body) or want + ")" in gen(body)


def test_unused_rule_sources_are_not_emitted():
    assert "_cat" not in gen(LOAD + STORE.format("x"))


def test_cat_needs_a_literal_flag():
    with pytest.raises(TranspileError, match="can_reorder"):
        gen(LOAD + "    let f = n > 0;\n" + "    let c = T::cat(x, x, f);\n")


def test_cast_of_a_scalar_is_tl_cast_and_of_a_tensor_is_to():
    out = gen(LOAD + "    let s = T::cast::<i32, f32>(n, None, false);\n"
              + "    let t = T::cast::<f16, f32>(x, None, false);\n" + STORE.format("T::cast::<f32, f16>(t * s, None, false)"))
    assert "s = tl.cast(n, tl.float32)" in out and "t = x.to(tl.float32)" in out


MM = ("    let a = T::load(x_ptr.add_offsets(T::expand_dims(offs, 1) * B + T::expand_dims(offs, 0)), None, None, &[], "
      "None, None, None, false);\n")


@pytest.mark.parametrize("call,want,unwanted", [
    ("T::dot::<f16, f32>(a, a, None, InputPrecision::TF32, None)", "tl.dot(a, a)", "out_dtype"),
    ("T::dot::<f16, f16>(a, a, None, InputPrecision::TF32, None)", "tl.dot(a, a, out_dtype=tl.float16)", None),
    ("T::dot::<f16, f16>(a, a, Some(a), InputPrecision::TF32, None)", "tl.dot(a, a, acc=a)", "out_dtype"),
])
def test_dot_passes_out_dtype_only_without_an_accumulator(call, want, unwanted):
    out = gen(MM + f"    let c = {call};\n")
    assert f"c = {want}" in out
    assert unwanted is None or unwanted not in out


@pytest.mark.parametrize("out_elem,want", [("f32", "tl.dot_scaled(a, s, \"e4m3\", a, s, \"e4m3\")"),
                                           ("f16", "out_dtype=tl.float16")])
def test_dot_scaled_drops_only_the_default_out_dtype(out_elem, want):
    body = (MM + "    let s = T::load(x_ptr.add_offsets(offs), None, None, &[], None, None, None, false);\n"
            f"    let c = T::dot_scaled::<f16, u8, {out_elem}>(a, s, DotFormat::E4M3, a, s, DotFormat::E4M3, None, false);\n")
    out = gen(body)
    assert want in out
    assert ("out_dtype" in out) is (out_elem != "f32")


@pytest.mark.parametrize("flag,want", [("true", "tl.cat(x, x, can_reorder=True)"), ("false", "_cat(x, x)")])
def test_cat_ordered_or_not(flag, want):
    assert want in gen(LOAD + STORE.format(f"T::cat(x, x, {flag})"))


@pytest.mark.parametrize("dim,want", [("None", "tl.flip(x, -1)"), ("Some(0)", "tl.flip(x, 0)")])
def test_flip_dim(dim, want):
    assert want in gen(LOAD + STORE.format(f"T::flip(x, {dim})"))


@pytest.mark.parametrize("call", ["T::make_block_ptr(x_ptr, n, &[1], &[0], &[B], &[0])",
                                  "T::advance(T::make_block_ptr(x_ptr, &[n], &[1], &[0], &[B], &[0]), n)"])
def test_block_pointer_slices_must_be_slices(call):
    with pytest.raises(TranspileError, match="must be a slice") as info:
        gen(f"    let p = {call};\n")
    assert info.value.diagnostics[0].code == "E0008"


@pytest.mark.parametrize("line,want", [
    ("let z: T::Tensor<f16> = T::full(&[B], 2.0);", "z = tl.full([B], 2.0, dtype=tl.float16)"),
    ("let z = T::full(&[B], 2);", "z = tl.full([B], 2, dtype=tl.int32)"),
    ("let z = T::full(&[B], 2.0);", "z = tl.full([B], 2.0, dtype=tl.float32)"),
    ("let z = T::full::<u8>(&[B], 2);", "z = tl.full([B], 2, dtype=tl.uint8)"),
])
def test_full_dtype_from_turbofish_annotation_or_value(line, want):
    assert want in gen(f"    {line}\n")


def test_full_with_an_annotation_naming_no_known_type_falls_back_to_the_value_class():
    assert "z = tl.full([B], 2.0, dtype=tl.float32)" in gen("    let z: T::Tensor<E> = T::full(&[B], 2.0);\n")
    assert "z = tl.full([B], 2, dtype=tl.int32)" in gen("    let z: T::Tensor<E> = T::full(&[B], 2);\n")


def test_cast_target_from_the_turbofish_or_the_annotation():
    out = gen(LOAD + "    let y: T::Tensor<f32> = T::cast(x, None, false);\n")
    assert "y = x.to(tl.float32)" in out
    with pytest.raises(TranspileError, match="needs its target type") as info:
        gen(LOAD + "    let y = T::cast(x, None, false);\n")
    assert info.value.diagnostics[0].code == "E0005"


def test_with_indices_passes_only_what_differs_from_triton():
    out = gen(LOAD + "    let (m, i) = T::max_with_indices(x, 0, true, false);\n"
              "    let (m2, i2) = T::min_with_indices(x, 0, false, true);\n")
    assert "m, i = tl.max(x, return_indices=True, axis=0)\n" in out
    assert "m2, i2 = tl.min(" in out and "return_indices_tie_break_left=False" in out and "keep_dims=True" in out


def test_an_extra_turbofish_type_is_ignored():
    assert "e = tl.exp(x.to(tl.float32))\n" in gen(LOAD + "    let e = T::exp::<f32>(x);\n")


def test_a_tensor_descriptor_load_is_a_tensor():
    body = ("    let d = T::make_tensor_descriptor(x_ptr, &[n], &[1], &[B], None);\n"
            "    let t = T::load_tensor_descriptor(d, &[0]);\n"
            "    let h = T::cast::<f16, f32>(t, None, false);\n"
            "    T::store_tensor_descriptor(d, &[0], T::cast::<f32, f16>(h, None, false));\n")
    out = gen(body)
    assert "h = t.to(tl.float32)" in out and "d.store([0], h.to(tl.float16))" in out


def test_cast_passes_rounding_and_bitcast():
    body = ("    let x = T::load(x_ptr.add_offsets(offs), None, None, &[], None, None, None, false);\n"
            "    let r = T::cast::<f32, f16>(x, Some(FpDowncastRounding::Rtz), false);\n"
            "    let b = T::cast::<f32, i32>(x, None, true);\n")
    out = gen(body, params="x_ptr: T::Pointer<f32>")
    assert 'r = x.to(tl.float16, fp_downcast_rounding="rtz")' in out and "b = x.to(tl.int32, bitcast=True)" in out


def test_dot_result_type_follows_the_accumulator():
    out = gen(MM + "    let c = T::dot::<f16, f16>(a, a, Some(a), InputPrecision::TF32, None);\n"
              + "    let e = T::exp(c);\n")
    assert "e = tl.exp(c.to(tl.float32))" in out


BP = "    let p = T::make_block_ptr(x_ptr, &[n, n], &[{}, 1], &[0, 0], &[B, B], &[1, 0]);\n"


def _bp_load(args: str, strides: str = "n") -> str:
    return gen(BP.format(strides) + f"    let v = T::load(p, {args});\n")


def test_block_pointer_strides_of_one_are_not_multiplied():
    assert "x_ptr + p_idx0[:, None] * 2 + p_idx1[None, :]" in _bp_load("None, None, &[], None, None, None, false", "2")


@pytest.mark.parametrize("checks", ["&[n]", "&[2]", "&[-1]"])
def test_boundary_check_must_name_literal_dimensions(checks):
    with pytest.raises(TranspileError, match="literal dimensions"):
        _bp_load(f"None, None, {checks}, None, None, None, false")


def test_padding_only_fills_a_masked_load():
    assert "other" not in _bp_load("None, None, &[], Some(PaddingOption::Zero), None, None, false")
    assert "other=0.0" in _bp_load("None, None, &[0], Some(PaddingOption::Zero), None, None, false")
    assert 'other=float("nan")' in _bp_load("None, None, &[1], Some(PaddingOption::Nan), None, None, false")


def test_block_pointer_load_passes_only_non_default_hints():
    assert 'cache_modifier=".cg"' in _bp_load("None, None, &[], None, Some(CacheModifier::Cg), None, false")
    plain = _bp_load("None, None, &[], None, None, Some(EvictionPolicy::NoEvict), false")
    assert "eviction_policy" not in plain and "volatile" not in plain and "cache_modifier" not in plain


def test_a_cast_scalar_stays_a_scalar():
    out = gen("    let s = T::cast::<i32, f32>(n, None, false);\n    let h = T::cast::<f32, f16>(s, None, false);\n")
    assert "h = tl.cast(s, tl.float16)" in out


def test_an_unknown_cast_target_is_located_at_the_type():
    with pytest.raises(TranspileError) as info:
        gen(LOAD + "    let y = T::cast::<f16, Q>(x, None, false);\n")
    d = info.value.diagnostics[0]
    assert d.code == "E0005" and "`Q`" in d.message and d.col == len("    let y = T::cast::<f16, ") + 1


def test_advance_moves_only_the_dimensions_that_move():
    out = gen(BP.format("n").replace("let p", "let mut p") + "    p = T::advance(p, &[0, B]);\n"
              + "    let v = T::load(p, None, None, &[], None, None, None, false);\n    let e = T::exp(v);\n")
    assert "p_off1 = p_off1 + B" in out and "p_off0 = p_off0" not in out
    assert "e = tl.exp(v.to(tl.float32))" in out  # still a block pointer to f16


def test_f32_math_keeps_the_other_arguments():
    out = gen(LOAD + "    let q = T::fdiv(x, x, false);\n")
    assert "q = tl.fdiv(x.to(tl.float32), x)" in out


def test_with_indices_values_keep_the_input_type():
    out = gen(LOAD + "    let (m, i) = T::max_with_indices(x, 0, true, false);\n    let e = T::exp(m);\n")
    assert "e = tl.exp(m.to(tl.float32))" in out


def test_inline_asm_keywords():
    out = gen('    let l = T::inline_asm_elementwise::<i32>("mov.u32 $0, %laneid;", "=r", true, 1);\n')
    for kw in ('asm="mov.u32 $0, %laneid;"', 'constraints="=r"', "args=[]", "dtype=tl.int32", "is_pure=True",
               "pack=1"):
        assert kw in out


def test_the_combine_function_must_be_a_fn_of_the_file():
    with pytest.raises(TranspileError, match="combine function must be a plain `fn`") as info:
        gen(LOAD + "    let s = T::reduce(x, 0, n, false);\n")
    assert info.value.diagnostics[0].code == "E0008"


def test_trans_with_a_named_permutation_passes_it():
    body = LOAD + "    let m = T::reshape(x, &[2, B / 2], false);\n    let d = &[1, 0];\n" \
        + "    let t = T::trans(m, d);\n"
    assert "t = tl.trans(m, d)" in gen(body)


def test_an_advanced_block_pointer_bound_anew_keeps_its_element_type():
    out = gen(BP.format("n") + "    let q = T::advance(p, &[0, B]);\n"
              + "    let v = T::load(q, None, None, &[], None, None, None, false);\n    let e = T::exp(v);\n")
    assert "e = tl.exp(v.to(tl.float32))" in out


def test_advance_takes_only_a_block_pointer():
    with pytest.raises(TranspileError, match="`advance` takes a block pointer made by `T::make_block_ptr`") as info:
        gen(LOAD + "    let q = T::advance(x_ptr, &[0]);\n")
    assert info.value.diagnostics[0].code == "E0008"


def test_f32_math_of_a_scalar_stays_a_scalar():
    # exp of a half-precision scalar is held in f32 as a scalar: a cast of it is `tl.cast`, not `.to`
    out = gen("    let e = T::cast::<D, i32>(T::exp(s), None, false);\n", params="x_ptr: T::Pointer<D>, s: D",
              generics="D: Float, const B: i32")
    assert "e = tl.cast(tl.exp(_upcast_f16(s)).to(D), tl.int32)" in out
