"""``asmgen profile`` for decode contracts (``config.kind = "decode"``).

The problem: ``batch`` sequences (the contract's ``batch`` value) of ``context_len`` keys each
(the config's; ``--size context_len=N`` is not offered, the config carries the length the split
count was chosen for). Workgroup (split s, kv head, row block) walks min(bps, blocks - s bps)
key blocks (>= 1), bps = ceil(blocks / num_splits). Profiled: workgroup (0, 0, 0) of a one-sequence
problem whose split 0 walks ``iters`` blocks, emulated with trace on; ``wgs_per_cu`` co-resident
copies run on one modeled CU (every K/V byte comes from HBM: decode reads the cache once;
``wgs_per_cu`` defaults to what a CU holds, or fewer when the problem has fewer workgroups than
that per CU). The
steady-state cycles per key block extrapolate each workgroup to its trip count, workgroups are
dealt to the ``cus x wgs_per_cu`` slots (``attention.profile.makespan``), and the result is held
to the HBM floor: the bytes the problem must move (K and V of every sequence's context, Q, the
outputs) at the device's achieved HBM bandwidth (``isa.cycle.params`` ``hbm_achieved_tbps``).
The CU model has no DRAM queue, so this floor is what bounds a long decode; the report says
which of the two set the time. With several splits the ``decode_combine`` launch follows
(``combine=(meta, hsaco)``, which ``asmgen profile`` compiles: ``DecodeKind.profile_companions``),
modeled the same way (``combine/profile.py``) and added: ``cycles``, TB/s and tokens/s are the
whole step's (both launches, both kernels' bytes), ``cycles_decode`` the first launch's.
"""
from __future__ import annotations

import math

import numpy as np

from ...dtypes import dtype_of, np_dtype
from ...profiling.common import (
    ProfileError,
    arch_params,
    co_resident,
    cu_trip_cycles,
    emulate_streams,
    model_cu,
)
from ...profiling.device import trip_and_bound, uncertainty
from ..attention.profile import makespan
from .config import BLOCK_K, DecodeConfig


