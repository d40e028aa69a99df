"""Asynchronous memory results: the queue of in-flight operations, landing, and s_waitcnt coverage.

Model (docs/design.md "Correctness without hardware", cdna-facts section 4):
- Every VMEM / LDS / SMEM instruction becomes an ``AsyncOp`` at issue. Addresses and store data
  are read at issue; the memory side (load data read, store data written) happens when the op
  *lands*, at a seeded random later step. Choice documented: loads read memory at landing time,
  which is closest to hardware (the data is fetched some time after issue) and lets a race with
  another wave's store show up as a wrong value rather than being hidden.
- Landing order: VMEM ops of one wave land in issue order (vmcnt counts them in order), LDS ops of
  one wave land in issue order, SMEM ops land in any order (SIInsertWaitcnts: "SMEM can return out
  of order").
- A register written by an op is *pending* from issue until an ``s_waitcnt`` covers the op, even if
  the op already landed: reading or overwriting it before is an error, so a missing wait never
  passes by luck. Coverage: vmcnt(N) covers all but the N most recent VMEM ops; lgkmcnt(N) covers
  an LDS op once N or more LDS ops were issued after it, and covers SMEM ops only when N == 0
  (with SMEM outstanding only lgkmcnt(0) is safe).
- LDS bytes: a wave's own ds_write followed by its ds_read of the same bytes needs no wait (LDS
  ops of one wave execute in order, and LLVM relies on it); a ds_read of bytes its own LDS-DMA
  (vmcnt) still writes is an error, and accesses by other waves follow the barrier race rule
  (isa.emu.lds).
"""
from __future__ import annotations

import heapq

VM, LDS, SMEM = 0, 1, 2
KIND_NAME = ("vmem", "lds", "smem")


class Clock:
    """The scheduler's step counter, the op sequence number and the heap of ops by landing time;
    one per pool of machines (isa.emu.pool), so ops of every workgroup in flight land in one order."""

    __slots__ = ("heap", "now", "seq")

    def __init__(self) -> None:
        self.now = 0
        self.seq = 0
        self.heap: list = []


class AsyncOp:
    """One in-flight memory operation of a wave."""

    __slots__ = (
        "apply",
        "dma",
        "epoch",
        "instr",
        "kind",
        "land_time",
        "landed",
        "lds_dw",
        "lds_write",
        "group",
        "mach",
        "pc",
        "regs",
        "seq",
        "wave",
    )

    def __init__(self, wave, kind: int, regs: tuple, apply, pc: int, instr,
                 lds_dw=None, lds_write=False, dma: bool = False) -> None:
        self.wave = wave
        self.kind = kind
        self.regs = regs            # register keys (isa.emu.program.reg_keys) written at landing
        self.apply = apply          # callable() doing the memory side at landing, or None
        self.landed = False
        self.land_time = 0
        self.lds_dw = lds_dw        # int64 LDS dword indices touched (flat, may repeat), or None
        self.lds_write = lds_write  # False, True, or "atomic"
        self.dma = dma              # LDS-DMA: LDS bytes written under vmcnt
        self.pc = pc
        self.instr = instr
        self.seq = 0
        self.epoch = -1             # barrier epoch of the last race-detector record
        self.mach = None            # the issuing wave's machine (its LDS, epoch), set at issue
        self.group = None           # the ``Record`` it lands with (a group step's part), or None


def issue(m, w, op: AsyncOp, latency: int, touch: bool = True) -> None:
    """Queue ``op`` for wave ``w``: pending registers, queue position, landing time; and the LDS
    race detector's record of it, unless the caller makes that record (``touch`` False:
    isa.emu.mem_lds_group's batched reads, ``Lds.touch_reads``)."""
    c = m.clock
    c.seq += 1
    op.seq = c.seq
    op.mach = m
    t = c.now + latency
    if op.kind == VM:
        q = w.vm_queue
        if q:
            t = max(t, q[-1].land_time)   # in order
    else:
        q = w.lgkm_queue
        if op.kind == LDS:
            for prev in reversed(q):
                if prev.kind == LDS:
                    t = max(t, prev.land_time)
                    break
    op.land_time = t
    q.append(op)
    pend = w.pending_regs
    for k in op.regs:
        pend[k] = op
    if touch and op.lds_dw is not None and m.lds.multi:
        m.lds.touch(m, op)
    heapq.heappush(c.heap, (t, op.seq, op))


