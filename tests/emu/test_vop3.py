"""VOP3 semantics against NumPy: abs/neg/clamp/omod, three-source integer ops, v_perm/alignbit/bfe/bfi,
64-bit multiply-adds with carry-out SGPRs, 64-bit shifts, fused f32/f16/f64 FMAs, op_sel on f16,
conversions packing two values (pkrtz, fp8/bf8 with op_sel, clamp refused, bf16), readlane/writelane, mbcnt."""
from __future__ import annotations

from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from isa.emu.catalog import execute
from isa.emu.operand_io import AluModifierError
from isa.emu.state import Wave

FULL = (1 << 64) - 1
EXEC = 0xFFFF_0000_F0F0_3C3C
F32, U32, U64 = np.float32, np.uint32, np.uint64


def lanes(mask):
    return np.array([(mask >> i) & 1 for i in range(64)], bool)


def bits(b):
    return sum(1 << i for i in range(64) if b[i])


def wave(exec_mask=EXEC, seed=0):
    rng = np.random.default_rng(seed)
    w = Wave(0)
    w.vgpr[:] = rng.integers(0, 1 << 32, (256, 64), dtype=np.uint64).astype(np.uint32)
    for r in (10, 11, 12):   # float registers with a spread of magnitudes
        w.vgpr[r] = (rng.standard_normal(64) * 4).astype(F32).view(U32)
    w.vgpr[10, :6] = np.array([np.nan, np.inf, -0.0, 0.0, -np.inf, 1e-39], F32).view(U32)
    w.set_exec(exec_mask)
    return w


def run_check(text, ref, srcs, dst=0, dtype=U32, exec_mask=EXEC, arch="gfx942"):
    w = wave(exec_mask)
    old = w.vgpr[dst].copy()
    ins = [w.vgpr[s].copy().view(dtype) for s in srcs]
    execute(w, text, arch=arch)
    with np.errstate(all="ignore"):
        r = np.asarray(ref(*ins)).astype(dtype).view(U32)
    act = lanes(exec_mask)
    assert np.array_equal(w.vgpr[dst][act], r[act]), text
    assert np.array_equal(w.vgpr[dst][~act], old[~act]), text
    return w


def test_float_source_and_output_modifiers():
    run_check("v_add_f32_e64 v0, -v10, |v11|", lambda a, b: -a + np.abs(b), (10, 11), dtype=F32)
    run_check("v_mul_f32_e64 v0, v10, v11 mul:2", lambda a, b: a * b * F32(2), (10, 11), dtype=F32)
    run_check("v_mul_f32_e64 v0, v10, v11 mul:4", lambda a, b: a * b * F32(4), (10, 11), dtype=F32)
    run_check("v_mul_f32_e64 v0, v10, v11 div:2", lambda a, b: a * b * F32(0.5), (10, 11), dtype=F32)

    def clamp(x):
        return np.where(x > 0, np.minimum(x, F32(1)), F32(0))
    w = run_check("v_add_f32_e64 v0, v10, v11 clamp", lambda a, b: clamp(a + b), (10, 11), dtype=F32)
    assert not np.isnan(w.vgpr[0].view(F32)[lanes(EXEC)]).any()   # clamp turns NaN into 0
    run_check("v_max_f32_e64 v0, -|v10|, v11", lambda a, b: np.fmax(-np.abs(a), b), (10, 11), dtype=F32)


def test_int_clamp_saturates():
    run_check("v_add_u32_e64 v0, v1, v2 clamp",
              lambda a, b: np.minimum(a.astype(np.int64) + b, 0xFFFFFFFF), (1, 2))
    run_check("v_sub_u32_e64 v0, v1, v2 clamp", lambda a, b: np.maximum(a.astype(np.int64) - b, 0), (1, 2))


