"""Tests of isa.emu.salu_extra and isa.emu.mem_smem_extra: hand-computed results of the rarer scalar
ops (quadmask, wqm, bitreplicate, movrels/movreld, getreg/setreg of MODE), scalar stores and
atomics, cache ops, no-op SOPPs, and the refusals (s_trap, s_sendmsg, unmodelled hwregs)."""
from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest
from core_util import run, srd

from isa.emu import Emulator
from isa.emu.errors import EmulatorError, PendingReadError, RegisterBudgetError
from isa.emu.salu_extra import TrapError, UnmodelledStateError, bitreplicate, quadmask, wqm

ARCHES = ("gfx942", "gfx950")


def _sgpr(m, i, n=1):
    w = m.waves[0]
    return sum(int(w.sgpr[i + k]) << (32 * k) for k in range(n))


def _run(text, arch="gfx942", **kw):
    return run(text + "\ns_endpgm", arch=arch, **kw)


# ---------------------------------------------------------------------------------- mask shaping
def test_pure_helpers():
    assert quadmask(0x0000_00F1, 32) == 0b11
    assert quadmask(0x8000_0000, 32) == 0x80
    assert quadmask(1 << 63, 64) == 0x8000
    assert wqm(0x0102_0000, 32) == 0x0F0F_0000
    assert wqm(0, 64) == 0
    assert bitreplicate(0x8000_0001) == 0xC000_0000_0000_0003


@pytest.mark.parametrize("arch", ARCHES)
def test_quadmask_wqm_bitreplicate(arch):
    m = _run("""
      s_quadmask_b32 s10, s0
      s_quadmask_b64 s[12:13], s[2:3]
      s_wqm_b32 s14, s0
      s_wqm_b64 s[16:17], s[2:3]
      s_bitreplicate_b64_b32 s[18:19], s4""", arch,
             sgprs={0: 0x1020_0408, 2: [0x0000_0001, 0xF000_0000], 4: 0x8000_0005})
    # s0 = 0x10200408: groups (low first) 8,0,4,0,0,2,0,1 -> bits 0,2,5,7
    assert _sgpr(m, 10) == 0b1010_0101
    assert _sgpr(m, 12, 2) == 0x8001
    assert _sgpr(m, 14) == 0xF0F0_0F0F
    assert _sgpr(m, 16, 2) == 0xF000_0000_0000_000F
    assert _sgpr(m, 18, 2) == 0xC000_0000_0000_0033
    assert m.waves[0].scc == 1          # last SCC writer is s_wqm_b64 (non-zero); bitreplicate keeps it


def test_quadmask_zero_clears_scc():
    m = _run("s_cmp_eq_u32 0, 0\ns_quadmask_b32 s10, s0", sgprs={0: 0})
    assert _sgpr(m, 10) == 0 and m.waves[0].scc == 0
    m = _run("s_cmp_eq_u32 0, 0\ns_wqm_b64 s[10:11], s[0:1]", sgprs={0: [0, 0]})
    assert _sgpr(m, 10, 2) == 0 and m.waves[0].scc == 0


# ---------------------------------------------------------------------------------- movrels/movreld
# (s_nop 0 after the M0 write: LLVM GCNHazardRecognizer SMovRelWaitStates = 1 on GFX9)
@pytest.mark.parametrize("arch", ARCHES)
def test_movrels_movreld(arch):
    m = _run("""
      s_mov_b32 m0, 3
      s_nop 0
      s_movrels_b32 s20, s10
      s_movrels_b64 s[22:23], s[11:12]
      s_movreld_b32 s30, s0
      s_movreld_b64 s[31:32], s[2:3]""", arch,
             sgprs={0: 0xABCD, 2: [5, 6], 10: [100, 101, 102, 103, 104, 105, 106]})
    assert _sgpr(m, 20) == 103                 # s[10 + 3]
    assert _sgpr(m, 22, 2) == (105 << 32) | 104   # s[14:15]
    assert _sgpr(m, 33) == 0xABCD              # s[30 + 3]
    assert _sgpr(m, 34, 2) == (6 << 32) | 5    # s[34:35]


