"""Table of every dense MFMA of gfx942/gfx950: mnemonic -> shape, operand types, register counts.

Mnemonics are LLVM's (checked with ``llvm-mc-22 -mcpu=gfx942`` / ``gfx950``, which accept exactly
the arches listed here). Shapes and register counts: cdna-facts section 2.1 and AMD's matrix
instruction calculator (CALC, ``-a CDNA3 -d``) for the CDNA3 multi-block forms. ``isa.cdna3`` /
``isa.cdna4`` can build their ``MfmaShape`` entries from ``mfma_shape(name)``.

Numerics kinds (used by ``isa.emu.mfma``):
  "fdpa"  fused dot product of ``group`` products + accumulator (f16, bf16, xf32), cdna-facts 2.3
  "fdpa2" the fp8 variant: ``group`` products as even/odd halves (fp8, bf8, f8f6f4)
  "fma"   chain of fused multiply-adds (f32)
  "int"   exact integer dot product, int32 wraparound (i8)
Block-scaled ``v_mfma_scale_f32_*_f8f6f4`` (``scaled``): the f8f6f4 rows plus one E8M0 scale per
32 K-elements of each A row and B column (``SCALE_BLOCK``), see ``isa.emu.mfma``.
Not modelled (raise ``MfmaUnsupported``): f64 MFMAs, sparse ``v_smfmac_*``.
"""
from __future__ import annotations

from dataclasses import dataclass

from isa.errors import IsaError, UnknownInstruction
from isa.spec import MfmaShape

GFX942 = frozenset({"gfx942", "gfx950"})   # legacy shapes: still on gfx950 (half rate there)
ONLY942 = frozenset({"gfx942"})            # xf32: removed on gfx950 (cdna-facts 2.1, llvm-mc error)
ONLY950 = frozenset({"gfx950"})

# Bits per element of each input type name. "fp8"/"bf8" mean FNUZ e4m3/e5m2 on gfx942 and OCP
# E4M3FN/E5M2 on gfx950 (cdna-facts 2.1); the arch picks the format at run time.
TYPE_BITS = {"f32": 32, "xf32": 32, "f16": 16, "bf16": 16, "fp8": 8, "bf8": 8, "i8": 8,
             "f8f6f4": 8}

# f8f6f4 cbsz/blgp format codes (cdna-facts 2.1: LLVM picks f8 for 0/1, f6 for 2/3, f4 for 4;
# E4M3/E5M2/E2M3/E3M2/E2M1 per the CDNA4 ISA guide section 7.1.5, "CBSZ[2:0] defines the matrix A
# format, BLGP[2:0] defines the matrix B format" table).
F8F6F4_FORMATS = {0: ("fp8", 8), 1: ("bf8", 8), 2: ("fp6", 6), 3: ("bf6", 6), 4: ("fp4", 4)}

# K-elements per E8M0 scale of the block-scaled MFMAs: AMD CDNA4 ISA guide section 7.2 ("the block
# size is 32"; one scale per lane, lane i + M * (k // 32), section 7.2.1) and the OCP MX v1.0 block.
SCALE_BLOCK = 32


class MfmaUnsupported(UnknownInstruction):
    """An MFMA mnemonic this table does not model, or one the requested arch lacks."""


class MfmaOperandError(IsaError):
    """An MFMA operand or modifier value out of range (matrix shape, cbsz, abid, blgp)."""


@dataclass(frozen=True, slots=True)
class MfmaInfo:
    """Everything the layout and numerics code needs about one MFMA mnemonic."""

    name: str
    m: int
    n: int
    k: int              # K per block
    blocks: int
    a_type: str         # key of TYPE_BITS
    b_type: str
    out_type: str       # "f32" | "i32"
    a_regs: int         # VGPRs per lane of A (and of B); f8f6f4: the fp8 count (8)
    cd_regs: int
    arches: frozenset
    xdl: bool
    kind: str           # "fdpa" | "fdpa2" | "fma" | "int"
    group: int          # products per fused group (fdpa/fdpa2), 1 for fma, K for int
    scaled: bool = False  # v_mfma_scale_*: two E8M0 scale VGPRs (A rows, B columns)

    @property
    def bits(self) -> int:
        return TYPE_BITS[self.a_type]

    @property
    def k_per_lane(self) -> int:
        """Elements of A (or B) held by one lane: a_regs * 32 / bits."""
        return self.a_regs * 32 // self.bits

    @property
    def cbsz_abid_ok(self) -> bool:
        """CBSZ/ABID broadcast A blocks: multi-block MFMAs only (CALC CDNA3 table 'cbsz_abid')."""
        return self.blocks > 1

    @property
    def blgp_ok(self) -> bool:
        """BLGP B-lane swizzle: multi-block and f32 MFMAs (CALC CDNA3 table 'blgp').

        (f8f6f4 reuses the cbsz/blgp fields as operand formats instead.)"""
        return self.blocks > 1 or self.kind == "fma"

    def regs_for_bits(self, bits: int) -> int:
        """VGPRs per lane an operand of ``bits``-wide elements needs (f8f6f4: 8/6/4)."""
        return self.k_per_lane * bits // 32


