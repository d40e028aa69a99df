"""Hazard wait-state check: before a wave issues an instruction, every recent instruction of the
same wave is asked (through ``isa.hazards.required_wait_states`` in the judge's view "emu": exactly
the wait states AMD documents) how many wait states must separate it from this one.

Wait states elapsed between a producer and the consumer are the states of the instructions
strictly between them: each issued instruction counts 1 and ``s_nop N`` counts N+1. This is how
AMD counts them: the ISA guides' tables give "wait states (NOPs or independent instructions)",
and rocRoller's observers decrement every hazard counter by 1 + nops per instruction of any kind
(WaitStateHazardCounter::decrement), an MFMA included. The wave's running clock is
the sum of states issued so far; the history keeps (clock after the producer, entry) of producers.
Both live in one immutable state ``w.hz = (clock, history)`` (``issue`` gives the next one).

Two kinds of violation (docs/hazard-audit.md, "Open cases"):
* ``HazardError``: too few wait states, however the instructions between are counted;
* ``MfmaShadowHazardError`` (kind ``mfma_shadow``): too few counted as instructions, but enough
  if each MFMA between them counts its passes (its issue occupies the wave's matrix pipe for
  P passes). AMD's documents do not say whether that time counts, so the case is its own kind.
Neither is accepted by default. ``Emulator(allow_hazards={rule, ...})`` lets violations of the
named rules (either kind) run on; each is counted in ``Emulator.allowed_hazards`` as
(rule, kind) -> occurrences, never silently. MFMAs between the two that have already left the
history (their own largest requirement elapsed) are not counted for the shadow, which can only
turn a shadow case into a plain HazardError (stricter).

Speed: ``classify`` gives every decoded instruction a bit mask of the isa.hazards rules it can
produce and consume, and the largest wait its produced rules can need; a pair is only asked when
the masks intersect and the producer is recent enough, and the answer is cached per (producer pc,
consumer pc) in the program (both instructions are fixed by their pcs). The masks are a filter
only: the wait states always come from ``required_wait_states``.
"""
from __future__ import annotations

from .errors import HazardError, MfmaShadowHazardError

VIEW = "emu"   # isa.hazards view the judge enforces

# Used when isa.hazards has no rule classes: LLVM's GCNHazardRecognizer looks at most 19 wait
# states back (MaxLookAhead with AGPRs); the largest gfx950 requirement is 20 (16-pass XDL P+4).
MAX_LOOKBACK = 24

_hz = None


def available() -> bool:
    """True when isa.hazards exists."""
    global _hz
    if _hz is None:
        try:
            from .. import hazards
        except ImportError:
            return False
        _hz = hazards
    return True


def classify(arch: str, e) -> None:
    """Set ``e.hz_prod`` / ``e.hz_cons`` / ``e.hz_max`` from the isa.hazards rule classes.

    Cached per (arch, spec, instruction shape), the shape being the instruction with its VGPR and
    AGPR indices left out (``shape``): the rule classes test which files and operand slots an
    instruction reads and writes, never which vector register (SGPR indices stay in the key: vcc
    and the other special SGPRs are named by index). The fuzzer's schedules of one kernel differ
    mostly in register allocation, so most of their instructions share a shape.
    tests/emu/test_hazard_classes.py checks the invariance over many kernels' instructions."""
    if e.spec is None or not available():
        e.hz_prod, e.hz_cons, e.hz_max = 0, 0, 0
        return
    key = (arch, id(e.spec), shape(e.instr))
    hit = _CLASSES.get(key)
    if hit is None or hit[0] is not e.spec:
        hit = (e.spec,) + classes(arch, e.spec, e.instr)
        if len(_CLASSES) >= 100_000:
            _CLASSES.clear()
        _CLASSES[key] = hit
    e.hz_prod, e.hz_cons, e.hz_max = hit[1:]


_CLASSES: dict = {}


def shape(ins):
    """``ins`` without the indices of its VGPR and AGPR operands (the key of ``classify``)."""
    from ..operands import Reg
    ops = tuple(("reg", o.file, o.count) if isinstance(o, Reg) and o.file in ("v", "a") else o
                for o in ins.operands)
    return (ins.op, ops, ins.mods, ins.encoding)


def classes(arch: str, spec, ins) -> tuple[int, int, int]:
    """(producer mask, consumer mask, largest produced wait) of one instruction, uncached."""
    hz = _hz
    needed = ("rules", "PRODUCERS", "CONSUMERS", "PRODUCED", "mfma_passes")
    if not all(hasattr(hz, n) for n in needed):      # no rule classes: ask for every pair
        return -1, -1, MAX_LOOKBACK
    from ..access import accesses
    reads, writes = accesses(spec, ins)
    passes = hz.mfma_passes(arch, spec, ins) if spec.has("mfma") else 0
    prod = cons = 0
    mx = 0
    for i, r in enumerate(hz.rules(arch)):
        if hz.PRODUCERS[r.producer](spec, ins) and hz.PRODUCED[r.produced](reads, writes):
            prod |= 1 << i
            mx = max(mx, r.wait_for(VIEW)(arch, passes))
        if hz.CONSUMERS[r.consumer](spec, ins):
            cons |= 1 << i
    return prod, cons, mx


