"""f32 -> fp8/bf8 converts (v_cvt_pk_fp8_f32, v_cvt_pk_bf8_f32) on both arches over edge values
against an independent encoder written here from the format definitions (bit fields, exact
rational rounding; not ml_dtypes, which the emulator uses): max finite, the ties around it,
overflow, +-Inf, NaN, fp8 denormals and their ties, f32 denormals, +-0 (FNUZ has no -0), ties at
1.0. Non-saturating RNE is the hardware behaviour (isa.emu.valu_cvt docstring: [MLIR], [RCCL],
[CK]); NaN results are exact codes with the source's sign (AMD HIP's OCP host reference). Also:
the destination word select, abs/neg on the sources, the refused clamp bit, MODE.FP16_OVFL
(finite overflow saturates to the largest finite value, Inf/NaN sources unchanged), and the sr forms' stochastic rounding in the normal
range and on the denormal grid below it."""
from __future__ import annotations

import math
import struct
from fractions import Fraction

import numpy as np
import pytest

from isa.emu.catalog import execute
from isa.emu.operand_io import AluModifierError
from isa.emu.state import Wave

F32, U32 = np.float32, np.uint32
FULL = (1 << 64) - 1

# format: exponent bits, mantissa bits, bias, fnuz (NaN = 0x80, no -0, no Inf), OCP E4M3 (no Inf,
# S.1111.111 = NaN), largest finite value
FORMATS = {
    ("gfx942", "fp8"): (4, 3, 8, True, False, 240.0),
    ("gfx942", "bf8"): (5, 2, 16, True, False, 57344.0),
    ("gfx950", "fp8"): (4, 3, 7, False, True, 448.0),
    ("gfx950", "bf8"): (5, 2, 15, False, False, 57344.0),
}


def encode(x: float, fmt) -> int:
    """The byte of f32 ``x`` rounded to nearest even, non-saturating. A NaN result is the
    format's one NaN code with the source's sign: FNUZ 0x80; OCP E4M3 S.1111.111; OCP E5M2
    S.11111.10 (AMD HIP ``amd_detail/amd_hip_ocp_host.hpp``, ``nan<E>(sign)``, its host
    implementation of the OCP fp8 types; Inf and overflow of E4M3 give ``nan(sign)`` there too)."""
    eb, mb, bias, fnuz, e4m3fn, big = fmt
    sign = 0x80 if math.copysign(1.0, x) < 0 else 0
    nan = 0x80 if fnuz else sign | (0x7F if e4m3fn else 0x7E)
    if math.isnan(x):
        return nan
    if math.isinf(x):
        if fnuz or e4m3fn:
            return nan
        return sign | 0x7C                             # OCP E5M2 +-Inf
    a = Fraction(abs(x))
    emin = 1 - bias
    if a < Fraction(2) ** emin:                         # subnormal grid, quantum 2^(emin - mb)
        n = _rne(a / Fraction(2) ** (emin - mb))
        code = n                                        # n == 2^mb is the smallest normal
    else:
        e = math.floor(math.log2(a))
        while Fraction(2) ** e > a:
            e -= 1
        while Fraction(2) ** (e + 1) <= a:
            e += 1
        n = _rne((a / Fraction(2) ** e - 1) * 2 ** mb)
        if n == 2 ** mb:
            e, n = e + 1, 0
        val = (1 + Fraction(n, 2 ** mb)) * Fraction(2) ** e
        if val > Fraction(big):
            return nan if (fnuz or e4m3fn) else sign | 0x7C
        code = ((e + bias) << mb) | n
    if code == 0:
        return 0 if fnuz else sign
    return code | sign


def _rne(q: Fraction) -> int:
    f = math.floor(q)
    r = q - f
    if r > Fraction(1, 2) or (r == Fraction(1, 2) and f % 2):
        return f + 1
    return f


