"""Mutation sites of the mutation proof: the kernel's .s text as a ``Program``, the ``Mutant``
edit, and, per class, the sites where the mutation breaks a dependence of the stream (chosen with
``asmgen.fuzz.predict``, never by running the emulator). The class table is in
``asmgen.fuzz.mutate``.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from isa.asm_parse import parse_line
from isa.instr import Instr
from isa.operands import Imm, Reg

from ..passes.effects import effects
from ..target import Target
from .predict import (
    HAZARD_WINDOW,
    PUBLISH,
    barrier_intervals,
    new_violations,
    published_read,
    unrolled,
    wait_states,
)

ANY = "any"          # expected error for swap_dependent: a wrong result or any emulator error


@dataclass
class Program:
    """A kernel's .s text split into lines, with its instructions (line index, Instr)."""

    lines: list[str]
    at: list[int]              # line index of instruction i
    instrs: list[Instr]
    target: Target

    @classmethod
    def from_asm(cls, asm: str, target: Target, kernel: str) -> Program:
        lines = asm.split("\n")
        at, instrs, inside = [], [], False
        for n, line in enumerate(lines):
            s = line.strip()
            if s == f"{kernel}:":
                inside = True
                continue
            if inside and s.startswith(".L") and s.endswith("_end:"):
                break
            if not inside or not line.startswith("  "):
                continue
            ins = parse_line(s, target.arch)
            if ins is not None:
                at.append(n)
                instrs.append(ins)
        return cls(lines, at, instrs, target)

    def loop_range(self) -> range:
        """Instruction indices of the first loop body (label to its backward branch), or empty."""
        loops = self.loop_ranges()
        return loops[0] if loops else range(0)

    def loop_ranges(self) -> list[range]:
        """Every loop body of the stream: a label inside the kernel followed, later, by a
        conditional branch back to it (whatever the template calls its loops)."""
        out = []
        for n, line in enumerate(self.lines):
            s = line.strip()
            if s.endswith(":") and not line.startswith((" ", ".")) and n > 0 and \
                    self.at and self.at[0] < n <= self.at[-1]:
                label = s[:-1]
                start = sum(1 for a in self.at if a < n)
                for i in range(start, len(self.instrs)):
                    ins = self.instrs[i]
                    if ins.op.startswith("s_cbranch") and label in map(str, ins.operands):
                        out.append(range(start, i))
                        break
        return out


@dataclass
class Mutant:
    cls: str
    site: int                       # instruction index in the original stream
    description: str
    edits: list                     # [(op, instr index, text)]: "del" / "ins_before" / "replace"
    expected: tuple[str, ...]       # error class names; () for neutral mutations
    instrs: list[Instr] = field(default_factory=list, repr=False)

    def apply(self, prog: Program) -> str:
        lines = list(prog.lines)
        # edit from the bottom up so earlier line numbers stay valid
        for op, idx, text in sorted(self.edits, key=lambda e: (prog.at[e[1]], e[0] != "del"),
                                    reverse=True):
            ln = prog.at[idx]
            if op == "del":
                del lines[ln]
            elif op == "replace":
                lines[ln] = "  " + text
            elif op == "ins_before":
                lines.insert(ln, "  " + text)
        return "\n".join(lines)


# --------------------------------------------------------------------------------------------
# site selection
def _ident(instrs):
    return [id(x) for x in instrs]


def _predict(prog: Program, mutated: list[Instr]) -> list:
    return new_violations(prog.instrs, mutated, prog.target, _ident(prog.instrs), _ident(mutated))


def _waitcnt_text(vm: int, lg: int) -> str:
    parts = []
    if vm < 63:
        parts.append(f"vmcnt({vm})")
    if lg < 15:
        parts.append(f"lgkmcnt({lg})")
    return "s_waitcnt " + " ".join(parts) if parts else "s_nop 0"


def _waitcnt_instr(target: Target, text: str) -> Instr:
    return parse_line(text, target.arch)


