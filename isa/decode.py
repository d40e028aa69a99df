"""Binary decoder: gfx942/gfx950 machine code bytes -> list of DecodedInstr (isa.instr.Instr each).

The emulator decodes a code object's .text once with :func:`decode` and binds handlers to the
result; no text is parsed per step and llvm-objdump is not needed at run time.

How it works: :mod:`isa.decode_fields` finds the format of each word and its bit fields; the
per-arch table ``isa/data/opcodes_<arch>.json`` (made by ``isa/tools/gen_opcodes.py`` from LLVM's
own disassembler) maps ``(format, opcode, variant)`` to the mnemonic and an operand template: the
printed operands in LLVM order, each the field it comes from with its register file and width
(so ``v_add_f64`` prints ``v[2:3]``), a fixed token (``vcc``, ``off``), an immediate, or the
mandatory literal of ``v_fmaak_f32``. Modifiers are computed from the bits by the format modules
(:mod:`isa.decode_vector`, :mod:`isa.decode_mem`).

Representation choices (where LLVM's text has no Instr equivalent):
- VOP3/DPP/SDWA source modifiers follow isa.asm_format: ``("neg", (1,))``, ``("abs", (1, 2))``,
  ``("sext", (1,))`` hold the operand indices they apply to (LLVM prints ``-|v1|``, ``sext(v1)``).
  VOP3P op_sel/op_sel_hi/neg_lo/neg_hi and VOP3 op_sel are per-source flag tuples as printed.
- ``s_waitcnt``, ``s_sendmsg``, ``s_getreg``/``s_setreg`` (hwreg) and ``ds_swizzle`` offsets are the
  raw 16-bit immediates (LLVM prints ``vmcnt(0)``, ``sendmsg(..)``, ``hwreg(..)``, ``swizzle(..)``;
  the assembler accepts the raw numbers too). :func:`waitcnt_fields` splits a waitcnt value.
- Branch targets are ``Label("L_0x<byte offset>")``; :func:`label_index` maps them to indices.
- A literal that could have been an inline constant (LLVM prints ``lit(0x0)``) is ``Imm(0)`` plus
  the modifier ``("lit", (i,))`` (operand index), as isa.asm_format prints it.
- ``Instr.encoding`` is the suffix LLVM prints (``e32``/``e64``/``dpp``/``sdwa`` or ``""`` for
  VOP3-only ops such as ``v_fma_f32``); ``DecodedInstr.fmt`` is the true format.
- 16-bit operands (table flags ``lit16``/``f16const`` from the generator's probes): a literal is
  its low half (``Imm(0x5678)``) and an inline float on a 16-bit integer operand is its f16 bit
  pattern (``Imm(0x3c00)`` for 1.0), as LLVM prints them; elsewhere inline floats are
  ``Imm(float)``.
- abs/neg/sext bits are kept only on sources that have them in LLVM (table lists ``abs``, ``neg``,
  ``dpp_neg``, ``sdwa_sext``, ...); LLVM neither prints nor honours them on e.g. integer sources.
  v_fma_mix*/v_mad_mix* neg_lo/neg_hi are stored as neg/abs; f64 MFMA blgp is neg on A, B, C.
- gfx950 ``v_mfma_ld_scale_b32`` followed by an f8f6f4 MFMA with abid=1 is one 16-byte
  ``v_mfma_scale_f32_*_f8f6f4`` (operands: the MFMA's, then the two scale sources).
"""
from __future__ import annotations

import json
import struct
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from . import decode_fields as F
from .decode_ctx import Ctx
from .decode_mem import mem_mods, mem_operand
from .decode_operands import NeedsLiteral, is_literal, reg, scalar
from .decode_vector import src_positions, vop_encoding, vop_mods, vop_operand
from .errors import DecodeError, UnknownInstruction
from .instr import Instr
from .operands import Imm, Label, Operand, Special
from .spec import ARCHES

DATA_DIR = Path(__file__).resolve().parent / "data"
SOP = frozenset({"SOP1", "SOP2", "SOPC", "SOPK", "SOPP"})
VOP = frozenset({"VOP1", "VOP2", "VOPC", "VOP3", "VOP3P"})
BRANCH_PREFIXES = ("s_branch", "s_cbranch_", "s_call_")


@dataclass(frozen=True, slots=True)
class DecodedInstr:
    """One decoded instruction: byte offset and size (4, 8, or +4 with a literal), the Instr,
    its format (``VOP3``, ``MUBUF``, ...), opcode within the format and the raw dwords."""

    offset: int
    size: int
    instr: Instr
    fmt: str
    opcode: int
    words: tuple[int, ...]
    srcs: tuple[int, ...] = ()  # operand indices of src0, src1, src2 (op_sel/neg_lo order)


