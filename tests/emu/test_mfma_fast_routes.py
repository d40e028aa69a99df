"""Each route of the exact MFMA fast path (isa.emu.mfma_fast) against the model's own stages
(isa.emu.mfma), randomized: stage 2's one-grid formula (``_accumulate_full``) and its windowed
shortcut over the whole exponent range (subnormal, zero and negative-zero accumulators, exponents
at both ends), and the float32 truncating stage 1 of f16 (``_truncated_sums32``) against the
float64 one (``_truncated_sums``) and the model, on operands whose products spread far apart."""
from __future__ import annotations

import numpy as np
import pytest

from isa.emu import mfma as model
from isa.emu import mfma_fast
from isa.emu.mfma import mfma_model
from isa.mfma_layout import pack_a, pack_b, pack_c


def _stage2_inputs(rng, n, lo, hi, offsets):
    e = rng.integers(lo, hi + 1, n)
    s_units = rng.integers(-(1 << 29), 1 << 29, n).astype(np.float64)   # S, units 2**(E-24)
    s_units[::97] = 0.0
    ec = np.clip(e + rng.choice(offsets, n), -149, 127)
    c = (rng.integers(1 << 23, 1 << 24, n) * rng.choice([-1.0, 1.0], n)
         * np.exp2(ec - 23.0)).astype(np.float32)            # below -126: subnormal (or zero)
    c[::101] = 0.0
    c[::103] = -0.0
    s_units[::103 * 5] = -0.0                                # -0 + -0: the sum is +0
    return s_units, e, c


@pytest.mark.parametrize("two", [False, True])
@pytest.mark.parametrize("lo,hi", [(-100, 100), (-380, -120), (120, 254)])
def test_stage2_routes_equal_the_model(two, lo, hi):
    rng = np.random.default_rng(hash((two, lo)) & 0xFFFF)
    s_units, e, c = _stage2_inputs(rng, 60_000, lo, hi, np.arange(-40, 41))
    with np.errstate(over="ignore", invalid="ignore"):
        want = model._accumulate(s_units, e, c.astype(np.float64),
                                 model.f32_exponent(c.view(np.uint32)), two)
    s = s_units * np.exp2(e - 24.0)
    eo = (e + mfma_fast._EO).astype(np.int32)
    cb = c.view(np.uint32)
    top = (cb >> 23).astype(np.intp)                      # the tables' index (sign, exponent)
    with np.errstate(over="ignore", invalid="ignore"):
        got = {"full": mfma_fast._accumulate_full(s, eo, c, top, two),
               "full_fresh": mfma_fast._accumulate_full(s, eo, c, top, two, None, mfma_fast._fresh),
               "window": mfma_fast._accumulate(s, eo, c, cb, two),
               "straight": mfma_fast._accumulate(s, eo, c, cb, two, None, [1])}
    for route, g in got.items():
        bad = np.flatnonzero(g.view(np.uint32) != want.view(np.uint32))
        assert bad.size == 0, (route, bad[:5], e[bad[:5]], c[bad[:5]], s_units[bad[:5]])


def _f16_operands(rng, name, waves, spread):
    from isa.mfma_shapes import mfma_info
    info = mfma_info(name)
    bl = (info.blocks,) if info.blocks > 1 else ()
    out = []
    for _ in range(waves):
        x = []
        for shape in (bl + (info.m, info.k), bl + (info.k, info.n)):
            v = rng.uniform(1, 2, shape) * np.exp2(rng.integers(-spread, spread + 1, shape))
            v *= rng.choice([-1.0, 1.0], shape)
            v[rng.random(shape) < 0.05] = 0.0
            v[rng.random(shape) < 0.02] = -0.0
            v[rng.random(shape) < 0.05] = rng.uniform(-1, 1) * 2.0 ** -14    # subnormal
            x.append(np.clip(v, -60000, 60000).astype(np.float16))
        c = (rng.standard_normal(bl + (info.m, info.n))
             * np.exp2(rng.integers(-20, 20))).astype(np.float32)
        out.append((pack_a(name, x[0]), pack_b(name, x[1]), pack_c(name, c)))
    return [np.stack([o[i] for o in out]) for i in range(3)]


@pytest.mark.parametrize("name", ["v_mfma_f32_32x32x8_f16", "v_mfma_f32_16x16x16_f16",
                                  "v_mfma_f32_4x4x4_16b_f16"])
def test_f16_float32_truncation_equals_float64_and_the_model(name):
    rng = np.random.default_rng(len(name))
    plan = mfma_fast.plan(name, "gfx942", 0, 0, 0)
    assert plan.f32_exact
    for spread in (2, 6, 14):
        a, b, c = _f16_operands(rng, name, 5, spread)
        w = a.shape[0]
        ca = np.take(a.view(plan.raw).reshape(w, -1), plan.idx_a, axis=1)
        cb = np.take(b.view(plan.raw).reshape(w, -1), plan.idx_b, axis=1)
        va, vb = np.take(plan.ta, ca, axis=1), np.take(plan.tb, cb, axis=1)
        r = np.matmul(va, vb)
        eo = (r[1].view(np.int64) >> 54).astype(np.int32)
        s32 = mfma_fast._truncated_sums32(ca, cb, r[0].copy(), eo)
        s64 = mfma_fast._truncated_sums(plan, ca, cb, eo)
        assert np.array_equal(s32 + 0.0, s64 + 0.0), spread        # (the sign of a zero sum is
        old = mfma_fast._DENSE_AT, mfma_fast._CHUNK_WAVES          # dropped in stage 2)
        want = mfma_model(name, "gfx942", a, b, c)
        try:
            # every call dense (float32; all 5 waves at once, or 2 + 2 + 1) / gathered
            for dense_at, chunk in ((1 << 40, 16), (1 << 40, 2), (0, 16)):
                mfma_fast._DENSE_AT, mfma_fast._CHUNK_WAVES = dense_at, chunk
                d = mfma_fast.fdpa(plan, a, b, c)
                assert d is not None and np.array_equal(d, want), (dense_at, chunk)
        finally:
            mfma_fast._DENSE_AT, mfma_fast._CHUNK_WAVES = old
