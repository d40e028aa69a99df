"""NumPy references for generated kernels (float64 math, then cast), and their tolerances.

``gemm_reference(cfg, A, B, C, alpha, beta, bias)`` computes
``act(alpha * op(A) @ op(B) + beta * C + bias)`` exactly as design.md states the contract: A is
MxK row-major for layout ``N`` (KxM for ``T``), B is KxN for ``N`` (NxK for ``T``), C is MxN
(leading dimension ldc), bias is an f32 vector over N. The inputs are rounded to their real
formats first (f16/bf16 through ml_dtypes), so the only differences to the kernel are fp32
accumulation order and the final rounding.

MX types (``mxfp8``, gfx950): A and B hold the element format (E4M3) and ``scale_a`` [M, K/32] /
``scale_b`` [N, K/32] the E8M0 block scales (uint8); each element is multiplied by its block's
2**(s - 127) exactly before the float64 product (``operands``), no per-tensor factor.

Low-precision inputs (issue 15: ``fp8_e4m3fnuz``/``bf8_e5m2fnuz``, ``fp8_e4m3``/``bf8_e5m2``,
``i8``; the element types of ``asmgen.dtypes``): the arrays are the ml_dtypes / NumPy types of
their dtype (``cfg.dtype`` for A, ``cfg.dtype_b`` for B when the config has it), decoded exactly
to float64 (every fp8/bf8 and int8 value is a float64; a product of two is exact, and an i8 dot
product of K < 2**24 terms stays below 2**53, so float64 accumulation is exact for i8). Per-tensor
scales ``scale_a``/``scale_b`` (f32 scalars, the contract's fixed names) multiply the
accumulator: ``alpha * scale_a * scale_b * op(A) @ op(B) + beta * C + bias``. An ``i32`` output
is the integer accumulator wrapped to int32 (as ``v_mfma_i32_*`` accumulate, isa.emu.mfma) and
takes no alpha/beta/scales/bias/activation. The accumulation error allowed per input dtype is
the one table ``ACC_UNITS``.

``scale_a`` / ``scale_b`` may also be one-element arrays (the kernel reads them through a device
pointer), an f32 vector over M (per row of A: per token) and over N (per column of op(B): per
channel); the result is then ``alpha * scale_a[i] * scale_b[j] * acc[i, j]``.

fp8/bf8 outputs saturate (``saturate``): finite values and +-Inf beyond the format's largest
finite value become +-max, NaN stays NaN, then RNE to the format (the kernel's epilogue);
``compare`` counts a NaN where the reference has one as equal.
"""
from __future__ import annotations

import math

import numpy as np

from ...dtypes import EPS, NP_DTYPES, dtype_of, np_dtype  # noqa: F401  (np_dtype: re-exported)
from ...errors import ConfigError

# Accumulation error per input dtype, in units of 2**-24 x sum |a b| per (K + 8) terms (the
# tolerance's only per-dtype term). f16/bf16: the MFMA truncates each product to 24 bits below the
# group's largest exponent and rounds once per group (isa.emu.mfma, MMA-Sim's CDNA3 model: "fdpa").
# fp8/bf8: the even and odd half-sums are each floored once more before they are added ("fdpa2"):
# twice that. i8: exact integer dot products (0).
ACC_UNITS = {"f16": 1, "bf16": 1, "fp8_e4m3fnuz": 2, "bf8_e5m2fnuz": 2, "fp8_e4m3": 2,
             "bf8_e5m2": 2, "i8": 0, "mxfp8": 2, "mxfp4": 2}


