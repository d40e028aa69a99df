"""MUBUF loads/stores vs NumPy: offsets, soffset, OOB masking, widths, idxen, and LDS DMA."""
from __future__ import annotations

import numpy as np
import pytest
from core_util import run, srd

from isa.emu import Emulator
from isa.emu.errors import GlobalOutOfBoundsError, PendingReadError


def _setup(src: np.ndarray, dst_len: int, seed: int = 0):
    emu = Emulator(seed=seed)
    out = np.zeros(dst_len, src.dtype)
    return emu, out, emu.alloc(src), emu.alloc(out)


@pytest.mark.parametrize("seed", [0, 1])
def test_load_store_offen_offset_soffset(seed):
    src = np.arange(200, dtype=np.uint32) * 3
    emu, out, ps, po = _setup(src, 64, seed)
    run("""
      v_lshlrev_b32 v1, 2, v0
      s_mov_b32 s8, 8
      buffer_load_dword v2, v1, s[0:3], s8 offen offset:16
      s_waitcnt vmcnt(0)
      buffer_store_dword v2, v1, s[4:7], 0 offen
      s_endpgm""", emu=emu, sgprs={0: srd(ps, src.nbytes), 4: srd(po, out.nbytes)},
        vgprs={0: np.arange(64)})
    assert np.array_equal(out, src[6:70])


def test_out_of_range_loads_zero_and_stores_dropped():
    src = np.arange(64, dtype=np.uint32) + 1
    emu, out, ps, po = _setup(src, 64)
    out[:] = 777
    # num_records = 40 dwords for loads, 50 for stores; lanes 10..19 masked CK-style with 0x80000000
    voff = np.arange(64) * 4 + np.where((np.arange(64) >= 10) & (np.arange(64) < 20), 0x80000000, 0)
    run("""
      buffer_load_dword v2, v1, s[0:3], 0 offen
      s_waitcnt vmcnt(0)
      buffer_store_dword v2, v1, s[4:7], 0 offen
      s_endpgm""", emu=emu, sgprs={0: srd(ps, 160), 4: srd(po, 200)}, vgprs={1: voff})
    want = np.where(np.arange(64) < 40, src, 0).astype(np.uint32)
    want[10:20] = 777          # stores of masked lanes dropped
    want[50:] = 777            # beyond store num_records dropped
    assert np.array_equal(out, want)


def test_soffset_not_range_checked():
    src = np.arange(64, dtype=np.uint32)
    emu, out, ps, po = _setup(src, 64)
    run("""
      s_movk_i32 s8, 0x80
      buffer_load_dword v2, v1, s[0:3], s8 offen
      s_waitcnt vmcnt(0)
      buffer_store_dword v2, v1, s[4:7], 0 offen
      s_endpgm""", emu=emu, sgprs={0: srd(ps, 128), 4: srd(po, 256)}, vgprs={1: np.arange(64) * 4},
        exec_mask=0xFFFFFFFF)
    # voffset < 128 in range for lanes 0..31, soffset 128 shifts the data
    assert np.array_equal(out[:32], src[32:64])


@pytest.mark.parametrize("op,n", [("dwordx2", 2), ("dwordx3", 3), ("dwordx4", 4)])
def test_wide_loads_stores(op, n):
    src = np.arange(64 * n, dtype=np.uint32) * 7 + 1
    emu, out, ps, po = _setup(src, 64 * n)
    run(f"""
      v_mul_u32_u24 v1, {4 * n}, v0
      buffer_load_{op} v[4:{3 + n}], v1, s[0:3], 0 offen
      s_waitcnt vmcnt(0)
      buffer_store_{op} v[4:{3 + n}], v1, s[4:7], 0 offen
      s_endpgm""", emu=emu, sgprs={0: srd(ps, src.nbytes), 4: srd(po, out.nbytes)},
        vgprs={0: np.arange(64)})
    assert np.array_equal(out, src)


def test_partial_dword_range_per_dword():
    src = np.arange(8, dtype=np.uint32) + 1
    emu, _, ps, _ = _setup(src, 4)
    m = run("""
      buffer_load_dwordx4 v[4:7], v1, s[0:3], 0 offen offset:16
      s_waitcnt vmcnt(0)
      s_endpgm""", emu=emu, sgprs={0: srd(ps, 24)}, vgprs={1: 0}, exec_mask=1)
    assert list(m.waves[0].vgpr[4:8, 0]) == [5, 6, 0, 0]


def test_sub_dword_loads_extend():
    src = np.array([0x80, 0xFF, 0x7F, 0x01] * 16, np.uint8)
    emu = Emulator()
    ps = emu.alloc(src)
    m = run("""
      buffer_load_ubyte v2, v0, s[0:3], 0 offen
      buffer_load_sbyte v3, v0, s[0:3], 0 offen
      buffer_load_sshort v4, v5, s[0:3], 0 offen
      s_waitcnt vmcnt(0)
      s_endpgm""", emu=emu, sgprs={0: srd(ps, 64)}, vgprs={0: np.arange(64), 5: np.zeros(64)})
    w = m.waves[0]
    assert w.vgpr[2][0] == 0x80 and w.vgpr[3][0] == 0xFFFFFF80 and w.vgpr[3][2] == 0x7F
    assert w.vgpr[4][0] == 0xFFFFFF80    # 0xFF80 sign-extended


