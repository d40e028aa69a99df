"""SDWA semantics (isa.emu.dpp selects) against NumPy: src0/src1 BYTE_0..3/WORD_0/1 with and without
sext, dst_sel BYTE/WORD with dst_unused UNUSED_PAD/UNUSED_SEXT/UNUSED_PRESERVE, f16 word selects,
VOPC in SDWA form, byte-select fp8 conversion, and EXEC masking."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from isa.emu.catalog import execute
from isa.emu.state import Wave

EXEC = 0xFFFF_F0F0_0F0F_FFFF
SELS = {"BYTE_0": (0, 8), "BYTE_1": (8, 8), "BYTE_2": (16, 8), "BYTE_3": (24, 8),
        "WORD_0": (0, 16), "WORD_1": (16, 16), "DWORD": (0, 32)}


def lanes(mask):
    return np.array([(mask >> i) & 1 for i in range(64)], bool)


def wave(seed=0):
    rng = np.random.default_rng(seed)
    w = Wave(0)
    w.vgpr[:] = rng.integers(0, 1 << 32, (256, 64), dtype=np.uint64).astype(np.uint32)
    w.set_exec(EXEC)
    return w


def sel(x, name, sext):
    sh, n = SELS[name]
    v = (x.astype(np.int64) >> sh) & ((1 << n) - 1)
    if sext and n < 32:
        v = np.where(v >> (n - 1), v - (1 << n), v)
    return v


def place(val, old, name, unused):
    sh, n = SELS[name]
    if n == 32:
        return val & 0xFFFFFFFF
    field = ((1 << n) - 1) << sh
    new = (val.astype(np.int64) << sh) & field
    if unused == "UNUSED_PRESERVE":
        return new | (old.astype(np.int64) & ~field & 0xFFFFFFFF)
    if unused == "UNUSED_SEXT":
        top = (new >> (sh + n - 1)) & 1
        return np.where(top == 1, new | (0xFFFFFFFF & ~((1 << (sh + n)) - 1)), new)
    return new


@pytest.mark.parametrize("s0", ["BYTE_0", "BYTE_3", "WORD_1", "DWORD"])
@pytest.mark.parametrize("s1", ["BYTE_1", "WORD_0"])
@pytest.mark.parametrize("sext", [False, True])
def test_src_selects_add_u32(s0, s1, sext):
    w = wave()
    a, b, old = w.vgpr[1].copy(), w.vgpr[2].copy(), w.vgpr[0].copy()
    src0 = "sext(v1)" if sext else "v1"
    execute(w, f"v_add_u32_sdwa v0, {src0}, v2 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:{s0} src1_sel:{s1}")
    ref = ((sel(a, s0, sext) + sel(b, s1, False)) & 0xFFFFFFFF).astype(np.uint32)
    act = lanes(EXEC)
    assert np.array_equal(w.vgpr[0][act], ref[act])
    assert np.array_equal(w.vgpr[0][~act], old[~act])


@pytest.mark.parametrize("dst", ["BYTE_0", "BYTE_2", "WORD_1", "WORD_0"])
@pytest.mark.parametrize("unused", ["UNUSED_PAD", "UNUSED_SEXT", "UNUSED_PRESERVE"])
def test_dst_sel_and_unused(dst, unused):
    w = wave()
    a, b, old = w.vgpr[1].copy(), w.vgpr[2].copy(), w.vgpr[0].copy()
    execute(w, f"v_xor_b32_sdwa v0, v1, v2 dst_sel:{dst} dst_unused:{unused} src0_sel:DWORD src1_sel:DWORD")
    ref = place((a ^ b).astype(np.int64), old, dst, unused).astype(np.uint32)
    act = lanes(EXEC)
    assert np.array_equal(w.vgpr[0][act], ref[act])
    assert np.array_equal(w.vgpr[0][~act], old[~act])


def test_f16_word_selects():
    w = wave()
    a, b, old = w.vgpr[1].copy(), w.vgpr[2].copy(), w.vgpr[0].copy()
    execute(w, "v_add_f16_sdwa v0, v1, v2 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:WORD_1 src1_sel:WORD_0")
    h = lambda x: x.astype(np.uint16).view(np.float16)
    with np.errstate(all="ignore"):
        r = (h(a >> 16) + h(b & 0xFFFF)).view(np.uint16).astype(np.uint32)
    ref = (r << 16) | (old & 0xFFFF)
    act = lanes(EXEC)
    assert np.array_equal(w.vgpr[0][act], ref[act])


def test_vopc_sdwa():
    w = wave()
    a, b = w.vgpr[1].copy(), w.vgpr[2].copy()
    execute(w, "v_cmp_lt_u32_sdwa vcc, v1, v2 src0_sel:BYTE_1 src1_sel:BYTE_2")
    lt = (sel(a, "BYTE_1", False) < sel(b, "BYTE_2", False)) & lanes(EXEC)
    assert w.vcc == sum(1 << i for i in range(64) if lt[i])


@pytest.mark.parametrize("arch,dt", [("gfx942", ml_dtypes.float8_e4m3fnuz), ("gfx950", ml_dtypes.float8_e4m3fn)])
def test_fp8_byte_select(arch, dt):
    w = wave()
    x = w.vgpr[1].copy()
    for k in range(4):
        execute(w, f"v_cvt_f32_fp8_sdwa v0, v1 src0_sel:BYTE_{k}", arch=arch)
        ref = ((x >> (8 * k)) & 0xFF).astype(np.uint8).view(dt).astype(np.float32).view(np.uint32)
        act = lanes(EXEC)
        assert np.array_equal(w.vgpr[0][act], ref[act])
    execute(w, "v_cvt_pk_f32_fp8_sdwa v[4:5], v1 src0_sel:WORD_1", arch=arch)
    assert np.array_equal(w.vgpr[4][act], ((x >> 16) & 0xFF).astype(np.uint8).view(dt).astype(np.float32).view(np.uint32)[act])
    assert np.array_equal(w.vgpr[5][act], (x >> 24).astype(np.uint8).view(dt).astype(np.float32).view(np.uint32)[act])
