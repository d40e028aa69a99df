"""VOP1 semantics (isa.emu.valu_int, valu_float, valu_cvt, valu_lane) against NumPy/ml_dtypes: moves,
bit scans, conversions (clamping, NaN -> 0, RNE), transcendentals, rounding, fp8/bf8 per arch, the
lane ops v_readfirstlane/v_swap/v_permlane*_swap, and EXEC masking."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from isa.emu.catalog import execute
from isa.emu.state import Wave

FULL = (1 << 64) - 1
EXEC = 0x0FF0_F00F_FFFF_0001
F32 = np.float32
SPECIAL = np.array([0.0, -0.0, 1.0, -1.5, np.inf, -np.inf, np.nan, 1e-40, -1e-40, 3e9, -3e9, 4.5e9,
                    65504.0, 65520.0, 1e5, 0.5, 2.5, -2.5, 1.4999999, 123.456], F32)


def lanes(mask):
    return np.array([(mask >> i) & 1 for i in range(64)], bool)


def wave(exec_mask=EXEC, seed=0, floats=True):
    rng = np.random.default_rng(seed)
    w = Wave(0)
    w.vgpr[:] = rng.integers(0, 1 << 32, (256, 64), dtype=np.uint64).astype(np.uint32)
    if floats:
        vals = (rng.standard_normal(64) * 10.0 ** rng.integers(-3, 4, 64)).astype(F32)
        vals[:len(SPECIAL)] = SPECIAL
        w.vgpr[1] = vals.view(np.uint32)
    w.set_exec(exec_mask)
    return w


def check(text, ref, src=1, dst=0, in_dtype=np.uint32, out_dtype=np.uint32, exec_mask=EXEC, arch="gfx942",
          w=None):
    w = w if w is not None else wave(exec_mask)
    old = w.vgpr[dst].copy()
    x = w.vgpr[src].copy().view(in_dtype)
    execute(w, text, arch=arch)
    with np.errstate(all="ignore"):
        r = np.asarray(ref(x)).astype(out_dtype).view(np.uint32)
    act = lanes(w.exec)
    assert np.array_equal(w.vgpr[dst][act], r[act]), text
    assert np.array_equal(w.vgpr[dst][~act], old[~act]), f"{text}: inactive lanes changed"


def test_moves_and_bits():
    check("v_mov_b32 v0, v1", lambda a: a)
    check("v_not_b32 v0, v1", lambda a: ~a)
    check("v_bfrev_b32 v0, v1", lambda a: np.array([int(f"{int(x):032b}"[::-1], 2) for x in a], np.uint32))
    clz = lambda x: np.array([32 - int(v).bit_length() if v else 0xFFFFFFFF for v in x], np.uint32)
    check("v_ffbh_u32 v0, v1", clz)
    ctz = lambda x: np.array([((int(v) & -int(v)).bit_length() - 1) if v else 0xFFFFFFFF for v in x], np.uint32)
    check("v_ffbl_b32 v0, v1", ctz)
    w = wave(FULL, floats=False)
    w.vgpr[1, :4] = [0, 1, 0x80000000, 0]
    check("v_ffbh_u32 v0, v1", clz, w=w)
    w = wave(EXEC)
    execute(w, "v_mov_b64 v[4:5], v[2:3]")
    act = lanes(EXEC)
    assert np.array_equal(w.vgpr[4][act], w.vgpr[2][act]) and np.array_equal(w.vgpr[5][act], w.vgpr[3][act])
    execute(w, "v_mov_b32 v0, 1.0")
    assert (w.vgpr[0][act] == 0x3F800000).all()


def test_int_float_conversions():
    def f2u(x):
        t = np.trunc(x.astype(np.float64))
        return np.where(np.isnan(t), 0, np.clip(t, 0, 2 ** 32 - 1)).astype(np.uint64).astype(np.uint32)

    def f2i(x):
        t = np.trunc(x.astype(np.float64))
        return np.where(np.isnan(t), 0, np.clip(t, -2 ** 31, 2 ** 31 - 1)).astype(np.int64).astype(np.int32)
    check("v_cvt_u32_f32 v0, v1", f2u, in_dtype=F32)
    check("v_cvt_i32_f32 v0, v1", f2i, in_dtype=F32, out_dtype=np.int32)
    check("v_cvt_f32_u32 v0, v2", lambda a: a.astype(F32), src=2, out_dtype=F32)
    check("v_cvt_f32_i32 v0, v2", lambda a: a.astype(F32), src=2, in_dtype=np.int32, out_dtype=F32)
    check("v_cvt_flr_i32_f32 v0, v1", lambda x: f2i(np.floor(x)), in_dtype=F32, out_dtype=np.int32)
    check("v_cvt_f32_ubyte2 v0, v2", lambda a: ((a >> 16) & 0xFF).astype(F32), src=2, out_dtype=F32)


def test_f16_conversions():
    check("v_cvt_f16_f32 v0, v1", lambda x: x.astype(np.float16).view(np.uint16).astype(np.uint32), in_dtype=F32)
    w = wave()
    w.vgpr[2] = w.vgpr[2] & 0xFFFF
    check("v_cvt_f32_f16 v0, v2", lambda a: (a & 0xFFFF).astype(np.uint16).view(np.float16).astype(F32),
          src=2, out_dtype=F32, w=w)


@pytest.mark.parametrize("text,ref", [
    ("v_exp_f32 v0, v1", np.exp2), ("v_log_f32 v0, v1", np.log2), ("v_rcp_f32 v0, v1", lambda x: F32(1) / x),
    ("v_sqrt_f32 v0, v1", np.sqrt), ("v_rsq_f32 v0, v1", lambda x: (1 / np.sqrt(x.astype(np.float64))).astype(F32)),
    ("v_trunc_f32 v0, v1", np.trunc), ("v_floor_f32 v0, v1", np.floor), ("v_ceil_f32 v0, v1", np.ceil),
    ("v_rndne_f32 v0, v1", np.rint),
    ("v_fract_f32 v0, v1", lambda x: np.where(np.isinf(x), np.nan, np.minimum(x - np.floor(x), F32(1 - 2 ** -24)))),
    ("v_frexp_mant_f32 v0, v1", lambda x: np.where(np.isfinite(x), np.frexp(x)[0], x))])
def test_float_unary(text, ref):
    check(text, ref, in_dtype=F32, out_dtype=F32)


def test_frexp_exp_and_rndne_ties():
    check("v_frexp_exp_i32_f32 v0, v1", lambda x: np.where(np.isfinite(x), np.frexp(x)[1], 0),
          in_dtype=F32, out_dtype=np.int32)
    w = wave(FULL)
    w.vgpr[1, :4] = np.array([0.5, 1.5, 2.5, -0.5], F32).view(np.uint32)
    execute(w, "v_rndne_f32 v0, v1")
    assert list(w.vgpr[0, :4].view(F32)) == [0.0, 2.0, 2.0, -0.0]


@pytest.mark.parametrize("arch,fp8,bf8", [("gfx942", ml_dtypes.float8_e4m3fnuz, ml_dtypes.float8_e5m2fnuz),
                                          ("gfx950", ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2)])
def test_fp8_to_f32(arch, fp8, bf8):
    w = wave(FULL)
    w.vgpr[1] = np.arange(64, dtype=np.uint32) * 0x01030507
    b0 = (w.vgpr[1] & 0xFF).astype(np.uint8)
    check("v_cvt_f32_fp8 v0, v1", lambda a: b0.view(fp8).astype(F32), in_dtype=np.uint32, out_dtype=F32,
          arch=arch, w=w)
    check("v_cvt_f32_bf8 v0, v1", lambda a: b0.view(bf8).astype(F32), out_dtype=F32, arch=arch, w=w)
    execute(w, "v_cvt_pk_f32_fp8 v[2:3], v1", arch=arch)
    b1 = ((w.vgpr[1] >> 8) & 0xFF).astype(np.uint8)
    assert np.array_equal(w.vgpr[2], b0.view(fp8).astype(F32).view(np.uint32))
    assert np.array_equal(w.vgpr[3], b1.view(fp8).astype(F32).view(np.uint32))


def test_bf16_to_f32_gfx950():
    check("v_cvt_f32_bf16 v0, v2", lambda a: ((a & 0xFFFF) << 16).view(F32), src=2, out_dtype=F32, arch="gfx950")


def test_readfirstlane():
    w = wave(0b1011000)
    execute(w, "v_readfirstlane_b32 s4, v2")
    assert int(w.sgpr[4]) == int(w.vgpr[2, 3])
    w.set_exec(0)
    execute(w, "v_readfirstlane_b32 s4, v2")
    assert int(w.sgpr[4]) == int(w.vgpr[2, 0])


def test_swap_and_accvgpr():
    w = wave()
    a, b = w.vgpr[1].copy(), w.vgpr[2].copy()
    execute(w, "v_swap_b32 v1, v2")
    act = lanes(EXEC)
    assert np.array_equal(w.vgpr[1], np.where(act, b, a)) and np.array_equal(w.vgpr[2], np.where(act, a, b))
    execute(w, "v_accvgpr_write_b32 a3, v1")
    assert np.array_equal(w.agpr[3][act], w.vgpr[1][act])
    execute(w, "v_accvgpr_mov_b32 a4, a3")
    execute(w, "v_accvgpr_read_b32 v7, a4")
    assert np.array_equal(w.vgpr[7][act], w.vgpr[1][act])


def test_permlane_swaps_gfx950():
    w = wave(FULL)
    w.vgpr[0] = np.arange(64)
    w.vgpr[1] = np.arange(100, 164)
    execute(w, "v_permlane16_swap_b32 v0, v1", arch="gfx950")
    r = np.arange(64)
    odd = (r // 16) % 2 == 1
    # odd rows of v0 now hold v1's even rows; v1's even rows hold v0's odd rows
    assert np.array_equal(w.vgpr[0][odd], 100 + r[~odd])
    assert np.array_equal(w.vgpr[0][~odd], r[~odd])
    assert np.array_equal(w.vgpr[1][~odd], r[odd])
    w.vgpr[0] = np.arange(64)
    w.vgpr[1] = np.arange(100, 164)
    execute(w, "v_permlane32_swap_b32 v0, v1", arch="gfx950")
    assert np.array_equal(w.vgpr[0], np.concatenate([r[:32], 100 + r[:32]]))
    assert np.array_equal(w.vgpr[1], np.concatenate([r[32:], 100 + r[32:]]))
