"""VALU decoding (VOP1, VOP2, VOPC, VOP3a/b, VOP3P, VOP3P-MAI, DPP, SDWA): operands and modifiers.

Field meanings: AMD CDNA3 ISA guide "Microcode formats" (VOP3A/VOP3B/VOP3P/VOP3P-MAI/DPP/SDWA);
LLVM's printer (AMDGPUInstPrinter.cpp) decides what is printed: clamp, omod as ``mul:2``/``mul:4``/
``div:2``, op_sel per source plus the destination bit for VOP3, op_sel_hi only when not the
op's default, DPP ``row_mask``/``bank_mask`` always, SDWA selects always. MFMA acc bits (acc_cd
for C/D, acc[0]/acc[1] for A/B) select AccVGPRs (gfx90a+ VOP3P-MAI encoding).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from . import decode_fields as F
from .decode_operands import reg, scalar, source
from .errors import DecodeError
from .operands import Imm, Operand

if TYPE_CHECKING:
    from .decode_ctx import Ctx

_SRCS = ("src0", "src1", "src2")
# Inline float codes as f16 bit patterns (0.5 -0.5 1.0 -1.0 2.0 -2.0 4.0 -4.0 1/(2*pi)).
_F16_BITS = {240: 0x3800, 241: 0xB800, 242: 0x3C00, 243: 0xBC00, 244: 0x4000, 245: 0xC000,
             246: 0x4400, 247: 0xC400, 248: 0x3118}
_OMOD = {1: ("mul", 2), 2: ("mul", 4), 3: ("div", 2)}
_SDWA_SEL = ("BYTE_0", "BYTE_1", "BYTE_2", "BYTE_3", "WORD_0", "WORD_1", "DWORD")
_SDWA_UNUSED = ("UNUSED_PAD", "UNUSED_SEXT", "UNUSED_PRESERVE")
# gfx950 v_mfma_*_f8f6f4: registers of A (by cbsz) and B (by blgp): fp8/bf8 8, fp6/bf6 6, fp4 4
# (cdna-facts section 2.1).
_F8F6F4_REGS = {0: 8, 1: 8, 2: 6, 3: 6, 4: 4}


def is_mai(name: str) -> bool:
    """MFMA/SMFMAC ops use the VOP3P-MAI layout; v_mfma_ld_scale_b32 (gfx950) is plain VOP3P."""
    return ("mfma" in name or "smfmac" in name) and not name.startswith("v_mfma_ld_scale")


def _bits(value: int, n: int) -> tuple[int, ...]:
    return tuple((value >> i) & 1 for i in range(n))


def vop_operand(ctx: Ctx, field: str, file: str, width: int) -> Operand:
    """The operand of template field ``field`` (printed as register file ``file``, ``width``)."""
    fmt, bits = ctx.fmt, ctx.bits
    mai = fmt == "VOP3P" and is_mai(ctx.name)
    if field == "vdst":
        code = F.get(fmt, bits, "vdst")
        if file == "s":
            return scalar(code, width)
        agpr = file == "a" or (mai and F.get(fmt, bits, "acc_cd"))
        return reg("a" if agpr else "v", code, width)
    if field == "sdst":
        return scalar(F.get("VOP3", bits, "sdst"), width)
    if field not in _SRCS:
        raise DecodeError(f"{ctx.name}: template field {field!r} is not a VALU field")
    if fmt in ("VOP2", "VOPC") and field == "src1":
        code = F.get(fmt, bits, "vsrc1")
        if ctx.ext == "sdwa" and F.get("SDWA", bits, "s1"):
            return scalar(code, width)
        return reg("a" if file == "a" else "v", code, width)
    if field == "src0" and not ctx.ext and fmt != "VOP3P":
        code = F.get(fmt, bits, "src0")
        if code in _F16_BITS and 0 in ctx.entry.get("f16const", ()):
            return Imm(_F16_BITS[code])
    if field == "src0" and ctx.ext:
        code = F.get(ctx.ext.upper(), bits, "src0")
        if ctx.ext == "sdwa" and F.get("SDWA", bits, "s0"):
            return scalar(code, width)
        return reg("a" if file == "a" else "v", code, width)
    code = F.get(fmt, bits, field)
    agpr = file == "a"
    if code in _F16_BITS and int(field[-1]) in ctx.entry.get("f16const", ()):
        # 16-bit integer operand: an inline float constant is its f16 bit pattern (LLVM prints
        # v_add_u16_e64 v1, 0x3c00, v2 for code 242).
        return Imm(_F16_BITS[code])
    if mai:
        acc = F.get(fmt, bits, "acc")
        # acc_cd moves C/D to AGPRs; an SMFMAC's src2 is its sparsity index VGPR, never an AGPR.
        cd = F.get(fmt, bits, "acc_cd") and not ctx.name.startswith("v_smfmac")
        agpr = agpr or {"src0": acc & 1, "src1": acc & 2, "src2": cd}[field]
        if "f8f6f4" in ctx.name and field in ("src0", "src1"):
            sel = F.get(fmt, bits, "cbsz" if field == "src0" else "blgp")
            if sel not in _F8F6F4_REGS:
                raise DecodeError(f"{ctx.name}: {'cbsz' if field == 'src0' else 'blgp'}={sel} "
                                  f"is not a format (0..4)")
            width = _F8F6F4_REGS[sel]
    return source(code, width, ctx.literal, bool(agpr))


def vop_encoding(ctx: Ctx) -> str:
    return ctx.ext or ctx.entry["suffix"]


def src_positions(entry: dict) -> tuple[int, ...]:
    """Operand indices of the sources src0, src1, src2 that an op's template prints."""
    pos = {slot[1]: i for i, slot in enumerate(entry["slots"])
           if slot[0] == "f" and slot[1] in _SRCS}
    return tuple(pos[k] for k in _SRCS if k in pos)


