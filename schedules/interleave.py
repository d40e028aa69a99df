"""``interleave``: a 4-wave GEMM K loop with the MFMAs as the timeline (HipKittens' 4-wave
interleave, Tensile ScheduleIterAlg 3 with PrefetchLocalRead; cdna-facts sections 9.1, 9.3).

Config arrangement "interleave" (``asmgen.kinds.gemm.pingpong``): one barrier per
iteration, the MFMA operands carried in registers, so the ds_reads of tile i + 1, the LDS writes
of tile i + 2 and the global loads of tile i + 3 all belong to iteration i and can run beside
its MFMAs. The repeated SchedGroup pattern "1 MFMA, ``lr_per_mfma`` ds_reads, 1 MFMA,
``mem_per_mfma`` LDS writes / global loads" spreads them between the MFMAs; a ds_read of tile
i + 1 into an operand register waits (DAG) for the MFMAs of tile i that read it, so the reads
trail the K-steps. ``s_setprio 1`` stays over the MFMA cluster (``setprio_groups``).
"""
from __future__ import annotations

from asmgen.sched.groups import SchedGroup

from . import register
from .common import GR, LR, LW, BlockRecipe, CommonTag, GemmRecipe, check_int, setprio_groups

MFMA = CommonTag.MFMA


@register("interleave")
def interleave(lr_per_mfma: int = 2, mem_per_mfma: int = 4, seed: int | None = None) -> GemmRecipe:
    """Requires (and defaults to) the config's ``arrangement="interleave"``."""
    check_int("lr_per_mfma", lr_per_mfma, 1, 16)
    check_int("mem_per_mfma", mem_per_mfma, 1, 16)
    if seed is not None:
        check_int("seed", seed, 0, 2**31 - 1)
    ranks = tuple((t, 4) for t in LW) + tuple((t, 3) for t in GR) + tuple((t, 2) for t in LR) + \
        ((MFMA, 5), (CommonTag.SETPRIO_HI, 5))
    groups = (SchedGroup({MFMA}, 1), SchedGroup(set(LR), lr_per_mfma), SchedGroup({MFMA}, 1),
              SchedGroup(set(LW) | set(GR), mem_per_mfma))
    loop = BlockRecipe(ranks=ranks, groups=groups + setprio_groups(), repeat=True, seed=seed)
    params = {"lr_per_mfma": lr_per_mfma, "mem_per_mfma": mem_per_mfma}
    if seed is not None:
        params["seed"] = seed
    shape = {"arrangement": "interleave"}
    return GemmRecipe("interleave", loop, params, defaults=shape, requires=shape)