def _deletion_error(prog: Program, i: int, waves: int) -> tuple[str, ...] | None:
    """The error(s) deleting the wait at ``i`` must raise, or None when it breaks nothing
    provably. The walk is ``predict.unrolled`` (loop bodies twice: a load left pending at the
    loop's end is read by the next trip); the first new violation *as the emulator meets it*
    decides: a register one where its reader or writer stands, an unpublished LDS write at the
    first read of its bytes (``published_read``; never, when its writer retires it first), an
    unpublished LDS-DMA as either error (its own wave's read: a DMA not waited for; another
    wave's: a race, whichever the waves' interleaving brings first). The deleted wait was also
    one wait state (cdna-facts section 3): a hazard it alone covered is a new violation too
    (HazardError where its consumer stands; seen with a K-tail mask's v_cmp -> v_cndmask SGPR
    pair, valu_sgpr_valu, in the mxfp4 NN interleave proof kernel)."""
    loops = prog.loop_ranges()
    order = unrolled(len(prog.instrs), loops)
    mut_order = [j for j in order if j != i]
    orig = [prog.instrs[j] for j in order]
    mut = [prog.instrs[j] for j in mut_order]
    # only consumers within a hazard window after a deleted copy can meet a new hazard
    # (hazard_violations looks back HAZARD_WINDOW instructions); the orig window is wider by
    # the copies deleted before, so each mut consumer's own orig verdict is in it
    dels = [k for k, j in enumerate(order) if j == i]
    reach = HAZARD_WINDOW + 3
    near_orig = sorted({c for d in dels for c in range(d, min(len(orig), d + reach + 1))})
    near_mut = sorted({c for n, d in enumerate(dels)
                       for c in range(max(0, d - n), min(len(mut), d - n + reach))})
    new = new_violations(orig, mut, prog.target, _ident(orig), _ident(mut), hazards=True,
                         near=(near_orig, near_mut))
    events = [(v.index, (v.error,)) for v in new if v.detail != PUBLISH]
    if any(v.detail == PUBLISH for v in new):
        hit = published_read(prog.instrs, prog.target, i, loops, 64 * waves)
        if hit is not None:
            pos, dma = hit
            events.append((pos, ("LdsRaceError", "PendingReadError") if dma else
                           ("LdsRaceError",)))
    return min(events, key=lambda e: e[0])[1] if events else None   # ties: reads first


def sites_waitcnt(prog: Program, waves: int) -> tuple[list[Mutant], list[Mutant]]:
    from .predict import _waitcnt
    dels, raises = [], []
    for i, ins in enumerate(prog.instrs):
        if not effects(prog.target, ins).waitcnt:
            continue
        mut = prog.instrs[:i] + prog.instrs[i + 1:]
        expected = _deletion_error(prog, i, waves)
        if expected:
            dels.append(Mutant("delete_waitcnt", i, f"delete [{i}] {ins}", [("del", i, "")],
                               expected, mut))
        vm, lg = _waitcnt(ins)
        for nvm, nlg in ((vm + 1, lg), (vm, lg + 1)):
            if (nvm, nlg) == (vm, lg) or nvm > 63 or nlg > 15 or (nvm != vm and vm == 63) \
                    or (nlg != lg and lg == 15):
                continue
            text = _waitcnt_text(nvm, nlg)
            w = _waitcnt_instr(prog.target, text)
            mut = prog.instrs[:i] + [w] + prog.instrs[i + 1:]
            # leaving only the newest LDS write pending at an s_barrier matters only if another
            # wave reads those bytes in the next barrier epoch; without addresses that is not
            # provable (a prefetch-buffer write is read an epoch later), so such sites are skipped
            new = [v for v in _predict(prog, mut) if v.detail != PUBLISH]
            if new:
                raises.append(Mutant("raise_waitcnt", i, f"[{i}] {ins} -> {text}",
                                     [("replace", i, text)], (new[0].error,), mut))
    return dels, raises


def sites_barrier(prog: Program, waves: int) -> list[Mutant]:
    if waves < 2:
        return []          # one wave cannot race with itself
    out = []
    for i, both, write in barrier_intervals(prog.instrs, prog.target):
        if both and write:
            out.append(Mutant("delete_barrier", i, f"delete [{i}] s_barrier", [("del", i, "")],
                              ("LdsRaceError",)))
    return out