@cache
def opcode_table(arch: str) -> dict[tuple[str, int, str], dict]:
    """The (format, opcode, variant) -> entry table of ``arch`` (see module docstring)."""
    if arch not in ARCHES:
        raise UnknownInstruction(f"arch {arch!r} is not one of {', '.join(ARCHES)}")
    path = DATA_DIR / f"opcodes_{arch}.json"
    if not path.exists():
        raise DecodeError(f"opcode table {path} is missing; run python -m isa.tools.gen_opcodes")
    ops = json.loads(path.read_text())["ops"]
    table = {}
    for key, entry in ops.items():
        fmt, op, variant = key.split(":")
        table[(fmt, int(op), variant)] = entry
    return table


@cache
def mnemonics(arch: str) -> frozenset[str]:
    """Every mnemonic the decoder knows for ``arch`` (without _e32/_e64/_dpp/_sdwa), the fused
    ``v_mfma_scale_f32_*_f8f6f4`` (``v_mfma_ld_scale_b32`` + an f8f6f4 MFMA, see ``_fuse_scale``)
    included."""
    names = frozenset(e["name"] for e in opcode_table(arch).values())
    if "v_mfma_ld_scale_b32" in names:
        names |= {n.replace("v_mfma_", "v_mfma_scale_", 1) for n in names if n.endswith("_f8f6f4")
                  and n.startswith("v_mfma_f32")}
    return names


# arch -> an instruction's own bytes (4, 8 or 12) -> it. Exact: how many words the decoder reads
# follows from the words read before (the format from the first, DPP/SDWA from its src0, a second
# word for the 64-bit formats, a literal from the fields of those), so an instruction whose first
# 4 (or 8) bytes were once a whole instruction is that same instruction wherever they occur.
_MEMO: dict[str, dict[bytes, DecodedInstr]] = {}


def decode(code: bytes, arch: str) -> list[DecodedInstr]:
    """Decode machine code (e.g. a kernel's .text) into instructions; offsets are from ``code[0]``.

    Raises DecodeError naming the byte offset and the word for anything it cannot decode.
    """
    table = opcode_table(arch)
    out: list[DecodedInstr] = []
    # unrolled kernels and the fuzzer's schedules repeat words: decode each shape once per arch
    memo = _MEMO.setdefault(arch, {})
    if len(memo) > 200_000:
        memo.clear()
    pos, n = 0, len(code)
    while pos < n:
        if n - pos < 4:
            raise DecodeError(f"{n - pos} trailing byte(s) at byte offset 0x{pos:x}")
        w0 = struct.unpack_from("<I", code, pos)[0]
        seen = memo.get(code[pos:pos + 4])
        if seen is None:
            seen = memo.get(code[pos:pos + 8])
            if seen is None:
                seen = memo.get(code[pos:pos + 12])
        try:
            if seen is not None:
                out.append(DecodedInstr(pos, seen.size, seen.instr, seen.fmt, seen.opcode,
                                        seen.words, seen.srcs))
            else:
                out.append(_decode_one(code, pos, w0, arch, table))
                if not any(isinstance(o, Label) for o in out[-1].instr.operands):
                    # branch labels depend on the offset: not memoised
                    memo[code[pos:pos + out[-1].size]] = out[-1]
        except DecodeError as exc:
            msg = str(exc)
            if "byte offset" not in msg:
                msg = f"cannot decode word 0x{w0:08x} at byte offset 0x{pos:x} ({arch}): {msg}"
            raise DecodeError(msg) from None
        pos += out[-1].size
        if len(out) >= 2 and out[-2].instr.op == "v_mfma_ld_scale_b32":
            fused = _fuse_scale(out[-2], out[-1])
            if fused is not None:
                out[-2:] = [fused]
    return out


def _fuse_scale(ld: DecodedInstr, mfma: DecodedInstr) -> DecodedInstr | None:
    """gfx950 ``v_mfma_scale_f32_*_f8f6f4``: a ``v_mfma_ld_scale_b32`` (the two scale sources and
    their op_sel/op_sel_hi) followed by an f8f6f4 MFMA whose abid field is 1 is one 16-byte
    instruction for LLVM (llvm-mc -show-encoding of v_mfma_scale_*); with abid 0 they stay two."""
    ins = mfma.instr
    if "f8f6f4" not in ins.op or F.get("VOP3P", mfma.words[0], "abid") != 1:
        return None
    bits = ld.words[0] | ld.words[1] << 32
    op_sel = F.get("VOP3P", bits, "op_sel")
    hi = F.get("VOP3P", bits, "op_sel_hi") | F.get("VOP3P", bits, "op_sel_hi2") << 2
    mods = tuple(m for m in ins.mods if m[0] != "abid")
    extra = ((("op_sel", tuple((op_sel >> i) & 1 for i in range(3))),) if op_sel else ())
    extra += (("op_sel_hi", tuple((hi >> i) & 1 for i in range(3))),)
    fused = Instr(ins.op.replace("v_mfma_", "v_mfma_scale_", 1), ins.operands + ld.instr.operands,
                  extra + mods, ins.encoding)
    return DecodedInstr(ld.offset, ld.size + mfma.size, fused, "VOP3P", mfma.opcode,
                        ld.words + mfma.words, mfma.srcs)


