"""SchedGroup: "issue COUNT nodes carrying one of these tags next", like LLVM's sched_group_barrier.

A recipe gives the scheduler a list of groups. Groups with the same ``sync_id`` form one ordered
pipeline that the scheduler fills front to back: while a pipeline's current group is open, a ready
node whose tags match *any* group of that pipeline may issue only if it matches the *current*
group; nodes that match no group of a pipeline are not constrained by it. A group closes after
``count`` of its nodes issued, or when no node matching it is ready and nothing else can issue
(then the scheduler skips it rather than deadlock; ``skipped`` counts such events for tests and
recipe debugging). Pipelines with different ``sync_id`` are independent. With ``repeat=True`` on
the recipe, a finished pipeline starts over while matching nodes remain (an interleave pattern
such as "1 mfma, 2 ds_read" repeated through the loop body).

Example (LLVM AMDGPU ``__builtin_amdgcn_sched_group_barrier(mask, size, syncid)`` analogue)::

    groups = [SchedGroup({"mfma"}, 1), SchedGroup({"lr_a", "lr_b"}, 2), SchedGroup({"gr_a"}, 1)]
"""
from __future__ import annotations

from dataclasses import dataclass

from ..errors import ConfigError


class SchedError(ConfigError):
    """A recipe asked the scheduler for something impossible (bad group, cyclic DAG)."""


@dataclass(frozen=True, slots=True)
class SchedGroup:
    """``count`` nodes having at least one tag in ``mask``, within pipeline ``sync_id``."""

    mask: frozenset[str]
    count: int = 1
    sync_id: int = 0

    def __init__(self, mask, count: int = 1, sync_id: int = 0) -> None:
        if isinstance(mask, str):
            mask = {mask}
        mask = frozenset(mask)
        if not mask:
            raise SchedError("SchedGroup mask is empty: give at least one tag")
        if count < 1:
            raise SchedError(f"SchedGroup count {count} < 1")
        object.__setattr__(self, "mask", mask)
        object.__setattr__(self, "count", count)
        object.__setattr__(self, "sync_id", sync_id)

    def matches(self, tags: frozenset[str]) -> bool:
        return not self.mask.isdisjoint(tags)


def pipelines(groups) -> dict[int, list[SchedGroup]]:
    """Groups split by sync_id, each in the recipe's order."""
    out: dict[int, list[SchedGroup]] = {}
    for gr in groups:
        out.setdefault(gr.sync_id, []).append(gr)
    return dict(sorted(out.items()))
