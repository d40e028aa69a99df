"""``asmgen profile`` for extend contracts (``config.kind = "extend"``).

The problem: ``batch`` sequences (the contract's ``batch`` value) of ``seqlen_q`` new tokens
over ``context_len`` keys each (the config's: a prefix of context_len - seqlen_q). Each of the
ceil(seqlen_q / 32) Q-blocks of a (sequence, head) walks the key blocks up to its last row's
causal limit (``attention.profile.trips_per_qblock``, bottom-right). Profiled: workgroup
(0, 0, 0) of a one-sequence problem with 32 new tokens (one Q-block) over ``iters`` key blocks,
emulated with trace on; ``wgs_per_cu`` co-resident copies run on one modeled CU (default: what
a CU holds, at most the grid's workgroups per CU). A second run with two more key blocks (the
diagonal moves right, so they are unmasked blocks: ``attention.profile._unmasked_growth``)
gives the cycles per key block that extrapolate each Q-block to its trip count; workgroups are
dealt longest first to the ``cus x wgs_per_cu`` slots (``attention.profile.makespan``). The
load latency mixes L2 and HBM by the share of loaded bytes that are unique (each sequence's
K/V once per KV head, Q once: ``hbm_share``), and the result is held to the HBM floor (those
unique bytes at the device's achieved bandwidth, as decode). FLOPs = 4 H D x the visible
(query, key) pairs.
"""
from __future__ import annotations

import math

import numpy as np

from ...dtypes import np_dtype
from ...profiling.common import (
    ProfileError,
    arch_params,
    co_resident,
    emulate_streams,
    model_cu,
    report,
)
from ...profiling.device import trip_and_bound, uncertainty
from ..attention.profile import makespan, trips_per_qblock
from ..decode.profile import cache_values
from .config import BLOCK_K, BLOCK_Q, ExtendConfig


def extend_bytes(cfg: ExtendConfig, batch: int) -> dict:
    """Bytes the problem must move at least: K/V of every context (once per KV head, in
    ``kv_dtype``, with per-token scales), Q, O, LSE, the lengths and the block table."""
    el = cfg.in_type.nbytes(1)
    kv = 2 * batch * cfg.context_len * cfg.kv_row_bytes
    if cfg.token_scales:            # one f32 per key and KV head, for K and for V
        kv += 2 * batch * cfg.context_len * cfg.kv_heads * 4
    rows = batch * cfg.seqlen_q * cfg.heads
    q = rows * cfg.head_dim * el
    out = rows * (cfg.head_dim * el + 4)
    meta = batch * (4 + 4) + (batch * cfg.max_blocks_per_seq * 4 if cfg.paged else 0)
    return {"kv": kv, "q": q, "out": out, "meta": meta, "total": kv + q + out + meta}


def hbm_share(cfg: ExtendConfig, batch: int, trips: np.ndarray) -> float:
    """Unique bytes (``extend_bytes``) over the bytes the workgroups load (Q once per workgroup,
    K and V of every walked block per query head)."""
    row, kvrow = cfg.in_type.nbytes(cfg.head_dim), cfg.kv_type.nbytes(cfg.head_dim)
    if cfg.token_scales:
        kvrow += 4
    loaded = batch * cfg.heads * (BLOCK_Q * row * len(trips)
                                  + 2 * BLOCK_K * kvrow * int(trips.sum()))
    b = extend_bytes(cfg, batch)
    return min(1.0, (b["kv"] + b["q"]) / loaded)


def _values(cfg: ExtendConfig, ctx: int, seed: int) -> dict:
    """Inputs of a one-sequence problem: 32 new tokens over ``ctx`` keys."""
    rng = np.random.default_rng(seed)
    dt = np_dtype(cfg.dtype)
    H, D = cfg.heads, cfg.head_dim
    vals = {"batch": 1, "total_q": BLOCK_Q, "max_seqlen_q": BLOCK_Q,
            "q": rng.uniform(-1, 1, (H, BLOCK_Q, D)).astype(dt),
            "o": np.zeros((H, BLOCK_Q, D), dt), "lse": np.zeros((H, BLOCK_Q), np.float32),
            "context_lens": np.array([ctx], np.int32),
            "cu_seqlens_q": np.array([0, BLOCK_Q], np.int32)}
    return vals | cache_values(cfg, rng, ctx)


