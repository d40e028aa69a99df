"""MFMA (MAI format) instruction specs of gfx942 and gfx950, with shapes, passes and legacy aliases.

Shapes, register widths and pass counts: cdna-facts section 2.1 (1 pass = 4 cycles). The multi-block
shapes (``_2b``/``_4b``/``_16b``) and the f64 MFMAs are not in that table: their passes come from the
CDNA3 ISA guide's MFMA table (cycles/4) and are checked against LLVM's hazard recognizer in
tests/isa/test_hazards_llc.py. XDL = every MFMA except f32-input and f64 ones (section 3).
Operand rules (section 2.1): D and C in the same file (both AGPR or both VGPR), A/B VGPR or AGPR,
C may be the inline constant 0, all tuples even-aligned.
"""
from __future__ import annotations

from .spec import InstrSpec, MfmaShape
from .spec_builders import BOTH, GFX942, GFX950, dst, spec, src

MFMA_MODS = ("cbsz", "abid", "blgp")

# (name, m, n, k, blocks, in_type, out_type, a_regs, cd_regs, passes, archs)
_SHAPES = [
    ("v_mfma_f32_32x32x8_f16", 32, 32, 8, 1, "f16", "f32", 2, 16, 8, BOTH),
    ("v_mfma_f32_16x16x16_f16", 16, 16, 16, 1, "f16", "f32", 2, 4, 4, BOTH),
    ("v_mfma_f32_32x32x8_bf16", 32, 32, 8, 1, "bf16", "f32", 2, 16, 8, BOTH),
    ("v_mfma_f32_16x16x16_bf16", 16, 16, 16, 1, "bf16", "f32", 2, 4, 4, BOTH),
    ("v_mfma_i32_32x32x16_i8", 32, 32, 16, 1, "i8", "i32", 2, 16, 8, BOTH),
    ("v_mfma_i32_16x16x32_i8", 16, 16, 32, 1, "i8", "i32", 2, 4, 4, BOTH),
    ("v_mfma_f32_32x32x2_f32", 32, 32, 2, 1, "f32", "f32", 1, 16, 16, BOTH),
    ("v_mfma_f32_16x16x4_f32", 16, 16, 4, 1, "f32", "f32", 1, 4, 8, BOTH),
    # xf32: removed on gfx950 (llvm-mc error), cdna-facts 2.1
    ("v_mfma_f32_32x32x4_xf32", 32, 32, 4, 1, "xf32", "f32", 2, 16, 8, GFX942),
    ("v_mfma_f32_16x16x8_xf32", 16, 16, 8, 1, "xf32", "f32", 2, 4, 4, GFX942),
    # multi-block shapes (CDNA3 ISA guide MFMA table)
    ("v_mfma_f32_32x32x4_2b_f16", 32, 32, 4, 2, "f16", "f32", 2, 32, 16, BOTH),
    ("v_mfma_f32_16x16x4_4b_f16", 16, 16, 4, 4, "f16", "f32", 2, 16, 8, BOTH),
    ("v_mfma_f32_4x4x4_16b_f16", 4, 4, 4, 16, "f16", "f32", 2, 4, 2, BOTH),
    ("v_mfma_f32_32x32x4_2b_bf16", 32, 32, 4, 2, "bf16", "f32", 2, 32, 16, BOTH),
    ("v_mfma_f32_16x16x4_4b_bf16", 16, 16, 4, 4, "bf16", "f32", 2, 16, 8, BOTH),
    ("v_mfma_f32_4x4x4_16b_bf16", 4, 4, 4, 16, "bf16", "f32", 2, 4, 2, BOTH),
    ("v_mfma_i32_32x32x4_2b_i8", 32, 32, 4, 2, "i8", "i32", 1, 32, 16, BOTH),
    ("v_mfma_i32_16x16x4_4b_i8", 16, 16, 4, 4, "i8", "i32", 1, 16, 8, BOTH),
    ("v_mfma_i32_4x4x4_16b_i8", 4, 4, 4, 16, "i8", "i32", 1, 4, 2, BOTH),
    ("v_mfma_f32_32x32x1_2b_f32", 32, 32, 1, 2, "f32", "f32", 1, 32, 16, BOTH),
    ("v_mfma_f32_16x16x1_4b_f32", 16, 16, 1, 4, "f32", "f32", 1, 16, 8, BOTH),
    ("v_mfma_f32_4x4x1_16b_f32", 4, 4, 1, 16, "f32", "f32", 1, 4, 2, BOTH),
    ("v_mfma_f64_16x16x4_f64", 16, 16, 4, 1, "f64", "f64", 2, 8, 16, BOTH),
    ("v_mfma_f64_4x4x4_4b_f64", 4, 4, 4, 4, "f64", "f64", 2, 2, 4, BOTH),
    # gfx950 double-rate f16/bf16/i8 shapes
    ("v_mfma_f32_32x32x16_f16", 32, 32, 16, 1, "f16", "f32", 4, 16, 8, GFX950),
    ("v_mfma_f32_16x16x32_f16", 16, 16, 32, 1, "f16", "f32", 4, 4, 4, GFX950),
    ("v_mfma_f32_32x32x16_bf16", 32, 32, 16, 1, "bf16", "f32", 4, 16, 8, GFX950),
    ("v_mfma_f32_16x16x32_bf16", 16, 16, 32, 1, "bf16", "f32", 4, 4, 4, GFX950),
    ("v_mfma_i32_32x32x32_i8", 32, 32, 32, 1, "i8", "i32", 4, 16, 8, GFX950),
    ("v_mfma_i32_16x16x64_i8", 16, 16, 64, 1, "i8", "i32", 4, 4, 4, GFX950),
    # f8f6f4: A/B width 8 for fp8 (6 fp6, 4 fp4, chosen by cbsz/blgp); passes for fp8 operands,
    # half that when neither operand is fp8 (isa.hazards.mfma_passes refines per instance)
    ("v_mfma_f32_32x32x64_f8f6f4", 32, 32, 64, 1, "f8f6f4", "f32", 8, 16, 16, GFX950),
    ("v_mfma_f32_16x16x128_f8f6f4", 16, 16, 128, 1, "f8f6f4", "f32", 8, 4, 8, GFX950),
]
# fp8/bf8 pairs: in_type "fp8"/"bf8" when A and B agree, else "fp8_bf8"/"bf8_fp8" (A type first)
for _a in ("fp8", "bf8"):
    for _b in ("fp8", "bf8"):
        _t = _a if _a == _b else f"{_a}_{_b}"
        _SHAPES.append((f"v_mfma_f32_32x32x16_{_a}_{_b}", 32, 32, 16, 1, _t, "f32", 2, 16, 8, BOTH))
        _SHAPES.append((f"v_mfma_f32_16x16x32_{_a}_{_b}", 16, 16, 32, 1, _t, "f32", 2, 4, 4, BOTH))


