"""Summaries of a cycle-model run: loop region and cycles per iteration, steady-state MFMA busy
fraction per SIMD, stall breakdown, modeled whole-problem TFLOP/s (with wave quantisation over
CUs), a Chrome/Perfetto trace (JSON) and an SVG timeline.

Loop region: a pc range ``(lo, hi)`` (``lo`` = loop head, ``hi`` = the backward branch); when not
given it is the most frequent backward jump in the waves' dynamic pc sequences. An iteration starts
each time a wave issues the head pc. Steady state = from each wave's second head to its last head
(the first iteration carries pipeline fill; the part after the last head is the drain).
"""
from __future__ import annotations

import json
import math
from collections import Counter
from html import escape

from .model import STALL_REASONS, CycleModelError, SimResult

# ----------------------------------------------------------------------------------------------
# loop region


def backward_jumps(res: SimResult) -> Counter:
    """(head pc, branch pc) -> how often the waves took that backward jump."""
    jumps: Counter = Counter()
    for w in res.waves:
        prev = None
        for r in w.issues:
            if prev is not None and r.pc <= prev:
                jumps[(r.pc, prev)] += 1
            prev = r.pc
    return jumps


def find_loop(res: SimResult) -> tuple[int, int] | None:
    """(head pc, branch pc) of the most frequent backward jump, or None when no wave loops."""
    jumps = backward_jumps(res)
    if not jumps:
        return None
    return jumps.most_common(1)[0][0]


def resolve_loop(loop, labels: dict | None = None) -> tuple[int, int] | None:
    """A loop given as (lo, hi) pcs, or as a label name (its pc .. the end: ``labels[name]``,
    with ``labels[name + ".end"]`` as the end when present)."""
    if loop is None or isinstance(loop, tuple | list):
        return None if loop is None else (int(loop[0]), int(loop[1]))
    if labels is None or loop not in labels:
        raise CycleModelError(f"loop label {loop!r} is not among the labels {sorted(labels or {})}")
    return labels[loop], labels.get(loop + ".end", 1 << 30)


def loop_heads(res: SimResult, loop: tuple[int, int]) -> dict[int, list[int]]:
    """wave index (position in ``res.waves``) -> issue clks of the loop head."""
    lo, _ = loop
    return {i: [r.t for r in w.issues if r.pc == lo] for i, w in enumerate(res.waves)}


def steady_window(heads: list[int]) -> tuple[int, int, int] | None:
    """(start, end, iterations) of the steady state of one wave's head times."""
    if len(heads) >= 3:
        return heads[1], heads[-1], len(heads) - 2
    if len(heads) == 2:
        return heads[0], heads[1], 1
    return None


def mfma_busy(res: SimResult, window: tuple[float, float] | None = None) -> dict[int, float]:
    """simd -> fraction of ``window`` (default: the whole run) its MFMA pipe is busy."""
    a, b = window if window is not None else (0, res.cycles)
    if b <= a:
        return {s: 0.0 for s in res.mfma}
    out = {}
    for s, spans in res.mfma.items():
        busy = sum(max(0.0, min(e, b) - max(t, a)) for t, e, _ in spans)
        out[s] = busy / (b - a)
    return out


def summarize(res: SimResult, loop=None, labels: dict | None = None) -> dict:
    """The numbers ``asmgen profile --json`` prints (cycles, cycles_per_iter, mfma_busy, stalls...)."""
    region = resolve_loop(loop, labels) if loop is not None else find_loop(res)
    out: dict = {"arch": res.arch, "device": res.params.device, "cycles": res.cycles,
                 "loop": list(region) if region else None, "iterations": 0,
                 "cycles_per_iter": None}
    window = None
    per_simd_window: dict[int, list] = {}
    if region is not None:
        heads = loop_heads(res, region)
        wins = {i: steady_window(h) for i, h in heads.items()}
        wins = {i: v for i, v in wins.items() if v is not None}
        if wins:
            per_iter = [(e - s) / n for s, e, n in wins.values()]
            out["cycles_per_iter"] = sum(per_iter) / len(per_iter)
            out["iterations"] = max(len(h) for h in heads.values())
            window = (min(v[0] for v in wins.values()), max(v[1] for v in wins.values()))
            for i, (s, e, _) in wins.items():
                simd = res.waves[i].simd
                cur = per_simd_window.get(simd)
                per_simd_window[simd] = [s, e] if cur is None else [min(cur[0], s), max(cur[1], e)]
    busy = {}
    for s in res.mfma:
        win = per_simd_window.get(s, window)
        busy[s] = mfma_busy(res, tuple(win) if win else None)[s]
    with_mfma = [v for s, v in busy.items() if res.mfma[s]]
    out["mfma_busy"] = sum(with_mfma) / len(with_mfma) if with_mfma else 0.0
    out["mfma_busy_per_simd"] = {str(s): v for s, v in busy.items()}
    out["steady_window"] = list(window) if window else None
    tot = res.stall_totals()
    out["stalls"] = {k: tot[k] for k in STALL_REASONS}
    out["stalls_per_wave"] = [{"wave": w.wave, "wg": w.wg, "simd": w.simd, **w.stalls}
                              for w in res.waves]
    out["instructions"] = sum(len(w.issues) for w in res.waves)
    return out


