"""How long ``asmgen check`` would emulate a kernel, and the runtime sizes it checks at.

The estimate (``estimate``) needs no emulation:

    instructions = workgroups x waves per workgroup x (S_rest + S_loop x trips)
    seconds      = instructions / EMU_INSTR_PER_SECOND

* ``workgroups``: the runtime grid at those sizes (``launch.grid_of``: the contract's
  ``grid_from``); ``waves``: the contract's block over 64 lanes.
* ``S_loop``: instructions one trip of the kernel's main loop runs, at most: the regions of the
  backward branches of the decoded code object (overlapping spans merged: cold arms after a
  latch), and the longest path through one from its head back to it, one arm of each branch
  (``static_counts``, ``loop_counts``: causal attention counts one of its unmasked, triangle,
  masked and skip bodies per trip, not all, whichever of its two loops holds it); ``S_rest``:
  every instruction outside those regions, counted once (prologue, epilogue, both arms of a
  branch: an upper bound for straight code).
* ``trips``: loop iterations per workgroup at those sizes, from the kind
  (``KernelKind.check_shape``: a GEMM's K tiles, attention's key blocks; causal attention the
  mean over its Q-blocks, exact for the sum over workgroups).
* ``EMU_INSTR_PER_SECOND``: the emulator's rate in wave-instructions per second, measured on
  this 2-core machine under the usual load (``benchmarks/check_rate.py`` prints it, and the
  estimate's ratio to the measured time, for GEMM and attention kernels).

The sizes (``choose_sizes``): the contract's own when the estimate fits the budget (or
``--full``); otherwise the kind's candidates (``CheckShape.shrink``: per size a period, the tile
or block it is walked in, and a floor) give smaller sizes that keep each size's remainder modulo
its period (a partial last tile stays partial), stay a multiple of the contract's
``multiple_of``, and are refused by the contract's own scalar rules (baked sizes, ranges,
``divides``) exactly as a launch would refuse them: a size that cannot shrink keeps its value. Of
the candidates, from the mildest (each size halved towards its floor, repeatedly) to the floors,
the first that fits is used; when none fits, the smallest.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from ..kernarg import as_args
from .launch import LaunchError, grid_of, resolve_scalars, scalar_value

# wave-instructions per second of isa.emu, wall clock, on this 2-core machine under its usual load.
# Measured 2026-12-04 22:32 UTC with `PYTHONPATH=. python benchmarks/check_rate.py` under load 6.6
# (8 engineers): 53k/s wall, 162k/s CPU (README GEMM at 256^3), 95k/277k (f16 GEMM), 22k/66k
# (attention), 118k/196k (README GEMM at 2048x2048x512: 256 workgroups in 2 shards on 2
# processes, isa.emu.shards); under load 4 the same GEMM rows gave 220k/s wall. Earlier the
# same day (before session 8's emulator speed-ups) 67k/s quiet and 25k/s under load. 80k/s is the
# GEMM figure under the usual load (attention runs about 3x slower per instruction); the estimate
# is an order of magnitude, not a promise. Checked against the README's 4096^3 `asmgen check
# --full` (2026-12-04 22:35, load 6-7.6, 2 shards on 2 processes): estimated ~10 min, ran 11 min 14 s
# wall, 325 s CPU (310 user + 15 sys: 152k wave-instructions per CPU second).
EMU_INSTR_PER_SECOND = 80_000.0
DEFAULT_BUDGET_S = 30.0


@dataclass(frozen=True)
class CheckShape:
    """What a kind tells ``check`` about its runtime sizes: ``trips(scalars)`` loop iterations
    per workgroup; ``shrink``: (size name, period, floor) per size that may be made smaller."""

    trips: Callable[[Mapping[str, int]], float]
    shrink: tuple[tuple[str, int, int], ...] = ()


@dataclass(frozen=True)
class Estimate:
    sizes: dict
    workgroups: int
    instructions: int
    seconds: float

    def describe(self) -> str:
        return (f"{self.workgroups} workgroups, ~{self.instructions:.2g} wave-instructions, "
                f"~{_duration(self.seconds)} at ~{EMU_INSTR_PER_SECOND:.0f}/s")


@dataclass(frozen=True)
class SizeChoice:
    sizes: dict                  # runtime sizes to pass (empty: the contract's)
    estimate: Estimate
    full: Estimate               # at the contract's sizes
    reason: str
    reduced: bool = False
    kept: dict = field(default_factory=dict)   # size -> why it could not shrink


def launch_shards(workgroups: int, waves: int, lds_bytes: int) -> int:
    """Shards the emulator splits such a launch into by default (isa.emu.shards)."""
    from isa.emu.launch import auto_shards
    from isa.emu.pool import capacity
    return auto_shards(workgroups, capacity(workgroups, waves, lds_bytes))


def static_counts(hsaco: bytes, kernel: str, arch: str) -> tuple[int, int]:
    """(S_rest, S_loop) of the kernel's code (see the module doc); S_loop 0 without a loop."""
    from isa.codeobj import CodeObject
    from isa.decode import decode
    co = CodeObject.from_bytes(hsaco)
    return loop_counts(decode(co.kernels[kernel].code, arch))


