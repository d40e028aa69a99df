"""VOP2 semantics (isa.emu.valu_int, valu_float) against NumPy: EXEC masking, carries to VCC, shifts
masked to 5 bits, 24-bit multiplies, v_cndmask with VCC, f32/f16 arithmetic incl. NaN/-0 min/max,
v_fmac, literals and inline constants."""
from __future__ import annotations

import numpy as np

from isa.emu.catalog import execute
from isa.emu.state import Wave

FULL = (1 << 64) - 1
EXEC = 0xF0F0_FFFF_0000_FF7E
EDGE = np.array([0, 1, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 31, 32, 33, 0xFFFFFF, 0x1000000], np.uint32)


def wave(exec_mask=EXEC, seed=0):
    rng = np.random.default_rng(seed)
    w = Wave(0)
    w.vgpr[:] = rng.integers(0, 1 << 32, (256, 64), dtype=np.uint64).astype(np.uint32)
    w.vgpr[1, :10] = EDGE
    w.vgpr[2, 10:20] = EDGE
    w.sgpr[:102] = rng.integers(0, 1 << 32, 102, dtype=np.uint64).astype(np.uint32)
    w.set_exec(exec_mask)
    return w


def lanes(mask):
    return np.array([(mask >> i) & 1 for i in range(64)], bool)


def bits(b):
    return sum(1 << i for i in range(64) if b[i])


def check(op_text, ref_fn, dst=0, srcs=(1, 2), exec_mask=EXEC, dtype=np.uint32):
    """Run ``op_text``; active lanes must equal ``ref_fn(*typed sources)``, inactive lanes unchanged."""
    w = wave(exec_mask)
    old = w.vgpr[dst].copy()
    ins = [w.vgpr[s].copy().view(dtype) for s in srcs]
    execute(w, op_text)
    with np.errstate(all="ignore"):
        ref = np.asarray(ref_fn(*ins)).astype(dtype).view(np.uint32)
    act = lanes(exec_mask)
    assert np.array_equal(w.vgpr[dst][act], np.broadcast_to(ref, (64,))[act]), op_text
    assert np.array_equal(w.vgpr[dst][~act], old[~act]), f"{op_text}: inactive lanes changed"
    return w


def test_int_ops():
    u64 = np.uint64
    check("v_add_u32 v0, v1, v2", lambda a, b: a + b)
    check("v_sub_u32 v0, v1, v2", lambda a, b: a - b)
    check("v_subrev_u32 v0, v1, v2", lambda a, b: b - a)
    check("v_and_b32 v0, v1, v2", lambda a, b: a & b)
    check("v_or_b32 v0, v1, v2", lambda a, b: a | b)
    check("v_xor_b32 v0, v1, v2", lambda a, b: a ^ b)
    check("v_lshlrev_b32 v0, v1, v2", lambda a, b: b << (a & 31))
    check("v_lshrrev_b32 v0, v1, v2", lambda a, b: b >> (a & 31))
    check("v_ashrrev_i32 v0, v1, v2", lambda a, b: (b.view(np.int32) >> (a & 31).astype(np.int32)))
    check("v_min_u32 v0, v1, v2", np.minimum)
    check("v_max_i32 v0, v1, v2", lambda a, b: np.maximum(a.view(np.int32), b.view(np.int32)))
    check("v_mul_u32_u24 v0, v1, v2",
          lambda a, b: ((a & 0xFFFFFF).astype(u64) * (b & 0xFFFFFF)).astype(np.uint32))
    i24 = lambda x: ((x << np.uint32(8)).view(np.int32) >> 8).astype(np.int64)
    check("v_mul_i32_i24 v0, v1, v2", lambda a, b: (i24(a) * i24(b)).astype(np.uint32))
    check("v_mul_hi_u32_u24 v0, v1, v2",
          lambda a, b: (((a & 0xFFFFFF).astype(u64) * (b & 0xFFFFFF)) >> u64(32)).astype(np.uint32))
    check("v_bcnt_u32_b32 v0, v1, v2", lambda a, b: np.bitwise_count(a).astype(np.uint32) + b, srcs=(1, 2))


def test_sgpr_and_constant_sources():
    w = check("v_add_u32 v0, s5, v2", lambda a: a + wave().sgpr[5], srcs=(2,))
    assert w is not None
    check("v_add_u32 v0, -1, v2", lambda b: b - np.uint32(1), srcs=(2,))
    check("v_add_u32 v0, 0x12345678, v2", lambda b: b + np.uint32(0x12345678), srcs=(2,))
    check("v_mul_f32 v0, 0.5, v2", lambda b: b * np.float32(0.5), srcs=(2,), dtype=np.float32)
    check("v_add_f32 v0, 1, v2", lambda b: b + np.uint32(1).view(np.float32), srcs=(2,), dtype=np.float32)