# ----------------------------------------------------------------------------------------------
# what bounds the loop

BOUNDS = ("mfma", "issue", "lds", "vmem", "l2", "mall", "hbm", "waits", "barrier")


def _busy(spans, a: float, b: float) -> float:
    return sum(max(0.0, min(e, b) - max(s, a)) for s, e, *_ in spans)


def bound_breakdown(res: SimResult, window: tuple[float, float] | None,
                    floors: dict | None = None, trip_clk: float | None = None) -> dict:
    """Each resource's share of the steady-state loop time (0..1; the largest is what bounds it):
    ``mfma`` busiest MFMA pipe; ``issue`` busiest SIMD's issue slots (every instruction a wave
    issues takes one 4-clk slot, MFMA included); ``lds`` busiest LDS port; ``vmem`` the CU's
    VMEM channel; ``l2``/``mall``/``hbm`` the memory floors per trip (``problem.memory_floors``)
    over ``trip_clk``; ``waits`` / ``barrier`` the waves' mean share of time stalled at s_waitcnt /
    s_barrier. ``bound`` names the largest."""
    a, b = window if window is not None else (0, res.cycles)
    span = max(b - a, 1e-9)
    slot = res.params.issue_interval
    out = dict.fromkeys(BOUNDS, 0.0)
    out["mfma"] = max((_busy(v, a, b) / span for v in res.mfma.values()), default=0.0)
    per_simd: dict[int, int] = {}
    for w in res.waves:
        per_simd[w.simd] = per_simd.get(w.simd, 0) + sum(1 for r in w.issues if a <= r.t < b)
    # one slot per SIMD every issue_interval clk; a SIMD may issue to several pipes in a slot,
    # but each wave once, so waves per SIMD x slots is the SIMD's issue capacity
    waves_on = {s: sum(1 for w in res.waves if w.simd == s) for s in per_simd}
    out["issue"] = max((n * slot / span / max(1, min(waves_on[s], 5)) for s, n in per_simd.items()),
                       default=0.0)
    out["lds"] = max((_busy(v, a, b) / span for v in res.lds_busy.values()), default=0.0)
    out["vmem"] = _busy(res.vmem_busy, a, b) / span
    waits = barrier = 0.0
    for w in res.waves:
        for s0, s1, reason in w.stall_spans:
            d = max(0.0, min(s1, b) - max(s0, a))
            if reason.startswith("waitcnt"):
                waits += d
            elif reason == "barrier":
                barrier += d
    n = max(1, len(res.waves))
    out["waits"] = waits / n / span
    out["barrier"] = barrier / n / span
    if floors and trip_clk:
        for k in ("l2", "mall", "hbm"):
            out[k] = floors.get(k, 0.0) / trip_clk
    shares = {k: round(v, 4) for k, v in out.items()}
    return {"shares": shares, "bound": max(shares, key=shares.get)}


# ----------------------------------------------------------------------------------------------
# whole problem


