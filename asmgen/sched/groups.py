"""SchedGroup: "issue COUNT nodes carrying one of these tags next", like LLVM's sched_group_barrier.

A recipe gives the scheduler a list of groups. Groups with the same ``sync_id`` form one ordered
pipeline that the scheduler fills front to back: while a pipeline's current group is open, a ready
node whose tags match *any* group of that pipeline may issue only if it matches the *current*
group; nodes that match no group of a pipeline are not constrained by it. A group closes after
``count`` of its nodes issued, or when no node matching it is ready and nothing else can issue
(then the scheduler skips it rather than deadlock; ``skipped`` counts such events for tests and
recipe debugging); a group made with ``wait=False`` closes as soon as none of its nodes is ready
(a "fill these slots if you can" group: the pipeline's next group is not held up behind it).
Pipelines with different ``sync_id`` are independent. With ``repeat=True`` on
the recipe, a finished pipeline starts over while matching nodes remain (an interleave pattern
such as "1 mfma, 2 ds_read" repeated through the loop body).

Masks hold declared tags (``asmgen.ir.tags``: enum or family members, never bare strings), and
``check_recipe_tags`` refuses a block recipe naming a tag the kernel's kind does not declare
(the pass manager calls it when a recipe is first used on a kernel's block).

Example (LLVM AMDGPU ``__builtin_amdgcn_sched_group_barrier(mask, size, syncid)`` analogue)::

    groups = [SchedGroup({CommonTag.MFMA}, 1), SchedGroup({GemmTag.LR_A, GemmTag.LR_B}, 2),
              SchedGroup({GemmTag.GR_A}, 1)]
"""
from __future__ import annotations

from dataclasses import dataclass

from ..errors import ConfigError
from ..ir.tags import TagVocabulary, is_declared


class SchedError(ConfigError):
    """A recipe asked the scheduler for something impossible (bad group, cyclic DAG)."""


@dataclass(frozen=True, slots=True)
class SchedGroup:
    """``count`` nodes having at least one tag in ``mask``, within pipeline ``sync_id``."""

    mask: frozenset[str]
    count: int = 1
    sync_id: int = 0
    wait: bool = True     # False: closes as soon as none of its nodes is ready (``schedule``)

    def __init__(self, mask, count: int = 1, sync_id: int = 0, *, wait: bool = True) -> None:
        if isinstance(mask, str):
            mask = {mask}
        mask = frozenset(mask)
        if not mask:
            raise SchedError("SchedGroup mask is empty: give at least one tag")
        check_declared(mask, "SchedGroup mask")
        if count < 1:
            raise SchedError(f"SchedGroup count {count} < 1")
        object.__setattr__(self, "mask", mask)
        object.__setattr__(self, "count", count)
        object.__setattr__(self, "sync_id", sync_id)
        object.__setattr__(self, "wait", bool(wait))

    def matches(self, tags: frozenset[str]) -> bool:
        return not self.mask.isdisjoint(tags)


def check_declared(tags, what: str) -> None:
    """SchedError unless every tag is a declared tag object (``asmgen.ir.tags.is_declared``)."""
    for t in tags:
        if not is_declared(t):
            raise SchedError(f"{what}: tag {t!r} is a bare {type(t).__name__}; name a declared "
                             f"tag (a kind's TagEnum member, e.g. GemmTag.LR_A, or a TagFamily "
                             f"member)")


def recipe_tags(block_recipe) -> set:
    """The tags a per-block recipe names: its SchedGroup masks and its rank table (``ranks``,
    pairs of tag and rank)."""
    out = set()
    for gr in getattr(block_recipe, "groups", None) or ():
        out |= gr.mask
    out.update(t for t, _ in getattr(block_recipe, "ranks", None) or ())
    return out


def check_recipe_tags(block_recipe, vocab: TagVocabulary, name: str = "") -> None:
    """SchedError naming the recipe, the tag and the kind when ``block_recipe`` names a tag that
    the kernel's vocabulary does not declare (a typo, or another kind's recipe)."""
    if block_recipe is None:
        return
    bad = sorted(str(t) for t in recipe_tags(block_recipe) if t not in vocab)
    if bad:
        raise SchedError(f"{'recipe ' + name if name else 'the recipe'} names tag"
                         f"{'s' if len(bad) > 1 else ''} {', '.join(map(repr, bad))} that kind "
                         f"{vocab.kind} does not declare (its tags: {', '.join(vocab.names())})")


def pipelines(groups) -> dict[int, list[SchedGroup]]:
    """Groups split by sync_id, each in the recipe's order."""
    out: dict[int, list[SchedGroup]] = {}
    for gr in groups:
        out.setdefault(gr.sync_id, []).append(gr)
    return dict(sorted(out.items()))
