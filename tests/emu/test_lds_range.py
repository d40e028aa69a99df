"""LDS accesses outside the workgroup's allocation, as AMD's ISA guides define them.

CDNA4 ISA guide section 3.6.1 "Out-of-Range behavior" (the same section of the Vega and CDNA
guides): "If the LDS-ADDRESS is out-of-range (addr < 0 or >= (MIN(lds_size, m0)): Writes
out-of-range are discarded; it is undefined if SIZE is not a multiple of write-data-size. Reads
return the value zero." Section 3.6.5: LDS is allocated "in contiguous blocks" (512 bytes on CDNA3,
1280 on CDNA4). Section 3.11: "Memory Buffer to LDS does NOT return a memory violation if the LDS
address is out of range, but masks off EXEC bits of threads that would go out of range." Tensile
relies on it (hipBLASLt's MT256x224x64 kernel reads its bias with ds_read_b128 at 0x80000000 for
out-of-tile lanes). What the guide leaves undefined (an element partly out of range, atomics) stays
LdsOutOfBoundsError.
"""
from __future__ import annotations

import numpy as np
import pytest
from core_util import run, srd

from isa.emu import Emulator
from isa.emu.errors import LdsOutOfBoundsError
from isa.emu.lds import allocation

LANES = np.arange(64)


def test_allocation_is_whole_blocks():
    assert allocation(256, "gfx942") == 512 and allocation(512, "gfx942") == 512
    assert allocation(513, "gfx942") == 1024 and allocation(0, "gfx942") == 0
    assert allocation(256, "gfx950") == 1280 and allocation(1281, "gfx950") == 2560
    assert allocation(65536, "gfx942") == 65536 and allocation(160 * 1024, "gfx950") == 160 * 1024


def test_bytes_past_the_request_inside_the_block_are_ordinary_lds():
    """256 bytes asked, 512 allocated: a write at 259 and its read-back are plain LDS accesses."""
    m = run("""
      v_mov_b32 v1, 0x1234
      ds_write_b32 v0, v1 offset:4
      s_waitcnt lgkmcnt(0)
      ds_read_b32 v2, v0 offset:4
      s_waitcnt lgkmcnt(0)
      s_endpgm""", lds=256, vgprs={0: LANES * 4})
    assert (m.waves[0].vgpr[2] == 0x1234).all()
    assert (m.lds.data[4:260].view(np.uint32) == 0x1234).all()


def test_tensile_bias_clip_reads_zero():
    """The hipBLASLt MT256x224x64 pattern: v_cndmask picks 0x80000000 (Tensile's BufferOOB) as the
    LDS address of out-of-tile lanes; their ds_read_b128 returns 0, the others read LDS."""
    m = run("""
      v_mov_b32 v1, 0x80000000
      v_cmp_gt_u32 vcc, 32, v3
      s_nop 1
      v_cndmask_b32 v4, v1, v0, vcc
      v_mov_b32 v5, 7
      ds_write_b32 v0, v5
      s_waitcnt lgkmcnt(0)
      ds_read_b128 v[8:11], v4
      s_waitcnt lgkmcnt(0)
      s_endpgm""", lds=1024, vgprs={0: LANES * 16, 3: LANES, 8: 0xDEAD, 9: 0xDEAD, 10: 0xDEAD,
                                     11: 0xDEAD})
    v = m.waves[0].vgpr
    assert (v[8][:32] == 7).all() and (v[9:12, :32] == 0).all()
    assert (v[8:12, 32:] == 0).all()                # out of range: zero, not the old 0xDEAD


@pytest.mark.parametrize("arch,alloc", [("gfx942", 512), ("gfx950", 1280)])
def test_reads_past_the_block_return_zero_writes_are_dropped(arch, alloc):
    """Lane l accesses byte alloc - 128 + 4 l: lanes 0..31 in range, 32..63 past the allocation."""
    m = run("""
      ds_write_b32 v0, v1
      s_waitcnt lgkmcnt(0)
      ds_read_b32 v2, v0
      ds_read2_b32 v[4:5], v0 offset1:1
      s_waitcnt lgkmcnt(0)
      s_endpgm""", lds=256, arch=arch, vgprs={0: alloc - 128 + LANES * 4, 1: LANES + 100,
                                              2: 0xDEAD, 4: 0xDEAD, 5: 0xDEAD})
    assert m.lds.limit == alloc and len(m.lds.data) == alloc and len(m.lds.buf) == alloc + 8
    v = m.waves[0].vgpr
    assert np.array_equal(v[2][:32], LANES[:32] + 100) and (v[2][32:] == 0).all()
    assert np.array_equal(v[4][:32], LANES[:32] + 100) and (v[4][32:] == 0).all()
    assert np.array_equal(v[5][:31], LANES[1:32] + 100) and (v[5][31:] == 0).all()
    # nothing of lanes 32..63 landed in the allocation (it wraps nowhere)
    assert np.array_equal(m.lds.data[:alloc].view(np.uint32)[-32:], LANES[:32] + 100)
    assert not m.lds.data[:alloc - 128].any()


def test_out_of_range_writes_of_two_waves_do_not_race():
    """Dropped writes touch no LDS byte, so two waves writing out of range do not race."""
    m = run("""
      ds_write_b32 v0, v1
      s_waitcnt lgkmcnt(0)
      s_endpgm""", n_waves=2, lds=512, vgprs={0: 4096 + LANES * 4, 1: LANES})
    assert not m.lds.data[:512].any()


def test_element_partly_out_of_range_is_refused():
    with pytest.raises(LdsOutOfBoundsError, match=r"read of 8 bytes at byte 508 runs past the end of "
                       r"the workgroup's LDS allocation of 512 bytes .*undefined in the ISA guide"):
        run("ds_read_b64 v[2:3], v0\n s_waitcnt lgkmcnt(0)\n s_endpgm", lds=512,
            vgprs={0: np.full(64, 508)})


def test_out_of_range_atomic_is_refused():
    with pytest.raises(LdsOutOfBoundsError, match="atomic of 4 bytes at byte 515 .*not atomics"):
        run("ds_add_u32 v0, v1\n s_waitcnt lgkmcnt(0)\n s_endpgm", lds=512,
            vgprs={0: np.full(64, 512), 1: 1})


def test_lds_dma_masks_out_of_range_lanes():
    """buffer_load_dword ... lds with M0 so that lanes 32..63 land past the allocation: those lanes
    are masked off (ISA 3.11): nothing is written for them and no error is raised."""
    emu = Emulator(seed=1)
    src = np.arange(64, dtype=np.uint32) + 1000
    ps = emu.alloc(src)
    m = run("""
      s_mov_b32 m0, 384
      s_nop 0
      buffer_load_dword v1, s[0:3], 0 offen lds
      s_waitcnt vmcnt(0)
      s_endpgm""", emu=emu, lds=512, sgprs={0: srd(ps, src.nbytes)}, vgprs={1: LANES * 4})
    assert np.array_equal(m.lds.data[384:512].view(np.uint32), src[:32])
    assert not m.lds.data[:384].any() and not m.lds.buf[512:].any()
