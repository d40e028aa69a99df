"""Bit layouts of the gfx9 (gfx942/gfx950) microcode formats: which format a word is, field get/pack.

The layouts are the ones of the AMD CDNA3 ISA guide, chapter "Microcode formats", as LLVM encodes
them (llvm/lib/Target/AMDGPU/SIInstrFormats.td, VOP*Instructions.td, DSInstructions.td,
BUFInstructions.td, FLATInstructions.td, SMInstructions.td for the GFX9/GFX940 encodings);
positions of the gfx940 cache bits (sc0/sc1/nt) and of the acc bits were checked with
``llvm-mc-22 -mcpu=gfx942 -show-encoding``. A field is ``(lo, width)`` over the 64-bit value
``word0 | word1 << 32``. The decoder reads fields with :func:`get`; the opcode generator
(``isa/tools/gen_opcodes.py``) builds sample words with :func:`pack`, so both share one layout.
"""
from __future__ import annotations

# Fixed prefix of each format: (lo, width, value) that identifies it in word 0.
PREFIX = {
    "SOP1": (23, 9, 0x17D), "SOPC": (23, 9, 0x17E), "SOPP": (23, 9, 0x17F),
    "SOPK": (28, 4, 0xB), "SOP2": (30, 2, 0x2),
    "SMEM": (26, 6, 0x30),
    "VOP1": (25, 7, 0x3F), "VOPC": (25, 7, 0x3E), "VOP2": (31, 1, 0x0),
    "VOP3P": (23, 9, 0x1A7), "VOP3": (26, 6, 0x34),
    "DS": (26, 6, 0x36), "FLAT": (26, 6, 0x37), "MUBUF": (26, 6, 0x38),
}

# Order in which prefixes are tried: longer (more specific) prefixes first.
_ORDER = ("SOP1", "SOPC", "SOPP", "SOPK", "SOP2", "VOP3P", "VOP1", "VOPC", "SMEM", "VOP3", "DS",
          "FLAT", "MUBUF", "VOP2")

# Formats that are 64 bits before any literal.
WIDE = frozenset({"SMEM", "VOP3", "VOP3P", "DS", "FLAT", "MUBUF"})

_VOP3_SRCS = {"src0": (32, 9), "src1": (41, 9), "src2": (50, 9)}