def _targets(decoded) -> list[tuple[int, int | None, bool]]:
    """Per instruction: (index, branch target index or None, falls through)."""
    from isa.decode import label_index
    from isa.operands import Label
    labels = label_index(decoded)
    out = []
    for i, d in enumerate(decoded):
        op = d.instr.op
        tgt = None
        if op.startswith(("s_branch", "s_cbranch")):
            tgt = next((labels[o.name] for o in d.instr.operands
                        if isinstance(o, Label) and o.name in labels), None)
        falls = not (op == "s_branch" or op.startswith(("s_endpgm", "s_setpc")))
        out.append((i, tgt, falls))
    return out


def loop_counts(decoded) -> tuple[int, int]:
    """(S_rest, S_loop) of decoded code. A loop region: a backward branch's span, widened by
    every backward branch that starts or lands inside it (a loop whose cold arms sit after its
    latch and jump back to it); its head is the region's first instruction. S_loop: the longest
    path of one trip, from the head to a branch back to it (one arm of each branch inside the
    loop, the longest), so a loop of several bodies counts one per trip; with several disjoint
    regions (causal attention's off-diagonal loop, then its diagonal loop,
    ``kinds.attention.kvloop``: the kind's trips are both loops' together) the longest of their
    trips; S_rest: every instruction outside the regions. A region holding another cycle (a
    nested loop) counts its whole span per trip, as before (an upper bound)."""
    br = _targets(decoded)
    back = [(i, t) for i, t, _ in br if t is not None and t <= i]
    if not back:
        return len(decoded), 0
    regions: list[list[int]] = []
    for i, t in sorted(back, key=lambda b: b[1]):      # merge the spans that overlap
        if regions and t <= regions[-1][1]:
            regions[-1][1] = max(regions[-1][1], i)
        else:
            regions.append([t, i])
    spans = [hi - lo + 1 for lo, hi in regions]
    trips = [_longest_trip(br, lo, hi) for lo, hi in regions]
    loop = max(sp if tr is None else tr for sp, tr in zip(spans, trips))
    return len(decoded) - sum(spans), loop


def _longest_trip(br, lo: int, hi: int) -> int | None:
    """Instructions on the longest path from ``lo`` to a branch back to ``lo`` within
    [lo, hi] (paths that leave the region are the loop's exit, not a trip); None when the
    region holds a cycle not through ``lo``."""
    exits = -1                                   # no trip continues from here
    memo: dict[int, int] = {}
    on_path: set[int] = set()

    class Cycle(Exception):
        pass

    def longest(i: int) -> int:                  # from instruction i to the end of the trip
        if i in memo:
            return memo[i]
        if i in on_path:
            raise Cycle
        on_path.add(i)
        _, tgt, falls = br[i]
        best = exits
        for nxt in ([tgt] if tgt is not None else []) + ([i + 1] if falls else []):
            if nxt == lo and nxt == tgt:         # the back edge: the trip ends here
                r = 0
            elif not lo <= nxt <= hi:            # leaves the loop
                continue
            else:
                r = longest(nxt)
                if r == exits:
                    continue
            best = max(best, r)
        on_path.discard(i)
        memo[i] = exits if best == exits else 1 + best
        return memo[i]

    import sys
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 4 * (hi - lo) + 1000))
    try:
        n = longest(lo)
    except Cycle:
        return None
    finally:
        sys.setrecursionlimit(old)
    return None if n == exits else n


