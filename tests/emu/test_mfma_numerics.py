"""MFMA numerics: tolerance vs float64 for every shape, bit-exact vs a scalar model, hand cases."""
from __future__ import annotations

import math
import zlib
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from isa.emu.mfma import mfma, mfma_reference, operand_values
from isa.mfma_layout import pack_a, pack_b, pack_c, unpack_d
from isa.mfma_shapes import MFMA_TABLE, MfmaOperandError, mfma_info, operand_regs
from isa.numerics import fma_f32

CASES = [(arch, n) for arch in ("gfx942", "gfx950") for n in sorted(MFMA_TABLE)
         if arch in MFMA_TABLE[n].arches]
FNUZ = {"fp8": ml_dtypes.float8_e4m3fnuz, "bf8": ml_dtypes.float8_e5m2fnuz}
OCP = {"fp8": ml_dtypes.float8_e4m3fn, "bf8": ml_dtypes.float8_e5m2}
PLAIN = {"f16": np.float16, "bf16": ml_dtypes.bfloat16, "f32": np.float32, "xf32": np.float32,
         "f8f6f4": ml_dtypes.float8_e4m3fn}


def in_dtype(t, arch):
    if t in ("fp8", "bf8"):
        return (FNUZ if arch == "gfx942" else OCP)[t]
    return PLAIN[t]


def hard_values(rng, shape, dt, spread):
    """Random finite values of dtype dt: wide exponent spread, ~10% subnormal, ~5% (-)0."""
    fi = ml_dtypes.finfo(dt)
    lo = max(int(fi.minexp), -spread)
    hi = min(int(fi.maxexp) - 1, spread)
    x = rng.uniform(1, 2, shape) * np.exp2(rng.integers(lo, hi + 1, shape))
    x *= rng.choice([-1.0, 1.0], shape)
    sub = rng.random(shape) < 0.1
    x[sub] = rng.uniform(-1, 1, sub.sum()) * float(fi.smallest_normal)
    z = rng.random(shape) < 0.05
    x[z] = rng.choice([0.0, -0.0], z.sum())
    return np.clip(x, -float(fi.max), float(fi.max)).astype(dt)


def random_operands(name, arch, rng, spread=12):
    info = mfma_info(name)
    bl = (info.blocks,) if info.blocks > 1 else ()
    if info.kind == "int":
        a = rng.integers(-128, 128, bl + (info.m, info.k)).astype(np.int8)
        b = rng.integers(-128, 128, bl + (info.k, info.n)).astype(np.int8)
        c = rng.integers(-2**31, 2**31, bl + (info.m, info.n)).astype(np.int32)
    else:
        a = hard_values(rng, bl + (info.m, info.k), in_dtype(info.a_type, arch), spread)
        b = hard_values(rng, bl + (info.k, info.n), in_dtype(info.b_type, arch), spread)
        c = hard_values(rng, bl + (info.m, info.n), np.float32, spread)
    return pack_a(name, a), pack_b(name, b), pack_c(name, c)


