"""The GEMM configuration ``asmgen gemm`` builds when no tuning flag is given: a small table keyed
by layout and by how many workgroups the problem gives the device, ranked by the calibrated cycle model
(``benchmarks/schedules.py`` and ``benchmarks/calibration.py``; the ranking and its numbers are
in the cycle-model notes of issue 14). Not a search: the first entry the generator accepts wins.

* Enough 256x256 tiles to fill every CU at least once, layout NT (both operands K-contiguous):
  the 8-wave ping-pong (HipKittens' schedule, 2x4 waves, two per SIMD) with loads straight to
  LDS and XOR-swizzled LDS, DepthU 32 on gfx942
  (two 256x256x32 bf16 buffers are its 64 KiB of LDS) and 64 on gfx950 (160 KiB). The model ranks
  it first at 8192^3 on both arches (769 TF on MI325X at the power-limited clock, 1571 MHz
  effective; 1610 TF at 1704 MHz on MI355X): MFMA bound, 0.84 of the CUs busy on gfx942 (1024
  tiles over 304 CUs = 4 rounds, the last one at a higher clock), all of them on gfx950.
* Other layouts: the 4-wave ``interleave`` at 256x256 (the ping-pong's operand staging costs it
  registers and LDS time when an operand is not K-contiguous).
* 8-bit inputs (fp8/bf8/i8) in the other layouts (an MN-contiguous operand, byte-transposed in
  registers), and in NT on gfx950: the ping-pong too, with padded LDS rows (DepthU 32 and the auto
  pad on gfx942, 32 bytes of pad on gfx950) and no LDS-DMA, which TN cannot use at all
  (``LOWP_PADDED``). On gfx950 a 64-byte fp8 row has only two 32-byte swizzle units, and the
  padded rows model 1.21-1.24x faster than LDS-DMA + swizzle in NT too; on gfx942 NT keeps the
  LDS-DMA + swizzle ping-pong at DepthU 64 (``LOWP_NT_CDNA3``: two 8-bit 256x256x64 buffers
  fill the 64 KiB; 1.08x DepthU 32 under the model).
* Enough 128x128 tiles to fill the CUs: the 4-wave recipe the model ranks best at that tile.
* Smaller problems: 64x64x32 ``pgr1`` with 2x2 waves (more workgroups than CUs sooner).
"""
from __future__ import annotations

import math

from isa.cycle.params import params_for

from ...dtypes import dtype_of
from ...errors import ConfigError
from ...target import ARCHES, CDNA3, target_of

# CUs of each arch's default device (isa.cycle.params: MI300X 304, MI355X 256)
CUS = {a: int(params_for(a).cus) for a in ARCHES}
DMA_SWZ = {"direct_to_lds": True, "lds_swizzle": True}
LDS_BUFFERS = 2


def _depth(arch: str, dtype: str = "bf16") -> int:
    """The largest power-of-two DepthU whose two 256x256 LDS buffers of ``dtype`` fit the arch's
    LDS (bf16: 32 on CDNA3's 64 KiB, 64 on CDNA4's 160 KiB; 8-bit: 64 on CDNA3)."""
    d = target_of(arch).lds_limit // (LDS_BUFFERS * dtype_of(dtype).nbytes(256 + 256))
    return 1 << (d.bit_length() - 1)


DEPTH = {a: _depth(a) for a in ARCHES}

