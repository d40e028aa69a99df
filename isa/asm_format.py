"""Print an ``Instr`` as LLVM assembly, including the forms plain ``str(Instr)`` cannot know.

Three things need more than ``Instr.__str__``: the ``s_waitcnt`` simm16 prints as
``vmcnt(N) expcnt(N) lgkmcnt(N)`` (``isa.waitcnt_enc``); VOP3 source modifiers, stored as modifiers
``("neg", (i, ...))``, ``("abs", (i, ...))`` and ``("sext", (i, ...))`` holding the positions of
the operands they apply to, print around the operand (``-v1``, ``|v2|``, ``-|v3|``, ``sext(v1)``;
``neg(-3)``, ``|45|`` for constants, as llvm-objdump prints them);
``("lit", (i,))`` forces a 32-bit literal (``lit(0x0)``, what llvm-objdump prints for relocated
literals that would otherwise fit an inline constant).
Everything else prints as ``Instr.__str__`` does. ``Instr.__str__`` should delegate here (see the
ISA-TABLES report); until it does, call ``format_instr``.
"""
from __future__ import annotations

from .operands import Imm, Reg, Special
from .waitcnt_enc import format_waitcnt

OPERAND_MODS = ("neg", "abs", "sext", "lit")


def _operand_text(instr, i: int) -> str:
    text = str(instr.operands[i])
    if i in (instr.mod("lit") or ()):
        text = f"lit({text})"
    is_reg = isinstance(instr.operands[i], (Reg, Special))
    if i in (instr.mod("sext") or ()):
        text = f"sext({text})"
    if i in (instr.mod("abs") or ()):
        text = f"|{text}|"
    if i in (instr.mod("neg") or ()):
        # "-" before a constant would change the constant itself (-3, --3): use neg(...)
        text = f"-{text}" if is_reg or text.startswith("|") else f"neg({text})"
    return text


def format_instr(instr) -> str:
    """LLVM assembly of an ``isa.instr.Instr`` (taken by duck type: isa.instr imports this module)."""
    name = instr.op + (f"_{instr.encoding}" if instr.encoding in ("e32", "e64", "dpp", "sdwa") else "")
    if instr.op == "s_waitcnt" and len(instr.operands) == 1 and isinstance(instr.operands[0], Imm):
        return f"{name} {format_waitcnt(int(instr.operands[0].value))}"
    text = name
    if instr.operands:
        text += " " + ", ".join(_operand_text(instr, i) for i in range(len(instr.operands)))
    for k, val in instr.mods:
        if k not in OPERAND_MODS:
            text += " " + format_mod(k, val)
    return text


def format_mod(name: str, val) -> str:
    if val is True:
        return name
    if isinstance(val, tuple):
        return f"{name}:[{','.join(str(x) for x in val)}]"
    if isinstance(val, int) and name in ("row_mask", "bank_mask"):
        return f"{name}:{hex(val)}"
    return f"{name}:{val}"