def sites_nop(prog: Program, waves: int) -> list[Mutant]:
    out = []
    target = prog.target
    ins_ = prog.instrs
    for i, ins in enumerate(ins_):
        if not effects(target, ins).nop:
            continue
        n = int(ins.operands[0].value) if ins.operands and isinstance(ins.operands[0], Imm) else 0
        lo, hi = max(0, i - 30), min(len(ins_), i + 30)
        hit = None
        for c in range(i + 1, hi):            # consumers after the nop, producers before it
            for p in range(i - 1, lo - 1, -1):
                need = target.required_wait_states(ins_[p], ins_[c], "emu")   # the judge's view
                if need <= 0:
                    continue
                elapsed = sum(wait_states(target, x) for x in ins_[p + 1:c])
                if elapsed >= need and elapsed - 1 < need:
                    hit = (p, c, need, elapsed)
                    break
            if hit:
                break
        if hit:
            text = f"s_nop {n - 1}" if n > 0 else None
            edit = ("replace", i, text) if text else ("del", i, "")
            p, c, need, el = hit
            out.append(Mutant("shorten_nop", i, f"[{i}] {ins} -> {text or 'deleted'} "
                              f"([{p}] {ins_[p]} -> [{c}] {ins_[c]} needs {need}, had {el})",
                              [edit], ("HazardError", "MfmaShadowHazardError")))
    return out


def _slice(prog: Program, w: int, i: int) -> list[int] | None:
    """The ALU instructions in (w, i) that compute the sources of instruction ``i`` (backward
    closure), or None when one of them is not ALU or moving them above ``w`` would change what any
    other instruction in between reads or writes."""
    target = prog.target
    need = set(effects(target, prog.instrs[i]).reg_reads)
    members: list[int] = []
    for j in range(i - 1, w, -1):
        e = effects(target, prog.instrs[j])
        if set(e.reg_writes) & need:
            if not _alu(e):
                return None
            members.append(j)
            need |= set(e.reg_reads)
    members.reverse()
    moved = set(members) | {i}
    touched = set()
    for j in moved:
        e = effects(target, prog.instrs[j])
        touched |= set(e.reg_writes)
    for j in range(w + 1, i):
        if j in moved:
            continue
        e = effects(target, prog.instrs[j])
        if touched & (set(e.reg_reads) | set(e.reg_writes)):
            return None
    return members


def sites_hoist(prog: Program, waves: int, max_back: int = 3) -> list[Mutant]:
    """Move a ds_read (with the ALU slice computing its address) above the nearest of the last
    ``max_back`` s_waitcnt before it where that breaks something: predicted error from the stream
    model, or LdsRaceError when it crosses an s_barrier that orders it after LDS writes."""
    out = []
    target = prog.target
    waits: list[int] = []                  # waits since the loop edge, in order
    for i, ins in enumerate(prog.instrs):
        e = effects(target, ins)
        if e.waitcnt:
            waits.append(i)
            continue
        if ins.op.startswith(("s_cbranch", "s_branch")) or ins.op == "s_endpgm":
            waits = []       # never move across the loop edge
            continue
        if not ins.op.startswith("ds_read"):
            continue
        for w in reversed(waits[-max_back:]):
            m = _hoist(prog, w, i, waves)
            if m is not None:
                out.append(m)
                break
    return out


