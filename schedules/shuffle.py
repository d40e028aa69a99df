"""``shuffle``: a seeded random legal schedule of every block (schedule fuzzing, design.md).

Every ready node has the same priority, so the list scheduler's seeded tie-break picks among
them at random: any order the DAG allows can come out, and the passes plus the emulator must
make each one correct. Used by tests to prove the templates state every dependence they rely on.
"""
from __future__ import annotations

from dataclasses import dataclass

from . import register
from .common import GemmRecipe, check_int


@dataclass(frozen=True)
class ShuffleBlock:
    seed: int
    groups: tuple = ()
    repeat: bool = False

    def priority(self, node) -> int:
        return 0


@dataclass(frozen=True)
class ShuffleRecipe(GemmRecipe):
    def for_block(self, name: str, tags=None):
        return self.loop


@register("shuffle")
def shuffle(seed: int = 0) -> GemmRecipe:
    check_int("seed", seed, 0, 2**31 - 1)
    return ShuffleRecipe("shuffle", ShuffleBlock(seed), {"seed": seed})
