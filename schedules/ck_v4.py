"""``ck_v4``: composable_kernel blockwise pipeline v4 style for the GEMM K loop (cdna-facts 9.2).

Local reads are double-buffered in registers: the recipe requires the config's
``frag_buffers=2`` (two fragment register sets, K-step s reads into set s % 2), so the reads of
K-step s + 1 can be issued before the MFMAs of step s and stay in flight across them; the reads
of step s + 2 reuse step s's set and wait (DAG WAR) for its MFMAs. LDS reads rank above MFMAs,
so every read issues as soon as its register set is free: the loop body is

    reads(0) reads(1) | MFMAs(0) with reads(2) between them as step 0 frees set 0 |
    MFMAs(1) with reads(3) ... | MFMAs(last)

and the wait before an MFMA of step s covers only step s's reads (``s_waitcnt lgkmcnt(n)`` with
n >= the reads of step s + 1 issued since). ``ds_reads_per_mfma`` caps how many ds_reads issue
between two MFMAs once the MFMAs started (CK's sched_group_barrier 0x100 : 0x008 pattern);
global reads and LDS writes fill the remaining slots.
"""
from __future__ import annotations

from . import register
from .common import GR, LR, LW, BlockRecipe, CommonTag, GemmRecipe, check_int, setprio_groups

SHAPE = {"frag_buffers": 2}


@register("ck_v4")
def ck_v4(ds_reads_per_mfma: int = 4, seed=None) -> GemmRecipe:
    check_int("ds_reads_per_mfma", ds_reads_per_mfma, 1, 16)
    ranks = tuple((t, 4) for t in LR) + ((CommonTag.MFMA, 3),) + tuple((t, 2) for t in GR) + \
        tuple((t, 2) for t in LW)
    groups = ()
    loop = BlockRecipe(ranks=ranks + ((CommonTag.SETPRIO_HI, 3),), groups=groups + setprio_groups(),
                       repeat=True, seed=seed)
    return GemmRecipe("ck_v4", loop, {"ds_reads_per_mfma": ds_reads_per_mfma},
                      defaults=SHAPE, requires=SHAPE)