def problem_tflops(params, flops: float, n_wg: int, cycles_per_round: float,
                   wgs_per_cu: int = 1, clock_mhz: float | None = None,
                   streams=None) -> dict:
    """Modeled TFLOP/s of a whole problem: ``n_wg`` workgroups run ``wgs_per_cu`` at a time on
    each of the device's CUs; each round of co-resident workgroups takes ``cycles_per_round`` clk
    (wave quantisation: a partial last round costs a whole round). ``sustained``: the same
    cycles at each round's power-limited clock (``isa.cycle.power.sustained``; ``streams`` give the
    kernel's MFMA rate and power weight, ``power.mfma_load``)."""
    if n_wg < 1 or wgs_per_cu < 1 or cycles_per_round <= 0:
        raise CycleModelError(f"bad problem: n_wg={n_wg}, wgs_per_cu={wgs_per_cu}, "
                              f"cycles_per_round={cycles_per_round}")
    clock = clock_mhz or params.clock_mhz
    slots = int(params.cus) * wgs_per_cu
    rounds = math.ceil(n_wg / slots)
    seconds = rounds * cycles_per_round / (clock * 1e6)
    tflops = flops / seconds / 1e12
    peak = params.mfma_flops_per_clk_cu * params.cus * clock * 1e6 / 1e12
    from .power import mfma_load, sustained
    mfma = mfma_load(params.arch, streams) if streams else None
    return {"rounds": rounds, "cus": int(params.cus), "wgs_per_cu": wgs_per_cu,
            "clock_mhz": clock, "seconds": seconds, "tflops": tflops,
            "peak_tflops": peak, "fraction_of_peak": tflops / peak,
            "cu_utilisation": n_wg / (rounds * slots),
            # the same cycles at the power-limited clock of each round (isa.cycle.power)
            "sustained": sustained(params, flops, n_wg, cycles_per_round, wgs_per_cu, mfma)}


# ----------------------------------------------------------------------------------------------
# Chrome / Perfetto trace

def chrome_trace(res: SimResult, max_events: int = 400_000) -> dict:
    """Trace Event Format: process 0 = the CU; per wave one track of instruction issues and one of
    stalls, and one track per SIMD's MFMA pipe. Time unit: 1 us in the viewer = 1 clk.

    Complete ("X") events on one thread must nest perfectly: the Trace Event Format (Google,
    https://docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU, "Duration
    Events": "must be properly nested") and Perfetto's importer (https://perfetto.dev/docs/faq,
    "Why are overlapping events in JSON traces not displayed correctly?": overlapping B/E/X
    events are not supported). An issue slice is drawn 1..4 clk long while the next issue may
    come one clk later, and stalls of different reasons can overlap, so each group is split over
    as few lanes (threads named "... +1", "+2") as keep every lane free of overlaps
    (``_lanes``: greedy interval colouring, start order)."""
    ev: list[dict] = [{"ph": "M", "pid": 0, "name": "process_name",
                       "args": {"name": f"CU ({res.arch}, 1 us = 1 clk)"}}]
    tid = 0

    def track(name: str, slices: list[dict]) -> None:
        nonlocal tid
        lanes = _lanes(slices)
        for lane in range(max(lanes, default=0) + 1):
            ev.append({"ph": "M", "pid": 0, "tid": tid + lane, "name": "thread_name",
                       "args": {"name": name if lane == 0 else f"{name} +{lane}"}})
            ev.append({"ph": "M", "pid": 0, "tid": tid + lane, "name": "thread_sort_index",
                       "args": {"sort_index": tid + lane}})
        for sl, lane in zip(slices, lanes):
            ev.append(dict(sl, ph="X", pid=0, tid=tid + lane))
        tid += max(lanes, default=0) + 1

    for s in sorted(res.mfma):
        track(f"SIMD{s} MFMA pipe", [{"ts": t, "dur": e - t, "name": "mfma", "cat": "pipe",
                                      "args": {"wave": wave}} for t, e, wave in res.mfma[s]])
    for w in res.waves:
        name = f"wg{w.wg} wave{w.wave} (SIMD{w.simd})"
        track(name, [{"ts": r.t, "dur": max(1, min(r.dur, 4)), "name": r.kind, "cat": r.kind,
                      "args": {"pc": r.pc, "instr": r.text, "busy": r.dur}} for r in w.issues])
        if w.stall_spans:
            track(f"{name} stalls", [{"ts": a, "dur": b - a, "name": f"stall:{reason}",
                                      "cat": "stall"} for a, b, reason in w.stall_spans])
    if len(ev) > max_events:
        raise CycleModelError(f"trace has {len(ev)} events, more than {max_events}; "
                              "profile fewer iterations")
    return {"traceEvents": ev, "displayTimeUnit": "ns",
            "otherData": {"arch": res.arch, "cycles": res.cycles, "unit": "1 us = 1 clk"}}


def _lanes(slices: list[dict]) -> list[int]:
    """A lane per slice such that no two slices of one lane overlap (a slice may start where the
    previous one ends): each slice, in start order, takes the lowest lane free at its start."""
    import heapq
    order = sorted(range(len(slices)), key=lambda i: (slices[i]["ts"], -slices[i]["dur"]))
    out = [0] * len(slices)
    busy: list[tuple[float, int]] = []      # (end, lane) of each lane's last slice
    free: list[int] = []
    n = 0
    for i in order:
        ts = slices[i]["ts"]
        while busy and busy[0][0] <= ts:
            heapq.heappush(free, heapq.heappop(busy)[1])
        if free:
            lane = heapq.heappop(free)
        else:
            lane, n = n, n + 1
        out[i] = lane
        heapq.heappush(busy, (ts + slices[i]["dur"], lane))
    return out


