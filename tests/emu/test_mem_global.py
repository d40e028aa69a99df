"""GLOBAL/FLAT and SMEM vs NumPy: address forms, widths, atomics, s_load / s_buffer_load."""
from __future__ import annotations

import numpy as np
import pytest
from core_util import run, srd

from isa.emu import Emulator
from isa.emu.errors import GlobalOutOfBoundsError

LANES = np.arange(64)


def _pair(p):
    return [p & 0xFFFFFFFF, p >> 32]


def test_global_saddr_and_vaddr64_forms():
    emu = Emulator(seed=3)
    src = np.arange(80, dtype=np.float32) * 0.5
    out = np.zeros(128, np.float32)
    ps, po = emu.alloc(src), emu.alloc(out)
    addrs = po + 4 * LANES + 256
    run("""
      v_lshlrev_b32 v1, 2, v0
      global_load_dword v2, v1, s[0:1] offset:8
      s_waitcnt vmcnt(0)
      global_store_dword v1, v2, s[2:3]
      flat_store_dword v[4:5], v2
      global_store_dword v[4:5], v2, off offset:-256
      s_waitcnt vmcnt(0)
      s_endpgm""", emu=emu, sgprs={0: _pair(ps), 2: _pair(po)},
        vgprs={0: LANES, 4: addrs & 0xFFFFFFFF, 5: addrs >> 32})
    assert np.array_equal(out[:64], src[2:66])
    assert np.array_equal(out[64:], src[2:66])


def test_global_dwordx4_and_ushort():
    emu = Emulator()
    src = np.arange(256, dtype=np.uint32)
    out = np.zeros(256, np.uint32)
    ps, po = emu.alloc(src), emu.alloc(out)
    m = run("""
      v_lshlrev_b32 v1, 4, v0
      global_load_dwordx4 v[4:7], v1, s[0:1]
      global_load_ushort v8, v1, s[0:1] offset:2
      s_waitcnt vmcnt(0)
      global_store_dwordx4 v1, v[4:7], s[2:3]
      s_endpgm""", emu=emu, sgprs={0: _pair(ps), 2: _pair(po)}, vgprs={0: LANES})
    assert np.array_equal(out, src)
    assert not m.waves[0].vgpr[8].any()     # high halves of small numbers


def test_global_atomic_add_returning():
    emu = Emulator()
    cnt = np.zeros(2, np.uint32)
    p = emu.alloc(cnt)
    m = run("""
      v_mov_b32 v1, 0
      v_mov_b32 v2, 1
      global_atomic_add v3, v1, v2, s[0:1] sc0
      global_atomic_add v1, v2, s[0:1] offset:4
      s_waitcnt vmcnt(0)
      s_endpgm""", emu=emu, n_waves=2, sgprs={0: _pair(p)})
    assert list(cnt) == [128, 128]
    rets = np.concatenate([w.vgpr[3] for w in m.waves])
    assert sorted(rets) == list(range(128))


def test_store_in_flight_at_endpgm_lands():
    emu = Emulator()
    out = np.zeros(64, np.uint32)
    p = emu.alloc(out)
    run("""
      v_lshlrev_b32 v1, 2, v0
      global_store_dword v1, v0, s[0:1]
      s_endpgm""", emu=emu, sgprs={0: _pair(p)}, vgprs={0: LANES})
    assert np.array_equal(out, LANES)


def test_s_load_and_s_buffer_load_clamp():
    emu = Emulator()
    data = np.arange(16, dtype=np.uint32) + 10
    p = emu.alloc(data)
    m = run("""
      s_load_dwordx4 s[8:11], s[0:1], 0x8
      s_load_dword s12, s[0:1], s13
      s_buffer_load_dwordx4 s[16:19], s[4:7], 0x20
      s_waitcnt lgkmcnt(0)
      s_endpgm""", emu=emu, sgprs={0: _pair(p), 4: srd(p, 0x28), 13: 12})
    w = m.waves[0]
    assert list(w.sgpr[8:12]) == [12, 13, 14, 15]
    assert w.sgpr[12] == 13
    assert list(w.sgpr[16:20]) == [18, 19, 0, 0]     # dwords at/after num_records read 0


def test_lanes_in_different_allocations():
    emu = Emulator()
    x, y = np.arange(32, dtype=np.uint32), np.arange(32, dtype=np.uint32) + 100
    px, py = emu.alloc(x), emu.alloc(y)
    lanes = np.arange(64)
    addrs = np.where(lanes < 32, px + 4 * lanes, py + 4 * (lanes - 32))
    m = run("""
      global_load_dword v2, v[4:5], off
      s_waitcnt vmcnt(0)
      v_add_u32 v2, 1, v2
      global_store_dword v[4:5], v2, off
      s_waitcnt vmcnt(0)
      s_endpgm""", emu=emu, vgprs={4: addrs & 0xFFFFFFFF, 5: addrs >> 32})
    assert np.array_equal(x, np.arange(32) + 1) and np.array_equal(y, np.arange(32) + 101)
    assert m.waves[0].vgpr[2][40] == 109


def test_buffer_atomic_and_cache_ops_count_in_vmcnt():
    emu = Emulator()
    cnt = np.zeros(1, np.uint32)
    m = run("""
      v_mov_b32 v1, 0
      v_mov_b32 v2, 2
      buffer_atomic_add v2, v1, s[0:3], 0 offen sc0
      buffer_wbl2 sc1
      s_waitcnt vmcnt(1)
      v_mov_b32 v3, v2
      s_waitcnt vmcnt(0)
      s_endpgm""", emu=emu, sgprs={0: srd(emu.alloc(cnt), 4)})
    assert cnt[0] == 128
    assert sorted(m.waves[0].vgpr[3]) == list(range(0, 128, 2))


