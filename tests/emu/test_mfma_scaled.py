"""gfx950 f8f6f4 MFMAs, unscaled and block-scaled, against an independent NumPy/ml_dtypes reference.

The reference here packs registers itself from AMD's CDNA4 ISA guide and never calls
isa.mfma_layout. Data (section 7.1.5.1 "Dense Matrix Layouts: 8-bit and Smaller", FP4/FP6/FP8
tables): lane l holds row/column l % M; fp4/fp6/bf6 the 32 consecutive k of block l // M (element
e at bit e * bits of the lane's VGPRs as one little-endian string, section 7.1.4, so fp4 puts the
even k in the low nibble); fp8/bf8 two runs of 16, VGPRs 0-3 k = 16 g + e and VGPRs 4-7
k = K/2 + 16 g + e (g = l // M). Scales (section 7.2.1): row (column) i of K-block kb is lane
i + M * kb, byte {OP_SEL_HI[i], OP_SEL[i]} = op_sel[i] + 2 * op_sel_hi[i]. Elements and E8M0
scales are decoded with ml_dtypes.
"""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from core_util import run

from isa import hazards
from isa.asm_parse import parse_line
from isa.emu.mfma import mfma
from isa.tables import spec_table

SHAPES = {"v_mfma_f32_16x16x128_f8f6f4": (16, 128, 8), "v_mfma_f32_32x32x64_f8f6f4": (32, 64, 16)}
# cbsz/blgp code -> (ml_dtypes type, bits); CDNA4 ISA order E4M3, E5M2, E2M3, E3M2, E2M1
FMT = {0: (ml_dtypes.float8_e4m3fn, 8), 1: (ml_dtypes.float8_e5m2, 8),
       2: (ml_dtypes.float6_e2m3fn, 6), 3: (ml_dtypes.float6_e3m2fn, 6),
       4: (ml_dtypes.float4_e2m1fn, 4)}
PAIRS = [(a, b) for a in FMT for b in FMT]
SMALL = np.array([0, 0.5, 1, 1.5, 2, 3, 4, 6, -0.5, -1, -1.5, -2, -3, -4, -6])  # exact in every format


def scaled(name: str) -> str:
    return name.replace("v_mfma_", "v_mfma_scale_")


def decode(codes: np.ndarray, code: int) -> np.ndarray:
    return np.asarray(codes, np.uint8).view(FMT[code][0]).astype(np.float64)


def encode(values: np.ndarray, code: int) -> np.ndarray:
    return np.asarray(values).astype(FMT[code][0]).view(np.uint8)


