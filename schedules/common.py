"""Shared recipe pieces: a per-block recipe with tag ranks, SchedGroups and a seed.

``BlockRecipe.priority(node)`` = (rank of the node's best-ranked tag, -node.id): higher ranks
issue first among ready nodes, then program order. ``GemmRecipe`` holds the loop recipe, the
config values it is designed for (``defaults``) and those it requires (``requires``); it leaves
the prologue and epilogue to the scheduler's default (critical path first). Recipes only order:
the pipeline shape (prefetch, staging, arrangement, fragment register sets) is the kind's config.

Recipes name tags by their declarations (``asmgen.ir.tags``: the kinds' ``tags`` modules), never
by string: a rank table or SchedGroup mask with a bare string is refused when the recipe is
made, and one naming a tag the kernel's kind does not declare at its first use on that kernel.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from asmgen.errors import ConfigError
from asmgen.ir.tags import CoreTag
from asmgen.kinds.common.tags import CommonTag
from asmgen.kinds.gemm.tags import GR, LR, LW
from asmgen.sched.groups import SchedError, SchedGroup, check_declared


@dataclass(frozen=True)
class BlockRecipe:
    """What the list scheduler reads for one block."""

    ranks: tuple[tuple[str, int], ...] = ()
    groups: tuple[SchedGroup, ...] = ()
    repeat: bool = False
    seed: int | None = None

    def __post_init__(self) -> None:
        check_declared((t for t, _ in self.ranks), "rank table")

    def for_tags(self, tags) -> BlockRecipe:
        """This recipe without the groups that match none of ``tags`` (a block's tag counts)."""
        return restrict_groups(self, tags)

    def priority(self, node) -> tuple:
        best = 0
        table = dict(self.ranks)
        for t in node.tags:
            r = table.get(t)
            if r is not None and r > best:
                best = r
        return (best, -node.id)


@dataclass(frozen=True)
class GemmRecipe:
    """A named schedule: the loop body's BlockRecipe. It only orders nodes; the pipeline shape
    belongs to the kind's config. ``defaults`` are config values the recipe is designed for (the
    caller's config takes them when it states none, e.g. pgr2's two prefetched K-tiles);
    ``requires`` are config values the order depends on (``check_config`` refuses any other)."""

    name: str
    loop: BlockRecipe
    params: dict = field(default_factory=dict)
    defaults: dict = field(default_factory=dict)
    requires: dict = field(default_factory=dict)

    def for_block(self, name: str, tags=None):
        """The loop body's recipe (``tags``: the block's tag counts; groups matching none of
        them are left out), nothing for the other blocks (the scheduler's default order)."""
        if name != "loop":
            return None
        return self.loop if tags is None else restrict_groups(self.loop, tags)

    def check_config(self, cfg) -> None:
        """ConfigError naming the recipe, the field and both values when ``cfg`` lacks a
        required value."""
        for key, want in self.requires.items():
            have = getattr(cfg, key)
            if have != want:
                raise ConfigError(f"recipe {self.name} requires {key}={want!r}, but the config "
                                  f"has {key}={have!r}")


def restrict_groups(block_recipe, tags):
    """``block_recipe`` (a dataclass with ``groups``) keeping only the SchedGroups that match
    some tag in ``tags``; the same object when all do."""
    from dataclasses import replace
    if tags is None or not block_recipe.groups:
        return block_recipe
    keep = tuple(g for g in block_recipe.groups if any(tags.get(t) for t in g.mask))
    return block_recipe if len(keep) == len(block_recipe.groups) else replace(block_recipe,
                                                                              groups=keep)


def check_int(name: str, value, lo: int, hi: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise ConfigError(f"recipe parameter {name}={value!r} is outside {lo}..{hi}")
    return value


def setprio_groups(sync_id: int = 1) -> tuple[SchedGroup, ...]:
    """A pipeline pinning the template's ``s_setprio`` pair around the MFMA cluster: the raise
    (tag ``setprio_hi``) issues before the first MFMA, the drop (``setprio_lo``) only once no
    other node can issue (the MFMA group is open-ended: the recipe does not know the MFMA count;
    the scheduler closes it when it runs dry), i.e. at the end of the body (cdna-facts 9.1/9.3:
    raise priority for the MFMA cluster so other waves' memory ops do not starve it)."""
    return (SchedGroup({CommonTag.SETPRIO_HI}, 1, sync_id),
            SchedGroup({CommonTag.MFMA}, 1 << 20, sync_id),
            SchedGroup({CommonTag.SETPRIO_LO}, 1, sync_id))


__all__ = [
    "GR",
    "LR",
    "LW",
    "BlockRecipe",
    "CommonTag",
    "CoreTag",
    "GemmRecipe",
    "SchedError",
    "check_int",
    "restrict_groups",
    "setprio_groups",
]
