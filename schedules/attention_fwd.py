"""Attention forward recipes: ``attn_basic`` (critical path first) and ``attn_interleave``
(QK MFMAs, softmax VALU and PV MFMAs interleaved in a SchedGroup pipeline, with the memory
loads of the next operands ranked first); both take ``seed`` for schedule fuzzing.

The loop body's tags (``asmgen.kinds.attention.template``): ``gr_k`` ``gr_v`` (global loads),
``pack_v``, ``mfma_qk`` ``mfma_pv`` (both also ``mfma``), ``softmax`` with ``mask`` ``rowmax``
``exp`` ``rowsum`` ``rescale`` ``pack``, ``xlane`` (ds_bpermute), ``kv_adv`` (SALU).
Both pin the template's ``s_setprio 1`` before the first MFMA and ``s_setprio 0`` after the
last (``common.setprio_groups``, sync id 2; cdna-facts 9.3) so other waves' memory ops do not
starve the MFMA/softmax cluster. Interleaving MFMAs with independent VALU work keeps both pipes busy (cdna-facts section 9.3:
an MFMA issues, then VALU ops of the same wave issue while it runs).
"""
from __future__ import annotations

from dataclasses import dataclass

from asmgen.kinds.attention.tags import AttnTag as A
from asmgen.sched.groups import SchedGroup

from . import register
from .common import BlockRecipe, GemmRecipe, check_int, setprio_groups


@dataclass(frozen=True)
class AttnRecipe(GemmRecipe):
    """Same shape as the GEMM recipes (``for_block``, ``params``) so the pass manager and the
    contract writer treat both alike (attention's prefetch is ``AttentionConfig.prefetch``)."""


@register("attn_basic")
def attn_basic(seed: int | None = None) -> AttnRecipe:
    """Loads first, then the critical path order of the list scheduler."""
    if seed is not None:
        check_int("seed", seed, 0, 2**31 - 1)
    loop = BlockRecipe(ranks=((A.GR_K, 3), (A.GR_V, 2)), groups=setprio_groups(2), seed=seed)
    return AttnRecipe("attn_basic", loop, {"seed": seed} if seed is not None else {})


@register("attn_interleave")
def attn_interleave(valu_per_mfma: int = 4, seed: int | None = None) -> AttnRecipe:
    """After the QK MFMAs, each PV MFMA is followed by ``valu_per_mfma`` VALU nodes (the next
    block's operand packing or the rescale), repeating; loads stay ranked first."""
    check_int("valu_per_mfma", valu_per_mfma, 1, 32)
    if seed is not None:
        check_int("seed", seed, 0, 2**31 - 1)
    groups = (SchedGroup({A.MFMA_PV}, 1, 1),
              SchedGroup({A.RESCALE, A.PACK, A.PACK_V, A.KV_ADV}, valu_per_mfma, 1)) + \
        setprio_groups(2)
    loop = BlockRecipe(ranks=((A.GR_K, 4), (A.GR_V, 3), (A.MFMA_QK, 2)), groups=groups,
                       repeat=True, seed=seed)
    params = {"valu_per_mfma": valu_per_mfma} | ({"seed": seed} if seed is not None else {})
    return AttnRecipe("attn_interleave", loop, params)
