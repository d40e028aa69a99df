"""Tests of isa.emu.mem_ds_extra (rare DS atomics, wrxchg2, addtid, ds_nop) and isa.emu.mem_d16_extra
(buffer/flat/scratch d16 forms, packed-bf16 VMEM atomics, scratch_load_lds_*): hand-computed values,
exec-masked lanes untouched, refusals of undocumented cases, and llvm-mc-22 acceptance."""
from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest
from core_util import run, srd

from isa.emu import Emulator
from isa.emu.errors import EmulatorError, LdsRaceError, UnknownInstructionError

LANES = np.arange(64)
HALF = (1 << 32) - 1          # exec: lanes 0..31
M32 = 0xFFFFFFFF


def _pair(p):
    return [p & 0xFFFFFFFF, p >> 32]


def _f32(x):
    return np.asarray(x, np.float32).view(np.uint32).astype(np.int64)


def _u64_rows(vals):
    v = np.asarray(vals, np.uint64)
    return (v & np.uint64(M32)).astype(np.int64), (v >> np.uint64(32)).astype(np.int64)


def _ds(body, vgprs, init=None, exec_mask=(1 << 64) - 1, lds=2048, arch="gfx942", **kw):
    """LDS dwords at v1 (= lane*4, or lane*8 for 64-bit) start as v9 (and v10 for 64-bit) when
    ``init`` is 'b32'/'b64'; then ``body`` runs and is waited for."""
    pre = {"b32": "ds_write_b32 v1, v9\n", "b64": "ds_write_b64 v1, v[10:11]\n", None: ""}[init]
    text = pre + "s_waitcnt lgkmcnt(0)\n" + body + "\ns_waitcnt lgkmcnt(0)\ns_endpgm"
    return run(text, vgprs=vgprs, lds=lds, exec_mask=exec_mask, emu=Emulator(arch=arch), **kw)


# ------------------------------------------------------------------------------------------------
# DS integer RMW: rsub, mskor, wrap
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
def test_ds_rsub_rtn_u32_and_masked_lanes(arch):
    m = _ds("ds_rsub_rtn_u32 v3, v1, v2 offset:0", {1: LANES * 4, 2: 10, 9: LANES, 3: 0xDEAD},
            init="b32", exec_mask=HALF, arch=arch)
    lds = m.lds.data[:256].view(np.uint32)
    act = LANES < 32
    assert np.array_equal(lds[act], (10 - LANES[act]) & M32)       # DATA - MEM, wraps
    assert not lds[~act].any()                                        # inactive lanes: no access
    v3 = m.waves[0].vgpr[3]
    assert np.array_equal(v3[act], LANES[act]) and (v3[~act] == 0xDEAD).all()


def test_ds_rsub_u32_same_address_chains_in_lane_order():
    # every lane: MEM = lane - MEM, starting at 0 -> alternating sums; lanes 0..3: 0,1,1,2
    m = _ds("ds_rsub_u32 v1, v2", {1: 0, 2: LANES, 9: 0}, init="b32", exec_mask=0xF)
    assert m.lds.data[:4].view(np.uint32)[0] == 2     # 0-0=0, 1-0=1, 2-1=1, 3-1=2


def test_ds_rsub_u64_mskor_b32_b64():
    lo, hi = _u64_rows([5] * 64)
    m = _ds("""
      ds_rsub_rtn_u64 v[4:5], v1, v[2:3]
      v_mov_b32 v15, 0xF0F0F0F0
      ds_write_b32 v12, v15
      s_waitcnt lgkmcnt(0)
      ds_mskor_rtn_b32 v6, v12, v13, v14
      """, {1: LANES * 8, 2: 3, 3: 0, 10: lo, 11: hi, 12: 1024 + LANES * 4,
            13: 0xFF00FF00, 14: 0x00110011}, init="b64")
    q = m.lds.data[:512].view(np.uint64)
    assert (q == np.uint64((3 - 5) & ((1 << 64) - 1))).all()         # 64-bit borrow
    w = m.waves[0]
    assert (w.vgpr[4] == 5).all() and (w.vgpr[5] == 0).all()
    assert (m.lds.data[1024:1280].view(np.uint32) == 0x00F100F1).all()   # (M & ~mask) | bits
    assert (w.vgpr[6] == 0xF0F0F0F0).all()
    lo, hi = _u64_rows([0xFFFF0000FFFF0000] * 64)
    m = _ds("ds_mskor_b64 v1, v[2:3], v[4:5]",
            {1: LANES * 8, 2: 0xFFFFFFFF, 3: 0, 4: 0x1, 5: 0x2, 10: lo, 11: hi}, init="b64")
    assert (m.lds.data[:512].view(np.uint64) == np.uint64(0xFFFF000200000001)).all()