def estimate(meta: Mapping, counts: tuple[int, int], shape: CheckShape,
             sizes: Mapping[str, int]) -> Estimate:
    """Emulation cost at ``sizes`` (the contract's for the rest); see the module doc."""
    scalars = _scalars(meta, sizes)
    grid = grid_of(meta, scalars)
    wgs = math.prod(grid)
    waves = -(-math.prod(int(x) for x in meta["block"]) // 64)
    rest, loop = counts
    n = round(wgs * waves * (rest + loop * max(0.0, float(shape.trips(scalars)))))
    return Estimate(dict(sizes), wgs, n, n / EMU_INSTR_PER_SECOND)


def choose_sizes(meta: Mapping, counts: tuple[int, int], shape: CheckShape | None,
                 budget_s: float = DEFAULT_BUDGET_S, full: bool = False) -> SizeChoice:
    """The sizes ``check`` runs at (module doc)."""
    trips = shape if shape is not None else CheckShape(lambda s: 1)
    whole = estimate(meta, counts, trips, {})
    if full:
        return SizeChoice({}, whole, whole, "--full: the contract's sizes")
    if whole.seconds <= budget_s:
        return SizeChoice({}, whole, whole, f"the contract's sizes fit the {budget_s:g} s budget")
    if shape is None or not shape.shrink:
        return SizeChoice({}, whole, whole, "the kind has no smaller sizes to offer")
    cands, kept = candidates(meta, shape)
    if not cands:
        why = "; ".join(f"{k}: {v}" for k, v in kept.items())
        return SizeChoice({}, whole, whole, f"no size can shrink ({why})", kept=kept)
    best = None
    for sizes in cands:
        best = estimate(meta, counts, shape, sizes)
        if best.seconds <= budget_s:
            break
    over = best.seconds > budget_s
    reason = (f"the contract's sizes would take {whole.describe()}, over the {budget_s:g} s "
              f"budget" + ("; even the smallest sizes the contract allows are over it" if over
                           else ""))
    return SizeChoice(best.sizes, best, whole, reason, reduced=True, kept=kept)


def candidates(meta: Mapping, shape: CheckShape) -> tuple[list[dict], dict]:
    """Smaller size sets, mildest first, each accepted by the contract's scalar rules; and the
    sizes that cannot shrink, with the contract's reason."""
    args = as_args(meta["args"])
    by_name = {a.name: a for a in args if a.kind == "scalar"}
    base = resolve_scalars(tuple(args), {})
    kept: dict = {}
    ladders: dict[str, list[int]] = {}
    for name, period, floor in shape.shrink:
        a = by_name.get(name)
        if a is None:
            continue
        steps = _ladder(int(base[name]), period, floor, a.multiple_of or 1)
        good = []
        for v in steps:
            try:
                scalar_value(a, v)              # its own rules: baked, range, multiple_of
                good.append(v)
            except LaunchError as exc:
                kept[name] = exc.need
                break
        if good:
            ladders[name] = good
    out, depth = [], max((len(v) for v in ladders.values()), default=0)
    for level in range(depth):
        sizes = {n: lad[min(level, len(lad) - 1)] for n, lad in ladders.items()}
        try:
            resolve_scalars(tuple(args), sizes)        # sizes that bind each other (divides)
        except LaunchError:
            continue
        out.append(sizes)
    return out, kept


def _ladder(value: int, period: int, floor: int, multiple: int) -> list[int]:
    """Smaller values for one size: each about half the previous, down to ``floor``, all
    congruent to ``value`` modulo lcm(period, multiple) (same remainder in its last tile, still
    a multiple of ``multiple``)."""
    step = math.lcm(max(1, period), max(1, multiple))
    out: list[int] = []
    v = value
    while True:
        target = max(floor, v // 2)
        nxt = value - ((value - target) // step) * step       # smallest congruent >= target
        if nxt >= v or nxt < 1:
            break
        out.append(nxt)
        v = nxt
    return out


def _scalars(meta: Mapping, sizes: Mapping[str, int]) -> dict:
    return resolve_scalars(tuple(as_args(meta["args"])), dict(sizes))


def _duration(s: float) -> str:
    if s < 90:
        return f"{s:.0f} s"
    if s < 5400:
        return f"{s / 60:.0f} min"
    return f"{s / 3600:.1f} h"