def edge_values(fmt) -> list[float]:
    eb, mb, bias, fnuz, e4m3fn, big = fmt
    emin = 1 - bias
    top_e = math.floor(math.log2(big))
    ulp_top = 2.0 ** (top_e - mb)
    sub = 2.0 ** (emin - mb)                    # smallest denormal
    vals = [0.0, -0.0, big, -big, big + ulp_top / 2, -(big + ulp_top / 2),
            np.nextafter(F32(big + ulp_top / 2), F32(0)), np.nextafter(F32(big + ulp_top / 2), F32(1e9)),
            big + ulp_top, 2 * big, 1e30, -1e30, math.inf, -math.inf, math.nan, -math.nan,
            sub, -sub, sub / 2, -sub / 2, np.nextafter(F32(sub / 2), F32(1)), 1.5 * sub, 2.5 * sub,
            (2 ** mb - 1) * sub, (2 ** mb - 0.5) * sub, 2.0 ** emin, -(2.0 ** emin),
            1e-40, -1e-40, 1.0, -1.0, 1 + 2.0 ** -(mb + 1), 1 + 3 * 2.0 ** -(mb + 1),
            np.nextafter(F32(1 + 2.0 ** -(mb + 1)), F32(2)), 3.0, 0.1, -0.3, 100.0, 1000.0]
    return [float(F32(v)) for v in vals]


def _run(arch, kind, xs, ys, text):
    w = Wave(0)
    w.set_exec(FULL)
    w.vgpr[10] = np.asarray(xs, F32).view(U32)
    w.vgpr[11] = np.asarray(ys, F32).view(U32)
    w.vgpr[0] = 0xA5A5A5A5
    execute(w, text.format(kind=kind), arch=arch)
    return w.vgpr[0].copy()


def _lanes(vals, rng):
    """64-lane batches of (src0, src1) covering every edge value in both sources."""
    vals = list(vals)
    while len(vals) % 64:
        vals.append(float(F32(rng.standard_normal() * 50)))
    for i in range(0, len(vals), 64):
        xs = vals[i:i + 64]
        yield xs, list(rng.permutation(xs))


@pytest.mark.parametrize("arch,kind", list(FORMATS))
@pytest.mark.parametrize("word", [0, 1])
def test_pk_convert_matches_the_bit_field_encoder(arch, kind, word):
    fmt = FORMATS[(arch, kind)]
    rng = np.random.default_rng(7)
    vals = edge_values(fmt) + [float(F32(v)) for v in rng.standard_normal(90) * fmt[5] / 8]
    for xs, ys in _lanes(vals, rng):
        sel = " op_sel:[0,0,1]" if word else ""
        got = _run(arch, kind, xs, ys, "v_cvt_pk_{kind}_f32 v0, v10, v11" + sel)
        kept = (got >> (16 * (1 - word))) & 0xFFFF
        assert (kept == (0xA5A5A5A5 >> (16 * (1 - word))) & 0xFFFF).all(), "other word changed"
        for lane in range(64):
            pair = int(got[lane] >> (16 * word)) & 0xFFFF
            for b, x in ((pair & 0xFF, xs[lane]), (pair >> 8, ys[lane])):
                want = encode(x, fmt)
                assert b == want, f"{arch} {kind} {x!r}: got {b:#04x}, expected {want:#04x}"


def test_the_encoder_knows_the_documented_edges():
    """Spot values of the formats (CK's float8.hpp table, OCP FP8 spec) so the encoder itself is
    checked against something other than the emulator."""
    f942, b942, f950, b950 = (FORMATS[k] for k in FORMATS)
    assert encode(240.0, f942) == 0x7F and encode(247.9, f942) == 0x7F and encode(248.0, f942) == 0x80
    assert encode(-0.0, f942) == 0 and encode(2.0 ** -10, f942) == 0x01 and encode(2.0 ** -11, f942) == 0
    assert encode(448.0, f950) == 0x7E and encode(464.0, f950) == 0x7E and encode(465.0, f950) == 0x7F
    assert encode(-0.0, f950) == 0x80 and encode(2.0 ** -9, f950) == 0x01
    assert encode(57344.0, b950) == 0x7B and encode(61440.0, b950) == 0x7C and encode(-math.inf, b950) == 0xFC
    assert encode(57344.0, b942) == 0x7F and encode(math.inf, b942) == 0x80 and encode(1.0, b942) == 0x40
    assert encode(1.0, f950) == 0x38 and encode(1.0, f942) == 0x40 and encode(1.0625, f950) == 0x38
    # NaN codes keep the source's sign on OCP (S.1111.111, S.11111.10); FNUZ has one NaN
    assert (encode(-math.nan, f950), encode(math.nan, b950), encode(-math.nan, b950)) == (0xFF, 0x7E, 0xFE)
    assert (encode(-math.inf, f950), encode(-1e30, f950), encode(-math.nan, b942)) == (0xFF, 0xFF, 0x80)


