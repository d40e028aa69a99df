"""Register and memory effects of one instruction, read from the ISA spec table.

Every pass (DAG, waitcnt, hazards, liveness, regalloc) asks this module which register units an
instruction reads and writes, which s_waitcnt counter it bumps and whether it touches LDS; the
answers come from ``isa.tables`` (operand roles, implicit operands, flags, counter), never from
opcode lists here.

A register *unit* is one dword of one register file, as a hashable tuple:
  * virtual:  ``(file, vreg_id, offset)``     e.g. ("v", 12, 3) = dword 3 of %v12
  * physical: ``(file, -1, index)``           e.g. ("v", -1, 7) = v7
  * special:  ``("x", name, 0)``              vcc/exec/flat_scratch split into _lo/_hi halves
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from isa.identity_memo import MISS, IdentityMemo
from isa.instr import Instr
from isa.operands import Reg, Special
from isa.spec import InstrSpec

from ..errors import AsmgenError
from ..ir import VReg
from ..target import Target

Unit = tuple


# Vector instructions (VALU, MFMA, VMEM, DS) are masked by EXEC, so they read it (LLVM marks them
# all ``implicit $exec``); the spec tables list only the implicit operands an instruction names.
VECTOR_PIPES = ("valu", "trans", "mfma", "vmem", "lds")


class EffectsError(AsmgenError):
    """An instruction the spec table cannot describe (unknown mnemonic, operand count mismatch)."""


_SPECIAL_UNITS = {
    "vcc": ("vcc_lo", "vcc_hi"), "exec": ("exec_lo", "exec_hi"),
    "flat_scratch": ("flat_scratch_lo", "flat_scratch_hi"), "xnack_mask": ("xnack_mask_lo", "xnack_mask_hi"),
    "off": (),
}


def special_units(name: str) -> tuple[Unit, ...]:
    return tuple(("x", n, 0) for n in _SPECIAL_UNITS.get(name, (name,)))


def operand_units(o: object) -> tuple[Unit, ...]:
    """Register units an operand names (empty for immediates and labels)."""
    if isinstance(o, VReg):
        return tuple((o.file, o.id, k) for k in range(o.offset, o.offset + o.count))
    if isinstance(o, Reg):
        return tuple((o.file, -1, k) for k in range(o.index, o.index + o.count))
    if isinstance(o, Special):
        return special_units(o.name)
    return ()


@dataclass(frozen=True, slots=True)
class Effects:
    """What one instruction does, for the passes."""

    spec: InstrSpec
    reads: tuple[Unit, ...]
    writes: tuple[Unit, ...]
    counter: str | None        # "vm" | "lgkm" | None
    smem: bool                    # lgkm op that may complete out of order (cdna-facts section 4)
    lds: bool                     # touches LDS (ds_* or LDS-DMA)
    lds_dma: bool                 # buffer/global load into LDS: counted in vmcnt (section 6)
    lds_store: bool               # writes LDS (ds_write*, LDS-DMA, ds atomics)
    global_store: bool            # writes global memory (VMEM store/atomic)
    global_load: bool             # reads global/constant memory (VMEM/SMEM load, LDS-DMA)
    barrier: bool
    waitcnt: bool
    nop: bool
    mfma: bool
    dst_ops: tuple[int, ...]       # positional indices of written operands
    src_ops: tuple[int, ...]       # positional indices of read operands
    reg_reads: tuple[Unit, ...]    # reads / writes without special registers (for liveness)
    reg_writes: tuple[Unit, ...]
    op_align: tuple[int, ...]      # spec alignment of each positional operand
    op_kinds: tuple[str, ...]      # spec kind letters of each positional operand
    reg_physical: bool = False     # some reg_reads / reg_writes unit is a physical register

    @property
    def is_mem(self) -> bool:
        return self.counter is not None


def lookup_spec(target: Target, instr: Instr) -> InstrSpec:
    """The spec of ``instr`` on ``target`` (its LDS-DMA / returning-atomic variant included)."""
    return target.spec_for(instr)


def map_operands(spec: InstrSpec, instr: Instr) -> list[int]:
    """Index into ``spec.operands`` for each positional operand of ``instr``. When operands are
    omitted, optional spec operands are skipped first-to-last until the counts match."""
    n_spec, n_have = len(spec.operands), len(instr.operands)
    if n_have > n_spec:
        raise EffectsError(f"{instr}: {n_have} operands but the {spec.name} spec has {n_spec}")
    skip = n_spec - n_have
    out = []
    for i, os_ in enumerate(spec.operands):
        if skip and os_.optional:
            skip -= 1
            continue
        out.append(i)
    if skip:
        raise EffectsError(f"{instr}: {n_have} operands, the {spec.name} spec needs at least "
                           f"{n_spec - sum(o.optional for o in spec.operands)}")
    return out[:n_have]


_MEMO = IdentityMemo(1 << 18)


def effects(target: Target, instr: Instr) -> Effects:
    """Effects of ``instr`` on ``target``. Memoised by object identity first (hashing an Instr
    walks all its operands), then by value; both memos key on the arch name (a ``Target`` is
    equal to every other of its arch)."""
    arch = target.arch
    e = _MEMO.get(instr, arch)
    return _MEMO.put(instr, arch, _effects(target, instr)) if e is MISS else e


_PLANS: dict[tuple, tuple] = {}


def _plan(target: Target, instr: Instr) -> tuple:
    """What ``_effects`` takes from the spec alone, memoised by arch, mnemonic, modifiers and
    operand count (all the spec lookup and the operand mapping depend on): (spec, (position,
    read?, written?) per positional operand, returning-atomic write of operand 0?, EXEC read by a
    vector pipe?, implicit read units, implicit write units, the spec-only ``Effects`` fields)."""
    key = (target.arch, instr.op, instr.mods, len(instr.operands))
    p = _PLANS.get(key)
    if p is not None:
        return p
    spec = lookup_spec(target, instr)
    idx = map_operands(spec, instr)
    roles = []
    for pos, si in enumerate(idx):
        role = spec.operands[si].role
        roles.append((pos, role in ("src", "dst_src"), role in ("dst", "dst_src")))
    fl = spec.flags
    lds_dma = "lds_dma" in fl
    lds = "lds" in fl or lds_dma
    smem = "smem" in fl
    ds_op = lds and not lds_dma
    fields = {
        "spec": spec, "counter": spec.counter, "smem": smem, "lds": lds, "lds_dma": lds_dma,
        "lds_store": lds_dma or (ds_op and ("store" in fl or "atomic" in fl)),
        "global_store": (not lds) and not smem and spec.counter == "vm" and ("store" in fl or "atomic" in fl),
        "global_load": (spec.counter == "vm" and "load" in fl) or lds_dma or (smem and "load" in fl),
        "barrier": "barrier" in fl, "waitcnt": "waitcnt" in fl, "nop": "nop" in fl,
        "mfma": "mfma" in fl,
        "dst_ops": tuple(pos for pos, _r, w in roles if w),
        "src_ops": tuple(pos for pos, r, _w in roles if r),
        "op_align": tuple(spec.operands[si].align for si in idx),
        "op_kinds": tuple(spec.operands[si].kinds for si in idx)}
    rtn = spec.fmt == "MUBUF" and "atomic" in fl and instr.has("sc0")
    imp_r = tuple(u for name in spec.implicit_reads for u in special_units(name))
    imp_w = tuple(u for name in spec.implicit_writes for u in special_units(name))
    if len(_PLANS) > 1 << 14:
        _PLANS.clear()
    p = _PLANS[key] = (tuple(roles), rtn, spec.pipe in VECTOR_PIPES, imp_r, imp_w, fields)
    return p


_EXEC_UNITS = special_units("exec")


@lru_cache(maxsize=1 << 16)
def _effects(target: Target, instr: Instr) -> Effects:
    roles, rtn, vector, imp_r, imp_w, fields = _plan(target, instr)
    ops = instr.operands
    reads: list[Unit] = []
    writes: list[Unit] = []
    for pos, r, w in roles:
        units = operand_units(ops[pos])
        if r:
            reads += units
        if w:
            writes += units
    if rtn and ops:
        writes += operand_units(ops[0])   # returning buffer atomic: pre-op value -> vdata
    if vector and not any(u[1] in ("exec_lo", "exec_hi") for u in reads):
        reads += _EXEC_UNITS
    reads += imp_r
    writes += imp_w
    reg_reads = tuple(dict.fromkeys(u for u in reads if u[0] != "x"))
    reg_writes = tuple(dict.fromkeys(u for u in writes if u[0] != "x"))
    return Effects(
        reads=tuple(dict.fromkeys(reads)), writes=tuple(dict.fromkeys(writes)),
        reg_reads=reg_reads, reg_writes=reg_writes,
        reg_physical=any(u[1] == -1 for u in reg_reads + reg_writes), **fields)