# Per layout class, (tile, waves, schedule, knobs) for the 256x256 and the 128x128 size class.
# Ranked by benchmarks/schedules.py at 8192^3 bf16 (LDS-DMA + swizzle), TF at the power-limited
# clock (isa.cycle.power; 2026-12-03, the ranking did not change from the fixed-clock one):
# NT (both operands K-contiguous): 256x256 pingpong 769 (gfx942) / 1610 (gfx950) first, then
#   interleave 704 / 1588, pgr1 607 / 1428, ck_v4 599 / 1328 (pgr2's 3 buffers do not fit);
#   128x128: gfx942 pgr1 760 > pingpong 742 > ck_v4 723 > interleave 713; gfx950 interleave
#   1607 > pgr1 1501 > pingpong 1497 > ck_v4 1408. Gaps under the model error (±11 %) are ties.
# NN (B not K-contiguous; TN and TT were not ranked and use this row): 256x256 interleave 492
#   (gfx942) / 654 (gfx950) > pingpong 448 / refused (registers); 128x128: pgr1 304 / 350.
TABLE = {
    "NT": {arch: (((256, 256, DEPTH[arch]), (2, 4), "pingpong", {**DMA_SWZ, "prefetch": 1}),
                  ((128, 128, DEPTH[arch]), (2, 2), "pgr1" if arch == CDNA3 else "interleave",
                   DMA_SWZ))
           for arch in CUS},
    "other": {arch: (((256, 256, DEPTH[arch]), (2, 2), "interleave", DMA_SWZ),
                     ((128, 128, DEPTH[arch]), (2, 2), "pgr1", DMA_SWZ))
              for arch in CUS},
}
# 8-bit inputs, layouts other than NT (and NT on gfx950). Ranked by the model at 8192^3 fp8
# (asmgen profile, TF at the peak clock, 2026-12-03, issue 15 notes): gfx942 256x256x32 pingpong
# padded 1604 (NN and TN) = with LDS-DMA + swizzle 1601 (NN) > interleave padded 1596 (NN) / 1593
# (TN) > swizzled 1591 (TN); NT 1603 padded = 1597 LDS-DMA + swizzle. gfx950 256x256x64 pingpong
# with 32 bytes of pad: NT 4554, NN 4263, TN 3495 > LDS-DMA + swizzle NT 3674, NN 3260 > swizzle
# 3215 (TN) > the auto 8-byte pad 2592 (TN) > interleave 2515 (TN, swizzle); i8 NT 4444 padded vs
# 3741 LDS-DMA + swizzle. 128x128 was not ranked: pgr1, padded.
LOWP_PADDED = {arch: (((256, 256, DEPTH[arch]), (2, 4), "pingpong",
                      {"prefetch": 1, **({} if arch == CDNA3 else {"lds_pad": 32})}),
                     ((128, 128, DEPTH[arch]), (2, 2), "pgr1", {}))
              for arch in CUS}
# 8-bit NT on gfx942 (the K-contiguous fast path of issue 15): the LDS-DMA + swizzle ping-pong
# at the DepthU two 8-bit 256x256 buffers fill (64; bf16's 32 halves the bytes per barrier).
# Ranked by the model at 8192^3 fp8_e4m3fnuz (benchmarks/lowp_gemm.py, TF at the power-limited
# clock, 2026-12-04, after the L2 traffic counts 1 byte per element): 256x256x64 1252 TF at
# 1303 MHz (MFMA busy 0.97) > 256x256x32 1164 at 1413 (busy 0.82); Triton 3.9's 256x256x128 fp8
# TN GEMM 1227 through the same model. 128x128 was not re-ranked (pgr1 DepthU 32 as for bf16).
LOWP_NT_CDNA3 = (((256, 256, _depth(CDNA3, "i8")), (2, 4), "pingpong",
                  {**DMA_SWZ, "prefetch": 1}), TABLE["NT"][CDNA3][1])
SMALL = ((64, 64, 32), (2, 2), "pgr1", {})
# MX types (block scales): DepthU 128. Ranked by the model at 8192^3 mxfp8 (asmgen profile, TF at
# 1704 MHz): 256x256x128 ck_v4 32x32x64 2602 > ck_v4 16x16x128 2370 > pgr1 32x32x64 2394 /
# 16x16x128 2191; DepthU 64 pgr1 2338 (issue 15 notes). The split loops (benchmarks/lowp_gemm.py,
# 2026-12-03, TF at each kernel's power-limited clock): mxfp8 interleave 256x256x128 2904 and
# pingpong 256x256x64 2827 vs this ck_v4 2802; mxfp4 interleave 256x256x256 4847, pingpong
# 256x256x128 4772 vs ck_v4 4825: all L2-bound, every gap under the model error (±7.4 %): ties,
# the default stays. After the L2 traffic counts the input bytes (2026-12-04, same script) none
# is L2-bound: mxfp8 unchanged (2802 / 2904 / 2827), mxfp4 ck_v4 5384, interleave 5628, pingpong
# 5500 (1.05x: under the model error, still a tie)
MX = (((256, 256, 128), (2, 2), "ck_v4", {**DMA_SWZ, "mfma": (32, 32, 64)}),
      ((128, 128, 128), (2, 2), "ck_v4", {**DMA_SWZ, "mfma": (32, 32, 64)}))
