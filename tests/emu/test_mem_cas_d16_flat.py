"""Focused tests for memory semantics found missing or wrong by the LLVM kernel zoo: compare-and-
swap operand order (global and LDS), 64-bit global atomics, d16 loads merging at write-back, VMEM
load write-after-write without a wait, FLAT accesses through the LDS aperture, and scratch."""
from __future__ import annotations

import numpy as np
import pytest
from core_util import run, srd

from isa.emu import Emulator
from isa.emu.errors import EmulatorError, PendingReadError

LANES = np.arange(64)


def _pair(p):
    return [p & 0xFFFFFFFF, p >> 32]


def test_global_cmpswap_data_is_src_then_cmp():
    # CDNA3 ISA FLAT_ATOMIC_CMPSWAP: src = DATA[0], cmp = DATA[1]; clang-22 puts the new value in
    # the first register (seen in LLVM output for __atomic_compare_exchange_n)
    emu = Emulator()
    mem = (LANES * 3).astype(np.uint32)
    p = emu.alloc(mem)
    cmp = np.where(LANES % 2 == 0, LANES * 3, 999)          # even lanes match
    run("""
      v_lshlrev_b32 v1, 2, v0
      global_atomic_cmpswap v5, v1, v[2:3], s[0:1] sc0
      s_waitcnt vmcnt(0)
      global_store_dword v1, v5, s[2:3]
      s_waitcnt vmcnt(0)
      s_endpgm""", emu=emu, sgprs={0: _pair(p), 2: _pair(emu.alloc(out := np.zeros(64, np.uint32)))},
        vgprs={0: LANES, 2: LANES + 1000, 3: cmp})
    assert np.array_equal(mem, np.where(LANES % 2 == 0, LANES + 1000, LANES * 3))
    assert np.array_equal(out, LANES * 3)                    # old value returned either way


def test_global_cmpswap_same_address_applies_in_lane_order():
    emu = Emulator()
    mem = np.zeros(1, np.uint32)
    p = emu.alloc(mem)
    # every lane: if *p == lane then *p = lane + 1 -> lanes apply in order, the chain reaches 64
    run("""
      v_mov_b32 v1, 0
      v_add_u32 v2, 1, v0
      v_mov_b32 v3, v0
      global_atomic_cmpswap v1, v[2:3], s[0:1]
      s_waitcnt vmcnt(0)
      s_endpgm""", emu=emu, sgprs={0: _pair(p)}, vgprs={0: LANES})
    assert mem[0] == 64


def test_global_atomic_x2_carry_sign_and_cmpswap():
    emu = Emulator()
    mem = np.array([0xFFFFFFFF, -5 & (2**64 - 1), 7], np.uint64)
    p = emu.alloc(mem)
    out = np.zeros((64, 2), np.uint64)
    po = emu.alloc(out)
    run("""
      v_mov_b32 v1, 0
      v_mov_b32 v2, 1
      v_mov_b32 v3, 0
      global_atomic_add_x2 v[4:5], v1, v[2:3], s[0:1] sc0
      v_mov_b32 v6, -3
      v_mov_b32 v7, -1
      global_atomic_smin_x2 v1, v[6:7], s[0:1] offset:8
      v_mov_b32 v8, 42
      v_mov_b32 v9, 0
      v_mov_b32 v10, 7
      v_mov_b32 v11, 0
      global_atomic_cmpswap_x2 v[12:13], v1, v[8:11], s[0:1] offset:16 sc0
      s_waitcnt vmcnt(0)
      v_lshlrev_b32 v14, 4, v0
      global_store_dwordx2 v14, v[4:5], s[2:3]
      global_store_dwordx2 v14, v[12:13], s[2:3] offset:8
      s_waitcnt vmcnt(0)
      s_endpgm""", emu=emu, sgprs={0: _pair(p), 2: _pair(po)}, vgprs={0: LANES}, exec_mask=1)
    assert mem[0] == 0x1_0000_0000                             # carry into the high dword
    assert mem[1] == (-5 & (2**64 - 1))                        # signed min(-5, -3) = -5
    assert mem[2] == 42 and out[0, 1] == 7 and out[0, 0] == 0xFFFFFFFF


