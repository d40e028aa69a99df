"""Division by a build-time constant, scalar and per lane, for the decode templates: a shift for
a power of two, else the high word of a multiply by M = ceil(2^32 / d), exact while n d < 2^32
(n M / 2^32 = n / d + n (M - 2^32 / d) / 2^32, the excess below 1 / d, the distance from a
fraction n / d to the next integer; callers keep n < 2^16 and d < 2^16)."""
from __future__ import annotations

from isa.instr import Instr
from isa.operands import Imm

from ..common.buffers import log2

TAGS = ("addr",)


def magic(d: int) -> int:
    return -(-(1 << 32) // d)


def sdiv(ab, block, n, d: int, name: str = "q"):
    """An SGPR holding n // d (n an SGPR, 0 <= n < 2^16)."""
    if d == 1:
        return n
    q = ab.sreg(name=name)
    if d & (d - 1) == 0:
        block.add(Instr("s_lshr_b32", (q, n, Imm(log2(d)))), TAGS)
    else:
        block.add(Instr("s_mul_hi_u32", (q, n, Imm(magic(d)))), TAGS)
    return q


def vdiv(ab, block, n, d: int, name: str = "vq"):
    """A VGPR holding n // d per lane (n a VGPR, 0 <= n < 2^10)."""
    if d == 1:
        return n
    q = ab.vreg(name=name)
    if d & (d - 1) == 0:
        block.add(Instr("v_lshrrev_b32", (q, Imm(log2(d)), n)), TAGS)
    else:       # VOP3: no literal on gfx9, the multiplier goes through an SGPR
        block.add(Instr("v_mul_hi_u32", (q, n, ab.const(magic(d)))), TAGS)
    return q


def imm_or_const(ab, value: int):
    """An inline constant (0..64) or an SGPR holding ``value`` (VOP3 has no literal on gfx9)."""
    return Imm(value) if 0 <= value <= 64 else ab.const(value)
