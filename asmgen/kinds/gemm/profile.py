"""``asmgen profile`` for GEMM contracts (``config.kind = "gemm"``): one tile with ``iters``
K-loop iterations is emulated and modeled; the steady-state cycles per K iteration extrapolate
to the contract's K, the rounds of workgroups over the CUs give the whole-problem TFLOP/s.
With several co-resident workgroups per CU the cycles per K iteration are the CU's (a second
run with two more K tiles), not one wave's: they differ when the workgroups do not loop in step.
"""
from __future__ import annotations

import math

import numpy as np

from ...dtypes import dtype_of
from ...errors import AsmgenError
from ...profiling.common import (
    arch_params,
    co_resident,
    cu_trip_cycles,
    emulate_streams,
    model_cu,
    report,
)
from ...profiling.device import floored_round, tile_traffic, uncertainty

EXTRA_TILES = 2      # the second, longer run: K grows by this many K-tiles


def gemm_problem(meta: dict, iters: int) -> dict:
    """Full and profiled sizes of a GEMM contract."""
    cfg = meta["config"]
    vals = {a["name"]: a.get("value") for a in meta["args"] if a["kind"] == "scalar"}
    m, n, k = (int(vals.get(x) or cfg[x.lower()]) for x in ("M", "N", "K"))
    tm, tn, tk = cfg["tile"]
    k_iters = math.ceil(k / tk)
    small_iters = max(1, min(k_iters, iters))
    return {"m": m, "n": n, "k": k, "tile": (tm, tn, tk), "k_iters": k_iters,
            "small": {"M": tm, "N": tn, "K": small_iters * tk}, "small_iters": small_iters,
            "n_wg": math.ceil(m / tm) * math.ceil(n / tn), "flops": 2.0 * m * n * k,
            "layout": cfg.get("layout", "NN")}


def gemm_values(meta: dict, small: dict, seed: int) -> dict:
    """Buffers and scalars of the profiled GEMM (random data, packed leading dimensions)."""
    from ...dtypes import np_dtype
    lay = meta["config"].get("layout", "NN")
    M, N, K = small["M"], small["N"], small["K"]
    shapes = {"A": (K, M) if lay[0] == "T" else (M, K), "B": (N, K) if lay[1] == "T" else (K, N),
              "C": (M, N)}
    rng = np.random.default_rng(seed)
    vals: dict = {"M": M, "N": N, "K": K, "lda": shapes["A"][1], "ldb": shapes["B"][1], "ldc": N}
    for a in meta["args"]:
        if a["kind"] == "buffer":
            shape = shapes.get(a["name"], tuple(a.get("shape") or (1,)))
            if a["name"] == "bias":
                shape = (N,)
            if a["dtype"] == "u8" and a["name"] in ("scale_a", "scale_b"):
                rows = M if a["name"] == "scale_a" else N   # MX block scales [M|N, K/32] near 1.0
                vals[a["name"]] = rng.integers(120, 135, (rows, K // 32)).astype(np.uint8)
                continue
            if a["dtype"] == "u8":     # packed fp4 pairs (mxfp4): [rows, K/2] random bytes
                vals[a["name"]] = rng.integers(0, 256, (shape[0], shape[1] // 2)).astype(np.uint8)
                if a["name"] in ("A", "B"):
                    vals["lda" if a["name"] == "A" else "ldb"] = shape[1]
                continue
            vals[a["name"]] = rng.uniform(-1, 1, size=shape).astype(np_dtype(a["dtype"]))
    return vals


def profile_gemm(meta: dict, hsaco: bytes, iters: int, device: str | None,
                 wgs_per_cu: int | None, clock_mhz: float | None, seed: int,
                 keep_result: bool, loop: tuple[int, int] | None) -> dict:
    """Modeled performance of a GEMM contract; see the module doc and ``asmgen.cli.profile``."""
    from isa.cycle.report import problem_tflops
    params = arch_params(meta, device)
    prob = gemm_problem(meta, iters)
    streams = emulate_streams(meta, hsaco, gemm_values(meta, prob["small"], seed), seed)
    tm, tn, _ = prob["tile"]
    dt = float(dtype_of(meta["config"]["dtype"]).size)     # fp4: half a byte
    loaded = prob["n_wg"] * (tm + tn) * prob["k"] * dt
    unique = (prob["m"] + prob["n"]) * prob["k"] * dt
    hbm_fraction = min(1.0, unique / loaded)
    # the device model (isa.cycle.problem): the tile grid's per-XCD L2 / MALL / HBM traffic gives
    # the load latency and the memory floors of a K trip; HBM is then a device-level floor, not a
    # per-CU share, so the CU model runs with hbm_fraction 0 and the device's latency
    copies = wgs_per_cu or co_resident(meta, params)
    clock = clock_mhz or params.clock_mhz
    # the panels' bytes are the input type's (an fp8 K slab is half a bf16 one; MX scales, 1/32
    # of a byte per element, are left out)
    traffic, latency = tile_traffic(params, prob["m"], prob["n"], prob["k"], prob["tile"], copies,
                                    in_bytes=dt)
    copies, res, summ = model_cu(meta, params, streams, copies, 0.0, loop, latency)
    cpi = summ["cycles_per_iter"]
    extra_iters = prob["k_iters"] - prob["small_iters"]
    if extra_iters and cpi is None:
        raise AsmgenError("profile: no K loop found in the emulated streams (need >= 2 iterations "
                          "to extrapolate); raise --iters")
    cpi_wave, extrapolation = cpi, "cycles_per_iter_wave"
    if extra_iters >= 2:
        more = dict(prob["small"], K=prob["small"]["K"] + EXTRA_TILES * prob["tile"][2])
        cpi, extrapolation = cu_trip_cycles(meta, hsaco, params, gemm_values(meta, more, seed),
                                            copies, 0.0, loop, res.cycles, cpi_wave,
                                            seed, vmem_latency=latency)
    trip, bound, per_round = floored_round(params, res, summ, cpi, traffic, extra_iters, clock)
    perf = problem_tflops(params, prob["flops"], prob["n_wg"], per_round, copies, clock_mhz,
                         streams=streams)
    emulated = {"k": prob["small"]["K"], "k_iters": prob["small_iters"]}
    return report(meta, params, res, summ, len(streams), emulated, keep_result,
                  schedule=meta.get("schedule"), kind="gemm",
                  cycles=perf["rounds"] * per_round, cycles_per_iter=cpi,
                  cycles_per_iter_wave=cpi_wave, extrapolation=extrapolation,
                  cycles_per_trip=trip, bound=bound, uncertainty=uncertainty(meta["arch"]),
                  cycles_per_round=per_round, mfma_busy=summ["mfma_busy"],
                  mfma_busy_per_simd=summ["mfma_busy_per_simd"], tflops=perf["tflops"],
                  stalls=summ["stalls"],
                  problem={k: prob[k] for k in ("m", "n", "k", "n_wg", "flops")},
                  wgs_per_cu=copies, hbm_fraction=hbm_fraction, perf=perf)
