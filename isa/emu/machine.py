"""The workgroup stepper: interleaves the waves of one workgroup one instruction at a time.

Each step: land the async results whose time has come, pick a runnable wave at random (seeded),
run the generic checks on its next instruction (register budget, pending registers, hazard wait
states), call the bound handler, advance the pc. The waves of the workgroup at the picked wave's pc
usually step with it (``split``: the probability it steps alone); an instruction with a group
binding then runs once for all of them as one NumPy operation (isa.emu.group), any other one wave
after the other, every check per wave either way. ``s_barrier`` parks a wave until every live wave
of the workgroup is parked (cdna-facts section 4: the barrier counts live waves), then all go on
in a new barrier epoch. The machine ends when every wave executed ``s_endpgm``.
"""
from __future__ import annotations

import random

from . import hazard_check, pending
from .errors import (
    BarrierDeadlockError,
    EmulatorError,
    GlobalRaceError,
    PendingOverwriteError,
    PendingReadError,
    RegisterBudgetError,
    StepLimitError,
)
from .group import WaveGroup, WorkgroupFiles
from .lds import Lds
from .program import Program, key_name
from .state import Wave
from .trace import record as trace_record


class Machine:
    """One workgroup in flight: its waves, LDS, the async queue and the scheduler's RNG."""

    def __init__(self, program: Program, waves: list[Wave], memory, lds_bytes: int, *,
                 rng: random.Random, wg_id: tuple = (0, 0, 0), step_limit: int = 10_000_000,
                 trace: list | None = None, check_hazards: bool = True,
                 latency: tuple[int, int, int] = (64, 16, 16), split: float = 0.125) -> None:
        self.program = program
        self.arch = program.arch
        self.entries = program.entries
        self.waves = waves
        self.mem = memory
        self.lds = Lds(lds_bytes, len(waves))
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
        self.now = 0
        self.seq = 0
        self.heap: list = []
        self.epoch = 0
        self.steps = 0
        self._runnable: list[Wave] = []
        self._dirty = True
        self._jump = False
        self.wg_index = None        # set by launch when global write races are checked
        self.wg_names: list = []
        # the waves' register files as one array each, so waves at one pc can step together
        self.files = WorkgroupFiles(waves)
        self.group_steps = 0        # group steps taken (each ran >= 2 waves' instruction at once)

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
        """An error of class ``cls`` located at wave ``w``'s current instruction (or ``pc``)."""
        if pc is None and w is not None:
            pc = w.pc
        if instr is None and pc is not None and 0 <= pc < len(self.entries):
            instr = self.entries[pc].instr
        return cls(what, pc=pc, instr=instr, wave=None if w is None else w.wave_id,
                   workgroup=self.wg_id)

    def claim_global_writes(self, w: Wave, loc, nbytes: int) -> None:
        """Global stores: two workgroups of a launch writing one byte is a GlobalRaceError."""
        if self.wg_index is None or loc is None:
            return
        hit = self.mem.claim_writes(loc, nbytes, self.wg_index)
        if hit is not None:
            off, k, other = hit
            raise self.error(GlobalRaceError,
                             f"global write race: byte {off} of {self.mem.names[k]} (address "
                             f"{self.mem.bases[k] + off:#x}) is written by workgroup {self.wg_id} and "
                             f"by workgroup {self.wg_names[other]} of the same launch (workgroups are "
                             f"not ordered)", w)

    def issue(self, w: Wave, op: pending.AsyncOp) -> None:
        pending.issue(self, w, op, 1 + int(self._rnd() * self.latency[op.kind]))

    def reschedule(self) -> None:
        self._dirty = True

    # barrier / end ------------------------------------------------------------------------
    def arrive_barrier(self, w: Wave) -> None:
        w.at_barrier = True
        self._dirty = True
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
        self._dirty = True
        self.try_release()

    def try_release(self) -> None:
        live = [w for w in self.waves if not w.done]
        if live and all(w.at_barrier for w in live):
            self.epoch += 1
            self.lds.new_epoch()
            for w in live:
                w.at_barrier = False
                w.epoch = self.epoch
            for w in live:
                pending.retouch_uncovered(self, w)
            self._dirty = True

    # stepping -----------------------------------------------------------------------------
    def run(self) -> None:
        entries = self.entries
        n_entries = len(entries)
        rnd = self.rng.random
        heap = self.heap
        limit = self.step_limit
        check_hz = self.check_hazards
        trace = self.trace
        runnable = self._runnable
        over = self._over_budget()
        waves = self.waves
        split = self.split
        while True:
            if self._dirty:
                runnable = self._runnable = [w for w in waves if not w.done and not w.at_barrier]
                self._dirty = False
                n_run = len(runnable)
                if not n_run:
                    if all(w.done for w in waves):
                        break
                    stuck = [w for w in waves if not w.done]
                    raise self.error(BarrierDeadlockError,
                                     f"waves {[w.wave_id for w in stuck]} wait at s_barrier and no "
                                     f"live wave can arrive", stuck[0])
            now = self.now = self.now + 1
            if heap and heap[0][0] <= now:
                pending.land_due(self)
            w = runnable[int(rnd() * n_run)] if n_run > 1 else runnable[0]
            pc = w.pc
            if not 0 <= pc < n_entries:
                raise self.error(EmulatorError, f"pc {pc} is outside the program (0..{n_entries - 1}); "
                                 "missing s_endpgm?", w, pc=pc)
            e = entries[pc]
            if n_run > 1:
                members = [o for o in runnable if o.pc == pc]
                if len(members) > 1 and rnd() >= split:
                    self._group_step(members, e, over[pc], check_hz, trace)
                    if self.steps > limit:
                        self._limit_error(w, pc)
                    continue
            self._step_one(w, e, over[pc], check_hz, trace)
            if self.steps > limit:
                self._limit_error(w, pc)

    def _step_one(self, w: Wave, e, over: bool, check_hz: bool, trace) -> None:
        """One wave runs its instruction ``e``: the generic checks, the bound handler, the pc."""
        pc = e.pc
        if over:
            raise self.error(RegisterBudgetError, _budget_msg(e, w), w)
        if w.pending_regs and not w.pending_regs.keys().isdisjoint(e.rw_set):
            self._check_pending(w, e)
        if check_hz and e.hz_cons and w.hazard_hist:
            hazard_check.check(self, w, e)
        if trace is not None:
            trace_record(self, w, e)
        e.fn(self, w)
        if self._jump:
            self._jump = False
        elif w.pc == pc:
            w.pc = pc + 1
        w.ws_clock += e.ws
        if check_hz and e.hz_prod:
            clk = w.ws_clock
            w.hazard_hist.append((clk + e.hz_max, clk, e))
        self.steps += 1

    def _group_step(self, members: list, e, over: bool, check_hz: bool, trace) -> None:
        """Every wave of ``members`` (all at ``e``'s pc) runs ``e`` in this one scheduling step.

        With a group binding (isa.emu.group) the per-wave checks run for each member, in member
        order, as if they stepped one after the other, and the instruction runs once for all of
        them as one NumPy operation; otherwise the members step one after the other."""
        gfn = None
        if e.group_ok:
            gfn = e.gfn if e.gfn is not None else self.program.group_fn(e)
            mode = members[0].fp_mode
            if gfn is not None and any(w.fp_mode != mode for w in members):
                gfn = None          # waves in different float modes (s_setreg MODE) step per wave
        if gfn is None:
            # the members' order is part of the seeded interleaving: a random rotation (any wave
            # may go first; full shuffles cost more than the instruction)
            k = int(self._rnd() * len(members))
            for w in members[k:] + members[:k]:
                self._step_one(w, e, over, check_hz, trace)
            return
        if trace is not None:
            k = int(self._rnd() * len(members))
            members = members[k:] + members[:k]
        for w in members:
            if over:
                raise self.error(RegisterBudgetError, _budget_msg(e, w), w)
            if w.pending_regs and not w.pending_regs.keys().isdisjoint(e.rw_set):
                self._check_pending(w, e)
            if check_hz and e.hz_cons and w.hazard_hist:
                hazard_check.check(self, w, e)
            if trace is not None:
                trace_record(self, w, e)
        gfn(self, WaveGroup(self.files, members))
        pc1 = e.pc + 1
        ws = e.ws
        prod = check_hz and e.hz_prod
        for w in members:
            w.pc = pc1
            w.ws_clock += ws
            if prod:
                clk = w.ws_clock
                w.hazard_hist.append((clk + e.hz_max, clk, e))
        self.steps += len(members)
        self.group_steps += 1

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
