"""Live intervals of virtual registers over a scheduled program (prologue, do-while body, epilogue).

Positions number the final stream: prologue 0..P-1, body P..P+B-1, epilogue after. Liveness is
solved per register unit (dword) by backward dataflow over the three-block CFG (prologue -> body,
body -> body (back-edge), body -> epilogue; prologue -> epilogue without a loop), so a value live
across the back-edge covers the whole loop. Each root's interval is the hull of every position
where one of its units is referenced or live: ``[start, end]`` inclusive. An instruction's reads
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
    arch = prog.kernel.arch
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
            e = effects(arch, n.instr)
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

    ue = {name: _section_sets(r) for name, r in refs.items()}
    live_in = {name: set() for name in refs}
    live_out = {name: set() for name in refs}
    has_loop = "loop" in refs
    succ = {"prologue": ["loop"] if has_loop else ["epilogue"], "loop": ["loop", "epilogue"],
            "epilogue": []}
    changed = True
    while changed:
        changed = False
        for name in ("epilogue", "loop", "prologue"):
            if name not in refs:
                continue
            out = set().union(*(live_in[s] for s in succ[name])) if succ[name] else set()
            use, defs = ue[name]
            inn = use | (out - defs)
            if out != live_out[name] or inn != live_in[name]:
                live_out[name], live_in[name] = out, inn
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
        for u in live_in[name]:
            touch(u[1], base)
        for u in live_out[name]:
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