def _rows(mat: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """The ``rows x cols`` matrix view of a 2-D buffer whose rows may be padded (ld >= cols)."""
    return np.asarray(mat)[:rows, :cols].astype(np.float64)


def op_a(layout: str, A: np.ndarray, m: int, k: int) -> np.ndarray:
    return _rows(A, k, m).T if layout[0] == "T" else _rows(A, m, k)


def op_b(layout: str, B: np.ndarray, k: int, n: int) -> np.ndarray:
    return _rows(B, n, k).T if layout[1] == "T" else _rows(B, k, n)


def activation(x: np.ndarray, kind: str) -> np.ndarray:
    if kind == "none":
        return x
    if kind == "silu":
        return x / (1.0 + np.exp(-x))
    if kind == "gelu":   # tanh approximation (the kernel's)
        c = math.sqrt(2.0 / math.pi)
        return 0.5 * x * (1.0 + np.tanh(c * (x + 0.044715 * x ** 3)))
    raise ValueError(f"activation {kind!r} is not none, silu or gelu")


def b_dtype(cfg) -> str:
    """B's element type: ``cfg.dtype_b`` when the config has one (mixed fp8 x bf8), else A's."""
    return getattr(cfg, "dtype_b", None) or cfg.dtype


def _check_i32(cfg, alpha, beta, bias, scale_a, scale_b) -> None:
    """An i32 output is the raw integer accumulator: nothing may scale or offset it."""
    extra = {"alpha": (alpha, 1.0), "beta": (beta, 0.0), "scale_a": (scale_a, 1.0),
             "scale_b": (scale_b, 1.0)}
    bad = [f"{n}={v!r}" for n, (v, want) in extra.items() if v != want]
    if bias is not None:
        bad.append("bias")
    if getattr(cfg, "activation", "none") != "none":
        bad.append(f"activation={cfg.activation!r}")
    if bad:
        raise ConfigError(f"an i32 output is the integer accumulator; it takes no "
                          f"{', '.join(bad)} (alpha 1, beta 0, scales 1, no bias/activation)")


def _scale(s, m: int, n: int, axis: int):
    """A scale as float64 broadcastable over M x N: a scalar or one-element array as is, a
    vector along ``axis`` (0: rows, 1: columns) of its first M / N entries."""
    a = np.asarray(s, dtype=np.float64)
    if a.size == 1:
        return a.reshape(())
    a = a.reshape(-1)
    return a[:m, None] if axis == 0 else a[None, :n]


def _is_one(s) -> bool:
    return bool(np.all(np.asarray(s) == 1.0))


def mx_scales(scales, rows: int, k: int, block: int = 32) -> np.ndarray:
    """float64 [rows, k] factors of E8M0 block scales (uint8 [rows, k / block], OCP MX v1.0:
    2**(s - 127), 0xFF NaN) decoded exactly through ml_dtypes' float8_e8m0fnu."""
    s = np.ascontiguousarray(np.asarray(scales, np.uint8)[:rows, :k // block])
    return np.repeat(s.view(np_dtype("e8m0")).astype(np.float64), block, axis=1)


def unpack_fp4(packed) -> np.ndarray:
    """float64 values of E2M1 pairs packed in uint8 [rows, cols / 2] (element 2i in the low
    nibble of byte i, the order the f8f6f4 MFMA reads, isa.mfma_layout), decoded through
    ml_dtypes' float4_e2m1fn: [rows, cols]."""
    b = np.asarray(packed, np.uint8)
    codes = np.stack([b & 0xF, b >> 4], axis=-1).reshape(b.shape[:-1] + (-1,))
    return codes.astype(np.uint8).view(np_dtype("mxfp4")).astype(np.float64)


def pack_fp4(values) -> np.ndarray:
    """uint8 [rows, cols / 2] of values exactly representable in E2M1 (``unpack_fp4``'s inverse)."""
    codes = np.asarray(values).astype(np_dtype("mxfp4")).view(np.uint8) & 0xF
    return (codes[..., 0::2] | (codes[..., 1::2] << 4)).astype(np.uint8)


def operands(cfg, A, B, scale_a=1.0, scale_b=1.0) -> tuple[np.ndarray, np.ndarray]:
    """float64 op(A) [M, K] and op(B) [K, N]; MX types with their block scales multiplied in
    (``scale_a`` [M, K/32], ``scale_b`` [N, K/32] uint8); mxfp4 buffers packed along their
    contiguous (last) axis: A [M, K/2] (layout N) or [K, M/2] (T), B [K, N/2] (N) or [N, K/2]
    (T), unpacked before the layout is applied (docs/launch-contract.md)."""
    if dtype_of(cfg.dtype).bits == 4:
        A, B = unpack_fp4(A), unpack_fp4(B)
    a = op_a(cfg.layout, A, cfg.m, cfg.k)
    b = op_b(cfg.layout, B, cfg.k, cfg.n)
    if getattr(cfg, "mx", False):
        blk = dtype_of(cfg.dtype).block
        with np.errstate(invalid="ignore"):
            a = a * mx_scales(scale_a, cfg.m, cfg.k, blk)
            b = b * mx_scales(scale_b, cfg.n, cfg.k, blk).T
    return a, b


def tensor_scales(cfg, scale_a, scale_b, m: int, n: int):
    """scale_a, scale_b as factors of the accumulator, broadcastable over M x N (``_scale``);
    1 and 1 for MX types, whose scales are blocks already in ``operands``."""
    if getattr(cfg, "mx", False):
        return np.float64(1.0), np.float64(1.0)
    return _scale(scale_a, m, n, 0), _scale(scale_b, m, n, 1)


def gemm_accumulator(cfg, A, B, scale_a=1.0, scale_b=1.0) -> np.ndarray:
    """op(A) @ op(B) in float64 (exact for i8: integer sums below 2**53)."""
    a, b = operands(cfg, A, B, scale_a, scale_b)
    return a @ b


def gemm_reference64(cfg, A, B, C, alpha: float, beta: float, bias=None,
                     scale_a: float = 1.0, scale_b: float = 1.0) -> np.ndarray:
    """The float64 result (M x N) before the cast to the output dtype."""
    m, n = cfg.m, cfg.n
    acc = gemm_accumulator(cfg, A, B, scale_a, scale_b)
    if cfg.out_dtype == "i32":
        _check_i32(cfg, alpha, beta, bias, scale_a, scale_b)
        return acc
    sa, sb = tensor_scales(cfg, scale_a, scale_b, m, n)
    out = (alpha * sa * sb) * acc
    if beta != 0:
        out = out + beta * _rows(C, m, n)
    if bias is not None:
        out = out + np.asarray(bias, dtype=np.float64)[None, :n]
    return activation(out, cfg.activation)


def wrap_i32(x: np.ndarray) -> np.ndarray:
    """Integers (exact in float64) wrapped to int32 two's complement."""
    return ((np.asarray(x).astype(np.int64) + 2 ** 31) % 2 ** 32 - 2 ** 31).astype(np.int32)


def saturate(cfg, x: np.ndarray) -> np.ndarray:
    """``x`` clipped to +-max of an fp8/bf8 output (NaN kept); other outputs unchanged."""
    big = dtype_of(cfg.out_dtype).max_finite
    if big is None:
        return x
    return np.where(np.isnan(x), x, np.clip(x, -big, big))


def gemm_reference(cfg, A, B, C, alpha: float = 1.0, beta: float = 0.0, bias=None,
                   scale_a: float = 1.0, scale_b: float = 1.0) -> np.ndarray:
    """``act(alpha * scale_a * scale_b * op(A) @ op(B) + beta * C + bias)`` in float64, cast to
    ``cfg.out_dtype`` (i32: the accumulator wrapped)."""
    ref = gemm_reference64(cfg, A, B, C, alpha, beta, bias, scale_a, scale_b)
    if cfg.out_dtype == "i32":
        return wrap_i32(ref)
    return saturate(cfg, ref).astype(np_dtype(cfg.out_dtype))


def gemm_tolerance(cfg, A, B, C, alpha: float, beta: float, bias=None,
                   scale_a: float = 1.0, scale_b: float = 1.0, ref64=None) -> np.ndarray:
    """Per-element absolute tolerance: accumulation error (``ACC_UNITS[dtype]`` x (K + 8) units
    of 2^-24 times sum |a*b|, cdna-facts section 2.3), the f32 product of alpha and the scales
    (two roundings), the output rounding (one unit roundoff of out_dtype, of the result plus the
    scaled inputs, since activation math in fp32 is close to 1-2 ulp), and a small absolute
    floor for the transcendental activations. i32 outputs are exact (0). ``ref64``: the
    ``gemm_reference64`` result when the caller has it (``compare``: one float64 matmul fewer,
    seconds at 4096^3)."""
    m, n, k = cfg.m, cfg.n, cfg.k
    if cfg.out_dtype == "i32":
        return np.zeros((m, n))
    units = max(ACC_UNITS[cfg.dtype], ACC_UNITS[b_dtype(cfg)])
    a, b = operands(cfg, A, B, scale_a, scale_b)
    mag = np.abs(a) @ np.abs(b)
    sa, sb = tensor_scales(cfg, scale_a, scale_b, m, n)
    scale = np.abs(alpha * sa * sb) * mag
    if beta != 0:
        scale = scale + abs(beta) * np.abs(_rows(C, m, n))
    if bias is not None:
        scale = scale + np.abs(np.asarray(bias, dtype=np.float64))[None, :n]
    if ref64 is None:
        ref64 = gemm_reference64(cfg, A, B, C, alpha, beta, bias, scale_a, scale_b)
    ref = np.abs(saturate(cfg, ref64))
    acc_eps = units * (k + 8) * EPS["f32"]
    scaled = not (_is_one(sa) and _is_one(sb))
    # alpha * scale_a * scale_b rounded twice in f32 (a vector scale: three times)
    s_eps = (3 if np.ndim(sa) + np.ndim(sb) else 2) * EPS["f32"] if scaled else 0.0
    acc_eps += s_eps
    if ACC_UNITS[cfg.dtype] == 0:      # i8: the exact i32 sum is converted to f32 once
        acc_eps = 2 * EPS["f32"] + s_eps
    tol = acc_eps * scale + 2 * EPS[cfg.out_dtype] * (ref + EPS["f32"] * scale)
    if cfg.activation != "none":
        tol = tol + 1e-5 * (1.0 + scale) + 4 * EPS[cfg.out_dtype] * (ref + scale)
    # the smallest normal of the output format (values below it are flushed or denormal); fp8/bf8:
    # one step of their denormal grid
    floor = {"f32": 1e-30, "f16": 6.1e-5, "bf16": 1e-30}.get(cfg.out_dtype)
    if floor is None:
        import ml_dtypes
        floor = float(ml_dtypes.finfo(np_dtype(cfg.out_dtype)).smallest_subnormal)
    return tol + floor


def _rounds_to_inf(cfg, got: np.ndarray, ref: np.ndarray, tol: np.ndarray) -> np.ndarray:
    """Where ``got`` is the infinity an IEEE f16/bf16/f32 output rounds to: the reference's
    magnitude, within its tolerance, reaches the format's overflow threshold (max finite plus half
    an ulp: round to nearest even overflows there, IEEE 754 section 7.4) and the signs agree. A
    kernel converting an out-of-range f32 accumulator with v_cvt_f16_f32 / the bf16 converts
    writes that infinity (MODE.FP16_OVFL clear); fp8/bf8 outputs saturate instead (``saturate``)."""
    if cfg.out_dtype not in ("f16", "bf16", "f32"):
        return np.zeros(got.shape, dtype=bool)
    import ml_dtypes
    fi = ml_dtypes.finfo(np_dtype(cfg.out_dtype))
    threshold = float(fi.max) + 2.0 ** (fi.maxexp - 1) * float(fi.eps) / 2   # max + half its ulp
    with np.errstate(invalid="ignore"):
        return np.isinf(got) & (np.sign(got) == np.sign(ref)) & (np.abs(ref) + tol >= threshold)


def compare(cfg, out, A, B, C, alpha: float, beta: float, bias=None,
            scale_a: float = 1.0, scale_b: float = 1.0) -> tuple[bool, str]:
    """(ok, message): the kernel's ``out`` against the reference with ``gemm_tolerance``
    (i32 outputs: bit-exact against the wrapped accumulator)."""
    ref64 = gemm_reference64(cfg, A, B, C, alpha, beta, bias, scale_a, scale_b)
    ref = saturate(cfg, ref64)
    if cfg.out_dtype == "i32":
        ref = wrap_i32(ref).astype(np.float64)
    got = np.asarray(out)[:cfg.m, :cfg.n].astype(np.float64)
    tol = gemm_tolerance(cfg, A, B, C, alpha, beta, bias, scale_a, scale_b, ref64)
    with np.errstate(invalid="ignore"):
        err = np.abs(got - ref)
    bad = ~(err <= tol) & ~(np.isnan(got) & np.isnan(ref))
    bad &= ~_rounds_to_inf(cfg, got, ref, tol)
    if not bad.any():
        return True, f"max error {np.nanmax(err) if err.size and not np.isnan(err).all() else 0:.3g} within tolerance"
    i, j = np.argwhere(bad)[0]
    return False, (f"{int(bad.sum())} of {bad.size} elements differ; first at ({i}, {j}): got "
                   f"{got[i, j]!r}, expected {ref[i, j]!r} (tolerance {tol[i, j]:.3g})")


def _draw(rng, shape, name: str) -> np.ndarray:
    """Seeded values of dtype ``name``, representable by construction: floats are standard normal
    rounded to the format (|x| < 10 is inside every fp8/bf8 range, so no NaN/saturation); i8 and
    i32 are uniform over their range (i32: within +-2**20, a C that beta could add)."""
    d = dtype_of(name)
    if d.is_int:
        lim = 2 ** 20 if d.bits > 8 else 2 ** (d.bits - 1)
        return rng.integers(-lim, lim, shape).astype(d.np_type)
    return rng.standard_normal(shape).astype(d.np_type)


def gemm_random_inputs(cfg, seed: int = 0, alpha: float | None = None,
                       beta: float | None = None) -> dict:
    """Seeded inputs for ``cfg``: A, B, C (standard normal, rounded to their dtypes, rows padded
    to lda/ldb/ldc; i8 uniform over -128..127), bias when fused, and alpha/beta (drawn when not
    given; beta is 0 for odd seeds so both the C-read and the C-skip paths get exercised).
    Low-precision inputs also get the per-tensor ``scale_a``/``scale_b`` (f32, 0.25..2); an i32
    output gets alpha 1, beta 0 and no scales (it is the raw accumulator)."""
    rng = np.random.default_rng(seed)
    ta, tb = cfg.layout[0] == "T", cfg.layout[1] == "T"
    a_rows = cfg.k if ta else cfg.m
    b_rows = cfg.n if tb else cfg.k
    el = getattr(cfg, "element_dtype", cfg.dtype)
    if dtype_of(cfg.dtype).bits == 4:     # drawn as E2M1 values, packed below
        el = cfg.dtype
    out = {
        "A": _draw(rng, (a_rows, cfg.lda), el),
        "B": _draw(rng, (b_rows, cfg.ldb), el if getattr(cfg, "mx", False) else b_dtype(cfg)),
        "C": _draw(rng, (cfg.m, cfg.ldc), cfg.out_dtype),
        "alpha": float(np.float32(rng.uniform(0.5, 1.5))) if alpha is None else alpha,
        "beta": (0.0 if seed % 2 else float(np.float32(rng.uniform(-1.0, 1.0)))) if beta is None else beta,
    }
    if cfg.bias:
        out["bias"] = rng.standard_normal(cfg.n).astype(np.float32)
    if dtype_of(cfg.dtype).bits == 4:    # E2M1 pairs packed in bytes, rows of ld / 2 bytes
        out["A"], out["B"] = (pack_fp4(rng.standard_normal((rows, ld)).astype(np_dtype("mxfp4")))
                              for rows, ld in ((a_rows, cfg.lda), (b_rows, cfg.ldb)))
    if getattr(cfg, "mx", False):
        # E8M0 block scales 2**-8 .. 2**8 (bytes 119..135; 2**-3 .. 2**3 for an f16 output, whose
        # range ends at 65504), a spread that keeps every result inside the output format yet
        # makes a wrong block, row or byte visible
        kb = cfg.k // dtype_of(cfg.dtype).block
        lo, hi = (124, 131) if cfg.out_dtype == "f16" else (119, 136)
        out["scale_a"] = rng.integers(lo, hi, (cfg.m, kb)).astype(np.uint8)
        out["scale_b"] = rng.integers(lo, hi, (cfg.n, kb)).astype(np.uint8)
    elif cfg.dtype in ACC_UNITS and dtype_of(cfg.dtype).bits == 8:
        if cfg.out_dtype == "i32":
            out.update(alpha=1.0 if alpha is None else alpha, beta=0.0 if beta is None else beta)
        else:
            out["scale_a"], out["scale_b"] = (float(np.float32(rng.uniform(0.25, 2.0)))
                                              for _ in range(2))
            for name, mode, size in (("scale_a", getattr(cfg, "scale_a_mode", "tensor"), cfg.m),
                                     ("scale_b", getattr(cfg, "scale_b_mode", "tensor"), cfg.n)):
                if mode == "ptr":
                    out[name] = np.array([out[name]], np.float32)
                elif mode in ("row", "col"):
                    out[name] = rng.uniform(0.25, 2.0, size).astype(np.float32)
    return out
