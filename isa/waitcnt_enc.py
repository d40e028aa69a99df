"""Encode, decode and print the simm16 of ``s_waitcnt`` on gfx9 (gfx942, gfx950).

Layout (cdna-facts section 4, verified with llvm-mc 22): vmcnt = bits [3:0] + bits [15:14] << 4
(0..63), expcnt = bits [6:4] (0..7), lgkmcnt = bits [11:8] (0..15); bits 7 and 13:12 are unused
(zero). A field at its maximum means "do not wait on this counter". ``Instr("s_waitcnt", (Imm(simm16),))``
is the representation; ``format_waitcnt`` gives LLVM's text (``vmcnt(1) lgkmcnt(0)``), omitting
fields at their maximum as llvm-objdump does.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import AsmParseError, OperandError

VM_MAX, EXP_MAX, LGKM_MAX = 63, 7, 15
_LIMITS = {"vmcnt": VM_MAX, "expcnt": EXP_MAX, "lgkmcnt": LGKM_MAX}
_USED_BITS = 0xF | (0x7 << 4) | (0xF << 8) | (0x3 << 14)


@dataclass(frozen=True, slots=True)
class Waitcnt:
    """Counter thresholds of one ``s_waitcnt``; a field at its maximum does not wait."""

    vmcnt: int = VM_MAX
    expcnt: int = EXP_MAX
    lgkmcnt: int = LGKM_MAX

    def __post_init__(self) -> None:
        for name, limit in _LIMITS.items():
            val = getattr(self, name)
            if not isinstance(val, int) or not 0 <= val <= limit:
                raise OperandError(f"s_waitcnt {name}({val}) is out of range: {name} is 0..{limit} on gfx9")


def encode(w: Waitcnt) -> int:
    return (w.vmcnt & 0xF) | ((w.vmcnt >> 4) << 14) | (w.expcnt << 4) | (w.lgkmcnt << 8)


def waitcnt_imm(vmcnt: int = VM_MAX, expcnt: int = EXP_MAX, lgkmcnt: int = LGKM_MAX) -> int:
    """The simm16 that waits for ``vmcnt``/``expcnt``/``lgkmcnt`` (omitted fields: no wait)."""
    return encode(Waitcnt(vmcnt, expcnt, lgkmcnt))


def decode(simm16: int) -> Waitcnt:
    if not 0 <= simm16 <= 0xFFFF:
        raise OperandError(f"s_waitcnt operand {simm16:#x} does not fit 16 bits")
    if simm16 & ~_USED_BITS:
        raise OperandError(f"s_waitcnt operand {simm16:#06x} sets unused bits {simm16 & ~_USED_BITS & 0xFFFF:#06x}")
    return Waitcnt(vmcnt=(simm16 & 0xF) | ((simm16 >> 14) & 0x3) << 4, expcnt=(simm16 >> 4) & 0x7,
                   lgkmcnt=(simm16 >> 8) & 0xF)


def format_waitcnt(simm16: int) -> str:
    """LLVM's operand text for a simm16: ``vmcnt(0) lgkmcnt(1)``; all at maximum prints every field."""
    w = decode(simm16)
    parts = [f"{n}({getattr(w, n)})" for n in ("vmcnt", "expcnt", "lgkmcnt") if getattr(w, n) != _LIMITS[n]]
    if not parts:
        parts = [f"{n}({lim})" for n, lim in _LIMITS.items()]
    return " ".join(parts)


_FIELD = re.compile(r"(vmcnt|expcnt|lgkmcnt)\s*\(\s*(\d+)\s*\)")


def parse_waitcnt(text: str) -> int:
    """simm16 of an ``s_waitcnt`` operand: ``vmcnt(1) & lgkmcnt(0)``, ``vmcnt(0), expcnt(1)`` or an int."""
    t = text.strip()
    if re.fullmatch(r"-?(0x[0-9a-fA-F]+|\d+)", t):
        val = int(t, 0)
        decode(val)
        return val
    fields: dict[str, int] = {}
    rest = _FIELD.sub(lambda m: fields.__setitem__(m.group(1), int(m.group(2))) or "", t)
    if rest.replace("&", "").replace(",", "").strip() or not fields:
        raise AsmParseError(f"cannot read s_waitcnt operand {text!r}")
    return waitcnt_imm(**fields)
