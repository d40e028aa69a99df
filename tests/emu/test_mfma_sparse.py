"""Sparse MFMAs (v_smfmac_*, isa/emu/mfma_sparse.py): hand-computed results, every implemented
form on both arches against a NumPy matmul of the expanded A (exact sums), index-set selection
(abid/cbsz), EXEC/pending/refusal checks, and llvm-mc-22 acceptance of the syntax used."""
from __future__ import annotations

import shutil
import subprocess
import zlib

import ml_dtypes
import numpy as np
import pytest
from core_util import run

from isa.emu import Emulator
from isa.emu.errors import EmulatorError, PendingReadError, UnknownInstructionError
from isa.emu.mfma_sparse import SPARSE_TABLE, smfmac
from isa.mfma_layout import elems_to_regs, layout
from isa.mfma_shapes import MfmaOperandError

ARCHES = ("gfx942", "gfx950")
ONE, TWO, HUNDRED = 0x3C00, 0x4000, 0x5640          # f16 1.0, 2.0, 100.0


def _pair(lo: int, hi: int) -> int:
    return lo | (hi << 16)


def _hand_vgprs(idx: int) -> dict:
    """A: every stored value 1.0. B (v6..v9, 8 halves/lane): e0,e1 = 100, e2,e3 = 1, e4,e5 = 0,
    e6,e7 = 2 (dense k of the lane's 8 = 8*(lane//16) + e, CALC)."""
    return {4: _pair(ONE, ONE), 5: _pair(ONE, ONE), 6: _pair(HUNDRED, HUNDRED),
            7: _pair(ONE, ONE), 8: 0, 9: _pair(TWO, TWO), 10: idx}


HAND = """
      v_smfmac_f32_16x16x32_f16 {dst}, v[4:5], v[6:9], v10{mods}
      s_nop 7
      s_endpgm"""


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("idx, mods, expect", [
    # 0xEE: both groups keep positions 2,3 (CK smfmac test: "last two elements of every 4") ->
    # per lane group B k%8 in {2,3,6,7}: 1+1+2+2 = 6, four lane groups: 24. 100s dropped.
    (0xEE, "", 24.0),
    # 0x44: positions 0,1 -> 100+100 (+0+0) per lane group: 800
    (0x44, "", 800.0),
    # swapped order in a group (first at 3, second at 2) is the same set: 24
    (0xBB, "", 24.0),
    # set 1 (bits 15:8) chosen by abid:1 with cbsz:0; set 0 otherwise (CALC, MLIR doc)
    (0xEE44, " abid:1", 24.0),
    (0xEE44, "", 800.0),
    (0xEE44, " cbsz:1 abid:1", 800.0),
    (0x44 << 24, " abid:3", 800.0),
])
def test_hand_f16_16x16x32(arch, idx, mods, expect):
    m = run(HAND.format(dst="v[0:3]", mods=mods), emu=Emulator(arch=arch), vgprs=_hand_vgprs(idx))
    d = m.waves[0].vgpr[0:4].view(np.float32)
    np.testing.assert_array_equal(d, np.full((4, 64), expect, np.float32))


def test_hand_accumulates_into_agpr_vdst():
    """vdst is C and D: a[0:3] = 0.5 before -> 24.5 after; inputs untouched."""
    def setup_text():
        return "\n".join(f"v_accvgpr_write_b32 a{i}, 0.5" for i in range(4)) + HAND.format(
            dst="a[0:3]", mods="")
    m = run(setup_text(), vgprs=_hand_vgprs(0xEE))
    w = m.waves[0]
    np.testing.assert_array_equal(w.agpr[0:4].view(np.float32), np.full((4, 64), 24.5, np.float32))
    assert int(w.vgpr[10][0]) == 0xEE and int(w.vgpr[6][0]) == _pair(HUNDRED, HUNDRED)


def test_hand_i8_16x16x64_index_sets():
    """8-bit forms: 8 stored bytes per lane (16 dense k), 16-bit index sets (abid 0..1).
    A bytes all 1; B bytes e = 0..15 of a lane hold k%16 = e -> value e. idx 0xEEEE keeps
    positions 2,3 of each group: sum over 4 lane groups of (2+3+6+7+10+11+14+15) = 4*68."""
    vg = {4: 0x01010101, 5: 0x01010101, 6: 0x03020100, 7: 0x07060504, 8: 0x0B0A0908,
          9: 0x0F0E0D0C, 10: 0x4444EEEE}
    text = "v_smfmac_i32_16x16x64_i8 v[0:3], v[4:5], v[6:9], v10{m}\ns_nop 7\ns_endpgm"
    for mods, expect in (("", 4 * 68), (" abid:1", 4 * (0 + 1 + 4 + 5 + 8 + 9 + 12 + 13))):
        d = run(text.format(m=mods), vgprs=vg).waves[0].vgpr[0:4].view(np.int32)
        np.testing.assert_array_equal(d, np.full((4, 64), expect, np.int32))
    with pytest.raises(EmulatorError, match="abid=2 selects index set 2, but the index VGPR holds 2"):
        run(text.format(m=" abid:2"), vgprs=vg)