class Record:
    """One landing for the ops a group step issued for its members (isa.emu.mem_buffer_group,
    isa.emu.mem_lds_group): each member still gets its own ``AsyncOp`` (a *part*: its own
    sequence number, its place in its own queue, its pending registers, its LDS dwords for the
    race detector), issued in member order with ``add``; ``push`` gives every part one landing
    time, at least every member's last landing of the same order (a wave's VMEM ops land in issue
    order, and its LDS ops), and puts one heap entry for all of them. The record lands as a whole,
    with one ``apply`` for every member's memory side: when the heap's time comes, or earlier when
    one member's s_waitcnt (or s_endpgm) lands its part; then each member's older ops of the same
    order land first, so every wave still sees its own ops complete in issue order. Landing an op
    before its drawn time is one of the orders the hardware allows (any time between issue and
    the wait that covers it), so members landing together is one seeded interleaving among those
    per-wave ops reach; the pending registers stay pending in each wave until its own wait."""

    __slots__ = ("apply", "group", "kind", "land_time", "landed", "mach", "parts", "seq")

    def __init__(self, m, kind: int, apply, latency: int) -> None:
        self.mach = m
        self.kind = kind
        self.apply = apply          # callable() doing every member's memory side, or None
        self.parts: list = []
        self.landed = False
        self.land_time = m.clock.now + latency
        self.seq = 0
        self.group = self           # ``land`` of the record (from the heap) or of a part alike

    def add(self, w, op: AsyncOp) -> None:
        """Issue member ``w``'s part ``op`` (its ``apply`` is None: the record's does its work)."""
        c = self.mach.clock
        c.seq += 1
        op.seq = c.seq
        op.mach = w.mach
        op.group = self
        if not self.parts:
            self.seq = op.seq
        if op.kind == VM:
            q = w.vm_queue
            if q and q[-1].land_time > self.land_time:
                self.land_time = q[-1].land_time
        else:
            q = w.lgkm_queue
            for prev in reversed(q):
                if prev.kind == LDS:
                    if prev.land_time > self.land_time:
                        self.land_time = prev.land_time
                    break
        q.append(op)
        pend = w.pending_regs
        for k in op.regs:
            pend[k] = op
        self.parts.append(op)

    def push(self) -> None:
        """Every part issued: one landing time for all, one heap entry."""
        t = self.land_time
        for op in self.parts:
            op.land_time = t
        if self.parts:
            heapq.heappush(self.mach.clock.heap, (t, self.seq, self))


def _land_record(rec: Record, due: bool = False) -> None:
    """Land the record (``due``: popped from the heap at its time, when every member's older op
    of its order has landed already: their landing times are at most the record's and their
    heap keys (time, seq) come first, as the record's parts took consecutive sequence numbers)."""
    if rec.landed:
        return
    rec.landed = True
    for op in () if due else rec.parts:
        # the member's older ops of the same order first (VMEM: all; lgkm: the LDS ops, SMEM
        # returns out of order); its queue is in issue order, so they have lower sequence numbers
        kind = op.kind
        for o in (op.wave.vm_queue if kind == VM else op.wave.lgkm_queue):
            if o.seq >= op.seq:
                break
            if not o.landed and o.kind == kind:
                land(o.mach, o)
    for op in rec.parts:
        op.landed = True
        mm = op.mach
        if op.lds_dw is not None and op.epoch != mm.epoch and mm.lds.multi:
            mm.lds.touch(mm, op)    # a barrier released since issue: the access counts after it too
    if rec.apply is not None:
        rec.apply()
    # A landed record keeps nothing alive: its self reference (``group``, by which the heap tells a
    # record from an op) and its parts (which point back at it) are reference cycles, and the pool
    # pauses the cyclic collector (isa.emu.pool.Pool.run), so a kept cycle held every landed
    # record's arrays (LDS dword indices, buffer offsets, store data) until the next collection:
    # memory grew with the steps of a launch (0.4 GB more at K 4096 than at 512, 16 workgroups).
    # A part still names its record (``op.group``): landing it again returns at ``landed``.
    rec.group = None
    rec.parts = ()
    rec.apply = None


def land(m, op) -> None:
    """Land ``op`` (an AsyncOp, or a ``Record`` from the heap): its memory side happens now."""
    if op.landed:
        return
    if op.group is not None:
        return _land_record(op.group)
    op.landed = True
    if op.lds_dw is not None and op.epoch != m.epoch and m.lds.multi:
        m.lds.touch(m, op)      # a barrier released since issue: the access counts after it too
    if op.apply is not None:
        op.apply()