@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
def test_abs_and_neg_apply_to_the_sources(arch):
    fmt = FORMATS[(arch, "fp8")]
    xs = [float(F32(v)) for v in np.linspace(-300, 300, 64)]
    got = _run(arch, "fp8", xs, xs, "v_cvt_pk_{kind}_f32 v0, -v10, |v11|")
    for lane, x in enumerate(xs):
        for b, v in ((int(got[lane]) & 0xFF, -x), ((int(got[lane]) >> 8) & 0xFF, abs(x))):
            want = encode(v, fmt)
            assert b == want, (v, hex(b), hex(want))


@pytest.mark.parametrize("op", ["v_cvt_pk_fp8_f32 v0, v10, v11 clamp",
                                "v_cvt_pk_bf8_f32 v0, v10, v11 clamp",
                                "v_cvt_sr_fp8_f32 v0, v10, v11 clamp"])
def test_clamp_is_refused(op):
    w = Wave(0)
    with pytest.raises(AluModifierError, match="clamp"):
        execute(w, op, arch="gfx950")


FP16_OVFL_MODE = 0x2F0 | 1 << 23      # default MODE with FP16_OVFL (bit 23) set


def saturated(x: float, code: int, fmt) -> int:
    """``code`` (the non-saturating byte of ``x``) under MODE.FP16_OVFL: a finite source whose
    encoding overflowed (NaN, or Inf in OCP E5M2) gives the largest finite code with x's sign; Inf
    and NaN sources keep their code (isa.emu.valu_cvt docstring [MODE])."""
    fnuz, e4m3fn = fmt[3], fmt[4]
    if not math.isfinite(x):
        return code
    nan = 0x80 if fnuz else (code & 0x80) | (0x7F if e4m3fn else 0x7E)
    if code != nan and (fnuz or e4m3fn or code & 0x7F != 0x7C):
        return code
    top = 0x7F if fnuz else (0x7E if e4m3fn else 0x7B)      # 240 / 57344 / 448 / 57344
    return top | (0x80 if x < 0 else 0)


@pytest.mark.parametrize("arch,kind", list(FORMATS))
def test_fp16_ovfl_saturates_the_pk_convert(arch, kind):
    fmt = FORMATS[(arch, kind)]
    big = fmt[5]
    edge = [big, -big, float(F32(big * 1.01)), -float(F32(big * 1.01)), float(F32(big * 1.2)),
            1e30, -1e30, 3.0e38, math.inf, -math.inf, math.nan, 1.0, -0.5, 0.0]
    xs = (edge * 5)[:64]
    ys = list(reversed(xs))
    w = Wave(0)
    w.set_exec(FULL)
    w.fp_mode = FP16_OVFL_MODE
    w.vgpr[10] = np.asarray(xs, F32).view(U32)
    w.vgpr[11] = np.asarray(ys, F32).view(U32)
    execute(w, f"v_cvt_pk_{kind}_f32 v0, v10, v11", arch=arch)
    got = w.vgpr[0]
    for lane in range(64):
        for b, x in ((int(got[lane]) & 0xFF, xs[lane]), ((int(got[lane]) >> 8) & 0xFF, ys[lane])):
            want = saturated(x, encode(x, fmt), fmt)
            assert b == want, f"{arch} {kind} {x!r}: {b:#04x} != {want:#04x}"
    # without the bit the same overflow is NaN (or Inf for OCP E5M2)
    plain = _run(arch, kind, xs, ys, "v_cvt_pk_{kind}_f32 v0, v10, v11")
    assert (int(plain[4]) & 0xFF) == encode(xs[4], fmt) != saturated(xs[4], encode(xs[4], fmt), fmt)


