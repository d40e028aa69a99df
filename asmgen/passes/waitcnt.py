"""s_waitcnt insertion (and checking) from dataflow, with score brackets per counter.

Algorithm (the idea of LLVM's SIInsertWaitcnts / WaitcntBrackets, written afresh): every memory
instruction that bumps a counter gets the next *score* of that counter (``ub``); a register unit it
will write is pending with that score. ``lb`` is the score up to which everything is known done.
Before an instruction that reads or overwrites a pending unit (RAW, and WAR/WAW against a load in
flight), the minimal wait is ``vmcnt(ub - score)`` since VMEM returns in order (cdna-facts section
4); for lgkm, ``lgkmcnt(ub - score)`` when only LDS ops are outstanding, else ``lgkmcnt(0)`` since
SMEM may return out of order. A wait raises ``lb``.

More ops in flight than a counter field can express: the *field* is narrow (vmcnt 6 bits, lgkmcnt
4 bits, cdna-facts section 4), but issuing a 16th ds_read does not complete the 1st, so issuing
never raises ``lb`` (LLVM's WaitcntBrackets::setScoreUB raises the lower bound on overflow only
for EXP_CNT). A needed count above the field is clamped to ``max - 1`` (vmcnt(62) /
lgkmcnt(14)), as LLVM's determineWait does (``min(UB - score, getWaitCountMax(T) - 1)``): the
field maximum itself (63 / 15) is the "do not wait" encoding, so clamping to it would wait for
nothing. The clamped wait retires more than needed (in order), which is correct. The state stays
finite because ``normalized`` drops everything at or below ``lb`` and then raises ``lb`` to just
below the oldest entry still tracked (which does not change what the state means).

LDS memory (regions from ``Node.lds_read/lds_write``): a ds_* access of a region an LDS-DMA still
writes waits vmcnt for that DMA (section 6); an LDS-DMA into a region with ds_* ops outstanding
waits lgkmcnt for them; ``s_barrier`` waits for every outstanding LDS op (lgkmcnt) and for the
LDS-DMA it publishes (vmcnt) so LDS writes are visible to the other waves (section 4).

Delayed publication (``Node.publish_after`` = p, default 1): an LDS-DMA whose data other waves
first read only after the p-th ``s_barrier`` this wave passes from it (a multi-buffered loop
filling a buffer p blocks ahead) is waited for at that barrier, not at the next one. The state
keeps, per number of barriers still to pass, the score of the youngest such DMA (``pub``); a
barrier waits ``vmcnt(ub - pub[1])`` (VMEM retires in order, so older DMAs are done too) and then
counts every entry down by one. The count runs on across the loop back-edge (the state at the
loop head carries ``pub``), so p may exceed the barriers of one iteration. The region map
(``dma``) is unchanged: a ds_* access of the DMA's region by the same wave still waits for it
whatever p is. Too large a p is a template bug the emulator reports (``LdsRaceError`` /
``PendingReadError``); the pass trusts the annotation.

Control flow (any CFG, ``Stream.cfg``): a block starts from the join of its predecessors' exit
states (per unit the most recent score, i.e. the stricter wait), iterated to a fixpoint over a
worklist, as LLVM's SIInsertWaitcnts merges per-block WaitcntBrackets; then every block is
processed once from its fixed entry state. Waits go before a block's trailing branch, never
after it. A successor marked ``hoist_waits`` (the conditional barrier) has its first
instruction's wait placed before its predecessor's branch, so both paths wait. Existing s_waitcnt instructions in the stream are
honoured, so the pass is idempotent; ``check_program`` runs the same analysis without inserting
and returns what is missing (the verifier after register allocation).

Weak spots: SMEM with a partial lgkmcnt(N>0) is not credited at all (only lgkmcnt(0) retires
SMEM); stores to the same global address as a later load are not tracked (VMEM is in order).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from isa import waitcnt_enc
from isa.instr import Instr
from isa.operands import Imm

from ..errors import AsmgenError
from ..ir import COND_BRANCHES, JUMP, Node, Stream
from .effects import effects

VM_MAX = waitcnt_enc.VM_MAX        # 63: vmcnt is 6 bits on gfx9 (cdna-facts section 4)
LGKM_MAX = waitcnt_enc.LGKM_MAX    # 15: lgkmcnt is 4 bits
MAX_FIXPOINT_ITERS = 64
BRANCH_OPS = (*COND_BRANCHES, JUMP)
NO_SCORE = -(1 << 62)              # "no such op": below every lb (normalized scores go negative)


class WaitcntError(AsmgenError):
    """The waitcnt analysis failed (no fixpoint) or the verifier found a missing wait."""


def encode_waitcnt(vm: int | None, lgkm: int | None) -> int:
    """simm16 of ``s_waitcnt vmcnt(vm) lgkmcnt(lgkm)`` (None = no wait on that counter)."""
    return waitcnt_enc.waitcnt_imm(vmcnt=VM_MAX if vm is None else vm,
                                   lgkmcnt=LGKM_MAX if lgkm is None else lgkm)


def decode_waitcnt(simm16: int) -> tuple[int, int]:
    """(vmcnt, lgkmcnt) of an s_waitcnt simm16."""
    w = waitcnt_enc.decode(simm16)
    return w.vmcnt, w.lgkmcnt


def make_waitcnt(vm: int | None, lgkm: int | None) -> Instr:
    return Instr("s_waitcnt", (Imm(encode_waitcnt(vm, lgkm)),))


def waitcnt_fields(instr: Instr) -> tuple[int, int]:
    o = instr.operands[0] if instr.operands else None
    if not isinstance(o, Imm) or not isinstance(o.value, int):
        raise WaitcntError(f"{instr}: s_waitcnt operand must be an integer simm16 Imm")
    return decode_waitcnt(o.value)


@dataclass
class State:
    """Score brackets of both counters (see module docstring). Scores are absolute ints."""

    vm_ub: int = 0
    vm_lb: int = 0
    lg_ub: int = 0
    lg_lb: int = 0
    pend_vm: dict = field(default_factory=dict)     # unit -> vm score of its pending write
    pend_lg: dict = field(default_factory=dict)     # unit -> lgkm score
    smem_last: int = NO_SCORE                        # lgkm score of the last out-of-order op
    dma: dict = field(default_factory=dict)         # LDS region -> vm score of last LDS-DMA
    lds_ops: dict = field(default_factory=dict)     # LDS region -> lgkm score of last ds_* op
    # in-flight loads, for liveness: (score, load node id, units)
    q_vm: list = field(default_factory=list)
    q_lg: list = field(default_factory=list)
    # barriers still to pass before publication -> vm score of the youngest such LDS-DMA
    pub: dict = field(default_factory=dict)

    def copy(self) -> State:
        return State(self.vm_ub, self.vm_lb, self.lg_ub, self.lg_lb, dict(self.pend_vm),
                     dict(self.pend_lg), self.smem_last, dict(self.dma), dict(self.lds_ops),
                     list(self.q_vm), list(self.q_lg), dict(self.pub))

    def normalized(self) -> State:
        """Same state with ub = max count, done entries dropped and ``lb`` raised to just below
        the oldest entry still pending (or to ``ub``): for join and equality."""
        dv, dl = VM_MAX + 1 - self.vm_ub, LGKM_MAX + 1 - self.lg_ub
        vlb, llb = self.vm_lb, self.lg_lb
        vlive = [s for s in (*self.pend_vm.values(), *self.dma.values(), *self.pub.values(),
                             *(q[0] for q in self.q_vm)) if s > vlb]
        llive = [s for s in (*self.pend_lg.values(), *self.lds_ops.values(), self.smem_last,
                             *(q[0] for q in self.q_lg)) if s > llb]
        vlb = min(vlive) - 1 if vlive else self.vm_ub
        llb = min(llive) - 1 if llive else self.lg_ub
        return State(
            VM_MAX + 1, vlb + dv, LGKM_MAX + 1, llb + dl,
            {u: s + dv for u, s in self.pend_vm.items() if s > vlb},
            {u: s + dl for u, s in self.pend_lg.items() if s > llb},
            self.smem_last + dl if self.smem_last > llb else NO_SCORE,
            {r: s + dv for r, s in self.dma.items() if s > vlb},
            {r: s + dl for r, s in self.lds_ops.items() if s > llb},
            sorted((s + dv, n, us) for s, n, us in self.q_vm if s > vlb),
            sorted((s + dl, n, us) for s, n, us in self.q_lg if s > llb),
            {k: s + dv for k, s in self.pub.items() if s > vlb})

    def key(self) -> tuple:
        n = self.normalized()
        return (n.vm_lb, n.lg_lb, tuple(sorted(n.pend_vm.items())), tuple(sorted(n.pend_lg.items())),
                n.smem_last, tuple(sorted(n.dma.items())), tuple(sorted(n.lds_ops.items())),
                tuple(sorted(n.pub.items())))


def join(a: State, b: State) -> State:
    a, b = a.normalized(), b.normalized()

    def mx(d1: dict, d2: dict) -> dict:
        out = dict(d1)
        for k, s in d2.items():
            if k not in out or out[k] < s:
                out[k] = s
        return out

    return State(a.vm_ub, min(a.vm_lb, b.vm_lb), a.lg_ub, min(a.lg_lb, b.lg_lb),
                 mx(a.pend_vm, b.pend_vm), mx(a.pend_lg, b.pend_lg), max(a.smem_last, b.smem_last),
                 mx(a.dma, b.dma), mx(a.lds_ops, b.lds_ops),
                 _youngest(a.q_vm, b.q_vm), _youngest(a.q_lg, b.q_lg), mx(a.pub, b.pub))


def _youngest(q1: list, q2: list) -> list:
    """Union of two in-flight queues keeping, per load node, its most recent score (it retires
    last). Around a loop the same load reaches the head at different ages; keeping one entry
    per node keeps the state finite."""
    best: dict = {}
    for e in (*q1, *q2):
        old = best.get(e[1])
        if old is None or old[0] < e[0]:
            best[e[1]] = e
    return sorted(best.values())


def _alias(r1: str, r2: str) -> bool:
    return r1 == "*" or r2 == "*" or r1 == r2


@dataclass
class Need:
    """What one instruction needs: minimal counts (None = nothing) and why, for messages."""

    vm: int | None = None
    lgkm: int | None = None
    why: list = field(default_factory=list)

    def want_vm(self, n: int, why: str) -> None:
        n = min(n, VM_MAX - 1)          # encodable and a real wait (module docstring)
        self.vm = n if self.vm is None else min(self.vm, n)
        self.why.append(why)

    def want_lgkm(self, n: int, why: str) -> None:
        n = min(n, LGKM_MAX - 1)
        self.lgkm = n if self.lgkm is None else min(self.lgkm, n)
        self.why.append(why)


_NO_NEED = Need()     # shared "nothing needed" answer (never mutated)


class Analyzer:
    """Walks node lists, updating a ``State``; inserts waits (``insert=True``) or records
    violations. ``retire`` collects (section, index, load node id, units) when a load completes,
    for liveness."""

    def __init__(self, kernel, insert: bool) -> None:
        self.target = kernel.target
        self.kernel = kernel
        self.insert = insert
        self.violations: list[str] = []
        self.retired: list[tuple[str, int, int, tuple]] = []

    def needs(self, st: State, node: Node, e) -> Need:
        need = None
        pv, pl = st.pend_vm, st.pend_lg
        if pv or pl:
            for units in (e.reads, e.writes):
                for u in units:
                    s = pv.get(u)
                    if s is not None and s > st.vm_lb:
                        need = need or Need()
                        need.want_vm(st.vm_ub - s, f"{_u(u)} from a VMEM load")
                    s = pl.get(u)
                    if s is not None and s > st.lg_lb:
                        need = need or Need()
                        need.want_lgkm(self._lg_count(st, s), f"{_u(u)} from an LGKM load")
        if node.instr.op == "s_endpgm":
            # an LDS-DMA still in flight when the wave ends would write LDS the workgroup no
            # longer owns: drain them (a delayed publication can leave one past the last barrier)
            last_dma = max(st.dma.values(), default=NO_SCORE)
            if last_dma > st.vm_lb:
                need = need or Need()
                need.want_vm(st.vm_ub - last_dma, "LDS-DMA in flight at s_endpgm")
        if not (e.lds or e.barrier):
            return need or _NO_NEED
        need = need or Need()
        if e.lds and not e.lds_dma:
            regions = {node.lds_read or node.lds_write or "*", node.lds_write or node.lds_read or "*"}
            for r, s in st.dma.items():
                if s > st.vm_lb and any(_alias(r, x) for x in regions):
                    need.want_vm(st.vm_ub - s, f"LDS region {r} written by LDS-DMA")
        if e.lds_dma:
            reg = node.lds_write or "*"
            for r, s in st.lds_ops.items():
                if s > st.lg_lb and _alias(r, reg):
                    need.want_lgkm(self._lg_count(st, s), f"ds_* ops on LDS region {r} before DMA")
        if e.barrier:
            last_lds = max(st.lds_ops.values(), default=NO_SCORE)
            if last_lds > st.lg_lb:
                need.want_lgkm(self._lg_count(st, last_lds), "LDS ops published by s_barrier")
            due = st.pub.get(1, NO_SCORE)       # the DMA this barrier publishes (docstring)
            if due > st.vm_lb:
                need.want_vm(st.vm_ub - due, "LDS-DMA published by s_barrier")
        return need

    @staticmethod
    def _lg_count(st: State, score: int) -> int:
        if st.smem_last > st.lg_lb:
            return 0     # SMEM outstanding: out of order, only lgkmcnt(0) is safe (section 4)
        return st.lg_ub - score

    def apply_wait(self, st: State, vm: int | None, lgkm: int | None, section: str,
                   idx: int) -> None:
        if vm is not None and vm < VM_MAX and st.vm_ub - vm > st.vm_lb:
            st.vm_lb = lb = st.vm_ub - vm
            st.pend_vm = {u: s for u, s in st.pend_vm.items() if s > lb}   # drop what is done
        # a partial lgkmcnt(N > 0) proves nothing while SMEM (out of order) is outstanding
        if lgkm is not None and lgkm < LGKM_MAX and (lgkm == 0 or st.smem_last <= st.lg_lb) \
                and st.lg_ub - lgkm > st.lg_lb:
            st.lg_lb = lb = st.lg_ub - lgkm
            st.pend_lg = {u: s for u, s in st.pend_lg.items() if s > lb}
        self._retire(st, section, idx)

    def _retire(self, st: State, section: str, idx: int) -> None:
        while st.q_vm and st.q_vm[0][0] <= st.vm_lb:
            _, nid, us = st.q_vm.pop(0)
            self.retired.append((section, idx, nid, us))
        while st.q_lg and st.q_lg[0][0] <= st.lg_lb:
            _, nid, us = st.q_lg.pop(0)
            self.retired.append((section, idx, nid, us))

    def event(self, st: State, node: Node, e, section: str, idx: int) -> None:
        fl = e.spec.flags
        if e.counter == "vm":
            st.vm_ub += 1
            for u in e.writes:
                if u[0] != "x":
                    st.pend_vm[u] = st.vm_ub
            if e.lds_dma:
                st.dma[node.lds_write or "*"] = st.vm_ub
                p = node.publish_after
                st.pub[p] = max(st.pub.get(p, NO_SCORE), st.vm_ub)
            us = tuple(u for u in e.writes if u[0] != "x")
            if us:
                st.q_vm.append((st.vm_ub, node.id, us))
        if e.counter == "lgkm" or "flat" in fl:
            st.lg_ub += 1
            us = tuple(u for u in e.writes if u[0] != "x")
            for u in us:
                st.pend_lg[u] = st.lg_ub
            if e.smem or "flat" in fl:
                st.smem_last = st.lg_ub
            if e.lds and not e.lds_dma:
                regs = {node.lds_read or "*"} if not e.lds_store else {node.lds_write or "*"}
                for r in regs:
                    st.lds_ops[r] = st.lg_ub
            if us:
                st.q_lg.append((st.lg_ub, node.id, us))
        if e.barrier:      # passed: every pending publication is one barrier closer
            st.pub = {k - 1: s for k, s in st.pub.items() if k > 1}
        self._retire(st, section, idx)

    def run(self, nodes: list[Node], st: State, section: str,
            before_term: list[Node] | None = None) -> list[Node]:
        """Process ``nodes`` from ``st`` (mutated); returns the nodes with waits inserted.
        ``before_term`` (insert mode): nodes whose needs are met before the block's trailing
        branch (the first node of a ``hoist_waits`` successor)."""
        out: list[Node] = []
        term = len(nodes)
        if before_term:
            while term and nodes[term - 1].instr.op in BRANCH_OPS:
                term -= 1
        for i, node in enumerate(nodes):
            if i == term and before_term:
                for hn in before_term:
                    self._wait_for(st, hn, effects(self.target, hn.instr), out, section)
            e = effects(self.target, node.instr)
            if e.waitcnt:
                vm, lg = waitcnt_fields(node.instr)
                out.append(node)
                self.apply_wait(st, vm, lg, section, len(out) - 1)
                continue
            self._wait_for(st, node, e, out, section)
            out.append(node)
            self.event(st, node, e, section, len(out) - 1)
        return out

    def _wait_for(self, st: State, node: Node, e, out: list[Node], section: str) -> None:
        """Insert (or report) the wait ``node`` needs before it, at the end of ``out``."""
        need = self.needs(st, node, e)
        if need.vm is None and need.lgkm is None:
            return
        if self.insert:
            vm, lg = need.vm, need.lgkm
            prev = out[-1] if out else None
            if prev is not None and "wait" in prev.tags and effects(self.target, prev.instr).waitcnt:
                pvm, plg = waitcnt_fields(prev.instr)
                vm = pvm if vm is None else min(vm, pvm)
                lg = plg if lg is None else min(lg, plg)
                prev.instr = make_waitcnt(vm, lg)
            else:
                out.append(self.kernel.new_node(make_waitcnt(vm, lg), {"wait"},
                                                comment="; ".join(need.why)))
            self.apply_wait(st, need.vm, need.lgkm, section, len(out) - 1)
        else:
            self.violations.append(
                f"{section}[{len(out)}] {node.instr}: needs "
                f"{'' if need.vm is None else f'vmcnt({need.vm}) '}"
                f"{'' if need.lgkm is None else f'lgkmcnt({need.lgkm}) '}({'; '.join(need.why)})")
            self.apply_wait(st, need.vm, need.lgkm, section, len(out))


def _u(u: tuple) -> str:
    f, vid, k = u
    return f"{f}{k}" if vid == -1 else f"%{f}{vid}+{k}"


def analyze_program(prog: Stream, insert: bool) -> Analyzer:
    """Run the analysis over the whole CFG (a worklist fixpoint of the block entry states, then
    one pass in layout order from them); with ``insert`` every block's node list is replaced by
    one with waits inserted."""
    k = prog.kernel
    blocks = prog.blocks
    succ, pred = prog.cfg()
    n = len(blocks)
    extra = _block_extras(prog, succ, pred) if insert else [None] * n
    ins: list[State | None] = [None] * n
    outs: list[State | None] = [None] * n
    keys: list[tuple | None] = [None] * n
    ins[0] = State()
    runs = [0] * n
    work = {0}
    while work:
        b = min(work)         # layout order: predecessors first, except along back-edges
        work.discard(b)
        runs[b] += 1
        if runs[b] > MAX_FIXPOINT_ITERS:
            raise WaitcntError(f"waitcnt analysis found no fixpoint for block {blocks[b].name} in "
                               f"{MAX_FIXPOINT_ITERS} iterations")
        probe = Analyzer(k, insert)
        st = ins[b].copy()
        nodes = [_clone(x) for x in blocks[b].nodes] if insert else blocks[b].nodes
        _run_block(probe, prog, b, nodes, st, extra[b])
        outs[b] = st
        for t in succ[b]:
            new = _entry_state(outs, pred[t], t == 0)
            if keys[t] is None or new.key() != keys[t]:
                ins[t], keys[t] = new, new.key()
                work.add(t)
    an = Analyzer(k, insert)
    finals = []
    for b, blk in enumerate(blocks):
        st = (ins[b] or State()).copy()
        finals.append(_run_block(an, prog, b, blk.nodes, st, extra[b]))
        if not succ[b]:       # loads still in flight when the wave ends
            for _, nid, us in st.q_vm + st.q_lg:
                an.retired.append((blk.name, len(finals[-1]) - 1, nid, us))
    if insert:
        for blk, nodes in zip(blocks, finals):
            blk.nodes = nodes
    an.block_entry_states = ins  # type: ignore[attr-defined]
    return an


def _entry_state(outs: list, preds: list[int], entry: bool) -> State:
    """Join of the predecessors' exit states computed so far (the entry block also starts from
    the empty state)."""
    got = [outs[p] for p in preds if outs[p] is not None]
    if entry:
        got.append(State())
    if len(got) == 1:
        return got[0].copy()
    st = got[0]
    for o in got[1:]:
        st = join(st, o)
    return st


def _run_block(an: Analyzer, prog: Stream, b: int, nodes: list[Node], st: State,
               extra) -> list[Node]:
    name = prog.blocks[b].name
    hoist, smem_loop = extra if extra is not None else (None, None)
    out = an.run(nodes, st, name, hoist)
    if smem_loop is not None:
        _wait_smem_at_loop_entry(prog, an, st, out, smem_loop, name)
        if getattr(prog.kernel, "wait_vm_before_loops", False):
            _wait_vm_at_loop_entry(prog, an, st, out, smem_loop, name)
    return out


def _block_extras(prog: Stream, succ, pred) -> list:
    """Per block (insert mode): the first nodes of its ``hoist_waits`` successors, and the loop
    blocks it enters (a predecessor of a loop header outside that loop), or None."""
    blocks = prog.blocks
    out: list = [None] * len(blocks)
    hoists: dict[int, list[Node]] = {}
    for t, blk in enumerate(blocks):
        if blk.hoist_waits and blk.nodes and len(pred[t]) == 1:
            hoists.setdefault(pred[t][0], []).append(blk.nodes[0])
    enters: dict[int, set[int]] = {}
    for h, _latch, body in prog.loops():
        for p in pred[h]:
            if p not in body:
                enters.setdefault(p, set()).update(body)
    for b in range(len(blocks)):
        if b in hoists or b in enters:
            out[b] = (hoists.get(b), enters.get(b))
    return out


def _loop_units(prog: Stream, loop_blocks: set[int]) -> set:
    """Register units the instructions of ``loop_blocks`` read or write."""
    used = set()
    for b in loop_blocks:
        for n in prog.blocks[b].nodes:
            e = effects(prog.kernel.target, n.instr)
            used.update(e.reads)
            used.update(e.writes)
    return used


def _wait_smem_at_loop_entry(prog: Stream, an: Analyzer, st: State, out: list[Node],
                             loop_blocks: set[int], name: str) -> None:
    """SMEM results a loop uses are waited for before the loop, not inside it: in the body the
    wait would run every iteration and, as SMEM forces lgkmcnt(0), also drain the body's LDS ops.
    The wait goes at the end of the block entering the loop (before its branch, if any)."""
    if st.smem_last <= st.lg_lb:
        return
    used = _loop_units(prog, loop_blocks)
    if any(s > st.lg_lb and u in used for u, s in st.pend_lg.items()):
        at = len(out)
        while at and out[at - 1].instr.op in BRANCH_OPS:
            at -= 1
        out.insert(at, prog.kernel.new_node(make_waitcnt(None, 0), {"wait"},
                                            comment="SMEM results used in the loop"))
        an.apply_wait(st, None, 0, name, at)


def _wait_vm_at_loop_entry(prog: Stream, an: Analyzer, st: State, out: list[Node],
                           loop_blocks: set[int], name: str) -> None:
    """(``KernelIR.wait_vm_before_loops``) VMEM results the loop reads or overwrites are waited
    for before the loop: inside it the wait for them joins the back edge's loads (the loop's own
    LDS-DMAs, issued blocks ahead) and would wait for those too on every trip. The wait is the
    minimal one (the youngest such load, VMEM returns in order), at the end of the block entering
    the loop (before its branch, if any)."""
    used = _loop_units(prog, loop_blocks)
    youngest = max((s for u, s in st.pend_vm.items() if s > st.vm_lb and u in used),
                   default=None)
    if youngest is None:
        return
    at = len(out)
    while at and out[at - 1].instr.op in BRANCH_OPS:
        at -= 1
    vm = st.vm_ub - youngest
    out.insert(at, prog.kernel.new_node(make_waitcnt(vm, None), {"wait"},
                                        comment="VMEM results used in the loop"))
    an.apply_wait(st, vm, None, name, at)


def _clone(n: Node) -> Node:
    """A copy for the fixpoint probes (insertion mutates merged wait nodes)."""
    return dataclasses.replace(n)


def insert_waitcnts(prog: Stream) -> Stream:
    """Insert the minimal s_waitcnt before every instruction that needs one (in place). The
    analysis (where each load retires) is kept in ``prog.analysis`` for liveness: re-analysing
    the result gives the same answer, since the pass honours existing waits."""
    an = analyze_program(prog, insert=True)
    prog.analysis["waitcnt"] = (prog.instr_snapshot(), an)
    return prog


def analysis_of(prog: Stream) -> Analyzer:
    """The (non-inserting) analysis of ``prog`` as it is now: the one ``insert_waitcnts`` left if
    no instruction changed since, else a fresh one."""
    cached = prog.analysis.get("waitcnt")
    if cached is not None and prog.same_instrs(cached[0]):
        return cached[1]
    return analyze_program(prog, insert=False)


def check_program(prog: Stream) -> list[str]:
    """Missing waits, one message per instruction (empty list = the stream is correct)."""
    return analyze_program(prog, insert=False).violations