@pytest.mark.parametrize("arch,name", CASES)
def test_within_k_plus_2_ulp_of_float64(arch, name):
    info = mfma_info(name)
    rng = np.random.default_rng(zlib.crc32(f"{arch}{name}".encode()))
    for _ in range(2):
        a, b, c = random_operands(name, arch, rng)
        d = unpack_d(name, mfma(name, arch, a, b, c))
        av, bv, cv = operand_values(name, arch, a, b, c)
        exact = np.einsum("bik,bkj->bij", av, bv) + cv
        exact = exact[0] if info.blocks == 1 else exact
        if info.kind == "int":
            want = ((exact.astype(np.int64) + 2**31) % 2**32 - 2**31).astype(np.int32)
            assert np.array_equal(d, want)
            continue
        mag = np.einsum("bik,bkj->bij", np.abs(av), np.abs(bv)) + np.abs(cv)
        mag = (mag[0] if info.blocks == 1 else mag).astype(np.float32)
        # cdna-facts 2.3 bound, plus the alignment loss of subnormal operands: the model aligns
        # a product at the exponent of its operands' binades (a subnormal counts as the smallest
        # normal binade), so each truncation loses up to 2**-24 of that scale, not of |a*b|.
        ta, tb = (float(ml_dtypes.finfo(in_dtype(t, arch)).smallest_normal)
                  for t in (info.a_type, info.b_type))
        scale = np.max(np.maximum(np.abs(av), ta)[:, :, None, :]
                       * np.maximum(np.abs(bv), tb).transpose(0, 2, 1)[:, None, :, :], axis=-1)
        scale = scale[0] if info.blocks == 1 else scale
        tol = (info.k + 2) * (np.spacing(mag).astype(np.float64) + scale * 2.0**-24)
        err = np.abs(d.astype(np.float64) - exact)
        assert (err <= tol).all(), (name, float((err / tol).max()))
        ref = unpack_d(name, mfma_reference(name, arch, a, b, c))
        assert (np.abs(ref.astype(np.float64) - exact) <= tol).all()


# ---- scalar model (Fractions; independent of the vectorised code) -----------------------------

def _sig_exp(x: float, min_e: int):
    if x == 0:
        return Fraction(0), -126
    m, e = math.frexp(x)
    m, e = Fraction(m) * 2, e - 1
    if e < min_e:
        m, e = m * Fraction(2) ** (e - min_e), min_e
    return m, e


def _fused(terms, f):
    big = max(e for _, e in terms)
    return sum(math.trunc(s * Fraction(2) ** (f + e - big)) for s, e in terms), big  # units 2^-f


def _model_group(a, b, c, min_a, min_b, halves):
    """One fused group of cdna-facts 2.3 / MMA-Sim CDNA3, on Python floats; returns np.float32."""
    with np.errstate(all="ignore"):
        f64 = float(np.sum(np.array(a) * np.array(b)) + c)
    if not math.isfinite(f64):
        return np.float32(f64)
    prods = [x * y for x, y in zip(a, b)]
    if any(abs(p) >= 2.0 ** 128 for p in prods):
        pos, neg = any(p >= 2.0 ** 128 for p in prods), any(p <= -2.0 ** 128 for p in prods)
        return np.float32(np.nan if pos and neg else np.inf if pos else -np.inf)
    terms = []
    for x, y in zip(a, b):
        (sa, ea), (sb, eb) = _sig_exp(x, min_a), _sig_exp(y, min_b)
        terms.append((sa * sb, ea + eb))
    if halves:
        (s0, e0), (s1, e1) = _fused(terms[0::2], 24), _fused(terms[1::2], 24)
        e = max(e0, e1)
        s = math.floor(s0 * Fraction(2) ** (e0 - e)) + math.floor(s1 * Fraction(2) ** (e1 - e))
    else:
        s, e = _fused(terms, 24)
    sc, ec = _sig_exp(c, -126)
    e2 = max(e, ec)
    s31 = math.floor(s * Fraction(2) ** (7 + e - e2))
    c24 = math.floor(sc * Fraction(2) ** (24 + ec - e2))
    if halves and ec < e2 - 25:
        c24 = 0
    return np.float32(float(Fraction(s31 + 128 * c24) * Fraction(2) ** (e2 - 31)))


def _min_exp(fmt_dtype):
    return -126 if fmt_dtype == np.float32 else int(ml_dtypes.finfo(fmt_dtype).minexp)


MODEL_CASES = [("gfx942", "v_mfma_f32_32x32x8_f16"), ("gfx942", "v_mfma_f32_16x16x16_bf16"),
               ("gfx942", "v_mfma_f32_16x16x32_fp8_bf8"), ("gfx942", "v_mfma_f32_32x32x16_bf8_bf8"),
               ("gfx942", "v_mfma_f32_16x16x8_xf32"), ("gfx942", "v_mfma_f32_4x4x4_16b_f16"),
               ("gfx950", "v_mfma_f32_16x16x32_bf16"), ("gfx950", "v_mfma_f32_32x32x16_fp8_fp8")]


