"""``asmgen profile`` for attention contracts (``config.kind = "attention"``, written by
``asmgen attention``).

The kernel (``asmgen.kinds.attention.template``) gives each workgroup ``waves`` waves of ``BLOCK_Q`` =
32 query rows of one (batch, head) (a Q-block of 32 ``waves`` rows), and loops over key blocks of
``BLOCK_K`` = 32. Profiled: one workgroup (Q-block 0 of batch 0, head 0) of a small problem with
seqlen_q = one Q-block and seqlen_k = ``iters`` key blocks, emulated with trace on; ``wgs_per_cu``
co-resident copies run on one modeled CU (default: the occupancy, at most the grid's workgroups
per CU, ceil(n_wg / CUs)). The steady-state cycles per KV-block iteration (the CU's,
from a second run with two more key blocks, when co-resident workgroups do not loop in step:
``asmgen.profiling.common.cu_trip_cycles``; causal: always the growth of a second run with
``CAUSAL_GROWTH_BLOCKS`` more, which adds unmasked blocks only, ``_unmasked_growth``)
extrapolate each workgroup of the contract's problem to its own trip count (causal: the Q-block's last visible key block; the loop runs at least once),
and workgroups are dealt to the ``cus x wgs_per_cu`` slots in dispatch order (``kinds.attention.grid``:
Q-block fastest; causal, every (batch, head) of the longest Q-block first), each to the slot free
first: the makespan includes wave quantisation and the causal imbalance.
FLOPs = 4 B Sq Sk H D, halved when causal (cdna-facts 9.4, HipKittens' count).
"""
from __future__ import annotations

import heapq
import math

import numpy as np

from ...dtypes import dtype_of
from ...errors import AsmgenError
from ...profiling.common import (
    ProfileError,
    arch_params,
    co_resident,
    cu_trip_cycles,
    emulate_streams,
    model_cu,
    report,
)
from ...profiling.device import trip_and_bound, uncertainty
from .config import BLOCK_K, BLOCK_Q
from .grid import dispatch_qblocks, trips_per_qblock

# dealing workgroups one by one to slots costs O(n log slots); past this many the profile refuses
# rather than take minutes (the (batch, head) period could be used, not needed for real sizes)
MAX_SCHEDULED_WGS = 1 << 22


def attention_problem(meta: dict, iters: int) -> dict:
    """Full and profiled sizes of an attention contract (scalars from the contract's args)."""
    cfg = meta["config"]
    vals = {a["name"]: a.get("value") for a in meta["args"] if a["kind"] == "scalar"}
    b, h, hk, sq, sk = (int(vals.get(x) or cfg[x]) for x in
                        ("batch", "heads", "kv_heads", "seqlen_q", "seqlen_k"))
    d, causal = int(cfg["head_dim"]), bool(cfg["causal"])
    rows = BLOCK_Q * int(cfg.get("waves", 1))
    trips = trips_per_qblock(sq, sk, causal, rows)
    small_iters = max(1, min(int(trips.max()), iters))
    # non-causal: the emulated keys end as the problem's do (a last partial block takes the
    # masked arm of the loop, kvloop), so that arm's cost is in the round, not extrapolated
    small_k = small_iters * BLOCK_K - (0 if causal else -sk % BLOCK_K)
    flops = 4.0 * b * sq * sk * h * d / (2 if causal else 1)
    return {"batch": b, "heads": h, "kv_heads": hk, "seqlen_q": sq, "seqlen_k": sk,
            "head_dim": d, "dtype": cfg["dtype"], "causal": causal, "trips": trips, "small_iters": small_iters,
            "n_wg": len(trips) * h * b, "flops": flops, "rows": rows,
            "small": {"batch": 1, "heads": 1, "kv_heads": 1, "seqlen_q": rows,
                      "seqlen_k": small_k}}


