"""``attn_pingpong``: the phases of the 8-wave attention ping-pong loop
(``asmgen.kinds.attention.pingpong``; HipKittens' 8-wave attention forward, cdna-facts 9.3).

The loop body is an MFMA phase (the QK MFMAs of block j and the PV MFMAs of block j - 1
between ``s_setprio 1`` and ``s_setprio 0``), the mid barrier, the softmax / memory phase (tag
``phase_v``) and the end barrier. This recipe pins that order with one SchedGroup pipeline
(open-ended groups close as their nodes run out), so no softmax or memory op of a wave issues
between its MFMAs: its SIMD partner, one phase behind, fills that time. Within the softmax /
memory phase the global loads rank first (longest latency: the K DMA three blocks ahead, V two
ahead), then the V^T ds_writes, the ds_reads of the next MFMA operands, then the softmax, each
address node just below its memory op (``PhaseRecipe``). ``mfma_phase=False`` leaves the
phases unpinned (the barriers still fence the LDS ops, so it stays correct: schedule fuzzing).
Requires (and defaults to) ``waves=8`` (and ``kv_buffers=3``).
"""
from __future__ import annotations

from dataclasses import dataclass

from asmgen.kinds.attention.tags import AttnTag as A
from asmgen.sched.groups import SchedGroup

from . import register
from .attention_fwd import AttnRecipe
from .common import CommonTag, check_int
from .pingpong import OPEN, PhaseRecipe

_RANKS = ((A.ROWMAX, 6), (A.XLANE, 6), (A.GR_K, 5), (A.GR_K_ADDR, 5), (A.GR_V, 5),
          (A.LW_V, 3), (A.LW_V_ADDR, 3), (A.PACK_V, 3), (A.LR_K, 3), (A.LR_K_ADDR, 6),
          (A.LR_V, 3), (A.LR_V_ADDR, 7), (A.KV_ADV, 1), (A.KV_ROT, 1))
XLANE_RANK = 5   # the cross-lane op itself (it carries the row-max tag too), ``PingpongPhase``


@dataclass(frozen=True)
class PingpongPhase(PhaseRecipe):
    """``PhaseRecipe`` whose cross-lane node (``XLANE``: v_permlane32_swap / ds_bpermute) ranks
    ``XLANE_RANK``, below the row max it belongs to and the K read addresses (6, less 0.5 for an
    address): those issue between the row max's last VALU write and the swap that reads it,
    the two wait states gfx950 needs there (``isa.hazards`` valu_vgpr_permlane_swap), where an
    s_nop would stand; the V read addresses (7) fill the MFMA -> VALU wait states before the
    row max."""

    def priority(self, node) -> tuple:
        rank, order = super().priority(node)
        return (XLANE_RANK if A.XLANE in node.tags else rank, order)


# the softmax / memory phase's non-VALU work (SALU, LDS, VMEM): issued in the shadow of a
# v_exp_f32, which holds its SIMD's VALU 16 clk (quarter rate, cdna-timing section 3) while the
# wave's next non-VALU instruction may issue in the next slot
SHADOW = frozenset({A.LR_K, A.LR_V, A.GR_K, A.GR_K_ADDR, A.GR_V, A.LW_V, A.KV_ADV, A.KV_ROT})
SHADOW_PER_EXP = 3     # issue slots (4 clk each) left by one 16-clk transcendental
EXPS = 17              # v_exp_f32 per block: alpha and the 16 scores (softmax)


def exp_shadow_groups() -> tuple[SchedGroup, ...]:
    """Pipeline 1: each v_exp_f32 followed by up to three non-VALU nodes (``SHADOW``, ranked
    above the row sum and the P packing, so they take the shadow first); a shadow group with
    no ready node closes at once (``wait=False``), so the next v_exp_f32 is not held up behind
    it while a row-sum or pack node that waits on the v_exp_f32 just issued fills the slot."""
    out = []
    for _ in range(EXPS):
        out += [SchedGroup({A.EXP}, 1, 1), SchedGroup(SHADOW, SHADOW_PER_EXP, 1, wait=False)]
    return tuple(out)


def phase_groups() -> tuple[SchedGroup, ...]:
    """MFMA phase, mid barrier, softmax / memory phase, end barrier (module docstring)."""
    return (SchedGroup({CommonTag.SETPRIO_HI}, 1), SchedGroup({CommonTag.MFMA}, OPEN),
            SchedGroup({CommonTag.SETPRIO_LO}, 1), SchedGroup({A.BARRIER_MID}, 1),
            SchedGroup({A.PHASE_V}, OPEN), SchedGroup({A.BARRIER_END}, 1))


@register("attn_pingpong")
def attn_pingpong(mfma_phase: bool = True, seed: int | None = None) -> AttnRecipe:
    """``seed``: random tie-break among equally ranked ready nodes (schedule fuzzing)."""
    if not isinstance(mfma_phase, bool):
        from asmgen.errors import ConfigError
        raise ConfigError(f"attn_pingpong mfma_phase={mfma_phase!r} is not a bool")
    if seed is not None:
        check_int("seed", seed, 0, 2**31 - 1)
    loop = PingpongPhase(ranks=_RANKS, groups=phase_groups() + exp_shadow_groups()
                       if mfma_phase else (), seed=seed)
    params = ({} if mfma_phase else {"mfma_phase": False}) | ({} if seed is None else {"seed": seed})
    shape = {"waves": 8, "kv_buffers": 3}
    return AttnRecipe("attn_pingpong", loop, params, defaults=shape, requires={"waves": 8})
