"""Operands of AMDGPU instructions: register ranges, special registers, immediates, labels.

Registers: ``s`` (SGPR), ``v`` (ArchVGPR), ``a`` (AccVGPR). A range ``v[4:7]`` is
``Reg("v", 4, 4)``. Printing gives LLVM's syntax (``v5``, ``v[4:7]``, ``s[0:1]``).
"""
from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Union

from .errors import OperandError

# Register file sizes per lane / per wave (cdna-facts section 1): 256 ArchVGPRs + 256 AccVGPRs,
# SGPRs s0..s101 addressable by kernels on gfx9 (s102..s105 are FLAT_SCR/XNACK, VCC is 106:107).
REG_FILE_SIZE = {"s": 102, "v": 256, "a": 256}


@dataclass(frozen=True, slots=True)
class Reg:
    """A range of ``count`` consecutive registers of one file starting at ``index``."""

    file: str
    index: int
    count: int = 1

    def __post_init__(self) -> None:
        if self.file not in REG_FILE_SIZE:
            raise OperandError(f"register file {self.file!r} is not one of s, v, a")
        if self.count < 1:
            raise OperandError(f"register range {self.file}{self.index} has count {self.count} < 1")
        if self.index < 0 or self.index + self.count > REG_FILE_SIZE[self.file]:
            raise OperandError(
                f"register {self._text()} is out of range: {self.file} registers are "
                f"{self.file}0..{self.file}{REG_FILE_SIZE[self.file] - 1}")

    def _text(self) -> str:
        if self.count == 1:
            return f"{self.file}{self.index}"
        return f"{self.file}[{self.index}:{self.index + self.count - 1}]"

    def __str__(self) -> str:
        return self._text()

    @property
    def last(self) -> int:
        return self.index + self.count - 1

    def sub(self, offset: int, count: int = 1) -> Reg:
        """The sub-range ``count`` registers wide starting ``offset`` into this one."""
        if offset < 0 or offset + count > self.count:
            raise OperandError(f"sub-range +{offset}x{count} is outside {self}")
        return Reg(self.file, self.index + offset, count)

    def overlaps(self, other: Reg) -> bool:
        return (self.file == other.file and self.index <= other.last and other.index <= self.last)


# Special registers and their width in dwords. ``off`` stands for an absent SGPR/VGPR operand.
SPECIAL_WIDTH = {
    "vcc": 2, "vcc_lo": 1, "vcc_hi": 1, "exec": 2, "exec_lo": 1, "exec_hi": 1,
    "m0": 1, "scc": 1, "off": 0, "flat_scratch": 2, "flat_scratch_lo": 1, "flat_scratch_hi": 1,
    "xnack_mask": 2, "src_shared_base": 1, "src_shared_limit": 1, "src_private_base": 1,
    "src_private_limit": 1, "src_pops_exiting_wave_id": 1, "src_lds_direct": 1,
}


@dataclass(frozen=True, slots=True)
class Special:
    """A named special register (vcc, exec, m0, ...) or ``off``."""

    name: str

    def __post_init__(self) -> None:
        if self.name not in SPECIAL_WIDTH:
            raise OperandError(f"unknown special register {self.name!r}")

    @property
    def count(self) -> int:
        return SPECIAL_WIDTH[self.name]

    def __str__(self) -> str:
        return self.name


# Inline constants of gfx9 (AMD CDNA3 ISA, "Scalar/Vector operand encodings"): integers -16..64
# and these floats (1/(2*pi) included on gfx8+); anything else needs a 32-bit literal.
INLINE_FLOATS = (0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 4.0, -4.0, 0.15915494309189535)


@dataclass(frozen=True, slots=True)
class Imm:
    """An immediate as written: an int (inline -16..64 or a 32-bit literal) or an inline float."""

    value: int | float

    def __post_init__(self) -> None:
        v = self.value
        if isinstance(v, bool):
            raise OperandError("an immediate cannot be a bool")
        if isinstance(v, float) and not is_inline_float(v):
            raise OperandError(f"float immediate {v!r} is not an inline constant; pass its bits as an int")
        if isinstance(v, int) and not (-(1 << 31) <= v < (1 << 32)):
            raise OperandError(f"immediate {v} does not fit 32 bits")

    @property
    def is_inline(self) -> bool:
        return isinstance(self.value, float) or -16 <= self.value <= 64

    def bits32(self) -> int:
        """The 32-bit pattern of this immediate as a 32-bit (f32/int) operand."""
        if isinstance(self.value, float):
            return struct.unpack("<I", struct.pack("<f", self.value))[0]
        return self.value & 0xFFFFFFFF

    def __str__(self) -> str:
        v = self.value
        if isinstance(v, float):
            return "0.15915494" if abs(v - 0.15915494309189535) < 1e-12 else repr(v)
        if v < 0 or v <= 64:
            return str(v)
        return hex(v)


def is_inline_float(v: float) -> bool:
    return any(abs(v - f) < 1e-12 for f in INLINE_FLOATS)


@dataclass(frozen=True, slots=True)
class Label:
    """A branch target by name."""

    name: str

    def __str__(self) -> str:
        return self.name


Operand = Union[Reg, Special, Imm, Label]


def s(index: int, count: int = 1) -> Reg:
    return Reg("s", index, count)


def v(index: int, count: int = 1) -> Reg:
    return Reg("v", index, count)


def a(index: int, count: int = 1) -> Reg:
    return Reg("a", index, count)
