"""The gfx950 (CDNA4) instruction table: gfx942's specs minus the removed ones, plus gfx950's own.

Differences (cdna-facts sections 2.1 and 6, verified with llvm-mc 22): xf32 MFMAs removed;
added double-rate f16/bf16/i8 MFMAs, f8f6f4 and scaled f8f6f4 MFMAs, LDS transpose reads
(``ds_read_b64_tr_*``, ``ds_read_b96_tr_b6``), dwordx3/x4 LDS-DMA loads, ``v_permlane16/32_swap_b32``,
``v_cvt_pk_bf16_f32``, ``v_cvt_f32_bf16``, ``v_prng_b32``, ``v_dot2_f32_bf16``, ``v_bitop3_b32``, ...
(each spec carries ``archs``; this module selects).
"""
from __future__ import annotations

from .cdna3 import all_specs
from .spec import InstrSpec

ARCH = "gfx950"


def specs() -> list[InstrSpec]:
    return [s for s in all_specs() if ARCH in s.archs]


def added() -> list[InstrSpec]:
    """The specs gfx950 has and gfx942 lacks."""
    return [s for s in specs() if "gfx942" not in s.archs]


def removed() -> list[InstrSpec]:
    """The specs gfx942 has and gfx950 lacks."""
    return [s for s in all_specs() if "gfx950" not in s.archs]