def test_carry_ops_vcc():
    w = wave()
    a, b = w.vgpr[1].astype(np.int64), w.vgpr[2].astype(np.int64)
    old_vcc = w.vcc
    execute(w, "v_add_co_u32 v0, vcc, v1, v2")
    act = lanes(EXEC)
    assert np.array_equal(w.vgpr[0][act], ((a + b) & 0xFFFFFFFF)[act])
    assert w.vcc == bits(((a + b) > 0xFFFFFFFF) & act)
    assert old_vcc != w.vcc
    carry = lanes(w.vcc)
    execute(w, "v_addc_co_u32 v3, vcc, v1, v2, vcc")
    r = a + b + carry
    assert np.array_equal(w.vgpr[3][act], (r & 0xFFFFFFFF)[act])
    assert w.vcc == bits((r > 0xFFFFFFFF) & act)
    execute(w, "v_sub_co_u32 v4, vcc, v1, v2")
    assert w.vcc == bits((a < b) & act)
    borrow = lanes(w.vcc)
    execute(w, "v_subb_co_u32 v5, vcc, v1, v2, vcc")
    assert np.array_equal(w.vgpr[5][act], ((a - b - borrow) & 0xFFFFFFFF)[act])
    assert w.vcc == bits((a - b - borrow < 0) & act)
    execute(w, "v_subrev_co_u32 v6, vcc, v1, v2")
    assert w.vcc == bits((b < a) & act)


def test_cndmask_vcc():
    w = wave()
    w.vcc = 0x5555_AAAA_1234_8765
    a, b = w.vgpr[1].copy(), w.vgpr[2].copy()
    old = w.vgpr[0].copy()
    execute(w, "v_cndmask_b32 v0, v1, v2, vcc")
    act = lanes(EXEC)
    ref = np.where(lanes(w.vcc), b, a)
    assert np.array_equal(w.vgpr[0][act], ref[act])
    assert np.array_equal(w.vgpr[0][~act], old[~act])


def test_f32_arith():
    f = np.float32
    check("v_add_f32 v0, v1, v2", lambda a, b: a + b, dtype=f)
    check("v_sub_f32 v0, v1, v2", lambda a, b: a - b, dtype=f)
    check("v_subrev_f32 v0, v1, v2", lambda a, b: b - a, dtype=f)
    check("v_mul_f32 v0, v1, v2", lambda a, b: a * b, dtype=f)
    check("v_mul_legacy_f32 v0, v1, v2", lambda a, b: np.where((a == 0) | (b == 0), f(0), a * b), dtype=f)


def test_f32_min_max_nan_and_zero():
    w = wave(FULL)
    vals = np.array([np.nan, 1.0, -0.0, 0.0, -np.inf, np.inf, 3.0, np.nan], np.float32)
    other = np.array([2.0, np.nan, 0.0, -0.0, 1.0, 1.0, np.nan, np.nan], np.float32)
    w.vgpr[1, :8] = vals.view(np.uint32)
    w.vgpr[2, :8] = other.view(np.uint32)
    execute(w, "v_max_f32 v0, v1, v2")
    execute(w, "v_min_f32 v3, v1, v2")
    mx, mn = w.vgpr[0, :8].view(np.float32), w.vgpr[3, :8].view(np.float32)
    assert list(mx[:7]) == [2.0, 1.0, 0.0, 0.0, 1.0, np.inf, 3.0] and np.isnan(mx[7])
    assert not np.signbit(mx[2]) and not np.signbit(mx[3])       # max(+-0) = +0
    assert list(mn[:7]) == [2.0, 1.0, -0.0, -0.0, -np.inf, 1.0, 3.0] and np.isnan(mn[7])
    assert np.signbit(mn[2]) and np.signbit(mn[3])               # min(+-0) = -0


def test_f16_ops_zero_high_half():
    h = np.float16
    for text, ref in (("v_add_f16 v0, v1, v2", lambda a, b: a + b), ("v_mul_f16 v0, v1, v2", lambda a, b: a * b),
                      ("v_sub_f16 v0, v1, v2", lambda a, b: a - b), ("v_max_f16 v0, v1, v2", np.fmax)):
        w = wave(FULL)
        a = (w.vgpr[1] & 0xFFFF).astype(np.uint16).view(h)
        b = (w.vgpr[2] & 0xFFFF).astype(np.uint16).view(h)
        execute(w, text)
        with np.errstate(all="ignore"):
            r = ref(a, b)
        got = (w.vgpr[0] & 0xFFFF).astype(np.uint16).view(h)
        ok = (got == r) | (np.isnan(got) & np.isnan(r))
        assert ok.all(), text
        assert (w.vgpr[0] >> 16 == 0).all(), f"{text}: gfx9 16-bit ops zero the high half"


def test_fmac_f32():
    w = wave()
    a, b, c = (w.vgpr[i].view(np.float32).copy() for i in (1, 2, 0))
    execute(w, "v_fmac_f32 v0, v1, v2")
    with np.errstate(all="ignore"):
        ref = (a.astype(np.float64) * b + c).astype(np.float32)   # exact product: one rounding (no ties here)
    act = lanes(EXEC)
    got = w.vgpr[0].view(np.float32)
    assert np.array_equal(got[act], ref[act], equal_nan=True)


def test_fmac_is_fused():
    """(1 + 2^-23)^2 - 1 - 2^-22 == 2^-46 only with a single rounding."""
    w = wave(FULL)
    w.vgpr[1] = np.float32(1 + 2 ** -23).view(np.uint32)
    w.vgpr[0] = np.float32(-(1 + 2 ** -22)).view(np.uint32)
    execute(w, "v_fmac_f32 v0, v1, v1")
    assert (w.vgpr[0].view(np.float32) == np.float32(2 ** -46)).all()