def _hoist(prog: Program, w: int, i: int, waves: int) -> Mutant | None:
    members = _slice(prog, w, i)
    if members is None:
        return None
    target = prog.target
    moved = members + [i]
    block = [prog.instrs[j] for j in moved]
    rest = [prog.instrs[j] for j in range(w, i) if j not in moved]
    mut = prog.instrs[:w] + block + rest + prog.instrs[i + 1:]
    new = _predict(prog, mut)
    if new:
        expected = (new[0].error,)
        if expected == ("HazardError",):   # the judge names the open MFMA-shadow case apart
            expected += ("MfmaShadowHazardError",)
    else:
        # crossing an s_barrier that follows LDS writes (since the wait): another wave's write
        writes = barrier = dma = False
        for j in range(w - 1, -1, -1):        # LDS writes since the barrier before the wait
            e = effects(target, prog.instrs[j])
            if e.barrier:
                break
            writes = writes or (e.lds and e.lds_store)
            dma = dma or e.lds_dma
        for j in range(w, i):
            e = effects(target, prog.instrs[j])
            writes = writes or (e.lds and e.lds_store)
            dma = dma or e.lds_dma
            barrier = barrier or (e.barrier and writes)
        if not (barrier and waves > 1):
            return None
        # another wave's write is a race; when it is an LDS-DMA still in flight, the emulator
        # names it at the read as an LDS-DMA write nobody waited for (PendingReadError)
        expected = ("LdsRaceError", "PendingReadError") if dma else ("LdsRaceError",)
    text = "\n  ".join(str(prog.instrs[j]) for j in moved)
    edits = [("del", j, "") for j in moved] + [("ins_before", w, text)]
    note = f" with {len(members)} address instr(s)" if members else ""
    return Mutant("hoist_ds_read", i, f"move [{i}] {prog.instrs[i]}{note} above [{w}] "
                  f"{prog.instrs[w]}", edits, expected)


def _alu(e) -> bool:
    return (not e.is_mem and not e.waitcnt and not e.nop and not e.barrier and not e.lds
            and not e.spec.name.startswith(("s_cbranch", "s_branch", "s_endpgm", "s_setprio")))


# Extremum ops (max/min/med3, VALU and SALU, packed too): a stale operand changes their result
# only when it wins the comparison, which depends on the data, not on the stream. In attention the
# row maximum is the softmax shift, and O = exp(s - m) V / sum exp(s - m), LSE = m + log sum
# exp(s - m) do not depend on m beyond rounding; the stale candidate is the same row's score of
# the previous key block, already below the running maximum. Swaps into or out of such ops are
# equivalent mutants there (the attention proof found them as survivors), so they are no sites.
EXTREMUM_PREFIXES = ("v_max", "v_min", "v_med3", "v_pk_max", "v_pk_min", "s_max", "s_min")


def _extremum(op: str) -> bool:
    return op.startswith(EXTREMUM_PREFIXES)


ACCUMULATE_OPS = ("v_add_f32", "v_pk_add_f32")


def _accumulate_pair(a, b) -> bool:
    """``x = x + p; x = x + q`` (one commutative float add, one accumulator written and read by
    both, the other sources distinct from it): the swap reassociates the sum, a rounding change."""
    if a.op != b.op or a.op not in ACCUMULATE_OPS or len(a.operands) < 3 or len(b.operands) < 3:
        return False
    acc = str(a.operands[0])
    if str(b.operands[0]) != acc:
        return False
    srcs_a, srcs_b = [str(o) for o in a.operands[1:3]], [str(o) for o in b.operands[1:3]]
    return srcs_a.count(acc) == 1 and srcs_b.count(acc) == 1


def sites_swap(prog: Program, waves: int) -> list[Mutant]:
    """Adjacent ALU pairs in a loop body where the second reads what the first writes: it then
    sees the previous trip's value, which differs (addresses and counters advance every trip; in
    the prologue a stale value can equal the new one, e.g. a K offset that is still 0). Two MFMAs
    chained through their accumulator are excluded: swapping them only reassociates the sum; so
    are two of one float add into one accumulator (``ACCUMULATE_OPS``: a running sum, ``l += p``),
    and pairs with an extremum op (see ``EXTREMUM_PREFIXES``)."""
    out = []
    target = prog.target
    for body in prog.loop_ranges():
        for i in body:
            if i + 1 not in body:
                break
            a, b = prog.instrs[i], prog.instrs[i + 1]
            ea, eb = effects(target, a), effects(target, b)
            if not (_alu(ea) and _alu(eb)) or (ea.mfma and eb.mfma):
                continue
            if _extremum(a.op) or _extremum(b.op) or _accumulate_pair(a, b):
                continue
            raw = set(ea.reg_writes) & set(eb.reg_reads)
            if not raw:
                continue
            out.append(Mutant("swap_dependent", i, f"swap [{i}] {a} <-> [{i + 1}] {b}",
                              [("replace", i, str(b)), ("replace", i + 1, str(a))], (ANY,)))
    return out