def test_movreld_leaves_nominal_register():
    m = _run("s_mov_b32 s30, 7\ns_mov_b32 m0, 1\ns_nop 0\ns_movreld_b32 s30, 9", sgprs={})
    assert _sgpr(m, 30) == 7 and _sgpr(m, 31) == 9


def test_movrel_errors():
    with pytest.raises(UnmodelledStateError, match="odd"):
        _run("s_mov_b32 m0, 1\ns_nop 0\ns_movrels_b64 s[0:1], s[2:3]", sgprs={})
    with pytest.raises(RegisterBudgetError, match="beyond"):
        _run("s_mov_b32 m0, 200\ns_nop 0\ns_movrels_b32 s0, s2", sgprs={})
    emu = Emulator()
    buf = np.arange(4, dtype=np.uint32)
    p = emu.alloc(buf)
    with pytest.raises(PendingReadError, match="s7"):
        run("""s_load_dword s7, s[0:1], 0
               s_mov_b32 m0, 2
               s_nop 0
               s_movrels_b32 s8, s5
               s_endpgm""", emu=emu, sgprs={0: [p & 0xFFFFFFFF, p >> 32]})


# ---------------------------------------------------------------------------------- getreg/setreg
@pytest.mark.parametrize("arch", ARCHES)
def test_setreg_getreg_mode(arch):
    # the modelled MODE: round 0 (RNE), denorm 0xF (kept), IEEE 1; writes of that value are no-ops
    m = _run("""
      s_getreg_b32 s10, hwreg(HW_REG_MODE, 0, 8)
      s_getreg_b32 s11, hwreg(HW_REG_MODE, 4, 2)
      s_getreg_b32 s12, hwreg(HW_REG_MODE, 9, 1)
      s_getreg_b32 s13, hwreg(HW_REG_MODE, 0, 4)
      s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 2), 3
      s_setreg_b32 hwreg(HW_REG_MODE, 4, 4), s0
      s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 8), 0xf0
      s_setreg_imm32_b32 hwreg(HW_REG_MODE, 9, 1), 1
      s_nop 1
      s_getreg_b32 s14, hwreg(HW_REG_MODE, 6, 2)""", arch, sgprs={0: 0xFFFF_FFFF})
    assert _sgpr(m, 10) == 0xF0
    assert _sgpr(m, 11) == 3
    assert _sgpr(m, 12) == 1
    assert _sgpr(m, 13) == 0
    assert _sgpr(m, 14) == 3


def test_getreg_setreg_refusals():
    with pytest.raises(UnmodelledStateError, match="not modelled"):
        _run("s_getreg_b32 s0, hwreg(HW_REG_MODE, 8, 1)")          # DX10_CLAMP
    with pytest.raises(UnmodelledStateError, match="not modelled"):
        _run("s_getreg_b32 s0, hwreg(HW_REG_MODE)")                 # whole register
    with pytest.raises(UnmodelledStateError, match="HW_REG_HW_ID"):
        _run("s_getreg_b32 s0, hwreg(HW_REG_HW_ID)")
    with pytest.raises(UnmodelledStateError, match="HW_REG_STATUS"):
        _run("s_setreg_imm32_b32 hwreg(HW_REG_STATUS, 0, 1), 1")
    with pytest.raises(UnmodelledStateError, match="round to nearest even"):
        _run("s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 2), 3")      # round toward zero
    # FP_DENORM is modelled (isa.emu.denorm): flushing f32 denormals is accepted and reads back
    m = _run("""
      s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 2), 0
      s_nop 1
      s_getreg_b32 s1, hwreg(HW_REG_MODE, 4, 4)""")
    assert _sgpr(m, 1) == 0b1100
    with pytest.raises(UnmodelledStateError, match="IEEE"):
        _run("s_setreg_b32 hwreg(HW_REG_MODE, 9, 1), s0", sgprs={0: 0})


