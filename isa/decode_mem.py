"""Memory-format decoding (SMEM, DS, MUBUF, FLAT/GLOBAL/SCRATCH): operands and modifiers.

Field meanings: AMD CDNA3 ISA guide "Microcode formats" (SMEM, DS, MUBUF, FLAT); gfx940 cache
policy bits sc0/sc1/nt (LLVM SIDefines.h CPol, printed in the order sc0 nt sc1 by
AMDGPUInstPrinter::printCPol); the acc bit moves the data/destination VGPRs to AccVGPRs (gfx90a+).
Offsets: DS 16-bit unsigned (or offset0/offset1 bytes for *2* ops), MUBUF 12-bit unsigned,
FLAT 12-bit unsigned, GLOBAL/SCRATCH 13-bit signed, SMEM 21-bit signed.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from . import decode_fields as F
from .decode_operands import reg, scalar
from .errors import DecodeError
from .operands import Imm, Operand

if TYPE_CHECKING:
    from .decode_ctx import Ctx

_DATA_FIELDS = frozenset({"vdst", "data0", "data1", "vdata", "data"})


def _sext(value: int, bits: int) -> int:
    return value - (1 << bits) if value >> (bits - 1) else value


def mem_operand(ctx: Ctx, field: str, file: str, width: int) -> Operand:
    """The operand of template field ``field`` of a DS/MUBUF/FLAT instruction."""
    fmt, bits = ctx.fmt, ctx.bits
    value = F.get(fmt, bits, field)
    if field == "srsrc":
        return reg("s", 4 * value, width)
    if field in ("soffset", "saddr"):
        return scalar(value, width)
    if field in _DATA_FIELDS:
        agpr = file == "a" or F.get(fmt, bits, "acc")
        return reg("a" if agpr else "v", value, width)
    if field in ("addr", "vaddr"):
        return reg("v", value, width)
    raise DecodeError(f"{ctx.name}: template field {field!r} is not a {fmt} field")


def smem_offset_operand(ctx: Ctx) -> Operand:
    """SMEM offset operand: IMM=1 -> 21-bit signed immediate (SOE=1: the SGPR soffset, with the
    immediate as an ``offset:`` modifier); IMM=0 -> SGPR in offset[7:0] (SOE=0) or soffset."""
    bits = ctx.bits
    imm, soe = F.get("SMEM", bits, "imm"), F.get("SMEM", bits, "soe")
    if soe:
        return scalar(F.get("SMEM", bits, "soffset"))
    offset = F.get("SMEM", bits, "offset")
    if imm:
        return Imm(_sext(offset, 21))
    return scalar(offset & 0xFF)


def mem_mods(ctx: Ctx) -> list:
    fmt, bits, mods = ctx.fmt, ctx.bits, []
    if fmt == "SMEM":
        if F.get(fmt, bits, "soe") and F.get(fmt, bits, "imm"):
            mods.append(("offset", _sext(F.get(fmt, bits, "offset"), 21)))
        if F.get(fmt, bits, "glc"):
            mods.append(("glc", True))
        if F.get(fmt, bits, "nv"):
            raise DecodeError(f"{ctx.name}: SMEM nv bit is not supported")
        return mods
    if fmt == "DS":
        style = " ".join(ctx.entry["defmods"])
        off0, off1 = F.get(fmt, bits, "offset0"), F.get(fmt, bits, "offset1")
        if "offset0:" in style:
            if off0:
                mods.append(("offset0", off0))
            if off1:
                mods.append(("offset1", off1))
        elif "offset:" in style and (off0 | off1 << 8):
            mods.append(("offset", off0 | off1 << 8))
        if F.get(fmt, bits, "gds"):
            mods.append(("gds", True))
        return mods
    if fmt == "MUBUF":
        for name in ("idxen", "offen"):
            if F.get(fmt, bits, name):
                mods.append((name, True))
        if F.get(fmt, bits, "offset"):
            mods.append(("offset", F.get(fmt, bits, "offset")))
    else:  # FLAT / GLOBAL / SCRATCH
        raw = F.get(fmt, bits, "offset")
        offset = raw & 0xFFF if F.get(fmt, bits, "seg") == 0 else _sext(raw, 13)
        if offset:
            mods.append(("offset", offset))
    if not ctx.entry["slots"]:  # buffer_wbl2 / buffer_inv: only the scope bits mean something
        mods = []
    for name in ("sc0", "nt", "sc1") if ctx.entry["slots"] else ("sc0", "sc1"):
        if F.get(fmt, bits, name):
            mods.append((name, True))
    if fmt == "MUBUF" and F.get(fmt, bits, "lds"):
        mods.append(("lds", True))
    return mods