def test_three_source_int():
    run_check("v_add3_u32 v0, v1, v2, v3", lambda a, b, c: a + b + c, (1, 2, 3))
    run_check("v_lshl_add_u32 v0, v1, v2, v3", lambda a, b, c: (a << (b & 31)) + c, (1, 2, 3))
    run_check("v_add_lshl_u32 v0, v1, v2, v3", lambda a, b, c: (a + b) << (c & 31), (1, 2, 3))
    run_check("v_lshl_or_b32 v0, v1, v2, v3", lambda a, b, c: (a << (b & 31)) | c, (1, 2, 3))
    run_check("v_and_or_b32 v0, v1, v2, v3", lambda a, b, c: (a & b) | c, (1, 2, 3))
    run_check("v_or3_b32 v0, v1, v2, v3", lambda a, b, c: a | b | c, (1, 2, 3))
    run_check("v_xad_u32 v0, v1, v2, v3", lambda a, b, c: (a ^ b) + c, (1, 2, 3))
    run_check("v_mad_u32_u24 v0, v1, v2, v3",
              lambda a, b, c: ((a & 0xFFFFFF).astype(U64) * (b & 0xFFFFFF) + c).astype(U32), (1, 2, 3))
    run_check("v_mul_lo_u32 v0, v1, v2", lambda a, b: a * b, (1, 2))
    run_check("v_mul_hi_u32 v0, v1, v2", lambda a, b: (a.astype(U64) * b) >> U64(32), (1, 2))
    run_check("v_mul_hi_i32 v0, v1, v2",
              lambda a, b: ((a.view(np.int32).astype(np.int64) * b.view(np.int32)) >> 32).astype(np.int32), (1, 2))
    run_check("v_bfi_b32 v0, v1, v2, v3", lambda a, b, c: (a & b) | (~a & c), (1, 2, 3))
    run_check("v_alignbit_b32 v0, v1, v2, v3",
              lambda a, b, c: ((a.astype(U64) << U64(32) | b) >> (c & 31).astype(U64)).astype(U32), (1, 2, 3))
    run_check("v_alignbyte_b32 v0, v1, v2, v3",
              lambda a, b, c: ((a.astype(U64) << U64(32) | b) >> (8 * (c & 3)).astype(U64)).astype(U32), (1, 2, 3))
    med = lambda a, b, c: np.sort(np.stack([a, b, c]), axis=0)[1]
    run_check("v_med3_u32 v0, v1, v2, v3", med, (1, 2, 3))
    run_check("v_med3_i32 v0, v1, v2, v3", med, (1, 2, 3), dtype=np.int32)
    run_check("v_max3_u32 v0, v1, v2, v3", lambda a, b, c: np.maximum(np.maximum(a, b), c), (1, 2, 3))


def test_bfe():
    def bfe_ref(a, off, width, signed):
        out = []
        for x, o, wd in zip(a.tolist(), (off & 31).tolist(), (width & 31).tolist()):
            if signed and x >> 31:
                x -= 1 << 32                       # the signed form shifts arithmetically
            v = (x >> o) & ((1 << wd) - 1) if wd else 0
            if signed and wd and v >> (wd - 1):
                v -= 1 << wd
            out.append(v & 0xFFFFFFFF)
        return np.array(out, U32)
    run_check("v_bfe_u32 v0, v1, v2, v3", lambda a, b, c: bfe_ref(a, b, c, False), (1, 2, 3))
    run_check("v_bfe_i32 v0, v1, v2, v3", lambda a, b, c: bfe_ref(a, b, c, True), (1, 2, 3))
    run_check("v_bfe_u32 v0, v1, 8, 4", lambda a: (a >> 8) & 0xF, (1,))


def test_perm():
    def perm_ref(s0, s1, sel):
        out = []
        for x, y, s in zip(s0.tolist(), s1.tolist(), sel.tolist()):
            data = (x << 32) | y
            r = 0
            for k in range(4):
                b = (s >> (8 * k)) & 0xFF
                if b < 8:
                    v = (data >> (8 * b)) & 0xFF
                elif b < 12:
                    v = 0xFF if (data >> (16 * (b - 8) + 15)) & 1 else 0
                elif b == 12:
                    v = 0
                else:
                    v = 0xFF
                r |= v << (8 * k)
            out.append(r)
        return np.array(out, U32)
    run_check("v_perm_b32 v0, v1, v2, v3", perm_ref, (1, 2, 3))
    run_check("v_perm_b32 v0, v1, v2, 0x0c0d0800", lambda a, b: perm_ref(a, b, np.full(64, 0x0C0D0800, U32)),
              (1, 2))
    run_check("v_perm_b32 v0, v1, v2, 0x07060504", lambda a, b: a, (1, 2))
    run_check("v_perm_b32 v0, v1, v2, 0x0c0d0501", lambda a, b: perm_ref(a, b, np.full(64, 0x0C0D0501, U32)),
              (1, 2))   # constant selector without sign bytes: the precomputed-gather path