# ---------------------------------------------------------------------------------- SOPP
@pytest.mark.parametrize("arch", ARCHES)
def test_noops_and_refusals(arch):
    m = _run("""
      s_mov_b32 s0, 5
      s_incperflevel 1
      s_decperflevel 1
      s_ttracedata
      s_wakeup
      s_setkill 0
      s_sethalt 0
      s_mov_b32 s1, 6""", arch)
    assert _sgpr(m, 0) == 5 and _sgpr(m, 1) == 6
    with pytest.raises(TrapError, match="s_trap 2"):
        _run("s_trap 2", arch)
    for text in ("s_sendmsg 1", "s_sendmsghalt 3", "s_setkill 1", "s_sethalt 1"):
        with pytest.raises(UnmodelledStateError):
            _run(text, arch)


# ---------------------------------------------------------------------------------- scalar memory
def _mem(n=16, arch="gfx942", seed=0):
    emu = Emulator(arch=arch, seed=seed)
    buf = np.zeros(n, np.uint32)
    return emu, buf, emu.alloc(buf)


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("seed", [0, 3])
def test_scalar_stores(arch, seed):
    emu, buf, p = _mem(16, arch, seed)
    run("""
      s_store_dword s8, s[0:1], 0x4
      s_store_dwordx2 s[10:11], s[0:1], s12
      s_buffer_store_dwordx4 s[16:19], s[4:7], 0x20
      s_buffer_store_dwordx2 s[10:11], s[4:7], 0x38
      s_dcache_wb
      s_waitcnt lgkmcnt(0)
      s_endpgm""", emu=emu,
        sgprs={0: [p & 0xFFFFFFFF, p >> 32], 4: srd(p, 60), 8: 0x11, 10: [0x22, 0x33], 12: 0x8,
               16: [1, 2, 3, 4]})
    expect = np.zeros(16, np.uint32)
    expect[1] = 0x11
    expect[2:4] = [0x22, 0x33]
    expect[8:12] = [1, 2, 3, 4]
    expect[14] = 0x22        # num_records 60 bytes: dword 14 in range, dword 15 dropped
    assert np.array_equal(buf, expect)


@pytest.mark.parametrize("arch", ARCHES)
def test_scalar_atomics(arch):
    emu, buf, p = _mem(16, arch)
    buf[:] = [10, 20, 0xFFFFFFFF, 7, 5, 0, 9, 1, 0, 0, 0, 0, 0, 0, 0, 0]
    m = run("""
      s_atomic_add s8, s[0:1], 0x0 glc
      s_atomic_sub s9, s[0:1], 0x4
      s_atomic_smax s10, s[0:1], 0x8 glc
      s_atomic_inc s11, s[0:1], 0xc glc
      s_atomic_cmpswap s[12:13], s[0:1], 0x10 glc
      s_atomic_add_x2 s[14:15], s[0:1], 0x18 glc
      s_buffer_atomic_swap s16, s[4:7], 0x20 glc
      s_buffer_atomic_cmpswap_x2 s[20:23], s[4:7], 0x28
      s_waitcnt lgkmcnt(0)
      s_endpgm""", emu=emu,
        sgprs={0: [p & 0xFFFFFFFF, p >> 32], 4: srd(p, 64), 8: 5, 9: 3, 10: 2, 11: 7,
               12: [99, 5], 14: [0xFFFFFFFF, 0], 16: 0x77, 20: [0xA, 0xB, 0, 0]})
    assert list(buf) == [15, 17, 2, 0, 99, 0, 8, 2, 0x77, 0, 0xA, 0xB, 0, 0, 0, 0]
    assert _sgpr(m, 8) == 10            # returned pre-op values (glc)
    assert _sgpr(m, 9) == 3             # no glc: sdata keeps its value
    assert _sgpr(m, 10) == 0xFFFFFFFF   # smax(-1, 2) = 2, returns -1
    assert _sgpr(m, 11) == 7            # inc: 7 >= 7 -> 0
    assert _sgpr(m, 12) == 5            # cmpswap matched (mem 5 == cmp 5)
    assert _sgpr(m, 14, 2) == (1 << 32) | 9   # old qword at dwords 6:7


