"""Hypothesis strategies for fuzz cases: a valid config of one kernel kind x a schedule seed x an
emulator seed. The config strategy is the kind's (``KernelKind.fuzz_configs``: e.g.
``asmgen.kinds.gemm.fuzz.gemm_configs``, ``asmgen.kinds.attention.fuzz.attention_configs``); a
config the kind rejects with ``ConfigError`` is filtered there, never a failure.
``small=True`` keeps every case cheap enough for CI.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from ..kinds import registry
from ..target import ARCHES

SEED_MAX = 2**31 - 1


@dataclass(frozen=True)
class FuzzCase:
    """One fuzz case: a kernel config, the ``fuzz`` recipe seed and the emulator/input seed
    (``asmgen check --seed``: the same seed draws the inputs and the emulator's timing)."""

    config: Any
    sched_seed: int
    emu_seed: int

    @property
    def kind(self) -> str:
        """The config's kernel kind (the contract's ``config.kind``)."""
        return kind_of(self.config)

    def describe(self) -> str:
        c = self.config
        size = registry.of_config(c).describe(c)
        return f"{c.name} {size} {c.arch} sched={self.sched_seed} emu={self.emu_seed}"


def kind_of(config) -> str:
    """The name of the registered kind whose config ``config`` is (``UnknownKind`` otherwise)."""
    return registry.of_config(config).name


def seeds() -> st.SearchStrategy[int]:
    return st.integers(0, SEED_MAX)


@st.composite
def fuzz_cases(draw, small: bool = True, arches=ARCHES, kind: str = "gemm") -> FuzzCase:
    """A config of ``kind`` (a registered kind name) x a schedule seed x an emulator seed."""
    configs = registry.get(kind).fuzz_configs(small, arches)
    return FuzzCase(draw(configs), draw(seeds()), draw(seeds()))


def config_from_dict(d: dict, kind: str | None = None):
    """The inverse of the kind's ``config_to_dict`` (reproducer files); the kind is ``kind`` or
    the dict's ``kind`` key."""
    return registry.get(kind or d.get("kind")).config_from_dict(d)