MX_SMALL = ((64, 64, 128), (2, 2), "pgr1", {"mfma": (16, 16, 128)})
# mxfp4 (half the bytes per K-tile): DepthU 256 first, 3476 TF modeled at 8192^3 vs 3326 with 128
MX4 = ((((256, 256, 256), (2, 2), "ck_v4", {**DMA_SWZ, "mfma": (32, 32, 64)}),) + MX)
# MX layouts other than NT (an MN-contiguous operand transposed in registers: mxfp8 bytes, mxfp4
# nibbles). Ranked by the model at 8192^3 (asmgen profile, TF at peak / power-limited clock,
# 2026-12-04): mxfp4 256x256x128 ck_v4 padded NN 5121/4906, TT 5185/4928, TN 4359/4359 > the
# LDS-DMA + swizzle row NN 4498, TT 4430 (1.14x, beyond the model error; TN has no K-contiguous
# operand to DMA) > swizzle only 4451 / 4497, 256x256x64 swizzled NN 4476, TT 4868/4814, TN 4140,
# interleave padded NN 4659, TT 4293, TN 3921; 256x256x256 exceeds the VGPRs or the vmcnt bound.
# mxfp8 keeps the MX rows (NN 128x128x128 DMA + swizzle 3056/2619 vs padded 3373/2717: a tie) and
# falls back to the padded 128x128x128 where LDS-DMA has no operand (TN: 3098/2633, 256x256x64
# 2599/2466; 256x256x128 exceeds the VGPRs)
MX4_MN = (((256, 256, 128), (2, 2), "ck_v4", {"mfma": (32, 32, 64)}),)
MX8_MN = (((128, 128, 128), (2, 2), "ck_v4", {"mfma": (32, 32, 64)}),)


def candidates(m: int, n: int, arch: str, layout: str = "NT", dtype: str = "f16") -> list[dict]:
    """Configurations to try for an m x n output on ``arch`` in ``layout``, best first: a size
    class is offered when its tiles fill every CU at least once; the small class always."""
    if arch not in CUS:
        raise ConfigError(f"no GEMM defaults for arch {arch!r} (know {sorted(CUS)})")
    mx = dtype_of(dtype).scale is not None
    if mx:
        rows = MX4 if dtype_of(dtype).bits < 8 else MX
        if layout != "NT":
            rows = MX4_MN + rows if dtype_of(dtype).bits < 8 else rows + MX8_MN
    elif dtype_of(dtype).bits == 8 and (layout != "NT" or arch != CDNA3):
        rows = LOWP_PADDED[arch]
    elif dtype_of(dtype).bits == 8:
        rows = LOWP_NT_CDNA3
    else:
        rows = TABLE["NT" if layout == "NT" else "other"][arch]
    out = []
    for tile, waves, schedule, extra in rows:
        if math.ceil(m / tile[0]) * math.ceil(n / tile[1]) >= CUS[arch]:
            out.append({"tile": tile, "waves": waves, "schedule": schedule, **extra})
    tile, waves, schedule, extra = MX_SMALL if mx else SMALL
    out.append({"tile": tile, "waves": waves, "schedule": schedule, **extra})
    return out


def build_default(gemm, m: int, n: int, k: int, arch: str, **kw):
    """(kernel, config) of the first candidate ``gemm`` (``asmgen.api.gemm``) accepts; the last
    error if none does."""
    last = None
    for cfg in candidates(m, n, arch, kw.get("layout", "NT"), kw.get("dtype") or "f16"):
        try:
            return gemm(m, n, k, arch=arch, **cfg, **kw), cfg
        except ConfigError as exc:     # e.g. a layout the ping-pong's LDS-DMA cannot load
            last = exc
    raise last
