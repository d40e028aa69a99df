"""Operand codes of the gfx9 encodings -> isa.operands objects (SGPRs, specials, constants, VGPRs).

Scalar source codes (AMD CDNA3 ISA guide, "Scalar ALU operands" / "Vector ALU operands";
LLVM AMDGPUDisassembler::decodeSrcOp): 0..101 SGPRs, 102/103 flat_scratch_lo/hi,
104/105 xnack_mask_lo/hi, 106/107 vcc_lo/hi, 108..123 ttmp0..15, 124 m0, 126/127 exec_lo/hi,
128..192 integers 0..64, 193..208 integers -1..-16, 235..239 src_shared_base..
src_pops_exiting_wave_id, 240..248 floats 0.5 -0.5 1.0 -1.0 2.0 -2.0 4.0 -4.0 1/(2*pi),
249 SDWA, 250 DPP, 251 vccz, 252 execz, 253 scc, 254 src_lds_direct, 255 literal,
256..511 VGPRs v0..v255 (9-bit VALU source fields only).
"""
from __future__ import annotations

from .errors import DecodeError, OperandError
from .operands import Imm, Operand, Reg, Special

_INLINE_FLOATS = {240: 0.5, 241: -0.5, 242: 1.0, 243: -1.0, 244: 2.0, 245: -2.0, 246: 4.0,
                  247: -4.0, 248: 0.15915494309189535}
# Special SGPR codes: (name of the 32-bit half, name of the 64-bit pair or None).
_SPECIAL = {102: ("flat_scratch_lo", "flat_scratch"), 103: ("flat_scratch_hi", None),
            104: ("xnack_mask_lo", "xnack_mask"), 106: ("vcc_lo", "vcc"), 107: ("vcc_hi", None),
            124: ("m0", None), 126: ("exec_lo", "exec"), 127: ("exec_hi", None),
            235: ("src_shared_base", "src_shared_base"),
            236: ("src_shared_limit", "src_shared_limit"),
            237: ("src_private_base", "src_private_base"),
            238: ("src_private_limit", "src_private_limit"),
            239: ("src_pops_exiting_wave_id", "src_pops_exiting_wave_id"),
            253: ("scc", None), 254: ("src_lds_direct", None)}

LITERAL = 255


class NeedsLiteral(Exception):
    """Raised internally when a source code is 255 but no literal was provided."""


def reg(file: str, index: int, count: int) -> Reg:
    """A register range; an out-of-file range is a DecodeError (caller adds the offset)."""
    try:
        return Reg(file, index, count)
    except OperandError as exc:
        raise DecodeError(str(exc)) from None


def scalar(code: int, width: int = 1, literal: int | None = None) -> Operand:
    """The operand of an 8-bit scalar code (or the low 256 codes of a 9-bit VALU source)."""
    if code < 102:
        return reg("s", code, width)
    if 128 <= code <= 192:
        return Imm(code - 128)
    if 193 <= code <= 208:
        return Imm(192 - code)
    if code in _INLINE_FLOATS:
        return Imm(_INLINE_FLOATS[code])
    if code == LITERAL:
        if literal is None:
            raise NeedsLiteral()
        return Imm(literal)
    if code in _SPECIAL:
        lo, pair = _SPECIAL[code]
        name = pair if width >= 2 and pair else lo
        if width > 2 or (width == 2 and pair is None):
            raise DecodeError(f"special register code {code} ({lo}) cannot be a {width}-dword operand")
        try:
            return Special(name)
        except OperandError:
            raise DecodeError(f"special register {name!r} (code {code}) is not representable") from None
    if 108 <= code <= 123:
        raise DecodeError(f"trap temporary ttmp{code - 108} (code {code}) is not supported")
    raise DecodeError(f"scalar operand code {code} is reserved or unsupported (vccz/execz/DPP/SDWA)")


def source(code: int, width: int = 1, literal: int | None = None, agpr: bool = False) -> Operand:
    """The operand of a 9-bit VALU source code; ``agpr`` maps VGPR codes to AccVGPRs."""
    if code >= 256:
        return reg("a" if agpr else "v", code - 256, width)
    return scalar(code, width, literal)


def is_literal(code: int) -> bool:
    return code == LITERAL
