"""Live intervals of virtual registers over a scheduled program (any CFG of blocks).

Positions number the final stream: the blocks' nodes in layout order. Liveness is solved per
register unit (dword) by backward dataflow over the block CFG (``Stream.cfg``) to a fixpoint, so
a value live across a back-edge is live at the loop header's start and the latch's end. Each
root's interval is the hull of every position where one of its units is referenced or live:
``[start, end]`` inclusive (sound for any layout: a point where a value is live lies between a
block start or reference before it and a block end or reference after it). An instruction's reads
and writes share its position, so a value last read at ``p`` and one first written at ``p`` never
share registers (conservative: no dst = src reuse).

In-flight loads: a load's destination is live from issue until the s_waitcnt that retires it
(``asmgen.passes.waitcnt`` reports where), not just until its last read: the hardware writes the
register whenever the data arrives, so nothing else may live there meanwhile. A load never waited
for stays live to the end of the program.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

from ..ir import Stream
from .effects import effects
from .waitcnt import analysis_of, analyze_program

_CHECK_CACHE = bool(os.environ.get("ASMGEN_CHECK_CACHE"))   # debugging aid: recompute and compare


@dataclass(frozen=True, slots=True)
class Interval:
    """Live range of one virtual register root (all positions inclusive)."""

    vid: int
    file: str
    count: int
    start: int
    end: int

    def overlaps(self, other: Interval) -> bool:
        return self.start <= other.end and other.start <= self.end


@dataclass
class Liveness:
    intervals: dict[int, Interval]          # vreg root id -> interval
    physical: set                            # physical units referenced directly (file, -1, idx)
    length: int                              # positions in the stream
    section_starts: dict[str, int]


def _section_sets(refs: list[tuple[tuple, tuple]]):
    """(upward-exposed uses, defs) of a section from its (reads, writes) per position."""
    use, defs = set(), set()
    for reads, writes in refs:
        for u in reads:
            if u not in defs:
                use.add(u)
        defs.update(writes)
    return use, defs


def compute_liveness(prog: Stream) -> Liveness:
    target = prog.kernel.target
    an = analysis_of(prog)
    if _CHECK_CACHE:
        fresh = analyze_program(prog, insert=False)
        assert fresh.retired == an.retired, "cached waitcnt analysis differs from a fresh one"
    sections = prog.sections()
    pseudo: dict[tuple[str, int], list] = {}
    for sec, idx, _nid, us in an.retired:
        pseudo.setdefault((sec, max(idx, 0)), []).extend(us)

    starts, refs = {}, {}
    pos = 0
    physical = set()
    for name, nodes in sections:
        starts[name] = pos
        lst = []
        for i, n in enumerate(nodes):
            e = effects(target, n.instr)
            reads, writes = e.reg_reads, e.reg_writes
            extra = pseudo.get((name, i)) if pseudo else None
            if extra:
                reads = reads + tuple(extra)
            if (e.reg_physical or extra) and any(u[1] == -1 for u in reads + writes):
                physical.update(u for u in reads + writes if u[1] == -1)
                reads = tuple(u for u in reads if u[1] != -1)
                writes = tuple(u for u in writes if u[1] != -1)
            lst.append((reads, writes))
        refs[name] = lst
        pos += len(nodes)
    length = pos

    succ, _pred = prog.cfg()
    names = [name for name, _ in sections]
    ue = [_section_sets(refs[name]) for name in names]
    live_in: list[set] = [set() for _ in names]
    live_out: list[set] = [set() for _ in names]
    changed = True
    while changed:               # backward dataflow to a fixpoint (reverse layout order)
        changed = False
        for b in range(len(names) - 1, -1, -1):
            out = set().union(*(live_in[t] for t in succ[b])) if succ[b] else set()
            use, defs = ue[b]
            inn = use | (out - defs)
            if out != live_out[b] or inn != live_in[b]:
                live_out[b], live_in[b] = out, inn
                changed = True

    lo: dict[int, int] = {}
    hi: dict[int, int] = {}

    def touch(vid: int, p: int) -> None:
        if vid in lo:
            if p < lo[vid]:
                lo[vid] = p
            elif p > hi[vid]:
                hi[vid] = p
        else:
            lo[vid] = hi[vid] = p

    for name, lst in refs.items():
        base = starts[name]
        # positions only grow within a section: the first touch of a root sets lo, later ones hi
        for i, (reads, writes) in enumerate(lst):
            p = base + i
            for units in (reads, writes):
                for u in units:
                    vid = u[1]
                    if vid not in lo:
                        lo[vid] = p
                    hi[vid] = p
        end = base + max(len(lst) - 1, 0)
        b = names.index(name)
        for u in live_in[b]:
            touch(u[1], base)
        for u in live_out[b]:
            touch(u[1], end)
    k = prog.kernel
    intervals = {}
    for vid, start in lo.items():
        root = k.vreg_root(vid)
        intervals[vid] = Interval(vid, root.file, root.count, start, hi[vid])
    return Liveness(intervals, physical, length, starts)


def max_pressure(intervals, file: str) -> tuple[int, int]:
    """(peak number of live registers of ``file``, a position where it occurs)."""
    ev = []
    for it in intervals:
        if it.file == file:
            ev.append((it.start, 0, it.count))
            ev.append((it.end, 1, -it.count))
    cur = peak = 0
    at = 0
    for p, _, d in sorted(ev):
        cur += d
        if cur > peak:
            peak, at = cur, p
    return peak, at
