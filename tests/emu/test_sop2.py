"""SOP2 semantics (isa.emu.salu) against Python/NumPy references: carries, overflow, shifts masked to
5/6 bits, logical ops with SCC = result != 0, bitfields, min/max, cselect, packs, 64-bit forms."""
from __future__ import annotations

import numpy as np
import pytest

from isa.emu.catalog import execute
from isa.emu.state import Wave

M32 = 0xFFFFFFFF
M64 = (1 << 64) - 1
EDGE = [0, 1, 2, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0xFFFFFFFE, 31, 32, 33, 63, 64, 0x12345678, 0x1F0010]


def pairs(n=60, seed=0):
    rng = np.random.default_rng(seed)
    out = [(a, b) for a in EDGE for b in EDGE[:6]]
    out += [tuple(int(x) for x in rng.integers(0, 1 << 32, 2, dtype=np.uint64)) for _ in range(n)]
    return out


def s32(x):
    x &= M32
    return x - (1 << 32) if x >> 31 else x


def run2(op, a, b, scc=0, wide=False):
    w = Wave(0)
    w.scc = scc
    if wide:
        w.sgpr[2], w.sgpr[3], w.sgpr[4], w.sgpr[5] = a & M32, a >> 32, b & M32, b >> 32
        execute(w, f"{op} s[0:1], s[2:3], s[4:5]")
        return int(w.sgpr[0]) | int(w.sgpr[1]) << 32, w.scc
    w.sgpr[2], w.sgpr[4] = a, b
    execute(w, f"{op} s0, s2, s4")
    return int(w.sgpr[0]), w.scc


def test_add_sub_u32_carry():
    for a, b in pairs():
        assert run2("s_add_u32", a, b) == ((a + b) & M32, int(a + b > M32))
        assert run2("s_sub_u32", a, b) == ((a - b) & M32, int(b > a))
        for c in (0, 1):
            assert run2("s_addc_u32", a, b, c) == ((a + b + c) & M32, int(a + b + c > M32))
            assert run2("s_subb_u32", a, b, c) == ((a - b - c) & M32, int(b + c > a))


def test_add_sub_i32_overflow():
    for a, b in pairs():
        r = s32(a) + s32(b)
        assert run2("s_add_i32", a, b) == (r & M32, int(not -(1 << 31) <= r < (1 << 31)))
        r = s32(a) - s32(b)
        assert run2("s_sub_i32", a, b) == (r & M32, int(not -(1 << 31) <= r < (1 << 31)))


def test_u64_add_chain():
    """s_add_u32 + s_addc_u32 build a 64-bit add, as LLVM emits it."""
    rng = np.random.default_rng(1)
    for a, b in [(M64, 1), (0xFFFFFFFF, 1)] + [tuple(int(x) for x in rng.integers(0, 1 << 63, 2)) for _ in range(20)]:
        w = Wave(0)
        w.sgpr[2], w.sgpr[3], w.sgpr[4], w.sgpr[5] = a & M32, a >> 32, b & M32, b >> 32
        execute(w, "s_add_u32 s0, s2, s4")
        execute(w, "s_addc_u32 s1, s3, s5")
        assert int(w.sgpr[0]) | int(w.sgpr[1]) << 32 == (a + b) & M64
        assert w.scc == int(a + b > M64)


def test_mul():
    for a, b in pairs():
        assert run2("s_mul_i32", a, b)[0] == (s32(a) * s32(b)) & M32
        assert run2("s_mul_hi_u32", a, b)[0] == (a * b) >> 32
        assert run2("s_mul_hi_i32", a, b)[0] == ((s32(a) * s32(b)) >> 32) & M32


def test_shifts_mask_amount():
    for a, b in pairs():
        sh = b & 31
        assert run2("s_lshl_b32", a, b) == ((a << sh) & M32, int((a << sh) & M32 != 0))
        assert run2("s_lshr_b32", a, b) == (a >> sh, int(a >> sh != 0))
        assert run2("s_ashr_i32", a, b)[0] == (s32(a) >> sh) & M32
    w = Wave(0)
    w.sgpr[2], w.sgpr[3] = 0x80000001, 0x80000000
    execute(w, "s_ashr_i64 s[0:1], s[2:3], 68")   # 68 & 63 = 4
    assert int(w.sgpr[0]) | int(w.sgpr[1]) << 32 == ((0x8000000080000001 - (1 << 64)) >> 4) & M64
    execute(w, "s_lshl_b64 s[0:1], s[2:3], 33")
    assert int(w.sgpr[0]) | int(w.sgpr[1]) << 32 == (0x8000000080000001 << 33) & M64


