"""``pingpong``: HipKittens' 8-wave ping-pong for the GEMM K loop (cdna-facts section 9.3).

Config arrangement "pingpong" (``asmgen.kinds.gemm.pingpong``): 8 waves, two per SIMD;
each iteration is a compute phase (the MFMAs of tile i from registers, ``s_setprio 1``) and a
memory phase (LDS writes / global loads of tiles i + 2, i + 3 and the ds_reads of tile i + 1),
split by ``s_barrier``; waves 4..7 run one barrier behind waves 0..3, so on every SIMD one wave
issues MFMAs while its partner issues memory ops. This recipe pins the phases: the SchedGroup
pipeline "setprio_hi, every MFMA, setprio_lo, mid barrier, every memory-phase node, end
barrier" (the groups close as their nodes run out), and within the memory phase ranks LDS writes
first (their data arrived an iteration ago), then the global loads (longest latency), then the
ds_reads. The config checks prefetch (1: two LDS buffers) and staging (1), the template the
wave count (8), each a ConfigError naming the value.
"""
from __future__ import annotations

from dataclasses import dataclass

from asmgen.kinds.gemm.tags import GemmTag
from asmgen.sched.groups import SchedGroup

from . import register
from .common import GR, LR, LW, BlockRecipe, CommonTag, CoreTag, GemmRecipe, check_int

OPEN = 1 << 20    # an open-ended group: closes when no matching node is left to issue


def phase_groups() -> tuple[SchedGroup, ...]:
    """The compute phase, the mid barrier, the memory phase and the end barrier, in that order."""
    return (SchedGroup({CommonTag.SETPRIO_HI}, 1), SchedGroup({CommonTag.MFMA}, OPEN),
            SchedGroup({CommonTag.SETPRIO_LO}, 1), SchedGroup({GemmTag.BARRIER_MID}, 1),
            SchedGroup({GemmTag.PHASE_M}, OPEN), SchedGroup({GemmTag.BARRIER_END}, 1))


@dataclass(frozen=True)
class PhaseRecipe(BlockRecipe):
    """``BlockRecipe`` whose address nodes rank just below the memory ops of the same tag: a
    memory op issues right after its address is ready, so few address temporaries are live at
    once (two waves per SIMD leave each wave 256 registers, cdna-facts section 1)."""

    def priority(self, node) -> tuple:
        rank, order = super().priority(node)
        return (rank - 0.5 if CoreTag.ADDR in node.tags else rank, order)


@dataclass(frozen=True)
class PingpongRecipe(GemmRecipe):
    """The prologue is ordered like the memory phase (``PhaseRecipe``: program order, each
    address right before its use), which keeps its peak register use below the loop's."""

    def for_block(self, name: str, tags=None):
        if name == "prologue":
            return PhaseRecipe(seed=self.loop.seed)
        return super().for_block(name, tags)


@register("pingpong")
def pingpong(seed: int | None = None) -> GemmRecipe:
    """``seed``: random tie-break among equally ranked ready nodes (schedule fuzzing). Requires
    (and defaults to) the config's ``arrangement="pingpong"``."""
    if seed is not None:
        check_int("seed", seed, 0, 2**31 - 1)
    ranks = tuple((t, 4) for t in LW) + tuple((t, 3) for t in GR) + tuple((t, 2) for t in LR)
    loop = PhaseRecipe(ranks=ranks, groups=phase_groups(), seed=seed)
    params = {} if seed is None else {"seed": seed}
    shape = {"arrangement": "pingpong"}
    return PingpongRecipe("pingpong", loop, params, defaults=shape, requires=shape)