def _word(code: bytes, at: int) -> int:
    if at + 4 > len(code):
        raise DecodeError(f"instruction runs past the end of the code (needs a dword at 0x{at:x})")
    return struct.unpack_from("<I", code, at)[0]


def _decode_one(code: bytes, pos: int, w0: int, arch: str, table) -> DecodedInstr:
    fmt = F.fmt_of(w0)
    if fmt is None:
        raise DecodeError("not an encoding this decoder knows (MIMG, EXP, VINTRP, MTBUF, ...)")
    words = [w0]
    ext = ""
    if fmt in F.WIDE:
        words.append(_word(code, pos + 4))
    elif fmt in ("VOP1", "VOP2", "VOPC"):
        src0 = F.get(fmt, w0, "src0")
        if src0 in (F.SRC_DPP, F.SRC_SDWA):
            ext = "dpp" if src0 == F.SRC_DPP else "sdwa"
            words.append(_word(code, pos + 4))
    bits = words[0] | (words[1] << 32 if len(words) > 1 else 0)
    op = F.get(fmt, bits, "op")
    variant = F.variant_of(fmt, bits)
    entry = table.get((fmt, op, variant))
    if entry is None:
        what = f"variant {variant} of " if variant else ""
        raise DecodeError(f"{what}{fmt} opcode {op} is not an instruction of {arch}")
    ctx = Ctx(fmt, bits, entry, pos, ext=ext, name=entry["name"])
    if _needs_literal(ctx):
        ctx.literal = _word(code, pos + 4 * len(words))
        words.append(ctx.literal)
    try:
        instr = _render(ctx)
    except NeedsLiteral:
        raise DecodeError(f"{entry['name']} ({fmt}) cannot take a literal constant (code 255)") from None
    srcs = src_positions(entry) if fmt in VOP else ()
    return DecodedInstr(pos, 4 * len(words), instr, fmt, op, tuple(words), srcs)


def _needs_literal(ctx: Ctx) -> bool:
    slots = ctx.entry["slots"]
    if any(s[0] == "lit" for s in slots):
        return True
    fields = {s[1] for s in slots if s[0] == "f"}
    if ctx.fmt in ("SOP1", "SOP2", "SOPC"):
        return any(is_literal(F.get(ctx.fmt, ctx.bits, f)) for f in ("ssrc0", "ssrc1") if f in fields)
    if ctx.fmt in ("VOP1", "VOP2", "VOPC") and not ctx.ext:
        return "src0" in fields and is_literal(F.get(ctx.fmt, ctx.bits, "src0"))
    return False


def _render(ctx: Ctx) -> Instr:
    fmt, entry = ctx.fmt, ctx.entry
    operands: list[Operand] = []
    from_literal: list[int] = []  # operand indices of source fields that read the literal
    for slot in entry["slots"]:
        kind = slot[0]
        if kind == "f":
            operands.append(_field(ctx, slot[1], slot[2], slot[3]))
            if ctx.literal is not None and slot[1] in _LITERAL_FIELDS.get(fmt, ()) \
                    and not ctx.ext and is_literal(F.get(fmt, ctx.bits, slot[1])):
                from_literal.append(len(operands) - 1)
        elif kind == "x":
            operands.append(Special(slot[1]))
        elif kind == "lit":
            operands.append(Imm(ctx.literal))
        elif kind in ("i", "i?"):
            imm = _immediate(ctx, slot[1])
            if kind == "i" or F.get(fmt, ctx.bits, "simm16"):
                operands.append(imm)
        else:
            raise DecodeError(f"opcode table slot {slot!r} of {entry['name']} is not understood")
    mods: tuple = ()
    encoding = ""
    if fmt in VOP:
        operands, mods = vop_mods(ctx, operands)
        encoding = vop_encoding(ctx)
    elif fmt in ("SMEM", "DS", "MUBUF", "FLAT"):
        mods = mem_mods(ctx)
    if from_literal:
        operands, lit_at = _literal_operands(ctx, operands, from_literal)
        if lit_at:
            mods = tuple(mods) + (("lit", lit_at),)
    return Instr(entry["name"], tuple(operands), tuple(mods), encoding)