def _e(name, m, n, k, blocks, a, b, out, a_regs, cd_regs, arches, kind, group, xdl=True,
       scaled=False):
    return name, MfmaInfo(name, m, n, k, blocks, a, b, out, a_regs, cd_regs, arches, xdl,
                          kind, group, scaled)


_ROWS = [
    # f32: chain of FMAs (MMA-Sim CDNA3 "fma"); non-XDL on gfx940+ (cdna-facts 3)
    _e("v_mfma_f32_32x32x1_2b_f32", 32, 32, 1, 2, "f32", "f32", "f32", 1, 32, GFX942, "fma", 1, False),
    _e("v_mfma_f32_16x16x1_4b_f32", 16, 16, 1, 4, "f32", "f32", "f32", 1, 16, GFX942, "fma", 1, False),
    _e("v_mfma_f32_4x4x1_16b_f32", 4, 4, 1, 16, "f32", "f32", "f32", 1, 4, GFX942, "fma", 1, False),
    _e("v_mfma_f32_32x32x2_f32", 32, 32, 2, 1, "f32", "f32", "f32", 1, 16, GFX942, "fma", 1, False),
    _e("v_mfma_f32_16x16x4_f32", 16, 16, 4, 1, "f32", "f32", "f32", 1, 4, GFX942, "fma", 1, False),
    # xf32 (gfx942 only): tf32-truncated inputs, fused groups of 4 (MMA-Sim CDNA3)
    _e("v_mfma_f32_32x32x4_xf32", 32, 32, 4, 1, "xf32", "xf32", "f32", 2, 16, ONLY942, "fdpa", 4),
    _e("v_mfma_f32_16x16x8_xf32", 16, 16, 8, 1, "xf32", "xf32", "f32", 2, 4, ONLY942, "fdpa", 4),
    # i8 -> i32
    _e("v_mfma_i32_32x32x4_2b_i8", 32, 32, 4, 2, "i8", "i8", "i32", 1, 32, GFX942, "int", 4),
    _e("v_mfma_i32_16x16x4_4b_i8", 16, 16, 4, 4, "i8", "i8", "i32", 1, 16, GFX942, "int", 4),
    _e("v_mfma_i32_4x4x4_16b_i8", 4, 4, 4, 16, "i8", "i8", "i32", 1, 4, GFX942, "int", 4),
    _e("v_mfma_i32_32x32x16_i8", 32, 32, 16, 1, "i8", "i8", "i32", 2, 16, GFX942, "int", 16),
    _e("v_mfma_i32_16x16x32_i8", 16, 16, 32, 1, "i8", "i8", "i32", 2, 4, GFX942, "int", 32),
    _e("v_mfma_i32_32x32x32_i8", 32, 32, 32, 1, "i8", "i8", "i32", 4, 16, ONLY950, "int", 32),
    _e("v_mfma_i32_16x16x64_i8", 16, 16, 64, 1, "i8", "i8", "i32", 4, 4, ONLY950, "int", 64),
]
for _t in ("f16", "bf16"):
    # group = min(8, K) per MMA-Sim's CDNA3 model; gfx950 x16/x32 forms assumed the same (unverified)
    _ROWS += [
        _e(f"v_mfma_f32_32x32x4_2b_{_t}", 32, 32, 4, 2, _t, _t, "f32", 2, 32, GFX942, "fdpa", 4),
        _e(f"v_mfma_f32_16x16x4_4b_{_t}", 16, 16, 4, 4, _t, _t, "f32", 2, 16, GFX942, "fdpa", 4),
        _e(f"v_mfma_f32_4x4x4_16b_{_t}", 4, 4, 4, 16, _t, _t, "f32", 2, 4, GFX942, "fdpa", 4),
        _e(f"v_mfma_f32_32x32x8_{_t}", 32, 32, 8, 1, _t, _t, "f32", 2, 16, GFX942, "fdpa", 8),
        _e(f"v_mfma_f32_16x16x16_{_t}", 16, 16, 16, 1, _t, _t, "f32", 2, 4, GFX942, "fdpa", 8),
        _e(f"v_mfma_f32_32x32x16_{_t}", 32, 32, 16, 1, _t, _t, "f32", 4, 16, ONLY950, "fdpa", 8),
        _e(f"v_mfma_f32_16x16x32_{_t}", 16, 16, 32, 1, _t, _t, "f32", 4, 4, ONLY950, "fdpa", 8),
    ]
