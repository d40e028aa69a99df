"""SOP1 semantics (isa.emu.salu, isa.emu.branch) against Python references: moves, cmov, not, bit
counts/scans, sign extension, bitset, abs, the saveexec family (EXEC and SCC), s_getpc/s_setpc."""
from __future__ import annotations

import numpy as np

from isa.emu.catalog import execute
from isa.emu.state import Wave

M32 = 0xFFFFFFFF
M64 = (1 << 64) - 1
VALUES = [0, 1, 0x80000000, 0xFFFFFFFF, 0x7FFFFFFF, 0x00F0, 0x12345678, 0xFFFF8000, 0x80, 0xF000000F]


def run1(op, a, scc=0, dst_init=0, wide_src=False, wide_dst=False):
    w = Wave(0)
    w.scc = scc
    w.sgpr[0], w.sgpr[1] = dst_init & M32, dst_init >> 32
    w.sgpr[2], w.sgpr[3] = a & M32, a >> 32
    src = "s[2:3]" if wide_src else "s2"
    dst = "s[0:1]" if wide_dst else "s0"
    execute(w, f"{op} {dst}, {src}")
    val = int(w.sgpr[0]) | (int(w.sgpr[1]) << 32 if wide_dst else 0)
    return val, w.scc


def ref_ff1(x):
    return (x & -x).bit_length() - 1 if x else M32


def ref_flbit(x, bits):
    return bits - x.bit_length() if x else M32


def test_mov_cmov_not():
    for a in VALUES:
        assert run1("s_mov_b32", a)[0] == a
        assert run1("s_cmov_b32", a, scc=1, dst_init=7)[0] == a
        assert run1("s_cmov_b32", a, scc=0, dst_init=7)[0] == 7
        assert run1("s_not_b32", a) == (~a & M32, int(~a & M32 != 0))
        a64 = a | (VALUES[3] << 32)
        assert run1("s_mov_b64", a64, wide_src=True, wide_dst=True)[0] == a64
        assert run1("s_not_b64", a64, wide_src=True, wide_dst=True)[0] == ~a64 & M64


def test_bit_counts_and_scans():
    for a in VALUES:
        assert run1("s_bcnt1_i32_b32", a) == (a.bit_count(), int(a != 0))
        assert run1("s_bcnt0_i32_b32", a)[0] == 32 - a.bit_count()
        assert run1("s_ff1_i32_b32", a)[0] == ref_ff1(a)
        assert run1("s_ff0_i32_b32", a)[0] == ref_ff1(~a & M32)
        assert run1("s_flbit_i32_b32", a)[0] == ref_flbit(a, 32)
        sref = M32 if a in (0, M32) else ref_flbit(a if not a >> 31 else ~a & M32, 32)
        assert run1("s_flbit_i32", a)[0] == sref
        assert run1("s_brev_b32", a)[0] == int(f"{a:032b}"[::-1], 2)
        a64 = a << 32
        assert run1("s_ff1_i32_b64", a64, wide_src=True)[0] == ref_ff1(a64)
        assert run1("s_bcnt1_i32_b64", a64 | 1, wide_src=True)[0] == (a64 | 1).bit_count()
        assert run1("s_flbit_i32_b64", a, wide_src=True)[0] == ref_flbit(a, 64)


def test_sext_abs_bitset():
    for a in VALUES:
        b8 = a & 0xFF
        assert run1("s_sext_i32_i8", a)[0] == (b8 - 256 if b8 & 0x80 else b8) & M32
        h = a & 0xFFFF
        assert run1("s_sext_i32_i16", a)[0] == (h - 65536 if h & 0x8000 else h) & M32
        sa = a - (1 << 32) if a >> 31 else a
        assert run1("s_abs_i32", a) == (abs(sa) & M32, int(abs(sa) & M32 != 0))
        assert run1("s_bitset1_b32", a, dst_init=0x10)[0] == 0x10 | (1 << (a & 31))
        assert run1("s_bitset0_b32", a, dst_init=M32)[0] == M32 & ~(1 << (a & 31))