# ---- every implemented form, both arches, against NumPy on the expanded A ---------------------

_F8 = {("fp8", "gfx942"): ml_dtypes.float8_e4m3fnuz, ("fp8", "gfx950"): ml_dtypes.float8_e4m3fn,
       ("bf8", "gfx942"): ml_dtypes.float8_e5m2fnuz, ("bf8", "gfx950"): ml_dtypes.float8_e5m2}
_DT = {"i8": np.int8, "f16": np.float16, "bf16": ml_dtypes.bfloat16}
_RAW = {8: np.uint8, 16: np.uint16}


def _elems(rng, t, arch, shape):
    vals = rng.integers(-4, 5, shape).astype(_F8.get((t, arch)) or _DT[t])
    return vals, vals.view(_RAW[vals.dtype.itemsize * 8])


def _case(name, arch, sel, rng):
    """Registers and the dense A, B of one random case. Dense positions from the CALC formulas:
    lane l, stored value p -> A[l % M, kd*(l//M) + 4*(p//2) + idx_p], idx_p = set bits [2p+1:2p];
    B element e of lane l -> B[kd*(l//M) + e, l % M]."""
    info = SPARSE_TABLE[name]
    m, k = info.m, info.k
    kd = k * m // 64
    av, ac = _elems(rng, info.a_type, arch, (64, kd // 2))
    bv, bc = _elems(rng, info.b_type, arch, (64, kd))
    a_dense, b_dense = np.zeros((m, k)), np.zeros((k, m))
    idx = np.zeros(64, np.uint64)
    for lane in range(64):
        word = 0
        for g in range(kd // 4):
            first, second = rng.choice(4, 2, replace=False)
            word |= (int(first) | int(second) << 2) << (4 * g)
            for p, pos in ((2 * g, first), (2 * g + 1, second)):
                a_dense[lane % m, kd * (lane // m) + 4 * g + pos] = float(av[lane, p])
        idx[lane] = word << (kd * sel)
        for e in range(kd):
            b_dense[kd * (lane // m) + e, lane % m] = float(bv[lane, e])
    return (elems_to_regs(ac, info.bits), elems_to_regs(bc, info.bits),
            idx.astype(np.uint32), a_dense, b_dense)


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("name", sorted(SPARSE_TABLE))
def test_matches_numpy_expanded(name, arch):
    rng = np.random.default_rng(zlib.crc32(f"{name}/{arch}".encode()))
    info = SPARSE_TABLE[name]
    m = info.m
    sets = 32 // (info.k * m // 64)
    sel = int(rng.integers(sets))
    a, b, idx, a_dense, b_dense = _case(name, arch, sel, rng)
    c = rng.integers(-8, 9, (m, m))
    cd = layout("v_mfma_f32_16x16x16_f16" if m == 16 else "v_mfma_f32_32x32x8_f16").cd_flat
    cd = cd.reshape(m, m)
    regs = np.zeros(info.cd_regs * 64, np.uint32)
    regs[cd.ravel()] = (c.astype(np.int32) if info.kind == "int" else c.astype(np.float32)
                        ).view(np.uint32).ravel()
    regs = regs.reshape(info.cd_regs, 64)
    cd_regs = info.cd_regs
    dst = f"v[0:{cd_regs - 1}]"
    text = (f"{name} {dst}, v[{cd_regs}:{cd_regs + 1}], v[{cd_regs + 2}:{cd_regs + 5}], "
            f"v{cd_regs + 6} abid:{sel}\ns_nop 7\ns_nop 7\ns_endpgm")
    vg = {i: regs[i] for i in range(cd_regs)}
    vg.update({cd_regs: a[0], cd_regs + 1: a[1], cd_regs + 6: idx})
    vg.update({cd_regs + 2 + i: b[i] for i in range(4)})
    w = run(text, emu=Emulator(arch=arch), vgprs=vg).waves[0]
    d = w.vgpr[0:cd_regs].reshape(-1)[cd]
    d = d.view(np.int32) if info.kind == "int" else d.view(np.float32)
    np.testing.assert_array_equal(d, a_dense @ b_dense + c)
    # the function form agrees with the machine
    np.testing.assert_array_equal(smfmac(name, arch, a, b, regs, idx, abid=sel),
                                  w.vgpr[0:cd_regs])


# ---- EXEC, pending loads, refusals ------------------------------------------------------------

def test_partial_exec_refused():
    with pytest.raises(EmulatorError, match="only a full EXEC is modelled"):
        run(HAND.format(dst="v[0:3]", mods=""), vgprs=_hand_vgprs(0xEE), exec_mask=(1 << 63) - 1)


@pytest.mark.parametrize("load_to", ["v10", "v0"])
def test_pending_load_on_index_or_accumulator(load_to):
    """The index VGPR (src2) and vdst (read as C) are reads: a pending LDS load into either is an
    error (RW_SETS of isa.emu.mfma_sparse)."""
    text = f"""
      v_mov_b32 v20, 0
      v_mov_b32 v21, 0xee
      ds_write_b32 v20, v21
      s_waitcnt lgkmcnt(0)
      ds_read_b32 {load_to}, v20
      v_smfmac_f32_16x16x32_f16 v[0:3], v[4:5], v[6:9], v10
      s_endpgm"""
    with pytest.raises(PendingReadError):
        run(text, lds=64, vgprs=_hand_vgprs(0xEE))
    ok = text.replace("v_smfmac", "s_waitcnt lgkmcnt(0)\n      v_smfmac")
    w = run(ok, lds=64, vgprs=_hand_vgprs(0xEE)).waves[0]
    assert w.vgpr[0:4].view(np.float32).min() >= 24.0


def test_gfx950_double_k_forms_refused():
    with pytest.raises(UnknownInstructionError, match="per-lane dense k order"):
        run("v_smfmac_f32_16x16x64_f16 v[0:3], v[4:7], v[8:15], v16\ns_endpgm",
            emu=Emulator(arch="gfx950"))


def test_clashing_indices_refused_unless_one_is_zero():
    vg = _hand_vgprs(0x00)                      # both stored values of each group at position 0
    with pytest.raises(EmulatorError, match="both stored A values name position 0"):
        run(HAND.format(dst="v[0:3]", mods=""), vgprs=vg)
    vg[4] = vg[5] = _pair(ONE, 0)               # second of each pair is +0: exact
    d = run(HAND.format(dst="v[0:3]", mods=""), vgprs=vg).waves[0].vgpr[0:4].view(np.float32)
    np.testing.assert_array_equal(d, np.full((4, 64), 4 * (100.0 + 0.0), np.float32))


def test_blgp_and_nonfinite_b_refused():
    name = "v_smfmac_f32_16x16x32_f16"
    a = np.full((2, 64), _pair(ONE, ONE), np.uint32)
    b = np.full((4, 64), _pair(ONE, ONE), np.uint32)
    c = np.zeros((4, 64), np.uint32)
    idx = np.full(64, 0xEE, np.uint32)
    with pytest.raises(MfmaOperandError, match="BLGP is not supported"):
        smfmac(name, "gfx942", a, b, c, idx, blgp=1)
    b[0] = _pair(0x7C00, 0x7C00)                # +inf at positions 0,1: dropped by every row
    with pytest.raises(MfmaOperandError, match="inf/NaN at a position some A row drops"):
        smfmac(name, "gfx942", a, b, c, idx)
    b[0] = _pair(ONE, ONE)
    b[1] = _pair(0x7C00, ONE)                    # +inf at position 2: kept by every row -> +inf
    d = smfmac(name, "gfx942", a, b, c, idx).view(np.float32)
    assert np.isposinf(d).all()


# ---- the syntax is real ---------------------------------------------------------------------

@pytest.mark.skipif(shutil.which("llvm-mc-22") is None, reason="llvm-mc-22 not installed")
@pytest.mark.parametrize("arch, text", [
    ("gfx942", "v_smfmac_f32_16x16x32_f16 v[0:3], v[4:5], v[6:9], v10 abid:3"),
    ("gfx942", "v_smfmac_f32_16x16x32_f16 a[0:3], v[4:5], v[6:9], v10 cbsz:1 abid:1"),
    ("gfx942", "v_smfmac_i32_16x16x64_i8 v[0:3], v[4:5], v[6:9], v10 abid:1"),
    ("gfx942", "v_smfmac_f32_32x32x16_bf16 v[0:15], v[16:17], v[18:21], v22"),
    ("gfx950", "v_smfmac_f32_32x32x32_bf8_fp8 v[0:15], v[16:17], v[18:21], v22 abid:1"),
    ("gfx950", "v_smfmac_f32_16x16x64_f16 v[0:3], v[4:7], v[8:15], v16"),
])
def test_llvm_mc_accepts(arch, text):
    r = subprocess.run(["llvm-mc-22", "-triple=amdgcn-amd-amdhsa", f"-mcpu={arch}",
                        "-show-encoding"], input=text, capture_output=True, text=True, check=False)
    assert r.returncode == 0 and "encoding" in r.stdout, r.stderr
