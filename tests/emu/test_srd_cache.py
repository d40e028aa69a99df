"""A buffer resource (V#) is decoded once per distinct four dwords (isa.emu.buffer_addr
``decode_srd``): new SGPR contents give their own decode, and a V# the ISA guide does not cover
raises every time it is used (refusals are not cached)."""
from __future__ import annotations

import pytest

from isa.emu.buffer_addr import decode_srd
from isa.emu.errors import EmulatorError
from isa.emu.state import Wave
from isa.operands import Reg


def test_each_descriptor_gets_its_own_decode():
    w = Wave(0)
    s = Reg("s", 4, 4)
    w.sgpr[4:8] = [0x1000, 0x0002_0001, 256, 0x00020000]        # base 0x1_0000_1000, stride 2
    a = decode_srd(w, s)
    assert (a.base, a.stride, a.num_records, a.add_tid) == (0x1_0000_1000, 2, 256, False)
    w.sgpr[4:8] = [0x2000, 0x0004_0001, 512, 0x00820000]        # add_tid, stride 4 | 1 << 14
    b = decode_srd(w, s)
    assert (b.base, b.stride, b.num_records, b.add_tid) == (0x1_0000_2000, 4 | (4 << 14), 512, True)
    w.sgpr[4:8] = [0x1000, 0x0002_0001, 256, 0x00020000]
    assert decode_srd(w, s) == a


def test_a_refused_descriptor_raises_each_time():
    w = Wave(0)
    w.sgpr[4:8] = [0, 1 << 30, 64, 0x00020000]                   # gfx942 cache-swizzle bit
    for _ in range(2):
        with pytest.raises(EmulatorError, match="cache-swizzle"):
            decode_srd(w, Reg("s", 4, 4))