def _at(flags: tuple[int, ...] | int, srcpos: tuple[int, ...]) -> tuple[int, ...]:
    """Operand indices of the sources whose flag is set (flags: tuple or bit mask by source)."""
    if isinstance(flags, int):
        flags = _bits(flags, len(srcpos))
    return tuple(p for p, f in zip(srcpos, flags) if f)


def _src_mods(srcmods: dict, srcpos: tuple[int, ...], entry: dict, prefix: str = "") -> list:
    """Source modifiers as the project stores them (isa.asm_format): ``("neg", (2,))`` = operand
    2 is negated; order neg, abs, sext as LLVM nests them (``-|v2|``). Only sources that have
    the modifier in LLVM (table lists ``neg``/``abs``, ``dpp_neg``, ``sdwa_sext``, ... made by the
    generator's probes) get it: LLVM neither prints nor honours the bit on e.g. integer sources."""
    out = []
    for name in ("neg", "abs", "sext"):
        if name in srcmods:
            allowed = set(entry.get(prefix + name, ()))
            flags = srcmods[name]
            if isinstance(flags, int):
                flags = _bits(flags, len(srcpos))
            flags = tuple(f if i in allowed else 0 for i, f in enumerate(flags))
            at = _at(flags, srcpos)
            if at:
                out.append((name, at))
    return out


