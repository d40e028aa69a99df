"""``fuzz``: a seeded random legal order of any kernel's DAG (schedule fuzzing, design.md).

The recipe only ever chooses *among ready nodes* of the list scheduler, so every order it produces
respects every distance-0 DAG edge (legal by construction); the passes must then make it correct
and the emulator proves it. It knows no template: it reads node ids and tags only, so it works for
GEMM today and attention (or any future kernel) unchanged.

One seed picks, per block, one of four ways to perturb the order (all derived from the seed, so a
schedule is reproducible from ``(config, seed)`` alone):

* ``uniform``  - every ready node equally likely (the scheduler's seeded random tie-break);
* ``keys``     - a random priority per node: any topological order has non-zero probability, and
                 the orders are "clumpier" than uniform (a high-key node drags its chain forward);
* ``tags``     - a random rank per tag (a random recipe such as "all ds_reads first, then MFMAs")
                 plus random *legal moves*: a fraction of nodes is hoisted to the top rank or sunk
                 below everything, i.e. moved as far as its dependences allow;
* ``groups``   - ``tags`` plus random SchedGroup interleave patterns over the block's tag set
                 ("n of tag X, then m of tag Y", repeated), the same machinery the real recipes use.

With ``ties`` the recipe keeps the list scheduler's own order (node priority, then the critical
path) and only breaks its ties at random: the orders of a kernel with no register headroom for
arbitrary ones (attention at head_dim 256, ``KernelKind.fuzz_schedule_params``).

For GEMM the orders are drawn over the split K loops of ``interleave`` and ``pingpong`` too (the
config's ``arrangement``, chosen by ``asmgen.fuzz.cases``), so their barrier protocol is fuzzed
with everything else.
"""
from __future__ import annotations

import random
import zlib
from dataclasses import dataclass, field, replace

from asmgen.errors import ConfigError
from asmgen.kinds.attention.tags import AttnTag as A
from asmgen.kinds.gemm.tags import GemmTag as G
from asmgen.sched.groups import SchedGroup

from . import register
from .common import CommonTag, CoreTag, GemmRecipe, check_int, restrict_groups

MODES = ("uniform", "keys", "tags", "groups")
# Tags the random rank tables and interleave groups are drawn from, over the GEMM and attention
# vocabularies; ``for_block`` keeps only the tags its block carries (it gets the block's tag
# counts), so the recipe never names a tag the kernel's kind does not declare, and drops a group
# left with none. (A tag no node of the block carries can change no order: the draws are made
# over the whole list first, so the orders of a seed do not depend on the kind.)
GROUP_TAGS = (G.GR_A, G.GR_B, G.LW_A, G.LW_B, G.LR_A, G.LR_B, CommonTag.MFMA, CoreTag.ADDR,
              CoreTag.BARRIER, CommonTag.SETPRIO, CommonTag.STORE, A.GR_K, A.GR_V, A.LR_K, A.LR_V,
              A.LW_K, A.LW_V, A.SOFTMAX, A.EXP)


def _sub_seed(seed: int, block: str) -> int:
    """A block's own seed, stable across Python runs (no hash randomisation)."""
    return zlib.crc32(f"{seed}:{block}".encode()) & 0x7FFFFFFF


@dataclass(frozen=True)
class FuzzBlock:
    """What the list scheduler reads for one block (``groups``, ``repeat``, ``seed``, ``priority``)."""

    seed: int
    mode: str
    move_rate: float = 0.0
    ranks: tuple[tuple[str, int], ...] = ()
    groups: tuple[SchedGroup, ...] = ()
    repeat: bool = False
    _cache: dict = field(default_factory=dict, compare=False, repr=False)

    def priority(self, node) -> tuple:
        p = self._cache.get(node.id)
        if p is None:
            p = self._cache[node.id] = self._priority(node)
        return p

    def _priority(self, node) -> tuple:
        if self.mode == "uniform":
            return (0,)
        rng = random.Random((self.seed << 20) ^ node.id)   # per node, independent of visit order
        key = rng.random()
        if self.mode == "keys":
            return (key,)
        ranks = dict(self.ranks)
        rank = max((ranks.get(t, 0) for t in node.tags), default=0)
        move = rng.random()
        if move < self.move_rate / 2:
            rank = 1 << 20          # hoist: issue as soon as its dependences allow
        elif move < self.move_rate:
            rank = -(1 << 20)       # sink: issue only when nothing else is ready
        return (rank, key)


def block_recipe(seed: int, block: str) -> FuzzBlock:
    """The random per-block recipe of ``seed`` (see the module docstring)."""
    s = _sub_seed(seed, block)
    rng = random.Random(s)
    mode = MODES[rng.randrange(len(MODES))]
    if mode in ("uniform", "keys"):
        return FuzzBlock(s, mode)
    tags = list(GROUP_TAGS)
    rng.shuffle(tags)
    ranks = tuple((t, rng.randrange(-4, 5)) for t in tags)
    move_rate = rng.choice((0.0, 0.05, 0.2, 0.5))
    groups: tuple[SchedGroup, ...] = ()
    if mode == "groups":
        pattern = []
        for _ in range(rng.randint(2, 4)):
            mask = set(rng.sample(GROUP_TAGS, rng.randint(1, 3)))
            pattern.append(SchedGroup(mask, rng.randint(1, 4), sync_id=0))
        groups = tuple(pattern)
    return FuzzBlock(s, mode, move_rate, ranks, groups, repeat=bool(groups) and rng.random() < 0.7)


@dataclass(frozen=True)
class TieBlock:
    """The scheduler's default order (no ``priority``: node priority, then height) with its ties
    broken by ``seed``."""

    seed: int
    groups: tuple[SchedGroup, ...] = ()
    repeat: bool = False


@dataclass(frozen=True)
class FuzzRecipe(GemmRecipe):
    """Random legal orders for every block (prologue, loop body, epilogue, or any other name)."""

    seed: int = 0
    ties: bool = False

    def for_block(self, name: str, tags=None):
        if self.ties:
            return TieBlock(_sub_seed(self.seed, name))
        return present_only(block_recipe(self.seed, name), tags)


def present_only(br: FuzzBlock, tags) -> FuzzBlock:
    """``br`` naming only tags of ``tags`` (a block's tag counts): rank entries and mask tags of
    other tags dropped (no node of the block carries them, so the order is the same), groups
    left with no tag dropped (``restrict_groups``)."""
    if tags is None:
        return br
    have = {t for t, c in tags.items() if c}      # the block's own members (equal spellings)
    groups = tuple(SchedGroup({t for t in have if t in g.mask}, g.count, g.sync_id)
                   if g.mask & have else g for g in br.groups)
    ranks = tuple((t, r) for t, r in br.ranks if t in have)
    ranks = tuple((next(h for h in have if h == t), r) for t, r in ranks)
    br = replace(br, ranks=ranks, groups=groups, _cache={})
    return restrict_groups(br, tags)


@register("fuzz")
def fuzz(seed: int = 0, ties: bool = False) -> FuzzRecipe:
    """``seed``: which random order (0..2**31-1); ``ties``: only the scheduler's ties at random
    (module docstring). Any config (arrangement, prefetch) works: the orders are drawn over
    whatever blocks the template built."""
    check_int("seed", seed, 0, 2**31 - 1)
    if not isinstance(ties, bool):
        raise ConfigError(f"recipe parameter ties={ties!r} is not a bool")
    params = {"seed": seed} | ({"ties": True} if ties else {})
    return FuzzRecipe("fuzz", None, params, seed=seed, ties=ties)
