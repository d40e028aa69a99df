"""Per-dword range checking of multi-dword MUBUF accesses (isa.emu.buffer_addr, isa.emu.mem_buffer)
against a NumPy model of the CDNA3 ISA guide's "Range Checking" notes (MUBUF, "Buffer
Instructions"; the same text in the CDNA4 guide, section 9.1.5.1): out-of-range reads return 0,
out-of-range writes write nothing, and "Load/store-Dword-x{2,3,4} range-check per component". An
out-of-range dword never touches memory, so a 16-byte access whose in-range dwords end exactly at
the allocation's (num_records) end runs, for loads, stores and LDS-DMA and for every descriptor form;
an in-range dword outside every allocation stays a GlobalOutOfBoundsError."""
from __future__ import annotations

import numpy as np
import pytest
from core_util import run

from isa.emu import Emulator
from isa.emu.errors import EmulatorError, GlobalOutOfBoundsError

L = np.arange(64)
OUT_SRD = 0x00020000


def _vsharp(addr, num_records, stride=0, swizzle=False, add_tid=False, elt=1, ist=3, dfmt=4):
    d1 = (addr >> 32) | (stride & 0x3FFF) << 16 | int(swizzle) << 31
    d3 = dfmt << 15 | elt << 19 | ist << 21 | int(add_tid) << 23
    return [addr & 0xFFFFFFFF, d1, num_records, d3]


