"""Hazard s_nop insertion (and checking) on a scheduled program with physical registers.

For each instruction, look back over the preceding instructions until ``HORIZON`` wait states have
elapsed (cdna-facts section 3: the largest gfx950 requirement is 20 states; LLVM looks 19 back),
ask the kernel's ``Target`` (``required_wait_states(producer, consumer)``; the rules are data in
``isa.hazards``) for every producer whose registers relate to the consumer, subtract the wait states
elapsed in between (every instruction is one state, ``s_nop N`` is N+1), and insert the missing
states as ``s_nop`` (at most ``s_nop 15`` = 16 states each, as LLVM emits on gfx9; section 10).

Control flow (any CFG, ``Stream.cfg``): the hazard state at a block's entry is the join (worst
case) of its predecessors' exit states: every producer still within reach on some path, with the
fewest wait states elapsed on any path (``_walk``: a worklist fixpoint, then one inserting walk
in layout order). A branch counts as what any instruction counts, one wait state, taken or not
(the conservative assumption: the ISA guides give no extra states for a taken branch), so a
block reached by a taken branch sees one state for the branch.

The rules compare register ranges, so this pass runs after register allocation (before it,
virtual registers that will share a physical register could not be checked anyway).
"""
from __future__ import annotations

from collections.abc import Callable
from functools import cache, lru_cache

from isa.identity_memo import MISS, IdentityMemo
from isa.instr import Instr
from isa.operands import Imm

from ..errors import AsmgenError
from ..ir import Node, Stream
from ..target import Target
from .effects import effects
from .hazard_place import placed_view

HORIZON = 24          # wait states to look back (> max rule, 20 on gfx950)
MAX_NOP_STATES = 16   # s_nop 15 (cdna-facts section 10)


class HazardError(AsmgenError):
    """The verifier found an unmet hazard (names both instructions and the states missing)."""


def wait_states(instr: Instr, target: Target) -> int:
    """Wait states an instruction provides: s_nop N gives N+1, anything else 1 (section 3)."""
    if effects(target, instr).nop:
        o = instr.operands[0] if instr.operands else Imm(0)
        return int(o.value) + 1 if isinstance(o, Imm) else 1
    return 1


_VIEW_MEMO = IdentityMemo(1 << 18)


def _rule_view(target: Target, instr: Instr) -> tuple:
    """``_rule_view_cached`` memoised by object identity (hashing an Instr is slow) and arch name,
    made from its shape's template (``hazard_place``: instructions that differ only in their
    vector registers share one)."""
    arch = target.arch
    view = _VIEW_MEMO.get(instr, arch)
    if view is MISS:
        view = _VIEW_MEMO.put(instr, arch, placed_view(target, instr, _rule_view_cached))
    return view


_CLASS_MEMO: dict[tuple, tuple] = {}


def _shape(instr: Instr) -> tuple:
    """What the rule class predicates may look at: mnemonic, modifiers, encoding and the kind,
    file and width of each operand (not register numbers)."""
    return (instr.op, instr.mods, instr.encoding,
            tuple((type(o).__name__, getattr(o, "file", None), getattr(o, "count", None),
                   getattr(o, "name", None)) for o in instr.operands))


def _groups(rules, mask: int, attr: str) -> tuple:
    """The rules of ``mask`` grouped by their location function (``attr``: "produced" or
    "consumed"): ((function name, mask of its rules, their indices), ...)."""
    out: dict[str, list[int]] = {}
    for i, r in enumerate(rules):
        if mask >> i & 1:
            out.setdefault(getattr(r, attr), []).append(i)
    return tuple((k, sum(1 << i for i in ix), tuple(ix)) for k, ix in out.items())


def _class_masks(target: Target, spec, instr: Instr) -> tuple:
    """(producer mask, consumer mask, producer groups, consumer groups) of ``instr``'s rule
    classes (``_groups``), memoised by arch name and shape."""
    key = (target.arch, _shape(instr))
    m = _CLASS_MEMO.get(key)
    if m is None:
        from isa.hazards import CONSUMERS, PRODUCERS
        pm = cm = 0
        rules = target.hazard_rules()
        for i, r in enumerate(rules):
            if PRODUCERS[r.producer](spec, instr):
                pm |= 1 << i
            if CONSUMERS[r.consumer](spec, instr):
                cm |= 1 << i
        m = _CLASS_MEMO[key] = (pm, cm, _groups(rules, pm, "produced"),
                                _groups(rules, cm, "consumed"))
    return m


