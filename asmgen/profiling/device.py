"""The device around the modeled CU for ``asmgen profile``: the tile grid's traffic to each XCD's
L2, the MALL and HBM (``isa.cycle.problem``), the load latency that traffic implies, the memory
floors of a loop trip, what bounds the loop (``isa.cycle.report.bound_breakdown``) and the
figure's uncertainty (the calibration error of ``isa.cycle.params.MODEL_ERROR``)."""
from __future__ import annotations


def tile_traffic(params, m: int, n: int, k: int, tile, copies: int, order: str = "m_fastest",
                 group: int = 8, in_bytes: float = 2) -> tuple[dict, float]:
    """(traffic of one trip of the first round, mean load latency) of a tiled GEMM."""
    from isa.cycle.problem import TileGrid
    return grid_traffic(params, TileGrid(m, n, k, tuple(tile), in_bytes=in_bytes, order=order,
                                         group=group), copies)


def grid_traffic(params, grid, copies: int) -> tuple[dict, float]:
    """(traffic of one trip of the first round, mean load latency) of the tile grid ``grid``
    (``isa.cycle.problem.TileGrid``) with ``copies`` workgroups per CU: what every profile whose
    problem shape is known (asmgen's GEMM contracts, launch contracts with ``tiles``, foreign
    kernels given ``tiles``) models its loads and floors with."""
    from isa.cycle.problem import gemm_traffic, loaded_latency
    traffic = gemm_traffic(params, grid, copies)
    return traffic, loaded_latency(params, traffic)


def trip_and_bound(params, res, summ: dict, cpi: float | None, traffic: dict | None,
                   clock_mhz: float) -> tuple[float | None, dict]:
    """(clk per trip after the memory floors, the bound breakdown of the steady-state loop)."""
    from isa.cycle.problem import memory_floors, trip_bound
    from isa.cycle.report import bound_breakdown
    floors = memory_floors(params, traffic, clock_mhz) if traffic else {}
    trip, by = (cpi, "cu") if cpi is None else trip_bound(cpi, floors)
    win = summ.get("steady_window")
    bb = bound_breakdown(res, tuple(win) if win else None, floors, trip)
    bb["trip_set_by"] = by
    bb["memory_floors_clk"] = {k: round(v, 1) for k, v in floors.items()}
    if traffic:
        bb["l2_hit"] = round(traffic["l2_hit"], 4)
        bb["mall_hit"] = round(traffic["mall_hit"], 4)
    return trip, bb


def floored_round(params, res, summ: dict, step: float | None, traffic: dict | None,
                  extra_trips: int, clock_mhz: float) -> tuple[float | None, dict, float]:
    """(clk per trip after the memory floors, the bound breakdown, clk of one round): the
    emulated round ``res`` plus ``extra_trips`` trips of ``step`` raised to the floors of
    ``traffic`` (none without it). The one extrapolation of asmgen's GEMM profile, launch
    contracts and foreign (Triton) kernels, so a peer is charged as asmgen's kernels are."""
    trip, bound = trip_and_bound(params, res, summ, step, traffic, clock_mhz)
    return trip, bound, res.cycles + extra_trips * (trip or 0.0)


def uncertainty(arch: str) -> dict:
    """The model's error on the published figures it was calibrated against (relative)."""
    from isa.cycle.params import MODEL_ERROR
    return dict(MODEL_ERROR.get(arch, MODEL_ERROR["default"]))
