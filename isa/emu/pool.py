"""The stepper: interleaves the waves of one or several workgroups one instruction at a time.

A pool runs up to ``capacity`` workgroups at once, each its own ``Machine`` (isa.emu.machine: LDS
and its race detector, barrier epochs, global-write claims, step count), all of their waves in
one set of stacked register files (isa.emu.group) and one async clock (isa.emu.pending.Clock).
When a workgroup ends, the next one of the launch takes its wave slots. Workgroups of a launch are
unordered on hardware, so running them side by side is one of the orders the hardware allows;
global write races between them are found as before (isa.emu.global_sync records every write
with its wave, whenever it is issued, and orders them by the launch's release/acquire pairs).

Each step: land the async results whose time has come, pick a runnable wave of the pool at random
(seeded), run the generic checks on its next instruction (register budget, pending registers,
hazard wait states), call the bound handler, advance the pc. The waves of the pool at the picked
wave's pc usually step with it (``split``: the probability it steps alone); an instruction with a
group binding then runs once for all of them as one NumPy operation, any other one wave after the
other, every check per wave either way and in the wave's own machine. ``s_barrier`` parks a wave
until every live wave of its workgroup is parked (cdna-facts section 4), then those go on in a new
barrier epoch of that workgroup. A pool of one machine draws the same random numbers in the same
order as the one-workgroup stepper did before pools existed.
"""
from __future__ import annotations

import gc
from collections.abc import Callable

from . import hazard_check, lds_pool, pending
from .errors import BarrierDeadlockError, EmulatorError, RegisterBudgetError
from .group import WaveGroup, WorkgroupFiles
from .machine import Machine, _budget_msg
from .trace import record as trace_record

# How many workgroups a launch runs at once (chosen by ``capacity``): enough waves that a group
# step's NumPy call covers many of them, few enough that the per-step scan of the runnable waves
# stays cheap, and within a memory bound (128 KiB of VGPR+AGPR per wave, the LDS and its race
# detector per workgroup).
POOL_WAVES = 256
POOL_BYTES = 192 << 20
# While a pool steps, the cyclic collector is paused (``Pool.run``); every this many retired
# workgroups one full collection frees their machines (each holds its LDS and race detector,
# tens of KiB, in a reference cycle with its waves), so a launch of thousands of workgroups
# stays within memory.
GC_EVERY = 128


