"""``asmgen profile`` and ``asmgen check --no-reference`` for a launch contract
(``asmgen.profiling.launch``): one workgroup of the contract's small problem (``profile.dims``,
``profile.trips`` loop trips) runs on the emulator with trace on; its waves' streams run
``wgs_per_cu`` times on one modeled CU; the steady-state cycles per trip (the CU's marginal cost
per trip when workgroups share the CU, as for GEMM contracts) extrapolate to the full loop; the
tile grid (``tiles``) gives the XCD / L2 / MALL / HBM floors and the load latency; the full grid's
workgroups are dealt over the device's CUs."""
from __future__ import annotations

import math

import numpy as np

from ..errors import ConfigError
from . import launch as lc
from .common import ProfileError, arch_params, co_resident, model_cu, report
from .device import floored_round, tile_traffic, uncertainty

DEFAULT_TRIPS = 6


def _streams(meta, hsaco, trips: int, seed: int):
    from isa.cycle import streams_from_trace
    from isa.emu.errors import EmulatorError
    dims = lc.dims_for(meta, trips, small=True)
    try:
        emu, _ = lc.run(meta, hsaco, dims, grid=(1, 1, 1), seed=seed, trace=True)
    except EmulatorError as exc:
        raise ProfileError(f"{meta['kernel']} failed on the emulator, no stream to model: {exc}") from None
    allowed = {f"{r} ({k})": n for (r, k), n in sorted(emu.allowed_hazards.items())}
    return streams_from_trace(emu.trace), allowed


def profile_launch(path, iters: int | None = None, device: str | None = None,
                   wgs_per_cu: int | None = None, clock_mhz: float | None = None, seed: int = 0,
                   keep_result: bool = False, loop=None) -> dict:
    """Modeled performance of the kernel a launch contract describes (``asmgen profile --json``
    shape, plus ``bound`` and ``uncertainty``)."""
    from isa.cycle.report import problem_tflops
    meta, hsaco = lc.read(path)
    mm = lc.model_meta(meta, hsaco)
    params = arch_params(mm, device)
    trips = int(iters or (meta.get("profile") or {}).get("trips", DEFAULT_TRIPS))
    full = lc.trips_full(meta)
    trips = max(1, min(trips, full))
    if "flops" not in meta:
        raise lc.LaunchContractError("the contract has no 'flops' expression")
    flops = float(lc.evaluate(meta["flops"], meta["dims"], "flops"))
    n_wg = int(np.prod(lc.grid_of(meta, meta["dims"])))
    copies = wgs_per_cu or co_resident(mm, params)
    clock = clock_mhz or params.clock_mhz
    traffic, latency = None, None
    tiles = meta.get("tiles")
    if tiles:
        d = meta["dims"]
        m, n, k = (int(lc.evaluate(tiles.get(x, x.upper()), d, f"tiles.{x}")) for x in "mnk")
        traffic, latency = tile_traffic(params, m, n, k, tiles["tile"], copies,
                                        tiles.get("order", "m_fastest"), int(tiles.get("group", 8)),
                                        float(tiles.get("in_bytes", 2)))
    streams, allowed = _streams(meta, hsaco, trips, seed)
    copies, res, summ = model_cu(mm, params, streams, copies, 0.0, loop, latency)
    cpi = summ["cycles_per_iter"]
    extra = full - trips
    if extra and cpi is None:
        raise ProfileError(f"{meta['kernel']}: no loop found in the emulated streams (need >= 2 "
                           "trips to extrapolate); raise profile.trips")
    step, extrapolation = cpi, "cycles_per_iter_wave"
    if copies > 1 and extra >= 2:
        _, res2, _ = model_cu(mm, params, _streams(meta, hsaco, trips + 2, seed)[0], copies,
                              0.0, loop, latency)
        growth = (res2.cycles - res.cycles) / 2
        if cpi is None or growth > cpi:
            step, extrapolation = growth, "cycles_per_iter_cu"
    trip, bound, per_round = floored_round(params, res, summ, step, traffic, extra, clock)
    perf = problem_tflops(params, flops, n_wg, per_round, copies, clock, streams=streams)
    return report(meta, params, res, summ, len(streams), {"loop_trips": trips}, keep_result,
                  schedule="foreign", kind="foreign", cycles=perf["rounds"] * per_round,
                  cycles_per_iter=cpi, cycles_per_trip=trip, extrapolation=extrapolation,
                  cycles_per_round=per_round, mfma_busy=summ["mfma_busy"],
                  mfma_busy_per_simd=summ["mfma_busy_per_simd"], tflops=perf["tflops"],
                  stalls=summ["stalls"], bound=bound, uncertainty=uncertainty(meta["arch"]),
                  problem={"n_wg": n_wg, "flops": flops, "loop_trips": full},
                  wgs_per_cu=copies, perf=perf, resources=mm["resources"],
                  hazard_checked=bool((meta.get("emulator") or {}).get("check_hazards", True)),
                  allowed_hazards=allowed)


def check_launch(path, seed: int = 0) -> tuple[bool, str]:
    """``asmgen check --no-reference``: run the contract's check problem (``check.dims``, default
    the profile's small problem at its trips) over its whole grid; ok when it runs and every
    output buffer element is finite. No reference comparison."""
    from isa.emu.errors import EmulatorError
    meta, hsaco = lc.read(path)
    chk = meta.get("check") or {}
    trips = int((meta.get("profile") or {}).get("trips", DEFAULT_TRIPS))
    dims = lc.dims_for(meta, trips if "loop" in meta else None, small=True)
    dims.update(chk.get("dims") or {})
    grid = lc.grid_of(meta, dims)
    if math.prod(grid) > int(chk.get("max_workgroups", 64)):
        raise ConfigError(f"check grid {grid} has more than {chk.get('max_workgroups', 64)} "
                          "workgroups: give smaller check.dims")
    try:
        emu, bufs = lc.run(meta, hsaco, dims, seed=seed)
    except EmulatorError as exc:
        return False, f"emulator: {exc}"
    allowed = "".join(f"; allowed hazard {r} ({k}) x{n}" for (r, k), n in
                      sorted(emu.allowed_hazards.items()))
    bad = [n for n, a in bufs.items() if a.dtype.kind == "f" and not np.isfinite(
        a.astype(np.float64)).all()]
    note = ("" if meta.get("emulator", {}).get("check_hazards", True) else " (hazard judge off)")
    note += allowed
    if bad:
        return False, f"ran {math.prod(grid)} workgroups; non-finite values in {bad}{note}"
    return True, f"ran {math.prod(grid)} workgroups at {dims}, no reference compared{note}"