def attention_values(meta: dict, small: dict, seed: int, steer: str | None = None) -> dict:
    """Buffers and scalars of the profiled one-workgroup problem (random data; ``steer``: shaped
    for the ping-pong loop's O-rescale branch, ``kinds.attention.rescale``)."""
    from ...dtypes import np_dtype
    d = int(meta["config"]["head_dim"])
    sq, sk = small["seqlen_q"], small["seqlen_k"]
    shapes = {"Q": (1, 1, sq, d), "K": (1, 1, sk, d), "V": (1, 1, sk, d), "O": (1, 1, sq, d),
              "LSE": (1, 1, sq)}
    rng = np.random.default_rng(seed)
    vals: dict = dict(small)
    for a in meta["args"]:
        if a["kind"] == "buffer":
            if a["name"] not in shapes:
                raise AsmgenError(f"profile: attention buffer {a['name']!r} is not one of "
                                  f"{sorted(shapes)}")
            vals[a["name"]] = rng.uniform(-1, 1, size=shapes[a["name"]]).astype(np_dtype(a["dtype"]))
    if steer is not None:
        from .rescale import steer as shape
        try:
            vals.update(shape({"Q": vals["Q"], "K": vals["K"]}, steer))
        except ValueError as exc:
            raise ProfileError(f"profile: {exc} (lower --iters)") from None
    return vals


def hbm_share(prob: dict) -> float:
    """Fraction of the loaded bytes that must come from HBM: each (batch, kv head)'s K and V and
    each Q block once, against what the workgroups load (K and V of every visible block)."""
    row = dtype_of(prob["dtype"]).nbytes(prob["head_dim"])
    per_bh = prob["rows"] * row * len(prob["trips"]) + 2 * BLOCK_K * row * int(prob["trips"].sum())
    loaded = prob["batch"] * prob["heads"] * per_bh
    unique = prob["batch"] * (prob["heads"] * prob["seqlen_q"]
                              + 2 * prob["kv_heads"] * prob["seqlen_k"]) * row
    return min(1.0, unique / loaded)


def makespan(durations: np.ndarray, n_bh: int, slots: int, longest_first: bool = False) -> float:
    """Clk to run the ``n_bh`` (batch, head)s' Q-blocks of per-Q-block ``durations`` on
    ``slots`` slots, each workgroup in dispatch order (``kinds.attention.grid``: Q-block fastest,
    causal longest Q-block first) to the slot free first."""
    n = len(durations) * n_bh
    if float(durations.min()) == float(durations.max()):
        return math.ceil(n / slots) * float(durations[0])
    if n > MAX_SCHEDULED_WGS:
        raise ProfileError(f"profile: {n} workgroups of unequal length exceed the "
                           f"{MAX_SCHEDULED_WGS} this model deals one by one")
    free = [0.0] * min(slots, n)
    heapq.heapify(free)
    end = 0.0
    for dur in durations[dispatch_qblocks(longest_first, len(durations), n_bh)].tolist():
        t = heapq.heappop(free) + dur
        end = max(end, t)
        heapq.heappush(free, t)
    return end


# Causal growth window, in key blocks. Two blocks read low: the second run's end is the latest
# of the co-resident copies' ends and the diagonal's position against the K/V buffer ring (2 or
# 3 buffers) moves with it, so a 2-block difference holds part of one period. Measured (B16 H16
# S8192 D128 bf16, clk per block for +2 / +4 / +6 / +8 / +12 blocks): gfx950 prio_interleave
# w4b2 1696 / 1736 / 1733 / 1733 / 1733, gfx942 pingpong 2238 / 2250 / 2254 / 2256 / 2258,
# gfx942 prio_interleave w4b2 2672 / 2673 / 2673 / 2673 / 2673; the non-causal kernels' same
# unmasked body (kvloop) costs 1730-1739, 2246, 2665-2667. Six blocks hold whole periods of
# both rings (2, 3) and agree with the longer windows within 0.2 %.
CAUSAL_GROWTH_BLOCKS = 6


