"""SOPK semantics (isa.emu.salu): s_movk/cmovk (sign-extended simm16), s_addk (SCC = signed overflow),
s_mulk, s_cmpk_* (signed compares sign-extend, unsigned ones zero-extend the immediate)."""
from __future__ import annotations

import pytest

from isa.emu.catalog import execute
from isa.emu.state import Wave

M32 = 0xFFFFFFFF
IMMS = [0, 1, 0x7FFF, 0x8000, 0xFFFF, 0x1234, 0xFFF0]
VALUES = [0, 1, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0x1234, 0xFFFFFFF0, 0x7FFF8000]


def sx16(k):
    return k - 0x10000 if k & 0x8000 else k


def s32(x):
    return x - (1 << 32) if x >> 31 else x


def test_movk_cmovk():
    for k in IMMS:
        w = Wave(0)
        execute(w, f"s_movk_i32 s0, {k:#x}")
        assert int(w.sgpr[0]) == sx16(k) & M32
        w.sgpr[1] = 99
        w.scc = 0
        execute(w, f"s_cmovk_i32 s1, {k:#x}")
        assert int(w.sgpr[1]) == 99
        w.scc = 1
        execute(w, f"s_cmovk_i32 s1, {k:#x}")
        assert int(w.sgpr[1]) == sx16(k) & M32


def test_addk_overflow_and_mulk():
    for a in VALUES:
        for k in IMMS:
            w = Wave(0)
            w.sgpr[0] = a
            execute(w, f"s_addk_i32 s0, {k:#x}")
            r = s32(a) + sx16(k)
            assert int(w.sgpr[0]) == r & M32
            assert w.scc == int(not -(1 << 31) <= r < (1 << 31))
            w.sgpr[0] = a
            execute(w, f"s_mulk_i32 s0, {k:#x}")
            assert int(w.sgpr[0]) == (s32(a) * sx16(k)) & M32


@pytest.mark.parametrize("cc,f", [("eq", lambda a, b: a == b), ("lg", lambda a, b: a != b),
                                  ("gt", lambda a, b: a > b), ("ge", lambda a, b: a >= b),
                                  ("lt", lambda a, b: a < b), ("le", lambda a, b: a <= b)])
def test_cmpk(cc, f):
    for a in VALUES + [0xFFFF, 0xFFFF8000]:
        for k in IMMS:
            w = Wave(0)
            w.sgpr[3] = a
            execute(w, f"s_cmpk_{cc}_i32 s3, {k:#x}")
            assert w.scc == int(f(s32(a), sx16(k)))
            execute(w, f"s_cmpk_{cc}_u32 s3, {k:#x}")
            assert w.scc == int(f(a, k))
