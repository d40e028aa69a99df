"""MUBUF addressing and range checking in every descriptor form (isa.emu.buffer_addr), each
against a NumPy model of the CDNA3 ISA guide's "Buffer addressing", "Swizzled buffer addressing"
and "Range Checking" sections: raw (any stride, soffset unchecked), structured (idxen, index <
num_records), swizzled structured, add_tid (private: no range check, lane id as index, stride
bits 17:14 from data_format per LLVM getScratchRsrcWords23), and the forms the guide leaves out."""
from __future__ import annotations

import numpy as np
import pytest
from core_util import run

from isa.emu import Emulator
from isa.emu.errors import EmulatorError, GlobalOutOfBoundsError

L = np.arange(64)
COPY = """
      buffer_load_dword v2, {va}, s[0:3], s9 {mods}
      s_waitcnt vmcnt(0)
      buffer_store_dword v2, v5, s[4:7], 0 offen
      s_endpgm"""


def _vsharp(addr, num_records, stride=0, swizzle=False, add_tid=False, elt=1, ist=3, dfmt=4):
    d1 = (addr >> 32) | (stride & 0x3FFF) << 16 | int(swizzle) << 31
    d3 = dfmt << 15 | elt << 19 | ist << 21 | int(add_tid) << 23
    return [addr & 0xFFFFFFFF, d1, num_records, d3]


def _copy(src, srd_words, va, mods, vgprs, soffset=0):
    emu = Emulator()
    out = np.full(64, 0xDEAD, np.uint32)
    ps, po = emu.alloc(src), emu.alloc(out)
    sg = {0: srd_words(ps), 4: [po & 0xFFFFFFFF, po >> 32, out.nbytes, 0x00020000], 9: soffset}
    run(COPY.format(va=va, mods=mods), emu=emu, sgprs=sg, vgprs={**vgprs, 5: L * 4})
    return out


def test_raw_buffer_with_a_stride_is_range_checked_in_bytes():
    # the aiter case: stride != 0, no idxen -> raw buffer; offset >= num_records reads 0
    src = np.arange(256, dtype=np.uint32) + 1
    out = _copy(src, lambda a: _vsharp(a, 100, stride=64), "v1", "offen", {1: L * 4})
    assert (out == np.where(L * 4 < 100, src[:64], 0)).all()


def test_raw_buffer_soffset_is_outside_the_check():
    src = np.arange(256, dtype=np.uint32) + 1
    out = _copy(src, lambda a: _vsharp(a, 128, stride=16), "v1", "offen", {1: L * 4}, soffset=64)
    assert (out == np.where(L * 4 < 128, src[16:80], 0)).all()


def test_structured_buffer_checks_the_index():
    src = np.arange(1024, dtype=np.uint32)
    idx = (L * 5) % 70
    out = _copy(src, lambda a: _vsharp(a, 60, stride=12), "v[1:2]", "idxen offen offset:4",
                {1: idx, 2: np.full(64, 8)})
    want = np.where(idx < 60, src[(idx * 12 + 12) // 4], 0)
    assert (out == want).all()


def test_structured_index_in_range_but_outside_the_allocation_is_an_error():
    src = np.arange(16, dtype=np.uint32)
    with pytest.raises(GlobalOutOfBoundsError):
        _copy(src, lambda a: _vsharp(a, 1000, stride=64), "v1", "idxen", {1: L})


def _swizzled(index, offset, stride, es, ist):
    return ((index // ist) * stride + (offset // es) * es) * ist + (index % ist) * es + offset % es


def test_swizzled_structured_buffer_addresses_and_checks_the_index():
    src = np.arange(4096, dtype=np.uint32)
    idx, off = L % 40, (L // 40) * 4
    # element_size 4 (field 1), index_stride 16 (field 1), stride 8 bytes
    out = _copy(src, lambda a: _vsharp(a, 36, stride=8, swizzle=True, elt=1, ist=1),
                "v[1:2]", "idxen offen", {1: idx, 2: off})
    want = np.where(idx < 36, src[_swizzled(idx, off, 8, 4, 16) // 4], 0)
    assert (out == want).all()


def test_add_tid_uses_the_lane_and_is_not_range_checked():
    src = np.arange(4096, dtype=np.uint32)
    # stride = 16 | data_format 1 << 14 (LLVM: with TID_ENABLE, DATA_FORMAT holds stride 17:14)
    out = _copy(src, lambda a: _vsharp(a, 4, stride=16, add_tid=True, dfmt=0), "v1", "offen offset:4",
                {1: np.zeros(64)})
    assert (out == src[(L * 16 + 4) // 4]).all()       # num_records 4 ignored (private buffer)
    stride = 16 | 1 << 14
    src2 = np.arange(64 * stride // 4 + 8, dtype=np.uint32)
    out = _copy(src2, lambda a: _vsharp(a, 0, stride=16, add_tid=True, dfmt=1), "v1", "offen",
                {1: np.zeros(64)})
    assert (out == src2[L * stride // 4]).all()


def test_add_tid_swizzled_scratch_layout():
    src = np.arange(8192, dtype=np.uint32)
    off = np.full(64, 8)
    out = _copy(src, lambda a: _vsharp(a, 0, stride=16, swizzle=True, add_tid=True, elt=1, ist=3, dfmt=0),
                "v1", "offen", {1: off})
    assert (out == src[_swizzled(L, off, 16, 4, 64) // 4]).all()


@pytest.mark.parametrize("words,va,mods,what", [
    (lambda a: _vsharp(a, 64, stride=16, swizzle=True), "v1", "offen", "swizzle_en"),
    (lambda a: _vsharp(a, 64, stride=16, add_tid=True), "v[1:2]", "idxen offen", "idxen through a V# with add_tid"),
    (lambda a: [a & 0xFFFFFFFF, (a >> 32) | 1 << 30, 64, 0x00020000], "v1", "offen", "cache-swizzle"),
])
def test_forms_the_guide_does_not_cover_are_refused(words, va, mods, what):
    src = np.arange(64, dtype=np.uint32)
    with pytest.raises(EmulatorError, match=what):
        _copy(src, words, va, mods, {1: L * 4, 2: L * 4})