@lru_cache(maxsize=1 << 16)
def _rule_view_cached(target: Target, instr: Instr) -> tuple:
    """How ``instr`` can take part in each rule of ``isa.hazards`` (its own data: the PRODUCERS /
    CONSUMERS class predicates and the PRODUCED / CONSUMED location functions):
    (producer mask, consumer mask, {rule i: produced locs}, {rule i: consumed locs}, reach,
    wait states it provides): reach is the most wait states any rule can require after it as a
    producer (``Wait`` of its rules at its MFMA passes, the formula ``isa.hazards.matching_rules``
    uses). A rule whose produced locations are empty leaves the producer mask."""
    from isa.access import accesses
    from isa.hazards import CONSUMED, PRODUCED
    spec = effects(target, instr).spec
    states = wait_states(instr, target)
    pm, cm, pgroups, cgroups = _class_masks(target, spec, instr)
    if not (pm or cm):
        return 0, 0, {}, {}, 0, states
    reads, writes = accesses(spec, instr)
    made, used = {}, {}
    for kind, mask, ix in pgroups:      # each location function once, shared by its rules
        locs = PRODUCED[kind](reads, writes)
        if locs:
            for i in ix:
                made[i] = locs
        else:
            pm &= ~mask
    for kind, _mask, ix in cgroups:
        locs = CONSUMED[kind](reads, writes)
        for i in ix:
            used[i] = locs
    reach = 0
    if made:
        rules = target.hazard_rules()
        passes = target.mfma_passes(spec, instr) if spec.has("mfma") else 0
        reach = max(target.hazard_wait(rules[i], passes) for i in made)
    return pm, cm, made, used, reach, states


@cache
def _free_rules(target: Target) -> int:
    """Rules that fire without a location overlap ("always": EXEC/VCC/M0 producers; hwreg ids)."""
    m = 0
    for i, r in enumerate(target.hazard_rules()):
        if r.relation not in ("overlap", "same", "overlap_not_same"):
            m |= 1 << i
    return m


class _Entry:
    __slots__ = ("cmask", "instr", "made", "pmask", "reach", "states", "used")

    def __init__(self, instr: Instr, target: Target, exact: bool = True) -> None:
        self.instr = instr
        self.pmask, self.cmask, self.made, self.used, reach, self.states = _rule_view(target, instr)
        # wait states after which this producer can no longer matter (HORIZON for a custom rule)
        self.reach = min(reach, HORIZON) if exact else HORIZON


def _candidate(p: _Entry, c: _Entry, free: int) -> bool:
    """Could any rule fire for p -> c? Class masks intersect and, for an overlap rule, p's produced
    locations meet c's consumed ones. The wait itself always comes from the rule function."""
    m = p.pmask & c.cmask
    if not m:
        return False
    if m & free:
        return True
    while m:
        low = m & -m
        i = low.bit_length() - 1
        if not p.made[i].isdisjoint(c.used[i]):
            return True
        m ^= low
    return False


def _nops(kernel, states: int) -> list[Node]:
    out = []
    while states > 0:
        n = min(states, MAX_NOP_STATES)
        out.append(kernel.new_node(Instr("s_nop", (Imm(n - 1),)), {"nop"}))
        states -= n
    return out


_PAIR_MEMO: dict[tuple, tuple] = {}


def _shared_rule(target: Target) -> Callable[[Instr, Instr], int]:
    """``target.required_wait_states`` memoised across walks (the inserting walk and the
    verifier's checking walk of one stream ask the same pairs): keyed by the two instructions'
    identities and the arch, each entry holding its instructions so an id is never reused while
    its entry lives (a pure function of the two instructions' values: the same answer)."""
    arch, base = target.arch, target.required_wait_states
    memo = _PAIR_MEMO

    def rule(p: Instr, c: Instr) -> int:
        key = (id(p), id(c), arch)
        m = memo.get(key)
        if m is not None and m[0] is p and m[1] is c:
            return m[2]
        r = base(p, c)
        if len(memo) > 4096:     # a few hundred streams' pairs: bounds what it keeps alive
            memo.clear()
        memo[key] = (p, c, r)
        return r
    return rule


