"""isa.emu.valu_misc: hand-computed results of the gfx9 f16 mad family, v_pk_fmac_f16,
v_div_fixup_legacy_f16, the byte media ops, the cube-map ops, v_clrexcp and gfx950's v_bitop3_b16 and
v_pk_maximum3/minimum3_f16, run through Emulator.run_program; EXEC-masked lanes keep their values; the
refused instructions raise UnknownInstructionError when executed; llvm-mc-22 accepts every form."""
from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest
from core_util import run

import isa.emu.valu_misc  # noqa: F401  (registers the binders)
from isa.emu.errors import UnknownInstructionError

EXEC = 0x0000_FFFF_0000_00FF          # lanes 0..7 and 32..47 active
ACT = np.array([(EXEC >> i) & 1 for i in range(64)], bool)
OLD = 0xDEADBEEF


def go(text: str, vgprs: dict, arch: str = "gfx942", dst=0, n=1):
    regs = {0: OLD, **vgprs}
    w = run(text + "\ns_endpgm", vgprs=regs, exec_mask=EXEC, arch=arch).waves[0]
    for k in range(n):
        old = regs.get(dst + k, OLD)
        assert np.all(w.vgpr[dst + k][~ACT] == np.uint32(old & 0xFFFFFFFF)), "masked lane written"
    return [int(w.vgpr[dst + k][0]) for k in range(n)] if n > 1 else int(w.vgpr[dst][0])


def test_madak_madmk_mac_f16_zero_high_half():
    # 2*3 + 10 = 16 (0x4C00); CDNA4 guide: D0 = { 16'0, tmp.f16 }
    assert go("v_madak_f16 v0, v1, v2, 0x4900", {0: 0x12345678, 1: 0xABCD4000, 2: 0x4200}) == 0x4C00
    # 2*10 + 3 = 23 (0x4DC0)
    assert go("v_madmk_f16 v0, v1, 0x4900, v2", {0: 0x12345678, 1: 0x4000, 2: 0x4200}) == 0x4DC0
    # 2*3 + 1 = 7 (0x4700), accumulating vdst.lo
    assert go("v_mac_f16 v0, v1, v2", {0: 0xBEEF3C00, 1: 0x4000, 2: 0x4200}) == 0x4700
    assert go("v_mac_f16_e64 v0, -v1, v2", {0: 0xBEEF3C00, 1: 0x4000, 2: 0x4200}) == 0xC500       # -5
    assert go("v_mac_f16_e64 v0, v1, v2 clamp", {0: 0xBEEF3C00, 1: 0x4000, 2: 0x4200}) == 0x3C00
    # inf * 0 + x = NaN
    r = go("v_mac_f16 v0, v1, v2", {0: 0x3C00, 1: 0x7C00, 2: 0x0000})
    assert (r & 0x7C00) == 0x7C00 and (r & 0x3FF) != 0 and r >> 16 == 0


def test_mad_legacy_16_zero_high_half():
    # CDNA4 guide: "hi 16 bits are written as 0 (this is different from V_MAD_F16)"
    assert go("v_mad_legacy_f16 v0, v1, v2, v3", {0: 0x12340000, 1: 0x4000, 2: 0xC200, 3: 0x3800}) \
        == 0xC580                                                         # 2*-3 + 0.5 = -5.5
    assert go("v_mad_legacy_u16 v0, v1, v2, v3", {0: 0xFFFF0000, 1: 300, 2: 300, 3: 5}) == 90005 & 0xFFFF
    assert go("v_mad_legacy_u16 v0, v1, v2, v3 clamp", {0: 0, 1: 300, 2: 300, 3: 5}) == 0xFFFF
    assert go("v_mad_legacy_i16 v0, v1, v2, v3", {0: 0xFFFF0000, 1: 0xFFFD, 2: 7, 3: 1}) == 0xFFEC  # -20
    assert go("v_mad_legacy_i16 v0, v1, v2, v3 clamp", {0: 0, 1: 200, 2: 200, 3: 0}) == 0x7FFF
    assert go("v_mad_legacy_i16 v0, v1, v2, v3 clamp", {0: 0, 1: 0xFF38, 2: 200, 3: 0}) == 0x8000