@pytest.mark.parametrize("arch,name", MODEL_CASES)
@pytest.mark.parametrize("spread", [4, 30])
def test_bit_exact_against_scalar_model(arch, name, spread):
    info = mfma_info(name)
    rng = np.random.default_rng(spread)
    a, b, c = random_operands(name, arch, rng, spread)
    d = unpack_d(name, mfma(name, arch, a, b, c)).reshape(info.blocks, info.m, info.n)
    av, bv, cv = operand_values(name, arch, a, b, c)
    min_a = _min_exp(in_dtype(info.a_type, arch) if info.a_type != "xf32" else np.float32)
    min_b = _min_exp(in_dtype(info.b_type, arch) if info.b_type != "xf32" else np.float32)
    g = min(info.group, info.k)
    for _ in range(48):
        bl, i, j = (int(rng.integers(x)) for x in (info.blocks, info.m, info.n))
        acc = float(cv[bl, i, j])
        for k0 in range(0, info.k, g):
            acc = float(_model_group(list(av[bl, i, k0:k0 + g]), list(bv[bl, k0:k0 + g, j]),
                                     acc, min_a, min_b, info.kind == "fdpa2"))
        assert np.float32(acc).view(np.uint32) == d[bl, i, j].view(np.uint32), (bl, i, j)


# ---- hand-computed cases ---------------------------------------------------------------------

def _run_one(name, arch, a_row, b_col, c00, dt):
    """D[0,0] with A row 0 = a_row, B column 0 = b_col, C[0,0] = c00, everything else 0."""
    info = mfma_info(name)
    a = np.zeros((info.m, info.k), dt)
    b = np.zeros((info.k, info.n), dt)
    a[0, :len(a_row)] = np.array(a_row, np.float64).astype(dt)
    b[:len(b_col), 0] = np.array(b_col, np.float64).astype(dt)
    c = np.zeros((info.m, info.n), np.float32)
    c[0, 0] = c00
    return unpack_d(name, mfma(name, arch, pack_a(name, a), pack_b(name, b), pack_c(name, c)))[0, 0]


F16 = "v_mfma_f32_32x32x8_f16"


def test_fused_group_keeps_bits_a_sequential_fp32_sum_loses():
    # products 1 and 4 x 2**-24 (f16 2**-12 * 2**-12): sequential fp32 sum rounds each 1 + 2**-24
    # tie back to 1; the fused group sums exactly: 1 + 2**-22.
    d = _run_one(F16, "gfx942", [1, 2**-12, 2**-12, 2**-12, 2**-12], [1, 2**-12, 2**-12, 2**-12,
                                                                    2**-12], 0.0, np.float16)
    assert d == np.float32(1 + 2**-22)
    seq = np.float32(0)
    for p in [1.0] + [2.0**-24] * 4:
        seq = np.float32(seq + np.float32(p))
    assert seq == np.float32(1.0)


def test_alignment_truncates_below_24_fraction_bits():
    # product 1.5 * 2**-24 is truncated to 2**-24 below the group max exponent 0, so
    # 1 + 2**-24 is a tie rounding to 1.0; the exact sum 1 + 1.5 * 2**-24 rounds up to 1 + 2**-23.
    d = _run_one(F16, "gfx942", [1, 1.5 * 2**-12], [1, 2**-12], 0.0, np.float16)
    assert d == np.float32(1.0)
    assert np.float32(1 + 1.5 * 2**-24) == np.float32(1 + 2**-23)


