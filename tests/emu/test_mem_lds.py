"""DS instructions vs NumPy: read/write widths, read2/write2 (+st64), atomics, lane ops, bank trace."""
from __future__ import annotations

import numpy as np
import pytest
from core_util import run

from isa.emu import Emulator
from isa.emu.mem_lds import bank_conflict_cycles, swizzle_source_lanes

LANES = np.arange(64)


@pytest.mark.parametrize("w,n", [("b32", 1), ("b64", 2), ("b96", 3), ("b128", 4)])
def test_write_read_roundtrip(w, n):
    vals = {4 + k: LANES * 10 + k for k in range(n)}
    m = run(f"""
      v_mul_u32_u24 v1, {4 * n}, v0
      ds_write_{w} v1, v[4:{3 + n}] offset:32
      ds_read_{w} v[8:{7 + n}], v1 offset:32
      s_waitcnt lgkmcnt(0)
      s_endpgm""", lds=32 + 64 * 16, vgprs={0: LANES, **vals})
    for k in range(n):
        assert np.array_equal(m.waves[0].vgpr[8 + k], LANES * 10 + k)
    lds = m.lds.data[32:32 + 64 * 4 * n].view(np.uint32).reshape(64, n)
    assert np.array_equal(lds[:, 0], LANES * 10)


def test_sub_dword_ds():
    m = run("""
      ds_write_b8 v0, v1
      ds_write_b16 v0, v1 offset:128
      s_waitcnt lgkmcnt(0)
      ds_read_i8 v2, v0
      ds_read_u16 v3, v0 offset:128
      s_waitcnt lgkmcnt(0)
      s_endpgm""", lds=512, vgprs={0: LANES * 2, 1: np.full(64, 0x1F0F0)}, exec_mask=1)
    w = m.waves[0]
    assert w.vgpr[2][0] == 0xFFFFFFF0 and w.vgpr[3][0] == 0xF0F0


@pytest.mark.parametrize("op,size,scale", [("b32", 4, 1), ("b64", 8, 1), ("st64_b32", 4, 64)])
def test_read2_write2(op, size, scale):
    n = size // 4
    hi = 3 + n
    spacing = 2 * size if scale > 1 else 4 * size      # lanes' slots never overlap
    lds_size = 64 * spacing + 4 * size * scale
    a = {4 + k: LANES + 100 * k for k in range(n)}
    b = {8 + k: LANES + 1000 + 100 * k for k in range(n)}
    wop = "ds_write2" + ("st64_" + op[5:] if op.startswith("st64") else "_" + op)
    rop = wop.replace("write", "read")
    m = run(f"""
      v_mul_u32_u24 v1, {spacing}, v0
      {wop} v1, v[4:{hi}], v[8:{7 + n}] offset0:1 offset1:3
      s_waitcnt lgkmcnt(0)
      {rop} v[12:{11 + 2 * n}], v1 offset0:3 offset1:1
      s_waitcnt lgkmcnt(0)
      s_endpgm""", lds=lds_size, vgprs={0: LANES, **a, **b})
    w = m.waves[0]
    for k in range(n):
        assert np.array_equal(w.vgpr[12 + k], LANES + 1000 + 100 * k)    # offset1 data first
        assert np.array_equal(w.vgpr[12 + n + k], LANES + 100 * k)
    lds = m.lds.data
    first = lds[size * scale:size * scale + 4].view(np.uint32)[0]     # lane 0, offset0 slot
    assert first == 0 and not lds[:size * scale].any()


def test_atomic_add_many_waves_no_race():
    m = run("""
      v_mov_b32 v1, 0
      v_mov_b32 v2, 1
      ds_add_u32 v1, v2
      ds_add_rtn_u32 v3, v1, v2 offset:4
      s_waitcnt lgkmcnt(0)
      s_barrier
      ds_read_b32 v4, v1
      s_waitcnt lgkmcnt(0)
      s_endpgm""", n_waves=4, lds=64)
    assert (m.waves[0].vgpr[4] == 256).all()
    rets = np.concatenate([w.vgpr[3] for w in m.waves])
    assert sorted(rets) == list(range(256))


def test_bpermute_and_permute():
    m = run("""
      v_sub_u32 v2, 63, v5
      v_lshlrev_b32 v2, 2, v2
      ds_bpermute_b32 v3, v2, v0
      ds_permute_b32 v4, v2, v0
      s_waitcnt lgkmcnt(0)
      s_endpgm""", vgprs={0: LANES + 100, 5: LANES})
    w = m.waves[0]
    assert np.array_equal(w.vgpr[3], (LANES + 100)[::-1])
    assert np.array_equal(w.vgpr[4], (LANES + 100)[::-1])


def test_bpermute_inactive_source_reads_zero():
    m = run("""
      ds_bpermute_b32 v3, v2, v0
      s_waitcnt lgkmcnt(0)
      s_endpgm""", vgprs={0: LANES + 1, 2: np.full(64, 4 * 40)}, exec_mask=0xFFFFFFFF)
    assert not m.waves[0].vgpr[3][:32].any()


def test_swizzle_quad_perm_and_bitmask():
    src = swizzle_source_lanes(0x8000 | 1 | 0 << 2 | 3 << 4 | 2 << 6)
    assert list(src[:8]) == [1, 0, 3, 2, 5, 4, 7, 6]
    assert list(swizzle_source_lanes(31 | (1 << 10))[:4]) == [1, 0, 3, 2]   # SWAP 1
    m = run("""
      ds_swizzle_b32 v1, v0 offset:swizzle(QUAD_PERM,1,0,3,2)
      ds_swizzle_b32 v2, v0 offset:swizzle(BROADCAST,8,3)
      s_waitcnt lgkmcnt(0)
      s_endpgm""", vgprs={0: LANES})
    w = m.waves[0]
    assert list(w.vgpr[1][:4]) == [1, 0, 3, 2]
    assert list(w.vgpr[2][:16]) == [3] * 8 + [11] * 8


def test_bank_conflicts_in_trace():
    assert bank_conflict_cycles("gfx942", np.arange(64) * 4, 4) == 0
    assert bank_conflict_cycles("gfx942", np.arange(64) * 8, 4) == 2      # 2-way in each half
    assert bank_conflict_cycles("gfx942", np.zeros(64, np.int64), 4) == 0  # broadcast
    emu = Emulator(trace=True)
    run("""
      v_lshlrev_b32 v1, 7, v0
      ds_write_b32 v1, v0
      s_waitcnt lgkmcnt(0)
      s_endpgm""", emu=emu, lds=64 * 128, vgprs={0: LANES})
    rec = next(r for r in emu.trace if r["instr"].startswith("ds_write"))
    assert rec["lds_bank_conflicts"] == 62 and rec["wave"] == 0 and rec["pc"] == 1
