"""gfx950 v_cvt_scalef32_* (isa/emu/valu_scale_cvt.py): scale by the exponent of the f32 scale operand,
RNE into OCP fp8/bf8/fp4, widening back, op_sel slot selection, exec masking, and the refusals."""
from __future__ import annotations

import shutil
import subprocess

import ml_dtypes
import numpy as np
import pytest
from core_util import run

from isa.emu.errors import EmulatorError, UnknownInstructionError
from isa.emu.valu_scale_cvt import IMPLEMENTED, REFUSED, ScaleCvtUnmodelledError

F32, U32 = np.float32, np.uint32
E4M3, E5M2, E2M1 = ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2, ml_dtypes.float4_e2m1fn
LLVM_MC = shutil.which("llvm-mc-22")
HALF_EXEC = 0x00000000FFFFFFFF


def f(x) -> int:
    return int(np.float32(x).view(U32))


def h(x) -> int:
    return int(np.float16(x).view(np.uint16))


def bf(x) -> int:
    return int(np.float32(x).astype(ml_dtypes.bfloat16).view(np.uint16))


def go(text: str, exec_mask: int = (1 << 64) - 1, **vg):
    m = run(text + "\ns_endpgm", arch="gfx950", exec_mask=exec_mask,
            vgprs={int(k[1:]): (v if isinstance(v, list) else [v] * 64) for k, v in vg.items()})
    return m.waves[0]


def code8(x, dt) -> int:
    return int(np.asarray(x, F32).astype(dt).view(np.uint8))


FORMS = [
    "v_cvt_scalef32_pk_fp8_f32 v1, v2, v3, v4",
    "v_cvt_scalef32_pk_bf8_f32 v1, v2, v3, v4 op_sel:[0,0,0,1]",
    "v_cvt_scalef32_pk_fp8_f16 v1, v2, v4 op_sel:[0,0,1]",
    "v_cvt_scalef32_pk_bf8_bf16 v1, v2, v4",
    "v_cvt_scalef32_pk_fp4_f32 v1, v2, v3, v4 op_sel:[0,0,1,1]",
    "v_cvt_scalef32_pk_fp4_f16 v1, v2, v4 op_sel:[0,0,0,1]",
    "v_cvt_scalef32_pk_fp4_bf16 v1, v2, v4",
    "v_cvt_scalef32_pk_f32_fp8 v[6:7], v2, v4 op_sel:[1,0,0]",
    "v_cvt_scalef32_pk_f16_bf8 v1, v2, v4",
    "v_cvt_scalef32_pk_bf16_fp8 v1, v2, v4",
    "v_cvt_scalef32_pk_f32_fp4 v[6:7], v2, v4 op_sel:[1,1,0]",
    "v_cvt_scalef32_pk_f16_fp4 v1, v2, v4 op_sel:[0,1,0]",
    "v_cvt_scalef32_pk_bf16_fp4 v1, v2, v4",
    "v_cvt_scalef32_f32_fp8 v1, v2, v4 op_sel:[1,1,0]",
    "v_cvt_scalef32_f32_bf8 v1, v2, v4",
    "v_cvt_scalef32_f16_fp8 v1, v2, v4 op_sel:[1,0,1]",
    "v_cvt_scalef32_f16_bf8 v1, v2, v4",
    "v_cvt_scalef32_pk32_fp6_f16 v[0:5], v[8:23], v30",
    "v_cvt_scalef32_pk32_bf6_bf16 v[0:5], v[8:23], v30",
    "v_cvt_scalef32_pk32_f32_fp6 v[0:31], v[32:37], v40",
    "v_cvt_scalef32_pk32_f16_bf6 v[0:15], v[32:37], v40",
    "v_cvt_scalef32_pk32_bf16_fp6 v[0:15], v[32:37], v40",
]