def test_atomic_result_pending_until_wait():
    emu, _buf, p = _mem(4)
    with pytest.raises(PendingReadError):
        run("""s_atomic_add s8, s[0:1], 0x0 glc
               s_mov_b32 s9, s8
               s_endpgm""", emu=emu, sgprs={0: [p & 0xFFFFFFFF, p >> 32], 8: 1})


def test_cache_ops_and_discard():
    emu, buf, p = _mem(4)
    run("""s_dcache_discard s[0:1], 0x0
           s_dcache_discard_x2 s[0:1], s2
           s_dcache_wb_vol
           s_dcache_inv_vol
           s_waitcnt lgkmcnt(0)
           s_endpgm""", emu=emu, sgprs={0: [p & 0xFFFFFFFF, p >> 32], 2: 0})
    assert not buf.any()
    with pytest.raises(EmulatorError, match="discard"):
        run("""s_store_dword s2, s[0:1], 0x0
               s_dcache_discard s[0:1], 0x0
               s_endpgm""", emu=emu, sgprs={0: [p & 0xFFFFFFFF, p >> 32], 2: 1})


def test_scalar_store_out_of_bounds():
    from isa.emu.errors import GlobalOutOfBoundsError
    emu, _buf, p = _mem(4)
    with pytest.raises(GlobalOutOfBoundsError):
        run("s_store_dwordx4 s[4:7], s[0:1], 0x8\ns_endpgm", emu=emu,
            sgprs={0: [p & 0xFFFFFFFF, p >> 32], 4: [0, 0, 0, 0]})


# ---------------------------------------------------------------------------------- syntax is real
ASM = """
s_getreg_b32 s0, hwreg(HW_REG_MODE, 0, 8)
s_setreg_b32 hwreg(HW_REG_MODE, 4, 2), s1
s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 2), 3
s_quadmask_b32 s0, s1
s_quadmask_b64 s[0:1], s[2:3]
s_wqm_b32 s0, s1
s_wqm_b64 s[0:1], s[2:3]
s_bitreplicate_b64_b32 s[0:1], s2
s_movrels_b32 s0, s4
s_movrels_b64 s[0:1], s[4:5]
s_movreld_b32 s3, s4
s_movreld_b64 s[2:3], s[4:5]
s_store_dword s2, s[4:5], 0x10 glc
s_store_dwordx2 s[2:3], s[4:5], s8
s_store_dwordx4 s[8:11], s[4:5], 0x0
s_buffer_store_dword s2, s[4:7], 0x4
s_buffer_store_dwordx4 s[8:11], s[4:7], s1
s_atomic_add s2, s[4:5], 0x0 glc
s_atomic_cmpswap_x2 s[8:11], s[4:5], 0x4
s_buffer_atomic_umax_x2 s[2:3], s[4:7], 0x4 glc
s_dcache_discard s[4:5], s6
s_dcache_discard_x2 s[4:5], 0x10
s_dcache_wb_vol
s_dcache_inv_vol
s_trap 2
s_sendmsg 1
s_sendmsghalt 1
s_setkill 0
s_sethalt 0
s_incperflevel 1
s_decperflevel 1
s_ttracedata
s_wakeup
"""


@pytest.mark.parametrize("arch", ARCHES)
def test_llvm_mc_accepts(arch):
    tool = shutil.which("llvm-mc-22")
    if tool is None:
        pytest.skip("llvm-mc-22 not installed")
    r = subprocess.run([tool, "-triple=amdgcn-amd-amdhsa", f"-mcpu={arch}", "-show-encoding"],
                       input=ASM, capture_output=True, text=True, check=False)
    assert r.returncode == 0 and "error" not in r.stderr, r.stderr
    assert r.stdout.count("encoding:") == len(ASM.strip().splitlines())


def test_strided_buffer_store_refused():
    emu, _buf, p = _mem(4)
    with pytest.raises(EmulatorError, match="stride"):
        run("s_buffer_store_dword s8, s[4:7], 0x0\ns_endpgm", emu=emu,
            sgprs={4: srd(p, 16, stride=4), 8: 1})
