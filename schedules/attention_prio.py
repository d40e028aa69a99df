"""Attention forward recipes with per-cluster ``s_setprio`` for the multi-wave, LDS-shared K/V
loop (``asmgen.kinds.attention.pipe``, ``kv_buffers`` >= 2): ``attn_prio`` and
``attn_prio_interleave``.

Priority (cdna-facts 9.1/9.3, HipKittens' attention kernel: ``s_setprio`` around each MFMA
cluster): the loop body carries four ``s_setprio`` nodes, pinned by one SchedGroup pipeline
(sync id 2) in this order:

  setprio_hi (1) | QK MFMAs | setprio_qk_lo (0) | softmax VALU, memory | setprio_pv_hi (1) |
  PV MFMAs | setprio_lo (0)

The QK and PV group sizes are exact (the MFMA counts of the config), so ``bind(cfg)`` completes
the recipe once the config is known (``asmgen.api.compile_attention`` calls it). The drop
after the QK cluster ranks first (it issues as soon as the last QK MFMA did); the raise before
the PV cluster ranks last (it issues once nothing else is ready, i.e. when the PV MFMAs wait
for it), so the softmax and the memory ops of the next block run at priority 0 and the other
waves' MFMA clusters win the arbitration meanwhile.

``attn_prio_interleave`` adds a repeating pipeline (sync id 1) that follows every MFMA with up
to ``mem_per_mfma`` memory nodes of the next block (K LDS-DMA and its M0 writes, V global
loads, V transposes and ds_writes) or V^T ds_reads of this block, so the memory pipes work
under the MFMA clusters instead of between them. Both take ``seed`` (schedule fuzzing).
On the one-wave register-K loop (kv_buffers = 1) the QK/PV drop and raise nodes do not exist;
``bind`` then falls back to the plain pair pipeline of ``attention_fwd``.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from asmgen.errors import ConfigError
from asmgen.kinds.attention.tags import AttnTag as A
from asmgen.sched.groups import SchedGroup

from . import register
from .attention_fwd import AttnRecipe
from .common import BlockRecipe, CommonTag, check_int, setprio_groups

PRIO_SYNC = 2
MEM_TAGS = frozenset({A.GR_K, A.GR_K_ADDR, A.GR_V, A.LW_V, A.LW_V_ADDR, A.PACK_V, A.LR_V,
                      A.LR_V_ADDR})


def cluster_groups(cfg) -> tuple[SchedGroup, ...]:
    """The setprio pipeline of the module docstring, with ``cfg``'s MFMA counts."""
    n_qk = cfg.head_dim // cfg.mfma_k
    n_pv = (32 // cfg.mfma_k) * (cfg.head_dim // 32)
    s = PRIO_SYNC
    return (SchedGroup({CommonTag.SETPRIO_HI}, 1, s), SchedGroup({A.MFMA_QK}, n_qk, s),
            SchedGroup({A.SETPRIO_QK_LO}, 1, s), SchedGroup({A.SETPRIO_PV_HI}, 1, s),
            SchedGroup({A.MFMA_PV}, n_pv, s), SchedGroup({CommonTag.SETPRIO_LO}, 1, s))


@dataclass(frozen=True)
class ClusterRecipe(AttnRecipe):
    """An attention recipe whose loop groups depend on the config (``bind``)."""

    mem_per_mfma: int = 0
    bound: bool = False

    def bind(self, cfg) -> AttnRecipe:
        groups: tuple[SchedGroup, ...] = ()
        if self.mem_per_mfma:
            groups = (SchedGroup({CommonTag.MFMA}, 1, 1), SchedGroup(MEM_TAGS, self.mem_per_mfma, 1))
        if cfg.kv_buffers > 1:
            groups += cluster_groups(cfg)
        else:
            groups += setprio_groups(PRIO_SYNC)
        loop = replace(self.loop, groups=groups)
        return replace(self, loop=loop, bound=True)

    def for_block(self, name: str, tags=None):
        if name == "loop" and not self.bound:
            raise ConfigError(f"recipe {self.name} needs bind(config) before scheduling "
                              f"(asmgen.api.compile_attention does it)")
        return super().for_block(name, tags)


# setprio_qk_lo issues as soon as allowed, setprio_pv_hi only when nothing else is ready
_RANKS = ((A.SETPRIO_QK_LO, 9), (A.GR_K, 3), (A.GR_V, 2), (A.SETPRIO_PV_HI, -1))


@register("attn_prio")
def attn_prio(seed: int | None = None) -> ClusterRecipe:
    """Per-cluster s_setprio (module docstring); loads ranked first as in ``attn_basic``."""
    if seed is not None:
        check_int("seed", seed, 0, 2**31 - 1)
    loop = BlockRecipe(ranks=_RANKS, seed=seed)
    return ClusterRecipe("attn_prio", loop, {"seed": seed} if seed is not None else {})


@register("attn_prio_interleave")
def attn_prio_interleave(mem_per_mfma: int = 2, seed: int | None = None) -> ClusterRecipe:
    """``attn_prio`` plus next-block memory ops interleaved into the MFMA clusters."""
    check_int("mem_per_mfma", mem_per_mfma, 1, 16)
    if seed is not None:
        check_int("seed", seed, 0, 2**31 - 1)
    loop = BlockRecipe(ranks=_RANKS + ((A.LR_K, 4),), repeat=True, seed=seed)
    params = {"mem_per_mfma": mem_per_mfma} | ({"seed": seed} if seed is not None else {})
    return ClusterRecipe("attn_prio_interleave", loop, params, mem_per_mfma=mem_per_mfma)