def _perm_ref(s0, s1, sel):
    """V_PERM_B32 per lane, from the ISA guide's byte_permute table (CDNA3 ISA, VOP3 opcodes)."""
    out = []
    for x, y, s in zip(s0.tolist(), s1.tolist(), np.broadcast_to(sel, s0.shape).tolist()):
        data = (x << 32) | y
        r = 0
        for k in range(4):
            b = (s >> (8 * k)) & 0xFF
            if b < 8:
                v = (data >> (8 * b)) & 0xFF
            elif b < 12:
                v = 0xFF if (data >> (16 * (b - 8) + 15)) & 1 else 0
            elif b == 12:
                v = 0
            else:
                v = 0xFF
            r |= v << (8 * k)
        out.append(r)
    return np.array(out, U32)


def test_perm_constant_selectors_random():
    """Every kind of selector byte (0-7 in and out of order, sign bytes 8-11, 0x00 and 0xFF
    bytes, values above 15) as a literal selector, one wave and a group of waves (the
    constant-selector binding of v_perm_b32 in isa.emu.valu_int) against the per-lane rules."""
    from isa.emu import catalog
    from isa.emu.group import WaveGroup, WorkgroupFiles
    from isa.instr import Instr
    from isa.operands import Imm, Reg
    from isa.tables import spec_table
    rng = np.random.default_rng(18)
    sels = [0x05040100, 0x07060302, 0x01000504, 0x0C0C0100, 0x0D0D0D0D, 0x0C0C0C0C, 0x0B0A0908,
            0x03020100, 0x07060504, 0x00010203, 0x0E0F0400, 0xFF201110]
    sels += [int(x) for x in rng.integers(0, 16, (40, 4)) @ np.array([1, 1 << 8, 1 << 16, 1 << 24])]
    spec = spec_table("gfx942")["v_perm_b32"]
    for sel in sels:
        run_check(f"v_perm_b32 v0, v1, v2, {sel:#x}",
                  lambda a, b, sel=sel: _perm_ref(a, b, np.full(64, sel, U32)), (1, 2))
        for src in ("v3", "s10"):            # the same value in every lane, known at run time
            w = wave(EXEC)
            w.vgpr[3][:] = sel
            w.sgpr[10] = sel
            old = w.vgpr[0].copy()
            want = _perm_ref(w.vgpr[1], w.vgpr[2], sel)
            execute(w, f"v_perm_b32 v0, v1, v2, {src}")
            act = lanes(EXEC)
            assert np.array_equal(w.vgpr[0][act], want[act]) and np.array_equal(w.vgpr[0][~act],
                                                                                old[~act]), src
        ins = Instr("v_perm_b32", (Reg("v", 0), Reg("v", 1), Reg("v", 2), Imm(sel)))
        ref, got = [wave(EXEC) for _ in range(3)], [wave(EXEC) for _ in range(3)]
        for k, x in enumerate(ref + got):
            x.vgpr[1:3] = np.random.default_rng(k % 3).integers(0, 1 << 32, (2, 64), dtype=np.uint32)
        gfn = catalog.bind_group(ins, spec, "gfx942")
        assert gfn is not None
        gfn(None, WaveGroup(WorkgroupFiles(got), got))
        for r, g in zip(ref, got):
            want = _perm_ref(r.vgpr[1], r.vgpr[2], sel)
            act = lanes(EXEC)
            assert np.array_equal(g.vgpr[0][act], want[act]), hex(sel)
            assert np.array_equal(g.vgpr[0][~act], r.vgpr[0][~act]), hex(sel)