def split_trips(ctx: int, splits: int) -> np.ndarray:
    """Key blocks of each split of a ``ctx``-key sequence (>= 1: an empty split runs once)."""
    blocks = -(-ctx // BLOCK_K)
    bps = max(1, -(-blocks // splits))
    return np.maximum(1, np.minimum(bps, blocks - bps * np.arange(splits))).astype(np.int64)


def decode_bytes(cfg: DecodeConfig, batch: int, ctx: int) -> dict:
    """Bytes the problem must move: K/V of every context, Q, the outputs (and the partials)."""
    el = dtype_of(cfg.dtype).nbytes(1)
    kv = len(("k_cache", "v_cache")) * batch * ctx * cfg.kv_row_bytes
    if cfg.token_scales:            # one f32 per key and KV head, for K and for V
        kv += 2 * batch * ctx * cfg.kv_heads * 4
    rows = batch * cfg.q_tokens * cfg.heads
    q = rows * cfg.head_dim * el
    out = rows * (cfg.head_dim * el + 4) * (cfg.num_splits if cfg.num_splits > 1 else 1)
    table = batch * cfg.max_blocks_per_seq * 4 if cfg.paged else 0
    comb = rows * cfg.num_splits * (cfg.head_dim * el + 4) + rows * (cfg.head_dim * el + 4) \
        if cfg.num_splits > 1 else 0
    return {"kv": kv, "q": q, "out": out, "table": table, "total": kv + q + out + table + batch * 4,
            "combine": comb}


def cache_values(cfg, rng, ctx: int) -> dict:
    """The KV cache of a one-sequence problem of ``ctx`` keys (decode and extend): dense
    ``[1, max_context, ...]`` or paged over ceil(ctx / page_size) shuffled pages (with the block
    table and ``num_blocks``), values in [-1, 1) in ``kv_dtype``; per-token scales
    ``[pages or 1, kv_heads, keys]`` in [0.5, 1)."""
    HK, D, kt = cfg.kv_heads, cfg.head_dim, np_dtype(cfg.kv_dtype)
    vals = {}
    if cfg.paged:
        pages = max(1, -(-ctx // cfg.page_size))
        shape = (pages, cfg.page_size, HK, D)
        table = np.zeros((1, cfg.max_blocks_per_seq), np.int32)
        table[0, :pages] = rng.permutation(pages)
        vals.update(block_table=table, num_blocks=pages)
    else:
        shape = (1, cfg.max_context, HK, D)
    vals["k_cache"] = rng.uniform(-1, 1, shape).astype(kt)
    vals["v_cache"] = rng.uniform(-1, 1, shape).astype(kt)
    if cfg.token_scales:
        for n in ("k_scale", "v_scale"):
            vals[n] = rng.uniform(0.5, 1.0, (shape[0], HK, shape[1])).astype(np.float32)
    return vals


def _values(cfg: DecodeConfig, ctx: int, seed: int) -> dict:
    """Inputs of a one-sequence problem of ``ctx`` keys (buffers at batch 1)."""
    rng = np.random.default_rng(seed)
    dt = np_dtype(cfg.dtype)
    T, H, D, S = cfg.q_tokens, cfg.heads, cfg.head_dim, cfg.num_splits
    vals = {"batch": 1, "q": rng.uniform(-1, 1, (1, T, H, D)).astype(dt),
            "context_lens": np.array([ctx], np.int32)}
    vals.update(cache_values(cfg, rng, ctx))
    if S > 1:
        vals["o_partial"] = np.zeros((1, S, T, H, D), dt)
        vals["lse_partial"] = np.zeros((1, S, T, H), np.float32)
    else:
        vals["o"] = np.zeros((1, T, H, D), dt)
        vals["lse"] = np.zeros((1, T, H), np.float32)
    return vals


def profile_decode(meta: dict, hsaco: bytes, iters: int, device: str | None,
                   wgs_per_cu: int | None, clock_mhz: float | None, seed: int,
                   keep_result: bool, loop: tuple[int, int] | None,
                   combine: tuple[dict, bytes] | None = None) -> dict:
    """Modeled performance of a decode contract; see the module doc."""
    from isa.cycle.problem import tbps_to_bytes_per_clk
    from isa.cycle.report import problem_tflops
    cfg = DecodeConfig(**{k: v for k, v in meta["config"].items() if k != "kind"})
    params = arch_params(meta, device)
    vals = {a["name"]: a.get("value") for a in meta["args"] if a["kind"] == "scalar"}
    batch, ctx, S = int(vals.get("batch") or cfg.batch), cfg.context_len, cfg.num_splits
    trips = split_trips(ctx, S)
    small = max(1, min(int(trips.max()), iters))
    small_ctx = min(cfg.max_context, small * S * BLOCK_K)
    if int(split_trips(small_ctx, S)[0]) != small:
        raise ProfileError(f"profile: a {small_ctx}-key context does not give split 0 {small} "
                           f"key blocks (max_context {cfg.max_context}); lower --iters")
    streams = emulate_streams(meta, hsaco, _values(cfg, small_ctx, seed), seed)
    per_seq = cfg.kv_heads * cfg.row_blocks
    n_wg = len(trips) * batch * per_seq
    if wgs_per_cu is None:      # as many as the CU holds, but no more than the problem gives it
        wgs_per_cu = max(1, min(co_resident(meta, params), -(-n_wg // int(params.cus))))
    copies, res, summ = model_cu(meta, params, streams, wgs_per_cu, 1.0, loop)
    cpi = summ["cycles_per_iter"]
    if int(trips.max()) > small and cpi is None:
        raise ProfileError("profile: no KV loop found in the emulated stream (need >= 2 "
                           "iterations to extrapolate); raise --iters")
    cpi_wave, extrapolation = cpi, "cycles_per_iter_wave"
    if int(trips.max()) >= small + 2 and small_ctx + 2 * S * BLOCK_K <= cfg.max_context:
        cpi, extrapolation = cu_trip_cycles(
            meta, hsaco, params, _values(cfg, small_ctx + 2 * S * BLOCK_K, seed), copies, 1.0,
            loop, res.cycles, cpi_wave, seed)
    durations = res.cycles + (trips - small) * (cpi or 0.0)
    if float(durations.min()) <= 0:
        raise ProfileError(f"profile: extrapolated workgroup time {float(durations.min())} clk "
                           f"is not positive (cycles {res.cycles}, {cpi} per iteration)")
    slots = int(params.cus) * copies
    cu_total = makespan(durations, batch * per_seq, slots)
    clock = clock_mhz or params.clock_mhz
    moved = decode_bytes(cfg, batch, ctx)
    hbm_floor = moved["total"] / tbps_to_bytes_per_clk(params.hbm_achieved_tbps, clock)
    decode_cycles = max(cu_total, hbm_floor)
    comb = None
    if S > 1:
        if combine is None:
            raise ProfileError(f"profile: a {S}-split decode contract needs its decode_combine "
                               f"kernel (combine=(meta, hsaco); asmgen profile compiles it)")
        from .combine.profile import profile_combine
        comb = profile_combine(*combine, params, batch, clock, seed)
    total = decode_cycles + (comb["cycles"] if comb else 0.0)
    all_bytes = moved["total"] + (comb["bytes"] if comb else 0)
    seconds = total / (clock * 1e6)
    rounds = math.ceil(n_wg / slots)
    flops = 4.0 * batch * cfg.q_tokens * cfg.heads * ctx * cfg.head_dim
    perf = problem_tflops(params, flops, n_wg, total / rounds, copies, clock_mhz)
    tbps = all_bytes / seconds / 1e12
    _, bound = trip_and_bound(params, res, summ, cpi, None, clock)
    return {"kernel": meta["kernel"], "arch": meta["arch"], "device": params.device,
            "schedule": meta.get("schedule"), "kind": "decode", "iter_name": "KV block",
            "bound": bound, "uncertainty": uncertainty(meta["arch"]),
            "cycles": total, "cycles_decode": decode_cycles, "combine": comb,
            "cycles_cu_model": cu_total, "cycles_hbm_floor": hbm_floor,
            "time_set_by": "hbm" if hbm_floor > cu_total else "cu",
            "cycles_per_iter": cpi, "cycles_per_round": total / rounds,
            "cycles_per_iter_wave": cpi_wave, "extrapolation": extrapolation,
            "mfma_busy": summ["mfma_busy"], "mfma_busy_per_simd": summ["mfma_busy_per_simd"],
            "tflops": perf["tflops"], "stalls": summ["stalls"], "perf": perf,
            "wgs_per_cu": copies, "hbm_fraction": 1.0,
            "bytes": moved, "bytes_step": all_bytes, "seconds": seconds, "achieved_tbps": tbps,
            "fraction_of_hbm_peak": tbps / params.hbm_tbps,
            "fraction_of_hbm_achievable": tbps / params.hbm_achieved_tbps,
            "tokens_per_second": batch * cfg.q_tokens / seconds,
            "problem": {"batch": batch, "context_len": ctx, "heads": cfg.heads,
                        "kv_heads": cfg.kv_heads, "q_tokens": cfg.q_tokens,
                        "head_dim": cfg.head_dim, "num_splits": S, "n_wg": n_wg,
                        "kv_iters_mean": float(trips.mean()), "flops": flops},
            "emulated": {"context_len": small_ctx, "kv_iters": small, "cycles": res.cycles,
                         "loop": summ["loop"], "iterations": summ["iterations"],
                         "instructions": summ["instructions"], "waves": len(streams)},
            "stalls_per_wave": summ["stalls_per_wave"],
            **({"_result": res, "_steady_window": summ["steady_window"]} if keep_result else {})}
