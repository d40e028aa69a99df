"""The ``decode_combine`` kernel under the cycle model, for ``asmgen profile`` of a split decode
contract (``asmgen.kinds.decode.profile``): the second launch of flash decoding is part of the
step's time.

Every combine workgroup does the same work (one loop trip per split over rows_per_wg rows), so
workgroup (0, 0) of a batch-1 problem is emulated with trace on, ``wgs_per_cu`` copies run on one
modeled CU (as many as it holds, or fewer when the grid has fewer per CU), the grid is dealt to
the ``cus x copies`` slots, and the result is held to the HBM floor of its bytes (the partials
read, o and lse written) at the device's achieved bandwidth, like the decode kernel's.
"""
from __future__ import annotations

import numpy as np

from ....dtypes import np_dtype
from ....profiling.common import co_resident, emulate_streams, model_cu
from ...attention.profile import makespan
from ..merge import CombineConfig


def combine_bytes(cfg: CombineConfig, batch: int) -> int:
    """Bytes the combine moves: every split's partial O and LSE in, O and LSE out."""
    rows = batch * cfg.q_tokens * cfg.heads
    row = cfg.in_type.nbytes(cfg.head_dim) + 4
    return rows * row * (cfg.num_splits + 1)


def _values(cfg: CombineConfig, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    S, T, H, D = cfg.num_splits, cfg.q_tokens, cfg.heads, cfg.head_dim
    dt = np_dtype(cfg.dtype)
    return {"batch": 1, "o_partial": rng.uniform(-1, 1, (1, S, T, H, D)).astype(dt),
            "lse_partial": rng.uniform(-4, 4, (1, S, T, H)).astype(np.float32),
            "o": np.zeros((1, T, H, D), dt), "lse": np.zeros((1, T, H), np.float32)}


def profile_combine(meta: dict, hsaco: bytes, params, batch: int, clock_mhz: float,
                    seed: int = 0) -> dict:
    """Modeled clk of the combine launch over ``batch`` sequences (see the module doc)."""
    from isa.cycle.problem import tbps_to_bytes_per_clk
    cfg = CombineConfig(**{k: v for k, v in meta["config"].items() if k != "kind"})
    n_wg = cfg.grid[0] * batch
    streams = emulate_streams(meta, hsaco, _values(cfg, seed), seed)
    per_cu = max(1, min(co_resident(meta, params), -(-n_wg // int(params.cus))))
    copies, res, _ = model_cu(meta, params, streams, per_cu, 1.0, None)
    cu = makespan(np.array([float(res.cycles)]), n_wg, int(params.cus) * copies)
    moved = combine_bytes(cfg, batch)
    floor = moved / tbps_to_bytes_per_clk(params.hbm_achieved_tbps, clock_mhz)
    return {"kernel": meta["kernel"], "cycles": max(cu, floor), "cycles_cu_model": cu,
            "cycles_hbm_floor": floor, "time_set_by": "hbm" if floor > cu else "cu",
            "n_wg": n_wg, "wgs_per_cu": copies, "bytes": moved,
            "emulated_cycles": float(res.cycles)}
