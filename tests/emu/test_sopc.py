"""SOPC semantics (isa.emu.salu) and the SOPP branches that consume them (isa.emu.branch): s_cmp_* on
i32/u32/u64, s_bitcmp*, then s_cbranch_scc*/vcc*/exec* and s_branch through EMU-CORE's machine."""
from __future__ import annotations

import pytest

from isa.emu.catalog import execute
from isa.emu.state import Wave

M32 = 0xFFFFFFFF
VALUES = [0, 1, 2, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0x1234]
CMPS = [("eq", lambda a, b: a == b), ("lg", lambda a, b: a != b), ("gt", lambda a, b: a > b),
        ("ge", lambda a, b: a >= b), ("lt", lambda a, b: a < b), ("le", lambda a, b: a <= b)]


def s32(x):
    return x - (1 << 32) if x >> 31 else x


@pytest.mark.parametrize("cc,f", CMPS)
def test_cmp_i32_u32(cc, f):
    for a in VALUES:
        for b in VALUES:
            w = Wave(0)
            w.sgpr[0], w.sgpr[1] = a, b
            execute(w, f"s_cmp_{cc}_u32 s0, s1")
            assert w.scc == int(f(a, b))
            execute(w, f"s_cmp_{cc}_i32 s0, s1")
            assert w.scc == int(f(s32(a), s32(b)))


def test_cmp_u64_and_literal():
    for a, b in [(0, 0), (1 << 32, 0), (1 << 32, 1 << 32), (5, 5 | (1 << 40))]:
        w = Wave(0)
        w.sgpr[0], w.sgpr[1], w.sgpr[2], w.sgpr[3] = a & M32, a >> 32, b & M32, b >> 32
        execute(w, "s_cmp_eq_u64 s[0:1], s[2:3]")
        assert w.scc == int(a == b)
        execute(w, "s_cmp_lg_u64 s[0:1], s[2:3]")
        assert w.scc == int(a != b)
    w = Wave(0)
    w.sgpr[0] = 0x12345
    execute(w, "s_cmp_eq_u32 s0, 0x12345")
    assert w.scc == 1
    execute(w, "s_cmp_lt_i32 s0, -1")
    assert w.scc == 0


def test_bitcmp():
    for a in VALUES:
        for bit in (0, 1, 31, 32, 33):
            w = Wave(0)
            w.sgpr[0], w.sgpr[1], w.sgpr[2] = a, a ^ 0xFF, bit
            execute(w, "s_bitcmp1_b32 s0, s2")
            assert w.scc == (a >> (bit & 31)) & 1
            execute(w, "s_bitcmp0_b32 s0, s2")
            assert w.scc == 1 - ((a >> (bit & 31)) & 1)
            execute(w, "s_bitcmp1_b64 s[0:1], s2")
            assert w.scc == ((a | ((a ^ 0xFF) << 32)) >> (bit & 63)) & 1


# ----- branches through the real machine (EMU-CORE's Emulator, tests/emu/core_util.py) -------------
def _run(text, **kw):
    from core_util import run
    return run(text, **kw)


def test_loop_with_scc_branch():
    """A counted loop: s_add/s_cmp/s_cbranch_scc1 run 5 times, sum written by v_add."""
    m = _run("""
        s_mov_b32 s0, 0
        v_mov_b32 v1, 0
    .Lloop:
        v_add_u32 v1, 3, v1
        s_add_u32 s0, s0, 1
        s_cmp_lt_u32 s0, 5
        s_cbranch_scc1 .Lloop
        s_endpgm
    """)
    w = m.waves[0]
    assert int(w.sgpr[0]) == 5
    assert (w.vgpr[1] == 15).all()


def test_exec_and_vcc_branches():
    m = _run("""
        v_cmp_gt_u32 vcc, 0, v0
        s_cbranch_vccz .Lskip
        s_mov_b32 s1, 1
    .Lskip:
        s_mov_b64 exec, 0
        s_cbranch_execz .Lend
        s_mov_b32 s2, 7
    .Lend:
        s_mov_b32 s3, 9
        s_branch .Lout
        s_mov_b32 s3, 10
    .Lout:
        s_endpgm
    """, vgprs={0: list(range(64))})
    w = m.waves[0]
    assert int(w.sgpr[1]) == 0       # no lane has v0 < 0: vcc == 0, branch taken
    assert int(w.sgpr[2]) == 0       # exec == 0: skipped
    assert int(w.sgpr[3]) == 9       # s_branch jumped over the second s_mov