def test_mad_u64_u32_and_carry_out_sgpr():
    w = wave()
    a, b = w.vgpr[1].astype(object), w.vgpr[2].astype(object)
    c = w.vgpr[4].astype(object) | (w.vgpr[5].astype(object) << 32)
    execute(w, "v_mad_u64_u32 v[6:7], s[10:11], v1, v2, v[4:5]")
    act = lanes(EXEC)
    full = a * b + c
    got = w.vgpr[6].astype(object) | (w.vgpr[7].astype(object) << 32)
    assert all(got[i] == full[i] % (1 << 64) for i in range(64) if act[i])
    carry = np.array([full[i] >> 64 for i in range(64)], bool)
    assert int(w.sgpr[10]) | int(w.sgpr[11]) << 32 == bits(carry & act)
    w = wave(FULL)
    sa = w.vgpr[1].view(np.int32).astype(object)
    sb = w.vgpr[2].view(np.int32).astype(object)
    sc = (w.vgpr[4].astype(object) | (w.vgpr[5].astype(object) << 32))
    sc = np.array([x - (1 << 64) if x >> 63 else x for x in sc], object)
    execute(w, "v_mad_i64_i32 v[6:7], s[10:11], v1, v2, v[4:5]")
    got = w.vgpr[6].astype(object) | (w.vgpr[7].astype(object) << 32)
    assert all(got[i] == (sa[i] * sb[i] + sc[i]) % (1 << 64) for i in range(64))


def test_add_co_e64_sgpr_carry_and_cndmask_e64():
    w = wave()
    a, b = w.vgpr[1].astype(np.int64), w.vgpr[2].astype(np.int64)
    execute(w, "v_add_co_u32_e64 v0, s[20:21], v1, v2")
    act = lanes(EXEC)
    sum_ = a + b
    assert int(w.sgpr[20]) | int(w.sgpr[21]) << 32 == bits((sum_ > 0xFFFFFFFF) & act)
    execute(w, "v_cndmask_b32_e64 v3, v1, v2, s[20:21]")
    sel = lanes(int(w.sgpr[20]) | int(w.sgpr[21]) << 32)
    assert np.array_equal(w.vgpr[3][act], np.where(sel, w.vgpr[2], w.vgpr[1])[act])


def test_64bit_shifts_and_lshl_add_u64():
    w = wave()
    x = w.vgpr[2].astype(U64) | (w.vgpr[3].astype(U64) << U64(32))
    s = w.vgpr[1].copy()
    act = lanes(EXEC)
    for op, ref in (("v_lshlrev_b64", x << (s & 63).astype(U64)), ("v_lshrrev_b64", x >> (s & 63).astype(U64)),
                    ("v_ashrrev_i64", (x.view(np.int64) >> (s & 63).astype(np.int64)).view(U64))):
        execute(w, f"{op} v[4:5], v1, v[2:3]")
        got = w.vgpr[4].astype(U64) | (w.vgpr[5].astype(U64) << U64(32))
        assert np.array_equal(got[act], ref[act]), op
    y = w.vgpr[6].astype(U64) | (w.vgpr[7].astype(U64) << U64(32))
    execute(w, "v_lshl_add_u64 v[8:9], v[2:3], 3, v[6:7]")
    got = w.vgpr[8].astype(U64) | (w.vgpr[9].astype(U64) << U64(32))
    assert np.array_equal(got[act], ((x << U64(3)) + y)[act])


def test_fma_f32_single_rounding_and_f64():
    def exact_fma(a, b, c):
        return np.array([np.float32(float(Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z))))
                         if np.isfinite([x, y, z]).all() else np.float32(x * y + z)
                         for x, y, z in zip(a, b, c)], F32)
    run_check("v_fma_f32 v0, v10, v11, v12", exact_fma, (10, 11, 12), dtype=F32)
    run_check("v_fma_f32 v0, -v10, v11, 1.0", lambda a, b: exact_fma(-a, b, np.ones(64, F32)), (10, 11), dtype=F32)
    w = wave(FULL)
    d = np.random.default_rng(5).standard_normal((3, 64))
    for k, r in enumerate((20, 22, 24)):
        w.vgpr[r:r + 2] = d[k].view(U32).reshape(64, 2).T
    execute(w, "v_fma_f64 v[0:1], v[20:21], v[22:23], v[24:25]")
    execute(w, "v_add_f64 v[2:3], v[20:21], v[22:23]")
    got = w.vgpr[0:2].T.copy().view(np.float64)[:, 0]
    ref = [float(Fraction(x) * Fraction(y) + Fraction(z)) for x, y, z in d.T]
    assert np.array_equal(got, np.array(ref))
    assert np.array_equal(w.vgpr[2:4].T.copy().view(np.float64)[:, 0], d[0] + d[1])