@pytest.mark.skipif(LLVM_MC is None, reason="llvm-mc-22 not installed")
def test_forms_assemble_for_gfx950():
    out = subprocess.run([LLVM_MC, "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx950", "-show-encoding"],
                         input="\n".join(FORMS) + "\n", capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("encoding:") == len(FORMS)


def test_registry_counts():
    assert len(IMPLEMENTED) == 32 and len(set(IMPLEMENTED)) == 32
    assert len(REFUSED) == 18
    assert not set(IMPLEMENTED) & set(REFUSED)


def test_pk_fp8_f32_divides_by_scale_and_keeps_other_word():
    # 1.0 / 2 = 0.5 -> 0x30, -3.0 / 2 = -1.5 -> 0xBC; low word written, high word kept
    w = go("v_cvt_scalef32_pk_fp8_f32 v1, v2, v3, v4", v1=0xAABBCCDD, v2=f(1.0), v3=f(-3.0), v4=f(2.0))
    assert int(w.vgpr[1][0]) == 0xAABBBC30
    # op_sel[3]: high word; the scale's mantissa and sign are ignored (3.0 and -2.0 act as 2**1)
    w = go("v_cvt_scalef32_pk_fp8_f32 v1, v2, v3, v4 op_sel:[0,0,0,1]", v1=0x1234, v2=f(1.0),
           v3=f(-3.0), v4=f(-3.0))
    assert int(w.vgpr[1][0]) == 0xBC301234


def test_pk_fp8_f32_rne_subnormal_zero_and_exec():
    xs = [3 * 2.0 ** -11, 2.0 ** -11, -0.0, 1.0625, 1.1875, 448.0 * 4, 2.0 ** -10 * 3, 100.0]
    a = [f(xs[i % 8]) for i in range(64)]
    b = [f(-xs[(i + 3) % 8]) for i in range(64)]
    w = go("v_cvt_scalef32_pk_fp8_f32 v1, v2, v3, v4", exec_mask=HALF_EXEC, v1=0xFFFFFFFF, v2=a, v3=b,
           v4=f(4.0))
    for lane in range(32):
        x, y = xs[lane % 8] / 4, -xs[(lane + 3) % 8] / 4
        want = code8(x, E4M3) | code8(y, E4M3) << 8
        assert int(w.vgpr[1][lane]) == 0xFFFF0000 | want, lane
    assert int(w.vgpr[1][0]) & 0xFF == 0x00          # 3*2^-13: below half the min subnormal 2^-9 -> +0
    assert int(w.vgpr[1][2]) & 0xFF == 0x80          # -0 keeps its sign
    assert int(w.vgpr[1][3]) & 0xFF == 0x28          # 1.0625/4 = 0.265625: tie -> even 0.25
    assert int(w.vgpr[1][4]) & 0xFF == 0x2A          # 1.1875/4: tie between mant 1 and 2 -> even 2
    assert np.all(w.vgpr[1][32:] == 0xFFFFFFFF)      # lanes off in EXEC untouched


def test_pk_bf8_from_f16_and_bf16_halves():
    w = go("v_cvt_scalef32_pk_bf8_f16 v1, v2, v4 op_sel:[0,0,1]", v1=0x0000BEEF,
           v2=h(-6.0) << 16 | h(0.75), v4=f(0.5))            # /0.5: 1.5 and -12.0
    assert int(w.vgpr[1][0]) == (code8(-12.0, E5M2) << 8 | code8(1.5, E5M2)) << 16 | 0xBEEF
    w = go("v_cvt_scalef32_pk_fp8_bf16 v1, v2, v4", v1=0, v2=bf(40.0) << 16 | bf(-0.3125), v4=f(8.0))
    assert int(w.vgpr[1][0]) == code8(5.0, E4M3) << 8 | code8(-0.3125 / 8, E4M3)


def test_pk_fp4_byte_select_saturation_and_ties():
    # 7.0 ties between 6 and 8 -> 8 overflows E2M1 -> saturates to 6.0 (0x7); -0.25: tie -> -0 (0x8)
    w = go("v_cvt_scalef32_pk_fp4_f32 v1, v2, v3, v4 op_sel:[0,0,1,1]", v1=0x00112233, v2=f(7.0),
           v3=f(-0.25), v4=f(1.0))
    assert int(w.vgpr[1][0]) == 0x87112233
    # /4: 5.0 -> 1.25 -> 1.0 (0x2), -100 -> -25 -> saturate -6.0 (0xF); byte 1
    w = go("v_cvt_scalef32_pk_fp4_f16 v1, v2, v4 op_sel:[0,0,1,0]", v1=0xFFFFFFFF,
           v2=h(-100.0) << 16 | h(5.0), v4=f(4.0))
    assert int(w.vgpr[1][0]) == 0xFFFFF2FF
    w = go("v_cvt_scalef32_pk_fp4_bf16 v1, v2, v4", v1=0, v2=bf(-3.0) << 16 | bf(1.5), v4=f(0.25))
    want = int(np.array([6.0], F32).astype(E2M1).view(np.uint8)[0]) | 0xF << 4   # 6.0, -12 -> -6
    assert int(w.vgpr[1][0]) == want == 0xF7


def test_pk_widen_fp8_bf8_fp4():
    w = go("v_cvt_scalef32_pk_f32_fp8 v[6:7], v2, v4 op_sel:[1,0,0]", v2=0xB8300000, v4=f(4.0))
    assert float(w.vgpr[6][0].view(F32)) == 2.0 and float(w.vgpr[7][0].view(F32)) == -4.0
    w = go("v_cvt_scalef32_pk_f16_bf8 v1, v2, v4", v2=0x0000C03C, v4=f(0.5))   # 0x3C = 1.0, 0xC0 = -2.0
    assert int(w.vgpr[1][0]) == h(-1.0) << 16 | h(0.5)
    w = go("v_cvt_scalef32_pk_bf16_fp8 v1, v2, v4", v2=0x0000_7E01, v4=f(2.0 ** 20))
    assert int(w.vgpr[1][0]) == bf(448.0 * 2 ** 20) << 16 | bf(2.0 ** -9 * 2 ** 20)
    # fp4 byte 3 (op_sel [1,1]): 0x7F -> low nibble 0xF = -6.0, high nibble 0x7 = 6.0; scale 2^-3
    w = go("v_cvt_scalef32_pk_f32_fp4 v[6:7], v2, v4 op_sel:[1,1,0]", v2=0x7F000000, v4=f(0.125))
    assert float(w.vgpr[6][0].view(F32)) == -0.75 and float(w.vgpr[7][0].view(F32)) == 0.75
    w = go("v_cvt_scalef32_pk_f16_fp4 v1, v2, v4 op_sel:[0,1,0]", v2=0x00910000, v4=f(1.0))
    assert int(w.vgpr[1][0]) == h(-0.5) << 16 | h(0.5)                        # 0x1 = 0.5, 0x9 = -0.5
    w = go("v_cvt_scalef32_pk_bf16_fp4 v1, v2, v4", exec_mask=HALF_EXEC, v1=7, v2=0x00000080, v4=f(1.0))
    assert int(w.vgpr[1][0]) == bf(0.0) | bf(-0.0) << 16 == 0x80000000
    assert int(w.vgpr[1][40]) == 7


def test_single_widen_byte_and_word_select():
    w = go("v_cvt_scalef32_f32_fp8 v1, v2, v4 op_sel:[1,1,0]", v2=0xC4000000, v4=f(2.0))   # byte 3
    assert float(w.vgpr[1][0].view(F32)) == -6.0
    w = go("v_cvt_scalef32_f32_bf8 v1, v2, v4", v2=0x00000001, v4=f(2.0 ** 16))       # min subnormal
    assert float(w.vgpr[1][0].view(F32)) == 1.0
    w = go("v_cvt_scalef32_f16_fp8 v1, v2, v4 op_sel:[1,0,1]", v1=0x0000ABCD, v2=0x00004000, v4=f(1.0))
    assert int(w.vgpr[1][0]) == h(2.0) << 16 | 0xABCD                                 # byte 1, high half
    w = go("v_cvt_scalef32_f16_bf8 v1, v2, v4", v1=0x12340000, v2=0x000000BC, v4=f(0.25))
    assert int(w.vgpr[1][0]) == 0x12340000 | h(-0.25)


@pytest.mark.parametrize("text,vg,why", [
    ("v_cvt_scalef32_pk_fp8_f32 v1, v2, v3, v4", {"v2": f(500.0), "v3": 0, "v4": f(1.0)}, "overflows"),
    ("v_cvt_scalef32_pk_bf8_f32 v1, v2, v3, v4", {"v2": f(np.inf), "v3": 0, "v4": f(1.0)}, "NaN/Inf"),
    ("v_cvt_scalef32_pk_fp4_f32 v1, v2, v3, v4", {"v2": f(np.nan), "v3": 0, "v4": f(1.0)}, "NaN/Inf"),
    ("v_cvt_scalef32_pk_fp8_f32 v1, v2, v3, v4", {"v2": f(1.0), "v3": 0, "v4": 0x7F800000}, "NaN scale"),
    ("v_cvt_scalef32_pk_fp8_f32 v1, v2, v3, v4", {"v2": 0x00000001, "v3": 0, "v4": f(1.0)}, "subnormal"),
    ("v_cvt_scalef32_f32_fp8 v1, v2, v4", {"v2": 0x7F, "v4": f(1.0)}, "NaN/Inf code"),
    ("v_cvt_scalef32_f16_fp8 v1, v2, v4", {"v2": 0x7E, "v4": f(2.0 ** 8)}, "f16 normal range"),
])
def test_undocumented_lanes_are_refused(text, vg, why):
    with pytest.raises(ScaleCvtUnmodelledError, match=why):
        go(text, **vg)


def test_refused_lanes_outside_exec_do_not_matter():
    w = go("v_cvt_scalef32_pk_fp8_f32 v1, v2, v3, v4", exec_mask=1,
           v2=[f(1.0)] + [f(1e6)] * 63, v3=f(2.0), v4=f(1.0))
    assert int(w.vgpr[1][0]) == code8(2.0, E4M3) << 8 | 0x38


@pytest.mark.parametrize("text", [
    "v_cvt_scalef32_sr_fp8_f32 v1, v2, v3, v4",
    "v_cvt_scalef32_sr_pk_fp4_f16 v1, v2, v3, v4",
    "v_cvt_scalef32_2xpk16_fp6_f32 v[0:5], v[8:23], v[24:39], v40",
])
def test_unpinned_families_refused(text):
    with pytest.raises(UnknownInstructionError, match="not emulated"):
        go(text)


def test_source_modifiers_refused():
    with pytest.raises(EmulatorError, match="not modelled"):
        go("v_cvt_scalef32_pk_fp8_f32 v1, -v2, v3, v4", v2=f(1.0), v3=f(1.0), v4=f(1.0))


@pytest.mark.parametrize("name,dt", [("fp8", E4M3), ("bf8", E5M2), ("fp4", E2M1)])
def test_pk_narrow_matches_single_rne_on_random_values(name, dt):
    """x / 2**k is exact in f32 here, so one RNE cast of it (ml_dtypes) is the reference."""
    rng = np.random.default_rng(7)
    big = float(ml_dtypes.finfo(dt).max)
    k = int(rng.integers(-6, 7))
    a = (rng.uniform(-1, 1, 64) * big * 2.0 ** k).astype(F32)
    b = (rng.standard_normal(64) * 2.0 ** (k - 3)).astype(F32)
    w = go(f"v_cvt_scalef32_pk_{name}_f32 v1, v2, v3, v4", v1=0, v2=[int(x) for x in a.view(U32)],
           v3=[int(x) for x in b.view(U32)], v4=f(2.0 ** k))
    bits = 8 if name != "fp4" else 4
    ref = lambda x: (x / F32(2.0 ** k)).astype(dt).view(np.uint8).astype(U32) & U32((1 << bits) - 1)
    assert np.array_equal(w.vgpr[1], ref(a) | ref(b) << U32(bits))


E2M3, E3M2 = ml_dtypes.float6_e2m3fn, ml_dtypes.float6_e3m2fn


def pack6(codes) -> list[int]:
    """32 six-bit codes -> 6 dwords, element i at bits [6i, 6i+6) of the 192-bit little-endian value."""
    big = sum((int(c) & 0x3F) << (6 * i) for i, c in enumerate(codes))
    return [(big >> (32 * r)) & 0xFFFFFFFF for r in range(6)]


@pytest.mark.parametrize("name,dt,src", [("fp6", E2M3, "f16"), ("bf6", E3M2, "bf16"), ("fp6", E2M3, "bf16")])
def test_pk32_narrow_packs_32_six_bit_values(name, dt, src):
    rng = np.random.default_rng(3)
    big = float(ml_dtypes.finfo(dt).max)
    x = (rng.uniform(-1.2, 1.2, 32) * big * 4).astype(np.float16 if src == "f16" else F32)
    x[5], x[6] = 0.0, -0.0
    bits = [h(v) if src == "f16" else bf(v) for v in x]
    vg = {f"v{8 + r}": bits[2 * r] | bits[2 * r + 1] << 16 for r in range(16)}
    w = go(f"v_cvt_scalef32_pk32_{name}_{src} v[0:5], v[8:23], v30", v30=f(4.0), **vg)
    xv = np.array([np.float16(x[i]) if src == "f16" else
                   np.float32(ml_dtypes.bfloat16(x[i])) for i in range(32)], F32) / F32(4.0)
    sat = np.clip(xv, -big, big)      # E2M3 / E3M2 have no Inf/NaN: overflow saturates
    want = pack6(sat.astype(dt).view(np.uint8))
    assert [int(w.vgpr[r][0]) for r in range(6)] == want
    assert (want[0] >> 30) & 0x3 | (want[1] & 0xF) << 2 == int(sat[5:6].astype(dt).view(np.uint8)[0])


@pytest.mark.parametrize("name,dt,dst", [("fp6", E2M3, "f32"), ("bf6", E3M2, "f16"), ("fp6", E2M3, "bf16")])
def test_pk32_widen_unpacks_32_six_bit_values(name, dt, dst):
    codes = [(7 * i + 3) & 0x3F for i in range(32)]
    regs = pack6(codes)
    w = go(f"v_cvt_scalef32_pk32_{dst}_{name} v[0:31], v[32:37], v40" if dst == "f32" else
           f"v_cvt_scalef32_pk32_{dst}_{name} v[0:15], v[32:37], v40",
           exec_mask=HALF_EXEC, v40=f(8.0), v0=0x5A5A5A5A, **{f"v{32 + r}": regs[r] for r in range(6)})
    vals = np.array(codes, np.uint8).view(dt).astype(F32) * F32(8.0)
    if dst == "f32":
        got = np.array([w.vgpr[i][0] for i in range(32)], U32).view(F32)
    else:
        words = [int(w.vgpr[r][0]) for r in range(16)]
        halves = np.array([x for v in words for x in (v & 0xFFFF, v >> 16)], np.uint16)
        got = halves.view(np.float16).astype(F32) if dst == "f16" else \
            (halves.astype(U32) << U32(16)).view(F32)
    assert np.array_equal(got, vals)
    assert int(w.vgpr[0][63]) == 0x5A5A5A5A