def test_ds_wrap_rtn_b32():
    m = _ds("ds_wrap_rtn_b32 v3, v1, v2, v4 offset:0", {1: LANES * 4, 2: 5, 4: 100, 9: LANES},
            init="b32")
    lds = m.lds.data[:256].view(np.uint32)
    assert np.array_equal(lds, np.where(LANES >= 5, LANES - 5, LANES + 100))
    assert np.array_equal(m.waves[0].vgpr[3], LANES)


# ------------------------------------------------------------------------------------------------
# DS float min/max/compare-store
# ------------------------------------------------------------------------------------------------
def test_ds_min_max_f32_rtn():
    mem = np.where(LANES % 2, -2.0, 3.5).astype(np.float32)
    dat = np.where(LANES % 3 == 0, 1.0, -7.25).astype(np.float32)
    m = _ds("""
      ds_min_rtn_f32 v3, v1, v2
      ds_max_f32 v1, v2 offset:256
      """, {1: LANES * 4, 2: _f32(dat), 9: _f32(mem)}, init="b32")
    got = m.lds.data[:256].view(np.float32)
    assert np.array_equal(got, np.minimum(mem, dat))
    assert np.array_equal(m.waves[0].vgpr[3].view(np.float32), mem)
    assert np.array_equal(m.lds.data[256:512].view(np.float32), np.maximum(dat, 0))  # LDS +0.0 vs data


def test_ds_min_max_f64():
    mem = np.where(LANES % 2, -1e300, 2.5)
    dat = np.full(64, 1.25)
    lo, hi = _u64_rows(mem.view(np.uint64))
    dlo, dhi = _u64_rows(dat.view(np.uint64))
    m = _ds("ds_max_rtn_f64 v[4:5], v1, v[2:3]", {1: LANES * 8, 2: dlo, 3: dhi, 10: lo, 11: hi},
            init="b64")
    assert np.array_equal(m.lds.data[:512].view(np.float64), np.maximum(mem, dat))
    m = _ds("ds_min_f64 v1, v[2:3]", {1: LANES * 8, 2: dlo, 3: dhi, 10: lo, 11: hi}, init="b64")
    assert np.array_equal(m.lds.data[:512].view(np.float64), np.minimum(mem, dat))


@pytest.mark.parametrize("mem,dat,why", [(np.nan, 1.0, "NaN"), (0.0, -0.0, r"\+0 / -0"),
                                         (1e-40, 1.0, "denormal")])
def test_ds_float_compare_refuses_undocumented(mem, dat, why):
    with pytest.raises(EmulatorError, match=why):
        _ds("ds_min_f32 v1, v2", {1: LANES * 4, 2: _f32(np.full(64, dat)), 9: _f32(np.full(64, mem))},
            init="b32", exec_mask=1)


def test_ds_cmpst_f32_f64():
    mem = np.where(LANES % 2, 1.5, -4.0).astype(np.float32)
    m = _ds("ds_cmpst_rtn_f32 v3, v1, v2, v4", {1: LANES * 4, 2: _f32(np.full(64, 1.5)),
                                                4: _f32(np.full(64, 9.0)), 9: _f32(mem)}, init="b32")
    assert np.array_equal(m.lds.data[:256].view(np.float32), np.where(LANES % 2, 9.0, -4.0))
    assert np.array_equal(m.waves[0].vgpr[3].view(np.float32), mem)
    memd = np.where(LANES < 10, 2.0, 3.0)
    lo, hi = _u64_rows(memd.view(np.uint64))
    clo, chi = _u64_rows(np.full(64, 2.0).view(np.uint64))
    nlo, nhi = _u64_rows(np.full(64, -1.0).view(np.uint64))
    m = _ds("ds_cmpst_f64 v1, v[2:3], v[4:5]", {1: LANES * 8, 2: clo, 3: chi, 4: nlo, 5: nhi,
                                                 10: lo, 11: hi}, init="b64")
    assert np.array_equal(m.lds.data[:512].view(np.float64), np.where(LANES < 10, -1.0, 3.0))
    with pytest.raises(EmulatorError, match="NaN"):
        _ds("ds_cmpst_f32 v1, v2, v4", {1: 0, 2: _f32(np.full(64, np.nan)), 4: 0, 9: 0},
            init="b32", exec_mask=1)