def test_ds_cmpst_data0_is_compare_data1_is_new():
    # DS_CMPST_B32: cmp = DATA0, new = DATA1 (LLVM atomic_cmp_swap_local.ll: ptr, cmp, swap)
    m = run("""
      v_lshlrev_b32 v1, 2, v0
      ds_write_b32 v1, v0
      v_mov_b32 v2, 5
      v_add_u32 v3, 100, v0
      ds_cmpst_rtn_b32 v4, v1, v2, v3
      ds_wrxchg_rtn_b32 v5, v1, v0 offset:0
      s_waitcnt lgkmcnt(0)
      ds_read_b32 v6, v1
      s_waitcnt lgkmcnt(0)
      s_endpgm""", lds=256, vgprs={0: LANES})
    w = m.waves[0]
    assert np.array_equal(w.vgpr[4], LANES)                          # old values
    assert np.array_equal(w.vgpr[5], np.where(LANES == 5, 105, LANES))   # value after cmpst
    assert np.array_equal(w.vgpr[6], LANES)                          # wrxchg stored v0 back


def test_d16_loads_merge_at_write_back_without_wait():
    # LLVM 22 (sramecc off) issues global_load_short_d16_hi right behind a load into the same VGPR:
    # VMEM loads write VGPRs in order and d16 merges on write-back (isa.emu.machine)
    emu = Emulator()
    src = np.arange(256, dtype=np.uint16) * 257
    p = emu.alloc(src)
    m = run("""
      v_lshlrev_b32 v1, 1, v0
      global_load_ushort v2, v1, s[0:1]
      global_load_short_d16_hi v2, v1, s[0:1] offset:256
      global_load_sbyte_d16 v3, v1, s[0:1] offset:1
      s_waitcnt vmcnt(0)
      s_endpgm""", emu=emu, sgprs={0: _pair(p)}, vgprs={0: LANES, 3: 0xABCD0000})
    w = m.waves[0]
    want = src[LANES].astype(np.uint32) | (src[LANES + 128].astype(np.uint32) << 16)
    assert np.array_equal(w.vgpr[2], want)
    hi_byte = (src[LANES] >> 8).astype(np.int8).astype(np.int16).view(np.uint16)
    assert np.array_equal(w.vgpr[3], 0xABCD0000 | hi_byte.astype(np.uint32))


def test_vmem_load_waw_in_order_but_read_still_needs_wait():
    emu = Emulator()
    src = np.arange(128, dtype=np.uint32)
    p = emu.alloc(src)
    m = run("""
      v_lshlrev_b32 v1, 2, v0
      global_load_dword v2, v1, s[0:1]
      global_load_dword v2, v1, s[0:1] offset:256
      s_waitcnt vmcnt(0)
      s_endpgm""", emu=emu, sgprs={0: _pair(p)}, vgprs={0: LANES})
    assert np.array_equal(m.waves[0].vgpr[2], LANES + 64)          # the later load wins
    with pytest.raises(PendingReadError):
        run("""
          v_lshlrev_b32 v1, 2, v0
          global_load_dword v2, v1, s[0:1]
          global_load_dword v2, v1, s[0:1] offset:256
          s_waitcnt vmcnt(1)
          v_mov_b32 v3, v2
          s_endpgm""", emu=emu, sgprs={0: _pair(p)}, vgprs={0: LANES})


def test_flat_through_lds_aperture_and_global():
    emu = Emulator()
    g = np.arange(128, dtype=np.uint32) * 7
    p = emu.alloc(g)
    out = np.zeros(64, np.uint32)
    po = emu.alloc(out)
    # odd lanes: generic pointer into LDS (aperture high dword from src_shared_base), even: global
    m = run("""
      s_mov_b64 s[4:5], src_shared_base
      v_lshlrev_b32 v1, 2, v0
      v_and_b32 v6, 1, v0
      v_cmp_eq_u32 vcc, 1, v6
      v_mov_b32 v7, s5
      v_mov_b32 v8, s1
      v_mov_b32 v10, 0
      v_add_co_u32 v9, s[6:7], s0, v1
      s_nop 1
      v_addc_co_u32 v10, s[6:7], v8, v10, s[6:7]
      v_cndmask_b32 v2, v9, v1, vcc
      v_cndmask_b32 v3, v10, v7, vcc
      v_add_u32 v4, 1000, v0
      ds_write_b32 v1, v0
      s_waitcnt lgkmcnt(0)
      flat_store_dword v[2:3], v4 offset:256
      flat_load_dword v5, v[2:3]
      s_waitcnt vmcnt(0) lgkmcnt(0)
      global_store_dword v1, v5, s[2:3]
      s_waitcnt vmcnt(0)
      s_endpgm""", emu=emu, lds=512, sgprs={0: _pair(p), 2: _pair(po)}, vgprs={0: LANES})
    assert np.array_equal(out, np.where(LANES % 2, LANES, LANES * 7))
    lds = m.lds.data.view(np.uint32)
    assert np.array_equal(lds[64:][LANES % 2 == 1], LANES[LANES % 2 == 1] + 1000)
    even = LANES[LANES % 2 == 0]
    assert np.array_equal(g[64 + even], even + 1000) and np.array_equal(g[65 + even], (65 + even) * 7)


