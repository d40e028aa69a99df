"""Which registers an instruction reads and writes, per operand slot, from its spec.

A location is ``(file, index)``: ``("v", 5)``, ``("a", 0)``, ``("s", 10)``; VCC aliases SGPRs
106:107 on gfx9 (CDNA3 ISA guide, "SGPR allocation": VCC is s[106:107]), EXEC is ``("exec", 0|1)``,
M0 ``("m0", 0)``, SCC ``("scc", 0)``. Widths come from the instruction's actual operands (a GLOBAL
vaddr is 1 or 2 VGPRs depending on saddr), roles from the spec: ``dst`` written, ``src`` read,
``dst_src`` both. Extra rules: a MUBUF atomic with ``sc0`` returns into vdata (so writes it).
"""
from __future__ import annotations

from dataclasses import dataclass

from .errors import OperandError
from .identity_memo import MISS, IdentityMemo
from .instr import Instr
from .operands import Operand, Reg, Special
from .spec import InstrSpec

Loc = tuple[str, int]

_SPECIAL_LOCS: dict[str, tuple[Loc, ...]] = {
    "vcc": (("s", 106), ("s", 107)), "vcc_lo": (("s", 106),), "vcc_hi": (("s", 107),),
    "exec": (("exec", 0), ("exec", 1)), "exec_lo": (("exec", 0),), "exec_hi": (("exec", 1),),
    "m0": (("m0", 0),), "scc": (("scc", 0),),
    "flat_scratch": (("s", 102), ("s", 103)), "flat_scratch_lo": (("s", 102),),
    "flat_scratch_hi": (("s", 103),), "xnack_mask": (("s", 104), ("s", 105)),
}


def locations(op: Operand | str) -> frozenset[Loc]:
    """Register locations of an operand (or of an implicit special register named by a string)."""
    if isinstance(op, str):
        op = Special(op)
    if isinstance(op, Reg):
        return frozenset((op.file, op.index + i) for i in range(op.count))
    if isinstance(op, Special):
        return frozenset(_SPECIAL_LOCS.get(op.name, ((op.name, 0),) if op.count else ()))
    return frozenset()


@dataclass(frozen=True, slots=True)
class Access:
    """One read or write: operand slot name (``"implicit"`` for implicit ones), the operand, its locations."""

    slot: str
    operand: Operand | None
    locs: frozenset[Loc]


_MEMO = IdentityMemo(1 << 16)


def accesses(spec: InstrSpec, instr: Instr) -> tuple[tuple[Access, ...], tuple[Access, ...]]:
    """(reads, writes) of ``instr`` described by ``spec``. Memoised by the identities of both
    (the hazard rules ask once per producer/consumer pair, the emulator once for reads and once
    for writes); each entry holds its instruction and spec, so an id is not reused while it lives.
    The answer is immutable (tuples of frozen ``Access``)."""
    out = _MEMO.get(instr, spec)
    return _MEMO.put(instr, spec, _accesses(spec, instr)) if out is MISS else out


def _accesses(spec: InstrSpec, instr: Instr) -> tuple[tuple[Access, ...], tuple[Access, ...]]:
    if len(instr.operands) != len(spec.operands):
        raise OperandError(f"{instr.op} takes {len(spec.operands)} operands "
                           f"({', '.join(o.name for o in spec.operands)}), got {len(instr.operands)}")
    reads: list[Access] = []
    writes: list[Access] = []
    returns_vdata = spec.fmt == "MUBUF" and spec.has("atomic") and instr.has("sc0")
    for o, op in zip(spec.operands, instr.operands):
        acc = Access(o.name, op, locations(op))
        if not acc.locs:
            continue
        if o.role in ("src", "dst_src"):
            reads.append(acc)
        if o.role in ("dst", "dst_src") or (returns_vdata and o.name == "vdata"):
            writes.append(acc)
    reads += [Access("implicit", None, locations(r)) for r in spec.implicit_reads]
    writes += [Access("implicit", None, locations(w)) for w in spec.implicit_writes]
    return tuple(reads), tuple(writes)


def read_locs(spec: InstrSpec, instr: Instr) -> frozenset[Loc]:
    return frozenset().union(*(a.locs for a in accesses(spec, instr)[0]))


def write_locs(spec: InstrSpec, instr: Instr) -> frozenset[Loc]:
    return frozenset().union(*(a.locs for a in accesses(spec, instr)[1]))
