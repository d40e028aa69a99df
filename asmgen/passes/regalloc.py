"""Linear-scan register allocation of virtual registers to physical SGPR/VGPR/AGPR ranges.

Intervals come from ``asmgen.passes.liveness`` (whole-root hulls; loop-carried values span the
loop; in-flight loads live until their wait). Roots are taken in order of start position; each
gets the lowest free aligned range of its file that no active interval, no precoloured interval
overlapping it in time and no physical register the program names directly occupies.
Alignment (gfx90a+, cdna-facts section 1 / isa.spec_builders.reg_align): VGPR/AGPR tuples of 2+
dwords start even, SGPR pairs even, SGPR tuples of 4+ at a multiple of 4; a root's alignment is the
largest needed by any operand use of it or a sub-range (a sub-range at an offset the alignment
cannot satisfy is an error). The VGPR/AGPR split is the VReg file chosen by the template.

Out of registers raises ``RegisterBudgetError`` naming the file, the peak demand and the limit.
"""
from __future__ import annotations

import heapq
from dataclasses import dataclass, field, replace

from isa.instr import Instr
from isa.operands import REG_FILE_SIZE, Reg

from ..errors import ResourceError
from ..ir import Stream, VReg
from .effects import effects
from .liveness import Interval, Liveness, compute_liveness, max_pressure


class RegisterBudgetError(ResourceError):
    """The kernel needs more registers of one file than the budget allows."""

    def __init__(self, file: str, need: int, limit: int, detail: str = "") -> None:
        self.file, self.need, self.limit = file, need, limit
        names = {"s": "SGPR", "v": "VGPR", "a": "AGPR"}
        super().__init__(f"{names[file]} budget exceeded: the kernel needs {need} {names[file]}s "
                         f"(peak live), the limit is {limit}{'; ' + detail if detail else ''}")


class AllocationError(ResourceError):
    """A virtual register cannot be placed (alignment of a sub-range, precolour clash)."""


DEFAULT_LIMITS = {"s": REG_FILE_SIZE["s"], "v": REG_FILE_SIZE["v"], "a": REG_FILE_SIZE["a"]}


@dataclass
class Allocation:
    regs: dict[int, Reg]                      # vreg root id -> physical range
    used: dict[str, int] = field(default_factory=dict)   # file -> highest index used + 1


def _rule_align(file: str, count: int) -> int:
    if count < 2:
        return 1
    return 4 if file == "s" and count >= 4 else 2


def root_alignments(prog: Stream) -> dict[int, int]:
    """Alignment each root needs, from its declaration and every operand use."""
    k = prog.kernel
    out = {r.id: r.align for r in k.vregs}
    for _, nodes in prog.sections():
        for n in nodes:
            op_align = effects(k.target, n.instr).op_align
            for pos, o in enumerate(n.instr.operands):
                if not isinstance(o, VReg):
                    continue
                a = max(op_align[pos] if o.count > 1 else 1, _rule_align(o.file, o.count))
                if a <= 1:
                    continue
                if o.offset % a:
                    raise AllocationError(f"{n.instr}: operand {o} starts at offset {o.offset} of "
                                          f"%{o.file}{o.id}, which cannot be {a}-aligned")
                out[o.id] = max(out[o.id], a)
    return out


def agpr_candidates(prog: Stream) -> set[int]:
    """Roots of file 'v' used by an MFMA whose every operand use allows an AccVGPR (operand kinds
    of the spec table contain 'a'): MFMA accumulators the allocator may place in AGPRs."""
    k = prog.kernel
    ok: dict[int, bool] = {}
    in_mfma: set[int] = set()
    for _, nodes in prog.sections():
        for n in nodes:
            e = effects(k.target, n.instr)
            for pos, o in enumerate(n.instr.operands):
                if isinstance(o, VReg) and o.file == "v" and o.id not in k.precolors:
                    ok[o.id] = ok.get(o.id, True) and "a" in e.op_kinds[pos]
                    if e.mfma:
                        in_mfma.add(o.id)
    return {vid for vid, good in ok.items() if good and vid in in_mfma}


