"""The whole device around one modeled CU: workgroups dealt over XCDs and CUs, the traffic a tiled
GEMM's K loop sends to each XCD's L2, to the Infinity Cache (MALL) and to HBM, and the floors
those put under the time of one loop trip.

Machine (numbers from ``isa.cycle.params``):
* Dispatch: workgroup ``w`` (linear id, x fastest) goes to XCD ``w % xcds`` (round robin over the
  8 XCDs, facts §1); each XCD holds ``cus_per_xcd x wgs_per_cu`` workgroups at once, so one round
  of the device runs ``cus x wgs_per_cu`` of them (wave quantisation: ``report.problem_tflops``).
* A GEMM tile grid maps a workgroup id to its (tile row, tile column) in one of three orders:
  ``m_fastest`` (asmgen's and Tensile's 2-D grid: x = tile row), ``n_fastest`` (1-D row-major) and
  ``grouped`` (Triton's GROUP_SIZE_M program swizzle).
* Per loop trip (``tk`` of K) every resident workgroup reads its A panel (``tm x tk``) and B
  panel (``tk x tn``). An XCD's L2 serves all of its workgroups' reads; it misses once per distinct
  panel among them (the K slab of one trip is far smaller than 4 MiB, so what one workgroup
  fetched is still there for its neighbours on the same XCD). Misses of all XCDs go to the
  MALL; what no XCD shared goes once to HBM (the MALL catches cross-XCD repeats within a trip).
* Floors per trip: the busiest XCD's L2 requests at the measured L2 bandwidth (B/clk; the
  theoretical 2 KiB/clk/XCD is twice what MT4G measured), the MALL bytes at
  the MALL bandwidth and the HBM bytes at the achieved HBM bandwidth (both TB/s, so their floor in
  clk grows with the clock). A trip takes the largest of the CU's own time and these floors.

Not modelled: reuse across rounds (a new round re-reads from HBM; the MALL may hold part of it:
conservative), L2 capacity misses (slabs are small), write traffic (the C tile, once per tile).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from .model import CycleModelError

ORDERS = ("m_fastest", "n_fastest", "grouped")


@dataclass(frozen=True)
class TileGrid:
    """The tiles of an ``m x n x k`` GEMM and the order workgroup ids walk them in."""

    m: int
    n: int
    k: int
    tile: tuple[int, int, int]
    in_bytes: float = 2        # bytes per A/B element (bf16/f16 2, fp8/i8 1, fp4 0.5)
    order: str = "m_fastest"
    group: int = 8             # GROUP_SIZE_M of the "grouped" order

    def __post_init__(self) -> None:
        if min(self.m, self.n, self.k, *self.tile, self.group) < 1 or not self.in_bytes > 0:
            raise CycleModelError(f"tile grid {self} has a size below 1 or no bytes per element")
        if self.order not in ORDERS:
            raise CycleModelError(f"tile order {self.order!r} is not one of {ORDERS}")

    @property
    def tiles_m(self) -> int:
        return math.ceil(self.m / self.tile[0])

    @property
    def tiles_n(self) -> int:
        return math.ceil(self.n / self.tile[1])

    @property
    def n_wg(self) -> int:
        return self.tiles_m * self.tiles_n

    @property
    def trips(self) -> int:
        return math.ceil(self.k / self.tile[2])

    def tile_of(self, wg: int) -> tuple[int, int]:
        """(tile row, tile column) of workgroup ``wg``."""
        tm, tn = self.tiles_m, self.tiles_n
        if self.order == "m_fastest":
            return wg % tm, wg // tm
        if self.order == "n_fastest":
            return wg // tn, wg % tn
        per_group = self.group * tn           # Triton's tutorial swizzle
        first = (wg // per_group) * self.group
        rows = min(tm - first, self.group)
        return first + (wg % per_group) % rows, (wg % per_group) // rows


def xcd_of(wg: int, xcds: int) -> int:
    """XCD a workgroup is dispatched to: round robin by linear id (facts §1, 8 XCDs)."""
    return wg % xcds


def gemm_traffic(params, grid: TileGrid, wgs_per_cu: int, first_wg: int = 0) -> dict:
    """Bytes one loop trip of one full round moves (workgroups ``first_wg`` .. + one round):
    per-XCD L2 requests and misses, MALL and HBM bytes, and the L2 hit rate."""
    xcds = int(params.xcds)
    per_round = int(params.cus) * wgs_per_cu
    wgs = range(first_wg, min(grid.n_wg, first_wg + per_round))
    tm, tn, tk = grid.tile
    slab = tk * grid.in_bytes
    rows: list[set] = [set() for _ in range(xcds)]
    cols: list[set] = [set() for _ in range(xcds)]
    count = [0] * xcds
    for w in wgs:
        x = xcd_of(w, xcds)
        i, j = grid.tile_of(w)
        rows[x].add(i)
        cols[x].add(j)
        count[x] += 1
    req = [c * (tm + tn) * slab for c in count]
    miss = [(len(r) * tm + len(c) * tn) * slab for r, c in zip(rows, cols, strict=True)]
    all_rows = set().union(*rows)
    all_cols = set().union(*cols)
    hbm = (len(all_rows) * tm + len(all_cols) * tn) * slab
    total_req = sum(req)
    return {"wgs": len(wgs), "l2_requests_xcd": req, "l2_misses_xcd": miss,
            "l2_request_bytes_max": max(req), "mall_bytes": sum(miss), "hbm_bytes": hbm,
            "l2_hit": 1.0 - sum(miss) / total_req if total_req else 1.0,
            "mall_hit": 1.0 - hbm / sum(miss) if sum(miss) else 1.0}


def tbps_to_bytes_per_clk(tbps: float, clock_mhz: float) -> float:
    return tbps * 1e12 / (clock_mhz * 1e6)


def memory_floors(params, traffic: dict, clock_mhz: float) -> dict:
    """Least clk one loop trip of a round can take for each level: ``l2`` (the busiest XCD),
    ``mall``, ``hbm``; bandwidths from ``params`` at ``clock_mhz``."""
    return {"l2": traffic["l2_request_bytes_max"] / params.l2_achieved_bytes_per_clk_xcd,
            "mall": traffic["mall_bytes"] / tbps_to_bytes_per_clk(params.mall_tbps, clock_mhz),
            "hbm": traffic["hbm_bytes"] / tbps_to_bytes_per_clk(params.hbm_achieved_tbps, clock_mhz)}


def loaded_latency(params, traffic: dict) -> float:
    """Mean load latency of the round's reads: L2 hits at the L2 latency, misses at the MALL
    latency when the MALL holds them and the HBM latency when not (timing §1)."""
    hit, mall_hit = traffic["l2_hit"], traffic["mall_hit"]
    miss_lat = mall_hit * params.mall_latency + (1 - mall_hit) * params.vmem_hbm_latency
    return hit * params.vmem_l2_latency + (1 - hit) * miss_lat


def icache_extra_clk(params, loop_bytes: int) -> float:
    """Extra clk per loop trip from instruction-cache misses: a loop larger than the cache misses
    on every line each trip (cyclic stream under LRU) and refills at the refill rate."""
    if loop_bytes <= params.icache_bytes:
        return 0.0
    return loop_bytes / params.icache_refill_bytes_per_clk


def trip_bound(cu_trip_clk: float, floors: dict) -> tuple[float, str]:
    """(clk per trip, what sets it): the CU's own time or the largest memory floor."""
    name, clk = max(floors.items(), key=lambda kv: kv[1]) if floors else ("cu", 0.0)
    if cu_trip_clk >= clk:
        return cu_trip_clk, "cu"
    return clk, name