# ------------------------------------------------------------------------------------------------
# DS packed f16 / bf16 add
# ------------------------------------------------------------------------------------------------
def _pk(lo, hi, dt):
    return int(np.array([lo, hi], dt).view(np.uint32)[0])


def test_ds_pk_add_f16_rtn():
    mem, dat = _pk(1.0, 2.0, np.float16), _pk(0.5, -3.0, np.float16)
    m = _ds("ds_pk_add_rtn_f16 v3, v1, v2", {1: LANES * 4, 2: dat, 9: mem}, init="b32",
            exec_mask=HALF)
    lds = m.lds.data[:256].view(np.uint32)
    assert (lds[:32] == _pk(1.5, -1.0, np.float16)).all() and not lds[32:].any()
    assert (m.waves[0].vgpr[3][:32] == mem).all()
    # RNE: 2048 + 1 in f16 (spacing 2) rounds to even 2048; 2050 + 1 -> 2052
    m = _ds("ds_pk_add_f16 v1, v2", {1: LANES * 4, 2: _pk(1.0, 1.0, np.float16),
                                     9: _pk(2048.0, 2050.0, np.float16)}, init="b32")
    assert (m.lds.data[:256].view(np.uint32) == _pk(2048.0, 2052.0, np.float16)).all()


def _bf(x):
    return int(np.array([x], np.float32).view(np.uint32)[0]) >> 16


def test_ds_pk_add_bf16_exact_and_refuses_rounding():
    mem, dat = _bf(1.0) | _bf(-2.0) << 16, _bf(0.5) | _bf(-0.25) << 16
    m = _ds("ds_pk_add_bf16 v1, v2", {1: LANES * 4, 2: dat, 9: mem}, init="b32")
    assert (m.lds.data[:256].view(np.uint32) == (_bf(1.5) | _bf(-2.25) << 16)).all()
    m = _ds("ds_pk_add_rtn_bf16 v3, v1, v2", {1: LANES * 4, 2: _bf(-1.0), 9: _bf(1.0)}, init="b32")
    assert not m.lds.data[:256].any() and (m.waves[0].vgpr[3] == _bf(1.0)).all()   # +0
    with pytest.raises(EmulatorError, match="not exactly representable"):
        _ds("ds_pk_add_bf16 v1, v2", {1: 0, 2: _bf(2.0 ** -9), 9: _bf(1.0)}, init="b32", exec_mask=1)


# ------------------------------------------------------------------------------------------------
# ds_wrxchg2*, addtid, nop, refusals, races
# ------------------------------------------------------------------------------------------------
def test_ds_wrxchg2_rtn_b32_and_st64_b64():
    m = _ds("ds_wrxchg2_rtn_b32 v[4:5], v1, v2, v3 offset0:1 offset1:3",
            {1: LANES * 16, 2: LANES + 100, 3: LANES + 200, 9: 0}, lds=1024)
    mem = m.lds.data[:1024].view(np.uint32).reshape(64, 4)
    assert np.array_equal(mem[:, 1], LANES + 100) and np.array_equal(mem[:, 3], LANES + 200)
    assert not m.waves[0].vgpr[4].any() and not m.waves[0].vgpr[5].any()
    lo, hi = _u64_rows(LANES + (7 << 40))
    m = _ds("""
      ds_write_b64 v1, v[10:11] offset:512
      s_waitcnt lgkmcnt(0)
      ds_wrxchg2st64_rtn_b64 v[4:7], v1, v[2:3], v[12:13] offset0:0 offset1:1
      """, {1: LANES * 8, 2: 1, 3: 2, 12: 3, 13: 4, 10: lo, 11: hi}, lds=1024, exec_mask=HALF)
    q = m.lds.data[:1024].view(np.uint64)
    assert (q[:32] == np.uint64(1 | 2 << 32)).all() and (q[64:96] == np.uint64(3 | 4 << 32)).all()
    w = m.waves[0]
    assert (w.vgpr[4][:32] == 0).all() and np.array_equal(w.vgpr[6][:32], LANES[:32])
    assert (w.vgpr[7][:32] == 7 << 8).all() and not w.vgpr[6][32:].any()