def allocate(prog: Stream, limits: dict[str, int] | None = None,
             live: Liveness | None = None, acc_to_agpr: bool = False) -> Allocation:
    """Assign physical registers (in place: node instrs are rewritten, ``prog.allocation`` set).
    With ``acc_to_agpr``, virtual VGPR roots that only MFMAs and AGPR-capable operands touch
    (``agpr_candidates``) are placed in AccVGPRs."""
    k = prog.kernel
    limits = {**DEFAULT_LIMITS, **(limits or {})}
    live = live or compute_liveness(prog)
    if acc_to_agpr:
        moved = agpr_candidates(prog)
        live.intervals = {vid: (replace(it, file="a") if vid in moved else it)
                          for vid, it in live.intervals.items()}
    aligns = root_alignments(prog)
    reserved = {f: set() for f in "sva"}
    for f, _, i in live.physical:
        if f in reserved:
            reserved[f].add(i)
    pre = [(live.intervals[vid], reg) for vid, reg in k.precolors.items() if vid in live.intervals]
    regs: dict[int, Reg] = {vid: reg for vid, reg in k.precolors.items()}
    order = sorted((it for vid, it in live.intervals.items() if vid not in k.precolors),
                   key=lambda it: (it.start, -it.count, it.vid))
    busy = {f: bytearray(REG_FILE_SIZE[f]) for f in "sva"}
    for f, idxs in reserved.items():
        for i in idxs:
            busy[f][i] = 1
    active: list[tuple[int, str, int, int]] = []     # heap of (end, file, base, count)
    for it in order:
        while active and active[0][0] < it.start:
            _, af, ab, ac = heapq.heappop(active)
            for i in range(ab, ab + ac):
                busy[af][i] = 0
        f = it.file
        blocked = set()
        for pit, reg in pre:
            if pit.overlaps(it) and reg.file == f:
                blocked.update(range(reg.index, reg.index + reg.count))
        base = _find(busy[f], blocked, it.count, aligns[it.vid], limits[f])
        if base is None:
            need, at = max_pressure(list(live.intervals.values()), f)
            need += len(reserved[f])
            why = "" if need > limits[f] else " (alignment/fragmentation: peak fits, no range does)"
            raise RegisterBudgetError(f, need, limits[f],
                                      f"no {aligns[it.vid]}-aligned {it.count}-register range free "
                                      f"for %{f}{it.vid} live {it.start}..{it.end}; peak at position "
                                      f"{at}{why}")
        for i in range(base, base + it.count):
            busy[f][i] = 1
        heapq.heappush(active, (it.end, f, base, it.count))
        regs[it.vid] = Reg(f, base, it.count)
    used = {f: 0 for f in "sva"}
    for reg in regs.values():
        used[reg.file] = max(used[reg.file], reg.index + reg.count)
    for f, idxs in reserved.items():
        if idxs:
            used[f] = max(used[f], max(idxs) + 1)
    for f in "sva":
        if used[f] > limits[f]:
            raise RegisterBudgetError(f, used[f], limits[f], "precoloured/physical registers")
    _rewrite(prog, regs)
    prog.allocation = regs
    prog.analysis.pop("waitcnt", None)     # describes the virtual stream, stale from here on
    return Allocation(regs, used)


def _find(busy: bytearray, blocked: set, count: int, align: int, limit: int):
    """Lowest ``align``-aligned base of ``count`` free registers below ``limit`` (None if none).
    ``bytearray.find`` of a run of zero bytes does the scan in C; a misaligned hit moves the search
    to the next aligned index (no aligned start below the first hit can be free)."""
    if blocked:
        busy = bytearray(busy)
        for j in blocked:
            busy[j] = 1
    pat = bytes(count)
    i = 0
    while i + count <= limit:
        j = busy.find(pat, i, limit)
        if j < 0:
            return None
        r = j % align
        if r == 0:
            return j
        i = j + align - r
    return None


def _rewrite(prog: Stream, regs: dict[int, Reg]) -> None:
    cache: dict[VReg, Reg] = {}

    def phys(o):
        if not isinstance(o, VReg):
            return o
        r = cache.get(o)
        if r is None:
            root = regs[o.id]
            r = cache[o] = Reg(root.file, root.index + o.offset, o.count)
        return r

    for _, nodes in prog.sections():
        for n in nodes:
            i = n.instr
            if any(isinstance(o, VReg) for o in i.operands):
                n.instr = Instr(i.op, tuple(phys(o) for o in i.operands), i.mods, i.encoding)


def check_no_overlap(live: Liveness, regs: dict[int, Reg]) -> list[str]:
    """Pairs of simultaneously live roots given overlapping registers (for tests/verify)."""
    items = sorted(live.intervals.values(), key=lambda it: it.start)
    bad = []
    active: list[Interval] = []
    for it in items:
        active = [a for a in active if a.end >= it.start]
        r = regs[it.vid]
        for a in active:
            if regs[a.vid].overlaps(r):
                bad.append(f"%{it.file}{it.vid} and %{a.file}{a.vid} share {r} / {regs[a.vid]}")
        active.append(it)
    return bad