def test_pk_fmac_f16():
    # lo: 2*-2 + 1 = -3 (0xC200); hi: 3*0.5 + 2 = 3.5 (0x4300)
    assert go("v_pk_fmac_f16 v0, v1, v2", {0: 0x40003C00, 1: 0x42004000, 2: 0x3800C000}) == 0x4300C200
    # fused: (1 + 2^-10)^2 - 1 = 2^-9 + 2^-20 rounds to 0x1800 either way; (1+2^-10)(1-2^-10) - 1 = -2^-20
    assert go("v_pk_fmac_f16 v0, v1, v2", {0: 0xBC00BC00, 1: 0x3C013C01, 2: 0x3BFE3BFE}) & 0xFFFF == 0x8010


@pytest.mark.parametrize("q,den,num,want", [
    (0x4000, 0xBC00, 0x4000, 0xC000),     # sign(den) ^ sign(num) applied to |q|
    (0xC000, 0x3C00, 0x3C00, 0x4000),
    (0x4000, 0x0000, 0x3C00, 0x7C00),     # x/0 = +inf
    (0x4000, 0x8000, 0x3C00, 0xFC00),     # x/-0 = -inf
    (0x4000, 0x3C00, 0xFC00, 0xFC00),     # -inf/y = -inf
    (0x4000, 0x7C00, 0xBC00, 0x8000),     # x/inf = -0 here
    (0x4000, 0x3C00, 0x0000, 0x0000),     # 0/y = 0
    (0x4000, 0x0000, 0x8000, 0xFE00),     # 0/0 = 0xfe00
    (0x4000, 0x7C00, 0xFC00, 0xFE00),     # inf/inf = 0xfe00
    (0x4000, 0x7D00, 0x3C00, 0x7F00),     # NaN denominator, quieted
    (0x4000, 0x7D00, 0xFC01, 0xFE01),     # NaN numerator wins, quieted
    (0x7E00, 0x3C00, 0x3C00, 0x7E00),     # NaN quotient passes (no overflow rule in the legacy op)
])
def test_div_fixup_legacy_f16(q, den, num, want):
    assert go("v_div_fixup_legacy_f16 v0, v1, v2, v3", {0: 0x55550000, 1: q, 2: den, 3: num}) == want


def test_lerp_msad():
    assert go("v_lerp_u8 v0, v1, v2, v3", {1: 0x01FF0203, 2: 0x02FF0204, 3: 0x01000100}) == 0x02FF0203
    # bytes |0x40-0x10| + |0x30-0x40| + |0x20-0x25| (+ byte 3 masked: reference 0) + 100
    assert go("v_msad_u8 v0, v1, v2, v3", {1: 0x10203040, 2: 0x00254010, 3: 100}) == 169
    assert go("v_msad_u8 v0, v1, v2, v3", {1: 0xFFFFFFFF, 2: 0x01010101, 3: 0xFFFFFFFF}) == 4 * 254 - 1


def test_qsad_mqsad():
    s0 = 0x0807060504030201
    s2 = 10 | (20 << 16) | (30 << 32) | (0xFFFF << 48)
    base = {2: s0 & 0xFFFFFFFF, 3: s0 >> 32, 6: s2 & 0xFFFFFFFF, 7: s2 >> 32}
    r = go("v_qsad_pk_u16_u8 v[0:1], v[2:3], v4, v[6:7]", {**base, 1: OLD, 4: 0x01010101}, n=2)
    want = 16 | (30 << 16) | (44 << 32) | (17 << 48)
    assert r == [want & 0xFFFFFFFF, want >> 32]
    r = go("v_mqsad_pk_u16_u8 v[0:1], v[2:3], v4, v[6:7]", {**base, 1: OLD, 4: 0x01000101}, n=2)
    want = 14 | (27 << 16) | (40 << 32) | (12 << 48)
    assert r == [want & 0xFFFFFFFF, want >> 32]
    r = go("v_mqsad_u32_u8 v[0:3], v[4:5], v6, v[8:11]",
           {1: OLD, 2: OLD, 3: OLD, 4: s0 & 0xFFFFFFFF, 5: s0 >> 32, 6: 0x01000101,
            8: 10, 9: 20, 10: 30, 11: 0xFFFFFFFF}, n=4)
    assert r == [14, 27, 40, 12]


def _f(x):
    return int(np.float32(x).view(np.uint32))


