"""MFMA lane layouts: CALC formulas, one-hot placement, pack/unpack round trips, table names."""
from __future__ import annotations

import shutil
import subprocess
import zlib

import ml_dtypes
import numpy as np
import pytest

from isa.emu.mfma import mfma
from isa.mfma_layout import (
    a_coords,
    a_index,
    b_coords,
    cd_coords,
    cd_index,
    elems_to_regs,
    pack_a,
    pack_b,
    pack_c,
    regs_to_elems,
    unpack_d,
)
from isa.mfma_shapes import MFMA_TABLE, MfmaOperandError, MfmaUnsupported, mfma_info, mfma_names, mfma_shape

ALL = sorted(MFMA_TABLE)
CDNA3 = [n for n in ALL if "gfx942" in MFMA_TABLE[n].arches]
ONE = {"f16": np.float16, "bf16": ml_dtypes.bfloat16, "i8": np.int8, "f32": np.float32,
       "xf32": np.float32, "fp8": ml_dtypes.float8_e4m3fn, "bf8": ml_dtypes.float8_e5m2,
       "f8f6f4": ml_dtypes.float8_e4m3fn}


def _calc_a(name, reg, lane, sub):
    """CALC (-a CDNA3 -d) 'Register to matrix element mapping' for A, written out per family."""
    i = mfma_info(name)
    m, bits = i.m, i.bits
    epr = 32 // bits
    e = reg * epr + sub                               # "epr * GPR_num + floor(GPR_bits / bits)"
    if i.blocks > 1:                                  # "A block: floor(lane / M)", "A k: ..."
        return lane // m, lane % m, e
    if i.a_type == "f8f6f4":     # not in CALC: CDNA4 ISA 7.1.5.1 FP8 tables, two runs of 16 K
        return 0, lane % m, (e // 16) * (i.k // 2) + 16 * (lane // m) + e % 16
    return 0, lane % m, i.k_per_lane * (lane // m) + e


def _calc_cd(name, reg, lane):
    i = mfma_info(name)
    if i.m == 32:   # "(8*floor(GPR/4) % 32) + 4*floor(lane/32) + GPR % 4", block floor(GPR/16)
        return reg // 16, (8 * (reg // 4)) % 32 + 4 * (lane // 32) + reg % 4, lane % 32
    if i.m == 16:   # "4*floor(lane/16) + GPR % 4", block floor(GPR/4)
        return reg // 4, 4 * (lane // 16) + reg % 4, lane % 16
    return lane // 4, reg % 4, lane % 4   # 4x4: "GPR % 4", "lane % 4", block "floor(lane/4)"


@pytest.mark.parametrize("name", ALL)
def test_coords_match_calc_formulas(name):
    info = mfma_info(name)
    blk, row, k = a_coords(name)
    bblk, bk, bcol = b_coords(name)
    epr = 32 // info.bits
    for reg in range(info.a_regs):
        for lane in range(0, 64, 3):
            for sub in range(epr):
                want = _calc_a(name, reg, lane, sub)
                assert (blk[reg, lane, sub], row[reg, lane, sub], k[reg, lane, sub]) == want
                assert (bblk[reg, lane, sub], bcol[reg, lane, sub], bk[reg, lane, sub]) == want
                assert a_index(name, reg, lane, sub) == want
    cb, ci, cj = cd_coords(name)
    for reg in range(info.cd_regs):
        for lane in range(64):
            assert (cb[reg, lane], ci[reg, lane], cj[reg, lane]) == _calc_cd(name, reg, lane)
    assert cd_index(name, info.cd_regs - 1, 63) == _calc_cd(name, info.cd_regs - 1, 63)


def test_calc_spot_values_32x32x8_f16():
    # CALC -a CDNA3 -i v_mfma_f32_32x32x8_f16 -A/-D: A[i][k] GPR (k/2)%2, lane 32*(k/4)+i;
    # D: GPR 4*(i/8)+i%4, lane 32*((i/4)%2)+j  (cdna-facts 2.2)
    name = "v_mfma_f32_32x32x8_f16"
    assert a_index(name, 1, 37, 1) == (0, 5, 7)
    assert a_index(name, 0, 3, 0) == (0, 3, 0)
    assert cd_index(name, 5, 40) == (0, 4 * 0 + 8 + 4 + 1, 8)   # i = 8*1 + 4*1 + 1 = 13
    assert mfma_shape(name).cd_regs == 16 and mfma_shape(name).a_regs == 2


@pytest.mark.parametrize("name", ALL)
def test_one_hot_lands_at_the_right_register_and_lane(name):
    info = mfma_info(name)
    arch = "gfx942" if "gfx942" in info.arches else "gfx950"
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    dt = ONE[info.a_type] if arch == "gfx950" or info.a_type not in ("fp8", "bf8") else \
        {"fp8": ml_dtypes.float8_e4m3fnuz, "bf8": ml_dtypes.float8_e5m2fnuz}[info.a_type]
    dtb = dt if info.a_type == info.b_type else \
        {"fp8": ml_dtypes.float8_e4m3fnuz, "bf8": ml_dtypes.float8_e5m2fnuz}[info.b_type]
    out_dt = np.int32 if info.out_type == "i32" else np.float32
    for _ in range(4):
        bl, i, k, j = (int(rng.integers(x)) for x in (info.blocks, info.m, info.k, info.n))
        a = np.zeros((info.blocks, info.m, info.k), dt)
        b = np.zeros((info.blocks, info.k, info.n), dtb)
        a[bl, i, k] = 2
        b[bl, k, j] = 3
        c = np.zeros((info.blocks, info.m, info.n), out_dt)
        if info.blocks == 1:
            a, b, c = a[0], b[0], c[0]
        d = mfma(name, arch, pack_a(name, a), pack_b(name, b), pack_c(name, c))
        nz = np.argwhere(d != 0)
        assert len(nz) == 1, (name, nz)
        reg, lane = nz[0]
        assert cd_index(name, reg, lane) == (bl, i, j)
        assert d[reg, lane].view(out_dt) == 6


@pytest.mark.parametrize("name", ALL)
def test_pack_unpack_round_trip(name):
    info = mfma_info(name)
    rng = np.random.default_rng(1)
    shape = (info.blocks, info.m, info.n) if info.blocks > 1 else (info.m, info.n)
    c = rng.integers(0, 2**32, shape, dtype=np.uint64).astype(np.uint32)
    regs = pack_c(name, c)
    assert regs.shape == (info.cd_regs, 64)
    assert np.array_equal(unpack_d(name, regs).view(np.uint32), c)
    a_shape = (info.blocks, info.m, info.k) if info.blocks > 1 else (info.m, info.k)
    raw = {32: np.uint32, 16: np.uint16, 8: np.uint8}[info.bits]
    a = rng.integers(0, 2 ** info.bits, a_shape, dtype=np.uint64).astype(raw)
    ra = pack_a(name, a)
    assert ra.shape == (info.a_regs, 64)
    # every element appears exactly once: repacking the lane elements gives the same registers
    elems = regs_to_elems(ra, info.bits, info.k_per_lane)
    assert np.array_equal(elems_to_regs(elems, info.bits), ra)
    assert sorted(elems.ravel().tolist()) == sorted(a.ravel().tolist())


@pytest.mark.parametrize("bits,dt", [(6, ml_dtypes.float6_e2m3fn), (4, ml_dtypes.float4_e2m1fn),
                                     (6, ml_dtypes.float6_e3m2fn)])
def test_f8f6f4_narrow_formats_pack_as_bit_strings(bits, dt):
    name = "v_mfma_f32_16x16x128_f8f6f4"
    rng = np.random.default_rng(bits)
    codes = rng.integers(0, 2**bits, (16, 128)).astype(np.uint8)
    a = codes.view(dt)
    regs = pack_a(name, a)
    assert regs.shape == (32 * bits // 32, 64)
    # lane 17 holds row 1, k = 32..63; element e at bit e*bits of the lane's register string
    lane_bits = sum(int(regs[r, 17]) << (32 * r) for r in range(regs.shape[0]))
    for e in range(32):
        assert (lane_bits >> (e * bits)) & (2**bits - 1) == codes[1, 32 + e]


def test_llvm_mc_accepts_every_name_on_its_arches_only():
    tool = shutil.which("llvm-mc-22")
    if tool is None:
        pytest.skip("llvm-mc-22 not installed")

    def regs(n):
        return f"v[32:{31 + n}]" if n > 1 else "v32"
    lines = [f"{n} v[0:{MFMA_TABLE[n].cd_regs - 1}], {regs(MFMA_TABLE[n].a_regs)}, "
             f"{regs(MFMA_TABLE[n].a_regs)}, v[0:{MFMA_TABLE[n].cd_regs - 1}]"
             + (", v40, v41" if MFMA_TABLE[n].scaled else "") for n in ALL]
    for arch in ("gfx942", "gfx950"):
        r = subprocess.run([tool, "-triple=amdgcn-amd-amdhsa", f"-mcpu={arch}"],
                           input="\n".join(lines) + "\n", capture_output=True, text=True,
                           check=False)
        bad = {int(x.split(":")[1]) - 1 for x in r.stderr.splitlines() if ": error:" in x}
        for i, name in enumerate(ALL):
            assert (i not in bad) == (arch in MFMA_TABLE[name].arches), (arch, name, r.stderr)
    assert len(mfma_names("gfx942")) == 30 and len(mfma_names("gfx950")) == 38


def test_errors_name_the_culprit():
    with pytest.raises(MfmaUnsupported, match="v_mfma_f64_16x16x4_f64"):
        mfma_info("v_mfma_f64_16x16x4_f64")
    with pytest.raises(MfmaUnsupported, match="gfx950"):
        mfma_info("v_mfma_f32_16x16x8_xf32", "gfx950")
    with pytest.raises(MfmaUnsupported, match="gfx942"):
        mfma("v_mfma_f32_16x16x32_f16", "gfx942", np.zeros((4, 64), np.uint32),
             np.zeros((4, 64), np.uint32), np.zeros((4, 64), np.uint32))
    with pytest.raises(MfmaOperandError, match="bfloat16"):
        pack_a("v_mfma_f32_32x32x8_f16", np.zeros((32, 8), ml_dtypes.bfloat16))
    with pytest.raises(MfmaOperandError, match=r"\(16, 8\)"):
        pack_a("v_mfma_f32_32x32x8_f16", np.zeros((16, 8), np.float16))
    with pytest.raises(MfmaOperandError, match="blgp"):
        z2, z16 = np.zeros((2, 64), np.uint32), np.zeros((16, 64), np.uint32)
        mfma("v_mfma_f32_32x32x8_f16", "gfx942", z2, z2, z16, blgp=1)
