"""One workgroup in flight: its waves, LDS, barrier epochs, global-write claims and step count.

The stepping loop is isa.emu.pool's (a pool runs one or several workgroups side by side); the
machine holds what is per workgroup and what handlers call: ``error`` (located at a wave's
instruction, in that wave's workgroup), ``issue`` (an async op, isa.emu.pending), ``label_index``,
``claim_global_writes``, ``arrive_barrier`` / ``end_wave``. ``s_barrier`` parks a wave until every
live wave of the workgroup is parked (cdna-facts section 4: the barrier counts live waves), then
all go on in a new barrier epoch. The workgroup ends when every wave executed ``s_endpgm``.
"""
from __future__ import annotations

import random

from . import global_sync, hazard_check, pending
from .errors import (
    BarrierDeadlockError,
    EmulatorError,
    PendingOverwriteError,
    PendingReadError,
    StepLimitError,
)
from .group import WorkgroupFiles
from .lds import Lds
from .pending import Clock
from .program import Program, key_name
from .state import Wave


class Machine:
    """One workgroup in flight: its waves, LDS, the async queue and the scheduler's RNG."""

    def __init__(self, program: Program, waves: list[Wave], memory, lds_bytes: int, *,
                 rng: random.Random, wg_id: tuple = (0, 0, 0), step_limit: int = 10_000_000,
                 trace: list | None = None, check_hazards: bool = True,
                 latency: tuple[int, int, int] = (64, 16, 16), split: float = 0.125,
                 own_files: bool = True) -> None:
        self.program = program
        self.arch = program.arch
        self.entries = program.entries
        self.waves = waves
        self.mem = memory
        self.lds = Lds(lds_bytes, len(waves), self.arch)
        self.rng = rng
        self.wg_id = wg_id
        self.step_limit = step_limit
        self.trace = trace
        self.check_hazards = check_hazards and hazard_check.available()
        self.latency = latency        # max landing delay in steps for (vmem, lds, smem)
        # Scheduling: a random runnable wave is picked; with probability 1 - split every runnable
        # wave at its pc steps with it (a group step), else it steps alone (so waves also drift
        # apart and every interleaving stays reachable).
        self.split = split
        self._rnd = rng.random
        self.clock = Clock()        # shared by every machine of a pool (isa.emu.pool)
        self.sched = self           # whose ``_dirty`` flag asks for a new runnable list
        self.epoch = 0
        self.steps = 0
        self.sched._dirty = True
        self._jump = False
        self.wg_index = None        # set by launch when global write races are checked
        self.wg_names: list = []
        # the waves' register files as one array each, so waves at one pc can step together (a
        # pool gives its machines one set of files for all their waves instead)
        self.files = WorkgroupFiles(waves) if own_files else None
        self.group_steps = 0        # group steps taken (each ran >= 2 waves' instruction at once)
        for w in waves:
            w.mach = self

    @property
    def now(self) -> int:
        """The scheduler's step clock (s_memtime reads it)."""
        return self.clock.now

    # helpers for handlers ------------------------------------------------------------------
    def label_index(self, w: Wave, label) -> int:
        """Instruction index of ``label``; the caller jumps there (a jump to the same pc is a
        jump, not "pc unchanged", so ``L: s_branch L`` loops)."""
        self._jump = True
        try:
            return self.program.label_index(label)
        except EmulatorError as e:
            raise self.error(EmulatorError, e.what, w) from None

    def error(self, cls, what: str, w: Wave | None = None, pc: int | None = None,
              instr=None) -> EmulatorError:
        """An error of class ``cls`` located at wave ``w``'s current instruction (or ``pc``), in
        ``w``'s workgroup (a pool's group step may pass another member's machine)."""
        if w is not None and w.mach is not None and w.mach is not self:
            return w.mach.error(cls, what, w, pc, instr)
        if pc is None and w is not None:
            pc = w.pc
        if instr is None and pc is not None and 0 <= pc < len(self.entries):
            instr = self.entries[pc].instr
        return cls(what, pc=pc, instr=instr, wave=None if w is None else w.wave_id,
                   workgroup=self.wg_id)

    def claim_global_writes(self, w: Wave, loc, nbytes: int) -> None:
        """A global write of ``w``'s current instruction (issued right after): two workgroups of a
        launch writing one byte with no release -> acquire between them is a GlobalRaceError
        (isa.emu.global_sync)."""
        sync = global_sync.sync_of(self)
        if sync is not None and loc is not None:
            sync.write(self, w, self.entries[w.pc].instr, loc, nbytes)

    def issue(self, w: Wave, op: pending.AsyncOp, touch: bool = True) -> None:
        pending.issue(self, w, op, 1 + int(self._rnd() * self.latency[op.kind]), touch)

    def reschedule(self) -> None:
        self.sched._dirty = True

    def finished(self) -> bool:
        return all(w.done for w in self.waves)

    # barrier / end ------------------------------------------------------------------------
    def arrive_barrier(self, w: Wave) -> None:
        w.at_barrier = True
        self.sched._dirty = True
        self.try_release()
        if w.at_barrier:
            reach = self.program.reaches_sync()
            n = len(reach)
            for o in self.waves:
                if not o.done and not o.at_barrier and not (0 <= o.pc < n and reach[o.pc]):
                    raise self.error(
                        BarrierDeadlockError,
                        f"wave {w.wave_id} waits at s_barrier but wave {o.wave_id} (at pc {o.pc}) can "
                        f"reach neither s_barrier nor s_endpgm", w)

    def end_wave(self, w: Wave) -> None:
        pending.drain(self, w)
        w.done = True
        w.ended_at = self.steps
        self.sched._dirty = True
        self.try_release()

    def try_release(self) -> None:
        live = [w for w in self.waves if not w.done]
        if live and all(w.at_barrier for w in live):
            sync = global_sync.sync_of(self)
            if sync is not None:
                sync.barrier(self, live)
            self.epoch += 1
            self.lds.new_epoch()
            for w in live:
                w.at_barrier = False
                w.epoch = self.epoch
            for w in live:
                pending.retouch_uncovered(self, w)
            self.sched._dirty = True

    # stepping -----------------------------------------------------------------------------
    def _over_budget(self) -> list[bool]:
        """Per pc: does the instruction touch registers beyond the budget (same for all waves of a
        launch; waves with different budgets get the strictest)."""
        s = min(w.sgpr_budget for w in self.waves)
        v = min(w.vgpr_budget for w in self.waves)
        a = min(w.agpr_budget for w in self.waves)
        return [e.max_s >= s or e.max_v >= v or e.max_a >= a for e in self.entries]

    def _limit_error(self, w: Wave, pc: int) -> None:
        parked = [o.wave_id for o in self.waves if o.at_barrier]
        if parked:
            running = [o.wave_id for o in self.waves if not o.done and not o.at_barrier]
            raise self.error(BarrierDeadlockError,
                             f"waves {parked} wait at s_barrier and waves {running} did not arrive "
                             f"within the step limit of {self.step_limit}", w, pc=pc)
        raise self.error(StepLimitError, f"step limit {self.step_limit} exceeded", w, pc=pc)

    def _check_pending(self, w: Wave, e) -> None:
        pend = w.pending_regs
        in_order = _in_order_vmem_load(e.instr.op)
        tied = _d16_tied_only(e.instr) if in_order else ()
        for k in e.reads:
            op = pend.get(k)
            # a d16 load's tied vdst is merged at write-back, not read at issue (see below)
            if op is not None and not (k in tied and _in_order_after(op)):
                raise self.error(PendingReadError, _pending_msg("read of", k, op), w)
        for k in e.writes:
            op = pend.get(k)
            if op is not None and not (in_order and _in_order_after(op)):
                raise self.error(PendingOverwriteError, _pending_msg("overwrite of", k, op), w)