def test_ds_addtid_write_read_and_m0_limit():
    m = run("""
      s_mov_b32 m0, 64
      s_nop 0
      ds_write_addtid_b32 v3 offset:8
      s_waitcnt lgkmcnt(0)
      ds_read_addtid_b32 v4 offset:8
      ds_nop
      s_waitcnt lgkmcnt(0)
      s_endpgm""", vgprs={3: LANES + 5, 4: 0xBEEF}, lds=512, exec_mask=HALF)
    lds = m.lds.data[:512].view(np.uint32)
    assert np.array_equal(lds[18:50], LANES[:32] + 5) and not lds[50:].any() and not lds[:18].any()
    v4 = m.waves[0].vgpr[4]
    assert np.array_equal(v4[:32], LANES[:32] + 5) and (v4[32:] == 0xBEEF).all()
    with pytest.raises(EmulatorError, match="M0"):
        run("s_mov_b32 m0, 0x10000\ns_nop 0\nds_read_addtid_b32 v4\ns_endpgm", lds=512)


def test_ds_addtid_takes_part_in_race_detection():
    with pytest.raises(LdsRaceError):
        run("""
          s_mov_b32 m0, 0
          s_nop 0
          ds_write_addtid_b32 v3
          s_waitcnt lgkmcnt(0)
          s_endpgm""", n_waves=2, lds=512)


@pytest.mark.parametrize("text", ["ds_condxchg32_rtn_b64 v[4:5], v1, v[2:3]", "ds_append v1",
                                  "ds_consume v1"])
def test_undocumented_ds_ops_are_refused(text):
    with pytest.raises(UnknownInstructionError):
        run(text + "\ns_endpgm", lds=256)


# ------------------------------------------------------------------------------------------------
# d16 buffer / flat / scratch
# ------------------------------------------------------------------------------------------------
def test_buffer_d16_loads_merge_and_out_of_range_zero():
    emu = Emulator()
    mem = np.arange(256, dtype=np.uint8) ^ 0x80
    p = emu.alloc(mem)
    m = run("""
      buffer_load_short_d16_hi v3, v1, s[4:7], 0 offen
      buffer_load_ubyte_d16 v4, v1, s[4:7], 0 offen offset:1
      buffer_load_sbyte_d16 v5, v1, s[4:7], 0 offen
      buffer_load_sbyte_d16_hi v6, v1, s[4:7], 0 offen
      s_waitcnt vmcnt(0)
      s_endpgm""", emu=emu, sgprs={4: srd(p, 128)}, vgprs={1: LANES * 2, 3: 0x12345678,
                                                          4: 0x12345678, 5: 0x12345678, 6: 0x1234ABCD})
    w = m.waves[0]
    b = mem.astype(np.int64)
    a = LANES * 2
    inr = a + 2 <= 128
    short = np.where(inr, b[np.minimum(a, 254)] | b[np.minimum(a + 1, 255)] << 8, 0)
    assert np.array_equal(w.vgpr[3], (short << 16) | 0x5678)
    ub = np.where(a + 1 + 1 <= 128, b[np.minimum(a + 1, 255)], 0)
    assert np.array_equal(w.vgpr[4], 0x12340000 | ub)
    sb = np.where(a + 1 <= 128, b[np.minimum(a, 255)], 0)
    sb16 = np.where(sb >= 128, sb | 0xFF00, sb)
    assert np.array_equal(w.vgpr[5], 0x12340000 | sb16)
    assert np.array_equal(w.vgpr[6], (sb16 << 16) | 0xABCD)