def test_fma_f16_op_sel_preserves_other_half():
    w = wave(FULL)
    h = lambda r, hi: ((w.vgpr[r] >> (16 if hi else 0)) & 0xFFFF).astype(np.uint16).view(np.float16)
    a, b, c = h(1, True), h(2, False), h(3, False)
    old_lo = w.vgpr[0] & 0xFFFF
    execute(w, "v_fma_f16 v0, v1, v2, v3 op_sel:[1,0,0,1]")
    with np.errstate(all="ignore"):
        ref = (a.astype(np.float64) * b + c).astype(np.float16)
    got = (w.vgpr[0] >> 16).astype(np.uint16).view(np.float16)
    assert np.array_equal(got, ref, equal_nan=True)
    assert np.array_equal(w.vgpr[0] & 0xFFFF, old_lo)


def test_pack_conversions():
    w = wave(FULL)
    a, b = w.vgpr[10].view(F32).copy(), w.vgpr[11].view(F32).copy()
    execute(w, "v_cvt_pkrtz_f16_f32 v0, v10, v11")
    lo = (w.vgpr[0] & 0xFFFF).astype(np.uint16).view(np.float16)
    with np.errstate(all="ignore"):
        rne = a.astype(np.float16)
        rtz = np.where(np.isfinite(a) & (np.abs(rne.astype(F32)) > np.abs(a)),
                       np.nextafter(rne, np.float16(0)), rne)
    assert np.array_equal(lo, rtz, equal_nan=True)
    w.vgpr[10, :3] = np.array([1 + 2 ** -11 + 2 ** -20, 70000.0, -70000.0], F32).view(U32)
    execute(w, "v_cvt_pkrtz_f16_f32 v0, v10, v11")
    assert list((w.vgpr[0, :3] & 0xFFFF).astype(np.uint16).view(np.float16)) == [1.0, 65504.0, -65504.0]
    a = w.vgpr[10].view(F32).copy()
    execute(w, "v_cvt_pk_bf16_f32 v1, v10, v11", arch="gfx950")
    assert np.array_equal(w.vgpr[1] & 0xFFFF, a.astype(ml_dtypes.bfloat16).view(np.uint16).astype(U32))
    assert np.array_equal(w.vgpr[1] >> 16, b.astype(ml_dtypes.bfloat16).view(np.uint16).astype(U32))
    execute(w, "v_pack_b32_f16 v2, v3, v4 op_sel:[1,0,0]")
    assert np.array_equal(w.vgpr[2], (w.vgpr[3] >> 16) | ((w.vgpr[4] & 0xFFFF) << 16))


@pytest.mark.parametrize("arch,dt", [("gfx942", ml_dtypes.float8_e4m3fnuz), ("gfx950", ml_dtypes.float8_e4m3fn)])
def test_cvt_pk_fp8_word_select_and_no_clamp(arch, dt):
    w = wave(FULL)
    a = w.vgpr[10].view(F32).copy()
    b = (w.vgpr[11].view(F32) * F32(1000)).astype(F32)
    w.vgpr[11] = b.view(U32)
    old = w.vgpr[0].copy()
    execute(w, "v_cvt_pk_fp8_f32 v0, v10, v11 op_sel:[0,0,1]", arch=arch)
    with np.errstate(all="ignore"):
        ref = a.astype(dt).view(np.uint8).astype(U32) | (b.astype(dt).view(np.uint8).astype(U32) << 8)
    assert np.array_equal(w.vgpr[0] >> 16, ref)
    assert np.array_equal(w.vgpr[0] & 0xFFFF, old & 0xFFFF)
    # clamp: llvm-mc-22 rejects it on gfx942/gfx950 and no document says what it does
    with pytest.raises(AluModifierError, match="clamp"):
        execute(w, "v_cvt_pk_fp8_f32 v1, v10, v11 clamp", arch=arch)