@pytest.mark.parametrize("arch,kind", list(FORMATS))
def test_fp16_ovfl_saturates_the_sr_convert(arch, kind):
    fmt = FORMATS[(arch, kind)]
    big = fmt[5]
    rng = np.random.default_rng(5)
    xs = ([big, -big, float(F32(big * 1.01)), -float(F32(big * 1.05)), 1e30, -3e38, math.inf,
           -math.inf, math.nan, 1.25] * 7)[:64]
    seeds = [int(s) for s in rng.integers(0, 1 << 32, 64, dtype=np.uint64)]
    seeds[0] = seeds[1] = 0xFFFFFFFF                       # max finite + full noise: would overflow
    w = Wave(0)
    w.set_exec(FULL)
    w.fp_mode = FP16_OVFL_MODE
    w.vgpr[10] = np.asarray(xs, F32).view(U32)
    w.vgpr[11] = np.asarray(seeds, np.uint64).astype(U32)
    execute(w, f"v_cvt_sr_{kind}_f32 v0, v10, v11", arch=arch)
    got = w.vgpr[0]
    for lane in range(64):
        want = saturated(xs[lane], sr_reference(xs[lane], seeds[lane], fmt), fmt)
        assert int(got[lane]) & 0xFF == want, (arch, kind, xs[lane], hex(seeds[lane]))


def sr_reference(x: float, seed: int, fmt) -> int:
    """Stochastic rounding per the CDNA3 ISA guide (chapter 12.11, via rocjitsu's audit): the top
    (23 - mantissa bits) bits of the seed added to the f32 bit pattern, the dropped bits cleared
    (truncation), then the plain encoding (exact on the grid, or past the range)."""
    eb, mb, *_ = fmt
    drop = 23 - mb
    b = struct.unpack("<I", struct.pack("<f", x))[0]
    if math.isfinite(x):
        b = ((b + (seed >> (32 - drop))) & 0xFFFFFFFF) & ~((1 << drop) - 1)
    return encode(struct.unpack("<f", struct.pack("<I", b))[0], fmt)


@pytest.mark.parametrize("arch,kind", list(FORMATS))
@pytest.mark.parametrize("byte", [0, 3])
def test_sr_convert_adds_the_top_seed_bits_and_truncates(arch, kind, byte):
    fmt = FORMATS[(arch, kind)]
    big, tiny = fmt[5], 2.0 ** (1 - fmt[2])
    rng = np.random.default_rng(11)
    mags = np.exp(rng.uniform(np.log(tiny), np.log(big * 1.2), 40))
    xs = [float(F32(v)) for v in np.concatenate([mags, -mags[:12]])] + [
        0.0, -0.0, big, -big, 1.0, 1.0 + 2.0 ** -(fmt[1] + 2), math.inf, -math.inf, math.nan,
        float(F32(big * 1.01)), tiny, -tiny]
    xs = (xs + [1.5] * 64)[:64]
    seeds = [int(s) for s in rng.integers(0, 1 << 32, 64, dtype=np.uint64)]
    seeds[:4] = [0, 0xFFFFFFFF, 1 << (31), (1 << (32 - (23 - fmt[1]))) - 1]   # low bits alone: no effect
    w = Wave(0)
    w.set_exec(FULL)
    w.vgpr[10] = np.asarray(xs, F32).view(U32)
    w.vgpr[11] = np.asarray(seeds, np.uint64).astype(U32)
    w.vgpr[0] = 0xA5A5A5A5
    sel = {0: "", 3: " op_sel:[0,0,1,1]"}[byte]
    execute(w, f"v_cvt_sr_{kind}_f32 v0, v10, v11" + sel, arch=arch)
    got = w.vgpr[0]
    mask = 0xFF << (8 * byte)
    assert ((got & ~U32(mask)) == (0xA5A5A5A5 & ~mask)).all(), "other bytes changed"
    for lane in range(64):
        b = (int(got[lane]) >> (8 * byte)) & 0xFF
        want = sr_reference(xs[lane], seeds[lane], fmt)
        assert b == want, f"{arch} {kind} x={xs[lane]!r} seed={seeds[lane]:#x}: {b:#04x} != {want:#04x}"