def test_flat_private_aperture_is_rejected():
    with pytest.raises(EmulatorError, match="private"):
        run("""
          s_mov_b64 s[4:5], src_private_base
          v_mov_b32 v3, s5
          v_mov_b32 v2, 0
          flat_load_dword v5, v[2:3]
          s_endpgm""", vgprs={0: LANES})


def _run_scratch(text, scratch_bytes):
    def setup(w):
        w.vgpr[0] = LANES.astype(np.uint32)
    return Emulator().run_program(text, setup=setup, scratch_bytes=scratch_bytes)


def test_scratch_is_private_per_lane_and_bounds_checked():
    # scratch address = saddr + vaddr + offset, an offset into the lane's own private memory
    from isa.emu.errors import ScratchOutOfBoundsError
    m = _run_scratch("""
      v_lshlrev_b32 v1, 2, v0
      v_add_u32 v2, 100, v0
      s_mov_b32 s4, 8
      scratch_store_dword off, v2, s4 offset:4
      scratch_store_dword v1, v0, off
      s_mov_b32 s5, 12
      scratch_load_dword v3, off, s5
      v_mov_b32 v6, 0
      scratch_load_dword v4, v6, off
      s_waitcnt vmcnt(0)
      s_endpgm""", 256)
    w = m.waves[0]
    # every lane reads its own offset 12; lane 3's second store (offset 4*3) overwrote it
    assert np.array_equal(w.vgpr[3], np.where(LANES == 3, 3, LANES + 100))
    assert w.vgpr[4][0] == 0                                # lane 0 wrote 0 at offset 0
    with pytest.raises(ScratchOutOfBoundsError, match="outside the 64-byte private segment"):
        _run_scratch("""
          v_lshlrev_b32 v1, 2, v0
          scratch_store_dword v1, v0, off
          s_endpgm""", 64)


def test_ds_64bit_atomics_and_cmpst_b64():
    # DS_ADD_U64 / DS_MAX_I64 / DS_CMPST_B64 (CDNA3 ISA): a qword in two VGPRs, cmp first for cmpst
    m = run("""
      v_mov_b32 v1, 0
      v_mov_b32 v2, -1
      v_mov_b32 v3, 0
      ds_write_b64 v1, v[2:3]
      ds_write_b64 v1, v[2:3] offset:8
      v_mov_b32 v4, 1
      v_mov_b32 v5, 0
      ds_add_rtn_u64 v[6:7], v1, v[4:5]
      v_mov_b32 v8, -2
      v_mov_b32 v9, -1
      ds_max_i64 v1, v[8:9] offset:8
      v_mov_b32 v10, 0
      v_mov_b32 v11, 1
      v_mov_b32 v12, 42
      v_mov_b32 v13, 0
      ds_cmpst_rtn_b64 v[14:15], v1, v[10:11], v[12:13]
      s_waitcnt lgkmcnt(0)
      ds_read_b64 v[16:17], v1 offset:8
      s_waitcnt lgkmcnt(0)
      s_endpgm""", lds=64, exec_mask=1)
    w = m.waves[0]
    assert (w.vgpr[6][0], w.vgpr[7][0]) == (0xFFFFFFFF, 0)              # old value returned
    assert (w.vgpr[14][0], w.vgpr[15][0]) == (0, 1)                     # 0xFFFFFFFF + 1 carried
    lds = m.lds.data[:16].view(np.uint64)
    assert lds[0] == 42                                                 # compare matched 1 << 32
    assert lds[1] == 0xFFFFFFFF                                         # max(4294967295, -2 signed)


def test_global_atomic_add_f64():
    emu = Emulator()
    acc = np.array([0.1], np.float64)
    p = emu.alloc(acc)
    vals = np.full(64, 0.2, np.float64).view(np.uint32).reshape(64, 2)
    run("""
      v_mov_b32 v1, 0
      global_atomic_add_f64 v1, v[2:3], s[0:1]
      s_waitcnt vmcnt(0)
      s_endpgm""", emu=emu, sgprs={0: _pair(p)}, vgprs={2: vals[:, 0], 3: vals[:, 1]})
    want = 0.1
    for _ in range(64):
        want += 0.2                                  # lanes apply in order, each rounded once
    assert acc[0] == want