def test_readlane_writelane_mbcnt():
    w = wave(0xF0)
    w.sgpr[3] = 70                                  # lane select uses the low 6 bits: lane 6
    execute(w, "v_readlane_b32 s2, v1, s3")
    assert int(w.sgpr[2]) == int(w.vgpr[1, 6])
    w.sgpr[5] = 0xABCDEF
    execute(w, "v_writelane_b32 v1, s5, 2")       # writes lane 2 though EXEC has it off
    assert int(w.vgpr[1, 2]) == 0xABCDEF
    w.set_exec(FULL)
    execute(w, "v_mbcnt_lo_u32_b32 v0, -1, 0")
    execute(w, "v_mbcnt_hi_u32_b32 v0, -1, v0")
    assert np.array_equal(w.vgpr[0], np.arange(64))
    w.sgpr[6] = 0x0000FFFF
    execute(w, "v_mbcnt_lo_u32_b32 v0, s6, 5")
    assert np.array_equal(w.vgpr[0], np.minimum(np.arange(64), 16) + 5)


def test_fma_f32_double_rounding_case():
    """a*b lands exactly halfway between two f32 values and c nudges it up: an f64 sum would round
    back to the midpoint and then to even (wrong); a fused f32 FMA rounds up."""
    w = wave(FULL)
    w.vgpr[1] = F32(1 + 2 ** -12).view(U32)
    w.vgpr[2] = F32(2 ** -60).view(U32)
    w.vgpr[3] = F32(-(2 ** -60)).view(U32)
    execute(w, "v_fma_f32 v0, v1, v1, v2")
    assert (w.vgpr[0].view(F32) == F32(1 + 2 ** -11 + 2 ** -23)).all()
    execute(w, "v_fma_f32 v0, v1, v1, v3")
    assert (w.vgpr[0].view(F32) == F32(1 + 2 ** -11)).all()


def test_more_int_ops():
    sad8 = lambda a, b: np.abs(a.view(np.uint8).reshape(64, 4).astype(np.int64)
                               - b.view(np.uint8).reshape(64, 4)).sum(1)
    run_check("v_sad_u8 v0, v1, v2, v3", lambda a, b, c: (sad8(a, b) + c).astype(U32), (1, 2, 3))
    run_check("v_sad_hi_u8 v0, v1, v2, v3", lambda a, b, c: ((sad8(a, b) << 16) + c).astype(U32), (1, 2, 3))
    run_check("v_sad_u32 v0, v1, v2, v3",
              lambda a, b, c: (np.abs(a.astype(np.int64) - b) + c).astype(U32), (1, 2, 3))
    i16 = lambda x: (x & 0xFFFF).astype(np.uint16).view(np.int16).astype(np.int64)
    run_check("v_mad_i32_i16 v0, v1, v2, v3", lambda a, b, c: (i16(a) * i16(b) + c).astype(U32), (1, 2, 3))
    run_check("v_add_i16 v0, v1, v2 clamp",
              lambda a, b: np.clip(i16(a) + i16(b), -32768, 32767).astype(np.uint16).astype(U32), (1, 2))
    for table in (0x80, 0xFE, 0x96, 0xCA):    # and3, or3, xor3, bitfield select
        ref = {0x80: lambda a, b, c: a & b & c, 0xFE: lambda a, b, c: a | b | c,
               0x96: lambda a, b, c: a ^ b ^ c, 0xCA: lambda a, b, c: (a & b) | (~a & c)}[table]
        run_check(f"v_bitop3_b32 v0, v1, v2, v3 bitop3:{table:#x}", ref, (1, 2, 3), arch="gfx950")


def test_more_float_ops():
    run_check("v_fmaak_f32 v0, v10, v11, 0x40000000",
              lambda a, b: (a.astype(np.float64) * b + 2.0).astype(F32), (10, 11), dtype=F32)
    run_check("v_fmamk_f32 v0, v10, 0x40000000, v11",
              lambda a, b: (a.astype(np.float64) * 2.0 + b).astype(F32), (10, 11), dtype=F32)
    w = wave(FULL)
    w.vgpr[10, :4] = np.array([np.nan, -0.0, 1.0, 2.0], F32).view(U32)
    w.vgpr[11, :4] = np.array([1.0, 0.0, np.nan, 3.0], F32).view(U32)
    w.vgpr[12, :4] = np.array([0.0, -0.0, 0.0, -1.0], F32).view(U32)
    execute(w, "v_maximum3_f32 v0, v10, v11, v12", arch="gfx950")
    got = w.vgpr[0, :4].view(F32)
    assert np.isnan(got[0]) and got[1] == 0 and not np.signbit(got[1]) and np.isnan(got[2]) and got[3] == 3.0
    num = np.array([1.0, 0.0, np.inf, 1.0, np.inf, -6.0, np.nan], F32)
    den = np.array([0.0, 0.0, 2.0, np.inf, np.inf, 3.0, 1.0], F32)
    w.vgpr[11, :7], w.vgpr[12, :7] = den.view(U32), num.view(U32)
    w.vgpr[10, :7] = np.full(7, 2.0, F32).view(U32)
    execute(w, "v_div_fixup_f32 v0, v10, v11, v12")
    got = w.vgpr[0, :7].view(F32)
    assert got[0] == np.inf and np.isnan(got[1]) and got[2] == np.inf and got[3] == 0
    assert np.isnan(got[4]) and got[5] == -2.0 and np.isnan(got[6])