def _in_order_vmem_load(mnemonic: str) -> bool:
    """GLOBAL/MUBUF/SCRATCH loads write their VGPRs in issue order after earlier such loads
    (cdna-facts section 4: vector memory ops complete in order; LLVM SIInsertWaitcnts: "WAW needs
    an s_waitcnt unless the previous write and this write are the same type of VMEM instruction",
    hasVmemWriteVgprInOrder on gfx9). So such a load may target a VGPR an earlier one still
    writes, and a d16 load (which merges into its VGPR when its data returns) may follow a load
    into the same VGPR without a wait; LLVM 22 emits both. FLAT loads are excluded (they may hit
    LDS, which completes out of order with VMEM)."""
    return mnemonic.startswith(("global_load_", "buffer_load_", "scratch_load_")) and "_lds_" not in mnemonic


def _d16_tied_only(ins) -> frozenset:
    """Keys of a d16 load's vdst that are not also its address (those are read at issue)."""
    if "_d16" not in ins.op:
        return frozenset()
    from .regkeys import reg_keys
    others = {k for op in ins.operands[1:] for k in reg_keys(op)}
    return frozenset(k for k in reg_keys(ins.operands[0]) if k not in others)


def _in_order_after(op) -> bool:
    return op.kind == pending.VM and _in_order_vmem_load(op.instr.op)


def _pending_msg(what: str, k: int, op) -> str:
    hint = {pending.VM: "s_waitcnt vmcnt", pending.LDS: "s_waitcnt lgkmcnt",
            pending.SMEM: "s_waitcnt lgkmcnt(0): SMEM returns out of order"}[op.kind]
    return (f"{what} {key_name(k)} whose pending {pending.KIND_NAME[op.kind]} result from pc {op.pc} "
            f"'{op.instr}' has not been waited for ({hint})")


def _budget_msg(e, w: Wave) -> str:
    for f, mx, lim in (("s", e.max_s, w.sgpr_budget), ("v", e.max_v, w.vgpr_budget),
                       ("a", e.max_a, w.agpr_budget)):
        if mx >= lim:
            return (f"register {f}{mx} is beyond the kernel descriptor's budget of {lim} "
                    f"{ {'s': 'SGPRs', 'v': 'VGPRs', 'a': 'AGPRs'}[f] } ({f}0..{f}{lim - 1})")
    return "register budget exceeded"