def test_buffer_store_d16_hi():
    emu = Emulator()
    mem = np.zeros(256, np.uint8)
    p = emu.alloc(mem)
    run("""
      buffer_store_short_d16_hi v2, v1, s[4:7], 0 offen
      buffer_store_byte_d16_hi v2, v1, s[4:7], 0 offen offset:130
      s_waitcnt vmcnt(0)
      s_endpgm""", emu=emu, sgprs={4: srd(p, 256)}, vgprs={1: LANES * 2, 2: 0xA1B2C3D4 + LANES},
        exec_mask=0xFF)
    assert np.array_equal(mem[:16].view(np.uint16), np.full(8, 0xA1B2))
    assert (mem[130:146:2] == 0xB2).all() and not mem[16:130].any() and not mem[147:].any()


def test_flat_d16_global_and_lds_aperture():
    # global lanes through v[2:3]; LDS-aperture pointer v[12:13] = {lane*2, shared aperture hi}.
    # FLAT loads may complete out of order (LDS vs VMEM), so d16 loads into one VGPR need a wait.
    emu = Emulator()
    g = (np.arange(128, dtype=np.uint8) * 3).astype(np.uint8)
    p = emu.alloc(g)
    m = run("""
      s_mov_b64 s[4:5], src_shared_base
      v_lshlrev_b32 v1, 1, v0
      v_mov_b32 v8, s1
      v_add_co_u32 v2, s[6:7], s0, v1
      s_nop 1
      v_mov_b32 v10, 0
      v_addc_co_u32 v3, s[6:7], v8, v10, s[6:7]
      flat_load_short_d16 v4, v[2:3]
      s_waitcnt vmcnt(0) lgkmcnt(0)
      flat_load_ubyte_d16_hi v4, v[2:3] offset:1
      v_mov_b32 v12, v1
      v_mov_b32 v13, s5
      flat_store_short_d16_hi v[12:13], v5
      s_waitcnt vmcnt(0) lgkmcnt(0)
      flat_load_sbyte_d16 v6, v[12:13] offset:1
      s_waitcnt vmcnt(0) lgkmcnt(0)
      s_endpgm""", emu=emu, lds=256, sgprs={0: _pair(p)},
        vgprs={0: LANES, 4: 0xFFFFFFFF, 5: 0x80F70000 + LANES, 6: 0x55550000})
    w = m.waves[0]
    gb = g.astype(np.int64)
    a = LANES * 2
    assert np.array_equal(w.vgpr[4], (gb[a + 1] << 16) | gb[a] | (gb[a + 1] << 8))
    assert (m.lds.data[:128].view(np.uint16) == 0x80F7).all()            # bits 31:16 of v5
    assert (w.vgpr[6] == 0x5555FF80).all()                                # sign-extended 0x80


def test_scratch_d16_and_scratch_load_lds():
    def setup(wv):
        wv.vgpr[0] = LANES.astype(np.uint32)
        wv.vgpr[2] = (0x81C2E3F4 + LANES).astype(np.uint32)
        wv.vgpr[3] = np.full(64, 0x11112222, np.uint32)
        wv.vgpr[4] = np.full(64, 0x11112222, np.uint32)
    m = Emulator().run_program("""
      scratch_store_short_d16_hi off, v2, off offset:4
      scratch_store_byte_d16_hi off, v2, off offset:8
      s_waitcnt vmcnt(0)
      scratch_load_short_d16 v3, off, off offset:4
      scratch_load_sbyte_d16_hi v4, off, off offset:8
      s_mov_b32 m0, 16
      s_nop 0
      scratch_load_lds_dword off, off offset:4
      s_waitcnt vmcnt(0)
      s_endpgm""", setup=setup, scratch_bytes=64, lds_bytes=512)
    w = m.waves[0]
    assert (w.vgpr[3] == 0x111181C2).all()
    assert (w.vgpr[4] == 0xFFC22222).all()               # 0xC2 sign-extended into bits 31:16
    lds = m.lds.data[:512].view(np.uint32)
    # LDS = M0 + offset + lane*4 = dword 5 + lane; the loaded dword's low half is 0x81C2
    assert ((lds[5:69] & 0xFFFF) == 0x81C2).all()