def land_due(clock: Clock) -> None:
    """Land every queued op whose time has come (each in its own wave's machine)."""
    heap = clock.heap
    now = clock.now
    while heap and heap[0][0] <= now:
        op = heapq.heappop(heap)[2]
        if op.group is op:
            _land_record(op, True)
        else:
            land(op.mach, op)


def _cover(m, w, op: AsyncOp) -> None:
    pend = w.pending_regs
    for k in op.regs:
        if pend.get(k) is op:
            del pend[k]
    if op.dma:
        m.lds.dma_done(w, op)


def waitcnt(m, w, vm: int | None, lgkm: int | None) -> None:
    """s_waitcnt: land ops until the counters are <= the values, then cover what is guaranteed."""
    if vm is not None and len(w.vm_queue) > vm:
        q = w.vm_queue
        n = len(q) - vm
        w.vm_queue = q[n:]
        pend = w.pending_regs
        for op in q[:n]:
            if not op.landed:
                land(m, op)
            for k in op.regs:           # ``_cover`` inlined (this loop runs every vmcnt wait)
                if pend.get(k) is op:
                    del pend[k]
            if op.dma:
                m.lds.dma_done(w, op)
    if lgkm is not None and w.lgkm_queue:
        q = w.lgkm_queue
        if all(op.kind == LDS for op in q):
            _wait_lds(m, w, q, lgkm)
        else:
            _wait_lgkm(m, w, q, lgkm)


def _wait_lgkm(m, w, q: list, lgkm: int) -> None:
    """``waitcnt``'s lgkmcnt part: land ops until ``lgkm`` are outstanding (any SMEM op or the
    oldest LDS op may complete next: a seeded choice), then cover what the count guarantees."""
    outstanding = [op for op in q if not op.landed]
    while len(outstanding) > lgkm:
        # Any SMEM op, or the oldest LDS op, may complete next.
        choices = [op for op in outstanding if op.kind == SMEM]
        first_lds = next((op for op in outstanding if op.kind != SMEM), None)
        if first_lds is not None:
            choices.append(first_lds)
        op = choices[m.rng.randrange(len(choices))] if len(choices) > 1 else choices[0]
        land(m, op)
        outstanding.remove(op)
    keep = []
    n_lds_after = 0
    for op in reversed(q):
        if op.kind == SMEM:
            covered = lgkm == 0
        else:
            covered = n_lds_after >= lgkm
            n_lds_after += 1
        if covered:
            _cover(m, w, op)
        else:
            keep.append(op)
    keep.reverse()
    w.lgkm_queue = keep


def _wait_lds(m, w, q: list, lgkm: int) -> None:
    """``waitcnt``'s lgkmcnt part when every queued op is an LDS op (no SMEM): the same steps
    without the general choice. LDS ops land in issue order, so the oldest outstanding ops land
    until ``lgkm`` are left (one choice each: no random draw, as there); then every op but the
    ``lgkm`` newest is covered, newest first."""
    n_out = 0
    for op in q:
        if not op.landed:
            n_out += 1
    if n_out > lgkm:
        n = n_out - lgkm
        for op in q:
            if not op.landed:
                land(m, op)
                n -= 1
                if not n:
                    break
    if len(q) <= lgkm:
        return
    if lgkm:
        w.lgkm_queue = q[-lgkm:]
        done = q[:-lgkm]
    else:
        w.lgkm_queue = []
        done = q
    for op in reversed(done):
        _cover(m, w, op)


def drain(m, w) -> None:
    """At s_endpgm: everything the wave issued lands (stores in flight complete on hardware)."""
    vm, lgkm = w.vm_queue, w.lgkm_queue
    w.vm_queue, w.lgkm_queue = [], []
    for op in vm:
        land(m, op)
        _cover(m, w, op)
    for op in lgkm:
        land(m, op)
        _cover(m, w, op)


def retouch_uncovered(m, w) -> None:
    """After a barrier release: LDS accesses of ``w`` not yet covered by a wait may still be in
    flight on hardware, so they count as accesses in the new barrier epoch too."""
    for q in (w.vm_queue, w.lgkm_queue):
        for op in q:
            if op.lds_dw is not None and op.landed and op.epoch != m.epoch:
                m.lds.touch(m, op)