def test_idxen_structured_buffer():
    src = np.arange(64 * 4, dtype=np.uint32)
    emu, out, ps, po = _setup(src, 64)
    run("""
      buffer_load_dword v2, v0, s[0:3], 0 idxen offset:8
      s_waitcnt vmcnt(0)
      v_lshlrev_b32 v1, 2, v0
      buffer_store_dword v2, v1, s[4:7], 0 offen
      s_endpgm""", emu=emu, sgprs={0: srd(ps, 40, stride=16), 4: srd(po, 256)},
        vgprs={0: np.arange(64)})
    want = np.where(np.arange(64) < 40, src[np.arange(64) * 4 + 2], 0)
    assert np.array_equal(out, want)


def test_in_range_but_outside_allocation_is_error():
    src = np.arange(16, dtype=np.uint32)
    emu, _, ps, _ = _setup(src, 4)
    with pytest.raises(GlobalOutOfBoundsError, match="outside every allocation"):
        run("""
          buffer_load_dword v2, v1, s[0:3], 0 offen
          s_endpgm""", emu=emu, sgprs={0: srd(ps, 1 << 20)}, vgprs={1: np.arange(64) * 4})


LDS_DMA = """
      s_mov_b32 m0, 256
      s_nop 0
      buffer_load_dword v1, s[0:3], 0 offen offset:4 lds
      {wait}
      ds_read_b32 v2, v3 offset:260
      s_waitcnt lgkmcnt(0)
      s_endpgm"""


def test_lds_dma_through_m0():
    src = np.arange(70, dtype=np.uint32) * 5
    emu = Emulator(seed=4)
    ps = emu.alloc(src)
    m = run(LDS_DMA.format(wait="s_waitcnt vmcnt(0)"), emu=emu, lds=1024, sgprs={0: srd(ps, src.nbytes)},
            vgprs={1: np.arange(64) * 4, 3: np.arange(64) * 4})
    # LDS address = M0 + inst_offset + lane * 4 (cdna-facts section 6); global offset 4 too
    assert np.array_equal(m.waves[0].vgpr[2], src[1:65])
    lds = m.lds.data[260:260 + 256].view(np.uint32)
    assert np.array_equal(lds, src[1:65])


def test_lds_dma_needs_vmcnt_before_ds_read():
    src = np.arange(70, dtype=np.uint32)
    emu = Emulator()
    ps = emu.alloc(src)
    with pytest.raises(PendingReadError, match="LDS-DMA write has not been waited for"):
        run(LDS_DMA.format(wait=""), emu=emu, lds=1024, sgprs={0: srd(ps, src.nbytes)},
            vgprs={1: np.arange(64) * 4, 3: np.arange(64) * 4})


def test_gfx950_lds_dma_dwordx4_lane_stride_16():
    src = np.arange(64 * 4 + 8, dtype=np.uint32)
    emu = Emulator(arch="gfx950", seed=2)
    ps = emu.alloc(src)
    m = run("""
      s_mov_b32 m0, 0
      s_nop 0
      buffer_load_dwordx4 v1, s[0:3], 0 offen lds
      global_load_lds_dwordx4 v[4:5], off offset:16
      s_waitcnt vmcnt(0)
      s_endpgm""", emu=emu, lds=2048, sgprs={0: srd(ps, src.nbytes)},
            vgprs={1: np.arange(64) * 16, 4: (ps + np.arange(64) * 16) & 0xFFFFFFFF,
                   5: (ps + np.arange(64) * 16) >> 32})
    lds = m.lds.data.view(np.uint32)
    # first DMA: lane l's 16 bytes at 16*l; second: same data shifted by one dword-quad, at 16 + 16*l
    assert np.array_equal(lds[4:4 + 256], src[4:260])
    assert np.array_equal(lds[:4], src[:4])


def test_lds_dma_and_ds_ops_of_one_wave_need_waits_between():
    from isa.emu.errors import PendingOverwriteError
    src = np.arange(70, dtype=np.uint32)
    emu = Emulator()
    ps = emu.alloc(src)
    regs = dict(sgprs={0: srd(ps, src.nbytes)}, vgprs={1: np.arange(64) * 4, 3: np.arange(64) * 4})
    war = """
      s_mov_b32 m0, 0
      ds_read_b32 v2, v3
      {wait}
      buffer_load_dword v1, s[0:3], 0 offen lds
      s_waitcnt vmcnt(0) lgkmcnt(0)
      s_endpgm"""
    with pytest.raises(PendingOverwriteError, match="LDS-DMA write of LDS byte 0 that the ds_read_b32 at "
                                                    "pc 1 of the same wave still accesses"):
        run(war.format(wait=""), emu=emu, lds=256, **regs)
    run(war.format(wait="s_waitcnt lgkmcnt(0)"), emu=emu, lds=256, **regs)
    waw = """
      s_mov_b32 m0, 0
      s_nop 0
      buffer_load_dword v1, s[0:3], 0 offen lds
      {wait}
      ds_write_b32 v3, v3
      s_waitcnt vmcnt(0) lgkmcnt(0)
      s_endpgm"""
    with pytest.raises(PendingOverwriteError, match="ds write of LDS byte 0 that a pending LDS-DMA"):
        run(waw.format(wait=""), emu=emu, lds=256, **regs)
    m = run(waw.format(wait="s_waitcnt vmcnt(0)"), emu=emu, lds=256, **regs)
    assert np.array_equal(m.lds.data.view(np.uint32)[:64], np.arange(64) * 4)