def test_saveexec_family():
    rng = np.random.default_rng(3)
    refs = {"and": lambda s, e: s & e, "or": lambda s, e: s | e, "xor": lambda s, e: s ^ e,
            "andn2": lambda s, e: s & ~e, "orn2": lambda s, e: s | ~e, "nand": lambda s, e: ~(s & e),
            "nor": lambda s, e: ~(s | e), "xnor": lambda s, e: ~(s ^ e), "andn1": lambda s, e: ~s & e,
            "orn1": lambda s, e: ~s | e}
    cases = [(0, 0), (M64, M64), (0x0F0F, 0xFF00)] + \
        [tuple(int(x) for x in rng.integers(0, 1 << 63, 2)) for _ in range(10)]
    for name, f in refs.items():
        for s, e in cases:
            w = Wave(0)
            w.set_exec(e)
            w.sgpr[4], w.sgpr[5] = s & M32, s >> 32
            execute(w, f"s_{name}_saveexec_b64 s[0:1], s[4:5]")
            new = f(s, e) & M64
            assert w.exec == new
            assert int(w.sgpr[0]) | int(w.sgpr[1]) << 32 == e
            assert w.scc == int(new != 0)
            assert np.array_equal(w.exec_mask(), [(new >> i) & 1 == 1 for i in range(64)])
    w = Wave(0)
    w.set_exec(0xFF)
    w.sgpr[4] = 0x0F
    execute(w, "s_andn2_wrexec_b64 s[0:1], s[4:5]")   # EXEC = S0 & ~EXEC, D = new EXEC
    assert w.exec == 0 and int(w.sgpr[0]) == 0 and w.scc == 0


def test_mov_to_exec_and_vcc():
    w = Wave(0)
    w.sgpr[2], w.sgpr[3] = 0xF, 0x1
    execute(w, "s_mov_b64 exec, s[2:3]")
    assert w.exec == (1 << 32) | 0xF
    execute(w, "s_mov_b32 exec_hi, 0")
    assert w.exec == 0xF
    execute(w, "s_mov_b64 vcc, exec")
    assert w.vcc == 0xF
    execute(w, "s_mov_b32 m0, -1")
    assert w.m0 == M32


class _Prog:
    def __init__(self, offsets):
        self.offsets = offsets
        self.offset_to_pc = {o: i for i, o in enumerate(offsets)}
        self.code_base = 0x1000


class _M:
    arch = "gfx942"

    def __init__(self, offsets):
        self.program = _Prog(offsets)
        self.entries = offsets


def test_getpc_setpc_swappc_addresses():
    m = _M([0, 4, 12, 16, 24])          # mixed 4- and 8-byte encodings
    w = Wave(0)
    w.pc = 1
    execute(w, "s_getpc_b64 s[0:1]", m=m)
    assert int(w.sgpr[0]) | int(w.sgpr[1]) << 32 == 0x1000 + 12   # address of the next instruction
    w.sgpr[2], w.sgpr[3] = 0x1000 + 16, 0
    execute(w, "s_setpc_b64 s[2:3]", m=m)
    assert w.pc == 3
    w.pc = 0
    execute(w, "s_swappc_b64 s[4:5], s[2:3]", m=m)
    assert w.pc == 3 and int(w.sgpr[4]) == 0x1000 + 4
    w.sgpr[2] = 0x1000 + 8                 # inside an 8-byte instruction: no such pc
    try:
        execute(w, "s_setpc_b64 s[2:3]", m=m)
    except Exception as e:  # noqa: BLE001
        assert "starts no instruction" in str(e)
    else:
        raise AssertionError("s_setpc_b64 to a mid-instruction address must fail")


def test_getpc_setpc_on_the_machine():
    """Text programs have no encodings: addresses are code_base + 4 * pc (isa.emu.branch)."""
    from core_util import run
    m = run("""
        s_getpc_b64 s[0:1]
        s_add_u32 s0, s0, 12
        s_setpc_b64 s[0:1]
        s_mov_b32 s5, 1
        s_mov_b32 s6, 2
        s_endpgm
    """)
    w = m.waves[0]
    assert int(w.sgpr[5]) == 0 and int(w.sgpr[6]) == 2