# ------------------------------------------------------------------------------------------------
# packed bf16 VMEM atomics
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
def test_global_flat_pk_add_bf16(arch):
    emu = Emulator(arch=arch)
    mem = np.full(64, _bf(1.0) | _bf(4.0) << 16, np.uint32)
    p = emu.alloc(mem)
    m = run("""
      v_lshlrev_b32 v1, 2, v0
      global_atomic_pk_add_bf16 v3, v1, v2, s[0:1] sc0
      global_atomic_pk_add_bf16 v1, v2, s[0:1]
      s_waitcnt vmcnt(0)
      s_endpgm""", emu=emu, sgprs={0: _pair(p)}, vgprs={0: LANES, 2: _bf(0.5) | _bf(-8.0) << 16},
        exec_mask=HALF)
    assert (mem[:32] == (_bf(2.0) | _bf(-12.0) << 16)).all()
    assert (mem[32:] == (_bf(1.0) | _bf(4.0) << 16)).all()
    assert (m.waves[0].vgpr[3][:32] == (_bf(1.0) | _bf(4.0) << 16)).all()


def test_buffer_pk_add_bf16_gfx950():
    emu = Emulator(arch="gfx950")
    mem = np.full(64, _bf(3.0), np.uint32)
    p = emu.alloc(mem)
    m = run("""
      v_lshlrev_b32 v1, 2, v0
      buffer_atomic_pk_add_bf16 v2, v1, s[4:7], 0 offen sc0
      s_waitcnt vmcnt(0)
      s_endpgm""", emu=emu, sgprs={4: srd(p, 256)}, vgprs={0: LANES, 2: _bf(1.0) | _bf(1.0) << 16})
    assert (mem == (_bf(4.0) | _bf(1.0) << 16)).all() and (m.waves[0].vgpr[2] == _bf(3.0)).all()


# ------------------------------------------------------------------------------------------------
# syntax: llvm-mc-22 accepts every form the tests use, on both arches
# ------------------------------------------------------------------------------------------------
SYNTAX = """ds_rsub_rtn_u32 v3, v1, v2
ds_rsub_u32 v1, v2
ds_rsub_rtn_u64 v[4:5], v1, v[2:3]
ds_mskor_rtn_b32 v6, v12, v13, v14
ds_mskor_b64 v1, v[2:3], v[4:5]
ds_wrap_rtn_b32 v3, v1, v2, v4
ds_min_rtn_f32 v3, v1, v2
ds_max_f32 v1, v2 offset:256
ds_max_rtn_f64 v[4:5], v1, v[2:3]
ds_min_f64 v1, v[2:3]
ds_cmpst_rtn_f32 v3, v1, v2, v4
ds_cmpst_f64 v1, v[2:3], v[4:5]
ds_pk_add_rtn_f16 v3, v1, v2
ds_pk_add_bf16 v1, v2
ds_wrxchg2_rtn_b32 v[4:5], v1, v2, v3 offset0:1 offset1:3
ds_wrxchg2st64_rtn_b64 v[4:7], v1, v[2:3], v[12:13] offset0:0 offset1:1
ds_write_addtid_b32 v3 offset:8
ds_read_addtid_b32 v4 offset:8
ds_nop
buffer_load_short_d16_hi v3, v1, s[4:7], 0 offen
buffer_load_sbyte_d16 v5, v1, s[4:7], 0 offen
buffer_store_byte_d16_hi v2, v1, s[4:7], 0 offen offset:130
flat_load_ubyte_d16_hi v4, v[2:3] offset:1
flat_store_short_d16_hi v[12:13], v5
scratch_store_short_d16_hi off, v2, off offset:4
scratch_load_sbyte_d16_hi v4, off, off offset:8
scratch_load_lds_dword off, off offset:4
global_atomic_pk_add_bf16 v3, v1, v2, s[0:1] sc0
flat_atomic_pk_add_bf16 v3, v[4:5], v2 sc0
scratch_load_lds_sshort off, off
ds_wrxchg2_rtn_b64 v[4:7], v1, v[8:9], v[12:13] offset0:1 offset1:2
ds_wrxchg2st64_rtn_b32 v[4:5], v1, v8, v12 offset0:1 offset1:2
buffer_load_format_xyz v[4:6], v1, s[4:7], 0 offen
buffer_store_format_xy v[4:5], v1, s[8:11], 0 offen offset:4
ds_cmpst_rtn_f64 v[4:5], v1, v[2:3], v[6:7]
ds_mskor_rtn_b64 v[4:5], v1, v[2:3], v[6:7]
buffer_load_format_xyzw v[4:7], v1, s[4:7], 0 offen
buffer_store_format_xyzw v[4:7], v1, s[8:11], 0 offen
buffer_load_format_d16_x v4, v1, s[4:7], 0 offen
"""