FIELDS: dict[str, dict[str, tuple[int, int]]] = {
    "SOP2": {"op": (23, 7), "sdst": (16, 7), "ssrc1": (8, 8), "ssrc0": (0, 8)},
    "SOPK": {"op": (23, 5), "sdst": (16, 7), "simm16": (0, 16)},
    "SOP1": {"sdst": (16, 7), "op": (8, 8), "ssrc0": (0, 8)},
    "SOPC": {"op": (16, 7), "ssrc1": (8, 8), "ssrc0": (0, 8)},
    "SOPP": {"op": (16, 7), "simm16": (0, 16)},
    "SMEM": {"op": (18, 8), "imm": (17, 1), "glc": (16, 1), "nv": (15, 1), "soe": (14, 1),
             "sdata": (6, 7), "sbase": (0, 6), "offset": (32, 21), "soffset": (57, 7)},
    "VOP1": {"vdst": (17, 8), "op": (9, 8), "src0": (0, 9)},
    "VOP2": {"op": (25, 6), "vdst": (17, 8), "vsrc1": (9, 8), "src0": (0, 9)},
    "VOPC": {"op": (17, 8), "vsrc1": (9, 8), "src0": (0, 9)},
    # VOP3a; VOP3b reuses bits 14:8 as sdst (the op decides which).
    "VOP3": {"op": (16, 10), "clamp": (15, 1), "op_sel": (11, 4), "abs": (8, 3), "sdst": (8, 7),
             "vdst": (0, 8), "neg": (61, 3), "omod": (59, 2), **_VOP3_SRCS},
    # VOP3P; MFMA/SMFMAC ops (VOP3P-MAI) read bits 15:8 and 63:59 as acc_cd/abid/cbsz, blgp/acc.
    "VOP3P": {"op": (16, 7), "clamp": (15, 1), "op_sel_hi2": (14, 1), "op_sel": (11, 3),
              "neg_hi": (8, 3), "vdst": (0, 8), "neg_lo": (61, 3), "op_sel_hi": (59, 2),
              "acc_cd": (15, 1), "abid": (11, 4), "cbsz": (8, 3), "blgp": (61, 3), "acc": (59, 2),
              **_VOP3_SRCS},
    "DS": {"op": (17, 8), "acc": (25, 1), "gds": (16, 1), "offset1": (8, 8), "offset0": (0, 8),
           "vdst": (56, 8), "data1": (48, 8), "data0": (40, 8), "addr": (32, 8)},
    "MUBUF": {"op": (18, 7), "nt": (17, 1), "lds": (16, 1), "sc1": (15, 1), "sc0": (14, 1),
              "idxen": (13, 1), "offen": (12, 1), "offset": (0, 12), "soffset": (56, 8),
              "acc": (55, 1), "srsrc": (48, 5), "vdata": (40, 8), "vaddr": (32, 8)},
    # seg: 0 flat, 1 scratch, 2 global. Bit 13 is SVE (vaddr present) for scratch on gfx940.
    "FLAT": {"op": (18, 7), "sc1": (25, 1), "nt": (17, 1), "sc0": (16, 1), "seg": (14, 2),
             "sve": (13, 1), "offset": (0, 13), "vdst": (56, 8), "acc": (55, 1), "saddr": (48, 7),
             "data": (40, 8), "addr": (32, 8)},
    # Extension words (word 1 of a VOP1/VOP2/VOPC with src0 = 250 (DPP) or 249 (SDWA)).
    "DPP": {"src0": (32, 8), "dpp_ctrl": (40, 9), "bound_ctrl": (51, 1), "neg0": (52, 1),
            "abs0": (53, 1), "neg1": (54, 1), "abs1": (55, 1), "bank_mask": (56, 4),
            "row_mask": (60, 4)},
    "SDWA": {"src0": (32, 8), "dst_sel": (40, 3), "dst_unused": (43, 2), "clamp": (45, 1),
             "omod": (46, 2), "src0_sel": (48, 3), "sext0": (51, 1), "neg0": (52, 1),
             "abs0": (53, 1), "s0": (55, 1), "src1_sel": (56, 3), "sext1": (59, 1),
             "neg1": (60, 1), "abs1": (61, 1), "s1": (63, 1), "sdst": (40, 7), "sd": (47, 1)},
}

SRC_DPP = 250
SRC_SDWA = 249
SRC_LITERAL = 255
FLAT_SADDR_OFF = 0x7F  # saddr = 0x7F means "off" (no SGPR base) for global/scratch


def fmt_of(word0: int) -> str | None:
    """The format of an instruction whose first dword is ``word0``, or None if not one we know."""
    for name in _ORDER:
        lo, width, value = PREFIX[name]
        if (word0 >> lo) & ((1 << width) - 1) == value:
            return name
    return None


def get(fmt: str, bits: int, name: str) -> int:
    lo, width = FIELDS[fmt][name]
    return (bits >> lo) & ((1 << width) - 1)


def pack(fmt: str, **values: int) -> int:
    """The 32- or 64-bit value of format ``fmt`` with its prefix and the given fields set."""
    lo, _width, prefix = PREFIX.get(fmt, (0, 0, 0))  # DPP/SDWA extension words have no prefix
    bits = prefix << lo
    for name, val in values.items():
        flo, fwidth = FIELDS[fmt][name]
        if not 0 <= val < (1 << fwidth):
            raise ValueError(f"field {fmt}.{name} = {val} does not fit {fwidth} bits")
        bits |= val << flo
    return bits


def variant_of(fmt: str, bits: int) -> str:
    """The operand-shape variant of a memory instruction (same key in generator and decoder).

    MUBUF: which address VGPRs (offen/idxen), the LDS-DMA form, and sc0 (atomics return a value
    only with sc0 set, gfx940). FLAT: segment, SVE/LDS bit, whether saddr is ``off``, sc0.
    """
    if fmt == "MUBUF":
        return "o{}i{}l{}r{}".format(get(fmt, bits, "offen"), get(fmt, bits, "idxen"),
                                     get(fmt, bits, "lds"), get(fmt, bits, "sc0"))
    if fmt == "FLAT":
        saddr_off = int(get(fmt, bits, "saddr") == FLAT_SADDR_OFF)
        return "g{}v{}o{}r{}".format(get(fmt, bits, "seg"), get(fmt, bits, "sve"), saddr_off,
                                     get(fmt, bits, "sc0"))
    return ""
