"""Virtual registers of the kernel IR (``VReg``) and the IR's error type."""
from __future__ import annotations

from dataclasses import dataclass

from isa.operands import Imm, Label, Reg, Special

from ..errors import AsmgenError


class IRError(AsmgenError):
    """A kernel IR built wrongly: bad virtual register, operand or structure (names the value)."""


FILES = ("s", "v", "a")


@dataclass(frozen=True, slots=True)
class VReg:
    """A virtual register tuple of ``count`` dwords in file ``file`` ('s' | 'v' | 'a').

    ``id`` names the allocation root (one contiguous tuple of ``KernelIR.vreg_root(id).count``
    registers); a sub-range has ``offset`` > 0 or a smaller ``count`` and shares the root's id.
    ``align`` is the root's required alignment of its first physical register.
    """

    file: str
    id: int
    count: int = 1
    align: int = 1
    offset: int = 0
    name: str = ""

    def __post_init__(self) -> None:
        if self.file not in FILES:
            raise IRError(f"virtual register file {self.file!r} is not one of {FILES}")
        if self.count < 1 or self.offset < 0:
            raise IRError(f"virtual register %{self.file}{self.id}: count {self.count} / offset "
                          f"{self.offset} invalid")
        if self.align not in (1, 2, 4, 8, 16):
            raise IRError(f"virtual register %{self.file}{self.id}: alignment {self.align} is not "
                          f"a power of two <= 16")

    def sub(self, offset: int, count: int = 1) -> VReg:
        """The ``count`` registers starting ``offset`` registers into this (sub-)range."""
        if offset < 0 or offset + count > self.count:
            raise IRError(f"sub-range +{offset}x{count} is outside {self} ({self.count} regs)")
        return VReg(self.file, self.id, count, self.align, self.offset + offset, self.name)

    @property
    def units(self) -> range:
        """Offsets within the root this range covers."""
        return range(self.offset, self.offset + self.count)

    def __str__(self) -> str:
        base = f"%{self.file}{self.id}"
        if self.offset == 0 and self.count == 1:
            return base
        if self.count == 1:
            return f"{base}[{self.offset}]"
        return f"{base}[{self.offset}:{self.offset + self.count - 1}]"


AnyOperand = VReg | Reg | Special | Imm | Label
OPERAND_TYPES = (VReg, Reg, Special, Imm, Label)