def isa_k(e: int, g: int, k: int, bits: int) -> int:
    """k of element e of lane group g (CDNA4 ISA 7.1.5.1): 8-bit formats in two runs of 16."""
    if bits == 8:
        return (e // 16) * (k // 2) + 16 * g + e % 16
    return 32 * g + e


def pack(codes_rk: np.ndarray, bits: int) -> np.ndarray:
    """uint32 [bits, 64] registers of an operand given as codes [R, K] (A: [M, K]; B: B.T)."""
    r, k = codes_rk.shape
    regs = np.zeros((bits, 64), np.uint32)
    for lane in range(64):
        row, g = lane % r, lane // r
        if g * 32 >= k:
            continue
        word = 0
        for e in range(32):
            word |= int(codes_rk[row, isa_k(e, g, k, bits)]) << (e * bits)
        for j in range(bits):
            regs[j, lane] = (word >> (32 * j)) & 0xFFFFFFFF
    return regs


def unpack_d(d: np.ndarray, m: int) -> np.ndarray:
    """D [M, M] from uint32 [M*M/64, 64] (C/D layout of the 16x16 / 32x32 MFMAs, CALC)."""
    out = np.zeros((m, m), np.float32)
    q = 64 // m
    for r in range(d.shape[0]):
        for lane in range(64):
            row = 4 * ((r // 4) * q + lane // m) + r % 4
            out[row, lane % m] = d[r, lane].view(np.float32)
    return out


def pack_c(c: np.ndarray) -> np.ndarray:
    m = c.shape[0]
    q = 64 // m
    regs = np.zeros((m * m // 64, 64), np.uint32)
    for r in range(regs.shape[0]):
        for lane in range(64):
            regs[r, lane] = np.float32(c[4 * ((r // 4) * q + lane // m) + r % 4, lane % m]).view(np.uint32)
    return regs


def scale_regs(rng, m: int, lo: int, hi: int) -> np.ndarray:
    """A scale VGPR: four random E8M0 bytes in [lo, hi] per lane."""
    return (rng.integers(lo, hi + 1, (4, 64)).astype(np.uint32) << (8 * np.arange(4, dtype=np.uint32))[:, None]).sum(0).astype(np.uint32)


def scale_matrix(reg: np.ndarray, sel: int, m: int, k: int) -> np.ndarray:
    """float64 [M, K/32] scale of row (column) i, block kb: lane i + M * kb, byte sel."""
    byte = ((reg >> np.uint32(8 * sel)) & 0xFF).astype(np.uint8)
    vals = byte.view(ml_dtypes.float8_e8m0fnu).astype(np.float64)
    return np.stack([vals[i + m * np.arange(k // 32)] for i in range(m)])


def reference(a, b, c, sa, sb) -> np.ndarray:
    """float64 sum_k (A * 2**sa) (B * 2**sb) + C, scales per 32 K-elements."""
    a = a * np.repeat(sa, 32, axis=1)
    b = b * np.repeat(sb.T, 32, axis=0)
    return a @ b + c


def run_case(name, ca, cb, a_codes, b_codes, c, sa_reg=None, sb_reg=None, opsel=(0, 0)):
    m, k, _ = SHAPES[name]
    ra, rb = pack(a_codes, FMT[ca][1]), pack(b_codes.T, FMT[cb][1])
    kw = {}
    if sa_reg is not None:
        kw = dict(scale_a=sa_reg, scale_b=sb_reg, opsel_a=opsel[0], opsel_b=opsel[1])
        name = scaled(name)
    d = mfma(name, "gfx950", ra, rb, pack_c(c), cbsz=ca, blgp=cb, **kw)
    return unpack_d(d, m)


@pytest.mark.parametrize("name", sorted(SHAPES))
@pytest.mark.parametrize("ca,cb", PAIRS)
def test_scaled_bit_exact_when_every_partial_sum_is_representable(name, ca, cb):
    """Values from {0, +-0.5 .. +-6} and scales 2**-1..2**1: every partial sum fits 24 bits, so the
    hardware rounding is invisible and D must equal the float64 reference exactly."""
    m, k, _ = SHAPES[name]
    rng = np.random.default_rng(100 * ca + 10 * cb + m)
    a, b = rng.choice(SMALL, (m, k)), rng.choice(SMALL, (k, m))
    c = rng.integers(-64, 65, (m, m)).astype(np.float32)
    sa_reg, sb_reg = scale_regs(rng, m, 126, 128), scale_regs(rng, m, 126, 128)
    sel = (int(rng.integers(4)), int(rng.integers(4)))
    d = run_case(name, ca, cb, encode(a, ca), encode(b, cb), c, sa_reg, sb_reg, sel)
    want = reference(decode(encode(a, ca), ca), decode(encode(b, cb), cb), c,
                     scale_matrix(sa_reg, sel[0], m, k), scale_matrix(sb_reg, sel[1], m, k))
    np.testing.assert_array_equal(d, want.astype(np.float32))


def finite_codes(rng, shape, code):
    """Random codes of format ``code`` over its whole range, NaN/inf codes excluded."""
    bits = FMT[code][1]
    x = rng.integers(0, 1 << bits, shape).astype(np.uint8)
    bad = ~np.isfinite(decode(x, code))
    x[bad] = 0
    return x


@pytest.mark.parametrize("name", sorted(SHAPES))
@pytest.mark.parametrize("ca,cb", [(0, 0), (1, 4), (4, 4), (2, 3), (3, 0), (4, 1)])
def test_scaled_random_full_range_within_tolerance(name, ca, cb):
    m, k, _ = SHAPES[name]
    rng = np.random.default_rng(7 * ca + cb + m)
    a_codes, b_codes = finite_codes(rng, (m, k), ca), finite_codes(rng, (k, m), cb)
    c = (rng.standard_normal((m, m)) * 2.0 ** rng.integers(-20, 20, (m, m))).astype(np.float32)
    sa_reg, sb_reg = scale_regs(rng, m, 100, 154), scale_regs(rng, m, 100, 154)
    d = run_case(name, ca, cb, a_codes, b_codes, c, sa_reg, sb_reg, (3, 1))
    sa, sb = scale_matrix(sa_reg, 3, m, k), scale_matrix(sb_reg, 1, m, k)
    a, b = decode(a_codes, ca), decode(b_codes, cb)
    want = reference(a, b, c, sa, sb)
    mag = reference(np.abs(a), np.abs(b), np.abs(c), sa, sb)
    assert np.isfinite(d).all()
    assert (np.abs(d - want) <= 130 * np.spacing(mag.astype(np.float32))).all()


@pytest.mark.parametrize("name", sorted(SHAPES))
@pytest.mark.parametrize("ca,cb", PAIRS)
def test_unscaled_equals_scaled_with_unit_scales(name, ca, cb):
    """The plain f8f6f4 form is the scaled one with every scale 127 (1.0), bit for bit."""
    m, k, _ = SHAPES[name]
    rng = np.random.default_rng(ca * 5 + cb)
    a_codes, b_codes = finite_codes(rng, (m, k), ca), finite_codes(rng, (k, m), cb)
    c = rng.standard_normal((m, m)).astype(np.float32)
    ones = np.full(64, 0x7F7F7F7F, np.uint32)
    d0 = run_case(name, ca, cb, a_codes, b_codes, c)
    d1 = run_case(name, ca, cb, a_codes, b_codes, c, ones, ones, (2, 3))
    np.testing.assert_array_equal(d0.view(np.uint32), d1.view(np.uint32))
    want = decode(a_codes, ca) @ decode(b_codes, cb) + c
    mag = np.abs(decode(a_codes, ca)) @ np.abs(decode(b_codes, cb)) + np.abs(c)
    assert (np.abs(d0 - want) <= 130 * np.spacing(mag.astype(np.float32))).all()


def test_fp4_even_k_is_the_low_nibble_and_scales_follow_the_data_lane():
    """Hand-built registers: lane 0 VGPR 0 = 0x00000002 is A[0, 0] = 1.0 (fp4 code 2 in the low
    nibble); 0x00000020 is A[0, 1]. B column j has k = 0 -> 1, k = 1 -> 2, k = 32 -> 4 (lane j + 16
    holds k 32..63 of column j)."""
    name = scaled("v_mfma_f32_16x16x128_f8f6f4")
    b = np.zeros((128, 16))
    b[0], b[1], b[32] = 1.0, 2.0, 4.0
    rb = pack(encode(b, 4).T, 4)
    c = pack_c(np.zeros((16, 16), np.float32))
    ones = np.full(64, 127, np.uint32)
    for word, want in ((0x2, 1.0), (0x20, 2.0)):
        ra = np.zeros((4, 64), np.uint32)
        ra[0, 0] = word
        d = unpack_d(mfma(name, "gfx950", ra, rb, c, cbsz=4, blgp=4, scale_a=ones, scale_b=ones), 16)
        assert (d[0] == want).all() and (d[1:] == 0).all()
    # A[0, 32] = 1.0 lives in lane 16; its scale is lane 16's byte: 2**3 -> D[0, :] = 4 * 8
    ra = np.zeros((4, 64), np.uint32)
    ra[0, 16] = 0x2
    sa = ones.copy()
    sa[16] = 130
    sa[0] = 0                     # lane 0's scale (block 0 of row 0) must not matter here
    d = unpack_d(mfma(name, "gfx950", ra, rb, c, cbsz=4, blgp=4, scale_a=sa, scale_b=ones), 16)
    assert (d[0] == 32.0).all() and (d[1:] == 0).all()


def test_nan_scale_poisons_only_its_rows():
    name = "v_mfma_f32_16x16x128_f8f6f4"
    rng = np.random.default_rng(3)
    a, b = rng.choice(SMALL, (16, 128)), rng.choice(SMALL, (128, 16))
    c = np.zeros((16, 16), np.float32)
    sa = np.full(64, 127, np.uint32)
    sb = sa.copy()
    sa[16 * 2 + 5] = 0xFF         # row 5, K-block 2 of A
    sb[3] = 0xFF << 8             # column 3, K-block 0 of B, in byte 1 (opsel_b = 1)
    sb[sb != (0xFF << 8)] = 127 << 8
    d = run_case(name, 0, 0, encode(a, 0), encode(b, 0), c, sa, sb, (0, 1))
    nan = np.zeros((16, 16), bool)
    nan[5, :] = nan[:, 3] = True
    assert np.isnan(d[nan]).all() and np.isfinite(d[~nan]).all()
    assert (d.view(np.uint32)[nan] == 0x7FC00000).all()


def test_scale_operand_shapes_are_checked():
    from isa.mfma_shapes import MfmaOperandError
    name = scaled("v_mfma_f32_16x16x128_f8f6f4")
    regs, c = np.zeros((8, 64), np.uint32), np.zeros((4, 64), np.uint32)
    with pytest.raises(MfmaOperandError, match="byte select 4"):
        mfma(name, "gfx950", regs, regs, c, scale_a=np.zeros(64, np.uint32), opsel_a=4)
    with pytest.raises(MfmaOperandError, match="scale register has shape"):
        mfma(name, "gfx950", regs, regs, c, scale_b=np.zeros(32, np.uint32))
    with pytest.raises(MfmaOperandError, match="takes no A scale"):
        mfma("v_mfma_f32_16x16x128_f8f6f4", "gfx950", regs, regs, c, scale_a=np.zeros(64, np.uint32))


def test_machine_runs_scaled_mfma_with_vgpr_and_sgpr_scales():
    """Through the emulator's dispatch: op_sel:[1,0] op_sel_hi:[0,1] picks byte 1 of the A scale
    VGPR and byte 2 of the B one; an SGPR scale gives bits [30:23] (LLVM PR #158117)."""
    name = "v_mfma_f32_32x32x64_f8f6f4"
    m, k, _ = SHAPES[name]
    rng = np.random.default_rng(5)
    a, b = rng.choice(SMALL, (m, k)), rng.choice(SMALL, (k, m))
    ra, rb = pack(encode(a, 2), 6), pack(encode(b, 4).T, 4)
    sa_reg, sb_reg = scale_regs(rng, m, 125, 129), scale_regs(rng, m, 125, 129)
    vgprs = {i: ra[i] for i in range(6)}
    vgprs.update({8 + i: rb[i] for i in range(4)})
    vgprs.update({20: sa_reg, 21: sb_reg})
    text = """
      v_mfma_scale_f32_32x32x64_f8f6f4 v[32:47], v[0:5], v[8:11], 0, v20, v21 op_sel:[1,0,0] op_sel_hi:[0,1,0] cbsz:2 blgp:4
      s_mov_b32 s4, 0x40800000
      v_mfma_scale_f32_32x32x64_f8f6f4 v[48:63], v[0:5], v[8:11], 0, s4, v21 op_sel:[1,0,0] op_sel_hi:[0,1,0] cbsz:2 blgp:4
      s_nop 7
      s_nop 7
      s_nop 3
      s_endpgm"""
    w = run(text, arch="gfx950", vgprs=vgprs).waves[0]
    av, bv = decode(encode(a, 2), 2), decode(encode(b, 4), 4)
    want = reference(av, bv, 0.0, scale_matrix(sa_reg, 1, m, k), scale_matrix(sb_reg, 2, m, k))
    np.testing.assert_array_equal(unpack_d(w.vgpr[32:48], m), want.astype(np.float32))
    want = reference(av, bv, 0.0, np.full((m, 2), 4.0), scale_matrix(sb_reg, 2, m, k))  # 4.0f: 129
    np.testing.assert_array_equal(unpack_d(w.vgpr[48:64], m), want.astype(np.float32))


@pytest.mark.parametrize("name", sorted(SHAPES))
@pytest.mark.parametrize("ca,cb", PAIRS)
def test_passes_per_format_equal_for_scaled_and_unscaled(name, ca, cb):
    """cdna-facts 2.1: 32x32x64 16 passes (8 if neither operand is fp8), 16x16x128 8 (4); the
    scaled forms the same (llvm-mca-22 -mcpu=gfx950 gives them the unscaled latency)."""
    table = spec_table("gfx950")
    _, _, full = SHAPES[name]
    want = full // 2 if ca >= 2 and cb >= 2 else full
    for n in (name, scaled(name)):
        ins = parse_line(f"{n} v[0:15], v[0:7], v[0:7], v[0:15], v1, v2 cbsz:{ca} blgp:{cb}"
                         if "scale" in n else f"{n} v[0:15], v[0:7], v[0:7], v[0:15] cbsz:{ca} blgp:{cb}")
        assert hazards.mfma_passes("gfx950", table[n], ins) == want


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_many_waves_at_once_equal_one_wave_at_a_time(name):
    """The batched path (isa.emu.group), chunked one wave at a time for 32x32x64 (65536 products
    per wave, above the chunk size), with per-wave and shared scale registers."""
    m, k, _ = SHAPES[name]
    rng = np.random.default_rng(9)
    waves = 3
    a = [pack(finite_codes(rng, (m, k), 1), 8) for _ in range(waves)]
    b = [pack(finite_codes(rng, (k, m), 4).T, 4) for _ in range(waves)]
    c = [pack_c(rng.standard_normal((m, m)).astype(np.float32)) for _ in range(waves)]
    sa = np.stack([scale_regs(rng, m, 120, 134) for _ in range(waves)])
    sb = scale_regs(rng, m, 120, 134)
    n = scaled(name)
    d = mfma(n, "gfx950", np.stack(a), np.stack(b), np.stack(c), cbsz=1, blgp=4, scale_a=sa,
             scale_b=sb, opsel_a=2, opsel_b=1)
    for w in range(waves):
        one = mfma(n, "gfx950", a[w], b[w], c[w], cbsz=1, blgp=4, scale_a=sa[w], scale_b=sb,
                   opsel_a=2, opsel_b=1)
        np.testing.assert_array_equal(d[w], one)


@pytest.mark.parametrize("name", sorted(SHAPES))
@pytest.mark.parametrize("ca,cb", [(0, 0), (4, 4), (1, 4)])
@pytest.mark.parametrize("sel_a", range(4))
@pytest.mark.parametrize("sel_b", range(4))
def test_every_scale_byte_select_against_numpy(name, ca, cb, sel_a, sel_b):
    """CDNA4 ISA 7.2.1: {OP_SEL_HI[i], OP_SEL[i]} = 00/01/10/11 takes Src[7:0]/[15:8]/[23:16]/
    [31:24] of every lane; each byte of each lane differs (and varies along K), so a wrong byte,
    lane or K-block changes D. Exact: values and scales keep every partial sum in 24 bits."""
    m, k, _ = SHAPES[name]
    rng = np.random.default_rng(1000 + 64 * sel_a + 16 * sel_b + 4 * ca + cb + m)
    a, b = rng.choice(SMALL, (m, k)), rng.choice(SMALL, (k, m))
    c = np.zeros((m, m), np.float32)
    sa_reg, sb_reg = scale_regs(rng, m, 125, 129), scale_regs(rng, m, 125, 129)
    d = run_case(name, ca, cb, encode(a, ca), encode(b, cb), c, sa_reg, sb_reg, (sel_a, sel_b))
    want = reference(decode(encode(a, ca), ca), decode(encode(b, cb), cb), c,
                     scale_matrix(sa_reg, sel_a, m, k), scale_matrix(sb_reg, sel_b, m, k))
    np.testing.assert_array_equal(d, want.astype(np.float32))


def test_fp8_lane_takes_k_in_runs_of_16_and_the_scale_of_its_k_block():
    """CDNA4 ISA 7.1.5.1 FP8 16x16x128: lane 16 VGPR 0 byte 0 is A[0, 16] (not A[0, 32], where a
    32-consecutive layout would put it) and VGPR 4 byte 0 is A[0, 80]; the scale of A[0, 16] is
    lane 0's (row 0, K-block 0, ISA 7.2.1), not lane 16's (row 0, K-block 1)."""
    name = scaled("v_mfma_f32_16x16x128_f8f6f4")
    b = np.zeros((128, 16))
    b[16], b[32], b[80] = 1.0, 2.0, 4.0          # column j: D[0, j] says which k A[0, .] hit
    rb = pack(encode(b, 0).T, 8)
    c = pack_c(np.zeros((16, 16), np.float32))
    ones = np.full(64, 127, np.uint32)
    one = int(encode(np.array([1.0]), 0)[0])
    for reg, want in ((0, 1.0), (4, 4.0)):
        ra = np.zeros((8, 64), np.uint32)
        ra[reg, 16] = one
        d = unpack_d(mfma(name, "gfx950", ra, rb, c, scale_a=ones, scale_b=ones), 16)
        assert (d[0] == want).all() and (d[1:] == 0).all()
    ra = np.zeros((8, 64), np.uint32)
    ra[0, 16] = one                              # A[0, 16] = 1 in K-block 0
    sa = ones.copy()
    sa[0], sa[16] = 129, 120                     # block 0 of row 0: 4; block 1: 2**-7
    d = unpack_d(mfma(name, "gfx950", ra, rb, c, scale_a=sa, scale_b=ones), 16)
    assert (d[0] == 4.0).all() and (d[1:] == 0).all()