def vop_mods(ctx: Ctx, operands: list[Operand]) -> tuple[list[Operand], list]:
    """Operands (VOPC SDWA replaces ``vcc`` by its sdst) and modifiers of a VALU instruction."""
    slots = ctx.entry["slots"]
    srcpos = src_positions(ctx.entry)
    nsrc = len(srcpos)
    fmt, bits = ctx.fmt, ctx.bits
    if fmt == "VOP3":
        return operands, _vop3_mods(ctx, srcpos, any(s[0] == "f" and s[1] == "sdst" for s in slots))
    if fmt == "VOP3P":
        return operands, _vop3p_mods(ctx, srcpos)
    if ctx.ext == "dpp":
        return operands, _dpp_mods(ctx, srcpos)
    if ctx.ext == "sdwa":
        srcmods = {"sext": (F.get("SDWA", bits, "sext0"), F.get("SDWA", bits, "sext1")),
                   "neg": (F.get("SDWA", bits, "neg0"), F.get("SDWA", bits, "neg1")),
                   "abs": (F.get("SDWA", bits, "abs0"), F.get("SDWA", bits, "abs1"))}
        mods: list = _src_mods(srcmods, srcpos, ctx.entry, "sdwa_")
        if fmt == "VOPC":
            if F.get("SDWA", bits, "sd"):
                operands = [scalar(F.get("SDWA", bits, "sdst"), 2)] + operands[1:]
        else:
            if F.get("SDWA", bits, "clamp"):
                mods.append(("clamp", True))
            omod = F.get("SDWA", bits, "omod")
            if omod:
                mods.append(_OMOD[omod])
            mods.append(("dst_sel", _sel(F.get("SDWA", bits, "dst_sel"))))
            unused = F.get("SDWA", bits, "dst_unused")
            if unused >= len(_SDWA_UNUSED):
                raise DecodeError(f"SDWA dst_unused {unused} is reserved")
            mods.append(("dst_unused", _SDWA_UNUSED[unused]))
        mods.append(("src0_sel", _sel(F.get("SDWA", bits, "src0_sel"))))
        if nsrc >= 2:
            mods.append(("src1_sel", _sel(F.get("SDWA", bits, "src1_sel"))))
        return operands, mods
    return operands, []


def _sel(value: int) -> str:
    if value >= len(_SDWA_SEL):
        raise DecodeError(f"SDWA select {value} is reserved (0..6)")
    return _SDWA_SEL[value]


def _vop3_mods(ctx: Ctx, srcpos: tuple[int, ...], vop3b: bool) -> list:
    bits, mods, nsrc = ctx.bits, [], len(srcpos)
    if ctx.name.startswith(("v_permlane16_swap", "v_permlane32_swap")):
        # gfx950: op_sel[0] (bit 11) is fi, op_sel[1] (bit 12) bound_ctrl (llvm-mc -show-encoding)
        op_sel = F.get("VOP3", bits, "op_sel")
        return [(name, 1) for name, bit in (("bound_ctrl", 2), ("fi", 1)) if op_sel & bit]
    if ctx.name.startswith("v_bitop3_"):
        # gfx950 bitop3:N is spread over neg (bits 2:0), abs (bits 5:3), omod (bits 7:6)
        value = (F.get("VOP3", bits, "neg") | F.get("VOP3", bits, "abs") << 3
                 | F.get("VOP3", bits, "omod") << 6)
        op_sel = F.get("VOP3", bits, "op_sel")
        if value:
            mods.append(("bitop3", value))
        if op_sel:
            mods.append(("op_sel", _bits(op_sel, nsrc) + ((op_sel >> 3) & 1,)))
        return mods
    srcmods = {"neg": F.get("VOP3", bits, "neg")}
    if not vop3b:
        srcmods["abs"] = F.get("VOP3", bits, "abs")
    mods += _src_mods(srcmods, srcpos, ctx.entry)
    if not vop3b:
        op_sel = F.get("VOP3", bits, "op_sel")
        if op_sel:
            mods.append(("op_sel", _bits(op_sel, nsrc) + ((op_sel >> 3) & 1,)))
    if F.get("VOP3", bits, "clamp"):
        mods.append(("clamp", True))
    omod = F.get("VOP3", bits, "omod")
    if omod:
        mods.append(_OMOD[omod])
    return mods