def test_pknorm_and_off_i4():
    w = wave(FULL)
    w.vgpr[10, :4] = np.array([1.5, -1.0, 0.5, np.nan], F32).view(U32)
    w.vgpr[11, :4] = np.array([0.25, 2.0, -0.5, 0.0], F32).view(U32)
    execute(w, "v_cvt_pknorm_i16_f32 v0, v10, v11")
    assert list(w.vgpr[0, :4] & 0xFFFF) == [32767, (-32767) & 0xFFFF, 16384, 0]
    execute(w, "v_cvt_pknorm_u16_f32 v1, v10, v11")
    assert list(w.vgpr[1, :4] >> 16) == [16384, 65535, 0, 0]
    w.vgpr[2, :3] = [0x7, 0x8, 0xF3]
    execute(w, "v_cvt_off_f32_i4 v3, v2")
    assert list(w.vgpr[3, :3].view(F32)) == [7 / 16, -8 / 16, 3 / 16]


# LLVM 22's correctly rounded f32 and f64 division for gfx942 (clang -cl-fp32-correctly-rounded-divide-sqrt),
# num in v4 / v[2:3], den in v2 / v[4:5]: the result must be IEEE division, bit for bit.
FDIV32 = """v_div_scale_f32 v3, s[0:1], v2, v2, v4
v_rcp_f32_e32 v5, v3
v_div_scale_f32 v6, vcc, v4, v2, v4
v_fma_f32 v7, -v3, v5, 1.0
v_fmac_f32_e32 v5, v7, v5
v_mul_f32_e32 v7, v6, v5
v_fma_f32 v8, -v3, v7, v6
v_fmac_f32_e32 v7, v8, v5
v_fma_f32 v3, -v3, v7, v6
v_div_fmas_f32 v3, v3, v5, v7
v_div_fixup_f32 v2, v3, v2, v4"""
FDIV64 = """v_div_scale_f64 v[6:7], s[0:1], v[4:5], v[4:5], v[2:3]
v_rcp_f64_e32 v[8:9], v[6:7]
v_div_scale_f64 v[10:11], vcc, v[2:3], v[4:5], v[2:3]
v_fma_f64 v[12:13], -v[6:7], v[8:9], 1.0
v_fmac_f64_e32 v[8:9], v[8:9], v[12:13]
v_fma_f64 v[12:13], -v[6:7], v[8:9], 1.0
v_fmac_f64_e32 v[8:9], v[8:9], v[12:13]
v_mul_f64 v[12:13], v[10:11], v[8:9]
v_fma_f64 v[6:7], -v[6:7], v[12:13], v[10:11]
v_div_fmas_f64 v[6:7], v[6:7], v[8:9], v[12:13]
v_div_fixup_f64 v[2:3], v[6:7], v[4:5], v[2:3]"""


