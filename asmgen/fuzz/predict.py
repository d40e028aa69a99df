"""Static prediction of what a broken instruction stream does wrong, to choose mutation sites that
*matter* (the mutation proof must not count a harmless mutation as a survivor, nor pick sites by
asking the emulator - that would be circular).

``violations(instrs, target, waves)`` walks a kernel's final instruction stream once in text order
(prologue, the loop body once, epilogue: exactly the first trip of a do-while loop; a block
placed after a loop's latch and reached by a branch, such as causal attention's masked body, is
walked after the loop from its exit state, which stands in for the loop-head state it is entered
with) with a small in-order model of the memory counters (cdna-facts section 4: VMEM and LDS complete in order, SMEM
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
first new one is the *precise* error the emulator must report. A deleted wait whose only new
violations are unpublished LDS writes at a barrier matters only when ``publish_matters`` sees an
LDS read of the write's bytes (``asmgen.fuzz.lds_ranges``) while the write is still pending
(loop bodies walked twice, into the next epoch), and then the error is the one met first in that
walk: the read (a race) or a register violation before it (``mutate_sites._deletion_error``).
When the unpublished write is an LDS-DMA, the emulator may name the wave's own read of it first
(``PendingReadError``: a DMA nobody waited for with vmcnt) or another wave's (``LdsRaceError``).
"""
from __future__ import annotations

from dataclasses import dataclass

from isa.instr import Instr
from isa.operands import Imm

from ..passes.effects import effects
from ..target import Target
from .lds_ranges import Ranges, overlap

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


def wait_states(target: Target, instr: Instr) -> int:
    """Wait states an instruction provides (s_nop N: N + 1, others 1; cdna-facts section 3)."""
    if effects(target, instr).nop:
        op = instr.operands[0] if instr.operands else Imm(0)
        return int(op.value) + 1 if isinstance(op, Imm) else 1
    return 1


def _after_wait(ins: Instr, vm: list, lg: list, smem_at: int) -> tuple[list, list]:
    """The in-flight queues after an s_waitcnt: vmcnt(N) keeps the N youngest VMEM ops; lgkmcnt(N)
    keeps the N youngest LGKM ops plus every older SMEM one (SMEM returns out of order, so only
    lgkmcnt(0) retires it; ``entry[smem_at]`` flags SMEM)."""
    vmc, lgc = _waitcnt(ins)
    vm = vm[len(vm) - vmc:] if vmc < len(vm) else vm
    if lgc == 0:
        return vm, []
    recent = lg[-lgc:] if lgc < len(lg) else lg
    return vm, [o for o in lg[:len(lg) - len(recent)] if o[smem_at]] + recent


def register_violations(instrs: list[Instr], target: Target) -> list[Violation]:
    vm: list[tuple[int, frozenset, bool]] = []     # (index, dest units, writes LDS via DMA)
    lg: list[tuple[int, frozenset, bool, bool]] = []  # (index, dest units, smem, lds store)
    out: list[Violation] = []
    for i, ins in enumerate(instrs):
        e = effects(target, ins)
        if e.waitcnt:
            vm, lg = _after_wait(ins, vm, lg, smem_at=2)
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


def barrier_intervals(instrs: list[Instr], target: Target) -> list[tuple[int, bool, bool]]:
    """Per barrier (index): whether the interval before it and the one after it touch LDS with a
    write in either (the barrier separates conflicting phases)."""
    spans, cur_acc, cur_w, bars = [], False, False, []
    for i, ins in enumerate(instrs):
        e = effects(target, ins)
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


def hazard_violations(instrs: list[Instr], target: Target, consumers=None) -> list[Violation]:
    """Hazards the judge sees, walking back from each consumer (``consumers``: only those
    positions; default every one)."""
    out = []
    states = [wait_states(target, x) for x in instrs]
    for c in (range(len(instrs)) if consumers is None else consumers):
        elapsed = 0
        for p in range(c - 1, max(-1, c - HAZARD_WINDOW - 1), -1):
            need = target.required_wait_states(instrs[p], instrs[c], "emu")   # the judge's view
            if need > elapsed:
                out.append(Violation("HazardError", c, f"needs {need} states after [{p}] "
                                                        f"{instrs[p]}, has {elapsed}"))
                break
            elapsed += states[p]
            if elapsed > HAZARD_WINDOW:
                break
    return out


def violations(instrs: list[Instr], target: Target, *, hazards: bool = True,
               consumers=None) -> list[Violation]:
    out = register_violations(instrs, target)
    if hazards:
        out += hazard_violations(instrs, target, consumers)
    return sorted(out, key=lambda v: v.index)


def new_violations(orig: list[Instr], mutated: list[Instr], target: Target, ident_orig, ident_mut,
                   *, hazards: bool = False, near=None) -> list[Violation]:
    """Violations of ``mutated`` absent from ``orig`` (matched by instruction identity).
    ``near``: (consumers in ``orig``, consumers in ``mutated``) the hazard walk may stop at, when
    the mutation changed the stream only there (a consumer further on looks back over the same
    instructions in both streams, so its verdict cannot be new)."""
    oc, mc = near if near is not None else (None, None)
    before = {v.key(ident_orig) for v in violations(orig, target, hazards=hazards, consumers=oc)}
    return [v for v in violations(mutated, target, hazards=hazards, consumers=mc)
            if v.key(ident_mut) not in before]