def _literal_operands(ctx: Ctx, operands: list[Operand], at: list[int]):
    """Literal source operands: a 16-bit operand reads the low half (``lit16`` ops, found by the
    generator); ``("lit", positions)`` marks literals an inline constant could have encoded, which
    LLVM prints as ``lit(0x0)``: -16..64 for 32-bit operands, 0..64 for 64-bit integer ones (the
    literal is zero-extended), never for f64 (the literal is the high half)."""
    widths = {i: s[3] for i, s in enumerate(ctx.entry["slots"]) if s[0] == "f"}
    lit_at = []
    for i in at:
        value = ctx.literal
        if ctx.entry.get("lit16"):
            # LLVM prints the low half, unless that half is an inline integer: then lit(<32 bits>)
            low = value & 0xFFFF
            inline = low <= 64 or low >= 0xFFF0
            if not inline:
                operands[i] = Imm(low)
        elif widths.get(i, 1) >= 2:
            inline = value <= 64 and "f64" not in ctx.name
        else:
            inline = -16 <= _sext(value, 32) <= 64
        if inline:
            lit_at.append(i)
    return operands, tuple(lit_at)


# Source fields that can hold code 255 (a 32-bit literal follows) on gfx9.
_LITERAL_FIELDS = {"SOP1": ("ssrc0",), "SOP2": ("ssrc0", "ssrc1"), "SOPC": ("ssrc0", "ssrc1"),
                   "VOP1": ("src0",), "VOP2": ("src0",), "VOPC": ("src0",)}


def _field(ctx: Ctx, field: str, file: str, width: int) -> Operand:
    fmt = ctx.fmt
    if fmt in SOP:
        code = F.get(fmt, ctx.bits, field)
        return scalar(code, width, ctx.literal)
    if fmt in VOP:
        return vop_operand(ctx, field, file, width)
    if fmt == "SMEM":
        if field == "sbase":
            return reg("s", 2 * F.get(fmt, ctx.bits, "sbase"), width)
        return scalar(F.get(fmt, ctx.bits, field), width)
    return mem_operand(ctx, field, file, width)


def _sext(value: int, bits: int) -> int:
    return value - (1 << bits) if value >> (bits - 1) else value


def _immediate(ctx: Ctx, name: str) -> Operand:
    if name == "simm16":
        raw = F.get(ctx.fmt, ctx.bits, "simm16")
        if ctx.name.startswith(BRANCH_PREFIXES):
            # Target = address of the next instruction + 4 * signed simm16 (ISA guide, SOPP).
            target = ctx.offset + 4 + 4 * _sext(raw, 16)
            return Label(label_name(target))
        return Imm(raw)
    if name == "sdata":  # s_atc_probe*: the probe mode sits in the sdata field
        return Imm(F.get("SMEM", ctx.bits, "sdata"))
    if name == "smoff":
        from .decode_mem import smem_offset_operand
        return smem_offset_operand(ctx)
    raise DecodeError(f"immediate slot {name!r} is not understood")


def label_name(byte_offset: int) -> str:
    """The label naming a branch target at ``byte_offset`` (e.g. ``L_0x40``)."""
    return f"L_0x{byte_offset:x}"


def label_index(decoded: list[DecodedInstr]) -> dict[str, int]:
    """Label name -> index in ``decoded`` of every branch target; a target that is not the start
    of a decoded instruction (mid-instruction or outside the code) is a DecodeError."""
    starts = {d.offset: i for i, d in enumerate(decoded)}
    out: dict[str, int] = {}
    for d in decoded:
        for o in d.instr.operands:
            if isinstance(o, Label):
                target = int(o.name.removeprefix("L_"), 0)
                if target not in starts:
                    raise DecodeError(f"{d.instr.op} at byte offset 0x{d.offset:x} branches to "
                                      f"0x{target:x}, which is not the start of an instruction")
                out[o.name] = starts[target]
    return out


def waitcnt_fields(simm16: int) -> dict[str, int]:
    """The counters of a gfx9 ``s_waitcnt`` immediate: vmcnt = bits 3:0 | 15:14 << 4,
    expcnt = bits 6:4, lgkmcnt = bits 11:8 (CDNA3 ISA guide, SOPP s_waitcnt)."""
    return {"vmcnt": (simm16 & 0xF) | ((simm16 >> 14) & 0x3) << 4,
            "expcnt": (simm16 >> 4) & 0x7, "lgkmcnt": (simm16 >> 8) & 0xF}
