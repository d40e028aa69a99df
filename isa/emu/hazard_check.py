"""Hazard wait-state check: before a wave issues an instruction, every recent instruction of the
same wave is asked (through ``isa.hazards.required_wait_states``) how many wait states must
separate it from this one; fewer elapsed is a ``HazardError``.

Wait states elapsed between a producer and the consumer are the states of the instructions
strictly between them: each issued instruction counts 1 and ``s_nop N`` counts N+1
(cdna-facts section 3). The wave's running clock ``w.ws_clock`` is the sum of states issued so
far; the history keeps (clock after the producer, entry) of producers only.

Speed: ``classify`` gives every decoded instruction a bit mask of the isa.hazards rules it can
produce and consume, and the largest wait its produced rules can need; a pair is only asked when
the masks intersect and the producer is recent enough, and the answer is cached per (producer pc,
consumer pc) in the program (both instructions are fixed by their pcs). The masks are a filter
only: the wait states always come from ``required_wait_states``.
"""
from __future__ import annotations

from .errors import HazardError

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
    """Set ``e.hz_prod`` / ``e.hz_cons`` / ``e.hz_max`` from the isa.hazards rule classes."""
    if e.spec is None or not available():
        e.hz_prod, e.hz_cons, e.hz_max = 0, 0, 0
        return
    hz = _hz
    needed = ("rules", "PRODUCERS", "CONSUMERS", "PRODUCED", "mfma_passes")
    if not all(hasattr(hz, n) for n in needed):      # no rule classes: ask for every pair
        e.hz_prod, e.hz_cons, e.hz_max = -1, -1, MAX_LOOKBACK
        return
    from ..access import accesses
    spec, ins = e.spec, e.instr
    reads, writes = accesses(spec, ins)
    passes = hz.mfma_passes(arch, spec, ins) if spec.has("mfma") else 0
    prod = cons = 0
    mx = 0
    for i, r in enumerate(hz.rules(arch)):
        if hz.PRODUCERS[r.producer](spec, ins) and hz.PRODUCED[r.produced](reads, writes):
            prod |= 1 << i
            mx = max(mx, r.wait(arch, passes))
        if hz.CONSUMERS[r.consumer](spec, ins):
            cons |= 1 << i
    e.hz_prod, e.hz_cons, e.hz_max = prod, cons, mx


def check(m, w, e) -> None:
    """Raise HazardError if ``e`` issued now by ``w`` would miss a required wait state.
    ``w.hazard_hist`` holds (expiry clock, clock after the producer, entry) of producers whose
    largest possible requirement has not yet elapsed (appended by the machine). The wait a
    (producer pc, consumer pc) pair needs is asked once and kept in the consumer's ``hz_need``
    (0 when the rule masks do not intersect)."""
    hist = w.hazard_hist
    clock = w.ws_clock
    if hist[0][0] <= clock:
        hist[:] = [h for h in hist if h[0] > clock]
    needs = e.hz_need
    for h in hist:
        prev = h[2]
        need = needs.get(prev.pc)
        if need is None:
            need = _need(m, prev, e)
            needs[prev.pc] = need
        if need and clock - h[1] < need:
            raise m.error(HazardError, _message(m.arch, prev, e, need, clock - h[1]), w)


def _need(m, prev, e) -> int:
    if not (prev.hz_prod & e.hz_cons):
        return 0
    key = (prev.pc, e.pc)
    cache = m.program.hz_cache
    need = cache.get(key)
    if need is None:
        need = _hz.required_wait_states(m.arch, prev.instr, e.instr)
        cache[key] = need
    return need


def _message(arch, prev, e, need: int, got: int) -> str:
    rules = ", ".join(f"{r.name} ({n})" for r, n in _hz.matching_rules(arch, prev.instr, e.instr))
    return (f"hazard: '{e.instr}' needs {need} wait states after pc {prev.pc} '{prev.instr}', "
            f"got {got} (rule: {rules})")