@pytest.mark.parametrize("xyz,want", [
    ((1.0, 2.0, -3.0), (5.0, -1.0, -2.0, -6.0)),      # z major, z < 0
    ((-4.0, 2.0, 1.0), (1.0, 1.0, -2.0, -8.0)),       # x major, x < 0
    ((1.0, -5.0, 2.0), (3.0, 1.0, -2.0, -10.0)),      # y major, y < 0
    ((3.0, 3.0, 3.0), (4.0, 3.0, -3.0, 6.0)),         # ties go to z
    ((-2.0, 2.0, 1.0), (2.0, -2.0, 1.0, 4.0)),        # |y| == |x|: y major, y > 0
])
def test_cube(xyz, want):
    regs = {1: _f(xyz[0]), 2: _f(xyz[1]), 3: _f(xyz[2])}
    for op, exp in zip(("v_cubeid_f32", "v_cubesc_f32", "v_cubetc_f32", "v_cubema_f32"), want):
        assert go(f"{op} v0, v1, v2, v3", regs) == _f(exp), op


# 2/pi = 0.a2f9836e 4e441529 fc2757d1 f534ddc0 ... (hex fraction digits of the constant)
T128 = 0xA2F9836E4E441529FC2757D1F534DDC0
M53 = (1 << 53) - 1


def _preop(x_bits: int, seg: int):
    regs = {1: OLD, 2: x_bits & 0xFFFFFFFF, 3: x_bits >> 32, 4: seg}
    lo, hi = go("v_trig_preop_f64 v[0:1], v[2:3], v4", regs, n=2)
    return lo | (hi << 32)


def _f64(v: float) -> int:
    return int(np.float64(v).view(np.uint64))


def test_trig_preop_f64():
    one = _f64(1.0)
    # segment 0: the first 53 bits of 2/pi (truncated, not rounded) times 2^-53
    assert _preop(one, 0) == _f64(float((T128 >> 75) & M53) * 2.0 ** -53)
    # segment 1: bits 53..105, times 2^-106
    assert _preop(one, 1) == _f64(float((T128 >> 22) & M53) * 2.0 ** -106)
    # exponent 1123 > 1077 moves the window by 46 bits
    assert _preop(_f64(2.0 ** 100), 0) == _f64(float((T128 >> 29) & M53) * 2.0 ** -99)
    assert _preop(_f64(-1.0), 0) == _preop(one, 0)                       # only the exponent matters
    assert _preop(one, 31) == 0                                          # segment past the table: +0
    assert _preop(one, 32) == _preop(one, 0)                             # S1[4:0] only
    assert _preop(0x7FF0000000000001, 0) == 0x7FF8000000000001           # NaN quieted


def test_clrexcp_changes_nothing():
    assert go("v_clrexcp", {0: 0x1234}) == 0x1234


def test_gfx950_bitop3_b16():
    regs = {0: 0xABCD0000, 1: 0x111100F0, 2: 0x22220F0F, 3: 0x3333FF00}
    assert go("v_bitop3_b16 v0, v1, v2, v3 bitop3:0x96", regs, arch="gfx950") == 0xF0FF       # xor3
    assert go("v_bitop3_b16 v0, v1, v2, v3 bitop3:0xf0 op_sel:[1,0,0,0]", regs, arch="gfx950") == 0x1111
    assert go("v_bitop3_b16 v0, v1, v2, v3 bitop3:0xc op_sel:[0,1,0,1]", regs, arch="gfx950") \
        == 0x22020000   # table 0x0c = ~S0 & S1 = ~0x00f0 & 0x2222, into the high half; low half kept


def test_gfx950_prng_b32():
    # CDNA4 guide: D = (S0 << 1) ^ (S0[31] ? 197 : 0)
    assert go("v_prng_b32 v0, v1", {1: 0x12345678}, arch="gfx950") == 0x2468ACF0
    assert go("v_prng_b32 v0, v1", {1: 0x80000001}, arch="gfx950") == 0x00000002 ^ 197
    assert go("v_prng_b32 v0, v1", {1: 0xFFFFFFFF}, arch="gfx950") == 0xFFFFFFFE ^ 197
    assert go("v_prng_b32 v0, v1", {1: 0}, arch="gfx950") == 0