def _mfma_spec(name, m, n, k, blocks, tin, tout, a_regs, cd, passes, archs, scale=False) -> InstrSpec:
    xdl = tin not in ("f32", "f64")
    shape = MfmaShape(m, n, k, blocks, tin, tout, a_regs, cd, xdl)
    ops = [dst("vdst", "av", cd), src("src0", "va", a_regs), src("src1", "va", a_regs),
           src("src2", "avi", cd)]
    mods = MFMA_MODS
    if scale:  # two scale VGPRs (one E8M0 byte per lane selected by op_sel/op_sel_hi)
        ops += [src("scale_src0", "vs"), src("scale_src1", "vs")]
        mods = ("cbsz", "blgp", "op_sel", "op_sel_hi")
    flags = ["mfma"] + (["xdl"] if xdl else []) + (["dgemm"] if tin == "f64" else [])
    return spec(name, "MAI", ops, "mfma", archs=archs, cycles=4 * passes, passes=passes, mods=mods,
                flags=flags, mfma=shape)


def legacy_name(name: str, shape: MfmaShape) -> str | None:
    """LLVM's older spelling of an MFMA (``v_mfma_f32_32x32x8f16``, ``..._bf16_1k``), or None."""
    if shape.in_type not in ("f16", "bf16", "i8", "f32", "xf32", "f64") or shape.a_regs == 4:
        return None
    prefix = f"v_mfma_{shape.out_type}_{shape.m}x{shape.n}x{shape.k}"
    return prefix + shape.in_type + ("_1k" if shape.in_type == "bf16" else "")


def mfma_specs() -> list[InstrSpec]:
    out = [_mfma_spec(*row) for row in _SHAPES]
    out += [_mfma_spec(r[0].replace("v_mfma_", "v_mfma_scale_"), *r[1:], scale=True)
            for r in _SHAPES if r[5] == "f8f6f4"]
    return out


def mfma_aliases() -> dict[str, str]:
    """Legacy MFMA spelling -> table mnemonic (LLVM accepts both; it prints the new one)."""
    return {alias: s.name for s in mfma_specs() if s.mfma is not None
            and (alias := legacy_name(s.name, s.mfma)) is not None}