def _per_dword(src_u32, offsets, ndw, num_records):
    """NumPy model of a raw-buffer Dword-xN load: dword k of a lane at byte offset o + 4k reads
    src when o + 4k + 4 <= num_records, else 0."""
    want = np.zeros((len(offsets), ndw), np.uint32)
    for k in range(ndw):
        off = offsets + 4 * k
        ok = off + 4 <= num_records
        want[ok, k] = src_u32[off[ok] // 4]
    return want


def _load(src, words, va, mods, vgprs, ndw, arch="gfx942"):
    """buffer_load_dwordx<ndw> from src through the V# ``words(addr)``, each lane's dwords stored
    densely to out[lane, :] with an in-range raw store."""
    emu = Emulator(arch=arch)
    out = np.full((64, ndw), 0xDEAD, np.uint32)
    ps, po = emu.alloc(src), emu.alloc(out)
    vx = "dword" if ndw == 1 else f"dwordx{ndw}"
    body = f"""
      buffer_load_{vx} v[10:{9 + ndw}], {va}, s[0:3], 0 {mods}
      s_waitcnt vmcnt(0)
      buffer_store_{vx} v[10:{9 + ndw}], v5, s[4:7], 0 offen
      s_endpgm"""
    run(body, emu=emu, sgprs={0: words(ps), 4: [po & 0xFFFFFFFF, po >> 32, out.nbytes, OUT_SRD]},
        vgprs={**vgprs, 5: L * 4 * ndw})
    return out


@pytest.mark.parametrize("ndw", [2, 3, 4])
@pytest.mark.parametrize("stride", [0, 48])
def test_raw_load_in_range_dwords_end_at_the_allocation(ndw, stride):
    # 38 dwords allocated and num_records = 152 bytes: lane 9's dwords 0, 1 are the allocation's
    # last two (x3, x4 straddle the end), lanes >= 10 read nothing in range; raw with any stride
    src = np.arange(38, dtype=np.uint32) + 100
    offsets = L * 16
    out = _load(src, lambda a: _vsharp(a, src.nbytes, stride=stride), "v1", "offen", {1: offsets}, ndw)
    assert (out == _per_dword(src, offsets, ndw, src.nbytes)).all()
    assert list(out[9]) == [136, 137, 0, 0][:ndw] and (out[12] == 0).all()


def test_raw_load_dwordx4_at_every_dword_misalignment_of_the_end():
    # offsets 4 B apart: lane l's x4 reaches bytes 4l..4l+15; num_records = the allocation size
    src = np.arange(64, dtype=np.uint32) + 7
    offsets = L * 4
    out = _load(src, lambda a: _vsharp(a, src.nbytes), "v1", "offen", {1: offsets}, 4)
    assert (out == _per_dword(src, offsets, 4, src.nbytes)).all()
    assert list(out[61]) == [src[61], src[62], src[63], 0]
    assert list(out[63]) == [src[63], 0, 0, 0]


def test_raw_load_num_records_inside_the_allocation():
    # num_records 100 (not a multiple of 16) inside a larger allocation: the dword at 96..99 is the
    # last in range; a dword straddling num_records (LLVM: the hardware masks the whole word) reads 0
    src = np.arange(64, dtype=np.uint32) + 1
    offsets = (L % 16) * 8 + 2 * (L >= 32)
    out = _load(src, lambda a: _vsharp(a, 100), "v1", "offen", {1: offsets}, 2)
    want = np.zeros((64, 2), np.uint32)
    for k in range(2):
        off = offsets + 4 * k
        ok = off + 4 <= 100
        bytes_ = src.view(np.uint8)
        want[ok, k] = [int.from_bytes(bytes_[o:o + 4].tobytes(), "little") for o in off[ok]]
    assert (out == want).all()


def test_in_range_dword_outside_every_allocation_is_still_an_error():
    src = np.arange(40, dtype=np.uint32)
    with pytest.raises(GlobalOutOfBoundsError, match="buffer load of 4 bytes"):
        _load(src, lambda a: _vsharp(a, src.nbytes + 4), "v1", "offen", {1: L * 16}, 4)


def test_structured_load_in_or_out_by_index():
    # stride 16, num_records 10 records = 160 bytes allocated: indices >= 10 read 0 without touching
    # memory (their addresses lie past the allocation), the rest load all 4 dwords
    src = np.arange(40, dtype=np.uint32) + 5
    idx = L % 13
    out = _load(src, lambda a: _vsharp(a, 10, stride=16), "v1", "idxen", {1: idx}, 4)
    want = np.where((idx < 10)[:, None], src[np.minimum(idx, 9)[:, None] * 4 + np.arange(4)], 0)
    assert (out == want).all()


def test_structured_in_range_index_past_the_allocation_is_an_error():
    src = np.arange(38, dtype=np.uint32)       # record 9 is 2 dwords short
    with pytest.raises(GlobalOutOfBoundsError):
        _load(src, lambda a: _vsharp(a, 10, stride=16), "v1", "idxen", {1: L % 10}, 4)


def test_add_tid_private_buffer_is_never_range_checked():
    # add_tid: stride 16 per lane, num_records 0 ignored; lane 63's 16 bytes end at the allocation
    src = np.arange(256, dtype=np.uint32) + 3
    out = _load(src, lambda a: _vsharp(a, 0, stride=16, add_tid=True, dfmt=0), "v1", "offen",
                {1: np.zeros(64)}, 4)
    assert (out == src.reshape(64, 4)).all()
    with pytest.raises(GlobalOutOfBoundsError):
        _load(src[:254].copy(), lambda a: _vsharp(a, 0, stride=16, add_tid=True, dfmt=0), "v1",
              "offen", {1: np.zeros(64)}, 4)


def test_swizzled_access_within_an_element_and_one_that_straddles():
    # element_size 16 (field 3), index_stride 8 (field 0), stride 16: a dwordx4 is one element
    src = np.arange(64 * 4, dtype=np.uint32)
    idx = L
    out = _load(src, lambda a: _vsharp(a, 40, stride=16, swizzle=True, elt=3, ist=0), "v1", "idxen",
                {1: idx}, 4)
    rel = ((idx // 8) * 16) * 8 + (idx % 8) * 16          # the guide's swizzle formula, offset 0
    want = np.where((idx < 40)[:, None], src[(rel // 4)[:, None] + np.arange(4)], 0)
    assert (out == want).all()
    with pytest.raises(EmulatorError, match="straddles an element"):
        _load(src, lambda a: _vsharp(a, 40, stride=16, swizzle=True, elt=1, ist=0), "v1", "idxen",
              {1: idx}, 4)


def _store(ndw, words, va, mods, vgprs, dst_dwords):
    emu = Emulator()
    dst = np.full(dst_dwords, 0xBEEF, np.uint32)
    pd = emu.alloc(dst)
    vx = f"dwordx{ndw}"
    data = {10 + k: L * 10 + k for k in range(ndw)}
    body = f"""
      buffer_store_{vx} v[10:{9 + ndw}], {va}, s[0:3], 0 {mods}
      s_waitcnt vmcnt(0)
      s_endpgm"""
    run(body, emu=emu, sgprs={0: words(pd)}, vgprs={**vgprs, **data})
    return dst


@pytest.mark.parametrize("ndw", [2, 3, 4])
def test_raw_store_writes_only_in_range_dwords(ndw):
    dst_dwords = 37
    offsets = L * 16
    dst = _store(ndw, lambda a: _vsharp(a, dst_dwords * 4), "v1", "offen", {1: offsets}, dst_dwords)
    want = np.full(dst_dwords, 0xBEEF, np.uint32)
    for lane in range(64):
        for k in range(ndw):
            o = offsets[lane] // 4 + k
            if o < dst_dwords:
                want[o] = lane * 10 + k
    assert (dst == want).all()


def test_lds_dma_dwordx4_in_range_dwords_end_at_the_allocation():
    # gfx950 buffer_load_dwordx4 ... lds: lane l's 16 bytes land at LDS 16 l; 37 dwords allocated
    src = np.arange(37, dtype=np.uint32) + 11
    emu = Emulator(arch="gfx950", seed=3)
    ps = emu.alloc(src)
    m = run("""
      s_mov_b32 m0, 0
      s_nop 0
      buffer_load_dwordx4 v1, s[0:3], 0 offen lds
      s_waitcnt vmcnt(0)
      s_endpgm""", emu=emu, lds=2048, sgprs={0: _vsharp(ps, src.nbytes)}, vgprs={1: L * 16})
    lds = m.lds.data.view(np.uint32)[:256].reshape(64, 4)
    assert (lds == _per_dword(src, L * 16, 4, src.nbytes)).all()