def test_gfx950_pk_maximum3_minimum3_f16():
    regs = {1: 0x7E008000, 2: 0x3C000000, 3: 0x4000BC00}
    assert go("v_pk_maximum3_f16 v0, v1, v2, v3", regs, arch="gfx950") == 0x7E000000     # NaN, +0
    assert go("v_pk_minimum3_f16 v0, v1, v2, v3", regs, arch="gfx950") == 0x7E00BC00     # NaN, -1
    regs = {1: 0x40008000, 2: 0x3C000000, 3: 0x4200BC00}
    assert go("v_pk_maximum3_f16 v0, v1, v2, v3", regs, arch="gfx950") == 0x42000000     # 3, +0
    assert go("v_pk_minimum3_f16 v0, v1, v2, v3", regs, arch="gfx950") == 0x3C00BC00     # 1, -1


REFUSED = [("gfx942", "v_exp_legacy_f32 v0, v1"), ("gfx942", "v_log_legacy_f32 v0, v1"),
           ("gfx942", "v_cvt_pk_u8_f32 v0, v1, v2, v3"), ("gfx942", "v_cvt_norm_i16_f16 v0, v1"),
           ("gfx942", "v_cvt_pknorm_u16_f16 v0, v1, v2"), ("gfx942", "v_cvt_pkaccum_u8_f32 v0, v1, v2"),
           ("gfx950", "v_cvt_sr_bf16_f32 v0, v1, v2"), ("gfx950", "v_cvt_sr_f16_f32 v0, v1, v2"),
           ("gfx950", "v_ashr_pk_i8_i32 v0, v1, v2, v3")]


@pytest.mark.parametrize("arch,text", REFUSED)
def test_refused_raise_when_executed(arch, text):
    with pytest.raises(UnknownInstructionError, match="refused"):
        run(text + "\ns_endpgm", arch=arch)


ASM = {
    "gfx942": """v_madak_f16 v0, v1, v2, 0x4900
v_madmk_f16 v0, v1, 0x4900, v2
v_mac_f16 v0, v1, v2
v_mac_f16_e64 v0, -v1, v2 clamp
v_mad_legacy_f16 v0, v1, v2, v3
v_mad_legacy_u16 v0, v1, v2, v3 clamp
v_mad_legacy_i16 v0, v1, v2, v3 clamp
v_pk_fmac_f16 v0, v1, v2
v_div_fixup_legacy_f16 v0, v1, v2, v3
v_lerp_u8 v0, v1, v2, v3
v_msad_u8 v0, v1, v2, v3
v_qsad_pk_u16_u8 v[0:1], v[2:3], v4, v[6:7]
v_mqsad_pk_u16_u8 v[0:1], v[2:3], v4, v[6:7]
v_mqsad_u32_u8 v[0:3], v[4:5], v6, v[8:11]
v_cubeid_f32 v0, v1, v2, v3
v_cubesc_f32 v0, v1, v2, v3
v_cubetc_f32 v0, v1, v2, v3
v_cubema_f32 v0, v1, v2, v3
v_clrexcp
v_trig_preop_f64 v[0:1], v[2:3], v4
""",
    "gfx950": """v_bitop3_b16 v0, v1, v2, v3 bitop3:0x96
v_bitop3_b16 v0, v1, v2, v3 bitop3:0xf0 op_sel:[1,0,0,0]
v_bitop3_b16 v0, v1, v2, v3 bitop3:0xc op_sel:[0,1,0,1]
v_pk_maximum3_f16 v0, v1, v2, v3
v_pk_minimum3_f16 v0, v1, v2, v3
v_prng_b32 v0, v1
""",
}


@pytest.mark.skipif(shutil.which("llvm-mc-22") is None, reason="llvm-mc-22 not installed")
@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
def test_llvm_mc_accepts_the_forms(arch):
    text = ASM["gfx942"] + (ASM["gfx950"] if arch == "gfx950" else "")
    p = subprocess.run(["llvm-mc-22", "-triple=amdgcn-amd-amdhsa", f"-mcpu={arch}", "-show-encoding"],
                       input=text, capture_output=True, text=True, check=False)
    assert p.returncode == 0 and "error" not in p.stderr, p.stderr


def test_fma_legacy_f16_zeroes_high_half_fma_f16_keeps_it():
    """The GFX8-encoded twin writes the high half as 0; the gfx9 op_sel form keeps it."""
    regs = {0: 0x12340000, 1: 0x4000, 2: 0xC200, 3: 0x3800}          # 2 * -3 + 0.5 = -5.5
    assert go("v_fma_legacy_f16 v0, v1, v2, v3", regs) == 0xC580
    assert go("v_fma_f16 v0, v1, v2, v3", regs) == 0x1234C580
