"""The checked plan of one MFMA form, shared by the model (isa.emu.mfma) and its exact fast path
(isa.emu.mfma_fast): shape info, lane layout and the A/B element formats per (mnemonic, arch,
cbsz, abid, blgp), and the BLGP lane map (AMD's CALC rules, see isa.emu.mfma).
"""
from __future__ import annotations

from functools import cache

import numpy as np

from isa.mfma_layout import layout
from isa.mfma_shapes import F8F6F4_FORMATS, MfmaInfo, MfmaOperandError, mfma_info


def _formats(info: MfmaInfo, arch: str, cbsz: int, blgp: int) -> tuple[str, str]:
    """Element format names of A and B (see ``isa.numerics.FORMAT_DTYPES``)."""
    if info.a_type == "f8f6f4":
        for what, v in (("cbsz", cbsz), ("blgp", blgp)):
            if v not in F8F6F4_FORMATS:
                raise MfmaOperandError(f"{info.name}: {what}={v} is not an f8f6f4 format code "
                                       f"(0..4: {[f for f, _ in F8F6F4_FORMATS.values()]})")
        fa, fb = F8F6F4_FORMATS[cbsz][0], F8F6F4_FORMATS[blgp][0]
        return tuple(f + "_ocp" if f in ("fp8", "bf8") else f for f in (fa, fb))
    suffix = "_fnuz" if arch == "gfx942" else "_ocp"   # cdna-facts 2.1 FP8 formats

    def fmt(t):
        return t + suffix if t in ("fp8", "bf8") else t
    return fmt(info.a_type), fmt(info.b_type)


def _bits(fmt: str) -> int:
    return {"fp6": 6, "bf6": 6, "fp4": 4}.get(fmt, 32 if fmt in ("f32", "xf32") else
                                             16 if fmt in ("f16", "bf16") else 8)


@cache
def _blgp_src(blgp: int) -> np.ndarray:
    """Source lane of B for each lane under BLGP (CALC ``_get_blgp_transformed_lane`` rules)."""
    lane = np.arange(64)
    return {0: lane, 1: lane % 32, 2: 32 + lane % 32, 3: (lane + 16) % 64, 4: lane % 16,
            5: 16 + lane % 16, 6: 32 + lane % 16, 7: 48 + lane % 16}[blgp]


def _check_mods(info: MfmaInfo, cbsz: int, abid: int, blgp: int) -> None:
    if info.a_type == "f8f6f4":
        if abid:
            raise MfmaOperandError(f"{info.name}: abid={abid} not modelled on f8f6f4 (must be 0)")
        return
    if (cbsz or abid) and not info.cbsz_abid_ok:
        raise MfmaOperandError(f"{info.name}: cbsz={cbsz}/abid={abid} not supported "
                               "(only multi-block MFMAs broadcast A blocks)")
    if not 0 <= cbsz or (1 << cbsz) > info.blocks or not 0 <= abid < (1 << cbsz):
        raise MfmaOperandError(f"{info.name}: cbsz={cbsz}, abid={abid} out of range "
                               f"(2**cbsz <= blocks={info.blocks}, abid < 2**cbsz)")
    if blgp and not info.blgp_ok:
        raise MfmaOperandError(f"{info.name}: blgp={blgp} not supported on this MFMA")
    if not 0 <= blgp <= 7:
        raise MfmaOperandError(f"{info.name}: blgp={blgp} out of range 0..7")


@cache
def _plan(name: str, arch: str, cbsz: int, abid: int, blgp: int):
    """Per (mnemonic, arch, modifiers): checked info, layout and operand formats (cached)."""
    info = mfma_info(name, arch)
    _check_mods(info, cbsz, abid, blgp)
    return info, layout(name), _formats(info, arch, cbsz, blgp)
