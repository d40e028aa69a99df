"""Static prediction of what a broken instruction stream does wrong, to choose mutation sites that
*matter* (the mutation proof must not count a harmless mutation as a survivor, nor pick sites by
asking the emulator - that would be circular).

``violations(instrs, arch, waves)`` walks a kernel's final instruction stream once in text order
(prologue, the loop body once, epilogue: exactly the first trip of a do-while loop) with a small
in-order model of the memory counters (cdna-facts section 4: VMEM and LDS complete in order, SMEM
out of order, ``vmcnt(N)``/``lgkmcnt(N)`` = all but the N most recent; SMEM only at 0) and returns
every point where the stream

* reads a register a not-waited-for load still writes       -> ``PendingReadError``
* writes such a register                                      -> ``PendingOverwriteError``
* reaches ``s_barrier`` with its own LDS writes still pending -> ``LdsRaceError`` (section 4:
  ``lgkmcnt(0)`` before ``s_barrier`` publishes LDS writes to the other waves)
* lets LDS accesses of two barrier intervals merge (a write on either side) with more than one
  wave                                                        -> ``LdsRaceError``
* misses hazard wait states (``isa.hazards.required_wait_states``, section 3) -> ``HazardError``

A mutation site matters when the mutated stream has a violation the original does not have; the
first new one is the *precise* error the emulator must report.
"""
from __future__ import annotations

from dataclasses import dataclass

from isa.instr import Instr
from isa.operands import Imm

from ..passes.effects import effects

PUBLISH = "s_barrier with own LDS writes pending"
HAZARD_WINDOW = 24    # instructions to look back for hazards (largest rule: 20 states on gfx950)


@dataclass(frozen=True)
class Violation:
    error: str       # the emulator error class name expected
    index: int       # position (in the stream given) of the offending instruction
    detail: str

    def key(self, ident) -> tuple:
        """Identity across streams: error kind and the offending instruction's identity."""
        return (self.error, ident[self.index])


def _waitcnt(instr: Instr) -> tuple[int, int]:
    from isa.waitcnt_enc import decode
    op = instr.operands[0] if instr.operands else Imm(0)
    w = decode(int(op.value) if isinstance(op, Imm) else 0)
    return w.vmcnt, w.lgkmcnt


def wait_states(arch: str, instr: Instr) -> int:
    """Wait states an instruction provides (s_nop N: N + 1, others 1; cdna-facts section 3)."""
    if effects(arch, instr).nop:
        op = instr.operands[0] if instr.operands else Imm(0)
        return int(op.value) + 1 if isinstance(op, Imm) else 1
    return 1


def register_violations(instrs: list[Instr], arch: str) -> list[Violation]:
    vm: list[tuple[int, frozenset, bool]] = []     # (index, dest units, writes LDS via DMA)
    lg: list[tuple[int, frozenset, bool, bool]] = []  # (index, dest units, smem, lds store)
    out: list[Violation] = []
    for i, ins in enumerate(instrs):
        e = effects(arch, ins)
        if e.waitcnt:
            vmc, lgc = _waitcnt(ins)
            vm = vm[len(vm) - vmc:] if vmc < len(vm) else vm
            if lgc == 0:
                lg = []
            else:
                recent = lg[-lgc:] if lgc < len(lg) else lg
                older = lg[:len(lg) - len(recent)]
                lg = [o for o in older if o[2]] + recent     # SMEM only retires at 0
            continue
        pending = {}
        for idx, units, _ in vm:
            for u in units:
                pending[u] = idx
        for idx, units, _, _ in lg:
            for u in units:
                pending[u] = idx
        for u in e.reads:
            if u in pending:
                out.append(Violation("PendingReadError", i, f"reads {u} of [{pending[u]}] {instrs[pending[u]]}"))
                break
        for u in e.writes:
            if u in pending:
                out.append(Violation("PendingOverwriteError", i,
                                     f"writes {u} still targeted by [{pending[u]}] {instrs[pending[u]]}"))
                break
        if e.barrier and (any(o[3] for o in lg) or any(o[2] for o in vm)):
            out.append(Violation("LdsRaceError", i, PUBLISH))
        units = frozenset(u for u in e.writes if u[0] != "x")
        if e.counter == "vm":
            vm.append((i, units, e.lds_dma))
        elif e.counter == "lgkm":
            lg.append((i, units, e.smem, e.lds_store and not e.lds_dma))
    return out


def barrier_intervals(instrs: list[Instr], arch: str) -> list[tuple[int, bool, bool]]:
    """Per barrier (index): whether the interval before it and the one after it touch LDS with a
    write in either (the barrier separates conflicting phases)."""
    spans, cur_acc, cur_w, bars = [], False, False, []
    for i, ins in enumerate(instrs):
        e = effects(arch, ins)
        if e.barrier:
            spans.append((cur_acc, cur_w))
            bars.append(i)
            cur_acc = cur_w = False
        elif e.lds:
            cur_acc = True
            cur_w = cur_w or e.lds_store
    spans.append((cur_acc, cur_w))
    out = []
    for n, i in enumerate(bars):
        (a0, w0), (a1, w1) = spans[n], spans[n + 1]
        out.append((i, a0 and a1, w0 or w1))
    return out


def hazard_violations(instrs: list[Instr], arch: str) -> list[Violation]:
    from isa.hazards import required_wait_states
    out = []
    states = [wait_states(arch, x) for x in instrs]
    for c in range(len(instrs)):
        elapsed = 0
        for p in range(c - 1, max(-1, c - HAZARD_WINDOW - 1), -1):
            need = required_wait_states(arch, instrs[p], instrs[c])
            if need > elapsed:
                out.append(Violation("HazardError", c, f"needs {need} states after [{p}] "
                                                        f"{instrs[p]}, has {elapsed}"))
                break
            elapsed += states[p]
            if elapsed > HAZARD_WINDOW:
                break
    return out


def violations(instrs: list[Instr], arch: str, *, hazards: bool = True) -> list[Violation]:
    out = register_violations(instrs, arch)
    if hazards:
        out += hazard_violations(instrs, arch)
    return sorted(out, key=lambda v: v.index)


def new_violations(orig: list[Instr], mutated: list[Instr], arch: str, ident_orig, ident_mut,
                   *, hazards: bool = False) -> list[Violation]:
    """Violations of ``mutated`` absent from ``orig`` (matched by instruction identity)."""
    before = {v.key(ident_orig) for v in violations(orig, arch, hazards=hazards)}
    return [v for v in violations(mutated, arch, hazards=hazards)
            if v.key(ident_mut) not in before]
