"""Float helpers shared by the emulator: element-format decode tables and an exact fp32 FMA.

Conversions go through ml_dtypes / NumPy (no hand-rolled format decoding). The exponent
convention follows microsoft/MMA-Sim's ``extract_significand_exponent`` (cdna-facts 2.3): a
normal value has its unbiased exponent, a subnormal the format's minimum normal exponent, and
zero the exponent -126 whatever the format.
"""
from __future__ import annotations

from functools import cache

import ml_dtypes
import numpy as np

# Element formats by the names the MFMA code uses -> NumPy dtype of one element.
FORMAT_DTYPES = {
    "f16": np.dtype(np.float16),
    "bf16": np.dtype(ml_dtypes.bfloat16),
    "fp8_fnuz": np.dtype(ml_dtypes.float8_e4m3fnuz),   # gfx942 fp8 (cdna-facts 2.1, HIPFP8)
    "bf8_fnuz": np.dtype(ml_dtypes.float8_e5m2fnuz),   # gfx942 bf8
    "fp8_ocp": np.dtype(ml_dtypes.float8_e4m3fn),      # gfx950 fp8 (OCP E4M3)
    "bf8_ocp": np.dtype(ml_dtypes.float8_e5m2),        # gfx950 bf8 (OCP E5M2)
    "fp6": np.dtype(ml_dtypes.float6_e2m3fn),          # gfx950 f8f6f4 cbsz/blgp 2
    "bf6": np.dtype(ml_dtypes.float6_e3m2fn),          # cbsz/blgp 3
    "fp4": np.dtype(ml_dtypes.float4_e2m1fn),          # cbsz/blgp 4
}
FORMAT_BITS = {"f16": 16, "bf16": 16, "fp8_fnuz": 8, "bf8_fnuz": 8, "fp8_ocp": 8, "bf8_ocp": 8,
               "fp6": 6, "bf6": 6, "fp4": 4}

ZERO_EXPONENT = -126   # MMA-Sim's exponent of a zero operand (any format)
F32_MIN_EXP = -126


@cache
def decode_table(fmt: str) -> tuple[np.ndarray, np.ndarray]:
    """(value float64[2**bits], exponent int32[2**bits]) for every code of element format ``fmt``.

    NaN/inf codes get exponent 0 (callers treat non-finite groups separately)."""
    if fmt not in FORMAT_DTYPES:
        raise KeyError(f"unknown element format '{fmt}' (known: {sorted(FORMAT_DTYPES)})")
    bits = FORMAT_BITS[fmt]
    raw = np.arange(1 << bits, dtype=np.uint16 if bits == 16 else np.uint8)
    with np.errstate(invalid="ignore"):
        values = raw.view(FORMAT_DTYPES[fmt]).astype(np.float64)
    min_exp = int(ml_dtypes.finfo(FORMAT_DTYPES[fmt]).minexp) if fmt != "f16" else -14
    with np.errstate(invalid="ignore"):
        _, e = np.frexp(np.where(np.isfinite(values), values, 0.0))
    exps = np.maximum(e.astype(np.int32) - 1, min_exp)
    exps[values == 0] = ZERO_EXPONENT
    exps[~np.isfinite(values)] = 0
    values.setflags(write=False)
    exps.setflags(write=False)
    return values, exps


def f32_exponent(bits: np.ndarray) -> np.ndarray:
    """MMA-Sim exponent of float32 values given as uint32 bit patterns (int32 array)."""
    biased = (np.asarray(bits, np.uint32) >> np.uint32(23)) & np.uint32(0xFF)
    # biased 0 (zero, subnormal) -> 1 - 127 = -126 = F32_MIN_EXP
    return np.maximum(biased, np.uint32(1)).view(np.int32) - np.int32(127)


def fma_f32(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Exact fused multiply-add a*b+c of float32 arrays with a single RNE rounding (like fmaf).

    a*b is exact in float64; the float64 sum is made round-to-odd (TwoSum error term decides the
    sticky bit), and round-to-odd at 53 bits followed by RNE to 24 bits is a correct single
    rounding because 53 >= 2*24 + 2 (Boldo & Melquiond, "Emulation of FMA and correctly rounded
    sums: proved algorithms using rounding to odd")."""
    c64 = c.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        p = a.astype(np.float64) * b.astype(np.float64)
        s = p + c64
        bb = s - p
        err = (p - (s - bb)) + (c64 - bb)
        even = (s.view(np.int64) & 1) == 0
        fix = np.isfinite(s) & (err != 0) & even
        if fix.any():
            s = np.where(fix, np.nextafter(s, np.where(err > 0, np.inf, -np.inf)), s)
        return s.astype(np.float32)