def test_accumulator_is_floored_not_rounded():
    # c = -2**-30 floored to 24 fraction bits below exponent 0 becomes -2**-24: 1 - 2**-24.
    d = _run_one(F16, "gfx942", [1], [1], -2.0**-30, np.float16)
    assert d == np.float32(1 - 2**-24)
    # fp8 rule: an accumulator more than 25 binades below is dropped instead: exactly 1.0
    d8 = _run_one("v_mfma_f32_32x32x16_fp8_fp8", "gfx942", [1], [1], -2.0**-30,
                  ml_dtypes.float8_e4m3fnuz)
    assert d8 == np.float32(1.0)


def test_fp8_even_odd_halves_are_fused_separately():
    # products 1 (k=0) and -1.5*2**-24 (k=1). f16 (one group): the small product is truncated
    # toward zero to -2**-24 -> 1 - 2**-24. bf8 (even/odd halves): the odd half alone is exact,
    # then floored to 24 fraction bits below exponent 0 -> -2**-23 -> 1 - 2**-23.
    d16 = _run_one(F16, "gfx942", [1, -1.5 * 2**-12], [1, 2**-12], 0.0, np.float16)
    assert d16 == np.float32(1 - 2**-24)
    d8 = _run_one("v_mfma_f32_32x32x16_bf8_bf8", "gfx942", [1, -1.5 * 2**-9], [1, 2**-15], 0.0,
                  ml_dtypes.float8_e5m2fnuz)
    assert d8 == np.float32(1 - 2**-23)


def test_zero_result_is_positive_and_denormals_are_kept():
    d = _run_one(F16, "gfx942", [-0.0], [1.0], -0.0, np.float16)
    assert d.view(np.uint32) == 0
    # f16 subnormal product 2**-24 * 2**-10 = 2**-34 survives (no flush)
    assert _run_one(F16, "gfx942", [2**-24], [2**-10], 0.0, np.float16) == np.float32(2**-34)
    # f32 MFMA: fp32 subnormal result
    d = _run_one("v_mfma_f32_32x32x2_f32", "gfx942", [2.0**-140], [2.0**-5], 0.0, np.float32)
    assert d == np.float32(2.0**-145) and d != 0


def test_nan_and_inf():
    fnuz = ml_dtypes.float8_e4m3fnuz
    nan_fnuz = np.array([0x80], np.uint8).view(fnuz)[0]
    assert np.isnan(_run_one("v_mfma_f32_32x32x16_fp8_fp8", "gfx942", [nan_fnuz], [1], 0.0, fnuz))
    e5 = ml_dtypes.float8_e5m2
    inf = float(np.array([0x7C], np.uint8).view(e5)[0])
    assert _run_one("v_mfma_f32_32x32x16_bf8_bf8", "gfx950", [inf], [1], 0.0, e5) == np.inf
    assert np.isnan(_run_one("v_mfma_f32_32x32x16_bf8_bf8", "gfx950", [inf], [0], 0.0, e5))
    e4 = ml_dtypes.float8_e4m3fn
    nan_e4 = float(np.array([0x7F], np.uint8).view(e4)[0])
    assert np.isnan(_run_one("v_mfma_f32_32x32x16_fp8_fp8", "gfx950", [nan_e4], [1], 0.0, e4))
    bf = ml_dtypes.bfloat16
    # bf16 products beyond 2**128 give inf even though they cancel exactly
    assert _run_one(F16.replace("f16", "bf16"), "gfx942", [2.0**100], [2.0**100], 1.0, bf) == np.inf
    assert np.isnan(_run_one(F16.replace("f16", "bf16"), "gfx942", [2.0**100, 2.0**100],
                             [2.0**100, -(2.0**100)], 1.0, bf))
    d = _run_one(F16, "gfx942", [1], [1], np.float32(-np.inf), np.float16)
    assert d == -np.inf
    # overflow of the rounded result
    assert _run_one(F16.replace("f16", "bf16"), "gfx942", [2.0**64], [2.0**63], 2.0**127, bf) \
        == np.inf
    nan_out = _run_one(F16, "gfx942", [np.inf], [0], 0.0, np.float16)
    assert nan_out.view(np.uint32) == 0x7FC00000