class _Walker:
    """One pass over the sections. Instead of re-walking the last HORIZON states for every
    consumer, it keeps the *live producers*: entries with a producer class whose largest possible
    requirement (``_Entry.reach``, from the rule table and the producer's MFMA passes) exceeds the
    wait states elapsed since them. A producer outside that window can only need <= 0 more states,
    so dropping it changes nothing; the result equals the full look-back."""

    def __init__(self, prog: Stream, insert: bool, rule) -> None:
        self.prog = prog
        self.target = target = prog.kernel.target
        self.insert = insert
        self.exact = rule is None
        base = rule or target.required_wait_states
        if rule is None:
            self.rule = _shared_rule(target)
        else:
            memo: dict = {}

            def cached(p: Instr, c: Instr) -> int:   # instrs stay alive for the walk: ids are stable
                key = (id(p), id(c))
                r = memo.get(key)
                if r is None:
                    r = memo[key] = base(p, c)
                return r
            self.rule = cached
        self.free = _free_rules(target)
        self.violations: list[str] = []
        self._entries: dict[int, _Entry] = {}

    def entry(self, instr: Instr) -> _Entry:
        """One entry per instruction object (the fixpoint compares exit states by entry)."""
        e = self._entries.get(id(instr))
        if e is None or e.instr is not instr:
            e = self._entries[id(instr)] = _Entry(instr, self.target, self.exact)
        return e

    def run(self, nodes: list[Node], live_in: dict, section: str) -> tuple[list[Node], dict]:
        """Walk a block from ``live_in`` (live producer entry -> wait states elapsed since it at
        the block's start: the join of its predecessors' exits); returns the nodes (with nops
        inserted when inserting) and the live producers at the block's end."""
        out: list[Node] = []
        # live producers, most recent first: [end position in wait states, entry]; producers of
        # predecessors end at <= 0 (this block starts at 0)
        live: list[tuple[int, _Entry]] = sorted(((-el, p) for p, el in live_in.items()),
                                                key=lambda t: -t[0])
        free, rule = self.free, self.rule
        cur = 0
        for node in nodes:
            c = self.entry(node.instr)
            need, culprit = 0, None
            if live:
                cmask = c.cmask
                expired = False
                for end, p in live:
                    elapsed = cur - end
                    if elapsed >= p.reach:
                        expired = True
                    elif p.pmask & cmask and _candidate(p, c, free):
                        req = rule(p.instr, c.instr) - elapsed
                        if req > need:
                            need, culprit = req, p.instr
                if expired:
                    live = [item for item in live if cur - item[0] < item[1].reach]
            if need > 0:
                if self.insert:
                    for nop in _nops(self.prog.kernel, need):
                        out.append(nop)
                        cur += wait_states(nop.instr, self.target)
                else:
                    self.violations.append(f"{section}[{len(out)}] {node.instr}: {need} wait state(s) "
                                           f"missing after {culprit}")
            out.append(node)
            cur += c.states
            if c.pmask and c.reach > 0:
                live.insert(0, (cur, c))
        exit_live: dict = {}
        for end, p in live:
            el = cur - end
            if el < p.reach and (p not in exit_live or el < exit_live[p]):
                exit_live[p] = el
        return out, exit_live


def _join(states: list[dict]) -> dict:
    """Worst case over predecessors: every live producer, with the fewest states elapsed."""
    if len(states) == 1:
        return states[0]
    out: dict = {}
    for st in states:
        for p, el in st.items():
            if p not in out or el < out[p]:
                out[p] = el
    return out


Rule = Callable[[Instr, Instr], int]   # (producer, consumer) -> wait states; default the Target's


def _walk(prog: Stream, insert: bool, rule: Rule | None = None) -> _Walker:
    """Phase 1: the live producers at every block's exit over the stream as it is, to a fixpoint
    (worklist over the CFG). Phase 2: every block in layout order from the join of its
    predecessors' exits -- the final (nops inserted) exit of a block already walked, the phase-1
    exit of a later one (a back-edge: without the nops inserted since, which can only
    under-count elapsed states, so the result is conservative)."""
    w = _Walker(prog, insert, rule)
    blocks = prog.blocks
    succ, pred = prog.cfg()
    n = len(blocks)
    probe = _Walker(prog, False, rule)
    probe.entry, probe.rule = w.entry, w.rule    # shared memos
    outs: list[dict | None] = [None] * n
    work = {0}
    runs = [0] * n
    while work:
        b = min(work)
        work.discard(b)
        runs[b] += 1
        if runs[b] > 4 * HORIZON + 8:
            raise HazardError(f"hazard analysis found no fixpoint at block {blocks[b].name}")
        live_in = _join([outs[p] for p in pred[b] if outs[p] is not None] or [{}])
        _, out = probe.run(blocks[b].nodes, live_in, blocks[b].name)
        if out != outs[b]:
            outs[b] = out
            work.update(succ[b])
    final: list[dict | None] = [None] * n
    new_nodes = []
    for b, blk in enumerate(blocks):
        ins = [(final[p] if p < b else outs[p]) for p in pred[b]]
        live_in = _join([x for x in ins if x is not None] or [{}])
        nodes, final[b] = w.run(blk.nodes, live_in, blk.name)
        new_nodes.append(nodes)
    if insert:
        for blk, nodes in zip(blocks, new_nodes):
            blk.nodes = nodes
    return w


def insert_nops(prog: Stream, rule: Rule | None = None) -> Stream:
    """Insert the fewest s_nop wait states that meet every hazard rule (in place)."""
    _walk(prog, True, rule)
    return prog


def check_hazards(prog: Stream, rule: Rule | None = None) -> list[str]:
    """Unmet hazards, one message each (empty = correct)."""
    return _walk(prog, False, rule).violations
