"""The checked plan of one MFMA form, shared by the model (isa.emu.mfma) and its exact fast path
(isa.emu.mfma_fast): shape info, lane layout and the A/B element formats per (mnemonic, arch,
cbsz, abid, blgp), and the BLGP lane map (AMD's CALC rules, see isa.emu.mfma).
"""
from __future__ import annotations

from functools import cache

import numpy as np

from isa.mfma_layout import layout
from isa.mfma_shapes import F8F6F4_FORMATS, SCALE_BLOCK, MfmaInfo, MfmaOperandError, mfma_info


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


def scale_bytes(info: MfmaInfo, regs, sel: int, what: str, waves: int) -> np.ndarray:
    """The E8M0 byte each lane gives a block-scaled MFMA: byte ``sel`` (0..3) of the lane's scale
    VGPR, uint8 [waves, 64]. ``regs``: uint32 [64] or [waves, 64]; None means 127 (scale 1.0).

    Byte select: AMD CDNA4 ISA guide section 7.2.1, operands of Load-Scale: "{OP_SEL_HI[0],
    OP_SEL[0]} defines which part of scale is used by the Matrix A" ({OP_SEL_HI[1], OP_SEL[1]}:
    Matrix B), code 00 Src[7:0], 01 Src[15:8], 10 Src[23:16], 11 Src[31:24] "Lane 0-63 is the
    scale to be used": sel = op_sel[i] + 2 * op_sel_hi[i], the bits of the first (Load-Scale)
    VOP3P dword pair. LLVM's llvm.amdgcn.mfma.scale.* byte index 0..3 encodes the same way
    (llc-22 / llvm-mc-22 -mcpu=gfx950: op_sel bit 11 + i, op_sel_hi bit 59 + i)."""
    if not info.scaled:
        if regs is not None:
            raise MfmaOperandError(f"{info.name}: takes no {what} scale operand")
        return None
    if not 0 <= int(sel) <= 3:
        raise MfmaOperandError(f"{info.name}: {what} scale byte select {sel} out of range 0..3")
    if regs is None:
        return np.full((waves, 64), 127, np.uint8)
    r = np.asarray(regs, np.uint32)
    if r.shape[-1] != 64 or r.ndim not in (1, 2) or (r.ndim == 2 and r.shape[0] != waves):
        raise MfmaOperandError(f"{info.name}: {what} scale register has shape {r.shape}, "
                               f"expected (64,) or ({waves}, 64)")
    return ((r.reshape(-1, 64) >> np.uint32(8 * int(sel))) & np.uint32(0xFF)).astype(np.uint8) \
        * np.ones((waves, 1), np.uint8)


@cache
def scale_lanes(name: str) -> tuple[np.ndarray, np.ndarray]:
    """Lane whose scale byte applies to A[i, k] ([M, K]) and to B[k, j] ([K, N]): AMD CDNA4 ISA
    guide section 7.2.1 "MFMA with Block Exponent Scaling", the scale data layouts: 16x16 (K=128)
    lane l holds the scale of row (column) l % 16, K = 32 (l // 16) .. + 31; 32x32 (K=64) of row
    l % 32, K = 32 (l // 32) .. + 31. So A lane = i + M (k // 32), B lane = j + N (k // 32),
    whatever the element format: an fp8 lane's data (two runs of 16, isa.mfma_layout) spans two
    scale blocks, and its scale is not that of its own data."""
    info = mfma_info(name)
    kb = np.arange(info.k) // SCALE_BLOCK
    la = np.arange(info.m)[:, None] + info.m * kb[None, :]          # [M, K]
    lb = np.arange(info.n)[None, :] + info.n * kb[:, None]          # [K, N]
    return la, lb