def test_overflowing_products_with_a_nan_elsewhere():
    # regression: a NaN in another row must not hide the +-2**128 product rule of this row
    name = F16.replace("f16", "bf16")
    a = np.zeros((32, 8), ml_dtypes.bfloat16)
    b = np.zeros((8, 32), ml_dtypes.bfloat16)
    a[0, :2] = [2.0**100, 2.0**100]
    b[:2, 0] = [2.0**100, -(2.0**100)]
    a[5, 0] = np.nan
    d = unpack_d(name, mfma(name, "gfx942", pack_a(name, a), pack_b(name, b),
                            pack_c(name, np.zeros((32, 32), np.float32))))
    assert np.isnan(d[0, 0]) and np.isnan(d[5, 0]) and d[1, 0] == 0


def test_i8_wraps_in_int32():
    name = "v_mfma_i32_32x32x16_i8"
    a = np.zeros((32, 16), np.int8)
    b = np.zeros((16, 32), np.int8)
    a[0, :2] = [-128, 127]
    b[:2, 0] = [-128, 100]
    c = np.zeros((32, 32), np.int32)
    c[0, 0] = 2**31 - 1
    d = unpack_d(name, mfma(name, "gfx942", pack_a(name, a), pack_b(name, b), pack_c(name, c)))
    assert d[0, 0] == np.int32(((2**31 - 1 + 16384 + 12700 + 2**31) % 2**32) - 2**31)
    assert d[0, 0] < 0


def _round_f32(q: Fraction) -> np.float32:
    f = np.float32(float(q))
    cands = [np.nextafter(f, np.float32(-np.inf)), f, np.nextafter(f, np.float32(np.inf))]
    best = min(cands, key=lambda x: (abs(Fraction(float(x)) - q), int(x.view(np.uint32)) & 1))
    return np.float32(best)


def test_fma_f32_single_rounding():
    a = np.float32(1 + 2**-12)
    # a*a = 1 + 2**-11 + 2**-24 is an f32 midpoint; + 2**-80 must round up (a float64 sum would
    # land on the midpoint and tie to even, i.e. down).
    got = fma_f32(np.array([a]), np.array([a]), np.array([np.float32(2.0**-80)]))[0]
    assert got == np.float32(1 + 2**-11 + 2**-23)
    rng = np.random.default_rng(5)
    x, y, z = (hard_values(rng, 400, np.float32, 20) for _ in range(3))
    got = fma_f32(x, y, z)
    for xi, yi, zi, gi in zip(x, y, z, got):
        want = _round_f32(Fraction(float(xi)) * Fraction(float(yi)) + Fraction(float(zi)))
        if want != 0:
            assert gi.view(np.uint32) == want.view(np.uint32)


def test_f32_mfma_is_a_chain_of_fmas():
    name = "v_mfma_f32_16x16x4_f32"
    rng = np.random.default_rng(7)
    a, b, c = random_operands(name, "gfx942", rng, spread=20)
    d = unpack_d(name, mfma(name, "gfx942", a, b, c))
    av, bv, cv = operand_values(name, "gfx942", a, b, c)
    for i, j in [(0, 0), (3, 7), (15, 15), (9, 2)]:
        acc = np.float32(cv[0, i, j])
        for k in range(4):
            acc = _round_f32(Fraction(float(av[0, i, k])) * Fraction(float(bv[0, k, j]))
                             + Fraction(float(acc)))
        assert acc == d[i, j]


