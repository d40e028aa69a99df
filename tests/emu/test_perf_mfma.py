"""The MFMA fast path (isa.emu.mfma_fast) gives the model's bits (isa.emu.mfma.mfma_model) on every
fused-dot form it covers, with modifiers, batched waves, wide exponent spreads and special values."""
from __future__ import annotations

import zlib

import numpy as np
import pytest
from test_mfma_numerics import random_operands

from isa.emu import mfma_fast
from isa.emu.mfma import mfma, mfma_model
from isa.mfma_shapes import MFMA_TABLE

FAST = [(arch, n) for arch in ("gfx942", "gfx950") for n in sorted(MFMA_TABLE)
        if arch in MFMA_TABLE[n].arches and mfma_fast.plan(n, arch, 0, 0, 0) is not None]


def test_fast_path_covers_the_common_forms():
    names = {n for _, n in FAST}
    for n in ("v_mfma_f32_32x32x8_f16", "v_mfma_f32_16x16x16_f16", "v_mfma_f32_32x32x8_bf16",
              "v_mfma_f32_16x16x16_bf16", "v_mfma_f32_16x16x32_fp8_fp8", "v_mfma_f32_4x4x4_16b_f16"):
        assert n in names, n


@pytest.mark.parametrize("arch,name", FAST)
def test_fast_equals_model(arch, name):
    rng = np.random.default_rng(zlib.crc32(f"perf{arch}{name}".encode()))
    plan = mfma_fast.plan(name, arch, 0, 0, 0)
    for spread in (3, 12, 40):
        a, b, c = random_operands(name, arch, rng, spread)
        d_fast = mfma_fast.fdpa(plan, a[None], b[None], c[None])
        d_one = mfma_fast.fdpa1(plan, a, b, c)
        d_model = mfma_model(name, arch, a, b, c)
        if spread <= 12:   # finite inputs, no overflow: the fast path must have answered itself
            assert d_fast is not None and d_one is not None
        if d_fast is not None:
            assert np.array_equal(d_fast[0], d_model)
            assert np.array_equal(d_one, d_model)
        assert np.array_equal(mfma(name, arch, a, b, c), d_model)


@pytest.mark.parametrize("name,arch,mods", [("v_mfma_f32_16x16x4_4b_f16", "gfx942",
                                             {"cbsz": 2, "abid": 3, "blgp": 5}),
                                            ("v_mfma_f32_4x4x4_16b_f16", "gfx942",
                                             {"cbsz": 4, "abid": 9, "blgp": 3}),
                                            ("v_mfma_f32_32x32x4_2b_bf16", "gfx942",
                                             {"cbsz": 1, "abid": 1, "blgp": 7}),
                                            ("v_mfma_f32_16x16x32_bf8_fp8", "gfx942", {})])
def test_fast_equals_model_with_modifiers_and_waves(name, arch, mods):
    rng = np.random.default_rng(5)
    ops = [random_operands(name, arch, rng, 10) for _ in range(3)]
    a, b, c = (np.stack([o[x] for o in ops]) for x in range(3))
    plan = mfma_fast.plan(name, arch, mods.get("cbsz", 0), mods.get("abid", 0), mods.get("blgp", 0))
    assert plan is not None
    d = mfma_fast.fdpa(plan, a, b, c)
    assert d is not None
    assert np.array_equal(d, mfma_model(name, arch, a, b, c, **mods))
    for w in range(3):
        assert np.array_equal(d[w], mfma_model(name, arch, a[w], b[w], c[w], **mods))


def test_extreme_exponents_and_zero_groups():
    """All-zero rows (E from the zero exponent convention floors a tiny C), largest bf16 exponents
    (products near 2**128 go to the model), f32 subnormal C."""
    import ml_dtypes

    from isa.mfma_layout import pack_a, pack_b, pack_c
    name, arch = "v_mfma_f32_32x32x8_bf16", "gfx942"
    rng = np.random.default_rng(3)
    a = (rng.uniform(1, 2, (32, 8)) * np.exp2(rng.integers(-126, 64, (32, 8)))).astype(ml_dtypes.bfloat16)
    b = (rng.uniform(1, 2, (8, 32)) * np.exp2(rng.integers(-126, 60, (8, 32)))).astype(ml_dtypes.bfloat16)
    a[:4] = 0
    b[:, :3] = 0
    c = (rng.uniform(-1, 1, (32, 32)) * np.exp2(rng.integers(-149, 0, (32, 32)))).astype(np.float32)
    ra, rb, rc = pack_a(name, a), pack_b(name, b), pack_c(name, c)
    plan = mfma_fast.plan(name, arch, 0, 0, 0)
    d = mfma_fast.fdpa(plan, ra[None], rb[None], rc[None])
    assert d is not None and np.array_equal(d[0], mfma_model(name, arch, ra, rb, rc))
    a[5, 0] = 2.0 ** 120
    b[0, 5] = 2.0 ** 10                       # product 2**130 >= 2**128: the model's inf branch
    ra, rb = pack_a(name, a), pack_b(name, b)
    assert mfma_fast.fdpa(plan, ra[None], rb[None], rc[None]) is None
    assert np.array_equal(mfma(name, arch, ra, rb, rc), mfma_model(name, arch, ra, rb, rc))


def test_special_values_fall_back_to_the_model():
    from isa.mfma_layout import pack_a, pack_b, pack_c
    name, arch = "v_mfma_f32_16x16x16_f16", "gfx942"
    rng = np.random.default_rng(4)
    a = rng.standard_normal((16, 16)).astype(np.float16)
    b = rng.standard_normal((16, 16)).astype(np.float16)
    c = rng.standard_normal((16, 16)).astype(np.float32)
    plan = mfma_fast.plan(name, arch, 0, 0, 0)
    for what in ("a_nan", "b_inf", "c_inf", "c_nan"):
        aa, bb, cc = a.copy(), b.copy(), c.copy()
        if what == "a_nan":
            aa[2, 3] = np.nan
        elif what == "b_inf":
            bb[1, 1] = np.inf
        elif what == "c_inf":
            cc[0, 0] = -np.inf
        else:
            cc[3, 2] = np.nan
        ra, rb, rc = pack_a(name, aa), pack_b(name, bb), pack_c(name, cc)
        assert mfma_fast.fdpa(plan, ra[None], rb[None], rc[None]) is None, what
        assert np.array_equal(mfma(name, arch, ra, rb, rc), mfma_model(name, arch, ra, rb, rc)), what
