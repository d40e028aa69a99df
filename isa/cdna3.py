"""The gfx942 (CDNA3) instruction table: every spec whose ``archs`` include gfx942.

The specs themselves are written per format in ``cdna3_scalar``, ``cdna3_vector``,
``cdna3_memory`` and ``cdna3_mfma`` (each spec lists the arches it exists on, checked with
llvm-mc 22); this module only gathers the gfx942 ones.
"""
from __future__ import annotations

from .cdna3_memory import memory_specs
from .cdna3_mfma import mfma_specs
from .cdna3_scalar import scalar_specs
from .cdna3_vector import vector_specs
from .spec import InstrSpec

ARCH = "gfx942"


def all_specs() -> list[InstrSpec]:
    """Every spec of both arches (gfx942 and gfx950), in table order."""
    return scalar_specs() + vector_specs() + memory_specs() + mfma_specs()


def specs() -> list[InstrSpec]:
    return [s for s in all_specs() if ARCH in s.archs]