def capacity(n_workgroups: int, n_waves: int, lds_bytes: int) -> int:
    """Workgroups to run side by side for a launch of ``n_workgroups`` of ``n_waves`` waves each."""
    per_wg = n_waves * (2 * 256 * 64 * 4 + 600) + 4 * max(lds_bytes, 4)
    return max(1, min(n_workgroups, POOL_WAVES // max(n_waves, 1), POOL_BYTES // per_wg))


class Pool:
    """Workgroups in flight: their machines, the stacked files of their waves, one clock."""

    def __init__(self, make: Callable[[int], Machine], n_machines: int, cap: int, n_waves: int,
                 on_done: Callable[[Machine], None] | None = None) -> None:
        self.make = make
        self.n_machines = n_machines
        self.on_done = on_done
        self.n_waves = n_waves
        self.live: list[Machine] = []
        self.next_index = 0
        self.clock = pending.Clock()
        self.files = None
        self.free: list[int] = []
        self._dirty = True
        self.group_steps = 0
        self.mixed_steps = 0        # group steps whose members came from several workgroups
        self.peak = 0               # most workgroups in flight at once
        self.retired = 0            # workgroups ended so far
        self.gc_at = GC_EVERY       # ... when the next paused-collector pass runs (``run``)
        self.runnable: list = []    # the runnable waves (``_refresh``) and their WaveGroup
        # may two waves of the pool run in different float modes (set by ``_admit`` and s_setreg
        # of MODE, isa.emu.salu_extra)? Until then a group step need not compare them
        self.modes_may_differ = False
        self.mode0 = None
        self._all_group = None
        first = self._admit(None, cap)
        self.program = first.program
        self.entries = first.entries
        self.rng = first.rng
        self.split = first.split
        self.step_limit = first.step_limit
        self.trace = first.trace
        self.check_hazards = first.check_hazards
        self.over = first._over_budget()
        for _ in range(1, cap):
            if self.next_index >= n_machines:
                break
            self._admit(self.free.pop(0))

    @classmethod
    def single(cls, m: Machine) -> Pool:
        """A pool of the one machine ``m`` (its own files)."""
        return cls(lambda _i: m, 1, 1, len(m.waves))

    def _admit(self, block: int | None, cap: int = 1) -> Machine:
        m = self.make(self.next_index)
        self.next_index += 1
        m.clock = self.clock
        m.sched = self
        if block is None:
            if m.files is not None and cap == 1:
                self.files = m.files           # a lone machine keeps its own files
            else:
                self.files = WorkgroupFiles(m.waves, cap * self.n_waves)
                self.free = list(range(1, cap))
        else:
            self.files.place(m.waves, block * self.n_waves)
        for w in m.waves:
            if self.mode0 is None:
                self.mode0 = w.fp_mode
            elif w.fp_mode != self.mode0:
                self.modes_may_differ = True
        m.pool_block = 0 if block is None else block
        if block is None:           # the race detectors of the workgroups in flight: one array
            self.lds_rows = lds_pool.Rows(cap, len(m.lds.w_wave)) if cap > 1 else None
        if self.lds_rows is not None:
            lds_pool.adopt(m.lds, self.lds_rows, m.pool_block)
        m.files = self.files
        self.live.append(m)
        self.peak = max(self.peak, len(self.live))
        return m

    # stepping -----------------------------------------------------------------------------
    def _refresh(self) -> list:
        """The runnable waves of the pool; retires finished workgroups and admits the next ones."""
        if any(m.finished() for m in self.live):
            keep = []
            n_done = 0
            for m in self.live:
                if m.finished():
                    n_done += 1
                    self.free.append(m.pool_block)
                    if self.on_done is not None:
                        self.on_done(m)
                else:
                    keep.append(m)
            self.live = keep
            self.retired += n_done
            if self.retired >= self.gc_at:
                self.gc_at = self.retired + GC_EVERY
                if not gc.isenabled():
                    gc.collect()
            while self.free and self.next_index < self.n_machines:
                self._admit(self.free.pop(0))
        runnable = [w for m in self.live for w in m.waves if not w.done and not w.at_barrier]
        if not runnable and self.live:
            m = self.live[0]
            stuck = [w for w in m.waves if not w.done]
            raise m.error(BarrierDeadlockError,
                          f"waves {[w.wave_id for w in stuck]} wait at s_barrier and no "
                          f"live wave can arrive", stuck[0])
        return runnable

    def run(self) -> None:
        """Step until every workgroup of the launch ended, the cyclic garbage collector paused.

        A step allocates a few short-lived objects (async ops, their closures, history tuples)
        that reference counting frees, but every ~700 of them start a collection, and each
        collection of the old generation rescans every object the process holds (spec tables,
        decode caches, the launch's programs): 5-10 % of the CPU time of a pooled GEMM launch
        (benchmarks/emu_speed.py gemm, gemm_wg). The collector is paused while stepping and
        restored after (an error included); what the launch leaves in reference cycles (a
        retired workgroup's machine and its waves) is collected every ``GC_EVERY`` retired
        workgroups and by the collector's next pass after the run. Speed only: no check depends
        on it."""
        if not gc.isenabled():
            return self._run()
        gc.disable()
        try:
            self._run()
        finally:
            gc.enable()

    def _run(self) -> None:
        entries = self.entries
        n_entries = len(entries)
        rnd = self.rng.random
        clock = self.clock
        heap = clock.heap
        limit = self.step_limit
        check_hz = self.check_hazards
        trace = self.trace
        over = self.over
        split = self.split
        runnable: list = []
        n_run = 0
        lock = False        # every runnable wave at one pc: the last step moved them all as one
        while True:
            if self._dirty:
                self._dirty = False
                runnable = self.runnable = self._refresh()
                self._all_group = None
                lock = False
                n_run = len(runnable)
                if not n_run:
                    break
            now = clock.now = clock.now + 1
            if heap and heap[0][0] <= now:
                pending.land_due(clock)
            w = runnable[int(rnd() * n_run)] if n_run > 1 else runnable[0]
            pc = w.pc
            m = w.mach
            if not 0 <= pc < n_entries:
                raise m.error(EmulatorError, f"pc {pc} is outside the program (0..{n_entries - 1}); "
                              "missing s_endpgm?", w, pc=pc)
            e = entries[pc]
            if n_run > 1:
                # the waves at the picked wave's pc (all of them, without a scan, in lockstep)
                members = runnable if lock else [o for o in runnable if o.pc == pc]
                if len(members) > 1 and rnd() >= split:
                    if len(members) == n_run:
                        members = runnable      # every runnable wave: its WaveGroup is kept
                    lock = self._group_step(members, e, over[pc], check_hz, trace)
                    continue
                lock = False
            self._step_one(m, w, e, over[pc], check_hz, trace)
            if m.steps > limit:
                m._limit_error(w, pc)

    def _step_one(self, m: Machine, w, e, over: bool, check_hz: bool, trace) -> None:
        """One wave runs its instruction ``e``: the generic checks, the bound handler, the pc."""
        pc = e.pc
        if over:
            raise m.error(RegisterBudgetError, _budget_msg(e, w), w)
        if w.pending_regs and not w.pending_regs.keys().isdisjoint(e.rw_set):
            m._check_pending(w, e)
        if check_hz:
            w.hz = hazard_check.issue(m, w, e, w.hz)
        if trace is not None:
            trace_record(m, w, e)
        e.fn(m, w)
        if m._jump:
            m._jump = False
        elif w.pc == pc:
            w.pc = pc + 1
        m.steps += 1

    def _group_step(self, members: list, e, over: bool, check_hz: bool, trace) -> bool:
        """Every wave of ``members`` (all at ``e``'s pc) runs ``e`` in this one scheduling step.
        True when the members were every runnable wave and all went on to the next pc together
        (the next step's members are then all runnable waves again, ``_run`` needs no scan).

        With a group binding (isa.emu.group) the per-wave checks run for each member, in member
        order, as if they stepped one after the other, and the instruction runs once for all of
        them as one NumPy operation; otherwise the members step one after the other. Either way
        a member whose hazard state is the last checked member's (the same object, as waves in
        lockstep hold, or an equal one) takes that member's next state without a walk: the check
        is a function of the state and the instruction (isa.emu.hazard_check.issue). With allowed
        hazard rules (counted per occurrence) every member is walked."""
        gfn = None
        limit = self.step_limit
        if e.group_ok:
            gfn = e.gfn if e.gfn is not None else self.program.group_fn(e, len(members))
            if gfn is not None and e.fp_mode_read and self.modes_may_differ:
                mode = members[0].fp_mode
                if any(w.fp_mode != mode for w in members):
                    gfn = None      # waves in different float modes (s_setreg MODE) step per wave
            if trace is not None and gfn is not None and getattr(gfn, "trace_per_wave", False):
                gfn = None          # its trace record is annotated per wave (LDS bank conflicts)
        rw = e.rw_set
        share = check_hz and not getattr(members[0].mach, "allow_hazards", None)
        issue = hazard_check.issue
        old = new = None
        if gfn is None:
            # the members' order is part of the seeded interleaving: a random rotation (any wave
            # may go first; full shuffles cost more than the instruction). Each member steps as
            # ``_step_one`` steps it (the same checks, in the same order), inlined: this loop runs
            # every instruction without a group binding (buffer ops, per-wave VALU forms).
            k = int(self.rng.random() * len(members))
            pc = e.pc
            fn = e.fn
            for w in members[k:] + members[:k]:
                m = w.mach
                if over:
                    raise m.error(RegisterBudgetError, _budget_msg(e, w), w)
                pend = w.pending_regs
                if pend and not pend.keys().isdisjoint(rw):
                    m._check_pending(w, e)
                if check_hz:
                    st = w.hz
                    if share and (st is old or st == old):
                        w.hz = new
                    else:
                        old = st
                        w.hz = new = issue(m, w, e, st)
                if trace is not None:
                    trace_record(m, w, e)
                fn(m, w)
                if m._jump:
                    m._jump = False
                elif w.pc == pc:
                    w.pc = pc + 1
                m.steps += 1
                if m.steps > limit:
                    m._limit_error(w, pc)
            return False
        if trace is not None:
            k = int(self.rng.random() * len(members))
            members = members[k:] + members[:k]
        if over:
            w = members[0]
            raise w.mach.error(RegisterBudgetError, _budget_msg(e, w), w)
        if check_hz or rw or trace is not None:
            for w in members:
                pend = w.pending_regs
                if pend and not pend.keys().isdisjoint(rw):
                    w.mach._check_pending(w, e)
                if check_hz:
                    st = w.hz
                    if share and (st is old or st == old):
                        w.hz = new
                    else:
                        old = st
                        w.hz = new = issue(w.mach, w, e, st)
                if trace is not None:
                    trace_record(w.mach, w, e)
        m0 = members[0].mach
        moved = gfn(m0, self._wave_group(members))
        pc0 = e.pc
        if not moved:
            pc1 = pc0 + 1
            for w in members:
                w.pc = pc1
        n = len(members)
        last = members[-1].mach
        if last is m0 and trace is None and m0.steps + n <= limit:
            m0.steps += n       # members in the runnable list's (machine) order: all of m0
        else:
            for w in members:
                m = w.mach
                m.steps += 1
                if m.steps > limit:
                    m._limit_error(w, pc0)
        m0.group_steps += 1
        self.group_steps += 1
        if last is not m0:
            self.mixed_steps += 1
        return not moved and members is self.runnable and not self._dirty

    def _wave_group(self, members: list) -> WaveGroup:
        """The WaveGroup of ``members``; the one of all runnable waves (the lockstep case) is made
        once per runnable list."""
        if members is self.runnable:
            g = self._all_group
            if g is None:
                g = self._all_group = WaveGroup(self.files, members)
            return g
        return WaveGroup(self.files, members)
