"""The GEMM configuration ``asmgen gemm`` builds when no tuning flag is given: a small table keyed
by how many workgroups the problem gives the device, ranked by the calibrated cycle model
(``benchmarks/schedules.py`` and ``benchmarks/calibration.py``; the ranking and its numbers are
in the cycle-model notes of issue 14). Not a search: the first entry the generator accepts wins.

* Enough 256x256 tiles to fill every CU at least once: the 8-wave ping-pong (HipKittens' schedule,
  2x4 waves, two per SIMD) with loads straight to LDS and XOR-swizzled LDS, DepthU 32 on gfx942
  (two 256x256x32 bf16 buffers are its 64 KiB of LDS) and 64 on gfx950 (160 KiB). The model ranks
  it first at 8192^3 on both arches (708 TF at 1447 MHz on MI325X, 1610 TF at 1704 MHz on
  MI355X): MFMA bound, 0.84 of the CUs busy on gfx942 (1024 tiles over 304 CUs = 4 rounds), all
  of them on gfx950 (1024 over 256).
* Enough 128x128 tiles to fill the CUs: the 4-wave recipe the model ranks best at that tile.
* Smaller problems: 64x64x32 ``pgr1`` with 2x2 waves (more workgroups than CUs sooner).
"""
from __future__ import annotations

import math

from ...errors import ConfigError

CUS = {"gfx942": 304, "gfx950": 256}

# (tile, waves, schedule, extra knobs) per size class and arch, best first
LARGE = {"gfx942": ((256, 256, 32), (2, 4), "pingpong", {"direct_to_lds": True, "lds_swizzle": True,
                                                         "prefetch": 1}),
         "gfx950": ((256, 256, 64), (2, 4), "pingpong", {"direct_to_lds": True, "lds_swizzle": True,
                                                         "prefetch": 1})}
# 128x128 (two workgroups per CU): the model's best 4-wave recipe at that tile per arch
# (benchmarks/schedules.py 8192^3, LDS-DMA + swizzle: gfx942 pgr1 635 TF@1447 MHz ahead of
# ck_v4 555 / interleave 548 / pgr2 343; gfx950 interleave 1602 TF@1704 MHz ahead of pgr1 1334)
MEDIUM = {"gfx942": ((128, 128, 32), (2, 2), "pgr1", {"direct_to_lds": True, "lds_swizzle": True}),
          "gfx950": ((128, 128, 64), (2, 2), "interleave", {"direct_to_lds": True,
                                                            "lds_swizzle": True})}
SMALL = ((64, 64, 32), (2, 2), "pgr1", {})


def candidates(m: int, n: int, arch: str) -> list[dict]:
    """Configurations to try for an m x n output on ``arch``, best first."""
    if arch not in CUS:
        raise ConfigError(f"no GEMM defaults for arch {arch!r} (know {sorted(CUS)})")
    out = []

    def tiles(t):
        return math.ceil(m / t[0]) * math.ceil(n / t[1])
    for tile, waves, schedule, extra in (LARGE[arch], MEDIUM[arch], SMALL):
        if tile is SMALL[0] or tiles(tile) >= CUS[arch]:
            out.append({"tile": tile, "waves": waves, "schedule": schedule, **extra})
    return out


def build_default(gemm, m: int, n: int, k: int, arch: str, **kw):
    """The first candidate ``gemm`` (``asmgen.api.gemm``) accepts; the last error if none does."""
    last = None
    for cfg in candidates(m, n, arch):
        try:
            return gemm(m, n, k, arch=arch, **cfg, **kw), cfg
        except ConfigError as exc:     # e.g. a layout the ping-pong's LDS-DMA cannot load
            last = exc
    raise last
