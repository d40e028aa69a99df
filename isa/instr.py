"""One machine instruction as data: mnemonic, positional operands, modifiers; prints as LLVM syntax.

``Instr`` is what the builder makes, the text parser reads and the binary decoder produces, so the
emitter, the passes and the emulator all speak of the same object. Operands are positional in
LLVM's assembly order (destinations first); which are read or written is the spec table's business
(``isa.spec``). Modifiers are ``(name, value)`` pairs in the order they print:
``True`` prints ``name`` (``offen``, ``lds``, ``sc0``), an int ``name:N`` (``offset:16``,
``s_waitcnt`` holds one ``Imm(simm16)`` operand and prints its fields), a tuple ``name:[a,b]`` (``op_sel``),
a str ``name:text`` (``dpp`` controls such as ``row_shr:1`` are stored as ``("row_shr", 1)``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .asm_format import format_instr, format_mod  # noqa: F401  (format_mod re-exported)
from .operands import Operand

ModValue = Any  # bool | int | str | tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Instr:
    """An instruction: ``op`` mnemonic (lower case, no ``_e32``/``_e64`` suffix), operands, modifiers."""

    op: str
    operands: tuple[Operand, ...] = ()
    mods: tuple[tuple[str, ModValue], ...] = ()
    encoding: str = ""  # "e32" | "e64" | "dpp" | "sdwa" | "" (as decoded or asked for; "" = assembler's choice)

    def mod(self, name: str, default: ModValue = None) -> ModValue:
        for k, val in self.mods:
            if k == name:
                return val
        return default

    def has(self, name: str) -> bool:
        return any(k == name for k, _ in self.mods)

    def with_mods(self, **updates: ModValue) -> Instr:
        """A copy with modifiers set (value None removes one)."""
        mods = [(k, updates.pop(k) if k in updates else val) for k, val in self.mods]
        mods += list(updates.items())
        return Instr(self.op, self.operands, tuple((k, val) for k, val in mods if val is not None and
                                                   val is not False), self.encoding)

    def __str__(self) -> str:
        # the printer knows s_waitcnt fields and VOP3 source modifiers (isa.asm_format)
        return format_instr(self)