def _vop3p_mods(ctx: Ctx, srcpos: tuple[int, ...]) -> list:
    bits, mods, nsrc = ctx.bits, [], len(srcpos)
    if is_mai(ctx.name):
        f64 = ctx.name.endswith("_f64")
        for name in ("cbsz", "abid") if f64 else ("cbsz", "abid", "blgp"):
            val = F.get("VOP3P", bits, name)
            if val:
                mods.append((name, val))
        if f64 and F.get("VOP3P", bits, "blgp"):
            # f64 MFMAs: the blgp field negates A, B, C (LLVM prints neg:[a,b,c]); stored as the
            # source modifier ("neg", operand indices) like VOP3.
            mods.append(("neg", _at(F.get("VOP3P", bits, "blgp"), srcpos)))
        return mods
    if ctx.name.startswith("v_accvgpr_"):
        return mods
    op_sel = _bits(F.get("VOP3P", bits, "op_sel"), nsrc)
    hi_bits = F.get("VOP3P", bits, "op_sel_hi") | F.get("VOP3P", bits, "op_sel_hi2") << 2
    op_sel_hi = _bits(hi_bits, nsrc)
    # What LLVM leaves unprinted (found by the generator from its samples, see gen_opcodes).
    hi_default = ctx.entry.get("hi_default", "ones")
    default = (1,) * nsrc if hi_default == "ones" else (0,) * nsrc
    if any(op_sel):
        mods.append(("op_sel", op_sel))
    if hi_default != "never" and op_sel_hi != default:
        mods.append(("op_sel_hi", op_sel_hi))
    neg_lo = _bits(F.get("VOP3P", bits, "neg_lo"), nsrc)
    neg_hi = _bits(F.get("VOP3P", bits, "neg_hi"), nsrc)
    if ctx.entry.get("mix"):
        # v_fma_mix*/v_mad_mix*: neg_lo is the sources' neg and neg_hi their abs (LLVM prints
        # -|v1|); stored like VOP3 source modifiers.
        for name, flags in (("neg", neg_lo), ("abs", neg_hi)):
            if any(flags):
                mods.append((name, _at(flags, srcpos)))
        neg_lo = neg_hi = (0,) * nsrc
    if any(neg_lo):
        mods.append(("neg_lo", neg_lo))
    if any(neg_hi):
        mods.append(("neg_hi", neg_hi))
    if F.get("VOP3P", bits, "clamp"):
        mods.append(("clamp", True))
    return mods


def _dpp_mods(ctx: Ctx, srcpos: tuple[int, ...]) -> list:
    bits = ctx.bits
    ctrl = F.get("DPP", bits, "dpp_ctrl")
    mods: list = _src_mods({"neg": (F.get("DPP", bits, "neg0"), F.get("DPP", bits, "neg1")),
                            "abs": (F.get("DPP", bits, "abs0"), F.get("DPP", bits, "abs1"))},
                           srcpos, ctx.entry, "dpp_")
    mods.append(_dpp_ctrl(ctrl))
    mods.append(("row_mask", F.get("DPP", bits, "row_mask")))
    mods.append(("bank_mask", F.get("DPP", bits, "bank_mask")))
    if F.get("DPP", bits, "bound_ctrl"):
        mods.append(("bound_ctrl", 1))
    return mods


def _dpp_ctrl(ctrl: int) -> tuple:
    """DPP_CTRL values (CDNA3 ISA guide, DPP; LLVM SIDefines.h DppCtrl)."""
    if ctrl <= 0xFF:
        return ("quad_perm", tuple((ctrl >> (2 * i)) & 3 for i in range(4)))
    for base, name in ((0x100, "row_shl"), (0x110, "row_shr"), (0x120, "row_ror")):
        if base + 1 <= ctrl <= base + 0xF:
            return (name, ctrl - base)
    fixed = {0x130: ("wave_shl", 1), 0x134: ("wave_rol", 1), 0x138: ("wave_shr", 1),
             0x13C: ("wave_ror", 1), 0x140: ("row_mirror", True), 0x141: ("row_half_mirror", True),
             0x142: ("row_bcast", 15), 0x143: ("row_bcast", 31)}
    if ctrl in fixed:
        return fixed[ctrl]
    if 0x150 <= ctrl <= 0x15F:
        return ("row_newbcast", ctrl - 0x150)
    raise DecodeError(f"DPP control 0x{ctrl:x} is reserved")
