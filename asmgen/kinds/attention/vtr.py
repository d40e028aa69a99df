"""V by LDS-DMA and ``ds_read_b64_tr_b16`` (gfx950): the V^T MFMA operands without a transpose
in VGPRs (the ping-pong loop, ``kinds.attention.pingpong``, with ``v_dma``).

V blocks go to LDS exactly as K blocks do (``kinds.attention.ktile``: row-major rows of 2 D
bytes, 16-byte units XOR-swizzled by ``row & 7``, ``buffer_load_dwordx4 ... lds``, the same
per-lane DMA offsets), so no V VGPR staging, no ``v_perm`` and no ``ds_write`` remain.
``ds_read_b64_tr_b16`` (cdna-facts section 6, ``isa.emu.mem_lds_tr``) works in groups of 16
lanes: lane j of a group receives element r = 0..3 from element j % 4 of the 8-byte chunk
lane j // 4 + 4 r addressed. If lane c of the group addresses the 4 dims d0 + 4 (c % 4) .. + 3
of key k0 + c // 4, lane j receives keys k0 .. k0 + 3 of dim d0 + j: one x8 k-step's A operand
of O^T = V^T P^T (four keys of the lane's dim), or half of one x16 k-step.

Lane l: group g = l / 16, h = l / 32 (the MFMA's lane half: keys 4 h + ..), dh = g % 2 (dims
16 dh .. of each 32-dim block db), c = l % 16. Operand (k-step s, db) of the x16 MFMA takes keys
16 s + 4 h + {0..3, 8..11} (the P^T order, ``attention_softmax``): two reads, k0 = 16 s + 4 h
(+ 8). Row k0 + c / 4 has swizzle x = (4 h + c / 4) & 7 = 4 h + c / 4 (16 s, 8 only move bits
>= 3); the chunk's unit is u = 4 db + 2 dh + (c % 4) / 2, at byte 8 (c % 2), so the address is
  (4 h + c / 4) 2 D + 16 ((2 dh + (c % 4) / 2) ^ (c / 4)) + 64 (db ^ h) + 8 (c % 2)
  + (16 s + 8 t) 2 D
where 64 (db ^ h) = 64 h ^ 64 db touches bits 6-7 only: lane constants L (db even) and L ^ 64
(db odd), with 128 (db / 2) and the key offset in the instruction offset. Only for the unpaired layout (the
16-bit x16 MFMA, ``ktile.paired`` false) at head_dim 128, on an arch that has the instruction.
"""
from __future__ import annotations

from dataclasses import dataclass

from isa.instr import Instr
from isa.operands import Imm

from ...ir import VReg
from . import ktile

OP = "ds_read_b64_tr_b16"


def available(cfg) -> bool:
    """Whether the ping-pong loop takes V by DMA (module docstring's limits)."""
    return (cfg.target.has(OP) and not ktile.paired(cfg) and cfg.in_type.bits == 16
            and cfg.head_dim == 128)


@dataclass
class VTr:
    lanes: tuple[VReg, VReg]     # the lane constants L (db even), L ^ 64 (db odd)


def setup(ab, lane: VReg, half: VReg) -> VTr:
    """The lane constants (prologue; module docstring), relative to the V region's base."""
    p, tags = ab.k.prologue, ("addr",)
    row_b = ab.cfg.in_type.nbytes(ab.cfg.head_dim)
    c, c4, cq, dh, u, x, ux, t0, t1, t2, L, L1 = (ab.vreg(name=f"vtr_{n}") for n in (
        "c", "c4", "cq", "dh", "u", "x", "ux", "t0", "t1", "t2", "L", "L1"))
    p.add(Instr("v_and_b32", (c, Imm(15), lane)), tags)
    p.add(Instr("v_and_b32", (c4, Imm(3), c)), tags)                  # c % 4
    p.add(Instr("v_lshrrev_b32", (cq, Imm(2), c)), tags)              # c / 4
    p.add(Instr("v_bfe_u32", (dh, lane, Imm(4), Imm(1))), tags)       # (l / 16) % 2
    p.add(Instr("v_lshrrev_b32", (u, Imm(1), c4)), tags)              # (c % 4) / 2
    p.add(Instr("v_lshl_add_u32", (u, dh, Imm(1), u)), tags)          # 2 dh + (c % 4) / 2
    p.add(Instr("v_xor_b32", (ux, u, cq)), tags)                      # low unit bits ^ x
    p.add(Instr("v_lshl_add_u32", (x, half, Imm(2), cq)), tags)       # row in the group: 4 h + c / 4
    p.add(Instr("v_mul_u32_u24", (t0, x, ab.const(row_b))), tags)
    p.add(Instr("v_lshl_add_u32", (t1, ux, Imm(4), t0)), tags)
    p.add(Instr("v_lshl_add_u32", (t2, half, Imm(6), t1)), tags)      # unit bit 2: db ^ h
    p.add(Instr("v_and_b32", (c4, Imm(1), c)), tags)
    p.add(Instr("v_lshl_add_u32", (L, c4, Imm(3), t2)), tags)         # + 8 (c % 2)
    p.add(Instr("v_xor_b32", (L1, Imm(64), L)), tags)
    return VTr((L, L1))


def read_regs(ab) -> list[VReg]:
    """One 4-register tuple per (k-step, db) of the x16 MFMA, k-step major (``split``)."""
    n = (32 // ab.cfg.mfma_k) * (ab.cfg.head_dim // 32)
    return [ab.k.vreg("v", 4, align=4, name=f"vTr{i}") for i in range(n)]


def split(ab, regs: list[VReg]) -> dict[tuple[int, int], VReg]:
    """(k-step, db) -> operand tuple, in ``read_regs``' order."""
    nd = ab.cfg.head_dim // 32
    return {(i // nd, i % nd): r for i, r in enumerate(regs)}


def read_operands(ab, body, vt: VTr, base: VReg, dst: list[VReg], region: str = "V_r") -> None:
    """Every V^T operand of one block from the V region at ``base`` (SGPR) into ``dst``."""
    cfg = ab.cfg
    row_b = cfg.in_type.nbytes(cfg.head_dim)
    addr = []
    for i, lc in enumerate(vt.lanes):
        a = ab.vreg(name=f"vtr_a{i}")
        body.add(Instr("v_add_u32", (a, base, lc)), ("addr", "lr_v_addr"))
        addr.append(a)
    nd = cfg.head_dim // 32
    for i, r in enumerate(dst):
        s, db = i // nd, i % nd
        for t in range(2):
            off = 128 * (db // 2) + (16 * s + 8 * t) * row_b
            body.add(Instr(OP, (r.sub(2 * t, 2), addr[db % 2]), (("offset", off),) if off else ()),
                     ("lr_v",), lds_read=region)
