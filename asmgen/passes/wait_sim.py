"""Second, independent check of s_waitcnt coverage: simulate the in-flight queues op by op.

The waitcnt pass (``asmgen.passes.waitcnt``) reasons with score brackets and so does its own
``check_program``; a mistake in that arithmetic (such as assuming the 17th ds_read retires the 1st
because lgkmcnt has 4 bits) fools both. This module shares none of it: per counter it keeps the
list of memory ops in flight in issue order and retires them as cdna-facts section 4 states --
``vmcnt(N)`` / ``lgkmcnt(N)``: all but the N most recent are done (VMEM and LDS complete in order);
with SMEM (or FLAT) in flight only ``lgkmcnt(0)`` retires anything, since SMEM returns out of
order; a field at its maximum (63 / 15) waits for nothing. Issuing never retires anything. Any
instruction that reads or writes a register unit a load in flight will still write is reported.

Scope: register dependences on load results (RAW, and WAR/WAW against a load in flight). LDS
regions, LDS-DMA and barriers are checked by the bracket analysis only.

Control flow (any CFG, ``Stream.cfg``): every block is simulated from every distinct queue state
it can be entered with (``_Queues.key``; a loop body normally sees one or two), found by a
worklist over the successors; a block entered with more than ``MAX_TRIPS`` distinct states is
reported (the kernel leaves loads in flight across iterations with
no wait bounding them). An in-order op that writes no register (a store) is dropped once it is
the oldest in flight (it cannot change what a wait retires), which keeps a store-only loop finite.
"""
from __future__ import annotations

from collections import deque

from ..ir import Node, Stream
from ..target import Target
from .effects import effects
from .waitcnt import LGKM_MAX, VM_MAX, waitcnt_fields

MAX_TRIPS = VM_MAX + 2     # newer-op counts saturate at the counter maximum (see key)


class _Queues:
    """The ops in flight: ``vm`` / ``lg`` deques of (node id, units, out_of_order) oldest first,
    ``count`` = in-flight writers per register unit, ``ooo`` = out-of-order ops in ``lg``."""

    __slots__ = ("count", "lg", "ooo", "vm")

    def __init__(self) -> None:
        self.vm: deque = deque()
        self.lg: deque = deque()
        self.count: dict = {}
        self.ooo = 0

    def copy(self) -> _Queues:
        q = _Queues()
        q.vm, q.lg, q.count, q.ooo = deque(self.vm), deque(self.lg), dict(self.count), self.ooo
        return q

    def key(self) -> tuple:
        """What the future depends on: per op that writes registers or is out of order, its node
        and how many ops are newer, capped at the counter maximum (``vmcnt(N)`` retires an op iff
        at least N are newer, and N < max), so equal keys behave the same from here on."""
        return _canon(self.vm, VM_MAX), _canon(self.lg, LGKM_MAX)

    def _pop(self, dq: deque) -> None:
        _, units, ooo = dq.popleft()
        if ooo:
            self.ooo -= 1
        for u in units:
            c = self.count[u] - 1
            if c:
                self.count[u] = c
            else:
                del self.count[u]

    def push(self, dq: deque, op: tuple) -> None:
        dq.append(op)
        if op[2]:
            self.ooo += 1
        for u in op[1]:
            self.count[u] = self.count.get(u, 0) + 1
        # an in-order op that writes no register and is older than every op that does can never
        # matter (a wait keeps only the newest ops): dropping it keeps loop states finite
        while dq and not dq[0][1] and not dq[0][2]:
            dq.popleft()

    def retire_writers_of(self, units: list) -> None:
        """Retire what the minimal wait for ``units`` would (after a reported problem, so one
        missing wait is reported once and the simulation goes on from a sane state)."""
        want = set(units)
        for dq in (self.vm, self.lg):
            last = max((i for i, op in enumerate(dq) if want.intersection(op[1])), default=-1)
            if dq is self.lg and self.ooo and last >= 0:
                last = len(dq) - 1          # out of order: only lgkmcnt(0) is sure
            for _ in range(last + 1):
                self._pop(dq)

    def wait(self, vm: int, lgkm: int) -> None:
        if vm < VM_MAX:
            while len(self.vm) > vm:
                self._pop(self.vm)
        if lgkm < LGKM_MAX and (lgkm == 0 or not self.ooo):
            while len(self.lg) > lgkm:
                self._pop(self.lg)


class _Checker:
    def __init__(self, target: Target) -> None:
        self.target = target
        self.problems: dict[tuple[str, int], str] = {}      # one message per instruction

    def run(self, nodes: list[Node], q: _Queues, section: str) -> _Queues:
        target = self.target
        for i, node in enumerate(nodes):
            e = effects(target, node.instr)
            if e.waitcnt:
                q.wait(*waitcnt_fields(node.instr))
                continue
            if q.count:
                late = [u for u in (*e.reads, *e.writes) if u in q.count]
                if late:
                    if (section, i) not in self.problems:
                        self.problems[(section, i)] = (
                            f"{section}[{i}] {node.instr}: "
                            f"{', '.join(map(_unit_text, dict.fromkeys(late)))} still written by a "
                            f"load in flight (no s_waitcnt retires it)")
                    q.retire_writers_of(late)
            fl = e.spec.flags
            flat = "flat" in fl
            if e.counter == "vm":
                q.push(q.vm, (node.id, tuple(u for u in e.writes if u[0] != "x"), False))
            if e.counter == "lgkm" or flat:
                q.push(q.lg, (node.id, tuple(u for u in e.writes if u[0] != "x"), e.smem or flat))
        return q


def _canon(dq: deque, cap: int) -> tuple:
    return tuple((nid, ooo, min(newer, cap))
                 for newer, (nid, units, ooo) in enumerate(reversed(dq)) if units or ooo)


def _unit_text(u: tuple) -> str:
    f, vid, k = u
    return f"{f}{k}" if vid == -1 else f"%{f}{vid}+{k}"


def simulate_waits(prog: Stream) -> list[str]:
    """Register reads/writes of load results still in flight (empty list = none found)."""
    ck = _Checker(prog.kernel.target)
    blocks = prog.blocks
    succ, _ = prog.cfg()
    seen: list[set] = [set() for _ in blocks]
    work = [(0, _Queues())]
    while work:
        b, q = work.pop()
        k = q.key()
        if k in seen[b]:
            continue
        if len(seen[b]) >= MAX_TRIPS:
            ck.problems[(blocks[b].name, -1)] = (
                f"{blocks[b].name}: the ops in flight at the block's start still change after "
                f"{MAX_TRIPS} visits (loads left in flight across loop iterations)")
            continue
        seen[b].add(k)
        q = ck.run(blocks[b].nodes, q.copy(), blocks[b].name)
        for t in reversed(succ[b]):
            work.append((t, q))
    return list(ck.problems.values())
