"""``ck_v4``: composable_kernel blockwise pipeline v4 style for the GEMM K loop (cdna-facts 9.2).

Local reads are double-buffered in registers: the recipe requires the config's
``frag_buffers=2`` (two fragment register sets, K-step s reads into set s % 2), so the reads of
K-step s + 1 can be issued before the MFMAs of step s and stay in flight across them; the reads
of step s + 2 reuse step s's set and wait (DAG WAR) for its MFMAs. LDS reads rank above MFMAs,
so every read issues as soon as its register set is free: the loop body is

    reads(0) reads(1) | MFMAs(0) with reads(2) between them as step 0 frees set 0 |
    MFMAs(1) with reads(3) ... | MFMAs(last)

and the wait before an MFMA of step s covers only step s's reads (``s_waitcnt lgkmcnt(n)`` with
n >= the reads of step s + 1 issued since); global reads and LDS writes fill the remaining slots.
The order is fixed by the register sets (a read issues as soon as its set is free), so the
recipe has no order parameter (its former ``ds_reads_per_mfma`` cap stopped changing the order
when the two register sets landed and was removed); ``seed`` breaks ties (schedule fuzzing).
"""
from __future__ import annotations

from . import register
from .common import GR, LR, LW, BlockRecipe, CommonTag, GemmRecipe, check_int, setprio_groups

SHAPE = {"frag_buffers": 2}


@register("ck_v4")
def ck_v4(seed: int | None = None) -> GemmRecipe:
    if seed is not None:
        check_int("seed", seed, 0, 2**31 - 1)
    ranks = tuple((t, 4) for t in LR) + ((CommonTag.MFMA, 3),) + tuple((t, 2) for t in GR) + \
        tuple((t, 2) for t in LW)
    groups = ()
    loop = BlockRecipe(ranks=ranks + ((CommonTag.SETPRIO_HI, 3),), groups=groups + setprio_groups(),
                       repeat=True, seed=seed)
    return GemmRecipe("ck_v4", loop, {} if seed is None else {"seed": seed},
                      defaults=SHAPE, requires=SHAPE)