def _unmasked_growth(meta: dict, hsaco: bytes, params, more: dict, copies: int, hbm: float,
                     loop, base_cycles: float, seed: int,
                     more_trips: int = CAUSAL_GROWTH_BLOCKS, steer: str | None = None) -> float:
    """Causal: clk per key block below the diagonal. The emulated Q-block ends on its diagonal
    blocks (masked, and with several waves some rows' blocks lie wholly above it), so the
    steady-state window of one run mixes both bodies; with ``more_trips`` more keys the diagonal
    moves right (bottom-right alignment), so the second run's extra cycles are unmasked blocks
    only, the kind every longer Q-block adds."""
    streams = emulate_streams(meta, hsaco, attention_values(meta, more, seed, steer), seed)
    _, res2, _ = model_cu(meta, params, streams, copies, hbm, loop)
    return (res2.cycles - base_cycles) / more_trips


def profile_attention(meta: dict, hsaco: bytes, iters: int, device: str | None,
                      wgs_per_cu: int | None, clock_mhz: float | None, seed: int,
                      keep_result: bool, loop: tuple[int, int] | None) -> dict:
    """Modeled performance of an attention contract; see the module doc. The ping-pong loop
    (8 waves) and the multi-wave head_dim 256 loop skip O *= alpha where no row's max changed, which depends on the data: it is
    profiled on inputs that rescale in every block (the figure, ``rescale_skip.figure``) and
    again on inputs whose max never changes after the first block (``rescale_skip.stable``),
    ``kinds.attention.rescale``; a kernel without that branch keeps the random data."""
    c = meta["config"]
    branchy = int(c.get("waves", 1)) == 8 or (c.get("head_dim") == 256      # pipe.RESCALE_BRANCH
                                              and int(c.get("waves", 1)) > 1)
    steer = "always" if branchy and not c.get("varlen") else None
    out = _profile(meta, hsaco, iters, device, wgs_per_cu, clock_mhz, seed, keep_result, loop,
                   steer)
    if steer is None or not out.pop("_rescale_branch"):
        out.pop("_rescale_branch", None)
        return out
    alt = _profile(meta, hsaco, iters, device, wgs_per_cu, clock_mhz, seed, False, loop,
                   "stable")
    alt.pop("_rescale_branch")
    pick = ("tflops", "mfma_busy", "cycles_per_iter")
    out["rescale_skip"] = {
        "figure": "always",
        "why": "the model cannot know how often a row's max changes; the figure is the cost "
               "of rescaling every block (random scores rescale in almost every one of the "
               "few blocks profiled), the stable one the bound when no max changes after the "
               "first block (long sequences with an early max)",
        "always": {k: out[k] for k in pick}, "stable": {k: alt[k] for k in pick},
        "stable_perf": alt["perf"]}
    return out


def _off_diagonal_loop(res, summ: dict, n_small: int) -> tuple[dict, set[int]]:
    """Causal: the summary over the off-diagonal loop (``kvloop``: the unmasked body, the first
    loop in the code, the lowest backward jump's head) rather than the most frequent backward
    jump, which may be the diagonal loop's; and the trips its longest-running wave makes, the
    emulated Q-block's last wave: ``n_small`` - 1 (its diagonal block runs in the diagonal
    loop), or ``n_small`` (a kernel built before the split, one loop over every block)."""
    from isa.cycle.report import backward_jumps, summarize
    jumps = backward_jumps(res)
    if not jumps:
        return summ, {n_small}
    first = min(jumps, key=lambda j: j[0])
    return summarize(res, loop=first), {n_small - 1, n_small}


