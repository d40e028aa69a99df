"""Compact constructors for instruction specs: operand templates and families of ``InstrSpec``.

The per-format table modules (``isa.cdna3_scalar``, ``isa.cdna3_vector``, ``isa.cdna3_memory``,
``isa.cdna3_mfma``) describe instructions through these helpers instead of repeating entries.
Register alignment (cdna-facts section 2.1 "operand rules", verified with llvm-mc 22): on gfx90a+
every VGPR/AGPR tuple of 2+ dwords must start at an even register (``v[1:2]`` is rejected); SGPR
pairs start even, SGPR tuples of 4+ dwords start at a multiple of 4 (``s[2:5]`` is rejected).
"""
from __future__ import annotations

from collections.abc import Iterable

from .spec import ARCHES, InstrSpec, OperandSpec

BOTH = frozenset(ARCHES)
GFX942 = frozenset({"gfx942"})
GFX950 = frozenset({"gfx950"})


def reg_align(kinds: str, width: int) -> int:
    """Alignment a register tuple of ``width`` dwords needs for these operand kinds."""
    if width < 2:
        return 1
    if "s" in kinds and width >= 4:
        return 4
    return 2


def opnd(name: str, role: str, kinds: str, width: int = 1, optional: bool = False) -> OperandSpec:
    return OperandSpec(name, role, kinds, width, optional, reg_align(kinds, width))


def dst(name: str, kinds: str, width: int = 1) -> OperandSpec:
    return opnd(name, "dst", kinds, width)


def src(name: str, kinds: str, width: int = 1) -> OperandSpec:
    return opnd(name, "src", kinds, width)


def dsrc(name: str, kinds: str, width: int = 1) -> OperandSpec:
    """An operand that is both read and written (v_fmac's vdst, v_writelane's vdst)."""
    return opnd(name, "dst_src", kinds, width)


def spec(name: str, fmt: str, operands: Iterable[OperandSpec], pipe: str, *,
         archs: frozenset[str] = BOTH, flags: Iterable[str] = (), mods: Iterable[str] = (),
         implicit_reads: Iterable[str] = (), implicit_writes: Iterable[str] = (),
         **kw) -> InstrSpec:
    return InstrSpec(name=name, fmt=fmt, operands=tuple(operands), pipe=pipe, archs=archs,
                     flags=frozenset(flags), mods=frozenset(mods),
                     implicit_reads=tuple(implicit_reads), implicit_writes=tuple(implicit_writes), **kw)


def table_key(s: InstrSpec) -> str:
    """Key of a spec in ``spec_table``: its mnemonic, plus `` lds`` for the LDS-DMA form of a
    ``buffer_load_*`` (same mnemonic, different operands: no vdata; cdna-facts section 6) and
    `` rtn`` for the returning (``sc0``) form of a FLAT/GLOBAL atomic (extra vdst operand)."""
    if s.has("lds_dma") and s.fmt == "MUBUF":
        return s.name + " lds"
    if s.has("rtn"):
        return s.name + " rtn"
    return s.name


def expand(pattern: str, **choices: Iterable[str]) -> list[str]:
    """``expand("s_{op}_{t}", op=("and", "or"), t=("b32", "b64"))`` -> the 4 names."""
    names = [pattern]
    for key, values in choices.items():
        names = [n.replace("{" + key + "}", v) for n in names for v in values]
    return names
