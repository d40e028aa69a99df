"""What a GEMM config may name and how its values are read: the layouts, loop arrangements,
activations, 8-bit and MX input dtypes, scale modes and fp8 outputs; the per-arch dtype check; the
global-load vector widths; the ``MxNxK`` triple parser (``kinds.gemm.config`` validates with them)."""
from __future__ import annotations

from ...errors import ConfigError
from ...target import IN_DTYPES, Target

LAYOUTS = ("NN", "NT", "TN", "TT")
# K loop arrangements: "default" (kinds.gemm.template), the split loops "pingpong" (8 waves) and
# "interleave" (4 waves) of kinds.gemm.pingpong
ARRANGEMENTS = ("default", "pingpong", "interleave")
ACTIVATIONS = ("none", "silu", "gelu")
# fp8/bf8/i8 inputs the GEMM builds (1-byte elements; MN-contiguous operands are transposed in
# registers on their way to LDS, kinds.gemm.memops)
LOWP_DTYPES = ("fp8_e4m3fnuz", "bf8_e5m2fnuz", "fp8_e4m3", "bf8_e5m2", "i8")
# MX inputs (gfx950): elements plus one E8M0 scale per 32 K-elements of each A row and B column,
# through v_mfma_scale_f32_*_f8f6f4 (kinds.gemm.mxscale)
MX_DTYPES = ("mxfp8", "mxfp4")
# How scale_a / scale_b reach the kernel (contract args of those names): an f32 argument
# ("tensor"), a device pointer to one f32 ("ptr"), or an f32 vector per row of A / column of B
# (per-token / per-channel quantisation)
SCALE_A_MODES = ("tensor", "ptr", "row")
SCALE_B_MODES = ("tensor", "ptr", "col")
# fp8/bf8 outputs (saturated to the format's largest finite value, kinds.gemm.epilogue): the
# arch's own encodings only
FP8_OUT_DTYPES = ("fp8_e4m3fnuz", "bf8_e5m2fnuz", "fp8_e4m3", "bf8_e5m2")


def _fp8_outs(target: Target) -> tuple[str, ...]:
    have = target.dtypes()
    return tuple(d for d in FP8_OUT_DTYPES if d in have)


def _arch_has(target: Target, dtype: str) -> None:
    """ConfigError naming the arch and the input dtypes it has when ``dtype`` is not one."""
    have = target.dtypes()
    if dtype not in have:
        ok = [d for d in have if d in IN_DTYPES + LOWP_DTYPES + MX_DTYPES]
        raise ConfigError(f"dtype {dtype!r} is not available on {target}; {target} has "
                          f"{', '.join(ok)}")


VEC_WIDTHS = (8, 4, 2, 1)  # f16 elements per buffer_load_dwordx4 / x2 / dword / ushort
# MN elements per global load of an MN-contiguous operand, by element bits: 16-bit types load 2
# or 1 from each of 2 K rows (a 2x2 transpose into dwords of K-neighbours), 8-bit ones 4, 2 or 1
# bytes from each of 4 K rows (a 4x4 byte transpose, kinds.gemm.memops.emit_local_writes), fp4
# (two E2M1 per byte along MN) 8, 4 or 2 from each of 8 K rows (an 8x8 nibble transpose)
MN_WIDTHS = {16: (2, 1), 8: (4, 2, 1), 4: (8, 4, 2)}


def _pow2(x: int) -> bool:
    return x >= 1 and (x & (x - 1)) == 0


def _triple(value, name: str, n: int) -> tuple[int, ...]:
    if isinstance(value, str):
        try:
            value = tuple(int(p) for p in value.lower().split("x"))
        except ValueError:
            raise ConfigError(f"{name} {value!r} is not of the form " + "x".join(["N"] * n)) from None
    value = tuple(int(x) for x in value)
    if len(value) != n:
        raise ConfigError(f"{name} {value} needs {n} numbers")
    return value