def _profile(meta, hsaco, iters, device, wgs_per_cu, clock_mhz, seed, keep_result, loop,
             steer) -> dict:
    from isa.cycle.report import problem_tflops
    params = arch_params(meta, device)
    prob = attention_problem(meta, iters)
    streams = emulate_streams(meta, hsaco, attention_values(meta, prob["small"], seed, steer),
                              seed)
    hbm = hbm_share(prob)
    # co-resident workgroups: the occupancy, but no more than the grid gives each CU (128
    # workgroups on 256 CUs run one per CU, whatever the occupancy would allow)
    copies = wgs_per_cu or min(co_resident(meta, params), -(-prob["n_wg"] // int(params.cus)))
    copies, res, summ = model_cu(meta, params, streams, copies, hbm, loop)
    n_small = prob["small_iters"]
    expect = {n_small}
    if prob["causal"] and loop is None:
        summ, expect = _off_diagonal_loop(res, summ, n_small)
    cpi = summ["cycles_per_iter"]
    if summ["loop"] is not None and loop is None and summ["iterations"] not in expect:
        raise ProfileError(f"profile: the loop found at pcs {summ['loop']} ran "
                           f"{summ['iterations']} times, the KV loop should run {n_small}; "
                           f"give the region with --loop LO:HI")
    trips = prob["trips"]
    if int(trips.max()) > n_small and cpi is None:
        raise AsmgenError("profile: no KV loop found in the emulated streams (need >= 2 "
                          "iterations to extrapolate); raise --iters")
    cpi_wave, extrapolation = cpi, "cycles_per_iter_wave"
    if int(trips.max()) >= n_small + 2:
        more = dict(prob["small"], seqlen_k=prob["small"]["seqlen_k"] + 2 * BLOCK_K)
        if prob["causal"]:
            more["seqlen_k"] = prob["small"]["seqlen_k"] + CAUSAL_GROWTH_BLOCKS * BLOCK_K
            cpi, extrapolation = _unmasked_growth(meta, hsaco, params, more, copies, hbm, loop,
                                                  res.cycles, seed, steer=steer), \
                "unmasked_growth"
        else:
            cpi, extrapolation = cu_trip_cycles(meta, hsaco, params,
                                                attention_values(meta, more, seed, steer),
                                                copies, hbm, loop, res.cycles, cpi_wave, seed)
    # a round of co-resident workgroups with t trips: the emulated round plus (t - n) iterations
    durations = res.cycles + (trips - n_small) * (cpi or 0.0)
    if float(durations.min()) <= 0:
        raise ProfileError(f"profile: extrapolated workgroup time {float(durations.min())} clk "
                           f"is not positive (cycles {res.cycles}, {cpi} per iteration)")
    slots = int(params.cus) * copies
    # the order the contract's grid dispatches in (a causal contract written before the grid
    # went longest-first has the Q-block in x: it is dealt in that order)
    longest_first = [r and r[0] for r in meta.get("grid_from") or ()][2:] == ["seqlen_q"]
    total = makespan(durations, prob["batch"] * prob["heads"], slots, longest_first)
    rounds = math.ceil(prob["n_wg"] / slots)
    perf = problem_tflops(params, prob["flops"], prob["n_wg"], total / rounds, copies, clock_mhz,
                         streams=streams)
    problem = {k: prob[k] for k in ("batch", "heads", "kv_heads", "seqlen_q", "seqlen_k",
                                    "head_dim", "causal", "n_wg", "flops")}
    problem["kv_iters_mean"] = float(trips.mean())
    # what bounds the KV loop (no tile-grid device model for attention: no L2/MALL/HBM floors)
    _, bound = trip_and_bound(params, res, summ, cpi, None, clock_mhz or params.clock_mhz)
    emulated = {"seqlen_q": prob["rows"], "seqlen_k": prob["small"]["seqlen_k"], "kv_iters": n_small}
    out = report(meta, params, res, summ, len(streams), emulated, keep_result,
                  schedule=meta.get("schedule"), kind="attention", iter_name="KV block",
                  bound=bound, uncertainty=uncertainty(meta["arch"]),
                  cycles=total, cycles_per_iter=cpi, cycles_per_round=total / rounds,
                  cycles_per_iter_wave=cpi_wave, extrapolation=extrapolation,
                  mfma_busy=summ["mfma_busy"], mfma_busy_per_simd=summ["mfma_busy_per_simd"],
                  tflops=perf["tflops"], stalls=summ["stalls"], problem=problem,
                  wgs_per_cu=copies, hbm_fraction=hbm, perf=perf)
    out["_rescale_branch"] = any(i.op == "s_cbranch_vccz" for st in streams for i in st.instrs)
    return out
