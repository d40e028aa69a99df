"""The buffer-resource base move of the decode templates: a resource's 64-bit base advanced by a
row offset (``srd_base``), shared by the K/V loads, the per-token scales and the combine."""
from __future__ import annotations

from isa.instr import Instr
from isa.operands import Imm

from ..common.buffers import SRD_DWORD3

TAGS = ("addr",)


def srd_base(ab, block, srd: VReg, row: VReg, row_bytes: int, extra: VReg | None = None) -> None:
    """srd base += row x row_bytes (+ extra bytes), 64-bit; word 1 keeps the 16 address bits."""
    lo, hi = ab.sreg(name="b_lo"), ab.sreg(name="b_hi")
    block.add(Instr("s_mul_i32", (lo, row, Imm(row_bytes))), TAGS)
    block.add(Instr("s_mul_hi_u32", (hi, row, Imm(row_bytes))), TAGS)
    block.add(Instr("s_add_u32", (srd.sub(0), srd.sub(0), lo)), TAGS)
    block.add(Instr("s_addc_u32", (srd.sub(1), srd.sub(1), hi)), TAGS)
    if extra is not None:
        block.add(Instr("s_add_u32", (srd.sub(0), srd.sub(0), extra)), TAGS)
        block.add(Instr("s_addc_u32", (srd.sub(1), srd.sub(1), Imm(0))), TAGS)
    block.add(Instr("s_and_b32", (srd.sub(1), srd.sub(1), Imm(0xFFFF))), TAGS)
    block.add(Instr("s_mov_b32", (srd.sub(3), Imm(SRD_DWORD3))), TAGS)