def test_global_pk_add_f16_min_max_f64_and_store_d16_hi():
    emu = Emulator()
    acc = np.array([1.0, -2.0], np.float16)
    dm = np.array([5.0, -5.0], np.float64)
    out = np.zeros(4, np.uint16)
    pa, pd, po = emu.alloc(acc), emu.alloc(dm), emu.alloc(out)
    add = np.array([0.5, 0.25], np.float16).view(np.uint32)[0]
    run("""
      v_mov_b32 v1, 0
      v_mov_b32 v2, s8
      global_atomic_pk_add_f16 v1, v2, s[0:1]
      v_mov_b32 v4, 0
      v_mov_b32 v5, 0x40080000
      global_atomic_min_f64 v1, v[4:5], s[2:3]
      global_atomic_max_f64 v1, v[4:5], s[2:3] offset:8
      v_mov_b32 v6, 0xabcd1234
      global_store_short_d16_hi v1, v6, s[4:5]
      global_store_byte_d16_hi v1, v6, s[4:5] offset:2
      s_waitcnt vmcnt(0)
      s_endpgm""", emu=emu, sgprs={0: _pair(pa), 2: _pair(pd), 4: _pair(po), 8: int(add)}, exec_mask=3)
    assert np.array_equal(acc, np.array([1.0 + 2 * 0.5, -2.0 + 2 * 0.25], np.float16))   # two lanes
    assert dm[0] == 3.0 and dm[1] == 3.0                       # min(5, 3), max(-5, 3)
    assert out[0] == 0xABCD and (out[1] & 0xFF) == 0xCD


def test_ds_read_d16_and_write_d16_hi():
    m = run("""
      v_lshlrev_b32 v1, 1, v0
      v_mad_u32_u24 v5, v0, 3, 100
      v_lshlrev_b32 v2, 16, v5
      v_or_b32 v2, 0xff, v2
      ds_write_b16_d16_hi v1, v2
      ds_write_b8_d16_hi v0, v2 offset:128
      s_waitcnt lgkmcnt(0)
      v_mov_b32 v3, 0x5555aaaa
      ds_read_u16_d16_hi v3, v1
      v_mov_b32 v4, 0x5555aaaa
      ds_read_i8_d16 v4, v0 offset:128
      s_waitcnt lgkmcnt(0)
      s_endpgm""", lds=256, vgprs={0: LANES})
    w = m.waves[0]
    val = (3 * LANES + 100).astype(np.uint32)
    assert np.array_equal(w.vgpr[3], (val << 16) | 0xAAAA)
    sext = (val & 0xFF).astype(np.uint8).view(np.int8).astype(np.int16).view(np.uint16).astype(np.uint32)
    assert (val & 0x80).any()
    assert np.array_equal(w.vgpr[4], 0x55550000 | sext)


def test_buffer_cmpswap_x2_and_out_of_range_lanes():
    # MUBUF atomics: same data layout as FLAT ({src, cmp}); out-of-range lanes do nothing, return 0
    emu = Emulator()
    mem = np.array([7, 0, 0, 0], np.uint32)
    p = emu.alloc(mem)
    m = run("""
      v_mov_b32 v1, 0
      v_mov_b32 v2, 99
      v_mov_b32 v3, 7
      buffer_atomic_cmpswap v[2:3], v1, s[0:3], 0 offen sc0
      v_mov_b32 v4, 5
      v_mov_b32 v5, 1
      v_lshlrev_b32 v6, 5, v0
      buffer_atomic_add_x2 v[4:5], v6, s[0:3], 0 offen offset:8 sc0
      s_waitcnt vmcnt(0)
      s_endpgm""", emu=emu, sgprs={0: srd(p, 16)}, vgprs={0: LANES}, exec_mask=3)
    w = m.waves[0]
    assert mem[0] == 99 and w.vgpr[2][0] == 7              # lane 0 swapped; lane 1 saw 99
    assert w.vgpr[2][1] == 99
    assert mem[2:4].view(np.uint64)[0] == (1 << 32) + 5     # lane 1 (offset 40) is out of range
    assert (w.vgpr[4][1], w.vgpr[5][1]) == (0, 0)


def test_d16_load_whose_address_is_its_pending_vdst_still_needs_a_wait():
    emu = Emulator()
    src = np.zeros(256, np.uint16)
    p = emu.alloc(src)
    with pytest.raises(PendingReadError):
        run("""
          v_lshlrev_b32 v1, 1, v0
          global_load_ushort v2, v1, s[0:1]
          global_load_short_d16_hi v2, v2, s[0:1]
          s_endpgm""", emu=emu, sgprs={0: _pair(p)}, vgprs={0: LANES})