def sites_reuse(prog: Program, waves: int) -> list[Mutant]:
    out = []
    target = prog.target
    for i, ins in enumerate(prog.instrs):
        e = effects(target, ins)
        if e.counter is None or e.lds_dma or not e.dst_ops:
            continue
        dst = ins.operands[e.dst_ops[0]]
        if not isinstance(dst, Reg) or dst.file not in ("v", "s"):
            continue
        mov = "v_mov_b32" if dst.file == "v" else "s_mov_b32"
        text = f"{mov} {dst.file}{dst.index}, 0"
        nxt = i + 1
        if nxt >= len(prog.instrs):
            continue
        out.append(Mutant("reuse_inflight", i, f"'{text}' right after [{i}] {ins}",
                          [("ins_before", nxt, text)], ("PendingOverwriteError",)))
    return out


def sites_setprio(prog: Program, waves: int) -> list[Mutant]:
    """Drop an ``s_setprio``: neutral, priority only orders issue between waves (no LLVM hazard
    rule involves it on gfx9, cdna-facts section 3). But it is an issued instruction and so one
    wait state (same section): where a hazard window counts it, dropping it leaves the consumer
    short of wait states (the attention proof found one after an MFMA on gfx950) and the drop is
    not neutral; such sites are ``setprio_hazard_sites`` and not offered here."""
    hazard = set(setprio_hazard_sites(prog))
    return [Mutant("drop_setprio", i, f"delete [{i}] {ins}", [("del", i, "")], ())
            for i, ins in enumerate(prog.instrs) if ins.op == "s_setprio" and i not in hazard]


def setprio_hazard_sites(prog: Program) -> list[int]:
    """``s_setprio`` instructions whose deletion leaves a hazard short of wait states: a producer
    before it and a consumer after it (within ``HAZARD_WINDOW``) whose required states are met
    with the setprio's one state and not without it."""
    target, ins_ = prog.target, prog.instrs
    states = [wait_states(target, x) for x in ins_]
    out = []
    for i, ins in enumerate(ins_):
        if ins.op != "s_setprio":
            continue
        hit = False
        for c in range(i + 1, min(len(ins_), i + HAZARD_WINDOW + 1)):
            elapsed = sum(states[i + 1:c])            # states between the setprio and c
            for p in range(i - 1, max(-1, i - HAZARD_WINDOW - 1), -1):
                if p < i - 1:
                    elapsed += states[p + 1]
                if elapsed >= HAZARD_WINDOW:
                    break
                need = target.required_wait_states(ins_[p], ins_[c], "emu")   # the judge's view
                if elapsed + 1 >= need > elapsed:     # + 1: the setprio itself
                    hit = True
                    break
            if hit:
                break
        if hit:
            out.append(i)
    return out


AIMED_CLASSES = ("delete_waitcnt", "raise_waitcnt")


def aimed_at(prog: Program, mutants: list[Mutant], load_ops: tuple[str, ...]) -> list[Mutant]:
    """The wait mutants (``sites_waitcnt``) that break a load of ``load_ops`` (e.g. the MX
    block-scale ``buffer_load_ubyte``): a new predicted register violation names such a load
    as the pending producer (its consumer reads, or a write clobbers, what the load still
    writes), i.e. the wait that guarded that load is gone or too loose. Static, like every
    site choice (``asmgen.fuzz.predict``)."""
    out = []
    for m in mutants:
        for v in _predict(prog, m.instrs):
            if any(f"] {op} " in v.detail for op in load_ops):
                out.append(Mutant(m.cls, m.site, f"[aimed at {'/'.join(load_ops)}] "
                                  f"{m.description}", m.edits, m.expected, m.instrs))
                break
    return out


def all_sites(prog: Program, waves: int) -> dict[str, list[Mutant]]:
    dels, raises = sites_waitcnt(prog, waves)
    return {"delete_waitcnt": dels, "raise_waitcnt": raises,
            "delete_barrier": sites_barrier(prog, waves), "shorten_nop": sites_nop(prog, waves),
            "hoist_ds_read": sites_hoist(prog, waves), "swap_dependent": sites_swap(prog, waves),
            "reuse_inflight": sites_reuse(prog, waves), "drop_setprio": sites_setprio(prog, waves)}