for _a in ("fp8", "bf8"):
    for _b in ("fp8", "bf8"):
        _ROWS += [
            _e(f"v_mfma_f32_32x32x16_{_a}_{_b}", 32, 32, 16, 1, _a, _b, "f32", 2, 16, GFX942, "fdpa2", 16),
            _e(f"v_mfma_f32_16x16x32_{_a}_{_b}", 16, 16, 32, 1, _a, _b, "f32", 2, 4, GFX942, "fdpa2", 16),
        ]
# gfx950 f8f6f4: operand formats from cbsz (A) / blgp (B); fp8 register counts here.
_ROWS += [
    _e("v_mfma_f32_32x32x64_f8f6f4", 32, 32, 64, 1, "f8f6f4", "f8f6f4", "f32", 8, 16, ONLY950, "fdpa2", 16),
    _e("v_mfma_f32_16x16x128_f8f6f4", 16, 16, 128, 1, "f8f6f4", "f8f6f4", "f32", 8, 4, ONLY950, "fdpa2", 16),
]
# the block-scaled forms: same shapes, layouts and arithmetic (products scaled exactly, see
# isa.emu.mfma); mnemonics and operands as llvm-mc-22 -mcpu=gfx950 accepts them
_ROWS += [
    _e(n.replace("v_mfma_", "v_mfma_scale_"), *[getattr(i, f) for f in (
        "m", "n", "k", "blocks", "a_type", "b_type", "out_type", "a_regs", "cd_regs", "arches",
        "kind", "group")], scaled=True)
    for n, i in list(_ROWS) if i.a_type == "f8f6f4"
]

MFMA_TABLE: dict[str, MfmaInfo] = dict(_ROWS)

# Mnemonics LLVM accepts that this model leaves out on purpose (error names the reason).
UNSUPPORTED = {
    "v_mfma_f64_16x16x4_f64": "f64 MFMA numerics not modelled",
    "v_mfma_f64_4x4x4_4b_f64": "f64 MFMA numerics not modelled",
}


def mfma_info(name: str, arch: str | None = None) -> MfmaInfo:
    """The table row of ``name``; raises ``MfmaUnsupported`` if unknown or absent on ``arch``."""
    info = MFMA_TABLE.get(name)
    if info is None:
        why = UNSUPPORTED.get(name, "not an MFMA mnemonic this table knows"
                              if not name.startswith("v_smfmac") else "sparse MFMA not modelled")
        raise MfmaUnsupported(f"MFMA '{name}' unsupported: {why}")
    if arch is not None and arch not in info.arches:
        raise MfmaUnsupported(f"MFMA '{name}' does not exist on {arch} "
                              f"(exists on {', '.join(sorted(info.arches))})")
    return info


def mfma_shape(name: str) -> MfmaShape:
    """The ``isa.spec.MfmaShape`` of ``name`` (in_type is "fp8_bf8" style for mixed inputs)."""
    i = mfma_info(name)
    in_type = i.a_type if i.a_type == i.b_type else f"{i.a_type}_{i.b_type}"
    return MfmaShape(m=i.m, n=i.n, k=i.k, blocks=i.blocks, in_type=in_type, out_type=i.out_type,
                     a_regs=i.a_regs, cd_regs=i.cd_regs, xdl=i.xdl)


def mfma_names(arch: str) -> list[str]:
    """Every modelled MFMA mnemonic that exists on ``arch``."""
    return [n for n, i in MFMA_TABLE.items() if arch in i.arches]


def operand_regs(name: str, cbsz: int = 0, blgp: int = 0) -> tuple[int, int]:
    """VGPRs per lane of (A, B): a_regs for every MFMA except f8f6f4, whose cbsz/blgp format
    codes pick 8 (fp8/bf8), 6 (fp6/bf6) or 4 (fp4) VGPRs (cdna-facts 2.1, llvm-mc)."""
    info = mfma_info(name)
    if info.a_type != "f8f6f4":
        return info.a_regs, info.a_regs
    out = []
    for what, code in (("cbsz", cbsz), ("blgp", blgp)):
        if code not in F8F6F4_FORMATS:
            raise MfmaOperandError(f"{name}: {what}={code} is not an f8f6f4 format code (0..4)")
        out.append(info.regs_for_bits(F8F6F4_FORMATS[code][1]))
    return out[0], out[1]
