"""``ck_v4``: composable_kernel blockwise pipeline v4 style for the GEMM K loop (cdna-facts 9.2).

Local reads are double-buffered in registers (the template gives every K-step its own operand
registers) and LDS reads and MFMAs run as two independent streams: LDS reads rank above MFMAs,
so the reads of K-step s + 1 are in flight while the MFMAs of step s issue, and the SchedGroup
pattern "``ds_reads_per_mfma`` ds_read : 1 MFMA" (CK's sched_group_barrier 0x100 : 0x008) keeps
them interleaved; global reads and LDS writes fill the remaining slots.
"""
from __future__ import annotations

from asmgen.sched.groups import SchedGroup

from . import register
from .common import GR, LR, LW, BlockRecipe, GemmRecipe, check_int, setprio_groups


@register("ck_v4")
def ck_v4(prefetch: int = 1, ds_reads_per_mfma: int = 1, seed=None) -> GemmRecipe:
    check_int("prefetch", prefetch, 1, 3)
    check_int("ds_reads_per_mfma", ds_reads_per_mfma, 1, 16)
    ranks = tuple((t, 4) for t in LR) + (("mfma", 3),) + tuple((t, 2) for t in GR) + \
        tuple((t, 2) for t in LW)
    groups = (SchedGroup(set(LR), ds_reads_per_mfma, sync_id=0), SchedGroup({"mfma"}, 1, sync_id=0))
    loop = BlockRecipe(ranks=ranks + (("setprio_hi", 3),), groups=groups + setprio_groups(),
                       repeat=True, seed=seed)
    return GemmRecipe("ck_v4", loop, prefetch, {"prefetch": prefetch,
                                                    "ds_reads_per_mfma": ds_reads_per_mfma})