def test_memory_ops_with_exec_zero_do_nothing():
    emu = Emulator()
    buf = np.arange(64, dtype=np.uint32)
    p = emu.alloc(buf)
    m = run("""
      buffer_load_dword v1, v0, s[0:3], 0 offen
      s_waitcnt vmcnt(0)
      buffer_store_dword v1, v0, s[0:3], 0 offen
      buffer_load_dword v0, s[0:3], 0 offen lds
      global_load_dword v2, v0, s[4:5]
      s_waitcnt vmcnt(0)
      global_store_dword v0, v2, s[4:5]
      global_atomic_add v0, v2, s[4:5]
      buffer_atomic_add v2, v0, s[0:3], 0 offen
      ds_read_b32 v3, v0
      s_waitcnt lgkmcnt(0)
      ds_write_b32 v0, v3
      ds_read2_b32 v[4:5], v0 offset1:1
      ds_write2_b32 v0, v3, v3 offset1:1
      ds_add_u32 v0, v3
      ds_bpermute_b32 v6, v0, v3
      s_waitcnt vmcnt(0) lgkmcnt(0)
      s_endpgm""", emu=emu, lds=256, exec_mask=0, vgprs={0: np.arange(64) * 4, 1: 7},
            sgprs={0: srd(p, 256), 4: _pair(p)})
    assert np.array_equal(buf, np.arange(64))
    assert (m.waves[0].vgpr[1] == 7).all() and not m.lds.data.any()


def test_store_data_is_read_at_issue():
    # A store's data register may be overwritten right after issue (<= 64-bit data has no hazard,
    # cdna-facts section 3): memory gets the value at issue, whatever the landing time.
    for seed in range(3):
        emu = Emulator(seed=seed)
        a, b = np.zeros(64, np.uint32), np.zeros(64, np.uint32)
        pa, pb = emu.alloc(a), emu.alloc(b)
        m = run("""
          v_lshlrev_b32 v1, 2, v0
          v_mov_b32 v2, 5
          buffer_store_dword v2, v1, s[0:3], 0 offen
          global_store_dword v1, v2, s[4:5]
          ds_write_b8 v0, v2
          ds_write_b32 v1, v2 offset:64
          v_mov_b32 v2, 9
          s_waitcnt vmcnt(0) lgkmcnt(0)
          s_endpgm""", emu=emu, lds=512, vgprs={0: np.arange(64)}, sgprs={0: srd(pa, 256), 4: _pair(pb)})
        assert (a == 5).all() and (b == 5).all()
        assert (m.lds.data[:64] == 5).all() and (m.lds.data[64:320].view(np.uint32) == 5).all()


def test_buffer_atomics_are_range_checked_all_or_nothing():
    # CDNA4 ISA 9.1.5.1 "Range Checking": atomics are range-checked "all or nothing"; raw buffer
    # out of range if InstOffset + vgpr_offset >= NumRecords; out-of-range atomics are dropped and
    # (as reads) return 0. A 64-bit atomic starting 4 bytes below NumRecords is wholly in range.
    emu = Emulator()
    buf = np.zeros(8, np.uint64)                      # 64 bytes, NumRecords 20
    m = run("""
      v_lshlrev_b32 v1, 3, v0
      v_mov_b32 v2, 1
      v_mov_b32 v3, 1
      buffer_atomic_add_x2 v[2:3], v1, s[0:3], 0 offen sc0
      s_waitcnt vmcnt(0)
      s_endpgm""", emu=emu, exec_mask=0xF, sgprs={0: srd(emu.alloc(buf), 20)}, vgprs={0: np.arange(64)})
    # lanes 0, 1 (offsets 0, 8) and lane 2 (16: 16 < 20, bytes 16..23) add; lane 3 (24) is dropped
    assert buf.tolist() == [(1 << 32) | 1] * 3 + [0] * 5
    assert m.waves[0].vgpr[2][:4].tolist() == [0, 0, 0, 0] and m.waves[0].vgpr[3][:4].tolist() == [0] * 4
    # sc0: an out-of-range lane returns 0, an in-range one the old value
    buf[:] = 7
    m = run("""
      v_lshlrev_b32 v1, 3, v0
      v_mov_b32 v2, 1
      v_mov_b32 v3, 0
      buffer_atomic_add_x2 v[2:3], v1, s[0:3], 0 offen sc0
      s_waitcnt vmcnt(0)
      s_endpgm""", emu=emu, exec_mask=0xF, sgprs={0: srd(emu.mem.bases[0], 20)}, vgprs={0: np.arange(64)})
    assert buf.tolist() == [8, 8, 8] + [7] * 5
    assert m.waves[0].vgpr[2][:4].tolist() == [7, 7, 7, 0]


def test_buffer_atomic_in_range_but_past_the_allocation_is_out_of_bounds():
    emu = Emulator()
    buf = np.zeros(3, np.uint32)                      # 12 bytes; NumRecords 16 lies beyond them
    with pytest.raises(GlobalOutOfBoundsError):
        run("""
      v_mov_b32 v1, 8
      buffer_atomic_add_x2 v[2:3], v1, s[0:3], 0 offen
      s_waitcnt vmcnt(0)
      s_endpgm""", emu=emu, exec_mask=1, sgprs={0: srd(emu.alloc(buf), 16)}, vgprs={2: 1, 3: 0})