def write_chrome_trace(res: SimResult, path: str) -> None:
    with open(path, "w") as f:
        json.dump(chrome_trace(res), f)


# ----------------------------------------------------------------------------------------------
# SVG timeline

COLORS = {"mfma": "#d62728", "valu": "#1f77b4", "trans": "#17becf", "vmem": "#2ca02c",
          "lds": "#ff7f0e", "smem": "#9467bd", "salu": "#8c564b", "branch": "#7f7f7f",
          "waitcnt": "#bcbd22", "barrier": "#e377c2", "nop": "#c7c7c7", "setprio": "#aec7e8",
          "endpgm": "#000000",
          "stall:waitcnt_vmcnt": "#98df8a", "stall:waitcnt_lgkmcnt": "#ffbb78",
          "stall:barrier": "#f7b6d2", "stall:dependency": "#ff9896", "stall:issue": "#dbdb8d",
          "stall:nop": "#e0e0e0", "stall:branch": "#c5b0d5"}


def svg_timeline(res: SimResult, window: tuple[float, float] | None = None, width: int = 1400,
                 row_h: int = 16) -> str:
    """An SVG picture: a row per SIMD MFMA pipe, then a row per wave (instructions on the upper
    half, stalls on the lower half), over ``window`` clk (default: the whole run)."""
    a, b = window if window is not None else (0, max(res.cycles, 1))
    if b <= a:
        raise CycleModelError(f"empty SVG window {a}..{b}")
    left, top = 170, 30
    rows = [(f"SIMD{s} MFMA", "mfma", s) for s in sorted(res.mfma)]
    rows += [(f"wg{w.wg} wave{w.wave} S{w.simd}", "wave", i) for i, w in enumerate(res.waves)]
    legend_h = 40
    height = top + len(rows) * (row_h + 4) + legend_h
    sx = (width - left - 10) / (b - a)
    out = [(f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'font-family="monospace" font-size="11">'),
           f'<rect width="{width}" height="{height}" fill="white"/>',
           (f'<text x="4" y="16">{escape(res.arch)} CU timeline, clk {a:.0f}..{b:.0f} '
            f'({res.cycles} clk total)</text>')]

    def rect(x0: float, x1: float, y: float, h: float, color: str, title: str) -> None:
        x0, x1 = max(x0, a), min(x1, b)
        if x1 <= x0:
            return
        out.append(f'<rect x="{left + (x0 - a) * sx:.2f}" y="{y:.1f}" '
                   f'width="{max((x1 - x0) * sx, 0.5):.2f}" height="{h}" fill="{color}">'
                   f'<title>{escape(title)}</title></rect>')

    for k, (label, kind, ref) in enumerate(rows):
        y = top + k * (row_h + 4)
        out.append(f'<text x="4" y="{y + row_h - 4}">{escape(label)}</text>')
        out.append(f'<line x1="{left}" x2="{width - 10}" y1="{y + row_h + 1}" y2="{y + row_h + 1}" '
                   f'stroke="#eee"/>')
        if kind == "mfma":
            for t, e, wave in res.mfma[ref]:
                rect(t, e, y, row_h, COLORS["mfma"], f"wave {wave} mfma {t}..{e}")
        else:
            w = res.waves[ref]
            for r in w.issues:
                dur = r.dur if r.kind == "mfma" else max(1, min(r.dur, 4))
                rect(r.t, r.t + dur, y, row_h / 2, COLORS.get(r.kind, "#333"),
                     f"{r.t}: {r.text} (pc {r.pc})")
            for s0, s1, reason in w.stall_spans:
                rect(s0, s1, y + row_h / 2, row_h / 2, COLORS[f"stall:{reason}"],
                     f"stall {reason} {s0}..{s1}")
    ly = height - legend_h + 12
    x = 4
    for name, color in COLORS.items():
        out.append(f'<rect x="{x}" y="{ly}" width="10" height="10" fill="{color}"/>'
                   f'<text x="{x + 13}" y="{ly + 9}">{escape(name)}</text>')
        x += 13 + 7 * len(name) + 10
        if x > width - 150:
            x, ly = 4, ly + 14
    out.append("</svg>")
    return "\n".join(out) + "\n"