def sr_denormal_reference(x: float, seed: int, fmt) -> int:
    """Stochastic rounding of a result below the fp8 normal range (isa.emu.valu_cvt comment: AMD
    HIP's amd_hip_ocp_host.hpp ``from_float_sr`` and rocjitsu), in exact rationals: |x| truncated
    onto the grid 2^(23 - m) times finer than the fp8 denormal quantum q (the f32 significand
    shifted onto q's scale), the seed's top 23 - m bits added in units of that fine grid, the sum
    truncated to whole quanta; 2^m quanta is the smallest normal (the same code)."""
    _, mb, bias, fnuz, *_ = fmt
    q = Fraction(2) ** (1 - bias - mb)
    fine = q / 2 ** (23 - mb)
    a = Fraction(abs(x))
    if a < Fraction(2) ** -126:                    # f32 denormal: below the 24-bit window
        a = Fraction(0)
    n = (math.floor(a / fine) + (seed >> (9 + mb))) // 2 ** (23 - mb)
    sign = 0x80 if math.copysign(1.0, x) < 0 else 0
    return (0 if fnuz else sign) if n == 0 else n | sign


@pytest.mark.parametrize("arch,kind", list(FORMATS))
def test_sr_rounds_on_the_denormal_grid(arch, kind):
    """Results below the fp8 normal range: the noise lands just below the denormal grid's kept
    bits (isa.emu.valu_cvt), so each value goes to one of its two neighbouring quanta, the upper
    one for seeds at or above the fraction it lies past the lower; a carry makes the smallest
    normal. Checked against the exact-rational reference over edge values and random seeds."""
    fmt = FORMATS[(arch, kind)]
    _, mb, bias, _, *_ = fmt
    tiny, q = 2.0 ** (1 - bias), 2.0 ** (1 - bias - mb)
    rng = np.random.default_rng(5)
    mags = np.exp(rng.uniform(np.log(q / 8), np.log(tiny), 40))
    xs = [float(F32(v)) for v in np.concatenate([mags, -mags[:10]])] + [
        q, -q, q / 2, -q / 2, 1.5 * q, float(np.nextafter(F32(tiny), F32(0))),
        float(-np.nextafter(F32(tiny), F32(0))), (2 ** mb - 1) * q, 1e-40, -1e-40,
        float(np.nextafter(F32(q), F32(0))), q / 2 ** 30, 0.75 * q]
    xs = (xs + [0.6 * q] * 64)[:64]
    seeds = [int(s) for s in rng.integers(0, 1 << 32, 64, dtype=np.uint64)]
    seeds[:6] = [0, 0xFFFFFFFF, 1 << 31, (1 << (9 + mb)) - 1, 1 << (9 + mb), 0xC0000000]
    w = Wave(0)
    w.set_exec(FULL)
    w.vgpr[10] = np.asarray(xs, F32).view(U32)
    w.vgpr[11] = np.asarray(seeds, np.uint64).astype(U32)
    w.vgpr[0] = 0
    execute(w, f"v_cvt_sr_{kind}_f32 v0, v10, v11", arch=arch)
    for lane in range(64):
        b = int(w.vgpr[0][lane]) & 0xFF
        want = sr_denormal_reference(xs[lane], seeds[lane], fmt)
        assert b == want, f"{arch} {kind} x={xs[lane]!r} seed={seeds[lane]:#x}: {b:#04x} != {want:#04x}"
    # the two neighbours of 1.5 q: the seed's top bit decides (half of the gap)
    lo, hi = (sr_denormal_reference(1.5 * q, s, fmt) for s in (0x7FFFFFFF, 0x80000000))
    assert (lo & 0x7F, hi & 0x7F) == (1, 2)


@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
def test_sr_denormal_result_runs_in_a_program(arch):
    """The refusal is gone: a kernel's v_cvt_sr_fp8_f32 of a denormal-range value runs."""
    from core_util import run
    q = 2.0 ** (1 - FORMATS[(arch, "fp8")][2] - 3)
    x = struct.unpack("<I", struct.pack("<f", 1.5 * q))[0]
    m = run("v_cvt_sr_fp8_f32 v1, v2, v3\ns_endpgm", arch=arch,
            vgprs={2: [x] * 64, 3: [0] * 32 + [0xFFFFFFFF] * 32})
    got = np.asarray(m.waves[0].vgpr[1]) & 0xFF
    assert (got[:32] == 1).all() and (got[32:] == 2).all()