@pytest.mark.skipif(shutil.which("llvm-mc-22") is None, reason="llvm-mc-22 not installed")
@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
def test_llvm_mc_accepts_forms(arch):
    text = SYNTAX + ("buffer_atomic_pk_add_bf16 v2, v1, s[4:7], 0 offen sc0\n" if arch == "gfx950" else "")
    r = subprocess.run(["llvm-mc-22", "-triple=amdgcn-amd-amdhsa", f"-mcpu={arch}", "-o", "/dev/null"],
                       input=text, capture_output=True, text=True, check=False)
    assert r.returncode == 0 and "error" not in r.stderr, r.stderr


# ------------------------------------------------------------------------------------------------
# buffer format loads/stores: conversion-free 32-bit integer formats only
# ------------------------------------------------------------------------------------------------
def _fmt_srd(addr, nrec, dfmt, nfmt, sel=4 | 5 << 3 | 6 << 6 | 7 << 9):
    d = srd(addr, nrec)
    d[3] = sel | nfmt << 12 | dfmt << 15
    return d


def test_buffer_format_32bit_uint_roundtrip_and_refusals():
    emu = Emulator()
    src = np.arange(256, dtype=np.uint32) * 7
    dst = np.zeros(256, np.uint32)
    ps, pd = emu.alloc(src), emu.alloc(dst)
    m = run("""
      v_lshlrev_b32 v1, 4, v0
      buffer_load_format_xyzw v[4:7], v1, s[4:7], 0 offen
      buffer_load_format_x v8, v1, s[12:15], 0 offen offset:4
      s_waitcnt vmcnt(0)
      buffer_store_format_xyzw v[4:7], v1, s[8:11], 0 offen
      s_waitcnt vmcnt(0)
      s_endpgm""", emu=emu, sgprs={4: _fmt_srd(ps, 1024, 14, 4), 8: _fmt_srd(pd, 1024, 14, 5),
                                   12: _fmt_srd(ps, 1024, 4, 4)}, vgprs={0: LANES}, exec_mask=HALF)
    assert np.array_equal(dst[:128], src[:128]) and not dst[128:].any()
    assert np.array_equal(m.waves[0].vgpr[8][:32], src[LANES[:32] * 4 + 1])
    for fmt in ((14, 7), (14, 0), (11, 4)):                # float, unorm, 2-component vs xyzw
        with pytest.raises(EmulatorError, match="only a 4x32-bit UINT/SINT"):
            run("buffer_load_format_xyzw v[4:7], v1, s[4:7], 0 offen\ns_endpgm", emu=emu,
                sgprs={4: _fmt_srd(ps, 1024, *fmt)}, vgprs={1: 0})
    with pytest.raises(EmulatorError, match="identity"):
        run("buffer_load_format_x v4, v1, s[4:7], 0 offen\ns_endpgm", emu=emu,
            sgprs={4: _fmt_srd(ps, 1024, 4, 4, sel=0)}, vgprs={1: 0})
    with pytest.raises(EmulatorError, match="d16 format"):
        run("buffer_load_format_d16_x v4, v1, s[4:7], 0 offen\ns_endpgm", emu=emu,
            sgprs={4: _fmt_srd(ps, 1024, 4, 4)}, vgprs={1: 0})


def test_ds_wrxchg2_equal_offsets_refused_at_execution():
    # the program still builds (the form is only refused when it runs)
    with pytest.raises(UnknownInstructionError, match="overlap"):
        run("ds_wrxchg2_rtn_b32 v[4:5], v1, v2, v3 offset0:2 offset1:2\ns_endpgm", lds=256)