def test_llvm_fdiv_sequences_are_ieee_division():
    rng = np.random.default_rng(11)
    num = (rng.standard_normal(64) * 10.0 ** rng.integers(-30, 30, 64)).astype(F32)
    den = (rng.standard_normal(64) * 10.0 ** rng.integers(-30, 30, 64)).astype(F32)
    num[:12] = [0.0, 1.0, np.inf, 1.0, np.nan, -0.0, 3e38, 1e-38, 1.0, 7.0, 2e-45, 1e30]
    den[:12] = [0.0, 0.0, 2.0, np.inf, 1.0, 5.0, 1e-5, 3e30, 1e-40, 3.0, 3.0, 1e-30]
    w = Wave(0)
    w.set_exec(FULL)
    w.vgpr[4], w.vgpr[2] = num.view(U32), den.view(U32)
    for line in FDIV32.splitlines():
        execute(w, line)
    ref = num / den
    assert np.array_equal(w.vgpr[2].view(F32), ref, equal_nan=True)
    n64 = rng.standard_normal(64) * 10.0 ** rng.integers(-200, 200, 64)
    d64 = rng.standard_normal(64) * 10.0 ** rng.integers(-200, 200, 64)
    n64[:4], d64[:4] = [1.0, np.inf, 0.0, 1e300], [3.0, 2.0, 0.0, 1e-300]
    w.vgpr[2:4] = n64.view(U32).reshape(64, 2).T
    w.vgpr[4:6] = d64.view(U32).reshape(64, 2).T
    for line in FDIV64.splitlines():
        execute(w, line)
    got = w.vgpr[2:4].T.copy().view(np.float64)[:, 0]
    assert np.array_equal(got, n64 / d64, equal_nan=True)


def test_fma_mix():
    w = wave(FULL)
    h = (w.vgpr[1] & 0xFFFF).astype(np.uint16).view(np.float16).astype(np.float64)
    hh = (w.vgpr[3] >> 16).astype(np.uint16).view(np.float16).astype(np.float64)
    b = w.vgpr[10].view(F32).astype(np.float64)
    execute(w, "v_fma_mix_f32 v0, -v1, v10, v3 op_sel:[0,0,1] op_sel_hi:[1,0,1]")
    ref = np.array([np.float32(float(-Fraction(x) * Fraction(y) + Fraction(z))) if np.isfinite([x, y, z]).all()
                    else np.float32(-x * y + z) for x, y, z in zip(h, b, hh)], F32)
    assert np.array_equal(w.vgpr[0].view(F32), ref, equal_nan=True)
    old = w.vgpr[5].copy()
    execute(w, "v_fma_mixhi_f16 v5, v1, v10, v3 op_sel_hi:[1,0,1]")
    lo3 = (w.vgpr[3] & 0xFFFF).astype(np.uint16).view(np.float16).astype(np.float64)
    with np.errstate(all="ignore"):
        ref16 = (h * b + lo3).astype(np.float16)   # products exact in f64; no f16 ties in this data
    assert np.array_equal((w.vgpr[5] >> 16).astype(np.uint16).view(np.float16), ref16, equal_nan=True)
    assert np.array_equal(w.vgpr[5] & 0xFFFF, old & 0xFFFF)


@pytest.mark.parametrize("arch,dt", [("gfx942", ml_dtypes.float8_e4m3fnuz), ("gfx950", ml_dtypes.float8_e4m3fn)])
def test_cvt_sr_fp8_noise_bounds(arch, dt):
    """Stochastic rounding: zero noise truncates toward zero, full noise rounds away (inexact values),
    and the byte lands at op_sel[2] + 2*op_sel[3] with the other bytes kept."""
    w = wave(FULL)
    x = np.array([1.0 + 1 / 16 + 1 / 64, -(1.0 + 1 / 16 + 1 / 64), 3.0, 0.75 + 1 / 32] * 16, F32)
    w.vgpr[10] = x.view(U32)
    old = w.vgpr[0].copy()
    w.vgpr[11] = 0
    execute(w, "v_cvt_sr_fp8_f32 v0, v10, v11 op_sel:[0,0,1,0]", arch=arch)   # byte 1
    got = ((w.vgpr[0] >> 8) & 0xFF).astype(np.uint8).view(dt).astype(F32)
    assert list(got[:4]) == [1.0, -1.0, 3.0, 0.75]            # e4m3: 3 mantissa bits
    assert np.array_equal(w.vgpr[0] & 0xFFFF00FF, old & 0xFFFF00FF)
    w.vgpr[11] = 0xFFFFFFFF
    execute(w, "v_cvt_sr_fp8_f32 v1, v10, v11", arch=arch)
    got = (w.vgpr[1] & 0xFF).astype(np.uint8).view(dt).astype(F32)
    assert list(got[:4]) == [1.125, -1.125, 3.0, 0.8125]
