"""VOP3P semantics (isa.emu.valu_float packed section) against NumPy: v_pk_* f16 with op_sel/op_sel_hi/
neg_lo/neg_hi, the packed f32 forms on register pairs, v_pk_mov_b32, integer packed ops, dot products,
and EXEC masking."""
from __future__ import annotations

from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from isa.emu.catalog import execute
from isa.emu.state import Wave

EXEC = 0x3333_CCCC_FFFF_0F0F
F16, F32, U32 = np.float16, np.float32, np.uint32


def lanes(mask):
    return np.array([(mask >> i) & 1 for i in range(64)], bool)


def wave(seed=0):
    rng = np.random.default_rng(seed)
    w = Wave(0)
    w.vgpr[:] = rng.integers(0, 1 << 32, (256, 64), dtype=np.uint64).astype(U32)
    h = (rng.standard_normal((8, 64, 2)) * 3).astype(F16)
    w.vgpr[1:9] = h.view(U32)[..., 0]
    f = (rng.standard_normal((6, 64)) * 3).astype(F32)
    w.vgpr[10:16] = f.view(U32)
    w.set_exec(EXEC)
    return w


def halves(x):
    return (x & 0xFFFF).astype(np.uint16).view(F16), (x >> 16).astype(np.uint16).view(F16)


def pack(lo, hi):
    return lo.astype(F16).view(np.uint16).astype(U32) | (hi.astype(F16).view(np.uint16).astype(U32) << 16)


def fma16(a, b, c):
    return np.array([F16(float(Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z))))
                     for x, y, z in zip(a, b, c)], F16)


def check(w, dst, ref, old):
    act = lanes(EXEC)
    assert np.array_equal(w.vgpr[dst][act], ref[act])
    assert np.array_equal(w.vgpr[dst][~act], old[~act])


@pytest.mark.parametrize("op,f", [("add", lambda a, b: a + b), ("mul", lambda a, b: a * b),
                                  ("max", np.fmax), ("min", np.fmin)])
def test_pk_f16_binary(op, f):
    w = wave()
    (a0, a1), (b0, b1) = halves(w.vgpr[1]), halves(w.vgpr[2])
    old = w.vgpr[0].copy()
    execute(w, f"v_pk_{op}_f16 v0, v1, v2")
    check(w, 0, pack(f(a0, b0), f(a1, b1)), old)


def test_pk_fma_f16_op_sel_and_neg():
    w = wave()
    (a0, a1), (b0, b1), (c0, c1) = halves(w.vgpr[1]), halves(w.vgpr[2]), halves(w.vgpr[3])
    old = w.vgpr[0].copy()
    execute(w, "v_pk_fma_f16 v0, v1, v2, v3")
    check(w, 0, pack(fma16(a0, b0, c0), fma16(a1, b1, c1)), old)
    # lo = (-a.hi) * b.lo + c.lo; hi = a.lo * (-b.hi) + c.hi
    execute(w, "v_pk_fma_f16 v4, v1, v2, v3 op_sel:[1,0,0] op_sel_hi:[0,1,1] neg_lo:[1,0,0] neg_hi:[0,1,0]")
    check(w, 4, pack(fma16(-a1, b0, c0), fma16(a0, -b1, c1)), wave().vgpr[4])


def test_pk_f16_inline_constant_both_halves():
    w = wave()
    a0, a1 = halves(w.vgpr[1])
    old = w.vgpr[0].copy()
    execute(w, "v_pk_add_f16 v0, v1, 1.0")
    check(w, 0, pack(a0 + F16(1), a1 + F16(1)), old)


def test_pk_f32_forms():
    w = wave()
    a, b, c = (w.vgpr[r:r + 2].view(F32).copy() for r in (10, 12, 14))
    old = w.vgpr[0:2].copy()
    execute(w, "v_pk_mul_f32 v[0:1], v[10:11], v[12:13]")
    act = lanes(EXEC)
    ref = (a * b).view(U32)
    assert np.array_equal(w.vgpr[0:2][:, act], ref[:, act]) and np.array_equal(w.vgpr[0:2][:, ~act], old[:, ~act])
    execute(w, "v_pk_add_f32 v[2:3], v[10:11], v[12:13] op_sel:[1,0] op_sel_hi:[0,1]")
    assert np.array_equal(w.vgpr[2][act], (a[1] + b[0]).view(U32)[act])
    assert np.array_equal(w.vgpr[3][act], (a[0] + b[1]).view(U32)[act])
    execute(w, "v_pk_fma_f32 v[4:5], v[10:11], v[12:13], v[14:15] neg_lo:[0,0,1]")
    ref0 = (a[0].astype(np.float64) * b[0] - c[0]).astype(F32)
    ref1 = (a[1].astype(np.float64) * b[1] + c[1]).astype(F32)
    assert np.array_equal(w.vgpr[4][act], ref0.view(U32)[act]) and np.array_equal(w.vgpr[5][act], ref1.view(U32)[act])
    execute(w, "v_pk_mov_b32 v[6:7], v[10:11], v[12:13] op_sel:[1,0]")
    assert np.array_equal(w.vgpr[6][act], w.vgpr[11][act]) and np.array_equal(w.vgpr[7][act], w.vgpr[12][act])


def test_pk_int16():
    w = wave()
    a, b = w.vgpr[20].copy(), w.vgpr[21].copy()
    lo = lambda x: (x & 0xFFFF).astype(np.uint16)
    hi = lambda x: (x >> 16).astype(np.uint16)
    p = lambda l_, h_: l_.astype(U32) | (h_.astype(U32) << 16)
    old = w.vgpr[0].copy()
    execute(w, "v_pk_add_u16 v0, v20, v21")
    check(w, 0, p(lo(a) + lo(b), hi(a) + hi(b)), old)
    execute(w, "v_pk_max_i16 v0, v20, v21")
    check(w, 0, p(np.maximum(lo(a).view(np.int16), lo(b).view(np.int16)).view(np.uint16),
                  np.maximum(hi(a).view(np.int16), hi(b).view(np.int16)).view(np.uint16)), old)
    execute(w, "v_pk_lshlrev_b16 v0, v20, v21")
    check(w, 0, p(lo(b) << (lo(a) & 15), hi(b) << (hi(a) & 15)), old)


def test_dot_products():
    w = wave()
    (a0, a1), (b0, b1) = halves(w.vgpr[1]), halves(w.vgpr[2])
    c = w.vgpr[10].view(F32).copy()
    old = w.vgpr[0].copy()
    execute(w, "v_dot2_f32_f16 v0, v1, v2, v10")
    ref = (a0.astype(np.float64) * b0 + a1.astype(np.float64) * b1 + c).astype(F32)
    check(w, 0, ref.view(U32), old)
    x, y, z = w.vgpr[20].copy(), w.vgpr[21].copy(), w.vgpr[22].copy()
    execute(w, "v_dot4_i32_i8 v0, v20, v21, v22")
    xb = x.view(np.int8).reshape(64, 4).astype(np.int64)
    yb = y.view(np.int8).reshape(64, 4).astype(np.int64)
    check(w, 0, ((xb * yb).sum(1) + z.view(np.int32)).astype(np.int64).astype(U32), old)
    execute(w, "v_dot2_f32_bf16 v0, v20, v21, v10", arch="gfx950")
    bf = lambda v: v.view(np.uint16).reshape(64, 2).view(ml_dtypes.bfloat16).astype(np.float64)
    with np.errstate(all="ignore"):
        ref = ((bf(x) * bf(y)).sum(1) + c).astype(F32)
    check(w, 0, ref.view(U32), old)
