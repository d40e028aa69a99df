"""The one tolerance table of the attention kinds (prefill and decode): how far a kernel's O may
be from its NumPy reference, per Q/K/V dtype (``TOLERANCE``; ``tolerance`` for the absolute
16-bit entries; the fp8 entries are applied by ``kinds.attention.fp8ref``)."""
from __future__ import annotations

from ...dtypes import EPS

# The one tolerance table of the attention kinds (prefill and decode): O's tolerance per Q/K/V
# dtype. f16/bf16: absolute on |O| <= 1: P and O are rounded to the dtype once each, plus f32
# accumulation and v_exp_f32 / v_rcp_f32 (1 ulp); 8 unit roundoffs cover them. fp8 (E4M3 FNUZ on
# gfx942, OCP on gfx950): relative to |O_ref| of the reference that models P's quantisation
# (``fp8ref``): 2 unit roundoffs of out_dtype (bf16: 2^-7, f32: 2^-23) + 2^-16 of f32 math, plus
# a per-row allowance for each P8 value near an fp8 rounding midpoint, and a 2^-20 v_scale
# max|V8| floor.
TOLERANCE = {
    "f16": ("abs", 8 * EPS["f16"]),
    "bf16": ("abs", 8 * EPS["bf16"]),
    "fp8_e4m3fnuz": ("rel_out_units", 2),
    "fp8_e4m3": ("rel_out_units", 2),
}


def tolerance(dtype: str) -> float:
    """The absolute tolerance on O of a 16-bit kernel (``TOLERANCE``; fp8: ``fp8ref``)."""
    how, val = TOLERANCE[dtype]
    if how != "abs":
        raise ValueError(f"{dtype}: the tolerance is relative, see fp8ref.fp8_tolerance")
    return val