# LDS-unit ops that move data between lanes without reading LDS memory (ISA guide, DS_PERMUTE):
# they are no reader of a published LDS write.
LANE_PERMUTES = ("ds_bpermute", "ds_permute", "ds_swizzle")


def _lds_read(target: Target, instr: Instr) -> bool:
    e = effects(target, instr)
    return e.lds and not e.lds_store and not e.lds_dma and not instr.op.startswith(LANE_PERMUTES)


def unrolled(n: int, loops: list[range]) -> list[int]:
    """Stream indices with every loop body walked twice (the second trip sees the first trip's
    loads and waits), so a write left pending at a barrier near the loop's end is followed into
    the next barrier epoch."""
    out, pos = [], 0
    for body in sorted(loops, key=lambda r: r.start):
        end = body.stop + 1                     # the backward branch itself
        out += list(range(pos, end)) + list(range(body.start, end))
        pos = end
    return out + list(range(pos, n))


def _pending_lds_at_barriers(instrs: list[Instr], target: Target, order: list[int],
                             threads: int | None = None):
    """Walk ``order`` (stream indices) with the in-order counter model of ``register_violations``
    and the register intervals of ``lds_ranges.Ranges``; yield (position, kind, pending, bytes)
    with kind "barrier" at each s_barrier and "read" at each LDS read, ``pending`` mapping the
    position of each LDS write still in flight to (its byte range, whether it is an LDS-DMA) and
    ``bytes`` the read's byte range (None: unknown, any byte)."""
    ranges = Ranges(target, threads)
    vm: list[tuple[int, bool, tuple]] = []
    lg: list[tuple[int, bool, bool, tuple]] = []
    for pos, idx in enumerate(order):
        ins = instrs[idx]
        e = effects(target, ins)
        if e.waitcnt:
            vm, lg = _after_wait(ins, vm, lg, smem_at=1)
            continue
        pending = {p: (r, True) for p, w, r in vm if w} | {p: (r, False) for p, _, w, r in lg if w}
        rng = ranges.access(ins) if e.lds else None
        if e.barrier:
            yield pos, "barrier", pending, None
        elif _lds_read(target, ins):
            yield pos, "read", pending, rng
        if e.counter == "vm":
            vm.append((pos, e.lds_dma, rng))
        elif e.counter == "lgkm":
            lg.append((pos, e.smem, e.lds_store and not e.lds_dma, rng))
        ranges.step(ins)


def published_read(instrs: list[Instr], target: Target, deleted: int, loops: list[range],
                   threads: int | None = None) -> tuple[int, bool] | None:
    """Deleting the wait at ``deleted`` leaves LDS writes pending at an s_barrier that the
    unmutated stream publishes there: the first LDS read (same stream, so any wave can reach it
    after the barrier) of bytes such a write may still be writing, as (its position in the
    mutated walk ``[j for j in unrolled(...) if j != deleted]``, whether an LDS-DMA is among
    those writes), or None. The bytes are ``lds_ranges``' intervals
    over all lanes of the workgroup's ``threads`` work-items (None: unknown, every read may
    touch every write). When the writing wave itself retires the write (a later wait) before
    any LDS read of its bytes, e.g. a prefetch buffer read two barriers later (3 LDS buffers
    rotating, attention's K/V and the gfx950 fp8 TN pgr2 GEMM), the write was published in time
    and the site is not provably harmful: no site."""
    order = unrolled(len(instrs), loops)
    # barriers (by stream index: positions shift in the mutated walk) where the unmutated stream
    # already has LDS writes pending; it passes, so those are not this mutation's doing
    already = {order[pos] for pos, kind, pend, _ in
               _pending_lds_at_barriers(instrs, target, order, threads)
               if kind == "barrier" and pend}
    mut_order = [j for j in order if j != deleted]
    tracked: dict[int, tuple] = {}
    for pos, kind, pend, rng in _pending_lds_at_barriers(instrs, target, mut_order, threads):
        if kind == "barrier" and pend and mut_order[pos] not in already:
            tracked |= pend
        elif kind == "read":
            hit = [dma for p, (w, dma) in tracked.items() if p in pend and overlap(w, rng)]
            if hit:
                return pos, any(hit)
        # writes retired by a wait since the last event drop out
        tracked = {p: v for p, v in tracked.items() if p in pend}
    return None


def publish_matters(instrs: list[Instr], target: Target, deleted: int, loops: list[range],
                    threads: int | None = None) -> bool:
    """Does deleting the wait at ``deleted`` let an LDS read see an unpublished write
    (``published_read``)?"""
    return published_read(instrs, target, deleted, loops, threads) is not None
