"""Per-arch instruction tables: look up the ``InstrSpec`` of a mnemonic or an ``Instr``.

``spec_table(arch)`` maps a key to its spec; the key is the mnemonic, except for two variants that
share a mnemonic with another form (see ``isa.spec_builders.table_key``): ``"buffer_load_dword lds"``
(LDS-DMA, no vdata) and ``"global_atomic_add rtn"`` (returning atomic, extra vdst). ``spec_for``
picks the right one for an ``Instr``. ``canonical_instr`` builds a valid example of each spec
(used by the tests that assemble every spec with llvm-mc).
"""
from __future__ import annotations

from functools import cache

from . import cdna3, cdna4
from .cdna3_mfma import mfma_aliases
from .errors import UnknownInstruction
from .instr import Instr
from .operands import Imm, Operand, Reg, Special
from .spec import ARCHES, InstrSpec
from .spec_builders import table_key

_BUILDERS = {"gfx942": cdna3.specs, "gfx950": cdna4.specs}


def _check_arch(arch: str) -> None:
    if arch not in ARCHES:
        raise UnknownInstruction(f"unknown arch {arch!r}; the tables know {', '.join(ARCHES)}")


@cache
def spec_table(arch: str) -> dict[str, InstrSpec]:
    """Key -> spec for every instruction ``arch`` has (cached; do not mutate)."""
    _check_arch(arch)
    table: dict[str, InstrSpec] = {}
    for s in _BUILDERS[arch]():
        key = table_key(s)
        if key in table:
            raise AssertionError(f"duplicate spec key {key!r} in the {arch} table")
        table[key] = s
    return table


@cache
def aliases() -> dict[str, str]:
    """Alternative spellings LLVM accepts -> table mnemonic (legacy MFMA names)."""
    return mfma_aliases()


def canonical_name(mnemonic: str) -> str:
    return aliases().get(mnemonic, mnemonic)


def get_spec(arch: str, mnemonic: str) -> InstrSpec:
    """The spec of ``mnemonic`` (a table key, or a legacy alias) on ``arch``."""
    table = spec_table(arch)
    key = canonical_name(mnemonic.lower())
    if key in table:
        return table[key]
    others = [a for a in ARCHES if a != arch and key in spec_table(a)]
    hint = f" (it exists on {', '.join(others)})" if others else ""
    raise UnknownInstruction(f"instruction {mnemonic!r} is not in the {arch} table{hint}")


def variant_key(instr: Instr, base: InstrSpec) -> str:
    """The table key of ``instr`` given the spec of its bare mnemonic."""
    if base.fmt == "MUBUF" and base.has("load") and instr.has("lds"):
        return base.name + " lds"
    if base.fmt in ("FLAT", "GLOBAL") and base.has("atomic") and instr.has("sc0"):
        return base.name + " rtn"
    return base.name


def spec_for(arch: str, instr: Instr) -> InstrSpec:
    """The spec that describes ``instr`` (its variant, e.g. the LDS-DMA form, included)."""
    base = get_spec(arch, instr.op)
    key = variant_key(instr, base)
    return base if key == base.name else get_spec(arch, key)


# Canonical immediates for operands whose value has a meaning (others get 1).
_CANON_IMM = {"hwreg": 0xF801,   # hwreg(HW_REG_MODE): id 1, offset 0, size 32
              "simm16": 0, "label": 0, "soffset": 0}


def canonical_instr(spec: InstrSpec, arch: str) -> Instr:
    """A valid instance of ``spec`` on ``arch``: the first kind of each operand, registers allocated
    upward per file and aligned as the spec says, modifiers that the form requires."""
    if arch not in spec.archs:
        raise UnknownInstruction(f"{spec.name} does not exist on {arch}")
    nxt = {"s": 0, "v": 0, "a": 0}
    ops: list[Operand] = []
    for o in spec.operands:
        k = o.kinds[0]
        if k in nxt:
            idx = -(-nxt[k] // o.align) * o.align
            ops.append(Reg(k, idx, o.width))
            nxt[k] = idx + o.width
        elif k == "x":
            ops.append(Special("vcc" if o.width == 2 else "m0"))
        elif k == "o":
            ops.append(Special("off"))
        elif k == "l":
            ops.append(Imm(0x1234))
        else:  # "i", "b"
            ops.append(Imm(_CANON_IMM.get(o.name, 1)))
    mods: list[tuple[str, object]] = []
    if spec.fmt == "MUBUF" and "offen" in spec.mods:
        mods.append(("offen", True))
        if spec.has("lds_dma"):
            mods.append(("lds", True))
    if spec.has("rtn"):
        mods.append(("sc0", True))
    return Instr(spec.name, tuple(ops), tuple(mods))