def test_blgp_and_cbsz_abid_match_permuted_inputs():
    name = "v_mfma_f32_16x16x4_4b_f16"
    rng = np.random.default_rng(3)
    a = rng.standard_normal((4, 16, 4)).astype(np.float16)
    b = rng.standard_normal((4, 4, 16)).astype(np.float16)
    c = np.zeros((4, 16, 16), np.float32)
    ra, rb, rc = pack_a(name, a), pack_b(name, b), pack_c(name, c)
    # cbsz=2 abid=1: every block uses A block 1 (CALC example)
    d = mfma(name, "gfx942", ra, rb, rc, cbsz=2, abid=1)
    want = mfma(name, "gfx942", pack_a(name, np.stack([a[1]] * 4)), rb, rc)
    assert np.array_equal(d, want)
    # blgp=4: every lane reads B from lanes 0-15, i.e. every block uses B block 0
    d = mfma(name, "gfx942", ra, rb, rc, blgp=4)
    assert np.array_equal(d, mfma(name, "gfx942", ra, pack_b(name, np.stack([b[0]] * 4)), rc))
    # blgp=3 rotates lanes down by 16: block q uses B block (q+1) % 4
    d = mfma(name, "gfx942", ra, rb, rc, blgp=3)
    assert np.array_equal(d, mfma(name, "gfx942", ra, pack_b(name, np.roll(b, -1, 0)), rc))


@pytest.mark.parametrize("cbsz,blgp", [(0, 0), (1, 1), (2, 3), (4, 4), (0, 4), (3, 2)])
def test_f8f6f4_formats(cbsz, blgp):
    name = "v_mfma_f32_16x16x128_f8f6f4"
    dts = [ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2, ml_dtypes.float6_e2m3fn,
           ml_dtypes.float6_e3m2fn, ml_dtypes.float4_e2m1fn]
    rng = np.random.default_rng(cbsz * 8 + blgp)
    a = rng.uniform(-4, 4, (16, 128)).astype(dts[cbsz])
    b = rng.uniform(-4, 4, (128, 16)).astype(dts[blgp])
    c = rng.standard_normal((16, 16)).astype(np.float32)
    ra, rb = pack_a(name, a), pack_b(name, b)
    assert ra.shape[0] == {0: 8, 1: 8, 2: 6, 3: 6, 4: 4}[cbsz]
    assert operand_regs(name, cbsz, blgp) == (ra.shape[0], rb.shape[0])
    d = unpack_d(name, mfma(name, "gfx950", ra, rb, pack_c(name, c), cbsz=cbsz, blgp=blgp))
    exact = a.astype(np.float64) @ b.astype(np.float64) + c
    mag = np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64)) + np.abs(c)
    assert (np.abs(d - exact) <= 130 * np.spacing(mag.astype(np.float32))).all()


@pytest.mark.parametrize("name,arch,mods", [("v_mfma_f32_32x32x8_bf16", "gfx942", {}),
                                            ("v_mfma_f32_16x16x4_4b_f16", "gfx942",
                                             {"cbsz": 1, "abid": 1, "blgp": 5}),
                                            ("v_mfma_i32_16x16x64_i8", "gfx950", {}),
                                            ("v_mfma_f32_16x16x4_f32", "gfx942", {"blgp": 2}),
                                            ("v_mfma_f32_16x16x32_fp8_bf8", "gfx950", {})])
def test_many_waves_in_one_call_equal_one_call_per_wave(name, arch, mods):
    rng = np.random.default_rng(11)
    ops = [random_operands(name, arch, rng) for _ in range(6)]   # 6 waves: chunked for 32x32
    a, b, c = (np.stack([o[x] for o in ops]) for x in range(3))
    d = mfma(name, arch, a, b, c, **mods)
    assert d.shape == (6,) + ops[0][2].shape
    for w, (aw, bw, cw) in enumerate(ops):
        assert np.array_equal(d[w], mfma(name, arch, aw, bw, cw, **mods))
    with pytest.raises(MfmaOperandError, match="waves"):
        mfma(name, arch, a[:2], b, c, **mods)