def profile_extend(meta: dict, hsaco: bytes, iters: int, device: str | None,
                   wgs_per_cu: int | None, clock_mhz: float | None, seed: int,
                   keep_result: bool, loop: tuple[int, int] | None) -> dict:
    """Modeled performance of an extend contract; see the module doc."""
    from isa.cycle.problem import tbps_to_bytes_per_clk
    from isa.cycle.report import problem_tflops
    cfg = ExtendConfig(**{k: v for k, v in meta["config"].items() if k != "kind"})
    params = arch_params(meta, device)
    vals = {a["name"]: a.get("value") for a in meta["args"] if a["kind"] == "scalar"}
    batch, sq, ctx = int(vals.get("batch") or cfg.batch), cfg.seqlen_q, cfg.context_len
    trips = trips_per_qblock(sq, ctx, True)
    small = max(1, min(int(trips.max()), iters))
    small_ctx = max(BLOCK_Q, small * BLOCK_K)
    if small_ctx > cfg.max_context:
        raise ProfileError(f"profile: the emulated {small_ctx}-key context exceeds max_context "
                           f"{cfg.max_context}; lower --iters")
    small = -(-small_ctx // BLOCK_K)
    streams = emulate_streams(meta, hsaco, _values(cfg, small_ctx, seed), seed)
    n_wg = len(trips) * batch * cfg.heads
    hbm = hbm_share(cfg, batch, trips)
    if wgs_per_cu is None:
        wgs_per_cu = max(1, min(co_resident(meta, params), -(-n_wg // int(params.cus))))
    copies, res, summ = model_cu(meta, params, streams, wgs_per_cu, hbm, loop)
    cpi = summ["cycles_per_iter"]
    if int(trips.max()) > small and cpi is None:
        raise ProfileError("profile: no KV loop found in the emulated stream (need >= 2 "
                           "iterations to extrapolate); raise --iters")
    cpi_wave, extrapolation = cpi, "cycles_per_iter_wave"
    if int(trips.max()) >= small + 2 and small_ctx + 2 * BLOCK_K <= cfg.max_context:
        more = _values(cfg, small_ctx + 2 * BLOCK_K, seed)
        s2 = emulate_streams(meta, hsaco, more, seed)
        _, res2, _ = model_cu(meta, params, s2, copies, hbm, loop)
        cpi, extrapolation = (res2.cycles - res.cycles) / 2, "unmasked_growth"
    durations = res.cycles + (trips - small) * (cpi or 0.0)
    if float(durations.min()) <= 0:
        raise ProfileError(f"profile: extrapolated workgroup time {float(durations.min())} clk "
                           f"is not positive (cycles {res.cycles}, {cpi} per iteration)")
    slots = int(params.cus) * copies
    cu_total = makespan(durations, batch * cfg.heads, slots, longest_first=True)
    clock = clock_mhz or params.clock_mhz
    moved = extend_bytes(cfg, batch)
    hbm_floor = moved["total"] / tbps_to_bytes_per_clk(params.hbm_achieved_tbps, clock)
    total = max(cu_total, hbm_floor)
    seconds = total / (clock * 1e6)
    rounds = math.ceil(n_wg / slots)
    pairs = sq * (ctx - sq) + sq * (sq + 1) // 2          # visible (query, key) pairs
    flops = 4.0 * batch * cfg.heads * cfg.head_dim * pairs
    perf = problem_tflops(params, flops, n_wg, total / rounds, copies, clock_mhz, streams=streams)
    _, bound = trip_and_bound(params, res, summ, cpi, None, clock)
    tbps = moved["total"] / seconds / 1e12
    problem = {"batch": batch, "seqlen_q": sq, "context_len": ctx, "prefix": ctx - sq,
               "heads": cfg.heads, "kv_heads": cfg.kv_heads, "head_dim": cfg.head_dim,
               "paged": cfg.paged, "n_wg": n_wg, "kv_iters_mean": float(trips.mean()),
               "flops": flops}
    emulated = {"seqlen_q": BLOCK_Q, "context_len": small_ctx, "kv_iters": small}
    return report(meta, params, res, summ, len(streams), emulated, keep_result,
                  schedule=meta.get("schedule"), kind="extend", iter_name="KV block",
                  bound=bound, uncertainty=uncertainty(meta["arch"]),
                  cycles=total, cycles_cu_model=cu_total, cycles_hbm_floor=hbm_floor,
                  time_set_by="hbm" if hbm_floor > cu_total else "cu",
                  cycles_per_iter=cpi, cycles_per_round=total / rounds,
                  cycles_per_iter_wave=cpi_wave, extrapolation=extrapolation,
                  mfma_busy=summ["mfma_busy"], mfma_busy_per_simd=summ["mfma_busy_per_simd"],
                  tflops=perf["tflops"], stalls=summ["stalls"], perf=perf, problem=problem,
                  wgs_per_cu=copies, hbm_fraction=hbm, bytes=moved, seconds=seconds,
                  achieved_tbps=tbps, fraction_of_hbm_peak=tbps / params.hbm_tbps,
                  fraction_of_hbm_achievable=tbps / params.hbm_achieved_tbps,
                  tokens_per_second=batch * sq / seconds)
