"""Prefetch recipes for the GEMM K loop: ``pgr1`` and ``pgr2`` (one function, two defaults).

``pgr1`` (load, barrier, compute): every global read of the next tiles and every LDS write
issues first, then the LDS reads and MFMAs of the current tile; the template's barrier closes
the iteration. ``pgr2`` (Tensile PrefetchGlobalRead=2 with ScheduleIterAlg 3 style, cdna-facts
section 9.1): two K-tiles in flight (config prefetch depth 2 by default) and the MFMAs form the timeline,
with ``lr_per_mfma`` LDS reads, ``gr_per_mfma`` global reads and ``lw_per_mfma`` LDS writes
placed after each MFMA (SchedGroups repeated through the body).
"""
from __future__ import annotations

from asmgen.kinds.gemm.tags import GemmTag
from asmgen.sched.groups import SchedGroup

from . import register
from .common import GR, LR, LW, BlockRecipe, CommonTag, GemmRecipe, check_int, setprio_groups

MFMA = CommonTag.MFMA


def prefetch_recipe(name: str, interleave: bool, lr_per_mfma: int = 2, gr_per_mfma: int = 1,
                    lw_per_mfma: int = 1, seed=None, defaults: dict | None = None) -> GemmRecipe:
    for pname, val in (("lr_per_mfma", lr_per_mfma), ("gr_per_mfma", gr_per_mfma),
                       ("lw_per_mfma", lw_per_mfma)):
        check_int(pname, val, 1, 64)
    if not interleave:
        ranks = tuple((t, 4) for t in GR) + tuple((t, 3) for t in LW) + \
            tuple((t, 2) for t in LR) + ((MFMA, 1),)
        loop = BlockRecipe(ranks=ranks + ((CommonTag.SETPRIO_HI, 1),), groups=setprio_groups(), seed=seed)
    else:
        ranks = tuple((t, 4) for t in LR) + ((MFMA, 3),) + tuple((t, 2) for t in GR) + \
            tuple((t, 2) for t in LW)
        groups = (SchedGroup(set(LR), lr_per_mfma), SchedGroup({MFMA}, 1),
                  SchedGroup({GemmTag.GR_A, GemmTag.GR_B}, gr_per_mfma), SchedGroup({MFMA}, 1),
                  SchedGroup(set(LW), lw_per_mfma), SchedGroup({MFMA}, 1))
        loop = BlockRecipe(ranks=ranks + ((CommonTag.SETPRIO_HI, 3),), groups=groups + setprio_groups(),
                           repeat=True, seed=seed)
    params = {"lr_per_mfma": lr_per_mfma, "gr_per_mfma": gr_per_mfma, "lw_per_mfma": lw_per_mfma}
    return GemmRecipe(name, loop, params, defaults=dict(defaults or {}))


@register("pgr1")
def pgr1(seed=None, **kw) -> GemmRecipe:
    return prefetch_recipe("pgr1", False, seed=seed, **kw)


@register("pgr2")
def pgr2(lr_per_mfma: int = 2, gr_per_mfma: int = 1, lw_per_mfma: int = 1,
         seed=None) -> GemmRecipe:
    """Designed for two prefetched K-tiles (``defaults``: prefetch 2)."""
    return prefetch_recipe("pgr2", True, lr_per_mfma, gr_per_mfma, lw_per_mfma, seed,
                           defaults={"prefetch": 2})
