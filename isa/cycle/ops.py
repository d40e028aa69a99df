"""Decode an ``Instr`` once into what the cycle model needs: issue class, busy cycles, memory bytes,
registers read and written, s_waitcnt thresholds, s_nop length, s_setprio value.

Classes follow the issue model of cdna-timing §3: one instruction per class per SIMD slot, classes
VALU (incl. MFMA and trans), VMEM, scalar (SALU/SMEM), LDS, branch. Instructions that only act on
the wave itself (s_waitcnt, s_nop, s_barrier, s_setprio, s_endpgm) take no class ("none").
Every classification comes from the ``isa.tables`` spec (pipe, flags, counter, passes, mem_bytes).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from ..access import accesses
from ..hazards import mfma_passes
from ..instr import Instr
from ..operands import Imm
from ..spec import InstrSpec
from ..tables import spec_for
from ..waitcnt_enc import decode as decode_waitcnt

LANES = 64  # wave64 (facts §1)

# spec.pipe -> issue class (timing §3)
PIPE_CLASS = {"valu": "valu", "trans": "valu", "mfma": "valu", "vmem": "vmem", "lds": "lds",
              "salu": "scalar", "smem": "scalar", "branch": "branch", "misc": "none"}
WAVE_LOCAL_FLAGS = ("waitcnt", "nop", "barrier", "setprio", "endpgm")


@dataclass(frozen=True, slots=True)
class Op:
    """One instruction as the cycle model sees it."""

    instr: Instr
    spec: InstrSpec
    cls: str              # "valu" | "vmem" | "lds" | "scalar" | "branch" | "none"
    kind: str             # "mfma" | "valu" | "trans" | "vmem" | "lds" | "smem" | "salu" | "branch"
                          # | "waitcnt" | "nop" | "barrier" | "setprio" | "endpgm"
    passes: int           # MFMA passes (0 otherwise)
    mem_bytes: int        # bytes moved by the whole wave (memory ops)
    reads: frozenset
    writes: frozenset
    vmcnt: int = 63       # s_waitcnt thresholds (max = no wait)
    lgkmcnt: int = 15
    nop: int = 0          # s_nop N -> N + 1 wait states
    prio: int = 0         # s_setprio value
    text: str = ""        # LLVM text (for traces)
    locs: tuple = ()      # reads | writes, for the dependency check


def _imm(instr: Instr) -> int:
    for op in instr.operands:
        if isinstance(op, Imm):
            return int(op.value)
    return 0


@lru_cache(maxsize=65536)
def decode_op(arch: str, instr: Instr) -> Op:
    """The cycle-model view of ``instr`` on ``arch`` (cached; Instr is immutable)."""
    spec = spec_for(arch, instr)
    flag = next((f for f in WAVE_LOCAL_FLAGS if spec.has(f)), None)
    reads: set = set()
    writes: set = set()
    r, w = accesses(spec, instr)
    for a in r:
        reads |= a.locs
    for a in w:
        writes |= a.locs
    passes = mfma_passes(arch, spec, instr) if spec.has("mfma") else 0
    mem = spec.mem_bytes * LANES if spec.pipe in ("vmem", "lds", "smem") else 0
    if spec.pipe == "smem":
        mem = spec.mem_bytes   # scalar loads move one copy, not one per lane
    if flag is not None:
        cls, kind = "none", flag
    else:
        cls = PIPE_CLASS.get(spec.pipe, "none")
        kind = "mfma" if spec.has("mfma") else spec.pipe
    vm, lgkm, nop, prio = 63, 15, 0, 0
    if kind == "waitcnt":
        wc = decode_waitcnt(_imm(instr))
        vm, lgkm = wc.vmcnt, wc.lgkmcnt
    elif kind == "nop":
        nop = _imm(instr)
    elif kind == "setprio":
        prio = _imm(instr) & 3     # user priority 0-3 (timing §3 ISA-PRIO)
    return Op(instr, spec, cls, kind, passes, mem, frozenset(reads), frozenset(writes),
              vm, lgkm, nop, prio, str(instr), tuple(reads | writes))
