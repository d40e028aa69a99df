"""The kernel arguments and buffer-resource base move of the decode templates: the kernarg loads
of a serving contract (``load_kernargs``: decode and extend) and a resource's 64-bit base advanced
by a row offset (``srd_base``), shared by the K/V loads, the per-token scales and the combine."""
from __future__ import annotations

from isa.instr import Instr
from isa.operands import Imm

from ... import kernarg
from ...ir import VReg
from ..common.buffers import SRD_DWORD3

TAGS = ("addr",)
KARG = ("addr", "karg")


def tensor_scales(ab, offs: dict) -> dict:
    """An fp8 cache's per-tensor ``k_scale`` / ``v_scale`` SGPRs, loaded from the kernargs at
    ``offs`` (none for a 16-bit cache or per-token scales, which ``kvscale`` loads per block)."""
    cfg, p = ab.cfg, ab.k.prologue
    out = {}
    if cfg.kv_fp8 and not cfg.token_scales:
        for n in ("k_scale", "v_scale"):
            out[n] = ab.sreg(name=n)
            p.add(Instr("s_load_dword", (out[n], ab.kernarg, Imm(offs[n]))), KARG)
    return out


def load_kernargs(ab, args, scalars: tuple = ()) -> tuple[dict, dict, dict]:
    """(kernarg offsets, buffer resources, scalar SGPRs) of contract ``args``: every buffer's
    64-bit address into words 0, 1 of its resource, then the scalars ``scalars``, ``scale``,
    paged ``num_blocks`` and an fp8 cache's per-tensor ``k_scale`` / ``v_scale``
    (``tensor_scales``), each by one s_load."""
    cfg, k, p = ab.cfg, ab.k, ab.k.prologue
    offs = kernarg.offsets(args)
    bufs = [a.name for a in args if a.kind == "buffer"]
    srd = {n: k.vreg("s", 4, name=f"srd_{n}") for n in bufs}
    for n in bufs:
        p.add(Instr("s_load_dwordx2", (srd[n].sub(0, 2), ab.kernarg, Imm(offs[n]))), KARG)
    names = (*scalars, "scale") + (("num_blocks",) if cfg.paged else ())
    sc = {}
    for n in names:
        sc[n] = ab.sreg(name=n)
        p.add(Instr("s_load_dword", (sc[n], ab.kernarg, Imm(offs[n]))), KARG)
    return offs, srd, sc | tensor_scales(ab, offs)


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