def check(m, w, e, clock: int, hist: tuple) -> tuple:
    """Raise HazardError if ``e`` issued now by ``w`` (its wait-state ``clock`` and producer
    history ``hist``) would miss a required wait state; return the history without the producers
    whose largest possible requirement has elapsed (the machine appends to it). ``hist`` holds
    (expiry clock, clock after the producer, entry) of recent producers. The wait a (producer pc,
    consumer pc) pair needs is asked once and kept in the consumer's ``hz_need`` (0 when the rule
    masks do not intersect).

    The history is walked newest first, so the error names the NEAREST unsatisfied producer
    (the one whose result the consumer actually waits on, e.g. the last MFMA of an accumulate
    chain), not an older one that happens to touch the same registers."""
    if hist[0][0] <= clock:
        hist = tuple(h for h in hist if h[0] > clock)
    needs = e.hz_need
    for h in reversed(hist):
        prev = h[2]
        need = needs.get(prev.pc)
        if need is None:
            need = _need(m, prev, e)
            needs[prev.pc] = need
        if need and clock - h[1] < need:
            _violation(m, w, e, h, clock, hist)
    return hist


def issue(m, w, e, st: tuple) -> tuple:
    """The wave's hazard state ``(clock, history)`` after it issues ``e`` from state ``st``
    (``w.hz``): ``e`` checked against the history when it can consume a rule's result, the clock
    advanced by ``e``'s wait states, ``e`` appended when it can produce one. States are immutable
    tuples, so waves that ran in lockstep share one (isa.emu.pool checks a group step's members
    whose state is the last walked one's, or equal to it, once: ``check`` is a function of
    history, clock and instruction alone)."""
    clock, hist = st
    if hist and e.hz_cons:
        hist = check(m, w, e, clock, hist)
    clock += e.ws
    if e.hz_prod:
        hist = hist + ((clock + e.hz_max, clock, e),)
    return (clock, hist)


EMPTY = (0, ())     # the hazard state of a wave that issued nothing yet


def _need(m, prev, e) -> int:
    if not (prev.hz_prod & e.hz_cons):
        return 0
    key = (prev.pc, e.pc)
    cache = m.program.hz_cache
    need = cache.get(key)
    if need is None:
        need = _hz.required_wait_states(m.arch, prev.instr, e.instr, VIEW)
        cache[key] = need
    return need


def _shadow_elapsed(m, hist: tuple, h, clock: int) -> int:
    """Wait states since producer ``h`` if each MFMA issued after it counts its passes."""
    got = clock - h[1]
    for o in hist:
        if h[1] < o[1] <= clock and o[2].is_mfma:
            oe = o[2]
            got += max(0, _hz.mfma_passes(m.arch, oe.spec, oe.instr) - 1)
    return got


def _violation(m, w, e, h, clock: int, hist: tuple) -> None:
    """Classify the unmet requirement of producer ``h`` before ``e``: raise, or count it when
    every violated rule is allowed (``m.allow_hazards``, ``m.allowed_hazards``)."""
    prev = h[2]
    got = clock - h[1]
    shadow = _shadow_elapsed(m, hist, h, clock)
    key = (prev.pc, e.pc, got, shadow)
    cache = m.program.hz_cache
    verdict = cache.get(key)
    if verdict is None:
        hits = [(r, n, "mfma_shadow" if shadow >= n else "hazard")
                for r, n in _hz.matching_rules(m.arch, prev.instr, e.instr, VIEW) if got < n]
        cache[key] = verdict = tuple(hits)
    allow = getattr(m, "allow_hazards", None) or ()
    if allow and all(r.name in allow for r, _, _ in verdict):
        counts = getattr(m, "allowed_hazards", None)
        if counts is not None:
            for r, _, kind in verdict:
                counts[(r.name, kind)] = counts.get((r.name, kind), 0) + 1
        return
    hard = [v for v in verdict if v[2] == "hazard" and v[0].name not in allow]
    cls = HazardError if hard else MfmaShadowHazardError
    need = max(n for _, n, _ in verdict)
    rules = ", ".join(f"{r.name} ({n}{', mfma_shadow' if k == 'mfma_shadow' else ''})"
                      for r, n, k in verdict)
    what = (f"hazard: '{e.instr}' needs {need} wait states after pc {prev.pc} '{prev.instr}', "
            f"got {got} (rule: {rules})")
    if not hard:
        what += (f"; counting each MFMA between them at its passes gives {shadow}, which AMD's "
                 "documents neither require nor exclude (allow with allow_hazards="
                 f"{{{', '.join(repr(r.name) for r, _, _ in verdict)}}})")
    err = m.error(cls, what, w)
    err.rules = tuple(r.name for r, _, _ in verdict)
    raise err
