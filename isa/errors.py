"""Typed errors of the isa package (operand, spec, parse and decode errors).

The emulator's run-time errors live in ``isa.emu.errors``; asmgen's in ``asmgen.errors``.
"""


class IsaError(Exception):
    """Base class of every error raised by the isa package."""


class OperandError(IsaError):
    """An operand is malformed: bad register range, alignment or constant."""


class UnknownInstruction(IsaError):
    """A mnemonic (or an encoding) the tables do not know, or one the arch lacks."""


class AsmParseError(IsaError):
    """An assembly line the text parser cannot read; carries the line."""


class DecodeError(IsaError):
    """Machine code that the binary decoder cannot decode; carries the byte offset."""


class CodeObjectError(IsaError):
    """A code object (ELF .hsaco) that is malformed or lacks what is asked for."""