@pytest.mark.parametrize("op,f", [
    ("and", lambda a, b, m: a & b), ("or", lambda a, b, m: a | b), ("xor", lambda a, b, m: a ^ b),
    ("andn2", lambda a, b, m: a & ~b & m), ("orn2", lambda a, b, m: (a | ~b) & m),
    ("nand", lambda a, b, m: ~(a & b) & m), ("nor", lambda a, b, m: ~(a | b) & m),
    ("xnor", lambda a, b, m: ~(a ^ b) & m)])
def test_logic_scc(op, f):
    for a, b in pairs(20):
        r = f(a, b, M32)
        assert run2(f"s_{op}_b32", a, b) == (r, int(r != 0))
        a64, b64 = a | (b << 32), b | (a << 32)
        r = f(a64, b64, M64)
        assert run2(f"s_{op}_b64", a64, b64, wide=True) == (r, int(r != 0))
    assert run2("s_and_b32", 0xF0, 0x0F) == (0, 0)


def test_bfe_bfm():
    for a, b in pairs():
        off, width = b & 31, (b >> 16) & 0x7F
        ref = (a >> off) & ((1 << min(width, 32)) - 1) if width else 0
        assert run2("s_bfe_u32", a, b) == (ref, int(ref != 0))
        if width:
            wd = min(width, 32)
            sref = (ref - (1 << wd) if ref >> (wd - 1) else ref) & M32
        else:
            sref = 0
        assert run2("s_bfe_i32", a, b)[0] == sref
        assert run2("s_bfm_b32", a, b)[0] == (((1 << (a & 31)) - 1) << (b & 31)) & M32
    w = Wave(0)
    w.sgpr[2], w.sgpr[3], w.sgpr[4] = 0xDEADBEEF, 0x12345678, (20 << 16) | 28
    execute(w, "s_bfe_u64 s[0:1], s[2:3], s4")
    assert int(w.sgpr[0]) | int(w.sgpr[1]) << 32 == (0x12345678DEADBEEF >> 28) & ((1 << 20) - 1)


def test_min_max_cselect():
    for a, b in pairs():
        assert run2("s_min_u32", a, b) == (min(a, b), int(a < b))
        assert run2("s_max_u32", a, b) == (max(a, b), int(a > b))
        assert run2("s_min_i32", a, b) == (min(a, b, key=s32), int(s32(a) < s32(b)))
        assert run2("s_max_i32", a, b) == (max(a, b, key=s32), int(s32(a) > s32(b)))
        assert run2("s_cselect_b32", a, b, 1) == (a, 1)
        assert run2("s_cselect_b32", a, b, 0) == (b, 0)


def test_lshl_add_and_pack():
    for a, b in pairs():
        for n in (1, 2, 3, 4):
            r = (a << n) + b
            assert run2(f"s_lshl{n}_add_u32", a, b) == (r & M32, int(r > M32))
        assert run2("s_pack_ll_b32_b16", a, b)[0] == (a & 0xFFFF) | ((b & 0xFFFF) << 16)
        assert run2("s_pack_lh_b32_b16", a, b)[0] == (a & 0xFFFF) | (b & 0xFFFF0000)
        assert run2("s_pack_hh_b32_b16", a, b)[0] == (a >> 16) | (b & 0xFFFF0000)
        assert run2("s_absdiff_i32", a, b)[0] == abs(s32(a) - s32(b)) & M32


def test_literals_and_inline_constants():
    w = Wave(0)
    w.sgpr[2] = 5
    execute(w, "s_add_u32 s0, s2, -1")       # inline -1 = 0xffffffff: carry out
    assert (int(w.sgpr[0]), w.scc) == (4, 1)
    execute(w, "s_add_u32 s0, s2, 0x12345")
    assert int(w.sgpr[0]) == 0x1234A
    execute(w, "s_and_b64 s[0:1], -1, s[2:3]")  # inline -1 sign-extends to 64 bits
    assert (int(w.sgpr[0]), int(w.sgpr[1])) == (5, int(w.sgpr[3]))
    execute(w, "s_mov_b32 s0, 1.0")
    assert int(w.sgpr[0]) == 0x3F800000
