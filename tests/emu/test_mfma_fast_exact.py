"""The matmul-based exact fused-dot path (isa.emu.mfma_fast) gives the model's bits
(isa.emu.mfma.mfma_model, the reference implementation) on hypothesis-drawn adversarial operands:
exact cancellation, wide exponent spreads, subnormals, signed zeros, accumulators far above and
below the products, NaN/inf (those go to the model), for every fused-dot form the fast path covers
on both arches, with modifiers and several waves batched, with each fix-up (truncating stage 1, flooring stage
2) forced to run dense and gathered, and on both of a plan's stage-2 routes (the window check
first, or straight to the full formula)."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from isa.emu import mfma_fast
from isa.emu.mfma import mfma, mfma_model
from isa.mfma_layout import pack_a, pack_b, pack_c
from isa.mfma_shapes import MFMA_TABLE, mfma_info
from isa.numerics import FORMAT_DTYPES

FAST = [(arch, n) for arch in ("gfx942", "gfx950") for n in sorted(MFMA_TABLE)
        if arch in MFMA_TABLE[n].arches and mfma_fast.plan(n, arch, 0, 0, 0) is not None]


def _dtype(name, arch, which):
    from isa.emu.mfma_plan import _plan
    fa, fb = _plan(name, arch, 0, 0, 0)[2]
    return FORMAT_DTYPES[fa if which == "a" else fb]


@st.composite
def styles(draw):
    """How to draw one operand: exponent centre and spread, share of zeros/subnormals/specials."""
    return {"centre": draw(st.integers(-140, 130)), "spread": draw(st.integers(0, 260)),
                "zeros": draw(st.sampled_from([0.0, 0.05, 0.5, 1.0])),
                "neg_zero": draw(st.booleans()),
                "sub": draw(st.sampled_from([0.0, 0.1, 0.6])),
                "special": draw(st.sampled_from([0.0, 0.0, 0.0, 0.01])),
                "low_bits": draw(st.booleans())}


def _values(rng, shape, dt, s):
    fi = ml_dtypes.finfo(dt)
    lo, hi = int(fi.minexp), int(fi.maxexp) - 1
    c = min(max(s["centre"], lo), hi)
    e = rng.integers(max(lo, c - s["spread"] // 2), min(hi, c + s["spread"] // 2) + 1, shape)
    # full-precision significands (every low bit set at random) or short ones
    m = rng.uniform(1, 2, shape) if s["low_bits"] else 1 + rng.integers(0, 4, shape) / 4
    x = m * np.exp2(e) * rng.choice([-1.0, 1.0], shape)
    sub = rng.random(shape) < s["sub"]
    x[sub] = rng.uniform(-1, 1, int(sub.sum())) * float(fi.smallest_normal)
    z = rng.random(shape) < s["zeros"]
    x[z] = -0.0 if s["neg_zero"] else 0.0
    x = np.clip(x, -float(fi.max), float(fi.max)).astype(dt)
    sp = rng.random(shape) < s["special"]
    if sp.any():
        specials = [np.nan] + ([np.inf, -np.inf] if np.isinf(np.array(np.inf).astype(dt)) else [])
        x[sp] = np.array(rng.choice(specials, int(sp.sum()))).astype(dt)
    return x


@st.composite
def cases(draw):
    arch, name = draw(st.sampled_from(FAST))
    info = mfma_info(name, arch)
    mods = {}
    if info.cbsz_abid_ok and info.blocks > 1 and draw(st.booleans()):
        cbsz = draw(st.integers(1, int(np.log2(info.blocks))))
        mods = {"cbsz": cbsz, "abid": draw(st.integers(0, (1 << cbsz) - 1))}
    if info.blgp_ok and draw(st.booleans()):
        mods["blgp"] = draw(st.integers(1, 7))
    return {"arch": arch, "name": name, "mods": mods, "waves": draw(st.integers(1, 3)),
                "seed": draw(st.integers(0, 2**32 - 1)), "a": draw(styles()), "b": draw(styles()),
                "c": draw(styles()), "cancel": draw(st.sampled_from([None, "pairs", "rows"])),
                "c_shift": draw(st.one_of(st.none(), st.integers(-30, 12), st.sampled_from([-60, 40]))),
                "dense_at": draw(st.sampled_from([4, 0, 1 << 40])),
                "straight": draw(st.booleans())}


def _operands(case):
    name, arch = case["name"], case["arch"]
    info = mfma_info(name, arch)
    rng = np.random.default_rng(case["seed"])
    bl = (info.blocks,) if info.blocks > 1 else ()
    ops = []
    for _ in range(case["waves"]):
        a = _values(rng, bl + (info.m, info.k), _dtype(name, arch, "a"), case["a"])
        b = _values(rng, bl + (info.k, info.n), _dtype(name, arch, "b"), case["b"])
        if case["cancel"] == "pairs" and _dtype(name, arch, "a") == _dtype(name, arch, "b"):
            # k pairs whose products cancel exactly: a[2j+1] = a[2j], b[2j+1] = -b[2j]
            a[..., 1::2] = a[..., 0::2]
            b[..., 1::2, :] = -b[..., 0::2, :]
        elif case["cancel"] == "rows":
            a[..., 1, :] = -a[..., 0, :]          # two output rows of opposite sign
        c = _values(rng, bl + (info.m, info.n), np.float32, case["c"])
        if case["c_shift"] is not None:
            # C a fixed number of binades from the exact products' scale (both floors in play)
            with np.errstate(all="ignore"):
                av = a.astype(np.float64)
                bv = b.astype(np.float64)
                mag = np.abs(np.matmul(av, bv))
                mag = np.where(np.isfinite(mag) & (mag > 0), mag, 1.0)
                c = (mag * np.exp2(case["c_shift"]) * rng.choice([-1.0, 1.0], mag.shape)
                     * rng.uniform(1, 2, mag.shape))
                c = np.clip(c, -3e38, 3e38).astype(np.float32)
        ops.append((pack_a(name, a), pack_b(name, b), pack_c(name, c)))
    return [np.stack([o[i] for o in ops]) for i in range(3)]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_fast_path_bits_equal_the_model(case):
    name, arch, mods = case["name"], case["arch"], case["mods"]
    a, b, c = _operands(case)
    want = mfma_model(name, arch, a, b, c, **mods)
    plan = mfma_fast.plan(name, arch, mods.get("cbsz", 0), mods.get("abid", 0),
                          mods.get("blgp", 0))
    old = mfma_fast._DENSE_AT
    mfma_fast._DENSE_AT = case["dense_at"]
    # the plan's stage-2 route: straight to the full formula, or the window check first
    route = [8] if case["straight"] else [0]
    try:
        mfma_fast._ROUTE[id(plan)] = list(route)
        d = mfma_fast.fdpa(plan, a, b, c)
        mfma_fast._ROUTE[id(plan)] = list(route)
        d1 = mfma_fast.fdpa1(plan, a[0], b[0], c[0])
        mfma_fast._ROUTE[id(plan)] = list(route)
        got = mfma(name, arch, a, b, c, **mods)
    finally:
        mfma_fast._DENSE_AT = old
        mfma_fast._ROUTE.pop(id(plan), None)
    if d is not None:
        assert np.array_equal(d, want)
    if d1 is not None:
        assert np.array_equal(d1, want[0])
    assert np.array_equal(got, want)


@pytest.mark.parametrize("arch,name", FAST)
def test_every_form_answers_itself_on_plain_data(arch, name):
    """On finite data of a moderate range the fast path answers (no model fallback), through both
    the matmul-only route (bf16-like narrow spread) and the truncating fix-ups, and equals the model."""
    info = mfma_info(name, arch)
    rng = np.random.default_rng(7)
    for spread, cscale in ((0, 4.0), (6, 1.0), (12, 1e-6), (12, 1e6)):
        shape = (4,) + ((info.blocks,) if info.blocks > 1 else ()) + (info.m, info.k)
        a = (rng.standard_normal(shape)
             * np.exp2(-rng.integers(0, spread + 1, shape))).astype(_dtype(name, arch, "a"))
        b = rng.standard_normal(a.shape[:-2] + (info.k, info.n)).astype(_dtype(name, arch, "b"))
        c = (rng.standard_normal(a.shape[:-2] + (info.m, info.n)) * cscale).astype(np.float32)
        ra = np.stack([pack_a(name, x) for x in a])
        rb = np.stack([pack_b(name, x) for x in b])
        rc = np.stack([pack_c(name, x) for x in c])
        d = mfma_fast.fdpa(mfma_fast.plan(name, arch, 0, 0, 0), ra, rb, rc)
        assert d is not None, (name, spread)
        assert np.array_equal(d, mfma_model(name, arch, ra, rb, rc)), (name, spread, cscale)


@pytest.mark.parametrize("two", [False, True])
def test_stage2_exact_window_edges(two):
    """Stage 2 (``mfma_fast._accumulate``, which skips both floors when e_c - E lies in [-1, 7])
    equals the model's stage 2 (``isa.emu.mfma._accumulate``) at every offset e_c - E in
    [-12, 20]: 50k accumulations each, group sums with every low bit in play, so a floor that
    matters at a window edge changes some rounding."""
    from isa.emu import mfma as model
    rng = np.random.default_rng(11 + two)
    n = 50_000
    for d in range(-12, 21):
        e = rng.integers(-100, 100, n)
        s_units = rng.integers(-(1 << 29), 1 << 29, n).astype(np.float64)   # S, units 2**(E-24)
        s_units[::97] = 0.0
        ec = np.clip(e + d, -126, 127)
        c = (rng.integers(1 << 23, 1 << 24, n) * rng.choice([-1.0, 1.0], n)
             * np.exp2(ec - 23)).astype(np.float32)
        c[::101] = 0.0
        want = model._accumulate(s_units, e, c.astype(np.float64),
                                 model.f32_exponent(c.view(np.uint32)), two)
        got = mfma_fast._accumulate(s_units * np.exp2(e - 24), e + mfma_fast._EO, c,
                                    c.view(np.uint32), two)
        assert np.array_equal(got.view(np.uint32), want.view(np.uint32)), d


@pytest.mark.parametrize("arch,name", FAST)
def test_operands_read_in_place_from_register_files(arch, name):
    """``fdpa_at`` reads A, B and C at register offsets of whole [W, 256, 64] files (the group MFMA's
    path, isa.emu.control): the same D as ``fdpa`` on the operand rows cut out."""
    info = mfma_info(name, arch)
    rng = np.random.default_rng(3)
    plan = mfma_fast.plan(name, arch, 0, 0, 0)
    def file_of(dt):
        k = 4 // np.dtype(dt).itemsize             # elements per 32-bit register and lane
        return rng.standard_normal((5, 256, 64 * k)).astype(dt).view(np.uint32)
    va, vb = file_of(_dtype(name, arch, "a")), file_of(_dtype(name, arch, "b"))
    files = rng.standard_normal((3, 5, 256, 64)).astype(np.float32).view(np.uint32)
    ac = files[2]
    ia, ib, ic = 7, 130, 256 - info.cd_regs - 3
    n = plan.need_a
    want = mfma_fast.fdpa(plan, va[:, ia:ia + n], vb[:, ib:ib + n], ac[:, ic:ic + info.cd_regs])
    got = mfma_fast.fdpa_at(plan, va, ia, vb, ib, ac, ic)
    assert want is not None and got is not None
    assert np.array_equal(got, want)
    assert np.array_equal(got, mfma_model(name, arch, va[:, ia:ia + n], vb[:, ib:ib + n],
                                          ac[:, ic:ic + info.cd_regs]))


def test_register_order_plans():
    """Every fast form whose D layout gives each output row a run of lanes of one register (all but
    the 4x4 multi-block forms) computes in register order: C is read and D written as views of the
    registers (``plan.cd_flat is None``), with A's rows permuted so the model's row rows[b, r] comes
    out at register position r; the 4x4 forms keep the permuting gather."""
    for arch, name in FAST:
        plan = mfma_fast.plan(name, arch, 0, 0, 0)
        assert (plan.cd_flat is None) == ("4x4x4" not in name), name
    from isa.mfma_layout import layout
    rows = mfma_fast._register_rows(layout("v_mfma_f32_32x32x8_bf16").cd_flat, 32)
    # 32x32 D: row i sits in register (i // 8) * 4 + i % 4, lanes 32 * ((i // 4) % 2) + j
    want = [8 * (p // 8) + 4 * (p % 2) + (p // 2) % 4 for p in range(32)]
    assert rows.tolist() == [want]
